"""Type alignment of an original and its synthetic data sets, after synthpop's ``synorig.compare``.

When files are read separately the same variable can come back with different types: numbers
read as text in one file, categories with levels the other file lacks, integers in one file and
decimals in the other. synthpop's ``synorig.compare`` (the R package synthpop 1.9-2; Nowok, Raab
& Dibben, "synthpop: Bespoke Creation of Synthetic Data in R", JSS 2016) reconciles a synthetic
and an original data frame before ``disclosure()``; :func:`align_frames` does the same for one
original and any number of syntheses, column by column over the columns a measure uses, and
returns a plain-language list of what it changed.

Steps 3-6 of synorig.compare are not re-implemented here: :func:`align_frames` calls
:func:`capkit.data.synorig.synorig_compare` (with ``explicit_na_levels=False``) once per
synthesis, and adds what reading separate files needs around it:

1. An entirely missing column takes the type of the other files (nothing to compare).
2. Numbers against text: if every non-missing text value reads as a number, the text becomes
   numbers (the usual "numbers read as text" accident); numbers with thousands separators
   ("1,234") read as numbers, and a few stray texts among numbers (at most 1% of the values: a
   "twelve" among ages) become missing values, each with a warning (``Alignment.warnings``).
   Otherwise synorig.compare makes both sides categorical, numbers labelled as R prints them.
3. (synorig.compare) numbers against categories: the numeric side becomes categorical; text
   becomes categorical; integers against decimals: both decimals; categories with different
   levels (content or order): one level list, synthetic levels first, then original-only ones.
4. Across several syntheses: one type and one level list for every file.
5. A date/time column against anything else cannot be aligned: :class:`CapkitError`.

Every change is described in plain words (``Alignment.changes``); a column whose type already
agreed in every file (text in every file, say) is not reported.

Deliberate differences from ``synorig.compare`` (its quirks, spec quirk Q14 and 1.3 step 2):

* Missing values stay missing on both sides. synorig.compare gives a column an *explicit* NA
  level when only one side has missing values; synthpop then no longer counts those records as
  "Missing" (and fails outright for a target). capkit counts them as ``"Missing"``, which is
  what ``disclosure()`` does on a ``synds`` object and what the oracle cases show.
* Every synthesis is aligned, not only the first, and the number of syntheses is kept (synthpop
  drops to m = 1 when it adjusts a list).
* Only the columns passed are touched; columns the measure does not use are not read at all.

Inputs are never modified: the frames returned are new.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from capkit.data.labels import r_format
from capkit.data.synorig import synorig_compare
from capkit.errors import CapkitError


@dataclass
class Alignment:
    """Aligned frames and what was changed.

    Attributes
    ----------
    original
        The original frame, aligned.
    synthetics
        The synthetic frames, aligned, in the order given.
    changes
        One plain-language sentence per change, e.g. ``"'age': integers in the original file,
        decimals in synthetic file 1; both compared as decimals"``.
    warnings
        What changed values, not only types, for the user to look at: numbers written with
        thousands separators, stray text values among numbers read as missing.
    """

    original: pd.DataFrame
    synthetics: list[pd.DataFrame]
    changes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def kind(series: pd.Series) -> str:
    """``"categorical"``, ``"integer"``, ``"decimal"``, ``"bool"``, ``"datetime"`` or ``"text"``."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pdt.is_bool_dtype(dtype):
        return "bool"
    if pdt.is_integer_dtype(dtype):
        return "integer"
    if pdt.is_numeric_dtype(dtype):
        return "decimal"
    if pdt.is_datetime64_any_dtype(dtype) or isinstance(dtype, pd.PeriodDtype):
        return "datetime"
    return "text"


_WORDS = {"categorical": "categories", "integer": "integers", "decimal": "decimal numbers",
          "bool": "true/false values", "datetime": "dates/times", "text": "text"}


#: Largest share of a text column's values that may fail to read as numbers for the column to
#: be read as numbers anyway, those values becoming missing (a stray "twelve" among ages).
STRAY_SHARE = 0.01

