"""Lemma 1 and Theorems 2-3 of Baillargeon & Charest: minimal average CAP and minimal tables.

The reference here works record by record with exact fractions (no capkit code), and the brute
force enumerates synthetic tables with a plain recursive generator, independently of
capkit.papers.baillargeon_charest.sampling.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capkit import cap
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import minimal, minimal_search
from capkit.papers.baillargeon_charest import tables as paper

# --- slow references --------------------------------------------------------------------------


def records(table: np.ndarray) -> list[tuple[int, int]]:
    """The (target, key) of every record of a count table."""
    return [(i, j) for i in range(table.shape[0]) for j in range(table.shape[1])
            for _ in range(int(table[i, j]))]


def reference_cap(o: np.ndarray, s: np.ndarray, version: int) -> Fraction | None:
    """Average CAP record by record (Definitions 1-3); None when version 2 is undefined."""
    synthetic = records(s)
    total, counted = Fraction(0), 0
    for target, key in records(o):
        same_key = [t for t, k in synthetic if k == key]
        if not same_key:
            if version == 1:
                counted += 1
            continue
        total += Fraction(sum(t == target for t in same_key), len(same_key))
        counted += 1
    if counted == 0:
        return None
    return total / counted


def compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


def all_synthetic(shape: tuple[int, int], m: int):
    for cells in compositions(m, shape[0] * shape[1]):
        yield np.array(cells).reshape(shape)


def brute_minimum(o: np.ndarray, m: int, version: int) -> Fraction:
    values = [reference_cap(o, s, version) for s in all_synthetic(o.shape, m)]
    return min(v for v in values if v is not None)


# --- the paper's tables -----------------------------------------------------------------------


def test_must_show_o1_to_o4():
    o1 = paper.ORIGINALS["O1"]
    assert minimal.minimal_average_cap(o1, version=1) == 100 / 900
    assert minimal.minimal_average_cap(o1, version=2) == 1 / 3
    for name in ("O2", "O3", "O4"):
        for version in (1, 2):
            assert minimal.minimal_average_cap(paper.ORIGINALS[name], version=version) == 0
    for o in paper.ORIGINALS.values():
        for version in (1, 2):
            best = minimal.minimal_dataset(o, 900, version)
            assert best.sum() == 900 and best.dtype.kind == "i"
            assert cap.average_cap(o, best, version=version) == minimal.minimal_average_cap(
                o, version=version)


def test_exact_fractions():
    assert minimal.minimal_average_cap(paper.ORIGINALS["O1"], 1, exact=True) == Fraction(1, 9)
    assert minimal.minimal_average_cap(paper.SMOKING_O, 1, exact=True) == Fraction(5, 100)
    assert minimal.minimal_average_cap(paper.SMOKING_O, 2, exact=True) == Fraction(1, 10)
    assert minimal.minimal_average_cap(paper.SMOKING_O, 2) == 0.1


def test_sets_by_hand():
    o4 = paper.ORIGINALS["O4"]  # [[0,0,62],[197,136,134],[74,99,198]]
    assert minimal.set_b(o4).tolist() == [[0, 0], [0, 1]]
    assert minimal.set_c(o4).tolist() == [[0, 0], [0, 1], [0, 2]]
    assert minimal.set_cj(o4, 2).tolist() == [[0, 2]]
    assert minimal.set_d(o4).tolist() == [[0, 0], [0, 1]]
    o3 = paper.ORIGINALS["O3"]  # column minima 0 (twice), 78, 59
    assert minimal.set_c(o3).tolist() == [[0, 0], [1, 0], [1, 1], [2, 2]]
    assert minimal.column_minima(o3).tolist() == [0, 78, 59]
    tie = np.array([[1, 3], [2, 6]])  # ratios 1/3, 2/3 | 3/9, 6/9: D ties across keys
    assert minimal.set_b(tie).tolist() == [[0, 0]]
    assert minimal.set_d(tie).tolist() == [[0, 0], [0, 1]]
    assert minimal.o_star_min(tie) == Fraction(1, 3)
    absent = np.array([[2, 0, 1], [3, 0, 1]])  # key 2 absent from O: no 0/0 ratio in D
    assert minimal.set_d(absent).tolist() == [[0, 0]]
    assert minimal.o_star_min(absent) == Fraction(2, 5)
    assert minimal.set_b(absent).tolist() == [[0, 1], [1, 1]]


def test_minimal_dataset_and_lemma1_dataset_shapes():
    o = paper.SMOKING_O
    assert minimal.minimal_dataset(o, 7, 1).tolist() == [[0, 7], [0, 0]]
    assert minimal.minimal_dataset(o, 7, 2).tolist() == [[0, 7], [0, 0]]
    best = minimal.lemma1_dataset(o, [3, 4])
    assert best.tolist() == [[3, 4], [0, 0]]
    assert reference_cap(o, best, 1) == Fraction(20 * 3 // 3 + 5, 100)


def test_key_absent_from_o_lowers_version_1_only():
    o = np.column_stack([paper.ORIGINALS["O1"], np.zeros(3, dtype=int)])
    assert minimal.minimal_average_cap(o, 1) == 0
    assert minimal.minimal_average_cap(o, 2) == 1 / 3
    assert reference_cap(o, minimal.minimal_dataset(o, 5, 2), 2) == Fraction(1, 3)
    assert reference_cap(o, minimal.minimal_dataset(o, 5, 1), 1) == 0


# --- brute force ------------------------------------------------------------------------------

small_originals = st.tuples(st.integers(1, 2), st.integers(1, 3)).flatmap(
    lambda shape: st.lists(st.integers(0, 3), min_size=shape[0] * shape[1],
                           max_size=shape[0] * shape[1]).map(
        lambda cells: np.array(cells).reshape(shape))
).filter(lambda o: o.sum() > 0)


@settings(max_examples=40, deadline=None)
@given(o=small_originals, m=st.integers(1, 3))
def test_brute_force_agrees_with_minimal_average_cap(o, m):
    for version in (1, 2):
        best = brute_minimum(o, m, version)
        assert minimal.minimal_average_cap(o, version, exact=True) == best
        assert minimal.minimal_average_cap(o, version) == best.numerator / best.denominator
        assert reference_cap(o, minimal.minimal_dataset(o, m, version), version) == best


@settings(max_examples=30, deadline=None)
@given(o=small_originals, data=st.data())
def test_lemma1_dataset_is_best_for_its_key_totals(o, data):
    totals = np.array(data.draw(st.lists(st.integers(0, 2), min_size=o.shape[1],
                                         max_size=o.shape[1]).filter(lambda t: sum(t) > 0)))
    best = minimal.lemma1_dataset(o, totals)
    assert best.sum(axis=0).tolist() == totals.tolist()
    for version in (1, 2):
        same = [s for s in all_synthetic(o.shape, int(totals.sum()))
                if s.sum(axis=0).tolist() == totals.tolist()]
        values = [reference_cap(o, s, version) for s in same]
        if version == 2 and values[0] is None:
            continue  # every table with these key totals is undefined
        assert reference_cap(o, best, version) == min(values)


@settings(max_examples=30, deadline=None)
@given(o=small_originals, m=st.integers(1, 3))
def test_exact_stack_matches_reference_and_float_stack(o, m):
    stack = np.stack(list(all_synthetic(o.shape, m)))
    for version in (1, 2):
        num, den = minimal.exact_average_cap_stack(o, stack, version)
        floats = cap.average_cap_stack(o, stack, version)
        for k, s in enumerate(stack):
            ref = reference_cap(o, s, version)
            if ref is None:
                assert den[k] == 0 and np.isnan(floats[k])
            else:
                assert Fraction(int(num[k]), int(den[k])) == ref
                assert floats[k] == pytest.approx(float(ref), rel=1e-12, abs=1e-15)


# --- exhaustive search ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def search_2x2():
    originals = minimal.all_originals((2, 2), 4)
    return originals, minimal.exhaustive_search(originals, 3)


def test_search_tallies(search_2x2):
    originals, report = search_2x2
    assert report.n_originals == len(originals) == 69  # C(n+3, 3) summed over n = 1..4
    assert report.n_pairs == 69 * (4 + 10 + 20)
    for name in ("thm2_minimum", "thm2_reached", "thm2_minimizers", "c_table_value",
                 "lemma1_v1", "lemma1_v2_defined", "thm3_minimum", "thm3_reached",
                 "thm3_minimizers"):
        assert report.failed[name] == 0, name
    # independent predictions: several minimal keys iff both keys hold a zero cell;
    # version 2 undefined for some S iff O has a key absent from O
    both_zero = int(((originals == 0).any(axis=1)).all(axis=1).sum())
    assert report.failed["thm2_single_key"] == both_zero
    absent = int((originals.sum(axis=1) == 0).any(axis=1).sum())
    assert report.failed["v2_defined"] == absent == report.failed["lemma1_v2"]
    assert report.failed_positive_omin["thm2_single_key"] == 0
    undefined = sum(reference_cap(o, s, 2) is None for o in originals
                    for m in (1, 2, 3) for s in all_synthetic((2, 2), m))
    assert report.n_v2_undefined_pairs == undefined


def test_search_counterexamples_are_real(search_2x2):
    _, report = search_2x2
    found = report.smallest["thm2_single_key"]
    o, s = found.o, found.s
    assert reference_cap(o, s, 1) == Fraction(int(o.min()), int(o.sum()))
    assert (s.sum(axis=0) > 0).sum() >= 2
    assert int(o.sum()) == 1  # the smallest n possible
    found = report.smallest["v2_defined"]
    assert reference_cap(found.o, found.s, 2) is None
    found = report.smallest_positive_omin["thm2_single_cell"]
    assert found.o.min() > 0 and (found.s > 0).sum() >= 2
    assert reference_cap(found.o, found.s, 1) == Fraction(int(found.o.min()), int(found.o.sum()))
    frame = report.to_frame()
    assert list(frame["check"]) == list(minimal.CHECKS)


def test_check_original_detects_a_wrong_minimum(monkeypatch):
    # a broken minimal_average_cap must make the check fail (the search can fail)
    o = np.array([[1, 2], [3, 1]])
    family = minimal.synthetic_family((2, 2), 2)
    assert minimal.check_original(o, family)["thm2_minimum"] is None
    # the search module holds its own reference to the function it checks
    monkeypatch.setattr(minimal_search, "minimal_average_cap",
                        lambda o, version=1, exact=False: 0.5)
    assert minimal.check_original(o, family)["thm2_minimum"] is not None


def test_random_originals_deterministic_with_absent_keys():
    a = minimal.random_originals((2, 3), 6, 4, seed=3)
    b = minimal.random_originals((2, 3), 6, 4, seed=3)
    assert np.array_equal(a, b)
    assert a.sum(axis=(1, 2)).min() >= 1 and a.sum(axis=(1, 2)).max() <= 6
    assert (a.sum(axis=1) == 0).any(axis=1).any()
    assert (a == 0).any()
    assert len(np.unique(a.reshape(len(a), -1), axis=0)) == len(a)


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("m", [0, -1, 1.5, True, "3"])
def test_bad_m(m):
    with pytest.raises(CapkitError, match="m"):
        minimal.minimal_dataset(paper.SMOKING_O, m)


@pytest.mark.parametrize("o", [np.zeros((2, 2), dtype=int), np.zeros((0, 3)),
                               [[1, -1], [2, 3]], [[0.5, 1], [1, 1]], [1, 2, 3]])
def test_bad_original(o):
    for call in (lambda: minimal.minimal_average_cap(o), lambda: minimal.minimal_dataset(o, 3),
                 lambda: minimal.set_b(o), lambda: minimal.lemma1_dataset(o, [1, 1])):
        with pytest.raises(CapkitError, match="o"):
            call()


def test_bad_version_and_key_totals():
    with pytest.raises(CapkitError, match="version"):
        minimal.minimal_average_cap(paper.SMOKING_O, 3)
    with pytest.raises(CapkitError, match="key_totals"):
        minimal.lemma1_dataset(paper.SMOKING_O, [1, 2, 3])
    with pytest.raises(CapkitError, match="key_totals"):
        minimal.lemma1_dataset(paper.SMOKING_O, [1, -2])
    with pytest.raises(CapkitError, match="key_totals"):
        minimal.lemma1_dataset(paper.SMOKING_O, [0, 0])
    with pytest.raises(CapkitError, match="j"):
        minimal.set_cj(paper.SMOKING_O, 2)


def test_inputs_not_modified():
    o = np.array([[3, 1], [0, 2]])
    before = o.copy()
    minimal.minimal_dataset(o, 4, 2)
    minimal.lemma1_dataset(o, [1, 2])
    minimal.exhaustive_search([o], 2)
    assert np.array_equal(o, before)
