"""The compiled Gini searches of capkit.synth against rpart's sums written out plainly here.

:func:`capkit.synth._rpart_split.gini_cat_search` (every two-group split of a factor's levels in
rpart's Gray-code order, for 3+ classes) and :func:`~capkit.synth._rpart_split.gini_cont` skip
the exact impurity of a candidate that a division-free estimate shows cannot be a new best, and
step through rpart's Gray code as a binary count. Neither may change a result: the reference
below is rpart's ``gini.c`` / ``graycode.c`` loop as it stands (one impurity per candidate,
summed class by class, left term then right term), in plain Python floats (IEEE doubles, as the
compiled code), and the two must agree to the bit on improvement and split, over random nodes
with ties between levels (identical levels, whose subsets tie up to the rounding of the weights
accumulated along the Gray-code path) and with many classes absent from a node.
"""

from __future__ import annotations

import numpy as np
import pytest

from capkit.synth import cart
from capkit.synth._rpart_split import LEFT, RIGHT, gini_cat_search, gini_cont


def _impurity_sum(C, aprior, left, right, lwt, rwt):
    t = lmean = rmean = 0.0
    for j in range(C):
        p = aprior[j] * left[j] / lwt
        t += lwt * (p * (1.0 - p))
        lmean += p * j
        p = aprior[j] * right[j] / rwt
        t += rwt * (p * (1.0 - p))
        rmean += p * j
    return t, lmean, rmean


def _reference_search(k, nclass, C, aprior, edge, ccnt, awt, countn, total, rwt):
    """graycode.c's order over the present levels (the last level never moves), every valid
    candidate's impurity summed in full; returns (improvement, split directions)."""
    left = [0.0] * C
    right = [float(sum(ccnt[j, c] for c in range(nclass))) for j in range(C)]
    best, lwt, rtot, ltot = total, 0.0, k, 0
    present = [awt[c] != 0 for c in range(nclass)]
    tsplit = [RIGHT if present[c] else 0 for c in range(nclass)]
    csplit = [0] * nclass
    gray = [1 if present[c] else 0 for c in range(nclass)]
    while True:
        c = nclass
        for i in range(nclass - 1):
            if gray[i] == 1:
                gray[i] = 2
                c = i
                break
            if gray[i] == 2:
                gray[i] = 1
        if c == nclass:
            break
        if tsplit[c] == LEFT:
            tsplit[c] = RIGHT
            rwt += awt[c]
            lwt -= awt[c]
            rtot += countn[c]
            ltot -= countn[c]
            for j in range(C):
                right[j] += ccnt[j, c]
                left[j] -= ccnt[j, c]
        else:
            tsplit[c] = LEFT
            rwt -= awt[c]
            lwt += awt[c]
            rtot -= countn[c]
            ltot += countn[c]
            for j in range(C):
                right[j] -= ccnt[j, c]
                left[j] += ccnt[j, c]
        if ltot >= edge and rtot >= edge:
            t, lmean, rmean = _impurity_sum(C, aprior, left, right, lwt, rwt)
            if t < best:
                best = t
                csplit = [tsplit[i] if lmean < rmean else -tsplit[i] for i in range(nclass)]
    return total - best, csplit


def _reference_cont(k, xt, yt, C, aprior, edge):
    left, right = [0.0] * C, [0.0] * C
    rwt = 0.0
    for i in range(k):
        rwt += aprior[int(yt[i])]
        right[int(yt[i])] += 1.0
    total = 0.0
    for j in range(C):
        p = aprior[j] * right[j] / rwt
        total += rwt * (p * (1.0 - p))
    best, lwt, rtot, ltot, where, direction = total, 0.0, k, 0, 0, LEFT
    i = 0
    while rtot > edge:
        j = int(yt[i])
        rwt -= aprior[j]
        lwt += aprior[j]
        rtot -= 1
        ltot += 1
        right[j] -= 1.0
        left[j] += 1.0
        if ltot >= edge and xt[i + 1] != xt[i]:
            t, lmean, rmean = _impurity_sum(C, aprior, left, right, lwt, rwt)
            if t < best:
                best, where, direction = t, i, LEFT if lmean < rmean else RIGHT
        i += 1
    improve = total - best
    return improve, direction, (xt[where] + xt[where + 1]) / 2 if improve > 0 else None


def _node(rng, nclass, C, n_twins, balanced):
    """Class counts per level (many zeros; ``n_twins`` levels copy another's counts), the
    altered priors of a random class distribution (``balanced``: every class equally often,
    so every prior is the same and candidates tie exactly), and the per-level sums."""
    y_all = rng.integers(0, C, 400)
    y_all[:C] = np.arange(C)  # every class occurs in the data, so every prior is defined
    if balanced:
        y_all = np.repeat(np.arange(C), 40)
    aprior = cart.altered_priors(y_all.astype(float), C)
    ccnt = np.zeros((C, nclass))
    for c in range(nclass):
        if c >= 2 and rng.random() < 0.15:
            continue  # an absent level (the first two are present)
        classes = rng.choice(C, size=rng.integers(1, C + 1), replace=False)
        ccnt[classes, c] = rng.integers(1, 9, size=len(classes))
    for _ in range(n_twins):
        a, b = rng.choice(nclass, 2, replace=False)
        ccnt[:, b] = ccnt[:, a]
    countn = ccnt.sum(axis=0).astype(np.int64)
    awt = np.zeros(nclass)
    for c in range(nclass):  # gini.c's accumulation: one prior per record, in record order
        for j in range(C):
            for _ in range(int(ccnt[j, c])):
                awt[c] += aprior[j]
    return aprior, ccnt, awt, countn


