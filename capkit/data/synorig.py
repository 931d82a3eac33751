"""synthpop's ``synorig.compare()``: make a synthetic and an original data frame comparable.

Spec section 1.3. ``disclosure()`` runs it on data-frame input when ``compare_synorig=True``.
Steps, in synthpop's order: keep the shared variables (synthetic in the original's column
order); turn a variable that is numeric on one side and categorical on the other into a
categorical on both; turn text columns into categoricals; reconcile integer and double; give a
categorical an explicit NA level when only one side has missing values; and recode both sides
to one level list (synthetic levels, then original-only levels) when they differ.

An explicit NA level is a real category labelled ``"NA"`` (synthpop's quirk Q14): it is not
treated as missing later. capkit adds it only in synthpop-compatible mode
(``explicit_na_levels=True``); by default missing values stay missing and become ``"Missing"``.
Inputs are never modified: adjusted copies are returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from capkit.data.labels import collate_sorted, is_integer, is_numeric, r_format

#: The label of an explicit NA level (R prints it as NA; pasted into q it reads "NA").
NA_LEVEL = "NA"


@dataclass
class CompareResult:
    """Adjusted copies, whether anything changed, and the columns given an explicit NA level."""

    synthetic: pd.DataFrame
    original: pd.DataFrame
    changed: bool
    explicit_na: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)


def _numeric_to_categorical(series: pd.Series) -> pd.Series:
    values = series.to_numpy(dtype=float, na_value=np.nan)
    uniq = np.unique(values[~np.isnan(values)])
    labels = r_format(uniq, is_integer(series))
    codes = np.full(len(values), -1, dtype=np.int64)
    ok = ~np.isnan(values)
    codes[ok] = np.searchsorted(uniq, values[ok])
    return pd.Series(pd.Categorical.from_codes(codes, categories=labels), index=series.index,
                     name=series.name)


def _text_to_categorical(series: pd.Series) -> pd.Series:
    text = series.astype("string")
    levels = collate_sorted(pd.unique(text.dropna()).tolist())
    return pd.Series(pd.Categorical(text, categories=levels), index=series.index,
                     name=series.name)


def _is_text(series: pd.Series) -> bool:
    return (pdt.is_object_dtype(series.dtype) or pdt.is_string_dtype(series.dtype)) and not \
        isinstance(series.dtype, pd.CategoricalDtype)


def _with_na_level(series: pd.Series) -> pd.Series:
    """An explicit NA level: missing values become the category ``"NA"``."""
    if not isinstance(series.dtype, pd.CategoricalDtype):
        series = _numeric_to_categorical(series)
    cats = [str(c) for c in series.cat.categories]
    if NA_LEVEL not in cats:
        cats = cats + [NA_LEVEL]
    values = series.astype(object).where(series.notna(), NA_LEVEL).astype(str)
    return pd.Series(pd.Categorical(values, categories=cats), index=series.index,
                     name=series.name)


def _recode(series: pd.Series, levels: list[str], na_level: bool) -> pd.Series:
    values = series.astype(object)
    if na_level:
        values = values.where(series.notna(), NA_LEVEL)
    values = values.map(lambda v: v if v is None or (isinstance(v, float) and np.isnan(v))
                        else str(v))
    return pd.Series(pd.Categorical(values, categories=levels), index=series.index,
                     name=series.name)


def synorig_compare(synthetic: pd.DataFrame, original: pd.DataFrame, *,
                    explicit_na_levels: bool = True) -> CompareResult:
    """Adjust a synthetic and an original data frame as synthpop's ``synorig.compare`` does.

    Parameters
    ----------
    synthetic, original
        The two frames (not modified).
    explicit_na_levels
        Add an explicit NA level when a variable has missing values on one side only (synthpop;
        quirk Q14). ``False`` leaves missing values missing.

    Returns
    -------
    CompareResult
        ``changed`` is True when synthpop would report an adjustment (which, for a list of
        syntheses, makes synthpop keep only the first one: quirk Q18).
    """
    changed = False
    messages: list[str] = []
    explicit: set[str] = set()
    if not isinstance(synthetic, pd.DataFrame):
        synthetic = pd.DataFrame(synthetic)
        changed = True
    if not isinstance(original, pd.DataFrame):
        original = pd.DataFrame(original)
        changed = True
    common = [c for c in original.columns if c in set(synthetic.columns)]
    syn = synthetic[common].copy()
    orig = original[common].copy()
    messages.append(f"{len(common)} variables in common out of {synthetic.shape[1]} in syn "
                    f"out of {original.shape[1]} in orig")
    for c in common:
        s_cat = isinstance(syn[c].dtype, pd.CategoricalDtype)
        o_cat = isinstance(orig[c].dtype, pd.CategoricalDtype)
        if is_numeric(syn[c]) and o_cat:
            syn[c] = _numeric_to_categorical(syn[c])
            changed = True
        elif s_cat and is_numeric(orig[c]):
            orig[c] = _numeric_to_categorical(orig[c])
            changed = True
    for frame in (syn, orig):
        for c in common:
            if _is_text(frame[c]):
                frame[c] = _text_to_categorical(frame[c])
                changed = True
    for c in common:
        if is_numeric(syn[c]) and is_numeric(orig[c]):
            s_int, o_int = is_integer(syn[c]), is_integer(orig[c])
            if s_int and not o_int:
                syn[c] = syn[c].astype(float)
                changed = True
            elif o_int and not s_int:
                orig[c] = orig[c].astype(float)
                changed = True
        elif syn[c].dtype != orig[c].dtype and not (
                isinstance(syn[c].dtype, pd.CategoricalDtype)
                and isinstance(orig[c].dtype, pd.CategoricalDtype)):
            messages.append(f"Different classes for {c}")
    for c in common:
        o_na, s_na = bool(orig[c].isna().any()), bool(syn[c].isna().any())
        na_level = False
        if explicit_na_levels and not o_na and s_na:
            orig[c] = _with_na_level(orig[c])
            na_level = True
            explicit.add(c)
            changed = True
            messages.append(f"NA added to factor  {c} in orig")
        if isinstance(syn[c].dtype, pd.CategoricalDtype) and \
                isinstance(orig[c].dtype, pd.CategoricalDtype):
            if explicit_na_levels and o_na and not s_na:
                syn[c] = _with_na_level(syn[c])
                na_level = True
                explicit.add(c)
                changed = True
                messages.append(f"NA added to factor  {c} in syn")
            s_levels = [str(x) for x in syn[c].cat.categories]
            o_levels = [str(x) for x in orig[c].cat.categories]
            if s_levels != o_levels:
                levels = s_levels + [x for x in o_levels if x not in set(s_levels)]
                syn[c] = _recode(syn[c], levels, na_level)
                orig[c] = _recode(orig[c], levels, na_level)
                changed = True
                messages.append(f"Factor levels don't match for {c} levels combined")
    return CompareResult(syn, orig, changed, explicit, messages)
