"""The 2-class kernels of capkit.synth (the Gini search of an ordered predictor, the factors'
node sums) against rpart's loops written out plainly here, to the bit.

:func:`capkit.synth._rpart_gini2.gini_cont2` keeps the class counts in registers and skips the
exact impurity of a candidate that a division-free estimate shows cannot be a new best;
:func:`~capkit.synth._rpart_gini2.node_sums2` counts records in packed integers. Neither may
change a result: the references below are rpart 4.1's ``gini.c`` loops as they stand (every
candidate's impurity summed class by class, left term then right term; the priors of a level
added record by record in data order), in plain Python floats (IEEE doubles, as the compiled
code). They must agree to the bit on improvement, direction and split point, over random nodes
with many ties in x, equal priors (so that candidates tie exactly and the first one must win),
very unbalanced classes and every ``edge`` (minbucket) from 1 to 7.
"""

from __future__ import annotations

import numpy as np
import pytest

from capkit.synth import cart
from capkit.synth._rpart_gini2 import gini_cont2, node_sums2
from capkit.synth._rpart_order import node_sums
from tests.test_rpart_split_exact import _reference_cont as _reference_cont_c


def _reference_cont(k, xt, yt, aprior, edge):
    """gini.c for an ordered predictor with 2 classes: returns (improve, direction, cut)."""
    return _reference_cont_c(k, xt, yt, 2, aprior, edge)


def _priors(rng, kind):
    """Altered priors of a response: equal classes (equal priors: exact ties between cuts),
    a random share, or a rare class 1. With 2 classes rpart's altered priors are 1 up to a
    rounding (so that most sums of them are exact); "arbitrary" priors, which the kernels take
    as well, make every sum's order show in its last bits."""
    if kind == "arbitrary":
        return rng.uniform(0.3, 3.0, 2)
    n = 600
    if kind == "equal":
        y_all = np.repeat([0.0, 1.0], n // 2)
    else:
        share = rng.uniform(0.2, 0.8) if kind == "random" else rng.uniform(0.002, 0.02)
        y_all = (rng.random(n) < share).astype(float)
        y_all[:2] = [0.0, 1.0]
    return cart.altered_priors(y_all, 2)


@pytest.mark.parametrize("kind", ["equal", "random", "rare", "arbitrary"])
@pytest.mark.parametrize("seed", range(25))
def test_continuous_two_class_search_is_rparts_to_the_bit(seed, kind):
    rng = np.random.default_rng(700 + seed)
    k = int(rng.integers(15, 400))
    levels = int(rng.choice([2, 5, 12, 1000]))
    xt = np.sort(rng.integers(0, levels, k).astype(float))  # ties between records
    if seed % 5 == 0:
        xt = np.sort(rng.normal(size=k))                     # all distinct
    share = {"equal": 0.5, "random": rng.uniform(0.1, 0.9), "rare": 0.03,
             "arbitrary": rng.uniform(0.1, 0.9)}[kind]
    yt = (rng.random(k) < share).astype(float)
    if seed % 7 == 0:
        yt = (xt > np.median(xt)).astype(float)              # a perfect split
    aprior = _priors(rng, kind)
    for edge in range(1, 8):
        want = _reference_cont(k, xt, yt, aprior, edge)
        sp = np.full(1, -1.0)
        imp, direction = gini_cont2(k, xt, yt, aprior, edge, sp)
        assert imp == want[0] and np.signbit(imp) == np.signbit(want[0]), (edge, imp, want)
        assert direction == want[1], edge
        if want[2] is not None:
            assert sp[0] == want[2], edge


@pytest.mark.parametrize("seed", range(20))
def test_two_class_node_sums_are_gini_cs_to_the_bit(seed):
    rng = np.random.default_rng(900 + seed)
    n, nf, maxcat = int(rng.integers(5, 500)), 4, 9
    nlev = np.array([2, 5, 9, 3])
    xc = np.column_stack([rng.integers(0, m, n) for m in nlev]).astype(np.int32)
    xc[:, 2] = np.where(xc[:, 2] == 4, 5, xc[:, 2])  # a level never used
    cy = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(float)
    aprior = _priors(rng, ["equal", "random", "rare", "arbitrary"][seed % 4])
    n1, n2 = int(rng.integers(0, n // 3)), int(rng.integers(2 * n // 3, n + 1))
    cidx = np.sort(rng.choice(n, n, replace=False))  # data order within the node
    # the reference: gini.c's sums, one record after the other in the node's order
    awt = np.zeros((nf, maxcat))
    cnt = np.zeros((nf, maxcat), dtype=np.int64)
    ccnt = np.zeros((nf, 2, maxcat))
    rwt = 0.0
    for jj in range(n1, n2):
        j = int(cy[jj])
        rwt += aprior[j]
        for f in range(nf):
            c = xc[cidx[jj], f]
            awt[f, c] += aprior[j]
            cnt[f, c] += 1
            ccnt[f, j, c] += 1.0
    right = ccnt[0].sum(axis=1)
    total = 0.0
    for j in range(2):
        p = aprior[j] * right[j] / rwt
        total += rwt * (p * (1.0 - p))
    out = [np.full((nf, maxcat), 7.0), np.full((nf, maxcat), 7, dtype=np.int64),
           np.full((nf, 2, maxcat), 7.0)]
    left, right0 = np.full(2, 7.0), np.zeros(2)
    got = node_sums2(n1, n2, cidx, cy, xc, aprior, left, right0, *out,
                     np.full((nf, maxcat), 7, dtype=np.int64))
    assert got == (total, rwt)
    assert out[0].tobytes() == awt.tobytes()
    assert np.array_equal(out[1], cnt) and out[2].tobytes() == ccnt.tobytes()
    assert left.tolist() == [0.0, 0.0] and right0.tolist() == right.tolist()
    # and the general kernel gives the same
    gen = [np.zeros((nf, maxcat)), np.zeros((nf, maxcat), dtype=np.int64),
           np.zeros((nf, 2, maxcat))]
    assert node_sums(n1, n2, cidx, cy, xc, aprior, 2, np.zeros(2), np.zeros(2), *gen) == got
    assert all(a.tobytes() == b.tobytes() for a, b in zip(gen, out, strict=True))
