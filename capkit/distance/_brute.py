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
:data:`BRUTE_PAIRS` record pairs (:data:`BRUTE_PAIRS_UNEQUAL` with unequal categorical weights,
where every pair costs less than the kernel's visit by levels), when every numeric value is
finite or NaN (an infinite value could make a distance infinite, where the kernel's row rule
for an infinite best is kept by the kernel itself).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: At most this many (query, reference) record pairs are searched by brute force.
BRUTE_PAIRS = 2**24
#: With unequal categorical weights, up to this many: the kernel's visit level by level prunes
#: little when the weights are far apart (epsilon-identifiability's entropy weights, up to
#: 1e16: on 10,000 x 10,000 Adult records its first call took 1.3-3.2 CPU-s, every pair 0.9-1.0).
BRUTE_PAIRS_UNEQUAL = 2**27
#: Cells of the distance block evaluated at once (a few MB: the block stays in cache).
BLOCK_CELLS = 2**17


def usable(n_s: int, n_r: int, num_s: np.ndarray, num_r: np.ndarray, w_cat: np.ndarray
           ) -> bool:
    """Whether :func:`brute_nearest` answers this search (small, no infinite value)."""
    unequal = len(w_cat) > 1 and not np.all(w_cat == w_cat[0])
    if n_r == 0 or n_s * n_r > (min(BRUTE_PAIRS_UNEQUAL, 8 * BRUTE_PAIRS) if unequal
                                else BRUTE_PAIRS):
        return False
    return not (np.isinf(num_s).any() or np.isinf(num_r).any() or np.isinf(w_cat).any())


def _pattern_values(w_cat: np.ndarray) -> np.ndarray:
    """Level of every mismatch pattern (bit k: column k differs), summed in column order."""
    patterns = np.arange(2 ** len(w_cat))
    values = np.zeros(len(patterns))
    for k in range(len(w_cat)):  # same summation order as the level matrix
        values += w_cat[k] * ((patterns >> k) & 1 == 1)
    return values


def _level_table(w_cat: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """The kernel's level of every count of differing columns (equal weights: ``weight *
    count``) or of every mismatch pattern (bit k: column k differs; the weights summed in
    column order from 0.0, :func:`_pattern_values`); None when there
    are too many columns for a table of patterns (then the sum is formed pair by pair)."""
    pc = len(w_cat)
    if pc and np.all(w_cat == w_cat[0]):
        return w_cat[0] * np.arange(pc + 1, dtype=np.float64), True
    if pc <= 16:
        return _pattern_values(w_cat), False
    return None, False


def _levels(cat_s: np.ndarray, cat_r: list[np.ndarray], w_cat: np.ndarray,
            table: np.ndarray | None, equal: bool) -> np.ndarray:
    """(len(cat_s), n_r) categorical levels, rounded as the kernel's (``cat_r``: the reference
    codes column by column)."""
    pc = cat_s.shape[1]
    n_r = len(cat_r[0]) if pc else 0
    if table is not None:
        dtype = np.uint8 if equal and pc < 255 else np.uint16
        key = np.zeros((len(cat_s), n_r), dtype=dtype)
        for k in range(pc):
            differs = cat_s[:, k][:, None] != cat_r[k][None, :]
            if equal:
                key += differs
            else:
                key |= differs.astype(dtype) << dtype(k)
        # equal weights: weight * count is the table's float (a product is faster than a lookup)
        return table[1] * key if equal else table[key]
    level = np.zeros((len(cat_s), n_r))
    for k in range(pc):
        level += w_cat[k] * (cat_s[:, k][:, None] != cat_r[k][None, :])
    return level


def brute_nearest(cat_s: np.ndarray, cat_r: np.ndarray, num_s: np.ndarray, num_r: np.ndarray,
                  w_cat: np.ndarray, numeric_cap: np.ndarray | None,
                  exclude: np.ndarray | None, *, pair_batch: int | None = None,
                  progress: Callable[[int], object] | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``best, arg`` of :func:`capkit.distance.nearest.nearest` (same arguments, already
    validated: ``exclude`` (n_s, e) int64 or None) over every pair; see the module docstring.
    ``progress`` is called with the query records of each block (blocks of at most
    ``pair_batch`` pairs when given)."""
    best, arg = brute_k(cat_s, cat_r, num_s, num_r, w_cat, numeric_cap, exclude, 1,
                        pair_batch=pair_batch, progress=progress)
    return best[:, 0], arg[:, 0]


def brute_k(cat_s: np.ndarray, cat_r: np.ndarray, num_s: np.ndarray, num_r: np.ndarray,
            w_cat: np.ndarray, numeric_cap: np.ndarray | None, exclude: np.ndarray | None,
            k: int, *, pair_batch: int | None = None,
            progress: Callable[[int], object] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(n_s, k) ``best, arg``: column j is what :func:`brute_nearest` returns when the rows of
    columns 0..j-1 that were found (finite best) are added to ``exclude``, as
    :func:`capkit.distance.neighbours.k_nearest` searches the j-th neighbour; one pass over the
    pairs."""
    n_s, n_r = len(cat_s), len(cat_r)
    pq = num_s.shape[1]
    none = np.iinfo(np.int64).max
    table, equal = _level_table(w_cat)
    if cat_s.size and min(int(cat_s.min()), int(cat_r.min(initial=0))) >= 0:
        # the narrowest type of the codes: comparisons of narrow integers are several times faster
        narrow = np.min_scalar_type(max(int(cat_s.max()), int(cat_r.max(initial=0))))
        cat_s, cat_r = cat_s.astype(narrow), cat_r.astype(narrow)
    cat_r = [np.ascontiguousarray(cat_r[:, c]) for c in range(cat_r.shape[1])]
    missing = bool(np.isnan(num_s).any() or np.isnan(num_r).any())
    best = np.full((n_s, k), np.inf)
    arg = np.full((n_s, k), none, dtype=np.int64)
    cells = BLOCK_CELLS if pair_batch is None else min(BLOCK_CELLS, pair_batch)
    step = max(1, cells // max(n_r, 1))
    columns_r = [np.ascontiguousarray(num_r[:, c]) for c in range(pq)]
    for lo in range(0, n_s, step):
        hi = min(lo + step, n_s)
        rows = np.arange(hi - lo)
        d = (_levels(cat_s[lo:hi], cat_r, w_cat, table, equal) if len(cat_r)
             else np.zeros((hi - lo, n_r)))
        t = np.empty_like(d)
        for c in range(pq):
            np.subtract(num_s[lo:hi, c][:, None], columns_r[c][None, :], out=t)
            np.abs(t, out=t)
            if numeric_cap is not None:
                np.minimum(t, numeric_cap[c], out=t, where=t > numeric_cap[c])
            if missing:
                t[np.isnan(t)] = 0.0
            d += t
        if exclude is not None and exclude.shape[1]:
            at = np.repeat(rows, exclude.shape[1])
            cols = exclude[lo:hi].ravel()
            taken = cols >= 0
            d[at[taken], cols[taken]] = np.inf
        for j in range(k):
            where = np.argmin(d, axis=1)
            value = d[rows, where]
            found = np.isfinite(value)  # infinite only when every reference row is excluded
            best[lo:hi, j] = value
            arg[lo:hi, j] = np.where(found, where, none)
            if j + 1 < k:
                d[rows[found], where[found]] = np.inf
        if progress is not None:
            progress(hi - lo)
    return best, arg


__all__ = ["BRUTE_PAIRS", "BRUTE_PAIRS_UNEQUAL", "brute_k", "brute_nearest", "usable"]