def _compiled_search(k, nclass, C, aprior, edge, ccnt, awt, countn, total, rwt):
    left = np.zeros(C)
    right = ccnt.sum(axis=1)
    csplit = np.zeros(nclass, dtype=np.int64)
    imp = gini_cat_search(k, nclass, C, aprior, edge, left, right, ccnt.copy(), awt, countn,
                          np.zeros(nclass), np.zeros(nclass, dtype=np.bool_),
                          np.zeros(nclass, dtype=np.int64), np.zeros(nclass, dtype=np.int64),
                          csplit, total, rwt)
    return imp, csplit.tolist()


def _total(C, aprior, ccnt):
    """rpart's node impurity and weight (``_gini_total``) over the records, level by level."""
    right = ccnt.sum(axis=1)
    rwt = 0.0
    for c in range(ccnt.shape[1]):
        for j in range(C):
            for _ in range(int(ccnt[j, c])):
                rwt += aprior[j]
    total = 0.0
    for j in range(C):
        p = aprior[j] * right[j] / rwt
        total += rwt * (p * (1.0 - p))
    return total, rwt


def _assert_search_is_rparts(rng, nclass, C, aprior, ccnt, awt, countn) -> None:
    """The compiled Gray-code search and rpart's loop written out, on one node with a drawn
    minimum bucket: the same best impurity (sign included) and the same split."""
    k = int(countn.sum())
    total, rwt = _total(C, aprior, ccnt)
    edge = int(rng.integers(1, 6))
    want = _reference_search(k, nclass, C, aprior, edge, ccnt, awt, countn, total, rwt)
    got = _compiled_search(k, nclass, C, aprior, edge, ccnt, awt, countn, total, rwt)
    assert got[0] == want[0] and np.signbit(got[0]) == np.signbit(want[0])
    assert got[1] == want[1]


@pytest.mark.parametrize("balanced", [False, True])
@pytest.mark.parametrize("seed", range(40))
def test_gray_code_search_is_rparts_to_the_bit(seed, balanced):
    rng = np.random.default_rng(seed)
    C = int(rng.choice([3, 4, 6, 12, 30]))
    nclass = int(rng.integers(3, 11))
    aprior, ccnt, awt, countn = _node(rng, nclass, C, int(rng.integers(0, 4)), balanced)
    _assert_search_is_rparts(rng, nclass, C, aprior, ccnt, awt, countn)


@pytest.mark.parametrize("seed", range(30))
def test_continuous_search_is_rparts_to_the_bit(seed):
    rng = np.random.default_rng(100 + seed)
    C = int(rng.choice([3, 5, 30]))
    k = int(rng.integers(20, 200))
    xt = np.sort(rng.integers(0, 12, k).astype(float))  # many ties between records
    yt = rng.integers(0, C, k).astype(float)
    y_all = np.concatenate([np.arange(C), rng.integers(0, C, 300)]).astype(float)
    if seed % 2:  # every class equally often: equal priors, exact ties between cuts
        y_all = np.repeat(np.arange(C), 40).astype(float)
    aprior = cart.altered_priors(y_all, C)
    edge = int(rng.integers(1, 8))
    want = _reference_cont(k, xt, yt, C, aprior, edge)
    sp = np.zeros(1)
    imp, direction = gini_cont(k, xt, yt, C, aprior, edge, np.zeros(C), np.zeros(C), sp)
    assert imp == want[0] and direction == want[1]
    if want[2] is not None:
        assert sp[0] == want[2]


@pytest.mark.parametrize("balanced", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_gray_code_blocks_are_rparts_to_the_bit(seed, balanced):
    """Factors of 10 to 15 levels: the search bounds blocks of 2^4 and 2^8 Gray-code steps at
    once and steps only the weights through the blocks it rules out; the split and the
    improvement stay rpart's, ties included."""
    rng = np.random.default_rng(500 + seed)
    C = int(rng.choice([3, 4, 6]))
    nclass = int(rng.integers(10, 16))
    aprior, ccnt, awt, countn = _node(rng, nclass, C, int(rng.integers(0, 6)), balanced)
    if seed % 3 == 0:  # nearly pure levels, as the many small levels of a survey's factor
        major = rng.integers(0, C, nclass)
        ccnt = np.where(np.arange(C)[:, None] == major[None, :], ccnt + 3, ccnt * (ccnt < 2))
        countn = ccnt.sum(axis=0).astype(np.int64)
        awt = np.zeros(nclass)
        for c in range(nclass):
            for j in range(C):
                for _ in range(int(ccnt[j, c])):
                    awt[c] += aprior[j]
    _assert_search_is_rparts(rng, nclass, C, aprior, ccnt, awt, countn)
