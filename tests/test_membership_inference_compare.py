"""capkit.membership_inference.compare: the paired AUC difference against DeLong's formulas
written pair by pair here, its invariances, the interval's coverage, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from capkit.errors import CapkitError
from capkit.membership_inference.compare import paired_auc_difference
from capkit.membership_inference.metrics import auc


def slow_delong(a, b, member, confidence=0.95):
    """DeLong, DeLong & Clarke-Pearson (1988): psi over every (member, non-member) pair, the
    structural components by loops, their covariances with denominators m - 1 and n - 1."""
    members = [i for i, f in enumerate(member) if f]
    others = [j for j, f in enumerate(member) if not f]
    m, n = len(members), len(others)

    def psi(x, y):
        return 1.0 if x > y else 0.5 if x == y else 0.0

    comps = []
    for s in (a, b):
        v10 = [sum(psi(s[i], s[j]) for j in others) / n for i in members]
        v01 = [sum(psi(s[i], s[j]) for i in members) / m for j in others]
        comps.append((v10, v01))

    def cov(x, y):
        mx, my = sum(x) / len(x), sum(y) / len(y)
        return sum((p - mx) * (q - my) for p, q in zip(x, y, strict=True)) / (len(x) - 1)

    (a10, a01), (b10, b01) = comps
    var = ((cov(a10, a10) + cov(b10, b10) - 2 * cov(a10, b10)) / m
           + (cov(a01, a01) + cov(b01, b01) - 2 * cov(a01, b01)) / n)
    auc_a, auc_b = sum(a10) / m, sum(b10) / m
    half = norm.ppf(0.5 + confidence / 2) * var ** 0.5
    return auc_a, auc_b, auc_a - auc_b, var ** 0.5, auc_a - auc_b - half, auc_a - auc_b + half


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_pair_by_pair_delong_with_ties(seed):
    rng = np.random.default_rng(seed)
    member = rng.random(70) < 0.4
    a = np.round(rng.normal(size=70) + 0.5 * member, 1)        # many ties
    b = np.round(0.6 * a + rng.normal(size=70), 0)              # correlated, coarse
    got = paired_auc_difference(a, b, member, confidence=0.9)
    expected = slow_delong(list(a), list(b), list(member), confidence=0.9)
    values = (got.auc_a, got.auc_b, got.difference, got.std_error, got.low, got.high)
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-14)
    assert got.auc_a == pytest.approx(auc(a, member), abs=1e-14)
    assert got.confidence == 0.9


def test_invariances():
    rng = np.random.default_rng(5)
    member = rng.random(200) < 0.5
    a = rng.normal(size=200) + member
    b = rng.normal(size=200)
    same = paired_auc_difference(a, a, member)
    assert same.difference == 0 and same.std_error == 0 and same.low == same.high == 0
    ab, ba = paired_auc_difference(a, b, member), paired_auc_difference(b, a, member)
    assert ab.difference == pytest.approx(-ba.difference, abs=1e-15)
    assert ab.std_error == pytest.approx(ba.std_error, rel=1e-12)
    # ranks only: a strictly increasing transform of either score changes nothing
    moved = paired_auc_difference(np.exp(a), b * 3 + 1, member)
    assert moved.difference == pytest.approx(ab.difference, abs=1e-15)
    assert moved.std_error == pytest.approx(ab.std_error, rel=1e-12)
    # a shared component (the draw) moves both AUCs and cancels in the paired difference
    shared = rng.normal(size=200) * 3 + member
    paired = paired_auc_difference(shared + 0.1 * a, shared + 0.1 * b, member)
    alone = paired_auc_difference(a, b, member)
    assert paired.std_error < alone.std_error / 3


def test_interval_covers_at_its_level():
    """Two scores with the same true AUC (independent, same distribution): the 95% interval
    holds 0 in about 95% of 400 seeded replications."""
    rng = np.random.default_rng(11)
    held = 0
    for _ in range(400):
        member = np.r_[np.ones(60, bool), np.zeros(60, bool)]
        a = rng.normal(size=120) + 0.5 * member
        b = rng.normal(size=120) + 0.5 * member
        result = paired_auc_difference(a, b, member)
        held += result.low <= 0 <= result.high
    assert 0.92 <= held / 400 <= 0.98


def test_bad_input():
    member = [True, False, True, False]
    with pytest.raises(CapkitError, match="same records"):
        paired_auc_difference([1, 2, 3, 4], [1, 2, 3], member)
    with pytest.raises(CapkitError, match="confidence"):
        paired_auc_difference([1, 2, 3, 4], [1, 2, 3, 4], member, confidence=1.0)
    with pytest.raises(CapkitError, match="at least 2"):
        paired_auc_difference([1, 2, 3], [1, 2, 3], [True, False, False])
    with pytest.raises(CapkitError, match="NaN"):
        paired_auc_difference([1, np.nan, 3, 4], [1, 2, 3, 4], member)
    with pytest.raises(CapkitError, match="no non-member"):
        paired_auc_difference([1, 2], [1, 2], [True, True])
