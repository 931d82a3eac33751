"""The k nearest records of :func:`capkit.distance._brute.brute_k`, found level by level in numpy.

The distance of a query record s to a reference record o is ``level(s, o) + t_0 + ... +
t_{pq-1}``: the level is the categorical part (the same float as ``brute_k`` forms: ``weight *
count`` with equal weights, otherwise the weights of the differing columns summed in column
order), each numeric term ``t_k = |x_sk - x_ok|`` (NaN -> 0) is >= 0 and is added in column
order. A reference record at a level above a query's k-th best distance so far can therefore
neither beat nor tie it (its distance is at least its level). So the pairs are visited level by
level, lowest first (level 0: the records sharing the query's categorical combination), each
level only by the queries whose k-th best is still >= it, as the compiled search of
:func:`capkit.distance.nearest.nearest` does, but with numpy on flat arrays of record pairs.
Within a combination the reference records are sorted by the sum of their numeric values, and a
query visits only those whose sum is within reach of its k-th best so far (``level + |sum_r -
sum_s| - margin > best`` rules a record out, since ``sum_k |x_k - y_k| >= |sum_k x_k - sum_k
y_k|``: the compiled search's rule and margin; not with missing values). Levels above 0 are
visited one at a time with equal weights, in bands of levels up to twice the band's first
otherwise (a pair visited in vain changes nothing). Each visited pair is evaluated with
``brute_k``'s operations in its order, so every distance is the same float; among equal
distances the lowest reference row is kept (``brute_k``'s ``argmin`` rule): the result is
``brute_k``'s, element for element (``tests/test_bylevel.py``).

Cost: the combinations' level keys (query combinations still open after level 0 x reference
combinations, at most :data:`LEVEL_CELLS`), plus a few numpy passes over the visited pairs
(at most :data:`MAX_PAIRS`, and :data:`MAX_SHARE` of n_s x n_r).

Why: on a few thousand to a few tens of thousands of records, most queries are settled by the
few records of their own combination or of a combination one column away, so this visits a
small share of the n_s x n_r pairs ``brute_k`` evaluates, without the compiled kernel's start-up
(importing numba and loading its cached machine code, about half a CPU second per process).
:func:`bylevel_k` gives up (returns None) when the levels it must visit hold more than
:data:`MAX_SHARE` of the pairs, where the brute force is as fast.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from capkit.counts.runs import concatenated_ranges
from capkit.distance._brute import _level_table

#: The share of all record pairs beyond which the search by level gives up for the brute force.
MAX_SHARE = 0.4
#: Largest n_s x n_r searched by level (beyond, the compiled search is faster).
BYLEVEL_PAIRS = 2**30
#: Record pairs the search by level may visit (its arrays take about 60 bytes a pair).
MAX_PAIRS = 2**22
#: Cells of the (query combinations x combinations) level matrix the search may hold.
LEVEL_CELLS = 2**24

NONE = np.iinfo(np.int64).max


def usable(num_s: np.ndarray, num_r: np.ndarray, w_cat: np.ndarray) -> bool:
    """Whether :func:`bylevel_k` may answer: every weight > 0 and finite, no infinite value."""
    return bool(np.all(w_cat > 0) and np.isfinite(w_cat).all()
                and not (np.isinf(num_s).any() or np.isinf(num_r).any()))


def _combinations(cat_s: np.ndarray, cat_r: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray]:
    """Joint ids of the categorical combinations of both tables (ascending in the codes'
    mixed-radix number), and the combinations' codes (one row each)."""
    n_s = len(cat_s)
    both = np.concatenate([cat_s, cat_r])
    if both.shape[1] == 0:
        return (np.zeros(n_s, dtype=np.int64), np.zeros(len(cat_r), dtype=np.int64),
                np.zeros((1, 0), dtype=both.dtype))
    low = both.min(axis=0).astype(np.int64)
    span = both.max(axis=0).astype(np.int64) - low + 1
    if float(np.prod(span.astype(np.float64))) < 2.0**62:
        number = np.zeros(len(both), dtype=np.int64)
        for c in range(both.shape[1]):
            number = number * span[c] + (both[:, c] - low[c])
        _, first, inverse = np.unique(number, return_index=True, return_inverse=True)
        uniq = both[first]
    else:
        uniq, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    return inverse[:n_s], inverse[n_s:], uniq


