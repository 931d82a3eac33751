"""Compiled kernel (numba): the record orders :mod:`capkit.synth._rpart_kernel` keeps for a node.

* :func:`rpart_order`: rpart's median-of-three quicksort (``mysort.c``), which fixes the order
  of tied values of a continuous predictor at the root; :func:`root_orders` applies it to every
  continuous predictor (it depends on the predictors only, so refits to other responses reuse
  it);
* :func:`partition`: rpart's ``nodesplit``, a stable partition of a node's records into the
  left child's then the right child's, each in its order;
* :func:`node_sums`: the per-level sums of the Gini search (``gini.c``) for every factor at
  once, accumulated in the data order rpart uses for factors.

Written from a reading of rpart 4.1's C sources (Therneau & Atkinson), no code taken from them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from capkit.synth._rpart_split import _gini_total


@njit(cache=True)
def _insertion(x, idx, start, stop):
    for i in range(start + 1, stop + 1):
        xv = x[i]
        iv = idx[i]
        j = i - 1
        while j >= start and x[j] > xv:
            x[j + 1] = x[j]
            idx[j + 1] = idx[j]
            j -= 1
        x[j + 1] = xv
        idx[j + 1] = iv


@njit(cache=True)
def rpart_order(values):
    """Permutation that sorts ``values`` the way rpart's quicksort does (ties included)."""
    n = values.shape[0]
    x = values.copy()
    idx = np.arange(n)
    # rpart recurs on the shorter part and loops on the longer; the parts are disjoint, so
    # keeping the longer one on a stack and going on with the shorter gives the same order
    stack = np.empty(256, dtype=np.int64)
    stack[0] = 0
    stack[1] = n - 1
    top = 2
    while top > 0:
        top -= 2
        start = stack[top]
        stop = stack[top + 1]
        while start < stop:
            if stop - start < 11:
                _insertion(x, idx, start, stop)
                break
            i = start
            j = stop
            k = (start + stop) // 2
            med = x[k]
            if x[i] >= x[k]:
                if x[j] > x[k]:
                    med = x[j] if x[i] > x[j] else x[i]
            elif x[j] < x[k]:
                med = x[i] if x[i] > x[j] else x[j]
            while i < j:
                while x[i] < med:
                    i += 1
                while x[j] > med:
                    j -= 1
                if i < j:
                    if x[i] > x[j]:
                        t = x[i]
                        x[i] = x[j]
                        x[j] = t
                        ti = idx[i]
                        idx[i] = idx[j]
                        idx[j] = ti
                    i += 1
                    j -= 1
            while x[i] >= med and i > start:
                i -= 1
            while x[j] <= med and j < stop:
                j += 1
            if i - start < stop - j:
                if stop - j > 0:
                    stack[top] = j
                    stack[top + 1] = stop
                    top += 2
                stop = i
                if i - start <= 0:
                    break
            else:
                if i - start > 0:
                    stack[top] = start
                    stack[top + 1] = i
                    top += 2
                start = j
                if stop - j <= 0:
                    break
    return idx


@njit(cache=True)
def root_orders(X, ncat):
    """Each continuous predictor's record order at the root (:func:`rpart_order`); the rows of
    categorical predictors hold the data order. It depends on ``X`` only, so fits of several
    responses on the same predictors (a permutation null) compute it once."""
    p, n = X.shape
    sorts = np.empty((p, n), dtype=np.int64)
    for i in range(p):
        if ncat[i] == 0:
            sorts[i] = rpart_order(X[i])
        else:
            for j in range(n):
                sorts[i, j] = j
    return sorts


@njit(cache=True)
def node_sums(n1, n2, cidx, cy, xc, aprior, C, left, right0, s_awt, s_cnt, s_ccnt):
    """For every factor at once, the sums :func:`gini_cat` accumulates over the node's
    records in data order (per level: priors, records, class counts), and the node's
    :func:`_gini_total` (its ``right`` counts in ``right0``)."""
    nf, maxcat = s_awt.shape
    for f in range(nf):
        for c in range(maxcat):
            s_awt[f, c] = 0.0
            s_cnt[f, c] = 0
            for j in range(C):
                s_ccnt[f, j, c] = 0.0
    for jj in range(n1, n2):
        r = cidx[jj]
        j = int(cy[jj])
        a = aprior[j]
        for f in range(nf):
            c = xc[r, f]
            s_awt[f, c] += a
            s_cnt[f, c] += 1
            s_ccnt[f, j, c] += 1.0
    return _gini_total(n2 - n1, cy[n1:n2], C, aprior, left, right0)


@njit(cache=True)
def partition(n1, n2, goes, idx, xs, ys, tmp, tmpx, tmpy):
    """Stable partition of records n1:n2 (index, value, response) into those going left
    (``goes`` 1) then right, each in its order (rpart's nodesplit)."""
    a = n1
    b = 0
    for jj in range(n1, n2):
        r = idx[jj]
        if goes[r] == 1:
            idx[a] = r
            xs[a] = xs[jj]
            ys[a] = ys[jj]
            a += 1
        else:
            tmp[b] = r
            tmpx[b] = xs[jj]
            tmpy[b] = ys[jj]
            b += 1
    for jj in range(b):
        idx[a + jj] = tmp[jj]
        xs[a + jj] = tmpx[jj]
        ys[a + jj] = tmpy[jj]


__all__ = ["node_sums", "partition", "root_orders", "rpart_order"]
