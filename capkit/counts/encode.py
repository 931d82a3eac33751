"""Coding of columns for counting: one integer code per record and column, over the union of the
original's and the synthetic data's levels (the first step of every count table).

Each column is factorised over the union of both frames' levels (``pandas.factorize`` or the
declared categories), and several key columns are combined into one code per record (the key
combinations K_1..K_J of Baillargeon & Charest, Section 2.1; synthpop's q). Vectorised: no
Python loop over records or key combinations.

Every measure counts through here, so this is also where the levels of each key and target are
checked once per column (:func:`check_levels`), before anything is counted:

* **Disjoint coding is an error.** A key or target is refused (:class:`CapkitError`) when fewer
  than half (:data:`MIN_LEVEL_OVERLAP`) of the original records that have a value of it
  (missing values aside) have a value that also occurs in the synthetic data: the two files
  almost surely code it differently ("2. Married" against 2, 23 against "age_23"), and every
  exact-match measure would report no risk. ``allow_disjoint_levels=True`` measures anyway.
* **A continuous target is a warning.** A numeric target with more than
  :data:`CONTINUOUS_TARGET_LEVELS` distinct values in the original is matched by exact value
  by DiSCO, CAP and the other attribute measures, so a close synthetic value counts as a wrong
  guess. The numbers are left as synthpop computes them; a
  :class:`~capkit.errors.ContinuousTargetWarning` names the column and the grouping option.
  Such a target is exempt from the overlap rule (noise alone makes its values disjoint). A
  text target whose values all read as dates (a CSV file's dates arrive as text) gets the
  same warning when it has that many values, and keeps the overlap rule.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from capkit.counts.rows import unique_codes
from capkit.errors import CapkitError, ContinuousTargetWarning, DisjointLevelsError

#: A key or target is refused when fewer than this share of the original records that have a
#: value of it (missing values aside) have a value that occurs in the synthetic data.
MIN_LEVEL_OVERLAP = 0.5

#: A numeric target with more distinct values than this in the original is continuous: exact
#: matching says little about it. 60 is synthpop's ``maxfaclevels`` default, the most levels
#: ``syn()`` accepts for a categorical variable: a numeric column with more values would not be
#: a category in synthpop's own synthesis. (SD2011's ``depress``, a 0-21 score that synthpop's
#: disclosure examples use as a target, stays below; ``income`` is far above.)
CONTINUOUS_TARGET_LEVELS = 60

#: Levels of each side shown in the message of a disjoint column.
SHOWN_LEVELS = 6


def as_list(columns: str | Sequence[str], argument: str) -> list[str]:
    if isinstance(columns, str):
        return [columns]
    try:
        names = list(columns)
    except TypeError as exc:
        raise CapkitError(f"{argument} must be a column name or a list of column names") from exc
    if not names:
        raise CapkitError(f"{argument} is empty: give at least one column name")
    if len(set(names)) != len(names):
        raise CapkitError(f"{argument} names a column twice: {names}")
    return names


def kind_of_series(series: pd.Series) -> str:
    """``"numeric"``, ``"datetime"`` or ``"text"``: the kind of a column, which must agree
    between original and synthetic data (categoricals by their categories' dtype)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if pdt.is_bool_dtype(dtype) or pdt.is_numeric_dtype(dtype):
        return "numeric"
    if pdt.is_datetime64_any_dtype(dtype):
        return "datetime"
    return "text"


def validate_frames(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: list[str],
    targets: list[str],
    names: tuple[str, str] = ("original", "synthetic"),
) -> None:
    """Raise :class:`CapkitError` unless both frames can be cross-tabulated on keys x targets.

    Checks: both are non-empty DataFrames without duplicated column names, every key and target
    column is present in both, no target is also a key, and each column has the same kind
    (numeric, text or datetime) in both frames. ``names`` name the two frames in messages.
    """
    name_o, name_s = names
    for name, frame in ((name_o, original), (name_s, synthetic)):
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} data must be a pandas DataFrame, got {type(frame).__name__}")
        if frame.shape[0] == 0:
            raise CapkitError(f"{name} data is empty (0 rows)")
        duplicated = frame.columns[frame.columns.duplicated()].unique().tolist()
        if duplicated:
            raise CapkitError(f"{name} data has duplicated column names: {duplicated}")
    overlap = [t for t in targets if t in keys]
    if overlap:
        raise CapkitError(f"target column {overlap[0]!r} is also a key; a target cannot be a key")
    for role, columns in (("key", keys), ("target", targets)):
        for column in columns:
            for name, frame in ((name_o, original), (name_s, synthetic)):
                if column not in frame.columns:
                    raise CapkitError(f"{role} column {column!r} is missing from {name} data")
            kind_o, kind_s = kind_of_series(original[column]), kind_of_series(synthetic[column])
            if kind_o != kind_s:
                raise CapkitError(
                    f"{role} column {column!r} is {kind_o} in {name_o} data but {kind_s} in "
                    f"{name_s} data; convert one of them first"
                )


