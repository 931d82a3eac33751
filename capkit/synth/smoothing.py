"""Smoothing of drawn numeric values (synthpop's ``syn.smooth``, spec 4.6).

"rmean" is synthpop's running mean of 5 neighbours by rank; "spline" fits a GCV smoothing
spline of the sorted values against their ranks (scipy's ``make_smoothing_spline``: close to R's
``smooth.spline``, not equal). Results are rounded to the decimals of the original values.
"""

from __future__ import annotations

import numpy as np

#: Smoothing methods :func:`capkit.synth.syn` accepts.
METHODS = ("spline", "rmean")


def smooth(values: np.ndarray, how: str, original: np.ndarray) -> np.ndarray:
    """Smooth the drawn ``values`` ("spline" or "rmean"), rounded like ``original``."""
    if len(values) < 5:
        return values
    order = np.argsort(values, kind="stable")
    sv = values[order]
    if how == "rmean":
        cs = np.concatenate(([0.0], np.cumsum(sv)))
        idx = np.arange(len(sv))
        lo, hi = np.maximum(idx - 2, 0), np.minimum(idx + 3, len(sv))
        fitted = (cs[hi] - cs[lo]) / (hi - lo)
    else:
        from scipy.interpolate import make_smoothing_spline

        ranks = np.arange(1.0, len(sv) + 1)
        fitted = make_smoothing_spline(ranks, sv)(ranks)
    out = np.empty_like(values)
    out[order] = np.round(fitted, decimals(original))
    return out


def decimals(x: np.ndarray) -> int:
    """Largest number of decimal places among the finite values of ``x`` (at most 10)."""
    x = x[np.isfinite(x)]
    for d in range(0, 10):
        if np.allclose(x, np.round(x, d), rtol=0, atol=1e-9):
            return d
    return 10
