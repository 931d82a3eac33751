"""Compiled kernel (numba): rpart's split search for one predictor in one node.

Written from a reading of rpart 4.1's ``anova.c``, ``gini.c`` and ``graycode.c`` (Therneau &
Atkinson), with no code taken from them. Sums are accumulated in rpart's order, so that
floating-point ties between candidate splits, and between predictors, resolve as in rpart:

* anova: the between-group sum of squares about the node mean, divided by the node's risk;
  ordered predictors cut between distinct consecutive values; factor levels ordered by their
  mean y;
* class: Gini with rpart's altered priors (priors = observed frequencies, 0/1 loss); factor
  levels ordered by the class-1 rate for 2 classes, every two-group subset in rpart's Gray-code
  order for 3+ classes (or, above ``max_exhaustive`` present levels, the documented heuristic
  :func:`gini_cat_ordered_by_classes`);
* a cut needs >= minbucket records on each side; the first best candidate wins; the side with
  the lower mean y (or class-index mean) goes left.

For 3+ classes most of the time goes into the Gini sums of the candidates (2 divisions per
class each); a candidate whose division-free estimate is surely not below the best so far
(:func:`_surely_not_below`, with a margin 40 times its rounding bound) is not summed exactly,
as it cannot be chosen. Every other candidate gets rpart's exact sum, so the chosen splits and
their improvements are rpart's to the bit.

A block of Gray-code steps whose candidates a lower bound rules out is not evaluated either
(:mod:`capkit.synth._rpart_blocks`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from capkit.synth._rpart_blocks import BLOCK_BITS, SCREEN, plan_blocks, side_impurity

LEFT = -1
RIGHT = 1
HEURISTIC_CLASSES = 8


# ---------------------------------------------------------------- anova ----------------------

@njit(cache=True)
def anova_cont(k, xt, yt, edge, myrisk, out_split):
    """Best cut of an ordered predictor for a numeric y; returns (improve, direction)."""
    rsum = 0.0
    for i in range(k):
        rsum += yt[i]
    grand = rsum / k
    lsum = 0.0
    rsum = 0.0
    lwt = 0.0
    rwt = float(k)
    ln = 0
    rn = k
    best = 0.0
    where = 0
    direction = LEFT
    i = 0
    while rn > edge:
        lwt += 1.0
        rwt -= 1.0
        ln += 1
        rn -= 1
        t = yt[i] - grand
        lsum += t
        rsum -= t
        if xt[i + 1] != xt[i] and ln >= edge:
            t = lsum * lsum / lwt + rsum * rsum / rwt
            if t > best:
                best = t
                where = i
                direction = LEFT if lsum < rsum else RIGHT
        i += 1
    if best > 0:
        out_split[0] = (xt[where] + xt[where + 1]) / 2
    return best / myrisk, direction


@njit(cache=True)
def _order_categories(nclass, present, val, gray):
    """rpart's ordering of the present categories by ``val`` (stable); returns #absent."""
    k = 0
    m = 0
    for i in range(nclass):
        if not present[i]:
            k += 1
    # absent categories first (in level order), then present ones by val, ties in level order
    a = 0
    for i in range(nclass):
        if not present[i]:
            gray[a] = i
            a += 1
    m = k
    for i in range(nclass):
        if present[i]:
            j = m - 1
            while j >= k and val[gray[j]] > val[i]:
                gray[j + 1] = gray[j]
                j -= 1
            gray[j + 1] = i
            m += 1
    return k