def _union_categories(series: Sequence[pd.Series]) -> pd.Index:
    """Declared categories of the categorical columns first (in the given order), then other
    values, sorted."""
    declared: list[pd.Index] = [
        x.cat.categories for x in series if isinstance(x.dtype, pd.CategoricalDtype)
    ]
    levels = declared[0]
    for more in declared[1:]:
        levels = levels.append(more.difference(levels, sort=False))
    for x in series:
        if not isinstance(x.dtype, pd.CategoricalDtype):
            values = pd.Index(pd.unique(x.dropna()))
            extra = values.difference(levels, sort=False)
            try:
                extra = extra.sort_values()
            except TypeError:
                pass
            levels = levels.append(extra)
    return levels


def factorize_many(series: Sequence[pd.Series]) -> tuple[list[np.ndarray], pd.Index]:
    """Integer codes of several columns over the union of their levels.

    The rules of :func:`factorize_pair`, for any number of columns (e.g. the members, the
    synthetic data and a holdout).

    Returns
    -------
    codes : list of numpy.ndarray
        int64 codes of each column in ``0 .. len(levels) - 1``.
    levels : pandas.Index
        The label of each code.
    """
    series = list(series)
    dtypes = {x.dtype for x in series}
    if len(dtypes) == 1 and isinstance(next(iter(dtypes)), np.dtype) and next(
            iter(dtypes)).kind in "iu":
        # plain integers (no missing value): pd.factorize(sort=True)'s codes and levels from
        # a table of the values (capkit.counts.rows.unique_codes), no hashing
        values, flat = unique_codes(np.concatenate([x.to_numpy() for x in series]))
        return np.split(flat, np.cumsum([len(x) for x in series])[:-1]), pd.Index(values)
    if any(isinstance(x.dtype, pd.CategoricalDtype) for x in series):
        levels = _union_categories(series)
        codes = [pd.Categorical(x, categories=levels).codes.astype(np.int64) for x in series]
    else:
        both = pd.concat(series, ignore_index=True)
        try:
            flat, levels = pd.factorize(both, sort=True)
        except TypeError:
            flat, levels = pd.factorize(both, sort=False)
        flat = flat.astype(np.int64, copy=False)
        levels = pd.Index(levels)
        codes = np.split(flat, np.cumsum([len(x) for x in series])[:-1])
    if any((c < 0).any() for c in codes):
        na_code = len(levels)
        codes = [np.where(c < 0, na_code, c) for c in codes]
        levels = levels.append(pd.Index([np.nan], dtype=object)) if len(levels) else pd.Index(
            [np.nan], dtype=object
        )
    return codes, levels


