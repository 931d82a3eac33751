"""Compiled kernel (numba): rpart's Gini search of an ordered predictor, and the factors' node
sums, for a 2-class y.

The same search as :func:`capkit.synth._rpart_split.gini_cont` with ``C = 2`` (rpart 4.1's
``gini.c``, Therneau & Atkinson; no code taken from it), written for the case every propensity
tree of synthpop's ``utility.gen`` is (original against synthetic records, Snoke, Raab, Nowok,
Dibben & Slavkovic, "General and specific utility measures for synthetic data", 2018): the
class counts are kept in registers instead of two small arrays, and a candidate whose
division-free estimate is surely not below the best so far is not summed exactly.

What makes the result the same to the bit:

* the summed priors ``lwt`` and ``rwt`` are updated record by record in the same order with
  the same operations (``rwt - a``, ``lwt + a``); the class counts are whole numbers below
  2^53, so however they are kept they hold the same values;
* a candidate that may be a new best gets rpart's sum in rpart's order: for class 0 then
  class 1, the left term ``lwt * (p * (1 - p))`` with ``p = a_j * l_j / lwt``, then the
  right one; ``lmean`` and ``rmean`` (which decide the direction) are ``0 + p_0 * 0 + p_1 * 1``,
  that is ``p_1`` of each side exactly;
* the factors' node sums (:func:`node_sums2`) add the priors in the same data order; only the
  whole-number counts are kept another way;
* where both priors are 1 (rpart's altered priors of 2 classes are 1 whenever the class shares
  c / n and (n - c) / n add up to 1 exactly, as they do for every n below 400 and for a
  synthesis as large as its original; ``gini_cont2`` takes any priors), every sum of
  priors is a whole number, exact in any order, and is kept as an integer count;
* the screen (:func:`_surely_not_below2`) only skips candidates whose exact sum is >= the best,
  which the strict ``t < best`` of the search would not take either.

:func:`capkit.synth._rpart_kernel.grow_sorted` calls these when y has 2 classes. numba caches
that kernel by its own file's date: a change here needs one there (or its ``__pycache__``
entries removed) to take effect.
"""

from __future__ import annotations

from numba import njit

from capkit.synth._rpart_split import LEFT, RIGHT

#: Relative margin of :func:`_surely_not_below2`, of ``lwt + rwt`` (the bound of
#: :func:`capkit.synth._rpart_split._surely_not_below` with 2 classes, there 20 times over).
SCREEN2 = 2e-12


@njit(cache=True, inline="always")
def _surely_not_below2(a0, a1, l0, l1, r0, r1, lwt, rwt, best):
    """True when the exact Gini sum of the candidate is surely >= ``best``: the sum with the
    shares multiplied by ``1 / lwt`` and ``1 / rwt`` instead of divided. Each share
    p = a l / w is >= 0 and those of a side sum to 1 up to the rounding of w (so p < 2); the
    reciprocal changes p by <= 3u p, p (1 - p) by <= 18u, a term w p (1 - p) by <= 100u w,
    and the 4 terms' sums add <= 4u (lwt + rwt): |estimate - exact| <= 420u (lwt + rwt)
    < 1e-13 (lwt + rwt) with u = 2^-53; the margin is 20 times that. A NaN estimate is never
    "surely" above."""
    il = 1.0 / lwt
    ir = 1.0 / rwt
    p = a0 * l0 * il
    t = lwt * (p * (1.0 - p))
    p = a0 * r0 * ir
    t += rwt * (p * (1.0 - p))
    p = a1 * l1 * il
    t += lwt * (p * (1.0 - p))
    p = a1 * r1 * ir
    t += rwt * (p * (1.0 - p))
    return t >= best + SCREEN2 * (lwt + rwt)


@njit(cache=True)
def _gini_cont2_unit(k, xt, yt, edge, out_split):
    """:func:`gini_cont2` when both priors are 1 (rpart's altered priors of 2 classes whose
    shares c / n add up to 1 exactly, e.g. a synthesis as large as the original): every sum of
    priors is then a whole number below 2^53, exact in any order, so ``lwt`` and ``rwt`` are the
    records on each side and are kept as integers; the rest is :func:`gini_cont2`'s."""
    k1 = 0
    for i in range(k):
        k1 += int(yt[i])
    rwt = float(k)
    r1 = float(k1)
    r0 = float(k - k1)
    p = 1.0 * r0 / rwt
    total = rwt * (p * (1.0 - p))
    p = 1.0 * r1 / rwt
    total += rwt * (p * (1.0 - p))
    best = total
    l1i = 0
    ltot = 0
    where = 0
    direction = LEFT
    i = 0
    while k - ltot > edge:
        l1i += int(yt[i])
        ltot += 1
        if ltot >= edge and xt[i + 1] != xt[i]:
            lwt = float(ltot)
            rwt = float(k - ltot)
            l1 = float(l1i)
            l0 = lwt - l1
            rr1 = float(k1 - l1i)
            r0 = rwt - rr1
            if not _surely_not_below2(1.0, 1.0, l0, l1, r0, rr1, lwt, rwt, best):
                pl0 = 1.0 * l0 / lwt
                t = lwt * (pl0 * (1.0 - pl0))
                pr0 = 1.0 * r0 / rwt
                t += rwt * (pr0 * (1.0 - pr0))
                pl1 = 1.0 * l1 / lwt
                t += lwt * (pl1 * (1.0 - pl1))
                pr1 = 1.0 * rr1 / rwt
                t += rwt * (pr1 * (1.0 - pr1))
                if t < best:
                    best = t
                    where = i
                    direction = LEFT if pl1 < pr1 else RIGHT
        i += 1
    improve = total - best
    if improve > 0:
        out_split[0] = (xt[where] + xt[where + 1]) / 2
    return improve, direction