@njit(cache=True)
def anova_cat(k, xt, yt, nclass, edge, myrisk, counts, wts, sums, means, present, tsplit,
               gray, csplit):
    tot = 0.0
    for i in range(k):
        tot += yt[i]
    grand = tot / k
    for i in range(nclass):
        sums[i] = 0.0
        counts[i] = 0
        wts[i] = 0.0
    for i in range(k):
        j = int(xt[i]) - 1
        counts[j] += 1
        wts[j] += 1.0
        sums[j] += yt[i] - grand
    for i in range(nclass):
        present[i] = counts[i] > 0
        if present[i]:
            tsplit[i] = RIGHT
            means[i] = sums[i] / wts[i]
        else:
            tsplit[i] = 0
    nabsent = _order_categories(nclass, present, means, gray)
    lwt = 0.0
    rwt = float(k)
    lsum = 0.0
    rsum = 0.0
    ln = 0
    rn = k
    best = 0.0
    for g in range(nabsent, nclass):
        j = gray[g]
        tsplit[j] = LEFT
        ln += counts[j]
        rn -= counts[j]
        lwt += wts[j]
        rwt -= wts[j]
        lsum += sums[j]
        rsum -= sums[j]
        if ln >= edge and rn >= edge:
            t = lsum * lsum / lwt + rsum * rsum / rwt
            if t > best:
                best = t
                flip = (lsum / lwt) > (rsum / rwt)
                for i in range(nclass):
                    csplit[i] = -tsplit[i] if flip else tsplit[i]
    return best / myrisk


# ---------------------------------------------------------------- gini -----------------------

@njit(cache=True)
def _impurity_sum(C, aprior, left, right, lwt, rwt):
    """rpart's weighted Gini of a split, with the class-index means that decide its direction."""
    t = 0.0
    lmean = 0.0
    rmean = 0.0
    for j in range(C):
        p = aprior[j] * left[j] / lwt
        t += lwt * (p * (1.0 - p))
        lmean += p * j
        p = aprior[j] * right[j] / rwt
        t += rwt * (p * (1.0 - p))
        rmean += p * j
    return t, lmean, rmean




@njit(cache=True)
def _surely_not_below(C, aprior, left, right, lwt, rwt, best):
    """True when the ``t`` of :func:`_impurity_sum` is surely >= ``best``, from an estimate
    that multiplies by ``1 / lwt`` and ``1 / rwt`` instead of dividing by them (two divisions
    instead of 2C). Then the split cannot be a new best and its exact sum is not needed; in
    every other case the caller computes it, so the search picks the same split, ties
    included.

    The bound: with unit roundoff u and both weights > 0, each share p = a l / w is >= 0 and
    the shares of a side sum to 1 up to the rounding of w (so p < 2 and sum |p (1 - p)| < 2),
    hence the reciprocal changes p by <= 3u p, p (1 - p) by <= 18u, and a term w p (1 - p)
    by <= 100u w (with the roundings of both ways of computing it); the two sums of the 2C
    terms each add <= 4C u (lwt + rwt). So |estimate - t| <= 110 C u (lwt + rwt)
    < 2.5e-14 C (lwt + rwt), and the margin used, ``SCREEN`` C (lwt + rwt), is 40 times
    that. Weights that are not both positive, and a NaN estimate, are never "surely" above."""
    if not (lwt > 0.0 and rwt > 0.0):
        return False
    il = 1.0 / lwt
    ir = 1.0 / rwt
    t = 0.0
    for j in range(C):
        p = aprior[j] * left[j] * il
        t += lwt * (p * (1.0 - p))
        p = aprior[j] * right[j] * ir
        t += rwt * (p * (1.0 - p))
    return t >= best + SCREEN * C * (lwt + rwt)


@njit(cache=True)
def _gini_total(k, yt, C, aprior, left, right):
    for j in range(C):
        left[j] = 0.0
        right[j] = 0.0
    rwt = 0.0
    for i in range(k):
        j = int(yt[i])
        rwt += aprior[j]
        right[j] += 1.0
    total = 0.0
    for j in range(C):
        p = aprior[j] * right[j] / rwt
        total += rwt * (p * (1.0 - p))
    return total, rwt


