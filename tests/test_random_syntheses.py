"""Random 3x3 syntheses (Baillargeon & Charest, Sec. 4): stacked measures, Figure 1/2 helpers."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from capkit import cap, paper, plots, sampling
from capkit.errors import CapkitError
from capkit.plots import random_syntheses as rs

O, S = paper.ORIGINALS, paper.SYNTHETICS  # noqa: E741 (the paper's names)

small_stacks = hnp.arrays(np.int64, st.tuples(st.integers(1, 6), st.just(3), st.just(3)),
                          elements=st.integers(0, 4))


# --- slow record-by-record references ------------------------------------------------------

def records_of(table: np.ndarray) -> list[tuple[int, int]]:
    """One (target, key) pair per record."""
    return [(i, j) for i in range(table.shape[0]) for j in range(table.shape[1])
            for _ in range(int(table[i, j]))]


def slow_record_caps(o: np.ndarray, s: np.ndarray) -> list[float]:
    synthetic = records_of(s)
    out = []
    for target, key in records_of(o):
        same_key = [t for t, k in synthetic if k == key]
        out.append(sum(t == target for t in same_key) / len(same_key) if same_key else 0.0)
    return out


def slow_correct_predictions(o: np.ndarray, s: np.ndarray) -> float:
    synthetic = records_of(s)
    right = 0.0
    for target, key in records_of(o):
        same_key = [t for t, k in synthetic if k == key]
        if not same_key:
            continue
        freq = {t: same_key.count(t) for t in set(same_key)}
        best = [t for t, c in freq.items() if c == max(freq.values())]
        right += (target in best) / len(best)
    return right


# --- stacked measures against the references and the paper ---------------------------------

@settings(max_examples=40, deadline=None)
@given(stack=small_stacks, o=hnp.arrays(np.int64, (3, 3), elements=st.integers(0, 3)))
def test_stacked_measures_match_record_by_record(stack, o):
    if o.sum() == 0:
        o = o.copy()
        o[0, 0] = 1
    caps = rs.individual_cap_stack(o, stack)
    preds = rs.correct_predictions_stack(o, stack)
    maxima = rs.max_record_cap_stack(o, stack)
    above = rs.records_above(o, stack, 0.5)
    for t, s in enumerate(stack):
        slow = slow_record_caps(o, s)
        assert np.allclose(rs.record_caps(o, s) if s.sum() else slow, slow, rtol=0, atol=1e-15)
        assert preds[t] == pytest.approx(slow_correct_predictions(o, s), abs=1e-12)
        assert maxima[t] == pytest.approx(max(slow), abs=1e-15)
        assert above[t] == sum(c > 0.5 for c in slow)
        if s.sum():
            assert np.allclose(caps[t], cap.individual_cap(o, s), atol=1e-15)
            assert preds[t] == pytest.approx(cap.correct_predictions(o, s), abs=1e-12)


def test_paper_tables_9_10_predictions_and_record_caps():
    stack = np.stack([S["S_a"], S["S_e"]])
    assert rs.correct_predictions_stack(O["O4"], stack).tolist() == [134, 272]   # Sec. 4
    values = rs.record_caps(O["O3"], S["S_b"])
    assert len(values) == 900
    assert round(values.mean(), 2) == 0.31                                     # Table 7
    assert round(rs.record_caps(O["O3"], S["S_g"]).mean(), 2) == 0.35          # Table 8


def test_high_individual_caps_of_sb_and_sg_by_hand():
    # By hand from Tables 5, 7, 8: under S_b the 78 records (T2, K2) have CAP 113/203 and the
    # 93 records (T2, K3) have 213/231, the only cells above 1/2; under S_g no cell exceeds 1/2
    # (largest: 129/222 in the empty cell (T1, K1), then 147/299 for (T2, K3)).
    stack = np.stack([S["S_b"], S["S_g"]])
    assert rs.records_above(O["O3"], stack, 0.5).tolist() == [171, 0]
    assert rs.max_record_cap_stack(O["O3"], stack) == pytest.approx([213 / 231, 147 / 299])
    # per-cell threshold: records whose CAP is higher under S_b than under S_g (127 + 78 + 93)
    under_g = cap.individual_cap(O["O3"], S["S_g"])
    assert rs.records_above(O["O3"], stack[:1], under_g).tolist() == [127 + 78 + 93]


@settings(max_examples=40, deadline=None)
@given(stack=hnp.arrays(np.int64, (5, 3, 3), elements=st.integers(0, 50)))
def test_o1_average_is_one_third_when_all_keys_present(stack):
    # exact reference with fractions: sum_j sum_i o_ij s_ij / m_j / n
    o1 = O["O1"]
    averages = cap.average_cap_stack(o1, stack, 1)
    for t, s in enumerate(stack):
        m = s.sum(axis=0)
        exact = sum(Fraction(int((o1[:, j] * s[:, j]).sum()), int(m[j]))
                    for j in range(3) if m[j]) / 900
        assert exact == Fraction(int((m > 0).sum()), 9)   # 1/9 per present key
        if (m > 0).all():
            assert exact == Fraction(1, 3)
            assert averages[t] == 1 / 3


def test_symbolic_average_cap():
    one_third = sympy.Rational(1, 3)
    assert rs.symbolic_average_cap(O["O1"], 1) == one_third
    assert rs.symbolic_average_cap(O["O1"], 2) == one_third
    assert rs.symbolic_average_cap(O["O1"], 2, present=[True, False, True]) == one_third
    assert rs.symbolic_average_cap(O["O1"], 1, present=[True, False, True]) == sympy.Rational(2, 9)
    # not a constant for O3: substituting S_b's counts gives the numeric average CAP
    expr = rs.symbolic_average_cap(O["O3"], 1)
    assert expr.free_symbols
    values = {sympy.Symbol(f"s_{i + 1}{j + 1}", positive=True): int(S["S_b"][i, j])
              for i in range(3) for j in range(3)}
    exact = expr.subs(values)
    assert exact.is_Rational
    assert float(exact) == pytest.approx(cap.average_cap(O["O3"], S["S_b"]), rel=1e-14)
    with pytest.raises(CapkitError, match="present"):
        rs.symbolic_average_cap(O["O1"], 1, present=[False, False, False])


def test_box_panel_orders_by_average_and_keeps_labels():
    stack = sampling.uniform_tables((3, 3), 900, 20, seed=1)
    panel = rs.box_panel(O["O3"], stack, rs.LABELS, "O3")
    averages = cap.average_cap_stack(O["O3"], stack, 1)
    assert np.all(np.diff(panel.averages) >= 0)
    for label, values, average in zip(panel.labels, panel.values, panel.averages, strict=True):
        t = rs.LABELS.index(label)
        assert average == averages[t]
        assert values.mean() == pytest.approx(average, abs=1e-12)
    assert sorted(panel.labels) == list(rs.LABELS)
    assert panel.reference == cap.average_cap(O["O3"], O["O3"])
    with pytest.raises(CapkitError, match="labels"):
        rs.box_panel(O["O3"], stack, rs.LABELS[:5], "O3")


def test_similar_average_different_max_matches_brute_force():
    rng = np.random.default_rng(3)
    averages, maxima = rng.random(40).round(2), rng.random(40)
    t, u = rs.similar_average_different_max(averages, maxima, tol=0.01)
    best, pair = -1.0, None
    for a in range(40):
        for b in range(a + 1, 40):
            if abs(averages[a] - averages[b]) <= 0.01 and abs(maxima[a] - maxima[b]) > best:
                best, pair = abs(maxima[a] - maxima[b]), (a, b)
    assert (t, u) == pair
    with pytest.raises(CapkitError, match="no two"):
        rs.similar_average_different_max(np.array([0.0, 1.0]), np.array([0.0, 1.0]), tol=0.1)


def test_rank_correlation_constant_input_is_nan():
    assert np.isnan(rs.rank_correlation(np.full(10, 1 / 3), np.arange(10.0)))
    assert rs.rank_correlation(np.arange(10.0), np.arange(10.0) ** 3) == pytest.approx(1.0)


@pytest.mark.parametrize("bad, match", [
    (np.zeros((2, 3, 2), dtype=int), "s_stack must have shape"),
    (-np.ones((2, 3, 3), dtype=int), "negative"),
    (np.full((2, 3, 3), 0.5), "integer"),
])
def test_bad_stacks(bad, match):
    with pytest.raises(CapkitError, match=match):
        rs.correct_predictions_stack(O["O3"], bad)


# --- figures ---------------------------------------------------------------------------------

def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_table_labels():
    assert rs.table_labels(20) == rs.LABELS == tuple("abcdefghijklmnopqrst")
    assert rs.table_labels(28)[25:] == ("z", "a1", "b1")
    with pytest.raises(CapkitError, match="n must be"):
        rs.table_labels(0)


def test_figures_are_byte_identical_on_rerun(tmp_path):
    stack = sampling.uniform_tables((3, 3), 900, 6, seed=1)
    labels = rs.table_labels(6)
    digests = []
    for run in range(2):
        panels = [rs.box_panel(o, stack, labels, name) for name, o in O.items()]
        fig1 = rs.individual_cap_boxplots(panels)
        assert len(fig1.axes) == 4
        # 20 boxes per panel; red dots at the averages, in plotting order
        ax = fig1.axes[2]
        dots = [line for line in ax.get_lines() if line.get_color() == rs.AVERAGE_COLOUR]
        assert len(dots) == 1 and np.allclose(dots[0].get_ydata(), panels[2].averages)
        assert [t.get_text() for t in ax.get_xticklabels()] == list(panels[2].labels)
        averages = {name: {"version 1": cap.average_cap_stack(o, stack, 1),
                           "version 2": cap.average_cap_stack(o, stack, 2)}
                    for name, o in O.items()}
        refs = {name: cap.average_cap(o, o) for name, o in O.items()}
        fig2 = rs.average_cap_distributions(averages, refs)
        preds = {name: rs.correct_predictions_stack(o, stack) for name, o in O.items()}
        rho = {name: rs.rank_correlation(averages[name]["version 1"], preds[name])
               for name in O}
        fig3 = rs.predictions_scatter({n: a["version 1"] for n, a in averages.items()},
                                      preds, rho)
        paths = []
        for fig, name in [(fig1, "f1"), (fig2, "f2"), (fig3, "f3")]:
            paths += plots.save(fig, name, tmp_path / str(run))
            plt.close(fig)
        digests.append([sha(p) for p in paths])
    assert digests[0] == digests[1]
