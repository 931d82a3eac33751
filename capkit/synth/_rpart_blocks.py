"""Compiled kernel (numba): the blocks of rpart's Gray-code search that cannot hold a new best.

For a factor predictor and 3+ classes, rpart (``graycode.c``, ``gini.c``; Therneau & Atkinson)
evaluates every two-group split of the levels present in a node, in Gray-code order: step s
moves the level of the lowest 0 bit of s - 1 (the number of trailing zeros of s). So the lowest
levels move most often, and the 2^b - 1 steps between two moves of a level above the b lowest
(a *block*) split the node only by where those b levels go.

The weighted Gini impurity of a group with class counts v, f(v) = w - sum_j (a_j v_j)^2 / w
(a_j the altered priors, w = sum_j a_j v_j; rpart's ``lwt sum_j p_j (1 - p_j)`` with
p_j = a_j v_j / lwt), is concave (a linear function less a quadratic-over-linear one) and
positively homogeneous, hence superadditive: f(x + y) >= f(x) + f(y). So every split of a block
has an impurity of at least

    f(left without the b levels) + f(right without them) + sum of f over the b levels,

the impurity of a finer partition. When that bound clears the best impurity so far by a
margin, no split of the block can be a new best (rpart keeps a candidate only when it is
strictly below the best), and :func:`capkit.synth._rpart_split.gini_cat_search` steps only the
two weights through the block: later candidates read them, so they get the same values added in
the same order as rpart adds them, and the class counts move by the block's net change (its top
level once, the others an even number of times).

The margin covers every rounding: the bound's and the candidate's own (``SCREEN`` per class)
and the drift of the two weights, accumulated along the code by one addition each per step (at
most 2^-53 of the node weight per step, so ``BLOCK_DRIFT`` per step has four times that to
spare; an impurity moves by at most the drift of its group's weight while that weight is far
above the drift, checked on the smallest positive prior). Blocks of 2^8 steps are tried first,
then of 2^4.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Low levels of the blocks bounded at once, smallest first.
BLOCK_BITS = (4, 8)
#: Relative drift of a weight per Gray-code step allowed for in the margin (module docstring).
BLOCK_DRIFT = 1e-15
#: Relative margin, per class and of the node weight, above the rounding of an impurity
#: (of the division-free screen of :mod:`capkit.synth._rpart_split` and of the bound).
SCREEN = 1e-12
_LEFT = -1
_RIGHT = 1


@njit(cache=True)
def side_impurity(C, aprior, ccnt, level, counts, on_left, gray, tsplit, b):
    """f(v) of the module docstring (0 for an empty group). ``level >= 0``: v is that level's
    counts. Otherwise v is ``counts`` less the levels ``gray[0 .. b - 1]`` on that side
    (``on_left``: those whose ``tsplit`` is left)."""
    w = 0.0
    q = 0.0
    for j in range(C):
        if level >= 0:
            v = ccnt[j, level]
        else:
            v = counts[j]
            for i in range(b):
                c = gray[i]
                if (tsplit[c] == _LEFT) == on_left:
                    v -= ccnt[j, c]
        u = aprior[j] * v
        w += u
        q += u * u
    if w <= 0.0:
        return 0.0
    return w - q / w


@njit(cache=True)
def plan_blocks(ordered, C, aprior, ccnt, awt, gray, tsplit, right, m, steps, rwt):
    """The block sizes used for a search over ``m`` moving levels, before its first step:
    (number of sizes used, the summed f of each size's b levels, the weight moved at each step
    of a block by size and by the side its top level starts on, the margin)."""
    margin = rwt * (SCREEN * C + BLOCK_DRIFT * (steps + 64))
    usable = not ordered and C > 2
    for j in range(C):
        if 0.0 < aprior[j] < 1e4 * margin:
            usable = False  # a group's weight not far above the drift: no bound
    nb = 0
    if usable:
        for b in BLOCK_BITS:
            if m >= b + 2:
                nb += 1
    low_sum = np.zeros(max(nb, 1))
    seq = np.zeros((max(nb, 1), 2, 1 << BLOCK_BITS[-1]))
    for level in range(nb):
        b = BLOCK_BITS[level]
        for i in range(b):
            low_sum[level] += side_impurity(C, aprior, ccnt, gray[i], right, False, gray,
                                            tsplit, b)
        # the levels below the top one start every block on their first side (they moved an
        # even number of times); the top one alternates
        for parity in range(2):
            side = np.ones(b, dtype=np.int64)
            side[b - 1] = 1 - 2 * parity
            for i in range(1, 1 << b):
                z = 0
                x = i
                while (x & 1) == 0:
                    x >>= 1
                    z += 1
                seq[level, parity, i] = awt[gray[z]] if side[z] == _RIGHT else -awt[gray[z]]
                side[z] = -side[z]
    return nb, low_sum, seq, margin


__all__ = ["BLOCK_BITS", "BLOCK_DRIFT", "plan_blocks", "side_impurity"]
