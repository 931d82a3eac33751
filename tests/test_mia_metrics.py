"""Membership-inference metrics: AUC, TPR at low FPR, advantage, epsilon lower bound.

Checked three ways: hand-computed cases (ties included), scikit-learn's roc_auc_score and
roc_curve, scipy's exact binomial interval, a slow pair-by-pair / threshold-by-threshold
reference written here, and invariance to monotone transforms of the scores (hypothesis).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta, binomtest
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from capkit.errors import CapkitError
from capkit.membership_inference.metrics import (
    FPRS,
    MembershipMetrics,
    auc,
    clopper_pearson,
    epsilon_lower_bound,
    metrics,
    roc_curve,
)

# ---------------------------------------------------------------- slow references


def slow_auc(scores, member):
    """Mann-Whitney by pairs: 1 per (member, non-member) pair ordered right, 1/2 per tie."""
    pos = [s for s, m in zip(scores, member, strict=True) if m]
    neg = [s for s, m in zip(scores, member, strict=True) if not m]
    total = 0.0
    for p in pos:
        for q in neg:
            total += 1.0 if p > q else 0.5 if p == q else 0.0
    return total / (len(pos) * len(neg))


def slow_points(scores, member):
    """(fpr, tpr) of "member if score >= t" for t = +inf and every distinct score."""
    pos = sum(bool(m) for m in member)
    neg = len(member) - pos
    points = [(0.0, 0.0)]
    for t in sorted(set(scores), reverse=True):
        tp = sum(1 for s, m in zip(scores, member, strict=True) if m and s >= t)
        fp = sum(1 for s, m in zip(scores, member, strict=True) if not m and s >= t)
        points.append((fp / neg, tp / pos))
    return points


def slow_tpr_at(scores, member, target):
    return max(tpr for fpr, tpr in slow_points(scores, member) if fpr <= target)


def slow_advantage(scores, member):
    return max(tpr - fpr for fpr, tpr in slow_points(scores, member))


def cp(k, n, conf=0.95):
    ci = binomtest(int(k), int(n)).proportion_ci(conf, method="exact")
    return ci.low, ci.high


def slow_bound(tp, fp, pos, neg, conf=0.95, delta=0.0):
    """Jagielski et al.'s eps at one threshold, both directions, from scipy's exact CI."""
    tpr_low, _ = cp(tp, pos, conf)
    _, fpr_high = cp(fp, neg, conf)
    _, fnr_high = cp(pos - tp, pos, conf)
    tnr_low, _ = cp(neg - fp, neg, conf)
    fwd = math.log((tpr_low - delta) / fpr_high) if tpr_low - delta > 0 else 0.0
    bwd = math.log((tnr_low - delta) / fnr_high) if tnr_low - delta > 0 else 0.0
    return max(fwd, 0.0), max(bwd, 0.0)


def slow_epsilon(scores, member, select, conf=0.95, delta=0.0):
    """Choose threshold and direction on ``select``, bound on the rest, by loops.

    Candidates in the documented order: every distinct selection score, decreasing, for the
    TPR/FPR direction, then the same for TNR/FNR; the first largest bound wins."""
    s_sel = [s for s, k in zip(scores, select, strict=True) if k]
    m_sel = [m for m, k in zip(member, select, strict=True) if k]
    pos, neg = sum(m_sel), len(m_sel) - sum(m_sel)
    candidates = []
    for direction in (0, 1):
        for t in sorted(set(s_sel), reverse=True):
            value = slow_bound(*_counts(s_sel, m_sel, t), pos, neg, conf, delta)[direction]
            candidates.append((value, t, direction))
    best = max(c[0] for c in candidates)
    _, t, direction = next(c for c in candidates if c[0] >= best * (1 - 1e-9))
    s_te = [s for s, k in zip(scores, select, strict=True) if not k]
    m_te = [m for m, k in zip(member, select, strict=True) if not k]
    tp, fp = _counts(s_te, m_te, t)
    return slow_bound(tp, fp, sum(m_te), len(m_te) - sum(m_te), conf, delta)[direction]


def _counts(s, m, t):
    tp = sum(1 for a, b in zip(s, m, strict=True) if b and a >= t)
    fp = sum(1 for a, b in zip(s, m, strict=True) if not b and a >= t)
    return tp, fp


# ---------------------------------------------------------------- hand-computed cases


def test_hand_case_with_ties():
    # members 3, 2, 2, 0 ; non-members 2, 1, 0
    scores = [3, 2, 2, 0, 2, 1, 0]
    member = [1, 1, 1, 1, 0, 0, 0]
    # pairs (12): 3 beats all 3 -> 3; each 2 ties the 2 (1/2) and beats 1 and 0 -> 2.5 each;
    # 0 ties 0 (1/2) -> 0.5; total 3 + 5 + 0.5 = 8.5
    assert auc(scores, member) == pytest.approx(8.5 / 12, abs=1e-15)
    res = metrics(scores, member)
    # ROC points: t=3 (1/4, 0); t=2 (3/4, 1/3); t=1 (3/4, 2/3); t=0 (1, 1)
    assert res.tpr_at_fpr[0.0] == 0.25
    assert res.tpr_at_fpr[0.1] == 0.25
    assert res.advantage == pytest.approx(0.75 - 1 / 3, abs=1e-15)
    assert res.n_members == 4 and res.n_nonmembers == 3


def test_all_equal_scores_auc_half():
    res = metrics(np.full(10, 0.7), [True] * 4 + [False] * 6)
    assert res.auc == 0.5
    assert res.advantage == 0.0
    assert all(v == 0.0 for v in res.tpr_at_fpr.values())
    assert res.epsilon_lower == 0.0


def test_perfect_separation():
    scores = np.r_[np.arange(100, 200), np.arange(0, 100)].astype(float)
    member = np.r_[np.ones(100, bool), np.zeros(100, bool)]
    res = metrics(scores, member)
    assert res.auc == 1.0 and res.advantage == 1.0
    assert all(v == 1.0 for v in res.tpr_at_fpr.values())
    # two values only: the threshold chosen on the selection half (1) flags the 50 test
    # members and no test non-member: TPR_low = 0.025^(1/50), FPR_high = 1 - 0.025^(1/50)
    # (Clopper-Pearson at k = n and k = 0)
    two = metrics(member.astype(float), member)
    low = 0.025 ** (1 / 50)
    assert two.auc == 1.0
    assert two.epsilon_lower == pytest.approx(math.log(low / (1 - low)), rel=1e-12)
    # reversed scores (members lower): AUC 0, and no bound, since both directions of the
    # bound read the rule "member if score >= t" as the attack meant it
    rev = metrics(-member.astype(float), member)
    assert rev.auc == 0.0 and rev.tpr_at_fpr[0.1] == 0.0 and rev.advantage == 0.0
    assert rev.epsilon_lower == 0.0
    # with 100 distinct member scores the threshold is the lowest selected member's score,
    # so test members below it are missed: smaller, never larger
    assert 0 < res.epsilon_lower <= two.epsilon_lower


def test_tpr_between_thresholds_reads_fpr_at_most_target():
    # 100 non-members 0..99 (one each), 10 members at 99.5, 10 at 97.5, 80 at -1
    neg = np.arange(100.0)
    pos = np.r_[np.full(10, 99.5), np.full(10, 97.5), np.full(80, -1.0)]
    res = metrics(np.r_[pos, neg], np.r_[np.ones(100, bool), np.zeros(100, bool)])
    # FPR 0: only the 10 above every non-member; FPR 0.01: one false positive (99) allowed,
    # so the 10 at 99.5 -> TPR 0.1 (97.5 would need the 99 and 98: FPR 0.02)
    assert res.tpr_at_fpr[0.0] == 0.1
    assert res.tpr_at_fpr[0.001] == 0.1
    assert res.tpr_at_fpr[0.01] == 0.1
    # FPR 0.1: ten false positives (90..99) allowed: both groups flagged -> 0.2
    assert res.tpr_at_fpr[0.1] == 0.2


# ---------------------------------------------------------------- against scikit-learn


@pytest.mark.parametrize("seed", range(6))
def test_against_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    member = rng.random(n) < rng.uniform(0.2, 0.8)
    member[:2] = [True, False]
    scores = np.round(rng.normal(size=n) + member * rng.uniform(0, 2), int(rng.integers(0, 3)))
    assert auc(scores, member) == pytest.approx(roc_auc_score(member, scores), abs=1e-12)
    fpr, tpr, thr = roc_curve(scores, member)
    sk_fpr, sk_tpr, sk_thr = sk_roc_curve(member, scores, drop_intermediate=False)
    np.testing.assert_array_equal(fpr, sk_fpr)
    np.testing.assert_array_equal(tpr, sk_tpr)
    np.testing.assert_array_equal(thr[1:], sk_thr[1:])  # sklearn's first threshold: inf
    res = metrics(scores, member)
    for f in FPRS:
        assert res.tpr_at_fpr[f] == float(sk_tpr[sk_fpr <= f].max())
    assert res.advantage == pytest.approx(float(np.max(sk_tpr - sk_fpr)), abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_against_slow_references(seed):
    rng = np.random.default_rng(100 + seed)
    n = 40
    member = rng.random(n) < 0.5
    member[:4] = [True, True, False, False]
    scores = rng.integers(0, 8, n).astype(float) + member * 1.5
    res = metrics(scores, member)
    assert res.auc == pytest.approx(slow_auc(list(scores), list(member)), abs=1e-15)
    for f in FPRS:
        assert res.tpr_at_fpr[f] == slow_tpr_at(list(scores), list(member), f)
    assert res.advantage == pytest.approx(slow_advantage(list(scores), list(member)),
                                          abs=1e-15)


# ---------------------------------------------------------------- Clopper-Pearson, epsilon


def test_clopper_pearson_against_scipy():
    for n in (1, 2, 7, 50, 1000):
        for k in sorted({0, 1, n // 3, n - 1, n}):
            low, high = clopper_pearson(np.array([k]), np.array([n]))
            # binomtest finds the ends by root finding (about 1e-10 relative)
            s_low, s_high = cp(k, n)
            assert low[0] == pytest.approx(s_low, rel=1e-8, abs=1e-15)
            assert high[0] == pytest.approx(s_high, rel=1e-8, abs=1e-15)
            # and the closed form with the beta quantile
            if 0 < k:
                assert low[0] == pytest.approx(beta.ppf(0.025, k, n - k + 1), rel=1e-12)
            if k < n:
                assert high[0] == pytest.approx(beta.ppf(0.975, k + 1, n - k), rel=1e-12)


def test_epsilon_hand_case():
    # 40 members, 40 non-members; members at 1, non-members at 0 except 2 non-members at 1
    scores = np.r_[np.ones(40), np.zeros(38), np.ones(2)]
    member = np.r_[np.ones(40, bool), np.zeros(40, bool)]
    rng = np.random.default_rng(7)
    eps = epsilon_lower_bound(scores, member, seed=7)
    # recompute the split the documented way: members first, then non-members, one stream
    select = np.zeros(80, bool)
    select[rng.permutation(40)[:20]] = True
    select[40 + rng.permutation(40)[:20]] = True
    assert eps == pytest.approx(slow_epsilon(list(scores), list(member), list(select)),
                                rel=1e-10)
    # the two false positives fall in the test half or not: bound by hand, threshold 1
    fp_test = int((~select[78:]).sum())
    tpr_low = 0.025 ** (1 / 20)  # 20 of 20 test members flagged
    fpr_high = cp(fp_test, 20)[1]
    assert eps == pytest.approx(math.log(tpr_low / fpr_high), rel=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_epsilon_against_slow_reference(seed):
    rng = np.random.default_rng(seed)
    n = 60
    member = np.r_[np.ones(30, bool), np.zeros(30, bool)]
    scores = rng.integers(0, 6, n) + member * rng.integers(0, 4, n)
    split = np.random.default_rng(seed)
    select = np.zeros(n, bool)
    select[split.permutation(30)[:15]] = True
    select[30 + split.permutation(30)[:15]] = True
    for delta in (0.0, 0.01):
        got = epsilon_lower_bound(scores, member, seed=seed, delta=delta)
        want = slow_epsilon(list(scores.astype(float)), list(member), list(select), 0.95, delta)
        assert got == pytest.approx(want, rel=1e-10, abs=1e-14)


def test_epsilon_does_not_reward_noise():
    # scores independent of membership: the bound, chosen on one half, must stay near 0
    rng = np.random.default_rng(3)
    member = rng.random(2000) < 0.5
    values = [epsilon_lower_bound(rng.normal(size=2000), member, seed=s) for s in range(10)]
    assert max(values) < 0.15
    # while taking the best threshold on all records at once would have inflated it
    # (sanity of the test: a strong attack gives a large bound)
    strong = epsilon_lower_bound(rng.normal(size=2000) + 3 * member, member)
    assert strong > 1.5


def test_epsilon_small_classes():
    assert math.isnan(epsilon_lower_bound([1.0, 0.0, 0.5], [True, False, False]))
    assert math.isnan(metrics([1.0, 0.0, 0.5], [True, False, False]).epsilon_lower)


# ---------------------------------------------------------------- frames, errors


def test_frame_one_row_per_attack():
    rng = np.random.default_rng(1)
    member = np.r_[np.ones(50, bool), np.zeros(60, bool)]
    frame = pd.DataFrame({"member": member, "a": rng.normal(size=110) + member,
                          "b": rng.normal(size=110)})
    before = frame.copy()
    table = metrics(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert list(table.index) == ["a", "b"]
    assert list(table.columns) == ["auc", "tpr_at_fpr_0", "tpr_at_fpr_0.001", "tpr_at_fpr_0.01",
                                   "tpr_at_fpr_0.1", "advantage", "epsilon_lower", "n_members",
                                   "n_nonmembers"]
    one = metrics(frame["a"].to_numpy(), member)
    assert isinstance(one, MembershipMetrics)
    assert table.loc["a"].to_dict() == pytest.approx(one.as_dict())
    # member passed separately, frame without it: same table
    pd.testing.assert_frame_equal(metrics(frame[["a", "b"]], member), table)


def test_errors():
    with pytest.raises(CapkitError, match="non-member"):
        metrics([1.0, 2.0], [True, True])
    with pytest.raises(CapkitError, match="no member"):
        metrics([1.0, 2.0], [False, False])
    with pytest.raises(CapkitError, match="NaN"):
        metrics(pd.DataFrame({"x": [1.0, np.nan]}), [True, False])
    with pytest.raises(CapkitError, match="one flag per score"):
        metrics([1.0, 2.0, 3.0], [True, False])
    with pytest.raises(CapkitError, match="boolean"):
        metrics([1.0, 2.0], ["yes", "no"])
    with pytest.raises(CapkitError, match="member is missing"):
        metrics(pd.DataFrame({"x": [1.0, 2.0]}))
    with pytest.raises(CapkitError, match="fprs"):
        metrics([1.0, 2.0], [True, False], fprs=(0.5, 2.0))
    with pytest.raises(CapkitError, match="confidence"):
        metrics([1.0, 2.0], [True, False], confidence=1.0)


def test_deterministic():
    rng = np.random.default_rng(5)
    member = rng.random(500) < 0.4
    scores = rng.normal(size=500) + member
    assert metrics(scores, member, seed=3) == metrics(scores, member, seed=3)


# ---------------------------------------------------------------- invariance (hypothesis)

TRANSFORMS = [
    lambda x: 3.0 * x + 7.0,
    lambda x: x ** 3,
    np.exp,
    lambda x: np.arctan(x / 50.0),
]


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-20, 20), min_size=4, max_size=60),
    flags=st.lists(st.booleans(), min_size=4, max_size=60),
    which=st.integers(0, len(TRANSFORMS) - 1),
    seed=st.integers(0, 5),
)
def test_invariant_to_monotone_transforms(values, flags, which, seed):
    n = min(len(values), len(flags))
    member = np.array(flags[:n])
    member[0], member[1] = True, False
    scores = np.array(values[:n], dtype=float)
    moved = TRANSFORMS[which](scores)
    # strictly increasing on these integers: the order and the ties are kept exactly
    assert np.array_equal(np.argsort(scores, kind="stable"), np.argsort(moved, kind="stable"))
    assert len(np.unique(moved)) == len(np.unique(scores))
    a = metrics(scores, member, seed=seed)
    b = metrics(moved, member, seed=seed)
    assert a.as_dict() == b.as_dict() or all(
        (x == y) or (math.isnan(x) and math.isnan(y))
        for x, y in zip(a.as_dict().values(), b.as_dict().values(), strict=True))
    assert a.auc == pytest.approx(slow_auc(list(scores), list(member)), abs=1e-12)


def test_tapas_reading_is_capkit_at_a_wider_interval():
    # TAPAS's EffectiveEpsilonReport._estimate_effective_epsilon(scores, labels, threshold,
    # confidence_level=c) takes binomtest(...).proportion_ci(1 - (1 - c) / 2) of TPR and FPR
    # and returns max(0, log(tpr.low / fpr.high)): capkit's forward bound at confidence
    # 1 - (1 - c) / 2 on the same threshold (here the test half is all records: one threshold)
    from capkit.membership_inference.metrics import _epsilon_bounds

    for tp, fp, pos, neg in ((45, 3, 50, 50), (30, 10, 40, 60), (200, 1, 250, 250)):
        tapas = max(0.0, math.log(cp(tp, pos, 0.975)[0] / cp(fp, neg, 0.975)[1]))
        forward, _ = _epsilon_bounds(np.array([tp]), np.array([fp]), pos, neg, 0.975, 0.0)
        assert forward[0] == pytest.approx(tapas, rel=1e-8)
        narrower, _ = _epsilon_bounds(np.array([tp]), np.array([fp]), pos, neg, 0.95, 0.0)
        assert narrower[0] > forward[0]
