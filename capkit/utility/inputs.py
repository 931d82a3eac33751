"""Checks and normalisation of what the utility measures are given: the syntheses (one frame
or a list), the original, ``vars``, ``cont_na`` and ``compat``.

synthpop's functions (Nowok, Raab & Dibben 2016; ``utility.gen``, ``utility.tab``,
``utility.tables``, ``compare`` of synthpop 1.9-2) take the same arguments; their checks are
done once here, each failure a :class:`~capkit.errors.CapkitError` naming the argument or
column. Nothing the caller passed in is modified: every frame is copied before it is changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

COMPAT = (None, "synthpop")


def syntheses(synthetic: Any) -> list[pd.DataFrame]:
    """The syntheses as a list of frames (m >= 1)."""
    if isinstance(synthetic, pd.DataFrame):
        frames = [synthetic]
    elif isinstance(synthetic, Sequence) and not isinstance(synthetic, str | bytes):
        frames = list(synthetic)
    else:
        raise CapkitError("synthetic must be a DataFrame or a list of DataFrames, got "
                          f"{type(synthetic).__name__}")
    if not frames:
        raise CapkitError("synthetic is an empty list: give at least one synthesis")
    for j, f in enumerate(frames):
        if not isinstance(f, pd.DataFrame):
            raise CapkitError(f"synthetic[{j}] must be a DataFrame, got {type(f).__name__}")
        if len(f) == 0:
            raise CapkitError(f"synthetic[{j}] has no rows")
    first = list(frames[0].columns)
    for j, f in enumerate(frames[1:], start=1):
        if list(f.columns) != first:
            raise CapkitError(f"synthetic[{j}] has columns {list(f.columns)}, synthetic[0] has "
                              f"{first}: every synthesis must have the same columns")
    return frames


def original_frame(original: Any) -> pd.DataFrame:
    if not isinstance(original, pd.DataFrame):
        raise CapkitError(f"original must be a DataFrame, got {type(original).__name__}")
    if len(original) == 0:
        raise CapkitError("original has no rows")
    return original


def check_compat(compat: Any) -> None:
    if compat not in COMPAT:
        raise CapkitError(f"compat must be None or 'synthpop', got {compat!r}")


def select_vars(frames: list[pd.DataFrame], original: pd.DataFrame, vars: Any,
                required: bool = False) -> list[str]:
    """The variables measured: ``vars`` (names, or 1-based positions as synthpop takes them), or
    every column of the syntheses; each must be in both files."""
    syn_cols = list(frames[0].columns)
    if vars is None:
        if required:
            raise CapkitError("vars: give the variables of the table (synthpop: 'You need to "
                              "set variables with vars parameter')")
        missing = [c for c in syn_cols if c not in original.columns]
        if missing:
            raise CapkitError(f"columns {missing} of the synthetic data are not in the original "
                              "(synthpop: 'Some variables in synthetic data not in original "
                              "data'); pass vars= to choose common columns")
        return syn_cols
    names = [vars] if isinstance(vars, str | int | np.integer) else list(vars)
    out = []
    for v in names:
        if isinstance(v, int | np.integer) and not isinstance(v, bool):
            if not 1 <= int(v) <= original.shape[1]:
                raise CapkitError(f"vars: position {v} is outside 1..{original.shape[1]}")
            v = original.columns[int(v) - 1]
        if v not in original.columns:
            raise CapkitError(f"vars: {v!r} is not a column of the original")
        if v not in syn_cols:
            raise CapkitError(f"vars: {v!r} is not a column of the synthetic data")
        if v not in out:
            out.append(v)
    return out


def cont_na_codes(cont_na: Mapping[str, Any] | None, original: pd.DataFrame
                  ) -> dict[str, tuple[float, ...]]:
    """``cont_na`` as {column: codes} (NA itself is always missing and not listed)."""
    if cont_na is None:
        return {}
    if not isinstance(cont_na, Mapping):
        raise CapkitError("cont_na must be a mapping {column: [codes]} (synthpop: a named "
                          "list)")
    out: dict[str, tuple[float, ...]] = {}
    for name, codes in cont_na.items():
        if name not in original.columns:
            raise CapkitError(f"cont_na: {name!r} is not a column of the original")
        values = [codes] if np.isscalar(codes) else list(codes)
        kept: list[float] = []
        for c in values:
            if c is None or (isinstance(c, float) and np.isnan(c)):
                continue
            try:
                c = float(c)
            except (TypeError, ValueError):
                raise CapkitError(f"cont_na[{name!r}]: codes must be numbers, got {c!r}"
                                  ) from None
            if c not in kept:
                kept.append(c)
        out[name] = tuple(kept)
    return out


def is_numeric(series: pd.Series) -> bool:
    """A number to synthpop (R's ``is.numeric``): not a Categorical, not text, not boolean."""
    return (pd.api.types.is_numeric_dtype(series.dtype)
            and not pd.api.types.is_bool_dtype(series.dtype)
            and not isinstance(series.dtype, pd.CategoricalDtype))


def check_types(frames: list[pd.DataFrame], original: pd.DataFrame, vars: list[str]) -> None:
    """A column must be a number in both files or a category in both."""
    for v in vars:
        num_o = is_numeric(original[v])
        for j, f in enumerate(frames):
            if is_numeric(f[v]) != num_o:
                kinds = ("a number", "a category")
                raise CapkitError(
                    f"column {v!r} is {kinds[not num_o]} in the original but "
                    f"{kinds[num_o]} in synthetic[{j}]: code it the same way in both files")


def as_categorical(series: pd.Series) -> pd.Categorical:
    """A categorical column (Categorical, text or boolean) as a Categorical; text becomes a
    factor with its values sorted (R's ``factor``)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.array
    values = series.astype(object).where(series.notna())
    cats = sorted(pd.unique(values.dropna()), key=str)
    return pd.Categorical(values, categories=cats)
