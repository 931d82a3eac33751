"""The nearest-record search of :func:`capkit.distance.nearest.nearest` by brute force in numpy,
for small inputs.

Every (query, reference) pair is evaluated, a block of query records at a time, with the
arithmetic of the compiled kernel (:mod:`capkit.distance._kernel`): the categorical level
first (``weight * count`` with equal weights, as
:func:`capkit.distance.nearest._level_values`; otherwise the weights of the differing columns
summed in column order from 0.0, as ``_pattern_values`` and ``_Levels.matrix``), then each
numeric term ``t_k = |x_sk - x_ok|`` (capped, NaN -> 0) added in column order. The smallest
distance and, among equal ones, the smallest reference row (``argmin`` takes the first) are
therefore the same floats and rows the kernel returns: it abandons only pairs that can neither
beat nor tie the best, and its visiting order does not change the result.

Why: at a few thousand records a pass over every pair costs a few hundredths of a second,
while the compiled kernel's first call in a process costs about half a CPU second (importing
numba, loading the cached machine code, starting its threads). Used below
:data:`BRUTE_PAIRS` record pairs, when every numeric value is finite or NaN (an infinite value
could make a distance infinite, where the kernel's row rule for an infinite best is kept by
the kernel itself).
"""

from __future__ import annotations

import numpy as np

#: At most this many (query, reference) record pairs are searched by brute force.
BRUTE_PAIRS = 2**24
#: Cells of the distance block evaluated at once (a few MB: the block stays in cache).
BLOCK_CELLS = 2**17


def usable(n_s: int, n_r: int, num_s: np.ndarray, num_r: np.ndarray, w_cat: np.ndarray
           ) -> bool:
    """Whether :func:`brute_nearest` answers this search (small, no infinite value)."""
    if n_s * n_r > BRUTE_PAIRS or n_r == 0:
        return False
    return not (np.isinf(num_s).any() or np.isinf(num_r).any() or np.isinf(w_cat).any())


def _levels(cat_s: np.ndarray, cat_r: np.ndarray, w_cat: np.ndarray, equal: bool
            ) -> np.ndarray:
    """(len(cat_s), len(cat_r)) categorical levels, rounded as the kernel's."""
    pc = cat_s.shape[1]
    if pc == 0:
        return np.zeros((len(cat_s), len(cat_r)))
    if equal:
        count = np.zeros((len(cat_s), len(cat_r)), dtype=np.uint16 if pc >= 255 else np.uint8)
        for k in range(pc):
            count += cat_s[:, k][:, None] != cat_r[:, k][None, :]
        return w_cat[0] * count.astype(np.float64)
    level = np.zeros((len(cat_s), len(cat_r)))
    for k in range(pc):
        level += w_cat[k] * (cat_s[:, k][:, None] != cat_r[:, k][None, :])
    return level


def brute_nearest(cat_s: np.ndarray, cat_r: np.ndarray, num_s: np.ndarray, num_r: np.ndarray,
                  w_cat: np.ndarray, numeric_cap: np.ndarray | None,
                  exclude: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``best, arg`` of :func:`capkit.distance.nearest.nearest` (same arguments, already
    validated: ``exclude`` (n_s, e) int64 or None) over every pair; see the module docstring."""
    n_s, n_r = len(cat_s), len(cat_r)
    pq = num_s.shape[1]
    equal = bool(len(w_cat) and np.all(w_cat == w_cat[0]))
    missing = bool(np.isnan(num_s).any() or np.isnan(num_r).any())
    best = np.full(n_s, np.inf)
    arg = np.full(n_s, np.iinfo(np.int64).max, dtype=np.int64)
    step = max(1, BLOCK_CELLS // max(n_r, 1))
    columns_r = [np.ascontiguousarray(num_r[:, k]) for k in range(pq)]
    for lo in range(0, n_s, step):
        hi = min(lo + step, n_s)
        d = _levels(cat_s[lo:hi], cat_r, w_cat, equal)
        t = np.empty_like(d)
        for k in range(pq):
            np.subtract(num_s[lo:hi, k][:, None], columns_r[k][None, :], out=t)
            np.abs(t, out=t)
            if numeric_cap is not None:
                np.minimum(t, numeric_cap[k], out=t, where=t > numeric_cap[k])
            if missing:
                t[np.isnan(t)] = 0.0
            d += t
        if exclude is not None and exclude.shape[1]:
            rows = np.repeat(np.arange(hi - lo), exclude.shape[1])
            cols = exclude[lo:hi].ravel()
            taken = cols >= 0
            d[rows[taken], cols[taken]] = np.inf
        where = np.argmin(d, axis=1)
        value = d[np.arange(hi - lo), where]
        found = np.isfinite(value)  # infinite only when every reference row is excluded
        best[lo:hi] = value
        arg[lo:hi] = np.where(found, where, np.iinfo(np.int64).max)
    return best, arg


__all__ = ["BRUTE_PAIRS", "brute_nearest", "usable"]
