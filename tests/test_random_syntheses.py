"""The results behind Baillargeon & Charest's (2020) Figures 1 and 2
(capkit.papers.baillargeon_charest.random_syntheses), on tables small enough to work by hand.

Tables are count tables with the targets in rows and the keys in columns; a record in cell
(i, j) has individual CAP s[i, j] / sum_i s[i, j] (Definition 1). Every expected value below is
worked out from that definition, never taken from the code under test. The values are exact
binary fractions (1/4, 1/2, 3/4), so they compare with ==.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

from capkit import cap, paper
from capkit import random_syntheses as rs
from capkit.errors import CapkitError

# targets T1, T2 in rows; keys K1, K2 in columns. ORIG: 2 records (T1, K1), 1 (T2, K1), 3 (T2, K2)
ORIG = np.array([[2, 0], [1, 3]])
# SYN: CAP of (T1, K1) = 1/4, (T2, K1) = 3/4, (T1, K2) = 1/2, (T2, K2) = 1/2
SYN = np.array([[1, 1], [3, 1]])
# SYN3: (T1, K1) = (T2, K1) = 1/2, (T1, K2) = 1 (no original record there), (T2, K2) = 0
SYN3 = np.array([[5, 5], [5, 0]])


def test_table_labels():
    assert rs.table_labels(3) == ("a", "b", "c")
    labels = rs.table_labels(28)
    assert labels[19] == "t" and labels[25] == "z" and labels[26:] == ("a1", "b1")
    assert rs.LABELS == rs.table_labels(20) and rs.LABELS[-1] == "t"
    for bad in (0, -1, 2.0):
        with pytest.raises(CapkitError, match="n must be"):
            rs.table_labels(bad)


def test_record_caps_by_definition_1():
    caps = rs.record_caps(ORIG, SYN)
    # cell by cell, row-major, each repeated by its original count: 2 x 1/4, 1 x 3/4, 3 x 1/2
    assert caps.tolist() == [0.25, 0.25, 0.75, 0.5, 0.5, 0.5]
    # their mean is the average CAP, version 1 (Definition 2): 2.75 / 6
    assert caps.mean() == pytest.approx(2.75 / 6, abs=1e-15)  # one float division
    assert cap.average_cap(ORIG, SYN, 1) == pytest.approx(2.75 / 6, abs=1e-15)


def test_max_record_cap_leaves_out_cells_without_original_records():
    stack = np.stack([SYN, SYN3])
    # SYN: max(1/4, 3/4, 1/2) = 3/4; SYN3: the cell with CAP 1 has no original record, so 1/2
    assert rs.max_record_cap_stack(ORIG, stack).tolist() == [0.75, 0.5]


@pytest.mark.parametrize("threshold, expected", [
    (0.5, [1, 0]),     # strictly above 1/2: only (T2, K1) under SYN; under SYN3 nothing with o > 0
    (0.25, [4, 3]),    # SYN: (T2, K1) and the 3 records of (T2, K2); SYN3: the 3 records of K1
    (0.0, [6, 3]),     # SYN3's (T2, K2) has CAP 0: not above 0
    (0.75, [0, 0]),
])
def test_records_above_is_strict(threshold, expected):
    assert rs.records_above(ORIG, np.stack([SYN, SYN3]), threshold).tolist() == expected


def test_records_above_per_cell_thresholds():
    # the same records under SYN as the threshold: strictly higher under SYN3 are the K1 records of
    # T1 (1/2 > 1/4), not those of T2 (1/2 < 3/4), nor K2's (0 < 1/2)
    per_cell = cap.individual_cap(ORIG, SYN)
    assert rs.records_above(ORIG, np.stack([SYN3]), per_cell).tolist() == [2]


def test_box_panel_orders_by_average_and_keeps_ties_in_drawing_order():
    tie = SYN.copy()
    stack = np.stack([SYN, SYN3, tie])
    panel = rs.box_panel(ORIG, stack, ("a", "b", "c"), "ORIG", highlight=["c"])
    # averages: SYN 2.75/6; SYN3 (2 x 1/2 + 1/2 + 0) / 6 = 1.5/6; the tie keeps a before c
    assert panel.labels == ("b", "a", "c")
    np.testing.assert_allclose(panel.averages, [1.5 / 6, 2.75 / 6, 2.75 / 6], rtol=0, atol=1e-15)
    assert panel.values[0].tolist() == [0.5, 0.5, 0.5, 0.0, 0.0, 0.0]
    assert panel.highlight == frozenset({"c"}) and panel.title == "ORIG"
    # CAP_O(ORIG): (T1, K1) 2/3 for 2 records, (T2, K1) 1/3, (T2, K2) 1 for 3: (4/3 + 1/3 + 3) / 6
    assert panel.reference == pytest.approx((4 / 3 + 1 / 3 + 3) / 6, abs=1e-15)
    with pytest.raises(CapkitError, match="labels must name each of the 3 tables"):
        rs.box_panel(ORIG, stack, ("a", "b"), "ORIG")


def test_similar_average_different_max():
    averages = np.array([0.25, 0.25 + 2**-11, 0.5, 0.25 + 2**-10])
    maxima = np.array([0.5, 0.75, 1.0, 0.125])
    # pairs within 0.001: (0, 1) spread 1/4, (0, 3) 3/8, (1, 3) 5/8: the largest is (1, 3)
    assert rs.similar_average_different_max(averages, maxima) == (1, 3)
    # a difference of exactly tol belongs in; just beyond it does not
    assert rs.similar_average_different_max(np.array([0.5, 0.75]), np.array([0.0, 1.0]),
                                            tol=0.25) == (0, 1)
    with pytest.raises(CapkitError, match="no two tables"):
        rs.similar_average_different_max(np.array([0.5, 0.75]), np.array([0.0, 1.0]),
                                         tol=0.2499999)
    # equal spreads: the first pair in row-major order
    assert rs.similar_average_different_max(np.array([0.5, 0.5, 0.5]),
                                            np.array([0.0, 1.0, 0.0])) == (0, 1)
    with pytest.raises(CapkitError, match="tol must be"):
        rs.similar_average_different_max(averages, maxima, tol=-0.1)
    with pytest.raises(CapkitError, match="same length"):
        rs.similar_average_different_max(averages, maxima[:3])


def test_rank_correlation():
    assert rs.rank_correlation(np.array([1, 2, 3, 4]), np.array([1, 4, 9, 16])) == 1.0
    assert rs.rank_correlation(np.array([1, 2, 3]), np.array([3, 2, 1])) == -1.0
    assert math.isnan(rs.rank_correlation(np.array([1 / 3] * 4), np.array([1, 2, 3, 4])))
    assert math.isnan(rs.rank_correlation(np.array([1.0]), np.array([2.0])))
    with pytest.raises(CapkitError, match="same length"):
        rs.rank_correlation(np.array([1, 2]), np.array([1, 2, 3]))


def test_symbolic_average_cap():
    # O1 (100 records per cell): exactly 1/3 with any table whose keys are all present (v1)
    o1 = paper.ORIGINALS["O1"]
    assert rs.symbolic_average_cap(o1, 1) == sympy.Rational(1, 3)
    assert rs.symbolic_average_cap(o1, 2, present=[True, False, True]) == sympy.Rational(1, 3)
    # a 2 x 2 diagonal original by hand: (s11 / (s11 + s21) + s22 / (s12 + s22)) / 2
    s11, s12, s21, s22 = sympy.symbols("s_11 s_12 s_21 s_22", positive=True)
    got = rs.symbolic_average_cap(np.array([[1, 0], [0, 1]]), 1)
    by_hand = (s11 / (s11 + s21) + s22 / (s12 + s22)) / 2
    names = {str(x): x for x in got.free_symbols}
    assert set(names) <= {"s_11", "s_12", "s_21", "s_22"}
    assert sympy.simplify(got.subs({names.get(str(x), x): x for x in (s11, s12, s21, s22)})
                          - by_hand) == 0
    with pytest.raises(CapkitError, match="version must be 1 or 2"):
        rs.symbolic_average_cap(o1, 3)
    with pytest.raises(CapkitError, match="present must mark"):
        rs.symbolic_average_cap(o1, 1, present=[False, False, False])
    with pytest.raises(CapkitError, match="version 2 is undefined"):
        rs.symbolic_average_cap(np.array([[1, 0], [1, 0]]), 2, present=[False, True])
