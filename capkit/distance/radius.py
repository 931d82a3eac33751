"""Records within a radius, and the make-up of the k nearest records, under the Gower
distance: compiled, exact searches beyond the single nearest record (membership inference's MC
ball counts and DPI's share of synthetic records among the k nearest; the squared Euclidean
counterparts live in :mod:`capkit.distance.squared`).

* **Gower** (unnormalised, as :func:`capkit.distance.nearest.nearest` computes it): the
  categorical level ``sum_k w_k [a_k != b_k]`` plus the numeric terms ``|x_k - y_k|`` (values
  already scaled by weight / range; a missing value makes its term 0), added in that order, so
  a pair's distance is the same float as in the nearest-record search. Records are grouped by
  categorical combination: a target combination whose level alone is beyond the radius (or
  beyond the current k-th distance) is skipped with all its records, since numeric terms only
  add. Within a combination the targets are sorted by their sum of numeric values, a lower
  bound of the numeric part (``sum_k |x_k - y_k| >= |sum_k x_k - sum_k y_k|``): the k nearest
  are first sought outwards from the query's own sum, so the k-th distance falls after a few
  targets, and only the targets whose sum is within reach of it (or of the radius) are
  compared. Without a categorical column (one combination) and with enough targets, the k
  nearest come from a k-d tree's balls instead
  (:func:`capkit.distance.squared.knn_share_in_balls`). The single nearest record
  (DCR) is not searched here but by :func:`capkit.distance.nearest.nearest`.

  Cost: the combinations' levels, (query combinations x target combinations); then per query
  the targets of the combinations within reach (level and sum): about a log plus a window per
  query on data whose records have near neighbours, every pair only when all sums fall within
  reach of one another.

The kernels run on one thread, except the ball counts of a large combination, which numba's
threads share out query by query (each query's count is one thread's sum, so the counts do not
depend on the number of threads). Ties at the k-th distance are split, not broken: the share of
synthetic records among the k nearest counts each record tied at the k-th distance with weight
(slots left) / (tied records), so the result does not depend on the order of the records.
"""

from __future__ import annotations

import numba
import numpy as np

from capkit.counts.encode import combine_codes
from capkit.counts.rows import unique_rows
from capkit.counts.runs import concatenated_ranges
from capkit.distance import squared
from capkit.distance._kernel import count_differing, keep_smallest

#: Record pairs of one combination from which the ball counts go to several threads.
PARALLEL_PAIRS = 1 << 20
#: Without a categorical column, the targets a query's sum of values leaves within reach of
#: the radius (on average) past which the ball counts go to a k-d tree: the compiled pass
#: costs a few nanoseconds a pair, a tree's ball some microseconds a query (Adult's numeric
#: columns at 30,000 records: 0.06 CPU-s compiled, 0.5 by the tree, at ~500 a query).
TREE_SLAB = 4096


@numba.njit(cache=True, nogil=True)
def _levels(qparts, tcolumns, w_cat, equal, qc):
    """Categorical level of query combination ``qc`` against every target combination
    (``tcolumns``: the target combinations' codes, one row per column), counted column by
    column: a contiguous loop over the combinations, the same sum per combination (the
    differing columns' weights added in column order from 0.0; adding 0.0 for an equal column
    changes nothing)."""
    pc, n_t = tcolumns.shape
    out = np.zeros(n_t)
    if equal:
        count = np.empty(n_t, dtype=np.int64)
        count_differing(qparts[qc], tcolumns, count)
        if pc:
            for h in range(n_t):
                out[h] = w_cat[0] * count[h]
        return out
    for k in range(pc):
        code = qparts[qc, k]
        column = tcolumns[k]
        weight = w_cat[k]
        for h in range(n_t):
            out[h] += weight if code != column[h] else 0.0
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
def _inside(level, qnum, tnum, i, j, radius, total_weight, limit):
    """Whether D(i, j) / total_weight < radius, D summed as :func:`_pair` does; the sum is
    abandoned once it exceeds ``limit`` (terms are >= 0 and adding one never lowers a float
    sum, so the pair is outside: ``limit`` is above every distance that is inside)."""
    d = level
    for k in range(qnum.shape[1]):
        term = abs(qnum[i, k] - tnum[j, k])
        if term != term:  # missing value: 0, as in the nearest-record search
            term = 0.0
        d += term
        if d > limit:
            return False
    return d / total_weight < radius


@numba.njit(cache=True, nogil=True)
def _ball_query(i, level, lo, hi, t_order, qnum, tnum, radius, total_weight, prune, sum_q,
                sum_t, reach, limit):
    first, last = lo, hi
    if prune:  # only records whose sum of values is within reach can be inside
        first = lo + np.searchsorted(sum_t[lo:hi], sum_q[i] - reach)
        last = lo + np.searchsorted(sum_t[lo:hi], sum_q[i] + reach, side="right")
    count = 0
    for b in range(first, last):
        if _inside(level, qnum, tnum, i, t_order[b], radius, total_weight, limit):
            count += 1
    return count


