"""Compiled searches beyond the single nearest record: records within a radius (MC) and the
make-up of the k nearest records (DPI), exact, under two distances.

* **Gower** (unnormalised, as :func:`capkit.distance.nearest.nearest` computes it): the
  categorical level ``sum_k w_k [a_k != b_k]`` plus the numeric terms ``|x_k - y_k|`` (values
  already scaled by weight / range; a missing value makes its term 0), added in that order, so
  a pair's distance is the same float as in the nearest-record search. Records are grouped by
  categorical combination: a target combination whose level alone is beyond the radius (or
  beyond the current k-th distance) is skipped with all its records, since numeric terms only
  add. The single nearest record (DCR) is not searched here but by
  :func:`capkit.distance.nearest.nearest`.
* **Squared Euclidean on the raw columns** (DOMIAS 0.0.5's ``d``: ``sum_k (x_k - y_k)^2``,
  summed in column order, spec ``shared/spec/domias.md`` section 1.4): every pair, in blocks.

The kernels run on one thread (no OpenMP runtime: safe in a forked process and under a busy
machine's other jobs). Ties at the k-th distance are split, not broken: the share of synthetic
records among the k nearest counts each record tied at the k-th distance with weight
(slots left) / (tied records), so the result does not depend on the order of the records.
"""

from __future__ import annotations

import numba
import numpy as np

from capkit.counts.encode import combine_codes

#: Pairs whose squared distances are held at once (brute force).
BLOCK_CELLS = 1 << 21


@numba.njit(cache=True, nogil=True)
def _levels(qparts, tparts, w_cat, equal, qc):
    """Categorical level of query combination ``qc`` against every target combination."""
    n_t, pc = tparts.shape
    out = np.zeros(n_t)
    for h in range(n_t):
        if equal:
            count = 0
            for k in range(pc):
                if qparts[qc, k] != tparts[h, k]:
                    count += 1
            out[h] = w_cat[0] * count if pc else 0.0
        else:
            level = 0.0
            for k in range(pc):
                if qparts[qc, k] != tparts[h, k]:
                    level += w_cat[k]
            out[h] = level
    return out


@numba.njit(cache=True, nogil=True)
def _level_order(levels, w_cat, equal, pc):
    """Target combinations by increasing level (stable): a counting sort when the levels are
    multiples of one weight, else a merge sort."""
    if not equal or pc == 0:
        return np.argsort(levels, kind="mergesort")
    counts = np.zeros(pc + 2, dtype=np.int64)
    index = np.empty(len(levels), dtype=np.int64)
    for h in range(len(levels)):
        index[h] = int(round(levels[h] / w_cat[0]))
        counts[index[h] + 1] += 1
    for c in range(1, pc + 2):
        counts[c] += counts[c - 1]
    order = np.empty(len(levels), dtype=np.int64)
    for h in range(len(levels)):
        order[counts[index[h]]] = h
        counts[index[h]] += 1
    return order


@numba.njit(cache=True, nogil=True)
def _pair(level, qnum, tnum, i, j):
    d = level
    for k in range(qnum.shape[1]):
        term = abs(qnum[i, k] - tnum[j, k])
        if term != term:  # missing value: 0, as in the nearest-record search
            term = 0.0
        d += term
    return d


@numba.njit(cache=True, nogil=True)
def _ball_kernel(q_combo_records, q_combo_start, qparts, tparts, t_start, t_count, t_order,
                 qnum, tnum, w_cat, equal, radius, total_weight, counts):
    n_qc = len(q_combo_start) - 1
    for qc in range(n_qc):
        levels = _levels(qparts, tparts, w_cat, equal, qc)
        for h in range(len(levels)):
            if levels[h] / total_weight >= radius:
                continue
            for a in range(q_combo_start[qc], q_combo_start[qc + 1]):
                i = q_combo_records[a]
                for b in range(t_start[h], t_start[h] + t_count[h]):
                    j = t_order[b]
                    if _pair(levels[h], qnum, tnum, i, j) / total_weight < radius:
                        counts[i] += 1


@numba.njit(cache=True, nogil=True)
def _knn_kernel(q_combo_records, q_combo_start, qparts, tparts, t_start, t_count, t_order,
                qnum, tnum, w_cat, equal, is_first, k, share):
    n_qc = len(q_combo_start) - 1
    for qc in range(n_qc):
        levels = _levels(qparts, tparts, w_cat, equal, qc)
        order = _level_order(levels, w_cat, equal, qparts.shape[1])
        best = np.empty(k)
        for a in range(q_combo_start[qc], q_combo_start[qc + 1]):
            i = q_combo_records[a]
            best[:] = np.inf
            # pass 1: the k-th smallest distance
            for o in range(len(order)):
                h = order[o]
                if levels[h] > best[k - 1]:
                    break
                for b in range(t_start[h], t_start[h] + t_count[h]):
                    j = t_order[b]
                    d = _pair(levels[h], qnum, tnum, i, j)
                    if d < best[k - 1]:
                        p = k - 1
                        while p > 0 and best[p - 1] > d:
                            best[p] = best[p - 1]
                            p -= 1
                        best[p] = d
            kth = best[k - 1]
            # pass 2: first-set records strictly closer and tied at the k-th distance
            less_first = 0
            less = 0
            tied_first = 0
            tied = 0
            for o in range(len(order)):
                h = order[o]
                if levels[h] > kth:
                    break
                for b in range(t_start[h], t_start[h] + t_count[h]):
                    j = t_order[b]
                    d = _pair(levels[h], qnum, tnum, i, j)
                    if d < kth:
                        less += 1
                        if is_first[j]:
                            less_first += 1
                    elif d == kth:
                        tied += 1
                        if is_first[j]:
                            tied_first += 1
            value = float(less_first)
            if tied > 0:
                value += (k - less) * tied_first / tied
            share[i] = value / k


