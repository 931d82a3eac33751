"""The frequency tables of synthpop's ``compare()``: each variable's distribution in the
original and in the synthetic data (all syntheses pooled), in per cent or counts.

synthpop 1.9-2 (``compare.synds``, ``ggfac``, ``ggnum``): a numeric variable with fewer than 6
distinct values in the original is a factor; a factor is tabulated by level, with a missing
column when the original has missing values; a number by ``hist(breaks = 20)`` of the
non-missing values of both files together (R's ``pretty`` breaks, right-closed bins), the
columns named by the bins' left ends, then ``miss.<code>`` and ``miss.NA`` columns for its
missing-value codes and NA. Per cents are over all rows of a file (the syntheses pooled);
synthetic counts are divided by m.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from capkit.utility import inputs

DBL_EPS = np.finfo(float).eps


def r_pretty(lo: float, up: float, n: int, min_n: int, shrink: float = 0.75,
             h: float = 1.5) -> np.ndarray:
    """R's ``pretty(c(lo, up), n, min.n)`` (``R_pretty`` and ``pretty.default``, R 4.2)."""
    h5 = 0.5 + 1.5 * h
    dx = up - lo
    if dx == 0 and up == 0:
        cell, small = 1.0, True
    else:
        cell = max(abs(lo), abs(up))
        U = 1 + (1 / (1 + h) if h5 >= 1.5 * h + 0.5 else 1.5 / (1 + h5))
        U *= max(1, n) * DBL_EPS
        small = dx < cell * U * 3
    if small:
        if cell > 10:
            cell = 9 + cell / 10
        cell *= shrink
        if min_n > 1:
            cell /= min_n
    else:
        cell = dx
        if n > 1:
            cell /= n
    base = 10.0 ** math.floor(math.log10(cell))
    unit = base
    if 2 * base - cell < h * (cell - unit):
        unit = 2 * base
        if 5 * base - cell < h5 * (cell - unit):
            unit = 5 * base
            if 10 * base - cell < h * (cell - unit):
                unit = 10 * base
    eps = 1e-10
    ns = math.floor(lo / unit + eps)
    nu = math.ceil(up / unit - eps)
    while ns * unit > lo + eps * unit:
        ns -= 1
    while nu * unit < up - eps * unit:
        nu += 1
    k = int(0.5 + nu - ns)
    if k < min_n:
        k = min_n - k
        if ns >= 0:
            nu += k // 2
            ns -= k // 2 + k % 2
        else:
            ns -= k // 2
            nu += k // 2 + k % 2
        ndiv = min_n
    else:
        ndiv = k
    low = min(lo, ns * unit)
    high = max(up, nu * unit)
    out = np.empty(ndiv + 1)  # seq.int(low, high, length.out = ndiv + 1), R's C arithmetic
    out[0], out[-1] = low, high
    by = (high - low) / ndiv if ndiv > 0 else 0.0
    i = np.arange(1, ndiv)
    out[1:-1] = np.where(i < (ndiv + 1) // 2, low + i * by, high - (ndiv - i) * by)
    delta = (high - low) / ndiv if ndiv else 0.0
    out[np.abs(out) < 1e-14 * delta] = 0.0
    return out


def _label(values: np.ndarray) -> list[str]:
    """``format(x, scientific = FALSE, trim = TRUE, drop0trailing = TRUE)``: 7 significant
    digits, one number of decimals for all, trailing zeros dropped."""
    decimals = 0
    for v in values:
        text = f"{v:.7g}"
        if "e" not in text and "." in text:
            decimals = max(decimals, len(text.split(".")[1]))
    out = []
    for v in values:
        text = f"{v:.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        out.append("0" if text in ("-0", "") else text)
    return out


def _numeric(obs: np.ndarray, syn: np.ndarray, codes: tuple[float, ...], any_na: bool,
             m: int, stat: str) -> pd.DataFrame:
    def usable(x: np.ndarray) -> np.ndarray:
        return ~np.isnan(x) & ~np.isin(x, np.asarray(codes, dtype=float))

    both = np.concatenate([obs[usable(obs)], syn[usable(syn)]])
    breaks = r_pretty(float(both.min()), float(both.max()), 20, 1)
    fuzz = 1e-7 * float(np.median(np.diff(breaks)))
    fuzzy = breaks + np.r_[-fuzz, np.full(len(breaks) - 1, fuzz)]
    rows = []
    for x, per in ((obs, 1), (syn, m)):
        v = x[usable(x)]
        bins = np.searchsorted(fuzzy, v, side="left") - 1
        counts = np.bincount(bins[(bins >= 0) & (bins < len(breaks) - 1)],
                             minlength=len(breaks) - 1).astype(float)
        miss = [float(np.sum(x == c)) for c in codes if np.sum(obs == c) + np.sum(x == c) > 0]
        row = list(counts) + miss + ([float(np.isnan(x).sum())] if any_na else [])
        row = np.asarray(row)
        rows.append(row * 100 / len(x) if stat == "percents" else row / per)
    names = _label(breaks[:-1]) + [f"miss.{inputs_code(c)}" for c in codes
                                   if np.sum(obs == c) + np.sum(syn == c) > 0]
    names += ["miss.NA"] if any_na else []
    return pd.DataFrame(rows, index=["observed", "synthetic"], columns=names)


def inputs_code(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.15g}"


def _factor(obs: pd.Categorical, syn: pd.Categorical, m: int, stat: str) -> pd.DataFrame:
    cats = list(obs.categories)
    any_na = bool(pd.isna(np.asarray(obs, dtype=object)).any())
    rows = []
    for x, per in ((obs, 1), (syn, m)):
        codes = pd.Categorical(x, categories=cats).codes
        counts = np.bincount(codes[codes >= 0], minlength=len(cats)).astype(float)
        row = np.r_[counts, [float((codes < 0).sum())]] if any_na else counts
        rows.append(row * 100 / len(x) if stat == "percents" else row / per)
    return pd.DataFrame(rows, index=["observed", "synthetic"],
                        columns=[str(c) for c in cats] + (["NA"] if any_na else []))


def frequency_tables(original: pd.DataFrame, frames: list[pd.DataFrame], names: list[str],
                     codes: dict[str, tuple[float, ...]], stat: str
                     ) -> dict[str, pd.DataFrame]:
    """Per variable, a 2-row table (observed, synthetic) as ``compare()`` returns it."""
    pooled = pd.concat([f[names] for f in frames], ignore_index=True)
    out = {}
    for v in names:
        o, s = original[v], pooled[v]
        if inputs.is_numeric(o) and o.dropna().nunique() < 6:
            levels = sorted(pd.unique(o.dropna()))
            o = pd.Series(pd.Categorical(o, categories=levels))
            s = pd.Series(pd.Categorical(s, categories=levels))
        if inputs.is_numeric(o):
            out[v] = _numeric(o.to_numpy(float), s.to_numpy(float), codes.get(v, ()),
                              bool(o.isna().any()), len(frames), stat)
        else:
            out[v] = _factor(inputs.as_categorical(o), inputs.as_categorical(s), len(frames),
                             stat)
    return out