_THOUSANDS = r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$"


@dataclass(frozen=True)
class _Numbers:
    """A text column read as numbers: the values, whether thousands separators were dropped,
    and the texts that did not read as numbers (become missing)."""

    values: pd.Series
    thousands: bool
    stray: list[str]


def _parses_as_numbers(series: pd.Series) -> _Numbers | None:
    """The column as numbers when its non-missing values read as numbers, allowing thousands
    separators ("1,234") and at most :data:`STRAY_SHARE` of them that do not (missing after);
    else None."""
    present = series.dropna()
    if present.empty:
        return None
    text = present.astype(str).str.strip()
    converted = pd.to_numeric(text, errors="coerce")
    thousands = False
    failed = converted.isna()
    grouped = failed & text.str.match(_THOUSANDS)
    if grouped.any():
        converted[grouped] = pd.to_numeric(text[grouped].str.replace(",", "", regex=False))
        thousands, failed = True, converted.isna()
    if failed.sum() > STRAY_SHARE * len(text) or failed.all():
        return None
    stray = list(dict.fromkeys(text[failed]))
    return _Numbers(converted.reindex(series.index), thousands, stray)


def column_difference(first: Sequence[str] | pd.DataFrame, other: Sequence[str] | pd.DataFrame
                      ) -> tuple[list[str], list[str]]:
    """The columns of ``first`` that ``other`` lacks, and those only ``other`` has, each in its
    frame's order (frames or lists of names)."""
    a = list(first.columns if isinstance(first, pd.DataFrame) else first)
    b = list(other.columns if isinstance(other, pd.DataFrame) else other)
    return [c for c in a if c not in set(b)], [c for c in b if c not in set(a)]


def file_names(n_syn: int) -> list[str]:
    """How messages name the original and ``n_syn`` synthetic files."""
    if n_syn == 1:
        return ["the original file", "the synthetic file"]
    return ["the original file"] + [f"synthetic file {j}" for j in range(1, n_syn + 1)]


def _where(kinds: list[str], wanted: set[str], names: list[str]) -> str:
    return ", ".join(n for k, n in zip(kinds, names, strict=True) if k in wanted)