@numba.njit(cache=True, parallel=True)
def _ball_entries(records, task, task_level, task_lo, task_hi, t_order, qnum, tnum, radius,
                  total_weight, prune, sum_q, sum_t, slack, out):
    """:func:`_ball_query` for the large blocks :func:`_ball_kernel` set aside, one thread per
    (query, block) entry, each count written to its own ``out[e]`` (the same whatever the
    number of threads). Called from Python: a cached function that calls a parallel one can
    crash when numba loads it from its cache in a new process."""
    for e in numba.prange(len(records)):
        t = task[e]
        level = task_level[t]
        out[e] = _ball_query(records[e], level, task_lo[t], task_hi[t], t_order, qnum, tnum,
                             radius, total_weight, prune, sum_q, sum_t,
                             radius * total_weight - level + slack,
                             radius * total_weight + slack)


@numba.njit(cache=True, nogil=True)
def _ball_combination(a0, a1, q_combo_records, level, lo, hi, t_order, qnum, tnum, radius,
                      total_weight, counts, prune, sum_q, sum_t, slack, parallel_pairs, tasks,
                      n_tasks):
    """Count the targets ``t_order[lo:hi]`` (one combination, at ``level``) inside the ball of
    each query ``q_combo_records[a0:a1]``; a block of many pairs is set aside in ``tasks`` for
    the threads instead (returned: the tasks and their number, the array grown when full)."""
    if (a1 - a0) * (hi - lo) >= parallel_pairs:
        if n_tasks == len(tasks):
            grown = np.empty((2 * len(tasks) + 1, 5))
            grown[:n_tasks] = tasks[:n_tasks]
            tasks = grown
        tasks[n_tasks, 0], tasks[n_tasks, 1], tasks[n_tasks, 2] = a0, a1, level
        tasks[n_tasks, 3], tasks[n_tasks, 4] = lo, hi
        return tasks, n_tasks + 1
    reach = radius * total_weight - level + slack
    limit = radius * total_weight + slack
    for a in range(a0, a1):
        i = q_combo_records[a]
        counts[i] += _ball_query(i, level, lo, hi, t_order, qnum, tnum, radius, total_weight,
                                 prune, sum_q, sum_t, reach, limit)
    return tasks, n_tasks


@numba.njit(cache=True, nogil=True)
def _ball_kernel(q_combo_records, q_combo_start, qparts, tparts, t_start, t_count, t_order,
                 qnum, tnum, w_cat, equal, radius, total_weight, counts, prune, sum_q, sum_t,
                 slack, own_only, same, parallel_pairs):
    """Ball counts of every query combination against every target combination within the
    radius; returns the large blocks (a0, a1, level, lo, hi) left for :func:`_ball_entries`."""
    n_qc = len(q_combo_start) - 1
    tcolumns = np.ascontiguousarray(tparts.T)
    tasks = np.empty((16, 5))
    n_tasks = 0
    for qc in range(n_qc):
        a0, a1 = q_combo_start[qc], q_combo_start[qc + 1]
        if own_only:  # one differing column is already out: the same combination only
            h = same[qc]
            if h >= 0 and 0.0 / total_weight < radius:
                tasks, n_tasks = _ball_combination(
                    a0, a1, q_combo_records, 0.0, t_start[h], t_start[h] + t_count[h], t_order,
                    qnum, tnum, radius, total_weight, counts, prune, sum_q, sum_t, slack,
                    parallel_pairs, tasks, n_tasks)
            continue
        levels = _levels(qparts, tcolumns, w_cat, equal, qc)
        for h in range(len(levels)):
            if levels[h] / total_weight >= radius:
                continue
            tasks, n_tasks = _ball_combination(
                a0, a1, q_combo_records, levels[h], t_start[h], t_start[h] + t_count[h],
                t_order, qnum, tnum, radius, total_weight, counts, prune, sum_q, sum_t, slack,
                parallel_pairs, tasks, n_tasks)
    return tasks[:n_tasks]


@numba.njit(cache=True, nogil=True)
def _reach(level, lo, hi, x, prune, sum_t, bound, margin):
    """The targets ``[first, last)`` of one combination (``lo:hi``, sorted by ``sum_t`` when
    ``prune``) that can be at ``bound`` or closer: the others' sums of numeric values alone
    put them farther (sum_k |x_k - y_k| >= |sum_k x_k - sum_k y_k|; ``margin`` covers the
    rounding of the sums)."""
    if not prune:
        return lo, hi
    reach = bound - level + margin
    first = lo + np.searchsorted(sum_t[lo:hi], x - reach)
    last = lo + np.searchsorted(sum_t[lo:hi], x + reach, side="right")
    return first, last


