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
def count_differing(codes: np.ndarray, columns: np.ndarray,
                    out: np.ndarray) -> None:  # pragma: no cover - compiled
    """out[h] = the number of columns k with codes[k] != columns[k, h], counted column by
    column over ``columns`` (combinations' codes, one row per column): a contiguous loop."""
    out[:] = 0
    for k in range(columns.shape[0]):
        code = codes[k]
        column = columns[k]
        for h in range(columns.shape[1]):
            out[h] += code != column[h]


@njit(cache=True)
def keep_smallest(best: np.ndarray, value: float) -> None:  # pragma: no cover - compiled
    """Insert ``value`` into ``best``, the k smallest values seen so far in ascending order
    (the largest drops out); nothing if it is not below ``best[-1]``. The k smallest values do
    not depend on the order in which the values come."""
    k = len(best)
    if value < best[k - 1]:
        p = k - 1
        while p > 0 and best[p - 1] > value:
            best[p] = best[p - 1]
            p -= 1
        best[p] = value


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


@njit(cache=True)
def _excluded(s: int, o: int, exclude: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether reference row o is one query s may not take (``exclude[s]``: its own row, or
    the neighbours already found)."""
    for c in range(exclude.shape[1]):
        if exclude[s, c] == o:
            return True
    return False


@njit(cache=True)
def _consider(level: float, s: int, o: int, b: float, a: int, num_s: np.ndarray,
              num_r: np.ndarray, cap: np.ndarray, capped: bool, missing: bool,
              exclude: np.ndarray) -> tuple[float, int]:  # pragma: no cover - compiled
    """Best distance and row of query s once reference record o is looked at: a smaller
    distance, or an equal one at a lower row, takes over (rows of ``exclude[s]`` are skipped)."""
    if _excluded(s, o, exclude):
        return b, a
    d = _pair(level, s, o, b, num_s, num_r, cap, capped, missing)
    if d < b or (d == b and o < a):
        return d, o
    return b, a


@njit(cache=True)
def _visit(level: float, s: int, first: int, last: int, b: float, a: int, r_order: np.ndarray,
           num_s: np.ndarray, num_r: np.ndarray, cap: np.ndarray, capped: bool, missing: bool,
           prune: bool, sum_s: np.ndarray, sum_r: np.ndarray, margin: float,
           exclude: np.ndarray) -> tuple[float, int]:  # pragma: no cover - compiled
    """Best distance and row of query s after the reference records ``r_order[first:last]``
    (one categorical combination, sorted by ``sum_r`` when ``prune``), leaving out the rows of
    ``exclude[s]``."""
    if not prune:
        for j in range(first, last):
            b, a = _consider(level, s, r_order[j], b, a, num_s, num_r, cap, capped, missing,
                             exclude)
        return b, a
    x = sum_s[s]
    mid = first + np.searchsorted(sum_r[first:last], x)
    for j in range(mid, last):
        if level + (sum_r[j] - x) - margin > b:
            break
        b, a = _consider(level, s, r_order[j], b, a, num_s, num_r, cap, capped, missing,
                         exclude)
    for j in range(mid - 1, first - 1, -1):
        if level + (x - sum_r[j]) - margin > b:
            break
        b, a = _consider(level, s, r_order[j], b, a, num_s, num_r, cap, capped, missing,
                         exclude)
    return b, a


@njit(cache=True, parallel=True)
def scan_queries(level: float, queries: np.ndarray, query_row: np.ndarray,
                 row_pairs: np.ndarray, pair_combo: np.ndarray, r_count: np.ndarray,
                 r_start: np.ndarray, r_order: np.ndarray, num_s: np.ndarray,
                 num_r: np.ndarray, best: np.ndarray, arg: np.ndarray, cap: np.ndarray,
                 capped: bool, missing: bool, prune: bool, sum_s: np.ndarray,
                 sum_r: np.ndarray, margin: float,
                 exclude: np.ndarray) -> None:  # pragma: no cover - compiled
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
            b, a = _visit(level, s, r_start[h], r_start[h] + r_count[h], b, a, r_order, num_s,
                          num_r, cap, capped, missing, prune, sum_s, sum_r, margin, exclude)
        best[s] = b
        arg[s] = a


@njit(cache=True, parallel=True)
def scan_levels(q_parts: np.ndarray, q_first: np.ndarray, records: np.ndarray,
                ref_parts: np.ndarray, ref_ids: np.ndarray, weight: float, r_count: np.ndarray,
                r_start: np.ndarray, r_order: np.ndarray, num_s: np.ndarray,
                num_r: np.ndarray, best: np.ndarray, arg: np.ndarray, cap: np.ndarray,
                capped: bool, missing: bool, prune: bool, sum_s: np.ndarray,
                sum_r: np.ndarray, margin: float,
                exclude: np.ndarray) -> None:  # pragma: no cover - compiled
    """Levels >= 1 with equal categorical weights, one query combination per iteration.

    Query combination g (categorical codes ``q_parts[g]``) holds the query records
    ``records[q_first[g]:q_first[g + 1]]``. Its number of differing columns c to every
    reference combination (``ref_parts``, ids ``ref_ids``) is counted once, in the codes' own
    type; then level by level (``weight * c``, the float of
    :func:`capkit.distance.nearest._level_values`), while one of its records has a best
    distance >= the level, the reference combinations at that level are visited in their order
    by each record whose best is still >= it. Each record thus visits the same combinations in
    the same order as a visit sorted by level, and most records are settled at the first levels,
    so the combinations of the others are never sorted.
    """
    pc = q_parts.shape[1]
    n_ref = ref_parts.shape[0]
    ref_columns = np.ascontiguousarray(ref_parts.T)  # column by column: a contiguous loop
    for g in prange(len(q_first) - 1):
        differ = np.empty(n_ref, dtype=ref_parts.dtype)
        count_differing(q_parts[g], ref_columns, differ)
        first, last = q_first[g], q_first[g + 1]
        for c in range(1, pc + 1):
            level = weight * np.float64(c)
            open_ = False
            for i in range(first, last):
                if level <= best[records[i]]:
                    open_ = True
                    break
            if not open_:
                break
            for h in range(n_ref):
                if differ[h] != c:
                    continue
                combo = ref_ids[h]
                for i in range(first, last):
                    s = records[i]
                    b = best[s]
                    if level > b:
                        continue
                    b, a = _visit(level, s, r_start[combo], r_start[combo] + r_count[combo], b,
                                  arg[s], r_order, num_s, num_r, cap, capped, missing, prune,
                                  sum_s, sum_r, margin, exclude)
                    best[s] = b
                    arg[s] = a


__all__ = ["count_differing", "keep_smallest", "scan_levels", "scan_queries"]