def factorize_pair(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Integer codes of two columns over the union of their levels.

    Categorical columns keep their declared level order; other columns are factorised with
    their values sorted (appearance order where values of mixed types cannot be sorted).
    Missing values get a level of their own, the last one, labelled NaN, when they occur.

    Returns
    -------
    codes_a, codes_b : numpy.ndarray
        int64 codes in ``0 .. len(levels) - 1``.
    levels : pandas.Index
        The label of each code.
    """
    (codes_a, codes_b), levels = factorize_many([a, b])
    return codes_a, codes_b, levels


def combine_codes(
    columns_a: list[np.ndarray], columns_b: list[np.ndarray], cardinalities: list[int]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """One code per record for a combination of columns, over the combinations that occur.

    Parameters
    ----------
    columns_a, columns_b
        Per-column codes of the two frames (from :func:`factorize_pair`).
    cardinalities
        Number of levels of each column.

    Returns
    -------
    combined_a, combined_b
        Codes ``0..k-1`` of the k combinations present in either frame, ordered
        lexicographically by the per-column codes.
    components
        For each column, the per-column code of each of the k combinations.
    """
    n_a = len(columns_a[0])
    if math.prod(max(int(c), 1) for c in cardinalities) < 1 << 62:
        # one mixed-radix code (lexicographic in the per-column codes), renumbered once
        code = np.concatenate([columns_a[0], columns_b[0]]).astype(np.int64)
        for col_a, col_b, card in zip(columns_a[1:], columns_b[1:], cardinalities[1:],
                                      strict=True):
            code *= card
            code += np.concatenate([col_a, col_b])
        used, codes = unique_codes(code)
        components = []
        for card in cardinalities[:0:-1]:
            used, part = np.divmod(used, card)
            components.append(part)
        components = [used, *components[::-1]]
        return codes[:n_a], codes[n_a:], components
    # each step renumbers the combinations in use to 0..k-1, keeping their order
    used, codes = unique_codes(np.concatenate([columns_a[0], columns_b[0]]))
    components = [used]
    for col_a, col_b, card in zip(columns_a[1:], columns_b[1:], cardinalities[1:], strict=True):
        used, codes = unique_codes(codes * card + np.concatenate([col_a, col_b]))
        components = [c[used // card] for c in components] + [used % card]
    return codes[:n_a], codes[n_a:], components


def _labels(levels: list[pd.Index], components: list[np.ndarray], names: list[str]) -> pd.Index:
    arrays = [lv.take(c) for lv, c in zip(levels, components, strict=True)]
    return pd.MultiIndex.from_arrays(arrays, names=names)


def _is_number(series: pd.Series) -> bool:
    return kind_of_series(series) == "numeric" and not pdt.is_bool_dtype(series.dtype)


def encode_frames(frames: Sequence[pd.DataFrame], columns: list[str], *, role: str = "key",
                  weights: tuple[np.ndarray, np.ndarray] | None = None,
                  allow_disjoint_levels: bool = False
                  ) -> tuple[list[np.ndarray], pd.Index]:
    """One code per row of each frame for its combination of ``columns``.

    Codes run over the combinations present in any of the frames (the union of their levels,
    :func:`factorize_many` per column, :func:`combine_codes` across columns). The levels of each
    column are checked (:func:`check_levels`) between the first frame (the original) and the
    second (the synthetic data); further frames (a holdout) are coded on the same levels.

    Parameters
    ----------
    frames
        Two or more frames: original, synthetic, then any others.
    columns
        The columns to code.
    role
        ``"key"`` or ``"target"``, for :func:`check_levels`.
    weights
        Record weights of the first two frames for the level check (e.g. counts of grouped
        rows); default one per row.
    allow_disjoint_levels
        Passed to :func:`check_levels`.

    Returns
    -------
    codes, labels
        The codes of each frame, and the label of each code: an Index for one column, a
        MultiIndex named by ``columns`` for several.
    """
    frames = list(frames)
    coded = [factorize_many([f[c] for f in frames]) for c in columns]
    w_first, w_second = weights if weights is not None else (None, None)
    for c, (codes, levels) in zip(columns, coded, strict=True):
        size = len(levels)
        check_levels(c, role, levels, np.bincount(codes[0], weights=w_first, minlength=size),
                     [np.bincount(codes[1], weights=w_second, minlength=size)],
                     missing=np.asarray(pd.isna(levels)), numeric=_is_number(frames[0][c]),
                     allow_disjoint_levels=allow_disjoint_levels)
    levels = [lv for _, lv in coded]
    rest = [np.concatenate(codes[1:]) for codes, _ in coded]
    codes_first, codes_rest, components = combine_codes(
        [codes[0] for codes, _ in coded], rest, [len(lv) for lv in levels]
    )
    labels = _labels(levels, components, columns)
    if len(columns) == 1:
        labels = labels.get_level_values(0)
    sizes = np.cumsum([len(f) for f in frames[1:]])[:-1]
    return [codes_first, *np.split(codes_rest, sizes)], labels


def encode_columns(first: pd.DataFrame, second: pd.DataFrame, columns: list[str], *,
                   role: str = "key", weights: tuple[np.ndarray, np.ndarray] | None = None,
                   allow_disjoint_levels: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """One code per row of each frame for its combination of ``columns``.

    :func:`encode_frames` for two frames (levels checked as there).

    Returns
    -------
    codes_first, codes_second, labels
        The codes of ``first`` and ``second``, and the label of each code: an Index for one
        column, a MultiIndex named by ``columns`` for several.
    """
    (codes_first, codes_second), labels = encode_frames(
        [first, second], columns, role=role, weights=weights,
        allow_disjoint_levels=allow_disjoint_levels)
    return codes_first, codes_second, labels


def _shown(labels: np.ndarray | pd.Index, counts: np.ndarray, present: np.ndarray) -> str:
    """The first few levels of one side (in level order), as a list for a message."""
    used = np.asarray(pd.Index(labels)[present & (counts > 0)], dtype=object)
    parts = [repr(x) if isinstance(x, str) else str(x) for x in used[:SHOWN_LEVELS]]
    if len(used) > SHOWN_LEVELS:
        parts.append(f"... ({len(used)} levels)")
    return "[" + ", ".join(parts) + "]"


#: Fewer synthetic records than this are too few to find the original's levels in.
FEW_RECORDS = 10

#: Texts a file may write for a missing value that a reader takes for a level.
MISSING_TEXTS = ("nan", "NaN", "NAN", "NA", "N/A", "null", "NULL", "None", "none", "")


def _why(labels: np.ndarray | pd.Index, counts_s: np.ndarray, present: np.ndarray,
         missing: np.ndarray | None, counts_o: np.ndarray | None = None) -> str:
    """The likeliest reason a synthesis finds few of the original's levels, in words: too few
    synthetic records, missing values written as text, dates that never match exactly, a
    synthesis whose values all occur in the original but that never draws the original's
    common ones (``counts_o`` given), or else a different coding."""
    n_syn = float(counts_s.sum())
    if n_syn < FEW_RECORDS:
        return f"the synthetic data has only {n_syn:.0f} record{'s' if n_syn != 1 else ''}"
    levels = np.asarray(labels, dtype=object)
    as_text = np.array([isinstance(v, str) and v.strip() in MISSING_TEXTS for v in levels])
    written = float(counts_s[as_text].sum())
    if written >= 0.5 * n_syn:
        shown = sorted({str(v) for v in levels[as_text & (counts_s > 0)]})
        return (f"{100 * written / n_syn:.0f}% of the synthetic values are the text "
                f"{', '.join(repr(v) for v in shown)}, which is how the file writes a missing "
                "value: read it as missing (na_values= / --na-values)")
    used = levels[present & (counts_s > 0)]
    if reads_as_dates(np.asarray(used[:200], dtype=object)):
        return ("its values are dates, and a date a day off never matches exactly: convert "
                "them to numbers (days since a date) and group them")
    if counts_o is not None:
        o = np.asarray(counts_o, dtype=float)
        lacking = present & (o > 0) & (counts_s == 0)
        if not np.any(present & (o == 0) & (counts_s > 0)) and np.any(lacking):
            top = int(np.argmax(np.where(lacking, o, -1.0)))
            value = levels[top]
            shown = (repr(value) if isinstance(value, str) else f"{value:g}"
                     if isinstance(value, float | np.floating) else str(value))
            return (f"every synthetic value occurs in the original, but none is "
                    f"{shown}, which {100 * o[top] / o[present].sum():.1f}% of the "
                    "original records hold: the synthesis does not reproduce the column's "
                    "distribution (a different coding would bring values of its own)")
    return "the two are probably coded differently"


def _exact_share(covered: float, total: float) -> str:
    """'; x% of the original records have a value that occurs exactly in the synthetic data',
    or nothing when all do (rounded down: never "100.0%" when some value is not found)."""
    if covered >= total:
        return ""
    return (f"; {math.floor(1000 * covered / total) / 10:.1f}% of the original records have a "
            "value that occurs exactly in the synthetic data")


def continuous_target_message(column: str, distinct: int, covered: float, total: float) -> str:
    """What the :class:`~capkit.errors.ContinuousTargetWarning` of a target says."""
    share = _exact_share(covered, total)
    return (
        f"target {column!r} is numeric with {distinct} distinct values in the original data "
        f"(more than {CONTINUOUS_TARGET_LEVELS}): DiSCO, CAP and the other attribute measures "
        "match it by exact value, so a synthetic value close to the original but not equal "
        f"(noise, rounding) counts as a wrong guess{share}. For it the exact-match measures "
        "are not meaningful (they can report no risk for near-copies); the distance to closest "
        "record (capkit.distance) and the nearest-neighbour attack (capkit.attacks) are. To "
        "measure attribute disclosure, group it into classes: --ngroups-targets in capkit "
        "disclosure, ngroups_target= / ngroups_targets= in capkit.disclosure"
    )


def reads_as_dates(values: np.ndarray) -> bool:
    """Whether every value is text that reads as a date (a CSV file's dates arrive as text)."""
    if not len(values) or not all(isinstance(v, str) for v in values):
        return False
    if pd.to_numeric(pd.Series(values), errors="coerce").notna().any():
        return False  # numbers in text, or codes: not dates
    with warnings.catch_warnings():  # pandas warns when it guesses a format per element
        warnings.simplefilter("ignore", UserWarning)
        for part in (values[:50], values):  # a few first: names fail fast
            if pd.to_datetime(pd.Series(part), errors="coerce").isna().any():
                return False
    return True


def dated_target_message(column: str, distinct: int, covered: float, total: float) -> str:
    """The :class:`~capkit.errors.ContinuousTargetWarning` of a text target that holds dates."""
    share = _exact_share(covered, total)
    return (
        f"target {column!r} is text whose {distinct} distinct values read as dates: DiSCO, CAP "
        "and the other attribute measures match it by exact value, so a synthetic date a day "
        f"off counts as a wrong guess{share}. To measure attribute disclosure on it, convert it "
        "to numbers (days since a date, say) and group them into classes (--ngroups-targets in "
        "capkit disclosure, ngroups_target= / ngroups_targets= in capkit.disclosure)"
    )


def check_levels(
    column: str,
    role: str,
    labels: np.ndarray | pd.Index,
    counts_o: np.ndarray,
    counts_s: Sequence[np.ndarray],
    *,
    missing: np.ndarray | None = None,
    numeric: bool = False,
    allow_disjoint_levels: bool = False,
    synthetic_names: Sequence[str] | None = None,
) -> None:
    """Refuse a key or target whose original and synthetic levels barely overlap; warn for a
    continuous target (the rules of the module note).

    Parameters
    ----------
    column, role
        The column's name and ``"key"`` or ``"target"`` (for the messages).
    labels
        The levels, one list shared by both sides.
    counts_o, counts_s
        Records of the original, and of each synthesis, per level.
    missing
        Which levels stand for a missing value (left out of the rule).
    numeric
        Whether the column holds numbers (compared by value, not grouped).
    allow_disjoint_levels
        Measure anyway, however little the levels overlap.
    synthetic_names
        How messages name each synthesis (default "the synthetic data", or "synthetic data set
        j" for several).

    Raises
    ------
    DisjointLevelsError
        (a :class:`CapkitError`) when a synthesis covers fewer than :data:`MIN_LEVEL_OVERLAP`
        of the original records.
    """
    counts_o = np.asarray(counts_o, dtype=float)
    present = np.ones(len(labels), dtype=bool) if missing is None else ~np.asarray(missing)
    total = float(counts_o[present].sum())
    if total == 0 or not counts_s:
        return
    covered = [float(counts_o[present & (np.asarray(c) > 0)].sum()) for c in counts_s]
    distinct = int(np.count_nonzero(counts_o[present]))
    if numeric and role == "target" and distinct > CONTINUOUS_TARGET_LEVELS:
        warnings.warn(ContinuousTargetWarning(
            continuous_target_message(column, distinct, min(covered), total)), stacklevel=3)
        return
    if role == "target" and distinct > CONTINUOUS_TARGET_LEVELS and reads_as_dates(
            np.asarray(labels, dtype=object)[present & (counts_o > 0)]):
        warnings.warn(ContinuousTargetWarning(
            dated_target_message(column, distinct, min(covered), total)), stacklevel=3)
    if allow_disjoint_levels:
        return
    if synthetic_names is None:
        synthetic_names = (["the synthetic data"] if len(counts_s) == 1 else
                           [f"synthetic data set {j}" for j in range(1, len(counts_s) + 1)])
    for c, cov, name in zip(counts_s, covered, synthetic_names, strict=True):
        if cov >= MIN_LEVEL_OVERLAP * total:
            continue
        found = (f"none of the {total:.0f} original records has a value" if cov == 0 else
                 f"only {cov:.0f} of the {total:.0f} original records ({100 * cov / total:.1f}%)"
                 " have a value")
        option = "ngroups_keys= / --ngroups-keys" if role == "key" else \
            "ngroups_target= / --ngroups-targets"
        hint = (f"; if it is a continuous number, group it into classes ({option})"
                if numeric else "")
        why = _why(labels, np.asarray(c), present, missing, counts_o)
        reason = (f"{found} that occurs in {name} (at least half are needed, missing values "
                  f"aside): {why} (original levels "
                  f"{_shown(labels, counts_o, present)}, synthetic levels "
                  f"{_shown(labels, np.asarray(c), present)}), and every exact-match measure "
                  "would report no risk")
        raise DisjointLevelsError(
            f"{role} column {column!r}: {reason}. Recode one of them to the other's "
            f"levels{hint}, or pass allow_disjoint_levels=True (--allow-disjoint-levels on the "
            "command line) to measure anyway", column=column, role=role, reason=reason)