@numba.njit(cache=True, nogil=True)
def _closest(level, lo, hi, i, t_order, qnum, tnum, prune, sum_q, sum_t, margin, best):
    """Keep in ``best`` the k smallest distances of query i to the targets ``lo:hi`` of one
    combination, visited outwards from the query's sum of numeric values (when ``prune``:
    the targets sorted by ``sum_t``), each direction stopped where the sums alone put a target
    beyond the current k-th distance: such a target is farther than it (``_reach``), and the
    k-th distance only falls, so the k smallest values are those of a visit of every target.
    Outwards, the k-th distance falls after a few targets; a visit in target order would
    compare the first combination's every target with an infinite bound."""
    if not prune:
        for b in range(lo, hi):
            keep_smallest(best, _pair(level, qnum, tnum, i, t_order[b]))
        return
    x = sum_q[i]
    mid = lo + np.searchsorted(sum_t[lo:hi], x)
    for b in range(mid, hi):
        if sum_t[b] > x + (best[len(best) - 1] - level + margin):
            break
        keep_smallest(best, _pair(level, qnum, tnum, i, t_order[b]))
    for b in range(mid - 1, lo - 1, -1):
        if sum_t[b] < x - (best[len(best) - 1] - level + margin):
            break
        keep_smallest(best, _pair(level, qnum, tnum, i, t_order[b]))


@numba.njit(cache=True, parallel=True)
def _knn_kernel(q_combo_records, q_combo_start, qparts, tparts, t_start, t_count, t_order,
                qnum, tnum, w_cat, equal, is_first, k, share, prune, sum_q, sum_t, margin):
    n_qc = len(q_combo_start) - 1
    tcolumns = np.ascontiguousarray(tparts.T)
    for qc in numba.prange(n_qc):  # one query combination per thread: shares do not depend
        levels = _levels(qparts, tcolumns, w_cat, equal, qc)  # on the number of threads
        order = _level_order(levels, w_cat, equal, qparts.shape[1])
        best = np.empty(k)
        for a in range(q_combo_start[qc], q_combo_start[qc + 1]):
            i = q_combo_records[a]
            best[:] = np.inf
            # pass 1: the k-th smallest distance (the k smallest do not depend on the order
            # in which the targets are met, so the reach may shrink as they are found)
            for o in range(len(order)):
                h = order[o]
                if levels[h] > best[k - 1]:
                    break
                _closest(levels[h], t_start[h], t_start[h] + t_count[h], i, t_order, qnum,
                         tnum, prune, sum_q, sum_t, margin, best)
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
                lo, hi = t_start[h], t_start[h] + t_count[h]
                first, last = _reach(levels[h], lo, hi, sum_q[i], prune, sum_t, kth, margin)
                for b in range(first, last):
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


def _same_combination(qparts: np.ndarray, tparts: np.ndarray) -> np.ndarray:
    """For every query combination, the target combination with the same codes, or -1."""
    both = np.concatenate([tparts, qparts])
    first, ids = unique_rows(both)
    where = np.full(len(first), -1, dtype=np.int64)
    where[ids[:len(tparts)]] = np.arange(len(tparts))
    return where[ids[len(tparts):]]


def _by_sums(cat_q, num_q, cat_t, num_t):
    """:func:`_grouping`, with the targets of each combination sorted by the sum of their
    numeric values when that sum bounds the distance (sum_k |x_k - y_k| >=
    |sum_k x_k - sum_k y_k|; not with a missing value, whose term is 0): the grouping, the
    numeric values, whether to prune, the queries' sums, the targets' sums in the grouping's
    order, and a margin for the rounding of the sums."""
    grouping = list(_grouping(cat_q, cat_t))
    num_q = np.ascontiguousarray(num_q, dtype=np.float64)
    num_t = np.ascontiguousarray(num_t, dtype=np.float64)
    prune = num_q.shape[1] > 0 and not (np.isnan(num_q).any() or np.isnan(num_t).any())
    sum_q, sum_t = num_q.sum(axis=1), num_t.sum(axis=1)
    if prune:  # targets of a combination by increasing sum (a stable order among equal sums)
        group = np.repeat(np.arange(len(grouping[5])), grouping[5])
        grouping[6] = grouping[6][np.lexsort((sum_t[grouping[6]], group))]
    largest = max(float(np.abs(num_q).sum(axis=1).max(initial=0.0)),
                  float(np.abs(num_t).sum(axis=1).max(initial=0.0)))
    return (tuple(grouping), num_q, num_t, prune, sum_q, sum_t[grouping[6]],
            1e-9 * (largest + 1.0))