@njit(cache=True)
def gini_cont2(k, xt, yt, aprior, edge, out_split):
    """:func:`capkit.synth._rpart_split.gini_cont` for ``C = 2`` (class codes 0 and 1 in
    ``yt``), to the bit: returns (improve, direction) and sets ``out_split[0]``."""
    a0 = aprior[0]
    a1 = aprior[1]
    if a0 == 1.0 and a1 == 1.0:
        return _gini_cont2_unit(k, xt, yt, edge, out_split)
    # the node's total, as _gini_total sums it
    rwt = 0.0
    r1 = 0.0
    for i in range(k):
        rwt += aprior[int(yt[i])]
        r1 += yt[i]
    r0 = k - r1
    p = a0 * r0 / rwt
    total = rwt * (p * (1.0 - p))
    p = a1 * r1 / rwt
    total += rwt * (p * (1.0 - p))
    best = total
    lwt = 0.0
    l0 = 0.0
    l1 = 0.0
    rtot = k
    ltot = 0
    where = 0
    direction = LEFT
    i = 0
    while rtot > edge:
        yv = yt[i]
        a = aprior[int(yv)]
        rwt -= a
        lwt += a
        rtot -= 1
        ltot += 1
        l1 += yv
        l0 += 1.0 - yv
        if ltot >= edge and xt[i + 1] != xt[i]:
            r0 = (k - ltot) - (r1 - l1)
            rr1 = r1 - l1
            if not _surely_not_below2(a0, a1, l0, l1, r0, rr1, lwt, rwt, best):
                # rpart's sum, in its order (see the module docstring)
                pl0 = a0 * l0 / lwt
                t = lwt * (pl0 * (1.0 - pl0))
                pr0 = a0 * r0 / rwt
                t += rwt * (pr0 * (1.0 - pr0))
                pl1 = a1 * l1 / lwt
                t += lwt * (pl1 * (1.0 - pl1))
                pr1 = a1 * rr1 / rwt
                t += rwt * (pr1 * (1.0 - pr1))
                if t < best:
                    best = t
                    where = i
                    direction = LEFT if pl1 < pr1 else RIGHT
        i += 1
    improve = total - best
    if improve > 0:
        out_split[0] = (xt[where] + xt[where + 1]) / 2
    return improve, direction


@njit(cache=True)
def node_sums2(n1, n2, cidx, cy, xc, aprior, left, right0, s_awt, s_cnt, s_ccnt, packed):
    """:func:`capkit.synth._rpart_order.node_sums` for ``C = 2``, to the bit: the per-level
    summed priors ``s_awt`` are accumulated record by record in the same (data) order; the
    records and class-1 records of a level, whole numbers, are counted together in one
    integer (``packed``, scratch of ``s_cnt``'s shape: records + 2^32 x class-1 records, exact
    below 2^32 records). Returns the node's (total, rwt) of ``_gini_total``, summed in the same
    order, and sets ``left`` to 0 and ``right0`` to the node's class counts."""
    nf, maxcat = s_awt.shape
    unit = aprior[0] == 1.0 and aprior[1] == 1.0  # then every s_awt is its level's records
    for f in range(nf):
        for c in range(maxcat):
            s_awt[f, c] = 0.0
            packed[f, c] = 0
    rwt = 0.0
    k1 = 0
    if unit:
        for jj in range(n1, n2):
            r = cidx[jj]
            j = int(cy[jj])
            k1 += j
            inc = 1 + (j << 32)
            for f in range(nf):
                packed[f, xc[r, f]] += inc
        rwt = float(n2 - n1)
    for jj in range(n1, n2 if not unit else n1):
        r = cidx[jj]
        j = int(cy[jj])
        a = aprior[j]
        rwt += a
        k1 += j
        inc = 1 + (j << 32)
        for f in range(nf):
            c = xc[r, f]
            s_awt[f, c] += a
            packed[f, c] += inc
    for f in range(nf):
        for c in range(maxcat):
            m = packed[f, c] & 0xFFFFFFFF
            m1 = packed[f, c] >> 32
            s_cnt[f, c] = m
            if unit:
                s_awt[f, c] = float(m)
            s_ccnt[f, 0, c] = float(m - m1)
            s_ccnt[f, 1, c] = float(m1)
    r0 = float((n2 - n1) - k1)
    r1 = float(k1)
    left[0] = 0.0
    left[1] = 0.0
    right0[0] = r0
    right0[1] = r1
    p = aprior[0] * r0 / rwt
    total = rwt * (p * (1.0 - p))
    p = aprior[1] * r1 / rwt
    total += rwt * (p * (1.0 - p))
    return total, rwt


__all__ = ["gini_cont2", "node_sums2"]
