"""Numeric variables cut into groups for synthpop's table measures (``group_num``).

synthpop 1.9-2 (Nowok, Raab & Dibben, "synthpop: Bespoke creation of synthetic data in R",
2016; ``R/utility.syn.r``, ``group_num``) cuts a numeric column of the original and of a
synthesis with the same breaks: classInt's ``classIntervals(style = "quantile")`` (Bivand,
classInt 0.4-8) on the original's non-missing values together with every synthesis' values,
``unique()`` breaks, then ``cut(right = FALSE, include.lowest = TRUE, dig.lab = 8)``. The
missing-value codes (``cont_na``) and NA keep levels of their own. Reproduced here:

* R's ``quantile(type = 7)`` with its own arithmetic (``(1 - h) * x[lo] + h * x[hi]``), so that
  a value equal to a break falls on the same side as in R;
* classInt's special cases: one distinct value stops (as in R); ``n`` above the number of
  distinct values is lowered to it, and ``n`` equal to it gives the "unique" breaks (midpoints);
* ``style = "equal"``: ``seq(min, max, length.out = n + 1)``;
* ``cut``'s labels (``formatC(breaks, digits = 8)``, more digits until they differ).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.errors import CapkitError


def r_quantile7(x: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """R's ``quantile(x, probs, type = 7)`` with R's arithmetic; ``x`` without NaN."""
    xs = np.sort(np.asarray(x, dtype=float))
    n = len(xs)
    index = 1.0 + max(n - 1, 0) * probs
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    qs = xs[lo - 1]
    upper = xs[hi - 1]
    i = (index > lo) & (upper != qs)
    h = (index - lo)[i]
    qs = qs.copy()
    qs[i] = (1.0 - h) * qs[i] + h * upper[i]
    return qs


def class_breaks(values: np.ndarray, n: int, style: str = "quantile") -> np.ndarray:
    """classInt 0.4-8's ``classIntervals(values, n, style)$brks``."""
    values = np.asarray(values, dtype=float)
    distinct = np.unique(values)
    if len(distinct) == 1:
        raise CapkitError("grouping a numeric variable: a single unique value (classInt stops: "
                          "'single unique value')")
    n = int(n)
    if n < 2:
        raise CapkitError(f"ngroups must be at least 2, got {n}")
    n = min(n, len(distinct))
    if n == len(distinct):  # classInt's "unique" style: midpoints between the values
        d = np.diff(distinct)
        half = d.mean() / 2.0
        return np.concatenate([[distinct[0] - half], distinct[:-1] + d / 2.0,
                               [distinct[-1] + half]])
    if style == "quantile":
        probs = np.minimum(np.arange(n + 1) * (1.0 / n), 1.0)   # R: seq(0, 1, 1/n)
        return r_quantile7(values, probs)
    if style == "equal":
        lo, hi = distinct[0], distinct[-1]
        inner = lo + np.arange(1, n) * ((hi - lo) / n)          # R: seq(lo, hi, length.out)
        return np.concatenate([[lo], inner, [hi]])
    raise CapkitError(f"grouping style must be 'quantile' or 'equal', got {style!r}")


def _format_g(values: np.ndarray, digits: int) -> list[str]:
    out = []
    for v in values:
        text = f"{v:.{digits}g}"
        if "e" in text:  # C's %g writes e+05; R's formatC does the same
            mant, exp = text.split("e")
            sign = exp[0]
            text = f"{mant}e{sign}{int(exp[1:]):02d}"
        out.append(text)
    return out


def cut_labels(breaks: np.ndarray, dig_lab: int = 8) -> list[str]:
    """``levels(cut(x, breaks, right = FALSE, include.lowest = TRUE, dig.lab = 8))``."""
    text: list[str] = []
    for dig in range(dig_lab, max(12, dig_lab) + 1):
        text = _format_g(breaks + 0.0, dig)
        if all(a != b for a, b in zip(text[:-1], text[1:], strict=False)):
            break
    labels = [f"[{a},{b})" for a, b in zip(text[:-1], text[1:], strict=False)]
    labels[-1] = labels[-1][:-1] + "]"
    return labels


def cut_codes(x: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """Group of each value under ``cut(right = FALSE, include.lowest = TRUE)``: 0..k-1, -1
    outside the breaks."""
    k = len(breaks) - 1
    code = np.searchsorted(breaks, x, side="right") - 1
    code = np.where(x == breaks[-1], k - 1, code)
    return np.where((code < 0) | (code >= k) | np.isnan(x), -1, code)


def group_num(x1: np.ndarray, x2: np.ndarray, xsyn: np.ndarray, n: int = 5,
              style: str = "quantile", codes: tuple[float, ...] = ()
              ) -> tuple[pd.Categorical, pd.Categorical]:
    """synthpop's ``group_num``: ``x1`` (original) and ``x2`` (one synthesis) as factors with
    the breaks of ``x1`` together with ``xsyn`` (all syntheses' values), the missing-value
    ``codes`` as levels of their own after the groups, NA left missing."""
    codes_arr = np.asarray(codes, dtype=float)

    def usable(x: np.ndarray) -> np.ndarray:
        return ~np.isnan(x) & ~np.isin(x, codes_arr)

    x1, x2, xsyn = (np.asarray(v, dtype=float) for v in (x1, x2, xsyn))
    if not usable(xsyn).any():
        raise CapkitError("grouping a numeric variable: it has only missing values in the "
                          "synthetic data (synthpop stops here)")
    breaks = np.unique(class_breaks(np.concatenate([x1[usable(x1)], xsyn[usable(xsyn)]]), n,
                                    style))
    if len(breaks) < 2:
        raise CapkitError("grouping a numeric variable: a single break")
    labels = cut_labels(breaks)
    code_labels = [_format_code(c) for c in codes_arr]
    levels = labels + [c for c in code_labels if c not in labels]

    def factor(x: np.ndarray) -> pd.Categorical:
        out = np.full(len(x), -1, dtype=np.int64)
        ok = usable(x)
        out[ok] = cut_codes(x[ok], breaks)
        for c, label in zip(codes_arr, code_labels, strict=False):
            out[x == c] = levels.index(label)
        return pd.Categorical.from_codes(out, categories=levels)

    return factor(x1), factor(x2)


def _format_code(value: float) -> str:
    """R's ``as.character`` of a missing-value code (15 significant digits)."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.15g}"