def _weights(w_cat: np.ndarray) -> tuple[np.ndarray, bool]:
    w = np.asarray(w_cat, dtype=np.float64)
    if len(w) == 0:
        return np.ones(1), True
    return w, bool(np.all(w == w[0]))


def _wide(num_q: np.ndarray, num_t: np.ndarray, reach: float) -> bool:
    """Whether the targets within ``reach`` of a query's sum of values number more than
    :data:`TREE_SLAB` a query: then a k-d tree's ball holds far fewer (a choice of path only;
    both are exact)."""
    sums = np.sort(np.asarray(num_t, dtype=np.float64).sum(axis=1))
    centre = np.asarray(num_q, dtype=np.float64).sum(axis=1)
    width = (np.searchsorted(sums, centre + reach, side="right")
             - np.searchsorted(sums, centre - reach, side="left"))
    return int(width.sum()) > TREE_SLAB * len(centre)


def gower_ball_counts(cat_q, num_q, cat_t, num_t, w_cat, total_weight: float,
                      radius: float, parallel_pairs: int = PARALLEL_PAIRS) -> np.ndarray:
    """Number of target records t with D(q, t) / total_weight < radius, for every query q
    (the queries of a combination with ``parallel_pairs`` record pairs or more are shared out
    to numba's threads)."""
    if cat_q.shape[1] == 0 and squared.tree_usable(num_q, num_t, 1) and _wide(
            num_q, num_t, float(radius) * float(total_weight)):
        # numeric columns only: every target at level 0, the ball searched in a k-d tree (L1;
        # the same floats as _inside: 0.0 plus the terms in column order, then the division)
        return squared.ball_counts_in_balls(np.asarray(num_q, dtype=np.float64),
                                            np.asarray(num_t, dtype=np.float64), float(radius),
                                            "l1", float(total_weight))
    grouping, num_q, num_t, prune, sum_q, sum_t, margin = _by_sums(cat_q, num_q, cat_t, num_t)
    w, equal = _weights(w_cat)
    # the slack covers the rounding of the sums and of the division by the total weight many
    # times over; every record inside it is still checked with the exact distance, so the
    # counts are those of every pair
    slack = margin + 1e-9 * (float(np.sum(w)) + abs(float(radius)) * float(total_weight))
    # a level is a sum of the differing columns' weights (>= any one of them): when the
    # smallest weight alone is out of the ball, only a query's own combination can be inside
    own_only = bool(cat_q.shape[1]) and float(np.min(w)) / float(total_weight) >= float(radius)
    same = (_same_combination(grouping[2], grouping[3]) if own_only
            else np.empty(0, dtype=np.int64))
    counts = np.zeros(len(cat_q), dtype=np.int64)
    tasks = _ball_kernel(*grouping, num_q, num_t, w, equal, float(radius), float(total_weight),
                         counts, prune, sum_q, sum_t, slack, own_only, same,
                         int(parallel_pairs))
    if len(tasks):  # the large blocks on the threads, an entry per (query, block)
        a0, a1 = tasks[:, 0].astype(np.int64), tasks[:, 1].astype(np.int64)
        task = np.repeat(np.arange(len(tasks)), a1 - a0)
        records = grouping[0][concatenated_ranges(a1 - a0, a0)]
        out = np.zeros(len(task), dtype=np.int64)
        _ball_entries(records, task, tasks[:, 2].copy(), tasks[:, 3].astype(np.int64),
                      tasks[:, 4].astype(np.int64), grouping[6], num_q, num_t,
                      float(radius), float(total_weight), prune, sum_q, sum_t, slack, out)
        np.add.at(counts, records, out)
    return counts


def gower_knn_share(cat_q, num_q, cat_t, num_t, w_cat, is_first: np.ndarray,
                    k: int) -> np.ndarray:
    """Share of ``is_first`` targets among the k nearest targets of every query (ties split)."""
    if cat_q.shape[1] == 0 and squared.tree_usable(num_q, num_t, k):
        # numeric columns only: every target at level 0, the k nearest in a k-d tree's balls
        # (the same floats as _pair: 0.0 plus the terms in column order)
        return squared.knn_share_in_balls(np.asarray(num_q, dtype=np.float64),
                                           np.asarray(num_t, dtype=np.float64), is_first, k,
                                           "l1")
    grouping, num_q, num_t, prune, sum_q, sum_t, margin = _by_sums(cat_q, num_q, cat_t, num_t)
    w, equal = _weights(w_cat)
    share = np.zeros(len(cat_q))
    _knn_kernel(*grouping, num_q, num_t, w, equal, np.asarray(is_first, dtype=np.bool_), int(k),
                share, prune, sum_q, sum_t, margin + 1e-9 * float(np.sum(w)))
    return share


__all__ = ["gower_ball_counts", "gower_knn_share"]
