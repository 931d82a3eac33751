"""Variables as synthpop's ``disclosure()`` sees them: labelled categories (spec sections 3.3-3.6).

Every target and key ends up as a :class:`Coded` variable: an ordered list of text labels (the
R factor levels) and one integer code per record. This module turns a pandas column into that
form exactly as synthpop 1.9-2 does:

* numbers become categories labelled with R's text form of the number (:func:`r_format`);
* numeric variables may be grouped into intervals first (:func:`group_num`, classInt's
  ``classIntervals`` with R's ``cut`` labels);
* a missing value becomes the level ``"Missing"``; a variable that has one is rebuilt with only
  its observed labels, sorted by string collation (:func:`to_missing_level`).

No record-level Python loop: labels are made for the distinct values only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from capkit.errors import CapkitError

#: The label synthpop gives a missing value.
MISSING = "Missing"

SortKey = Callable[[str], object] | None


@dataclass(frozen=True)
class Coded:
    """One variable of one data set as an R factor: ``labels[codes[r]]`` is record r's label.

    ``codes`` is -1 for a missing value (before :func:`to_missing_level`).
    """

    labels: tuple[str, ...]
    codes: np.ndarray

    @property
    def has_missing(self) -> bool:
        """Whether some record is missing (code -1)."""
        return bool((self.codes < 0).any())

    def observed(self) -> np.ndarray:
        """Boolean mask over ``labels``: which labels some record has."""
        valid = self.codes[self.codes >= 0]
        return np.bincount(valid, minlength=len(self.labels)) > 0


def collate_sorted(labels: Sequence[str], sort_key: SortKey = None) -> list[str]:
    """Labels sorted by collation: code-point (C) order by default, else by ``sort_key``.

    The oracle's R session sorted with ICU "root"; on every label of the oracle cases that order
    equals the C order (spec 3.9).
    """
    return sorted(labels, key=sort_key) if sort_key is not None else sorted(labels)


def collation_order(strings: np.ndarray, sort_key: SortKey = None) -> np.ndarray:
    """The stable argsort of ``strings`` (as text) by collation, as :func:`collate_sorted`."""
    if sort_key is None:
        return np.argsort(strings.astype(str), kind="stable")
    return np.array(sorted(range(len(strings)), key=lambda i: sort_key(str(strings[i]))),
                    dtype=np.int64)


# --------------------------------------------------------------------------------------------
# R's text form of numbers (spec 3.5) and C printf %.{d}g (spec 3.4 step 4)


def _r_format_double(x: float) -> str:
    if math.isnan(x):
        return "NA"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    target = float(f"{x:.14e}")
    digits = 15
    for n in range(1, 16):
        if float(f"{x:.{n - 1}e}") == target:
            digits = n
            break
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    exp = int(exponent)
    sci = f"{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    decimals = max(0, digits - 1 - exp)
    fixed = f"{x:.{decimals}f}"
    return sci if len(sci) < len(fixed) else fixed


def r_format(values: np.ndarray, integer: bool) -> list[str]:
    """R's ``as.character`` of numbers, as used for factor labels (spec 3.5).

    R integers print as plain digits. Doubles get at most 15 significant digits, trailing
    zeros dropped, and scientific notation only when it is strictly shorter than fixed
    notation: 57 -> "57", 100000 -> "1e+05", 123456 -> "123456", 0.0001 -> "1e-04".
    """
    if integer:
        return [str(int(v)) for v in values]
    return [_r_format_double(float(v)) for v in values]


def c_format_g(x: float, digits: int) -> str:
    """C ``printf("%.{digits}g", x + 0)`` (so that -0 prints as 0)."""
    return f"{x + 0.0:.{digits}g}"


# --------------------------------------------------------------------------------------------
# Columns -> Coded


def is_numeric(series: pd.Series) -> bool:
    """Numeric in R's sense: an integer or double column (not a categorical, not boolean)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return False
    return pdt.is_numeric_dtype(series.dtype) and not pdt.is_bool_dtype(series.dtype)


