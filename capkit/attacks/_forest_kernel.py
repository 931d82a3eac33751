"""A compiled grower (numba) of scikit-learn's classification trees with the Gini criterion, the
best splitter and integer sample weights (a random forest's bootstrap counts), node for node
scikit-learn 1.9's ``DepthFirstTreeBuilder`` with ``BestSplitter`` and ``Gini``
(``sklearn/tree/_tree.pyx``, ``_splitter.pyx``, ``_partitioner.pyx``, ``_criterion.pyx``).

What is the same, step by step:

* the samples are the rows of nonzero weight in row order; a node is a leaf when it is deeper
  than ``max_depth``, has fewer samples than ``min_samples_split`` or ``2 min_samples_leaf``,
  less weight than ``2 min_weight_leaf``, or an impurity at most the machine epsilon; nodes are
  numbered as scikit-learn's stack pops them (the left child first);
* the features a node tries are drawn by the same Fisher-Yates walk over the same ``features``
  and ``constant_features`` arrays, with the splitter's own generator (``our_rand_r``, a
  xorshift seeded by ``RandomState.randint(0, 2**31 - 1)``), constant features (largest value at
  most the smallest plus ``FEATURE_THRESHOLD``) skipped and remembered for the descendants;
* the split positions are those between consecutive values more than ``FEATURE_THRESHOLD``
  apart, scanned from the smallest value up; each is scored by ``proxy_impurity_improvement``
  (``-w_right gini_right - w_left gini_left``, every product and sum rounded as scikit-learn's
  C code does it) and the first largest wins; its threshold is ``v_prev / 2 + v / 2``;
* the children's impurities, the improvement and the node values (class weights over the
  node's weight) are computed by scikit-learn's formulas.

What differs is only how a node's values are ordered: scikit-learn sorts the node's feature
values (introsort) for every feature it tries; here each feature's values are ranked once per
forest and a node's samples are counted by rank (or their ranks sorted, when the node holds few
of the feature's values). The split search reads only per-value counts and class weights, and
with integer weights every sum of weights is an integer below 2**53, so it is exact in any
order: the same sums, the same impurities, the same trees.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["grow"]

FEATURE_THRESHOLD = 1e-7  # a float32 constant in scikit-learn's code (rounded so below)
EPSILON = float(np.finfo(np.float64).eps)
_LEAF, _UNDEFINED = -1, -2


@njit(cache=True, nogil=True)
def _rand_int(state: np.ndarray, low: int, high: int) -> int:  # pragma: no cover - compiled
    """scikit-learn's ``rand_int``: ``low + our_rand_r(state) % (high - low)``."""
    s = state[0]
    if s == 0:
        s = 1
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return low + (s % 2147483648) % (high - low)


@njit(cache=True, nogil=True)
def _gini(counts: np.ndarray, weight: float) -> float:  # pragma: no cover - compiled
    """``Gini.node_impurity`` of class weights ``counts`` summing to ``weight``."""
    sq = 0.0
    for c in range(len(counts)):
        sq += counts[c] * counts[c]
    gini = 0.0
    gini += 1.0 - sq / (weight * weight)
    return gini / 1.0


@njit(cache=True, nogil=True)
def _children(left: np.ndarray, total: np.ndarray, wl: float, wr: float
              ) -> tuple[float, float]:  # pragma: no cover - compiled
    """``Gini.children_impurity`` (the right counts are the total minus the left)."""
    sq_l = 0.0
    sq_r = 0.0
    for c in range(len(total)):
        count = left[c]
        sq_l += count * count
        count = total[c] - left[c]
        sq_r += count * count
    gini_l = 0.0
    gini_r = 0.0
    gini_l += 1.0 - sq_l / (wl * wl)
    gini_r += 1.0 - sq_r / (wr * wr)
    return gini_l / 1.0, gini_r / 1.0