def _align_column(column: str, series: list[pd.Series], names: list[str],
                  changes: list[str], warnings: list[str]) -> list[pd.Series]:
    all_missing = [bool(s.isna().all()) for s in series]
    present = [s for s, empty in zip(series, all_missing, strict=True) if not empty]
    if not present:
        return series
    # 1. an entirely missing column takes the type of the others
    if any(all_missing):
        reference = present[0]
        ref_kind = kind(reference)
        if ref_kind == "integer":  # an integer column cannot hold missing values: decimals
            series = [s.astype(float) if kind(s) == "integer" else s for s in series]
            reference, ref_kind = reference.astype(float), "decimal"
        out = []
        for s, empty, name in zip(series, all_missing, names, strict=True):
            if empty and kind(s) != ref_kind:
                if ref_kind == "categorical":
                    s = pd.Series(pd.Categorical([None] * len(s), categories=reference.cat
                                                 .categories), index=s.index, name=s.name)
                else:
                    s = pd.Series([None] * len(s), index=s.index, name=s.name,
                                  dtype=reference.dtype)
                changes.append(f"{column!r}: every value is missing in {name}; "
                               f"given the type of the other files ({_WORDS[ref_kind]})")
            out.append(s)
        series = out
    kinds = [kind(s) for s in series]
    distinct = set(kinds)
    # 7. dates cannot be aligned with anything else
    if "datetime" in distinct and len(distinct) > 1:
        other = next(k for k in kinds if k != "datetime")
        raise CapkitError(
            f"column {column!r} holds dates/times in {_where(kinds, {'datetime'}, names)} but "
            f"{_WORDS[other]} in {_where(kinds, {other}, names)}; this cannot be aligned: "
            "convert the column to the same type in every file"
        )
    numeric = {"integer", "decimal"}
    # 3. true/false against the numbers 0/1 (R's TRUE/FALSE, a synthesiser's 0/1): one
    # coding, true/false, for every command (1 is true, 0 is false)
    if "bool" in distinct and distinct & numeric and distinct <= numeric | {"bool"} and all(
            set(np.unique(s.dropna().to_numpy(dtype=float))) <= {0.0, 1.0}
            for s, k in zip(series, kinds, strict=True) if k in numeric):
        changes.append(f"{column!r}: true/false in {_where(kinds, {'bool'}, names)} but the "
                       f"numbers 0/1 in {_where(kinds, numeric, names)}; read as true/false "
                       "everywhere (1 = true, 0 = false)")
        series = [s if k == "bool" else
                  (s == 1).astype(bool) if not s.isna().any() else
                  s.map({1: True, 0: False}).astype(object)
                  for s, k in zip(series, kinds, strict=True)]
        return series
    # 2. numbers against text
    if distinct & numeric and distinct & {"text"} and not distinct & {"categorical"}:
        parsed = [_parses_as_numbers(s) if k == "text" else None
                  for s, k in zip(series, kinds, strict=True)]
        if all(p is not None for p, k in zip(parsed, kinds, strict=True) if k == "text"):
            changes.append(f"{column!r}: numbers read as text in "
                           f"{_where(kinds, {'text'}, names)}; converted to numbers")
            for p, name in zip(parsed, names, strict=True):
                if p is not None and p.thousands:
                    warnings.append(f"column {column!r} of {name} writes numbers with "
                                    "thousands separators (1,234): read as numbers")
                if p is not None and p.stray:
                    shown = ", ".join(repr(x) for x in p.stray[:5])
                    warnings.append(
                        f"column {column!r} of {name} holds numbers but also "
                        f"{len(p.stray)} text value{'s' if len(p.stray) > 1 else ''} ({shown}) "
                        f"that {'do' if len(p.stray) > 1 else 'does'} not read as a number: "
                        "read as missing, so that the "
                        "column stays a number (else every number would become a category)")
            series = [p.values.rename(s.name) if p is not None else s
                      for p, s in zip(parsed, series, strict=True)]
    return series


def _describe(column: str, before: list[pd.Series], after: list[pd.Series], names: list[str],
              changes: list[str]) -> None:
    """Plain-language sentences for what synorig.compare changed in one column."""
    k_before = [kind(s) for s in before]
    k_after = [kind(s) for s in after]
    if len(set(k_before)) > 1 and k_before != k_after:
        parts = "; ".join(f"{_WORDS[k]} in {_where(k_before, {k}, names)}"
                          for k in dict.fromkeys(k_before))
        target = _WORDS[k_after[0]] if len(set(k_after)) == 1 else "compatible types"
        note = " (numbers labelled as R prints them)" if k_after[0] == "categorical" and \
            set(k_before) & {"integer", "decimal"} else ""
        changes.append(f"{column!r}: {parts}; all compared as {target}{note}")
    if set(k_after) == {"categorical"}:
        levels = [[str(x) for x in s.cat.categories] for s in before
                  if isinstance(s.dtype, pd.CategoricalDtype)]
        if len(levels) == len(before) and any(lv != levels[0] for lv in levels[1:]):
            union = list(dict.fromkeys(x for lv in levels for x in lv))
            details = []
            for lv, name in zip(levels, names, strict=True):
                lacking = [x for x in union if x not in set(lv)]
                if lacking:
                    shown = lacking if len(lacking) <= 8 else lacking[:8] + ["..."]
                    details.append(f"{name} lacks {shown}")
            what = "; ".join(details) if details else "the level order differs"
            changes.append(f"{column!r}: categories differ ({what}); every file re-coded to "
                           "one level list, synthetic levels first")


def _numbers_to_categorical(series: pd.Series) -> pd.Series:
    """A numeric column as categories labelled as R prints numbers (57 -> "57")."""
    values = series.to_numpy(dtype=float, na_value=np.nan)
    present = ~np.isnan(values)
    uniq, inverse = np.unique(values[present], return_inverse=True)
    codes = np.full(len(values), -1, dtype=np.int64)
    codes[present] = inverse
    labels = r_format(uniq, kind(series) == "integer")
    return pd.Series(pd.Categorical.from_codes(codes, categories=labels), index=series.index,
                     name=series.name)