#: Most distinct values of a numeric column that the attacks treat as a category: survey files
#: code categories as numbers (1, 2, 3; or class midpoints 17.5, 22, 27), and a guess "within
#: 5%" of such a code is an exact match anyway (5% of a code below 20 is under 1), while the
#: mean of codes 1-4, 2.5, is no category at all.
CATEGORY_LEVELS = 20


def is_coded_category(series: pd.Series) -> bool:
    """A numeric column with at most :data:`CATEGORY_LEVELS` distinct values (missing values
    aside): a category stored as numbers, for the attacks."""
    return is_numeric(series) and int(series.nunique(dropna=True)) <= CATEGORY_LEVELS


def is_integer(series: pd.Series) -> bool:
    """An R integer column (pandas integer dtypes, nullable ``Int64`` included)."""
    return pdt.is_integer_dtype(series.dtype)


def from_numeric(series: pd.Series) -> Coded:
    """A numeric column as R's ``factor()``: levels are the sorted distinct observed values."""
    values = series.to_numpy(dtype=float, na_value=np.nan)
    missing = np.isnan(values)
    uniq, inverse = np.unique(values[~missing], return_inverse=True)
    codes = np.full(len(values), -1, dtype=np.int64)
    codes[~missing] = inverse
    return Coded(tuple(r_format(uniq, is_integer(series))), codes)


def from_categorical(series: pd.Series) -> Coded:
    """A pandas categorical: its declared categories (as text) in their order."""
    cat = series.cat
    categories = cat.categories
    if is_numeric(pd.Series(categories)):
        labels = r_format(categories.to_numpy(), pdt.is_integer_dtype(categories.dtype))
    else:
        labels = [str(c) for c in categories]
    return Coded(tuple(labels), cat.codes.to_numpy().astype(np.int64))


def from_other(series: pd.Series, sort_key: SortKey = None) -> Coded:
    """Text (or boolean) values: levels are the sorted distinct values, as R's ``factor()``."""
    missing = series.isna().to_numpy()
    text = series[~missing].astype(str).to_numpy()
    uniq = collate_sorted(pd.unique(text).tolist(), sort_key)
    codes = np.full(len(series), -1, dtype=np.int64)
    codes[~missing] = pd.Categorical(text, categories=uniq).codes
    labels = [u.upper() if u in ("True", "False") and pdt.is_bool_dtype(series.dtype) else u
              for u in uniq]
    return Coded(tuple(labels), codes)


def to_coded(series: pd.Series, sort_key: SortKey = None) -> Coded:
    """A column as an R factor, before missing values become ``"Missing"``."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return from_categorical(series)
    if is_numeric(series):
        return from_numeric(series)
    return from_other(series, sort_key)


def to_missing_level(coded: Coded, sort_key: SortKey = None) -> Coded:
    """Spec 3.6: with a missing value, relabel it ``"Missing"`` and keep only observed labels,
    sorted by collation (unused levels disappear, level order is lost). Unchanged otherwise."""
    if not coded.has_missing:
        return coded
    used = coded.observed()
    labels = [lab for lab, u in zip(coded.labels, used, strict=True) if u] + [MISSING]
    # a real level that is itself called "Missing" merges with the missing values, as in R
    ordered = collate_sorted(list(dict.fromkeys(labels)), sort_key)
    position = {lab: i for i, lab in enumerate(ordered)}
    # unused labels have no code pointing at them; any index will do for them
    remap = np.array([position.get(lab, 0) for lab in coded.labels] + [position[MISSING]],
                     dtype=np.int64)
    return Coded(tuple(ordered), remap[coded.codes])  # code -1 picks the last entry: Missing


# --------------------------------------------------------------------------------------------
# Grouping of numeric variables (spec 3.4): classInt's classIntervals + synthpop's group_num


def _quantile7(sorted_x: np.ndarray, p: float) -> float:
    """R's type-7 quantile with R's own arithmetic (spec 3.4)."""
    n = len(sorted_x)
    h = 1 + (n - 1) * p
    lo, hi = math.floor(h), math.ceil(h)
    x_lo, x_hi = sorted_x[lo - 1], sorted_x[hi - 1]
    if x_hi == x_lo or h == lo:
        return float(x_lo)
    frac = h - lo
    return float((1 - frac) * x_lo + frac * x_hi)


def class_intervals(values: np.ndarray, n: int, style: str = "quantile") -> np.ndarray:
    """Breaks of classInt's ``classIntervals`` for styles quantile / equal (and unique)."""
    x = np.sort(values[~np.isnan(values)])
    distinct = np.unique(x)
    if len(distinct) == 1:
        raise CapkitError("cannot group a numeric variable with a single unique value")
    if n < 2:
        raise CapkitError(f"number of groups must be at least 2, got {n}")
    n = min(n, len(distinct))
    if n == len(distinct):
        gaps = np.diff(distinct)
        half = gaps.mean() / 2
        return np.concatenate([[distinct[0] - half], distinct[:-1] + gaps / 2,
                               [distinct[-1] + half]])
    if style == "equal":
        lo, hi = float(x[0]), float(x[-1])
        step = (hi - lo) / n
        return np.array([lo] + [lo + k * step for k in range(1, n)] + [hi])
    return np.array([_quantile7(x, min(k * (1 / n), 1.0)) for k in range(n + 1)])