@njit(cache=True)
def gini_cont(k, xt, yt, C, aprior, edge, left, right, out_split):
    total, rwt = _gini_total(k, yt, C, aprior, left, right)
    best = total
    lwt = 0.0
    rtot = k
    ltot = 0
    where = 0
    direction = LEFT
    i = 0
    while rtot > edge:
        j = int(yt[i])
        rwt -= aprior[j]
        lwt += aprior[j]
        rtot -= 1
        ltot += 1
        right[j] -= 1.0
        left[j] += 1.0
        if ltot >= edge and xt[i + 1] != xt[i] and not (
                C > 2 and _surely_not_below(C, aprior, left, right, lwt, rwt, best)):
            t, lmean, rmean = _impurity_sum(C, aprior, left, right, lwt, rwt)
            if t < best:
                best = t
                where = i
                direction = LEFT if lmean < rmean else RIGHT
        i += 1
    improve = total - best
    if improve > 0:
        out_split[0] = (xt[where] + xt[where + 1]) / 2
    return improve, direction


@njit(cache=True)
def gini_cat(k, xt, yt, nclass, C, aprior, edge, left, right, ccnt, awt, countn, rate,
              present, tsplit, gray, csplit):
    total, rwt = _gini_total(k, yt, C, aprior, left, right)
    for c in range(nclass):
        awt[c] = 0.0
        countn[c] = 0
        for j in range(C):
            ccnt[j, c] = 0.0
    for i in range(k):
        j = int(yt[i])
        c = int(xt[i]) - 1
        awt[c] += aprior[j]
        countn[c] += 1
        ccnt[j, c] += 1.0
    return gini_cat_search(k, nclass, C, aprior, edge, left, right, ccnt, awt, countn, rate,
                           present, tsplit, gray, csplit, total, rwt)


@njit(cache=True)
def _move_level(C, c, tsplit, countn, ccnt, left, right):
    """One step of rpart's ``graycode``: level ``c`` goes to the other side (``tsplit``), its
    class counts leave one side's ``right`` / ``left`` sums for the other's; returns the number
    of records that moved to the left (negative when they moved to the right)."""
    d = tsplit[c]
    tsplit[c] = -d
    sign = float(d)
    for j in range(C):
        v = sign * ccnt[j, c]
        right[j] -= v
        left[j] += v
    return countn[c] * d


@njit(cache=True)
def gini_cat_search(k, nclass, C, aprior, edge, left, right, ccnt, awt, countn, rate, present,
                    tsplit, gray, csplit, total, rwt):
    """:func:`gini_cat` from its sums: per level the summed priors ``awt``, the records
    ``countn`` and the class counts ``ccnt``; ``left`` zero and ``right`` the node's class
    counts, ``total`` and ``rwt`` as :func:`_gini_total` gives them."""
    best = total
    lwt = 0.0
    rtot = k
    ltot = 0
    for c in range(nclass):
        present[c] = awt[c] != 0
        if present[c]:
            rate[c] = ccnt[0, c] / awt[c]
            tsplit[c] = RIGHT
        else:
            tsplit[c] = 0
    ordered = C == 2
    m = 0
    if ordered:
        pos = _order_categories(nclass, present, rate, gray)
        steps = nclass - pos
    else:
        # graycode.c counts in binary over the present categories below the last one (the
        # last category never moves): step s moves the category of the lowest 0 bit of the
        # count before it, the number of trailing zeros of s, for s = 1 .. 2^m - 1
        m = 0
        for c in range(nclass - 1):
            if present[c]:
                gray[m] = c
                m += 1
        steps = (1 << m) - 1
    # blocks of the code ruled out at once (3+ classes, unordered): _rpart_blocks
    nb, low_sum, seq, margin = plan_blocks(ordered, C, aprior, ccnt, awt, gray, tsplit, right,
                                           m, steps, rwt)
    s = 0
    while s < steps:
        s += 1
        skipped = False
        if nb > 0 and best < total:
            for level in range(nb - 1, -1, -1):
                b = BLOCK_BITS[level]
                size = 1 << b
                if (s & (size - 1)) != 1:
                    continue
                # steps s .. s + 2^b - 2 move only the b lowest levels (_rpart_blocks)
                bound = (low_sum[level]
                         + side_impurity(C, aprior, ccnt, -1, left, True, gray, tsplit, b)
                         + side_impurity(C, aprior, ccnt, -1, right, False, gray, tsplit, b))
                if bound >= best + margin:
                    c = gray[b - 1]
                    d = tsplit[c]  # the top level's side before the block; it moves once
                    parity = 0 if d == RIGHT else 1
                    for i in range(1, size):
                        a = seq[level, parity, i]
                        rwt -= a
                        lwt += a
                    n = _move_level(C, c, tsplit, countn, ccnt, left, right)
                    rtot -= n
                    ltot += n
                    s += size - 2  # the last step of the block
                    skipped = True
                    break
        if skipped:
            continue
        if ordered:
            c = gray[pos]
            pos += 1
        else:
            z = 0
            x = s
            while (x & 1) == 0:
                x >>= 1
                z += 1
            c = gray[z]
        # to the other side: x - a and x + (-a) are the same number, so one update serves
        # both directions
        a = awt[c] if tsplit[c] == RIGHT else -awt[c]
        rwt -= a
        lwt += a
        n = _move_level(C, c, tsplit, countn, ccnt, left, right)
        rtot -= n
        ltot += n
        if ltot >= edge and rtot >= edge and not (
                C > 2 and _surely_not_below(C, aprior, left, right, lwt, rwt, best)):
            t, lmean, rmean = _impurity_sum(C, aprior, left, right, lwt, rwt)
            if t < best:
                best = t
                for i in range(nclass):
                    csplit[i] = tsplit[i] if lmean < rmean else -tsplit[i]
    return total - best


