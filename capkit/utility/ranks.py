"""Two-sample statistics of scores, with R's treatment of ties: the Kolmogorov-Smirnov D of
``ks.test`` and the Wilcoxon W of ``wilcox.test`` (Mann-Whitney U of the first sample).

Both take weights (counts), so that synthpop's table measures, which compare
``rep(score, s)`` with ``rep(score, o)``, are computed from the cells without expanding them.
Ties are exact equality of doubles, as in R; W is a sum of half-integers, exact in floating
point up to 2^53.
"""

from __future__ import annotations

import numpy as np


def _by_value(values: np.ndarray, w1: np.ndarray, w0: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Weights of the two samples summed over each distinct value, in increasing order."""
    distinct, inverse = np.unique(values, return_inverse=True)
    a = np.bincount(inverse.ravel(), weights=w1, minlength=len(distinct))
    b = np.bincount(inverse.ravel(), weights=w0, minlength=len(distinct))
    return a, b


def ks_statistic(values: np.ndarray, w1: np.ndarray, w0: np.ndarray) -> float:
    """D = max |F1 - F0| of the two weighted samples of ``values`` (``ks.test``'s statistic,
    ties included); NaN when a sample is empty."""
    a, b = _by_value(values, w1, w0)
    n1, n0 = a.sum(), b.sum()
    if n1 == 0 or n0 == 0:
        return float("nan")
    return float(np.max(np.abs(np.cumsum(a) / n1 - np.cumsum(b) / n0)))


def wilcoxon_w(values: np.ndarray, w1: np.ndarray, w0: np.ndarray) -> float:
    """W = #(x > y) + #(x = y) / 2 over pairs of the first (x) and second (y) weighted samples:
    ``wilcox.test(x, y)$statistic`` (sum of the mid-ranks of x minus n_x (n_x + 1) / 2)."""
    a, b = _by_value(values, w1, w0)
    below = np.cumsum(b) - b
    return float(np.sum(a * below) + np.sum(a * b) / 2.0)


def scores_ks(score: np.ndarray, is_first: np.ndarray) -> float:
    """``ks.test(score[is_first], score[!is_first])$statistic``."""
    w1 = is_first.astype(float)
    return ks_statistic(score, w1, 1.0 - w1)


def scores_w(score: np.ndarray, is_first: np.ndarray) -> float:
    """``wilcox.test(score[is_first], score[!is_first])$statistic``."""
    w1 = is_first.astype(float)
    return wilcoxon_w(score, w1, 1.0 - w1)