def _grouping(cat_q: np.ndarray, cat_t: np.ndarray):
    pc = cat_q.shape[1]
    if pc:
        cards = [int(max(cat_q[:, c].max(), cat_t[:, c].max())) + 1 for c in range(pc)]
        g_q, g_t, comps = combine_codes([cat_q[:, c] for c in range(pc)],
                                        [cat_t[:, c] for c in range(pc)], cards)
        parts = np.column_stack(comps).astype(np.int64)
    else:
        g_q = np.zeros(len(cat_q), dtype=np.int64)
        g_t = np.zeros(len(cat_t), dtype=np.int64)
        parts = np.zeros((1, 0), dtype=np.int64)
    q_used, g_q = np.unique(g_q, return_inverse=True)
    t_used, g_t = np.unique(g_t, return_inverse=True)
    q_order = np.argsort(g_q, kind="stable")
    q_start = np.concatenate([[0], np.cumsum(np.bincount(g_q, minlength=len(q_used)))])
    t_count = np.bincount(g_t, minlength=len(t_used))
    t_start = np.concatenate([[0], np.cumsum(t_count)[:-1]])
    t_order = np.argsort(g_t, kind="stable")
    return (q_order.astype(np.int64), q_start.astype(np.int64), parts[q_used], parts[t_used],
            t_start.astype(np.int64), t_count.astype(np.int64), t_order.astype(np.int64))


def _weights(w_cat: np.ndarray) -> tuple[np.ndarray, bool]:
    w = np.asarray(w_cat, dtype=np.float64)
    if len(w) == 0:
        return np.ones(1), True
    return w, bool(np.all(w == w[0]))


def gower_ball_counts(cat_q, num_q, cat_t, num_t, w_cat, total_weight: float,
                      radius: float) -> np.ndarray:
    """Number of target records t with D(q, t) / total_weight < radius, for every query q."""
    grouping = _grouping(cat_q, cat_t)
    w, equal = _weights(w_cat)
    counts = np.zeros(len(cat_q), dtype=np.int64)
    _ball_kernel(*grouping, np.ascontiguousarray(num_q, dtype=np.float64),
                 np.ascontiguousarray(num_t, dtype=np.float64), w, equal, float(radius),
                 float(total_weight), counts)
    return counts


def gower_knn_share(cat_q, num_q, cat_t, num_t, w_cat, is_first: np.ndarray,
                    k: int) -> np.ndarray:
    """Share of ``is_first`` targets among the k nearest targets of every query (ties split)."""
    grouping = _grouping(cat_q, cat_t)
    w, equal = _weights(w_cat)
    share = np.zeros(len(cat_q))
    _knn_kernel(*grouping, np.ascontiguousarray(num_q, dtype=np.float64),
                np.ascontiguousarray(num_t, dtype=np.float64), w, equal,
                np.asarray(is_first, dtype=np.bool_), int(k), share)
    return share


def _squared_blocks(x: np.ndarray, y: np.ndarray):
    """(start, stop, block of sum_k (x_k - y_k)^2 summed in column order)."""
    step = max(1, BLOCK_CELLS // max(len(y), 1))
    for start in range(0, len(x), step):
        stop = min(start + step, len(x))
        block = np.zeros((stop - start, len(y)))
        for k in range(x.shape[1]):
            diff = x[start:stop, k][:, None] - y[:, k][None, :]
            diff *= diff
            block += diff
        yield start, stop, block


def squared_min(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """min_j sum_k (x_ik - y_jk)^2 for every row of x."""
    out = np.empty(len(x))
    for start, stop, block in _squared_blocks(x, y):
        out[start:stop] = block.min(axis=1)
    return out


def squared_ball_counts(x: np.ndarray, y: np.ndarray, radius: float) -> np.ndarray:
    """#{j : sum_k (x_ik - y_jk)^2 < radius} for every row of x."""
    out = np.empty(len(x), dtype=np.int64)
    for start, stop, block in _squared_blocks(x, y):
        out[start:stop] = (block < radius).sum(axis=1)
    return out


def squared_knn_share(x: np.ndarray, y: np.ndarray, is_first: np.ndarray, k: int) -> np.ndarray:
    """Share of ``is_first`` rows of y among the k nearest rows of y (ties split)."""
    out = np.empty(len(x))
    first = np.asarray(is_first, dtype=bool)
    for start, stop, block in _squared_blocks(x, y):
        kth = np.partition(block, k - 1, axis=1)[:, k - 1][:, None]
        less = block < kth
        tied = block == kth
        value = (less & first).sum(axis=1).astype(float)
        n_tied = tied.sum(axis=1)
        value += (k - less.sum(axis=1)) * (tied & first).sum(axis=1) / n_tied
        out[start:stop] = value / k
    return out


__all__ = ["gower_ball_counts", "gower_knn_share", "squared_ball_counts", "squared_knn_share",
           "squared_min"]
