"""Compiled kernels (numba): anonymeter's mixed-type distances, the k nearest and the band of
each query, without holding a block of distances.

A distance is summed as :func:`capkit.distance.mixed_knn.pair_distances` sums it:
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
by distance with ties in position order, and the band of each query whose band (the
candidates at or below its k-th distance) is narrow; :func:`band_rows` lists, for given k-th
distances, every (query, candidate) pair at or below it, in query order then candidate order,
computing the distances again (for the wide bands of many ties). Each query
is worked out by one thread, on its own: the answers do not depend on the number of threads
(and a small search runs on one thread: :data:`THREAD_CELLS`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from capkit.distance._kernel import keep_smallest

__all__ = ["THREAD_CELLS", "band_rows", "band_windows", "nearest_rows", "nearest_windows"]

#: Distances of one search from which its queries are shared out to numba's threads (a
#: smaller search is done on one thread: starting the threads would cost more than it saves,
#: most of all on a busy machine).
THREAD_CELLS = 1 << 18


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


@njit(cache=True, inline="always")
def _list_band(ranked, kth, cols, at, w):  # pragma: no cover - compiled
    """Write the candidates with ranked distance at or below ``kth`` (in candidate order) at
    ``cols[w:]``, whether each is at ``kth`` at ``at[w:]``; return the next free place."""
    for c in range(len(ranked)):
        if ranked[c] <= kth:
            cols[w], at[w] = c, ranked[c] == kth
            w += 1
    return w


@njit(cache=True, inline="always")
def _nearest_one(query_num, query_cat, num_t, cat_t, r, k, with_cat, nan_free, i, kth, n_below,
                 n_at, n_min, place, dist, band, band_at):  # pragma: no cover - compiled
    """Query ``r``'s k-th ranked distance, counts and k nearest, written at ``i``; and, when
    its band (the candidates at or below the k-th distance) fits in ``band.shape[1]`` slots,
    the band in candidate order (``band_at``: at the k-th distance), the rest of the row -1."""
    m = num_t.shape[1]
    raw = np.empty(m)
    _row(query_num, query_cat, num_t, cat_t, r, with_cat, nan_free, raw)
    ranked = raw if nan_free else np.where(raw != raw, np.inf, raw)
    best = np.full(k, np.inf)  # the k smallest ranked distances, ascending
    for c in range(m):
        keep_smallest(best, ranked[c])
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
    slots = band.shape[1]
    if slots:
        band[i, :] = -1
    if 0 < below + at <= slots:
        _list_band(ranked, cut, band[i], band_at[i], 0)


@njit(cache=True, parallel=True)
def _nearest_threads(query_num, query_cat, num_t, cat_t, rows, k, with_cat, nan_free, kth,
                     n_below, n_at, n_min, place, dist, band, band_at):  # pragma: no cover
    for i in prange(len(rows)):
        _nearest_one(query_num, query_cat, num_t, cat_t, rows[i], k, with_cat, nan_free, i,
                     kth, n_below, n_at, n_min, place, dist, band, band_at)


@njit(cache=True, nogil=True)
def _nearest_serial(query_num, query_cat, num_t, cat_t, rows, k, with_cat, nan_free, kth,
                    n_below, n_at, n_min, place, dist, band, band_at):  # pragma: no cover
    for i in range(len(rows)):
        _nearest_one(query_num, query_cat, num_t, cat_t, rows[i], k, with_cat, nan_free, i,
                     kth, n_below, n_at, n_min, place, dist, band, band_at)


def nearest_rows(query_num: np.ndarray, query_cat: np.ndarray, num_t: np.ndarray,
                 cat_t: np.ndarray, rows: np.ndarray, k: int, with_cat: bool, nan_free: bool,
                 slots: int = 0) -> tuple[np.ndarray, ...]:
    """For each query ``rows[i]`` against the candidates (columns of ``num_t`` / ``cat_t``, in
    ascending positions): its k-th ranked distance, the candidates below it, at it and at the
    minimum, and its k nearest (places among the candidates and distances, nearest first);
    then its band where it has at most ``slots`` candidates ((n, slots) places in candidate
    order, -1 past the band or where it has more: those :func:`band_rows` lists, from their
    distances computed again) and whether each is at the k-th distance.
    Searches of :data:`THREAD_CELLS` distances or more are shared out to numba's threads."""
    n = len(rows)
    out = (np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
           np.empty((n, k), np.int64), np.empty((n, k)), np.empty((n, slots), np.int64),
           np.zeros((n, slots), np.bool_))
    run = _nearest_threads if n * num_t.shape[1] >= THREAD_CELLS else _nearest_serial
    run(query_num, query_cat, num_t, cat_t, rows, k, with_cat, nan_free, *out)
    return out


@njit(cache=True, inline="always")
def _band_one(query_num, query_cat, num_t, cat_t, r, kth, w, with_cat, nan_free, i, pair_row,
              pair_col, at):  # pragma: no cover - compiled
    raw = np.empty(num_t.shape[1])
    _row(query_num, query_cat, num_t, cat_t, r, with_cat, nan_free, raw)
    if not nan_free:
        for c in range(len(raw)):  # a NaN distance ranks as +inf
            if raw[c] != raw[c]:
                raw[c] = np.inf
    end = _list_band(raw, kth, pair_col, at, w)
    pair_row[w:end] = i