@njit(cache=True, nogil=True)
def _heapsort(a: np.ndarray) -> None:  # pragma: no cover - compiled
    """Sort ``a`` in place (a heap sort: little code to compile; the keys are distinct)."""
    n = len(a)
    for start in range(n // 2 - 1, -1, -1):
        _sift(a, start, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift(a, 0, end)


@njit(cache=True, nogil=True)
def _sift(a: np.ndarray, root: int, n: int) -> None:  # pragma: no cover - compiled
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and a[child + 1] > a[child]:
            child += 1
        if a[root] >= a[child]:
            return
        a[root], a[child] = a[child], a[root]
        root = child


@njit(cache=True, nogil=True)
def _groups(f: int, start: int, end: int, rows: np.ndarray, n_values: int, n_classes: int,
            keys: np.ndarray, hist_n: np.ndarray, hist_w: np.ndarray, grank: np.ndarray,
            gcount: np.ndarray, gweight: np.ndarray) -> int:  # pragma: no cover - compiled
    """The node's distinct values of feature ``f`` in increasing order (``grank``: their ranks
    among the feature's ``n_values`` values) with their number of samples and class weights;
    returns how many. Counted by rank in ``hist_n`` / ``hist_w`` (left all zero again) when the
    feature has few values for the node's samples, else from the sorted ranks. ``rows``: the
    samples' ranks, class and weight (columns p and p + 1)."""
    m = end - start
    cy = rows.shape[1] - 2
    if n_values <= 2 * m + 16:
        minr, maxr = n_values, -1
        for j in range(start, end):
            r = rows[j, f]
            hist_n[r] += 1
            hist_w[r * n_classes + rows[j, cy]] += rows[j, cy + 1]
            if r < minr:
                minr = r
            if r > maxr:
                maxr = r
        g = 0
        for r in range(minr, maxr + 1):
            if hist_n[r] > 0:
                grank[g] = r
                gcount[g] = hist_n[r]
                hist_n[r] = 0
                for c in range(n_classes):
                    gweight[g * n_classes + c] = hist_w[r * n_classes + c]
                    hist_w[r * n_classes + c] = 0.0
                g += 1
        return g
    for j in range(m):
        keys[j] = (np.int64(rows[start + j, f]) << 32) | (start + j)
    part = keys[:m]
    _heapsort(part)
    g = -1
    last = -1
    for j in range(m):
        r = part[j] >> 32
        k = part[j] & 0xFFFFFFFF
        if r != last:
            g += 1
            last = r
            grank[g] = r
            gcount[g] = 0
            for c in range(n_classes):
                gweight[g * n_classes + c] = 0.0
        gcount[g] += 1
        gweight[g * n_classes + rows[k, cy]] += rows[k, cy + 1]
    return g + 1


@njit(cache=True, nogil=True)
def grow(x: np.ndarray, ranks: np.ndarray, values: np.ndarray, offsets: np.ndarray,
         y: np.ndarray, w: np.ndarray, state: np.ndarray, n_classes: int, max_features: int,
         min_samples_split: int, min_samples_leaf: int, min_weight_leaf: float, max_depth: int,
         min_impurity_decrease: float):  # pragma: no cover - compiled
    """One tree: ``x`` (n, p) float32, ``ranks`` (n, p) each value's rank among its feature's
    distinct values ``values[offsets[f]:offsets[f + 1]]`` (float32, increasing), ``y`` class
    codes, ``w`` integer weights, ``state`` the splitter's generator (one int64). Returns the
    nodes as the bytes of scikit-learn's ``NODE_DTYPE`` records (nodes, 8) int64 (children,
    feature, threshold, impurity, n_node_samples, weighted_n_node_samples,
    missing_go_to_left), the values (nodes, classes) and the depth of the deepest node."""
    n, p = x.shape
    C = n_classes
    near = np.float32(FEATURE_THRESHOLD)
    samples = np.empty(n, dtype=np.int64)
    m = 0
    total_w = 0.0
    for i in range(n):
        if w[i] != 0.0:
            samples[m] = i
            m += 1
        total_w += w[i]
    cap = 2 * m + 1
    left = np.empty(cap, dtype=np.int64)
    right = np.empty(cap, dtype=np.int64)
    feature = np.empty(cap, dtype=np.int64)
    threshold = np.empty(cap, dtype=np.float64)
    value = np.empty((cap, C), dtype=np.float64)
    impurity = np.empty(cap, dtype=np.float64)
    n_node = np.empty(cap, dtype=np.int64)
    w_node = np.empty(cap, dtype=np.float64)
    go_left = np.zeros(cap, dtype=np.uint8)
    rows = np.empty((m, p + 2), dtype=np.int32)  # the samples' ranks, class and weight,
    for j in range(m):                           # moved with them by each partition
        i = samples[j]
        rows[j, :p] = ranks[i]
        rows[j, p] = y[i]
        rows[j, p + 1] = np.int32(w[i])
    row = np.empty(p + 2, dtype=np.int32)
    features = np.arange(p)
    constants = np.empty(p, dtype=np.int64)
    keys = np.empty(max(m, 1), dtype=np.int64)
    most = 1
    for f in range(p):
        most = max(most, offsets[f + 1] - offsets[f])
    hist_n = np.zeros(most, dtype=np.int64)
    hist_w = np.zeros(most * C, dtype=np.float64)
    grank = np.empty(most, dtype=np.int64)
    gcount = np.empty(most, dtype=np.int64)
    gweight = np.empty(most * C, dtype=np.float64)
    acc = np.zeros(C)
    total = np.zeros(C)
    # the stack: start, end, depth, parent, is_left, n_constant_features; impurity, the
    # node's class weights (the last column: their sum)
    s_int = np.empty((cap, 6), dtype=np.int64)
    s_imp = np.empty(cap, dtype=np.float64)
    s_tot = np.zeros((cap, C + 1), dtype=np.float64)
    s_int[0, 0], s_int[0, 1], s_int[0, 2], s_int[0, 3], s_int[0, 4], s_int[0, 5] = (
        0, m, 0, _UNDEFINED, 0, 0)
    s_imp[0] = np.inf
    for j in range(m):  # Criterion.init adds the weights in sample order
        i = samples[j]
        s_tot[0, y[i]] += w[i]
        s_tot[0, C] += w[i]
    top = 1
    count = 0
    deepest = 0
    first = True
    while top > 0:
        top -= 1
        start, end, depth = s_int[top, 0], s_int[top, 1], s_int[top, 2]
        parent, is_left, n_known = s_int[top, 3], s_int[top, 4], s_int[top, 5]
        imp = s_imp[top]
        for c in range(C):
            total[c] = s_tot[top, c]
        wn = s_tot[top, C]
        n_samples = end - start
        deepest = max(deepest, depth)
        is_leaf = (depth >= max_depth or n_samples < min_samples_split
                   or n_samples < 2 * min_samples_leaf or wn < 2 * min_weight_leaf)
        if first:
            imp = _gini(total, wn)
            first = False
        is_leaf = is_leaf or imp <= EPSILON
        best_pos, best_feature, best_threshold, best_go_left = end, -1, 0.0, False
        best_rank = -1
        imp_l, imp_r, n_total, wl_best = 0.0, 0.0, n_known, 0.0
        if not is_leaf:  # node_split_best
            best_proxy = -np.inf
            f_i = p
            n_visited, n_found, n_drawn = 0, 0, 0
            while f_i > n_total and (n_visited < max_features
                                     or n_visited <= n_found + n_drawn):
                n_visited += 1
                f_j = _rand_int(state, n_drawn, f_i - n_found)
                if f_j < n_known:
                    features[n_drawn], features[f_j] = features[f_j], features[n_drawn]
                    n_drawn += 1
                    continue
                f_j += n_found
                f = features[f_j]
                off = offsets[f]
                groups = _groups(f, start, end, rows, offsets[f + 1] - off, C, keys, hist_n,
                                 hist_w, grank, gcount, gweight)
                low = values[off + grank[0]]
                if values[off + grank[groups - 1]] <= np.float32(low + near):  # float32 sum
                    features[f_j], features[n_total] = features[n_total], features[f_j]
                    n_found += 1
                    n_total += 1
                    continue
                f_i -= 1
                features[f_i], features[f_j] = features[f_j], features[f_i]
                for c in range(C):
                    acc[c] = 0.0
                n_l = 0
                wl = 0.0
                for g in range(groups):
                    if g > 0:
                        v_prev = values[off + grank[g - 1]]
                        v = values[off + grank[g]]
                        n_r = n_samples - n_l
                        if (v > np.float32(v_prev + near) and n_l >= min_samples_leaf
                                and n_r >= min_samples_leaf):
                            wr = wn - wl
                            if not (wl < min_weight_leaf or wr < min_weight_leaf):
                                il, ir = _children(acc, total, wl, wr)
                                proxy = -wr * ir - wl * il
                                if proxy > best_proxy:
                                    best_proxy = proxy
                                    best_pos, best_feature = start + n_l, f
                                    best_threshold = np.float64(v_prev) / 2.0 + np.float64(v) / 2.0
                                    best_rank = grank[g - 1]
                                    best_go_left = n_l > n_r
                    n_l += gcount[g]
                    for c in range(C):
                        wg = gweight[g * C + c]
                        acc[c] += wg
                        wl += wg
            improvement = 0.0
            if best_pos < end:  # partition_samples_final, the left child's class weights
                for c in range(C):
                    acc[c] = 0.0
                wl_best = 0.0
                a, b = start, end  # x <= threshold: the rank at most the value below it
                while a < b:
                    if rows[a, best_feature] <= best_rank:
                        acc[rows[a, p]] += rows[a, p + 1]
                        wl_best += rows[a, p + 1]
                        a += 1
                    else:
                        b -= 1
                        row[:] = rows[a]
                        rows[a] = rows[b]
                        rows[b] = row
                imp_l, imp_r = _children(acc, total, wl_best, wn - wl_best)
                wr = wn - wl_best
                improvement = ((wn / total_w) * (imp - (wr / wn * imp_r)
                                                 - (wl_best / wn * imp_l)))
            for k in range(n_known):
                features[k] = constants[k]
            for k in range(n_known, n_known + n_found):
                constants[k] = features[k]
            is_leaf = best_pos >= end or improvement + EPSILON < min_impurity_decrease
        node = count
        count += 1
        impurity[node], n_node[node], w_node[node] = imp, n_samples, wn
        if parent != _UNDEFINED:
            if is_left:
                left[parent] = node
            else:
                right[parent] = node
        if is_leaf:
            left[node], right[node], feature[node], threshold[node] = (
                _LEAF, _LEAF, _UNDEFINED, float(_UNDEFINED))
        else:
            feature[node], threshold[node] = best_feature, best_threshold
            go_left[node] = 1 if best_go_left else 0
        for c in range(C):
            value[node, c] = total[c] / wn
        if not is_leaf:  # the right child, then the left (popped first)
            for side in range(2):  # the right child (side 0), then the left, popped first
                s_int[top, 0] = best_pos if side == 0 else start
                s_int[top, 1] = end if side == 0 else best_pos
                s_int[top, 2], s_int[top, 3], s_int[top, 4] = depth + 1, node, side
                s_int[top, 5] = n_total
                s_imp[top] = imp_r if side == 0 else imp_l
                for c in range(C):  # integer weights: total - left is the right's sum
                    s_tot[top, c] = acc[c] if side else total[c] - acc[c]
                s_tot[top, C] = wl_best if side else wn - wl_best
                top += 1
    out = np.zeros((count, 8), dtype=np.int64)  # the rows of scikit-learn's NODE_DTYPE
    real = out.view(np.float64)
    for k in range(count):
        out[k, 0], out[k, 1], out[k, 2] = left[k], right[k], feature[k]
        real[k, 3], real[k, 4] = threshold[k], impurity[k]
        out[k, 5], real[k, 6], out[k, 7] = n_node[k], w_node[k], go_left[k]
    return out, value[:count].copy(), deepest