@njit(cache=True)
def gini_cat_ordered_by_classes(k, xt, yt, nclass, C, aprior, edge, left, right, ccnt, awt,
                                 countn, rate, present, tsplit, gray, csplit, nkeys):
    """Heuristic for a factor with too many present levels for rpart's exhaustive search:
    the ordered splits of the levels sorted by the share of each of the ``nkeys`` largest
    classes in the node (a subset of rpart's candidates). Not rpart: used only where rpart
    itself would not finish (2^(levels - 1) subsets)."""
    total, rwt0 = _gini_total(k, yt, C, aprior, left, right)
    for c in range(nclass):
        awt[c] = 0.0
        countn[c] = 0
        for j in range(C):
            ccnt[j, c] = 0.0
    for i in range(k):
        j = int(yt[i])
        c = int(xt[i]) - 1
        awt[c] += aprior[j]
        countn[c] += 1
        ccnt[j, c] += 1.0
    for c in range(nclass):
        present[c] = countn[c] > 0
    best = total
    used = np.zeros(C, dtype=np.bool_)
    for _ in range(min(nkeys, C)):
        key = -1
        for j in range(C):  # the largest class not yet used
            if not used[j] and (key < 0 or right[j] > right[key]):
                key = j
        used[key] = True
        for c in range(nclass):
            rate[c] = ccnt[key, c] / awt[c] if present[c] else 0.0
        nabsent = _order_categories(nclass, present, rate, gray)
        for j in range(C):
            left[j] = 0.0
        lr = np.empty(C)
        for j in range(C):
            lr[j] = 0.0
            for c in range(nclass):
                lr[j] += ccnt[j, c]
        lwt = 0.0
        rwt = rwt0
        ltot = 0
        rtot = k
        for c in range(nclass):
            tsplit[c] = RIGHT if present[c] else 0
        for g in range(nabsent, nclass):
            c = gray[g]
            tsplit[c] = LEFT
            rwt -= awt[c]
            lwt += awt[c]
            rtot -= countn[c]
            ltot += countn[c]
            for j in range(C):
                lr[j] -= ccnt[j, c]
                left[j] += ccnt[j, c]
            if ltot >= edge and rtot >= edge:
                t, lmean, rmean = _impurity_sum(C, aprior, left, lr, lwt, rwt)
                if t < best:
                    best = t
                    for i in range(nclass):
                        csplit[i] = tsplit[i] if lmean < rmean else -tsplit[i]
    return total - best