def _keys(rows: list[np.ndarray], columns: list[np.ndarray], equal: bool) -> np.ndarray:
    """(len(rows[0]), len(columns[0])) level key of each pair of combinations: the number of
    differing columns (equal weights) or the mismatch pattern (bit k: column k differs);
    ``rows``, ``columns``: the two sets of combinations' codes, column by column."""
    pc = len(columns)
    dtype = np.uint8 if (pc < 255 if equal else pc <= 8) else np.uint16
    shape = (len(rows[0]), len(columns[0]))
    key = np.zeros(shape, dtype=dtype)
    differs = np.empty(shape, dtype=bool)
    bits = differs.view(np.uint8)
    shifted = np.empty(shape, dtype=dtype)
    for k in range(pc):
        np.not_equal(rows[k][:, None], columns[k][None, :], out=differs)
        if equal:
            np.add(key, bits, out=key, casting="unsafe")
        else:
            np.left_shift(bits, k, out=shifted, dtype=dtype, casting="unsafe")
            np.bitwise_or(key, shifted, out=key)
    return key


def _round_best(q: np.ndarray, d: np.ndarray, rows: np.ndarray, k: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The k smallest (distance, row) of each query among its pairs (``q`` grouped in runs;
    the lowest row among equal distances): the queries, (m, k) distances and rows (inf / NONE
    where a query has fewer than k pairs)."""
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(q)]))
    out_d = np.full((len(starts), k), np.inf)
    out_r = np.full((len(starts), k), NONE, dtype=np.int64)
    d = d.copy()
    for j in range(k):
        low = np.minimum.reduceat(d, starts)
        row = np.minimum.reduceat(np.where(d == low[run], rows, NONE), starts)
        found = np.isfinite(low)
        out_d[:, j] = low
        out_r[:, j] = np.where(found, row, NONE)
        if j + 1 < k:
            d[rows == row[run]] = np.inf
    return q[starts], out_d, out_r


def _merge(best: np.ndarray, arg: np.ndarray, at: np.ndarray, new_d: np.ndarray,
           new_r: np.ndarray) -> None:
    """best[at], arg[at] := the k smallest (distance, row) of the old and the new ones."""
    k = best.shape[1]
    d = np.concatenate([best[at], new_d], axis=1)
    r = np.concatenate([arg[at], new_r], axis=1)
    line = np.repeat(np.arange(len(at)), 2 * k)
    order = np.lexsort((r.ravel(), d.ravel(), line)).reshape(len(at), 2 * k)[:, :k]
    best[at] = d.ravel()[order]
    arg[at] = r.ravel()[order]


@dataclass(frozen=True)
class _Scan:
    """One search: the query combinations, the reference records by combination (sorted by
    the sum of their numeric values within one when ``prune``), the best so far."""

    g_s: np.ndarray
    r_order: np.ndarray
    r_start: np.ndarray
    r_count: np.ndarray
    num_s: np.ndarray
    num_r: np.ndarray
    missing: bool
    exclude: np.ndarray | None
    best: np.ndarray
    arg: np.ndarray
    prune: bool
    sum_s: np.ndarray
    values: np.ndarray  # the distinct sums of the reference records, ascending
    key_r: np.ndarray  # combination * (len(values) + 1) + rank of the sum, in r_order's order
    low_sum: np.ndarray  # per combination, the least and the largest sum of its records
    high_sum: np.ndarray
    margin: float


def _scan(g_s: np.ndarray, g_r: np.ndarray, n_combos: int, num_s: np.ndarray,
          num_r: np.ndarray, w_cat: np.ndarray, exclude: np.ndarray | None, k: int) -> _Scan:
    missing = bool(np.isnan(num_s).any() or np.isnan(num_r).any())
    # the sums of the numeric values bound each distance from below, as in the compiled
    # search (capkit.distance.nearest, with its margin for rounding); not with missing values
    prune = not missing and num_s.shape[1] > 0
    sum_s, sum_r = num_s.sum(axis=1), num_r.sum(axis=1)
    r_order = np.lexsort((sum_r, g_r)) if prune else np.argsort(g_r, kind="stable")
    r_count = np.bincount(g_r, minlength=n_combos)
    values = np.unique(sum_r) if prune else np.zeros(0)
    key_r = (g_r * (len(values) + 1) + np.searchsorted(values, sum_r))[r_order] if prune \
        else np.zeros(0, dtype=np.int64)
    largest = max(float(np.abs(num_s).sum(axis=1).max(initial=0.0)),
                  float(np.abs(num_r).sum(axis=1).max(initial=0.0))) if prune else 0.0
    r_start = np.concatenate([[0], np.cumsum(r_count)[:-1]])
    low_sum = high_sum = np.zeros(0)
    if prune:
        ordered = np.append(sum_r[r_order], 0.0)
        low_sum = ordered[r_start]
        high_sum = ordered[np.maximum(r_start + r_count - 1, 0)]
    return _Scan(g_s, r_order, r_start, r_count, num_s, num_r, missing, exclude,
                 np.full((len(g_s), k), np.inf), np.full((len(g_s), k), NONE, dtype=np.int64),
                 prune, sum_s, values, key_r, low_sum, high_sum,
                 1e-9 * (largest + float(np.sum(w_cat)) + 1.0))


def _visit(scan: _Scan, pair_q: np.ndarray, pair_h: np.ndarray, level: np.ndarray,
           active: np.ndarray, budget: float) -> int | None:
    """Evaluate the pairs of the ``active`` queries with the reference records of the
    combinations ``pair_h`` of their combination (``pair_q``, ascending) at ``level`` (one per
    combination pair) whose sum of numeric values can give a distance <= the query's k-th best
    so far, and keep the k smallest; returns the number of pairs (None, nothing done, beyond
    ``budget``)."""
    per = np.bincount(pair_q, minlength=len(scan.r_count))
    first = np.concatenate([[0], np.cumsum(per)[:-1]])
    g = scan.g_s[active]
    j = concatenated_ranges(per[g], first[g])  # the (query, combination pair) pairs
    s = np.repeat(active, per[g])
    h = pair_h[j]
    lo = scan.r_start[h]
    counts = scan.r_count[h]
    if scan.prune and len(j):
        # level + |sum_r - sum_s| - margin > best: no distance <= best (the kernel's rule)
        slack = scan.best[s, -1] - level[j] + 2 * scan.margin
        x = scan.sum_s[s]
        reach = (x + slack >= scan.low_sum[h]) & (x - slack <= scan.high_sum[h])
        j, s, h, lo, x, slack = j[reach], s[reach], h[reach], lo[reach], x[reach], slack[reach]
        counts = scan.r_count[h]
        search = counts > 8  # a few records are evaluated rather than searched
        if search.any():
            base = h[search] * (len(scan.values) + 1)
            low = np.searchsorted(scan.values, x[search] - slack[search], side="left")
            high = np.searchsorted(scan.values, x[search] + slack[search], side="right")
            first_in = np.searchsorted(scan.key_r, base + low, side="left")
            lo[search] = first_in
            counts[search] = np.maximum(
                np.searchsorted(scan.key_r, base + high, side="left") - first_in, 0)
    if counts.sum() > budget:
        return None
    where = concatenated_ranges(counts, lo)
    if len(where) == 0:
        return 0
    queries = np.repeat(s, counts)
    rows = scan.r_order[where]
    d = np.repeat(level[j], counts)
    for c in range(scan.num_s.shape[1]):  # brute_k's operations, in its order
        t = np.abs(scan.num_s[queries, c] - scan.num_r[rows, c])
        if scan.missing:
            t[np.isnan(t)] = 0.0
        d += t
    exclude = scan.exclude
    if exclude is not None and exclude.shape[1]:
        keep = np.ones(len(rows), dtype=bool)
        for c in range(exclude.shape[1]):
            keep &= rows != exclude[queries, c]
        queries, d, rows = queries[keep], d[keep], rows[keep]
    if len(queries):
        at, new_d, new_r = _round_best(queries, d, rows, scan.best.shape[1])
        _merge(scan.best, scan.arg, at, new_d, new_r)
    return len(where)


def _bands(level_of: np.ndarray, equal: bool) -> list[tuple[int, int]]:
    """Ranks of the levels above 0 visited together (lowest, highest): one level at a time with
    equal weights (a few levels), otherwise levels up to twice a band's first (a queried
    pair at a level above the query's best is evaluated in vain but changes nothing)."""
    if equal:
        return [(r, r) for r in range(1, len(level_of))]
    bands, low = [], 1
    while low < len(level_of):
        high = int(np.searchsorted(level_of, 2 * level_of[low], side="right")) - 1
        bands.append((low, max(high, low)))
        low = max(high, low) + 1
    return bands


def bylevel_k(cat_s: np.ndarray, cat_r: np.ndarray, num_s: np.ndarray, num_r: np.ndarray,
              w_cat: np.ndarray, exclude: np.ndarray | None, k: int
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """``brute_k(cat_s, cat_r, num_s, num_r, w_cat, None, exclude, k)`` (every weight of
    ``w_cat`` > 0, no infinite value), or None when the search by level would visit more than
    :data:`MAX_SHARE` of the pairs or its level matrix would exceed :data:`LEVEL_CELLS`."""
    n_s, n_r = len(cat_s), len(cat_r)
    table, equal = _level_table(w_cat)
    if len(w_cat) and table is None:
        return None
    g_s, g_r, uniq = _combinations(cat_s, cat_r)
    n_combos = len(uniq)
    budget = min(MAX_SHARE * n_s * n_r, MAX_PAIRS)
    scan = _scan(g_s, g_r, n_combos, num_s, num_r, w_cat, exclude, k)
    best, arg = scan.best, scan.arg
    # level 0: the records of the query's own combination
    own = np.unique(g_s)
    visited = _visit(scan, own, own, np.zeros(len(own)), np.arange(n_s), budget)
    if visited is None:
        return None
    if len(w_cat) == 0:
        return best, arg
    level_of, rank_of_key = np.unique(table, return_inverse=True)  # level_of[0] = 0.0
    if len(level_of) < 2:
        return best, arg
    active = np.flatnonzero(best[:, k - 1] >= level_of[1])
    if len(active) == 0:
        return best, arg
    combos = np.unique(g_s[active])
    refs = np.flatnonzero(scan.r_count)  # the combinations holding reference records
    if len(combos) * len(refs) > LEVEL_CELLS:
        return None
    narrow = np.min_scalar_type(max(int(uniq.max()), 0)) if uniq.min() >= 0 else uniq.dtype
    codes = [np.ascontiguousarray(uniq[:, c], dtype=narrow) for c in range(uniq.shape[1])]
    key = _keys([c[combos] for c in codes], [c[refs] for c in codes], equal)
    ranks = key if equal else rank_of_key.astype(np.min_scalar_type(len(level_of)))[key]
    for low, high in _bands(level_of, equal):
        active = np.flatnonzero(best[:, k - 1] >= level_of[low])
        if len(active) == 0:
            break
        rows = np.searchsorted(combos, np.unique(g_s[active]))
        part = ranks[rows]
        hit, col = np.nonzero((part >= low) & (part <= high) if high > low else part == low)
        done = _visit(scan, combos[rows[hit]], refs[col], level_of[part[hit, col]], active,
                      budget - visited)
        if done is None:
            return None
        visited += done
    return best, arg


__all__ = ["BYLEVEL_PAIRS", "LEVEL_CELLS", "MAX_PAIRS", "MAX_SHARE", "bylevel_k", "usable"]
