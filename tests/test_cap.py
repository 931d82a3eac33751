"""Baillargeon & Charest's CAP: the paper's numbers, properties, a record-by-record reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import sparse

from capkit import cap
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import tables as paper

O, S = paper.ORIGINALS, paper.SYNTHETICS  # noqa: E741 (the paper's names)


# --- the paper's printed numbers -------------------------------------------------------------

def test_smoking_illustration_section_2_3():
    under_s = cap.individual_cap(paper.SMOKING_O, paper.SMOKING_S)
    under_o = cap.individual_cap(paper.SMOKING_O, paper.SMOKING_O)
    # x0: sick smoker, x1: healthy smoker (row 0 / 1, column 0)
    assert under_o[0, 0] == pytest.approx(0.4, abs=1e-12)
    assert round(under_s[0, 0], 4) == 0.2424
    assert under_o[1, 0] == pytest.approx(0.6, abs=1e-12)
    assert round(under_s[1, 0], 4) == 0.7576


def test_tables_7_to_10_average_cap():
    assert round(cap.average_cap(O["O3"], S["S_b"]), 4) == 0.3074
    assert round(cap.average_cap(O["O3"], S["S_b"]), 2) == 0.31
    assert round(cap.average_cap(O["O3"], S["S_g"]), 2) == 0.35
    assert round(cap.average_cap(O["O4"], S["S_a"]), 3) == 0.318
    assert round(cap.average_cap(O["O4"], S["S_e"]), 3) == 0.309


def test_tables_9_10_correct_predictions():
    assert cap.correct_predictions(O["O4"], S["S_a"]) == 134
    assert cap.correct_predictions(O["O4"], S["S_e"]) == 272


def test_cap_of_o2_with_itself_is_one():
    assert cap.average_cap(O["O2"], O["O2"]) == 1.0


def test_exact_value_by_hand():
    # O3 with S_b, Definition 2 written out: sum_j sum_i o_ij s_ij / m_j, over n = 900
    o, s = O["O3"], S["S_b"]
    hand = sum(
        sum(int(o[i, j]) * int(s[i, j]) for i in range(3)) / sum(int(s[i, j]) for i in range(3))
        for j in range(3)
    ) / 900
    assert cap.average_cap(o, s) == pytest.approx(hand, rel=1e-15)


def test_ties_in_correct_predictions_are_averaged():
    o = np.array([[3, 1], [5, 2]])
    s = np.array([[4, 0], [4, 0]])  # key 0: tie between both targets; key 1 absent from S
    assert cap.correct_predictions(o, s) == pytest.approx((3 + 5) / 2)


def test_absent_key_version_1_and_2():
    o = np.array([[2, 1], [2, 5]])
    s = np.array([[1, 0], [3, 0]])  # key 1 absent from S: its 6 records count 0 (v1) or drop (v2)
    total = 2 * 0.25 + 2 * 0.75
    assert cap.average_cap(o, s, version=1) == pytest.approx(total / 10)
    assert cap.average_cap(o, s, version=2) == pytest.approx(total / 4)
    assert cap.individual_cap(o, s)[:, 1].tolist() == [0.0, 0.0]


def test_baseline_cap():
    # targets: 25 sick, 75 healthy of 100 -> 0.25^2 + 0.75^2
    assert cap.baseline_cap(paper.SMOKING_O) == pytest.approx(0.625)


# --- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("version", [0, 3, "1", None])
def test_bad_version(version):
    with pytest.raises(CapkitError, match="version must be 1 or 2"):
        cap.average_cap(O["O1"], S["S_a"], version=version)


def test_version_2_undefined_when_no_key_covered():
    o = np.array([[2, 0], [3, 0]])
    s = np.array([[0, 4], [0, 1]])
    assert cap.average_cap(o, s, version=1) == 0.0
    with pytest.raises(CapkitError, match="undefined"):
        cap.average_cap(o, s, version=2)


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.array([[1.5, 2], [0, 1]]), "non-integer"),
        (np.array([[-1, 2], [0, 1]]), "negative"),
        (np.array([[np.nan, 2], [0, 1]]), "NaN"),
        (np.array([1, 2, 3]), "2-D"),
        (np.array([["a", "b"], ["c", "d"]]), "numbers"),
    ],
)
def test_bad_tables(bad, message):
    with pytest.raises(CapkitError, match=message):
        cap.average_cap(bad, np.ones((2, 2), dtype=int))
    with pytest.raises(CapkitError, match=message):
        cap.average_cap(np.ones((2, 2), dtype=int), bad)


def test_shapes_must_match():
    with pytest.raises(CapkitError, match="same shape"):
        cap.average_cap(np.ones((2, 2)), np.ones((2, 3)))


def test_empty_tables():
    with pytest.raises(CapkitError, match="original table"):
        cap.average_cap(np.zeros((2, 2)), np.ones((2, 2)))
    with pytest.raises(CapkitError, match="synthetic table"):
        cap.average_cap(np.ones((2, 2)), np.zeros((2, 2)))


def test_inputs_not_modified():
    o, s = np.array([[1, 2], [3, 4]]), np.array([[0, 2], [1, 0]])
    o0, s0 = o.copy(), s.copy()
    cap.average_cap(o, s, 2)
    cap.individual_cap(o, s)
    cap.correct_predictions(o, s)
    assert (o == o0).all() and (s == s0).all()


# --- properties on random tables ----------------------------------------------------------------

tables = st.tuples(st.integers(1, 4), st.integers(1, 5)).flatmap(
    lambda shape: st.tuples(
        hnp.arrays(np.int64, shape, elements=st.integers(0, 30)),
        hnp.arrays(np.int64, shape, elements=st.integers(0, 30)),
    )
).filter(lambda pair: pair[0].sum() > 0 and pair[1].sum() > 0)


@settings(max_examples=200, deadline=None)
@given(tables)
def test_properties(pair):
    o, s = pair
    ind = cap.individual_cap(o, s)
    assert ((ind >= 0) & (ind <= 1)).all()
    present = s.sum(axis=0) > 0
    # Theorem 1: over the targets of a key present in S the CAPs sum to 1
    np.testing.assert_allclose(ind[:, present].sum(axis=0), 1.0)
    assert (ind[:, ~present] == 0).all()
    v1 = cap.average_cap(o, s, 1)
    assert 0 <= v1 <= 1
    if (o[:, present]).sum() > 0:
        v2 = cap.average_cap(o, s, 2)
        assert v2 >= v1 - 1e-15 and v2 <= 1 + 1e-15
    # sparse input gives the same numbers
    assert cap.average_cap(sparse.csr_array(o), sparse.csr_array(s)) == pytest.approx(v1)
    assert cap.correct_predictions(sparse.csr_array(o), sparse.csr_array(s)) == pytest.approx(
        cap.correct_predictions(o, s))
    # relabelling targets and keys (permuting rows/columns) changes nothing
    rows, cols = np.arange(o.shape[0])[::-1], np.roll(np.arange(o.shape[1]), 1)
    assert cap.average_cap(o[rows][:, cols], s[rows][:, cols]) == pytest.approx(v1, rel=1e-12)
    # stacked version agrees
    assert cap.average_cap_stack(o, s[np.newaxis])[0] == pytest.approx(v1, rel=1e-12)


# --- frames: record-by-record reference -----------------------------------------------------------

def reference_record_caps(original, synthetic, keys, target):
    """Definition 1 literally, one record at a time (slow, for testing only)."""
    out = []
    for _, x in original.iterrows():
        same_key = np.ones(len(synthetic), dtype=bool)
        for k in keys:
            same_key &= _equal(synthetic[k], x[k])
        denominator = same_key.sum()
        numerator = (same_key & _equal(synthetic[target], x[target])).sum()
        out.append(numerator / denominator if denominator else 0.0)
    return np.array(out)


def _equal(column, value):
    if pd.isna(value):
        return column.isna().to_numpy()
    return (column == value).to_numpy()


frames = st.integers(0, 2**31 - 1).map(lambda seed: _random_frames(seed))


def _random_frames(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(1, 40, size=2)

    def frame(size):
        df = pd.DataFrame({
            "a": rng.choice(["x", "y", "z", None], size=size),
            "b": rng.integers(0, 3, size=size).astype(float),
            "t": rng.choice(["p", "q", "r"], size=size),
        })
        df.loc[rng.random(size) < 0.1, "b"] = np.nan
        return df

    return frame(n), frame(m)


@settings(max_examples=60, deadline=None)
@given(frames)
def test_frames_match_record_reference(pair):
    original, synthetic = pair
    keys = ["a", "b"]
    fast = cap.record_cap(original, synthetic, keys, "t", allow_disjoint_levels=True).to_numpy()
    slow = reference_record_caps(original, synthetic, keys, "t")
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-15)
    from capkit.counts.tables import crosstab

    table = crosstab(original, synthetic, keys, "t", allow_disjoint_levels=True)
    assert cap.average_cap(table.original, table.synthetic) == pytest.approx(slow.mean(),
                                                                             rel=1e-12)
    # invariance to row order of either frame
    shuffled = original.sample(frac=1, random_state=1)
    again = cap.record_cap(shuffled, synthetic.sample(frac=1, random_state=2), keys, "t",
                           allow_disjoint_levels=True)
    np.testing.assert_allclose(again.loc[original.index].to_numpy(), fast)


def test_record_cap_keeps_index():
    original = pd.DataFrame({"k": ["a", "b"], "t": [1, 2]}, index=[10, 20])
    synthetic = pd.DataFrame({"k": ["a", "a"], "t": [1, 2]})
    out = cap.record_cap(original, synthetic, "k", "t")
    assert out.index.tolist() == [10, 20]
    assert out.tolist() == [0.5, 0.0]
