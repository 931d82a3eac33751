"""Compiled kernel (numba): grow one tree exactly as rpart 4.1 does, and route records down it
(the split search of one predictor is :mod:`capkit.synth._rpart_split`).

Written from a reading of rpart's C sources (Therneau & Atkinson; ``rpart.c``, ``partition.c``,
``bsplit.c``, ``anova.c``, ``gini.c``, ``graycode.c``, ``insert_split.c``, ``nodesplit.c``,
``mysort.c``), with no code taken from them. The rules that decide which tree comes out, and so
are reproduced here operation for operation:

* every continuous predictor is sorted once at the root by rpart's median-of-three quicksort
  (which fixes the order of tied values); a node's records keep that order, and a categorical
  predictor's records keep the data order (rpart does not sort them);
* node risk: sum of squares about the node mean (anova), or the records outside the majority
  class, first class on a tie (class, priors = observed frequencies, 0/1 loss);
* a node is split when it has >= minsplit records, its number is <= 2^maxdepth - 1 and
  min(risk, the complexity bound handed down) > alpha = cp x root risk;
* split search variable by variable, the sums accumulated in the same order as rpart so that
  floating-point ties resolve the same way: anova (between-group sum of squares / node risk) and
  Gini with rpart's altered priors; boundaries between distinct values with >= minbucket records
  each side; categorical predictors ordered by mean y (anova) or by the class-1 rate (2 classes),
  or every subset in rpart's Gray-code order (3+ classes; a candidate whose division-free
  estimate is surely not below the best so far is not summed exactly, nor a block of the code
  whose candidates a lower bound rules out, see :mod:`capkit.synth._rpart_split`);
* a split counts when its improvement exceeds 1e-10 x the largest seen so far in the fit; the
  first variable with the largest improvement wins (a later one must be strictly better);
* children are grown left first, depth first, with rpart's complexity bounds, and a node whose
  final complexity is <= alpha is collapsed into a leaf (the cost-complexity bookkeeping of
  ``partition.c``); the reported complexity is then capped by the parent's (``fix_cp.c``).

numba caches this kernel by this file's date only: the split search it compiles in from
:mod:`capkit.synth._rpart_split`, :mod:`capkit.synth._rpart_blocks` and
:mod:`capkit.synth._rpart_order` is not checked, so a change there needs a change here (or the
``__pycache__`` entries removed) to take effect.

Records with missing predictor values never reach the trees on synthpop's default path (the
missing level "NAtemp" and the v.NA / v.0 columns stand in for them), so surrogate splits are
not needed to grow the tree and are not computed.

One documented limit: rpart searches all 2^(L-1) - 1 two-group splits of a factor with L levels
present in a node when y has 3+ classes, and never finishes for large L (e.g. Adult's income
with native.country's 42 levels in the default visit order). Above ``max_exhaustive`` present
levels the kernel orders the levels by the share of each of the 8 largest classes and searches
those orderings only; it counts the nodes where it did, and the tree may then differ from what
rpart would give had it finished.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from capkit.synth._rpart_gini2 import gini_cont2, node_sums2
from capkit.synth._rpart_order import node_sums, partition, root_orders, rpart_order
from capkit.synth._rpart_split import (
    HEURISTIC_CLASSES,
    LEFT,
    anova_cat,
    anova_cont,
    gini_cat_ordered_by_classes,
    gini_cat_search,
    gini_cont,
)

# ---------------------------------------------------------------- node evaluation ------------

@njit(cache=True)
def _eval(n1, n2, order0, y, classification, C, counts_out):
    """Node risk (rpart's eval function) over the records order0[n1:n2], in that order."""
    n = n2 - n1
    if classification:
        for j in range(C):
            counts_out[j] = 0.0
        for i in range(n1, n2):
            counts_out[int(y[order0[i]])] += 1.0
        best = 0.0
        for c in range(C):  # risk if class c were predicted; first class wins ties
            t = 0.0
            for j in range(C):
                if j != c:
                    t += counts_out[j]
            if c == 0 or t < best:
                best = t
        return best
    s = 0.0
    for i in range(n1, n2):
        s += y[order0[i]]
    mean = s / n
    ss = 0.0
    for i in range(n1, n2):
        t = y[order0[i]] - mean
        ss += t * t
    return ss


# ---------------------------------------------------------------- growth ---------------------

@njit(cache=True, nogil=True)
def grow_sorted(X, ncat, y, classification, C, aprior, minsplit, minbucket, cp, maxnode,
                max_exhaustive, roots):
    """Grow and collapse one tree; see the module docstring for the rules.

    Parameters
    ----------
    X : (p, n) float64, categorical predictors as level codes 1..ncat[i]
    ncat : (p,) int64, 0 for an ordered (continuous) predictor
    y : (n,) float64, the numeric response or class codes 0..C-1
    aprior : (C,) rpart's altered priors (classification)
    roots : the root orders of :func:`capkit.synth._rpart_order.root_orders` (not modified)

    Returns
    -------
    node arrays (numbers, children, split variable / point / directions, size, risk,
    complexity, improvement, class counts) and the final record order with each node's range.

    A node's records are kept in each continuous predictor's order with their values and
    responses beside them (so the split search reads them in sequence); every categorical
    predictor keeps the data order, one order shared by all of them (rpart's partition is
    stable, so their orders never differ). The GIL is released: independent fits may run on
    threads.
    """
    p, n = X.shape
    maxcat = 1
    for i in range(p):
        if ncat[i] > maxcat:
            maxcat = ncat[i]
    slot = np.full(p, -1, dtype=np.int64)
    nnum = 0
    for i in range(p):
        if ncat[i] == 0:
            slot[i] = nnum
            nnum += 1
    sidx = np.empty((nnum, n), dtype=np.int64)
    sx = np.empty((nnum, n))
    sy = np.empty((nnum, n))
    for i in range(p):
        q = slot[i]
        if q >= 0:
            for j in range(n):
                r = roots[i, j]
                sidx[q, j] = r
                sx[q, j] = X[i, r]
                sy[q, j] = y[r]
    cidx = np.arange(n)
    cy = y.copy()
    # categorical codes record by record (one cache line per record), and their node sums
    cslot = np.full(p, -1, dtype=np.int64)
    ncatv = 0
    for i in range(p):
        if ncat[i] > 0:
            cslot[i] = ncatv
            ncatv += 1
    xc = np.empty((n, ncatv), dtype=np.int32)
    for i in range(p):
        if cslot[i] >= 0:
            for j in range(n):
                xc[j, cslot[i]] = int(X[i, j]) - 1
    tmpx = np.empty(n)
    tmpy = np.empty(n)
    maxnodes = 2 * (n // max(minbucket, 1)) + 3
    num = np.zeros(maxnodes, dtype=np.int64)
    lson = np.full(maxnodes, -1, dtype=np.int64)
    rson = np.full(maxnodes, -1, dtype=np.int64)
    var = np.full(maxnodes, -1, dtype=np.int64)
    spoint = np.full(maxnodes, np.nan)
    csplit = np.zeros((maxnodes, maxcat), dtype=np.int8)
    nobs = np.zeros(maxnodes, dtype=np.int64)
    risk = np.zeros(maxnodes)
    cplx = np.zeros(maxnodes)
    improve = np.zeros(maxnodes)
    r1 = np.zeros(maxnodes, dtype=np.int64)
    r2 = np.zeros(maxnodes, dtype=np.int64)
    counts = np.zeros((maxnodes, max(C, 1)))
    # per-node recursion state
    tempcp = np.zeros(maxnodes)
    phase = np.zeros(maxnodes, dtype=np.int64)
    lrisk = np.zeros(maxnodes)
    lsplit = np.zeros(maxnodes, dtype=np.int64)
    sumrisk = np.zeros(maxnodes)
    nsplit = np.zeros(maxnodes, dtype=np.int64)
    # scratch
    xt = np.empty(n)
    tmp = np.empty(n, dtype=np.int64)
    goes = np.zeros(n, dtype=np.int8)
    c_counts = np.zeros(maxcat, dtype=np.int64)
    c_w = np.zeros(maxcat)
    c_sum = np.zeros(maxcat)
    c_val = np.zeros(maxcat)
    present = np.zeros(maxcat, dtype=np.bool_)
    tsplit = np.zeros(maxcat, dtype=np.int64)
    gray = np.zeros(maxcat, dtype=np.int64)
    cs = np.zeros(maxcat, dtype=np.int64)
    bestcs = np.zeros(maxcat, dtype=np.int64)
    Cc = max(C, 1)
    s_awt = np.zeros((ncatv, maxcat))
    s_cnt = np.zeros((ncatv, maxcat), dtype=np.int64)
    s_ccnt = np.zeros((ncatv, Cc, maxcat))
    packed = np.zeros((ncatv, maxcat), dtype=np.int64)
    right0 = np.zeros(Cc)
    left = np.zeros(Cc)
    right = np.zeros(Cc)
    ccnt = np.zeros((Cc, maxcat))
    sp = np.zeros(1)
    iscale = 0.0
    n_heuristic = 0

    # root
    num[0] = 1
    nobs[0] = n
    r1[0] = 0
    r2[0] = n
    risk[0] = _eval(0, n, cidx, y, classification, C, counts[0])
    cplx[0] = risk[0]
    alpha = cp * risk[0]
    nxt = 1
    stack = np.empty(64, dtype=np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        me = stack[top - 1]
        if phase[me] == 0:
            n1 = r1[me]
            n2 = r2[me]
            if num[me] > 1:
                nobs[me] = n2 - n1
                # class counts are whole numbers, the same in any order: read them in the
                # data order (near-sequential); anova's sums keep rpart's order
                order = sidx[slot[0]] if slot[0] >= 0 and not classification else cidx
                risk[me] = _eval(n1, n2, order, y, classification, C, counts[me])
                t = risk[me]
                if t > cplx[me]:
                    t = cplx[me]
            else:
                t = risk[me]
            tempcp[me] = t
            if nobs[me] < minsplit or t <= alpha or num[me] > maxnode:
                cplx[me] = alpha
                sumrisk[me] = risk[me]
                nsplit[me] = 0
                top -= 1
                continue
            # ---- bsplit: the best primary split over the variables, in column order
            found = False
            bimp = 0.0
            bvar = -1
            bsp = np.nan
            if classification and ncatv > 0 and C == 2:
                tot0, rwt0 = node_sums2(n1, n2, cidx, cy, xc, aprior, left, right0, s_awt,
                                        s_cnt, s_ccnt, packed)
            elif classification and ncatv > 0:  # every factor's sums in one pass, data order
                tot0, rwt0 = node_sums(n1, n2, cidx, cy, xc, aprior, C, left, right0, s_awt,
                                        s_cnt, s_ccnt)
            for i in range(p):
                nc = ncat[i]
                k = n2 - n1
                q = slot[i]
                if q >= 0:
                    if k == 0 or sx[q, n1] == sx[q, n2 - 1]:
                        continue
                elif not classification:
                    for jj in range(n1, n2):
                        xt[jj - n1] = X[i, cidx[jj]]
                direction = LEFT
                if classification:
                    if nc == 0 and C == 2:
                        imp, direction = gini_cont2(k, sx[q, n1:n2], sy[q, n1:n2], aprior,
                                                    minbucket, sp)
                    elif nc == 0:
                        imp, direction = gini_cont(k, sx[q, n1:n2], sy[q, n1:n2], C, aprior,
                                                    minbucket, left, right, sp)
                    else:
                        f = cslot[i]
                        npresent = 0
                        for c in range(nc):
                            if s_cnt[f, c] > 0:
                                npresent += 1
                        if C > 2 and npresent > max_exhaustive:
                            n_heuristic += 1
                            for jj in range(n1, n2):
                                xt[jj - n1] = X[i, cidx[jj]]
                            imp = gini_cat_ordered_by_classes(
                                k, xt, cy[n1:n2], nc, C, aprior, minbucket, left, right, ccnt,
                                c_w, c_counts, c_val, present, tsplit, gray, cs,
                                HEURISTIC_CLASSES)
                        else:
                            for c in range(nc):
                                c_w[c] = s_awt[f, c]
                                c_counts[c] = s_cnt[f, c]
                                for j in range(C):
                                    ccnt[j, c] = s_ccnt[f, j, c]
                            for j in range(C):
                                left[j] = 0.0
                                right[j] = right0[j]
                            imp = gini_cat_search(k, nc, C, aprior, minbucket, left, right,
                                                  ccnt, c_w, c_counts, c_val, present, tsplit,
                                                  gray, cs, tot0, rwt0)
                else:
                    if nc == 0:
                        imp, direction = anova_cont(k, sx[q, n1:n2], sy[q, n1:n2],
                                                    minbucket, risk[me], sp)
                    else:
                        imp = anova_cat(k, xt, cy[n1:n2], nc, minbucket, risk[me], c_counts,
                                        c_w, c_sum, c_val, present, tsplit, gray, cs)
                if imp > iscale:
                    iscale = imp
                if imp > iscale * 1e-10:
                    if (not found) or imp > bimp:
                        found = True
                        bimp = imp
                        bvar = i
                        if nc == 0:
                            bsp = sp[0]
                            bestcs[0] = direction
                        else:
                            for c in range(nc):
                                bestcs[c] = cs[c]
            if not found:
                cplx[me] = alpha
                sumrisk[me] = risk[me]
                nsplit[me] = 0
                top -= 1
                continue
            var[me] = bvar
            improve[me] = bimp
            spoint[me] = bsp
            for c in range(maxcat):
                csplit[me, c] = 0
            if ncat[bvar] == 0:
                csplit[me, 0] = bestcs[0]
            else:
                for c in range(ncat[bvar]):
                    csplit[me, c] = bestcs[c]
            # ---- nodesplit: left records then right ones, order kept, for every variable
            nleft = 0
            for jj in range(n1, n2):
                r = cidx[jj]
                if ncat[bvar] == 0:
                    d = bestcs[0] if X[bvar, r] < bsp else -bestcs[0]
                else:
                    d = bestcs[int(X[bvar, r]) - 1]
                goes[r] = 1 if d == LEFT else 2
                if d == LEFT:
                    nleft += 1
            for q in range(nnum):
                partition(n1, n2, goes, sidx[q], sx[q], sy[q], tmp, tmpx, tmpy)
            partition(n1, n2, goes, cidx, cy, cy, tmp, tmpx, tmpy)  # also the node's set
            lc = nxt
            nxt += 1
            num[lc] = 2 * num[me]
            r1[lc] = n1
            r2[lc] = n1 + nleft
            cplx[lc] = tempcp[me] - alpha
            phase[lc] = 0
            lson[lc] = -1
            rson[lc] = -1
            var[lc] = -1
            spoint[lc] = np.nan
            improve[lc] = 0.0
            lson[me] = lc
            phase[me] = 1
            stack[top] = lc
            top += 1
        elif phase[me] == 1:
            lc = lson[me]
            lrisk[me] = sumrisk[lc]
            lsplit[me] = nsplit[lc]
            t = (risk[me] - lrisk[me]) / (lsplit[me] + 1)
            t2 = risk[me] - risk[lc]
            if t < t2:
                t = t2
            if t > cplx[me]:
                t = cplx[me]
            rc = nxt
            nxt += 1
            num[rc] = 2 * num[me] + 1
            r1[rc] = r2[lc]
            r2[rc] = r2[me]
            cplx[rc] = t - alpha
            phase[rc] = 0
            lson[rc] = -1
            rson[rc] = -1
            var[rc] = -1
            spoint[rc] = np.nan
            improve[rc] = 0.0
            rson[me] = rc
            phase[me] = 2
            stack[top] = rc
            top += 1
        else:
            lc = lson[me]
            rc = rson[me]
            left_risk = lrisk[me]
            left_split = lsplit[me]
            right_risk = sumrisk[rc]
            right_split = nsplit[rc]
            t = (risk[me] - (left_risk + right_risk)) / (left_split + right_split + 1)
            if cplx[rc] > cplx[lc]:
                if t > cplx[lc]:
                    left_risk = risk[lc]
                    left_split = 0
                    t = (risk[me] - (left_risk + right_risk)) / (left_split + right_split + 1)
                    if t > cplx[rc]:
                        right_risk = risk[rc]
                        right_split = 0
            elif t > cplx[rc]:
                right_split = 0
                right_risk = risk[rc]
                t = (risk[me] - (left_risk + right_risk)) / (left_split + right_split + 1)
                if t > cplx[lc]:
                    left_risk = risk[lc]
                    left_split = 0
            cplx[me] = (risk[me] - (left_risk + right_risk)) / (left_split + right_split + 1)
            if cplx[me] <= alpha:
                lson[me] = -1
                rson[me] = -1
                var[me] = -1
                nxt = me + 1          # the subtree was the last thing allocated
                sumrisk[me] = risk[me]
                nsplit[me] = 0
            else:
                sumrisk[me] = left_risk + right_risk
                nsplit[me] = left_split + right_split + 1
            top -= 1
    m = nxt
    # rpart's fix_cp: a node's complexity is at most its parent's (preorder: parents first)
    for i in range(m):
        if lson[i] >= 0:
            for c in (lson[i], rson[i]):
                if cplx[c] > cplx[i]:
                    cplx[c] = cplx[i]
    return (num[:m].copy(), lson[:m].copy(), rson[:m].copy(), var[:m].copy(),
            spoint[:m].copy(), csplit[:m].copy(), nobs[:m].copy(), risk[:m].copy(),
            cplx[:m].copy(), improve[:m].copy(), counts[:m].copy(), r1[:m].copy(),
            r2[:m].copy(), (sidx[slot[0]] if slot[0] >= 0 else cidx).copy(), n_heuristic)


@njit(cache=True)
def route(Xk, left, right, var, cut, direction, is_factor, size):
    """Row of the node where each record of ``Xk`` (n, p; level codes from 1) ends: a leaf, or
    the internal node where an absent level meets two children of equal size (rpart's
    ``pred_rpart`` without surrogates)."""
    n = Xk.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        cur = 0
        while left[cur] >= 0:
            v = var[cur]
            x = Xk[i, v]
            if is_factor[v]:
                d = direction[cur, int(x) - 1]
            elif x < cut[cur]:
                d = direction[cur, 0]
            else:
                d = -direction[cur, 0]
            if d == 0:
                nl = size[left[cur]]
                nr = size[right[cur]]
                if nl == nr:
                    break
                d = -1 if nl > nr else 1
            cur = left[cur] if d == -1 else right[cur]
        out[i] = cur
    return out


__all__ = ["grow_sorted", "root_orders", "route", "rpart_order"]
