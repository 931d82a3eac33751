"""Compiled kernel (numba): the record pairs of one categorical level, query by query.

For every query record s of a group of combination pairs, the kernel visits each reference
record o of the group's reference combinations and forms
``d = level + t_0 + t_1 + ... + t_{pq-1}`` with ``t_k = |x_sk - x_ok|`` (capped at
``numeric_cap[k]`` when given; NaN -> 0), in exactly the order numpy's column-by-column sum
used (so every distance is the same float to the bit), and keeps the smallest distance and,
among equally small ones, the smallest reference row. A pair is abandoned as soon as its partial
sum exceeds the query's best so far: the terms are >= 0 and adding a non-negative float never
decreases a float sum, so the pair could neither beat nor tie the best. The result is therefore
exactly what evaluating every pair gives, in any visiting order and with any number of threads:
each query is reduced by one thread, sequentially. Without a cap or missing value, the
records of a combination are visited outwards from the query's sum of numeric values and the
visit stops where that sum alone (a lower bound of the distance) exceeds the best.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _pair(level: float, s: int, o: int, b: float, num_s: np.ndarray, num_r: np.ndarray,
          cap: np.ndarray, capped: bool, missing: bool) -> float:  # pragma: no cover
    """Distance of query s to reference o, or +inf once its partial sum exceeds ``b``."""
    d = level
    if d > b:
        return np.inf
    for k in range(num_s.shape[1]):
        t = abs(num_s[s, k] - num_r[o, k])
        if capped and t > cap[k]:
            t = cap[k]
        if missing and t != t:
            t = 0.0
        d += t
        if d > b:
            return np.inf
    return d


@njit(cache=True, parallel=True)
def scan_queries(level: float, queries: np.ndarray, query_row: np.ndarray,
                 row_pairs: np.ndarray, pair_combo: np.ndarray, r_count: np.ndarray,
                 r_start: np.ndarray, r_order: np.ndarray, num_s: np.ndarray,
                 num_r: np.ndarray, best: np.ndarray, arg: np.ndarray, cap: np.ndarray,
                 capped: bool, missing: bool, prune: bool, sum_s: np.ndarray,
                 sum_r: np.ndarray, margin: float) -> None:  # pragma: no cover - compiled
    """Update ``best`` / ``arg`` of ``queries`` with every pair of their combination pairs.

    ``queries[i]`` belongs to row ``query_row[i]``, whose reference combinations are
    ``pair_combo[row_pairs[row]:row_pairs[row + 1]]``; a combination h holds the reference
    records ``r_order[r_start[h]:r_start[h] + r_count[h]]``. ``num_s`` (n, pq) and ``num_r``
    (m, pq) are the scaled numeric values, row-major.

    With ``prune`` (no cap, no missing value) the records of each combination are sorted by
    ``sum_r`` (the sum of their numeric values, in ``r_order``'s order) and visited outwards
    from the query's own sum ``sum_s``: since ``sum_k |x_k - y_k| >= |sum_k x_k - sum_k y_k|``,
    once ``level + |sum_r - sum_s| - margin`` exceeds the best distance so far no further record
    of the combination in that direction can reach it (``margin`` covers rounding).
    """
    for i in prange(len(queries)):
        s = queries[i]
        row = query_row[i]
        b = best[s]
        a = arg[s]
        for p in range(row_pairs[row], row_pairs[row + 1]):
            h = pair_combo[p]
            first = r_start[h]
            last = first + r_count[h]
            if not prune:
                for j in range(first, last):
                    o = r_order[j]
                    d = _pair(level, s, o, b, num_s, num_r, cap, capped, missing)
                    if d < b or (d == b and o < a):
                        b = d
                        a = o
                continue
            x = sum_s[s]
            mid = first + np.searchsorted(sum_r[first:last], x)
            for j in range(mid, last):
                if level + (sum_r[j] - x) - margin > b:
                    break
                o = r_order[j]
                d = _pair(level, s, o, b, num_s, num_r, cap, capped, missing)
                if d < b or (d == b and o < a):
                    b = d
                    a = o
            for j in range(mid - 1, first - 1, -1):
                if level + (x - sum_r[j]) - margin > b:
                    break
                o = r_order[j]
                d = _pair(level, s, o, b, num_s, num_r, cap, capped, missing)
                if d < b or (d == b and o < a):
                    b = d
                    a = o
        best[s] = b
        arg[s] = a


__all__ = ["scan_queries"]
