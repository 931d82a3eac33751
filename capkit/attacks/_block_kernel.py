"""Compiled kernels (numba): anonymeter's mixed-type distances, the k nearest and the band of
each query, without holding a block of distances.

A distance is summed as :func:`capkit.attacks.neighbors.pair_distances` sums it:
``|x_0 - y_0|``, then ``+ |x_j - y_j|`` for the other numeric columns in order (a missing
number on both sides is 1), then ``+ 1.0`` (or ``+ 0.0``) per categorical code, differing or
not: the same floating-point operations in the same order for every cell (no fast-math, so
nothing is reassociated or fused), hence the same floats to the bit. A query's distances to
all candidates are summed column by column over the candidates' columns held transposed, a
contiguous loop the compiler can run on vector registers without changing any cell's sum. A
missing number on one side makes the distance NaN, which ranks after every number (as +inf).

:func:`nearest_rows` keeps, per query, its k-th smallest ranked distance (``kth``), how many
candidates are below it, at it and at the minimum, and its k nearest: the candidates below the
k-th distance and, at it, the lowest positions (candidates come in ascending positions), sorted
by distance with ties in position order. :func:`band_rows` lists, for given k-th distances,
every (query, candidate) pair at or below it, in query order then candidate order. Each query
is worked out by one thread, on its own: the answers do not depend on the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["band_rows", "nearest_rows"]


@njit(cache=True, inline="always")
def _row(query_num, query_cat, num_t, cat_t, r, with_cat, nan_free,
         acc):  # pragma: no cover - compiled
    """Distances of query ``r`` to every candidate into ``acc``, column by column (candidates'
    columns ``num_t`` / ``cat_t`` transposed, so that the loop over candidates is contiguous):
    each cell gets the same operations in the same order as a sum cell by cell."""
    m = acc.shape[0]
    if query_num.shape[1] == 0:
        acc[:] = 0.0
    for j in range(query_num.shape[1]):
        a = query_num[r, j]
        column = num_t[j]
        if nan_free:
            if j == 0:
                for c in range(m):
                    acc[c] = abs(a - column[c])
            else:
                for c in range(m):
                    acc[c] += abs(a - column[c])
        else:
            for c in range(m):
                b = column[c]
                t = abs(a - b)
                if a != a and b != b:
                    t = 1.0
                acc[c] = t if j == 0 else acc[c] + t
    if with_cat:
        for j in range(query_cat.shape[1]):
            a = query_cat[r, j]
            column = cat_t[j]
            for c in range(m):
                acc[c] += 1.0 if a != column[c] else 0.0


@njit(cache=True, parallel=True)
def nearest_rows(query_num, query_cat, num_t, cat_t, rows, k, with_cat,
                 nan_free):  # pragma: no cover - compiled
    """For each query ``rows[i]`` against the candidates (columns of ``num_t`` / ``cat_t``, in
    ascending positions): its k-th ranked distance, the candidates below it, at it and at the
    minimum, and its k nearest (places among the candidates and distances, nearest first)."""
    n, m = len(rows), num_t.shape[1]
    kth = np.empty(n)
    n_below = np.empty(n, np.int64)
    n_at = np.empty(n, np.int64)
    n_min = np.empty(n, np.int64)
    place = np.empty((n, k), np.int64)
    dist = np.empty((n, k))
    for i in prange(n):
        raw = np.empty(m)
        _row(query_num, query_cat, num_t, cat_t, rows[i], with_cat, nan_free, raw)
        ranked = raw if nan_free else np.where(raw != raw, np.inf, raw)
        best = np.full(k, np.inf)  # the k smallest ranked distances, ascending
        for c in range(m):
            v = ranked[c]
            if v < best[k - 1]:
                p = k - 1
                while p > 0 and best[p - 1] > v:
                    best[p] = best[p - 1]
                    p -= 1
                best[p] = v
        cut, low = best[k - 1], best[0]
        below, at, at_low, taken = 0, 0, 0, 0
        for c in range(m):
            v = ranked[c]
            if v < cut:
                below += 1
            elif v == cut:
                at += 1
            if v == low:
                at_low += 1
        chosen = np.empty(k, np.int64)
        room = k - below  # the lowest positions at the k-th distance fill what is left
        for c in range(m):
            v = ranked[c]
            if v < cut or (v == cut and room > 0):
                if v == cut:
                    room -= 1
                chosen[taken] = c
                taken += 1
        for a in range(1, k):  # by distance, ties in position order (insertion: stable)
            c = chosen[a]
            p = a
            while p > 0 and ranked[chosen[p - 1]] > ranked[c]:
                chosen[p] = chosen[p - 1]
                p -= 1
            chosen[p] = c
        for a in range(k):
            place[i, a] = chosen[a]
            dist[i, a] = raw[chosen[a]]
        kth[i], n_below[i], n_at[i], n_min[i] = cut, below, at, at_low
    return kth, n_below, n_at, n_min, place, dist


@njit(cache=True, parallel=True)
def band_rows(query_num, query_cat, num_t, cat_t, rows, kth, start, with_cat,
              nan_free):  # pragma: no cover - compiled
    """Every pair (i, c) with ranked distance of ``rows[i]`` to candidate c at or below
    ``kth[i]``, query i's pairs at ``start[i]:start[i + 1]`` in candidate order; and whether
    each is at the k-th distance."""
    m = num_t.shape[1]
    total = start[len(rows)]
    pair_row = np.empty(total, np.int64)
    pair_col = np.empty(total, np.int64)
    at = np.empty(total, np.bool_)
    for i in prange(len(rows)):
        raw = np.empty(m)
        _row(query_num, query_cat, num_t, cat_t, rows[i], with_cat, nan_free, raw)
        w = start[i]
        for c in range(m):
            v = np.inf if raw[c] != raw[c] else raw[c]
            if v <= kth[i]:
                pair_row[w], pair_col[w], at[w] = i, c, v == kth[i]
                w += 1
    return pair_row, pair_col, at