def interval_labels(breaks: np.ndarray) -> list[str]:
    """R ``cut(..., right = FALSE, include.lowest = TRUE, dig.lab = 8)`` labels."""
    for digits in range(8, 13):
        formatted = [c_format_g(float(b), digits) for b in breaks]
        if all(a != b for a, b in zip(formatted[:-1], formatted[1:], strict=True)):
            break
    labels = [f"[{a},{b})" for a, b in zip(formatted[:-1], formatted[1:], strict=True)]
    labels[-1] = labels[-1][:-1] + "]"
    return labels


def _assign(values: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """Interval k for b_k <= v < b_{k+1}; the last break goes to the last interval; -1 else."""
    n_intervals = len(breaks) - 1
    codes = np.full(len(values), -1, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        inside = ~np.isnan(values) & (values >= breaks[0]) & (values <= breaks[-1])
    k = np.searchsorted(breaks, values, side="right") - 1
    k = np.minimum(k, n_intervals - 1)
    codes[inside] = k[inside]
    return codes


def group_num(original: np.ndarray, synthetic: np.ndarray, pool: np.ndarray, n: int,
              special: Sequence[float] = (), style: str = "quantile",
              integer: bool = False, reference: np.ndarray | None = None
              ) -> tuple[Coded, Coded]:
    """synthpop's ``group_num``: group a numeric variable into about ``n`` classes (spec 3.4).

    Breaks come from the non-missing original values and the pooled synthetic values of all
    syntheses; levels are the interval labels, then the special codes (as text) in the order
    given; all levels are kept, empty ones included.

    ``reference`` (a membership control): the breaks come from these values (the members) and
    the pool instead of ``original`` (the holdout), so that the holdout is grouped into the very
    classes the members were; an ``original`` value past the breaks joins the first or last
    class.
    """
    codes_special = np.array([s for s in special if not _isnan(s)], dtype=float)
    pool_ok = pool[~np.isnan(pool) & ~np.isin(pool, codes_special)]
    if len(pool_ok) == 0:
        raise CapkitError("One of your variables has only missing values; it cannot be grouped")
    source = original if reference is None else reference
    orig_ok = source[~np.isnan(source) & ~np.isin(source, codes_special)]
    breaks = np.unique(class_intervals(np.concatenate([orig_ok, pool_ok]), n, style))
    labels = interval_labels(breaks)
    whole = bool(np.all(codes_special == np.round(codes_special)))
    all_labels = tuple(labels + r_format(codes_special, integer and whole))
    if reference is not None:  # a control value past the members' breaks: the end class
        ordinary = ~np.isnan(original) & ~np.isin(original, codes_special)
        original = np.where(ordinary, np.clip(original, breaks[0], breaks[-1]), original)

    def assign(values: np.ndarray) -> np.ndarray:
        codes = _assign(values, breaks)
        for position, code in enumerate(codes_special):  # a handful of special codes
            codes[values == code] = len(labels) + position
        return codes

    return Coded(all_labels, assign(original)), Coded(all_labels, assign(synthetic))


def _isnan(value: object) -> bool:
    try:
        return bool(np.isnan(value))  # type: ignore[arg-type]
    except TypeError:
        return value is None