def _harmonise(column: str, parts: list[pd.Series]) -> list[pd.Series]:
    """One type for every file after the pairwise synorig.compare passes."""
    kinds = {kind(s) for s in parts}
    if kinds == {"integer", "decimal"}:
        return [s.astype(float) for s in parts]
    if "categorical" in kinds and kinds <= {"categorical", "integer", "decimal"}:
        # synorig.compare turns numbers into categories before it turns text into categories,
        # so numbers against text stays mixed there: finish the job
        parts = [_numbers_to_categorical(s) if kind(s) != "categorical" else s for s in parts]
        kinds = {"categorical"}
    if kinds == {"categorical"}:
        levels = [[str(x) for x in s.cat.categories] for s in parts]
        if any(lv != levels[0] for lv in levels[1:]):
            union = list(dict.fromkeys(x for lv in levels[1:] + levels[:1] for x in lv))
            return [pd.Series(pd.Categorical(s.astype(object).where(s.isna(), s.astype(str)),
                                             categories=union), index=s.index, name=s.name)
                    for s in parts]
    return parts


def align_frames(
    original: pd.DataFrame,
    synthetics: Sequence[pd.DataFrame],
    columns: Sequence[str] | None = None,
    *,
    names: Sequence[str] | None = None,
) -> Alignment:
    """Align the column types of an original and its synthetic frames (synorig.compare).

    Parameters
    ----------
    original
        The original data.
    synthetics
        One or more synthetic data sets (one per synthesis).
    columns
        The columns to align (default: those of ``original``). Each must be in every frame.
    names
        How messages name each frame of ``synthetics`` (default "the synthetic file", or
        "synthetic file j" for several); e.g. a holdout aligned with the syntheses.

    Returns
    -------
    Alignment
        New frames holding ``columns`` only, and the list of changes (empty when the types
        already agreed).

    Raises
    ------
    CapkitError
        When a column is missing from a frame, or cannot be aligned (dates against
        anything else).
    """
    frames = [original, *synthetics]
    if not synthetics:
        raise CapkitError("synthetics is empty: give at least one synthetic data set")
    cols = list(original.columns) if columns is None else list(columns)
    names = file_names(len(synthetics)) if names is None else ["the original file", *names]
    if len(names) != len(frames):
        raise CapkitError(f"names must name each of the {len(synthetics)} synthetic frames")
    for frame, name in zip(frames, names, strict=True):
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        for column in cols:
            if column not in frame.columns:
                raise CapkitError(f"column {column!r} is missing from {name}")
    changes: list[str] = []
    warnings: list[str] = []
    prepared = {}
    for column in cols:
        prepared[column] = _align_column(column, [f[column] for f in frames], names, changes,
                                         warnings)
    pre = [pd.DataFrame({c: prepared[c][i] for c in cols}, index=f.index)
           for i, f in enumerate(frames)]
    orig = pre[0]
    syns = []
    for syn in pre[1:]:  # synthpop's synorig.compare, one synthesis at a time
        result = synorig_compare(syn, orig, explicit_na_levels=False)
        syns.append(result.synthetic)
        orig = result.original
    out_orig: dict[str, pd.Series] = {}
    out_syns: list[dict[str, pd.Series]] = [{} for _ in syns]
    for column in cols:
        parts = _harmonise(column, [orig[column]] + [s[column] for s in syns])
        _describe(column, [p[column] for p in pre], parts, names, changes)
        out_orig[column] = parts[0]
        for store, part in zip(out_syns, parts[1:], strict=True):
            store[column] = part
    return Alignment(original=pd.DataFrame(out_orig, index=original.index),
                     synthetics=[pd.DataFrame(st, index=f.index)
                                 for st, f in zip(out_syns, synthetics, strict=True)],
                     changes=changes, warnings=warnings)