@njit(cache=True, parallel=True)
def _band_threads(query_num, query_cat, num_t, cat_t, rows, kth, start, with_cat, nan_free,
                  pair_row, pair_col, at):  # pragma: no cover - compiled
    for i in prange(len(rows)):
        _band_one(query_num, query_cat, num_t, cat_t, rows[i], kth[i], start[i], with_cat,
                  nan_free, i, pair_row, pair_col, at)


@njit(cache=True, nogil=True)
def _band_serial(query_num, query_cat, num_t, cat_t, rows, kth, start, with_cat, nan_free,
                 pair_row, pair_col, at):  # pragma: no cover - compiled
    for i in range(len(rows)):
        _band_one(query_num, query_cat, num_t, cat_t, rows[i], kth[i], start[i], with_cat,
                  nan_free, i, pair_row, pair_col, at)


def band_rows(query_num: np.ndarray, query_cat: np.ndarray, num_t: np.ndarray,
              cat_t: np.ndarray, rows: np.ndarray, kth: np.ndarray, start: np.ndarray,
              with_cat: bool, nan_free: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (i, c) with ranked distance of ``rows[i]`` to candidate c at or below
    ``kth[i]``, query i's pairs at ``start[i]:start[i + 1]`` in candidate order; and whether
    each is at the k-th distance."""
    total = int(start[len(rows)])
    out = (np.empty(total, np.int64), np.empty(total, np.int64), np.empty(total, np.bool_))
    run = _band_threads if len(rows) * num_t.shape[1] >= THREAD_CELLS else _band_serial
    run(query_num, query_cat, num_t, cat_t, rows, kth, start, with_cat, nan_free, *out)
    return out


@njit(cache=True, inline="always")
def _window(cand_num, order, lo, hi):  # pragma: no cover - compiled
    """The candidates ``order[lo:hi]`` in ascending positions, and their numeric columns
    transposed (a window of a search, :func:`nearest_windows`)."""
    pos = np.sort(order[lo:hi])
    num_t = np.empty((cand_num.shape[1], len(pos)))
    for j in range(cand_num.shape[1]):
        for c in range(len(pos)):
            num_t[j, c] = cand_num[pos[c], j]
    return pos, num_t


@njit(cache=True, parallel=True)
def _nearest_windows(query_num, pool, cand_num, lo, hi, rows, k, kth, n_below, n_at, n_min,
                     place, dist, band, band_at):  # pragma: no cover - compiled
    no_cat = np.empty((0, 0), np.int64)
    for i in prange(len(rows)):
        pos, num_t = _window(cand_num, pool, lo[i], hi[i])
        _nearest_one(query_num, no_cat, num_t, no_cat, rows[i], k, False, True, i, kth,
                     n_below, n_at, n_min, place, dist, band, band_at)
        for a in range(k):
            place[i, a] = pos[place[i, a]]
        for s in range(band.shape[1]):
            if band[i, s] >= 0:
                band[i, s] = pos[band[i, s]]


def nearest_windows(query_num: np.ndarray, pool: np.ndarray, cand_num: np.ndarray,
                    lo: np.ndarray, hi: np.ndarray, rows: np.ndarray, k: int,
                    slots: int = 0) -> tuple[np.ndarray, ...]:
    """:func:`nearest_rows` (numeric columns only, no missing number) for query ``rows[i]``
    against the candidates ``pool[lo[i]:hi[i]]`` (a window holding every candidate
    that can be at or below its k-th distance, and at least k), taken in ascending positions:
    the same floats, counts and tie rule as over all of them, with places and bands given as
    candidate positions. Each query is worked out by one thread, on its own."""
    n = len(rows)
    out = (np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
           np.empty((n, k), np.int64), np.empty((n, k)), np.empty((n, slots), np.int64),
           np.zeros((n, slots), np.bool_))
    if n:
        _nearest_windows(query_num, pool, cand_num, lo, hi, rows, k, *out)
    return out


@njit(cache=True, parallel=True)
def _band_windows(query_num, pool, cand_num, lo, hi, rows, kth, start, pair_row, pair_col,
                  at):  # pragma: no cover - compiled
    no_cat = np.empty((0, 0), np.int64)
    for i in prange(len(rows)):
        pos, num_t = _window(cand_num, pool, lo[i], hi[i])
        _band_one(query_num, no_cat, num_t, no_cat, rows[i], kth[i], start[i], False, True,
                  i, pair_row, pair_col, at)
        for w in range(start[i], start[i + 1]):
            pair_col[w] = pos[pair_col[w]]


def band_windows(query_num: np.ndarray, pool: np.ndarray, cand_num: np.ndarray,
                 lo: np.ndarray, hi: np.ndarray, rows: np.ndarray,
                 kth: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`band_rows` over the windows of :func:`nearest_windows` (candidate positions)."""
    total = int(start[len(rows)])
    out = (np.empty(total, np.int64), np.empty(total, np.int64), np.empty(total, np.bool_))
    if len(rows):
        _band_windows(query_num, pool, cand_num, lo, hi, rows, kth, start, *out)
    return out
