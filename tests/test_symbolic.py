"""Symbolic checks of Theorem 1, Lemma 1 and Theorems 2-3 (Baillargeon & Charest)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from capkit import cap
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import symbolic


@given(
    o=st.lists(st.integers(0, 5), min_size=6, max_size=6).filter(lambda c: sum(c) > 0),
    s=st.lists(st.integers(0, 4), min_size=6, max_size=6).filter(lambda c: sum(c) > 0),
)
@settings(max_examples=40, deadline=None)
def test_symbolic_average_cap_matches_numeric(o, s):
    # the symbolic builder, fed numbers, must agree with capkit.cap (both versions)
    o_np, s_np = np.array(o).reshape(2, 3), np.array(s).reshape(2, 3)
    for version in (1, 2):
        covered = o_np.sum(axis=0)[s_np.sum(axis=0) > 0].sum()
        if version == 2 and covered == 0:
            continue
        value = symbolic.average_cap_expr(sp.Matrix(o_np), sp.Matrix(s_np), version)
        assert isinstance(value, sp.Rational)  # exact arithmetic on integer tables
        assert float(value) == pytest.approx(cap.average_cap(o_np, s_np, version), rel=1e-12)


def test_theorem1():
    d = symbolic.theorem1()
    assert d.holds
    assert d.steps[1][1] == 1  # general I


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("rows,keys,empty,alpha,beta,eta", [
    (2, 1, 1, 0, 0, 1), (3, 2, 1, 1, 2, 0), (3, 3, 0, 2, 1, 2), (4, 2, 2, 0, 3, 1),
])
def test_lemma1_move(version, rows, keys, empty, alpha, beta, eta):
    d = symbolic.lemma1_move(version, rows, keys, empty, alpha, beta, eta)
    assert d.holds, d.steps
    assert d.steps[-1][1] == 0


def test_lemma1_version_matters():
    # with a key absent from S the version-1 and version-2 changes differ (n vs n - |A|)
    v1 = symbolic.lemma1_move(1, 2, 1, 1).steps[0][1]
    v2 = symbolic.lemma1_move(2, 2, 1, 1).steps[0][1]
    assert sp.simplify(v1 - v2) != 0


def test_theorem2_and_margin_note():
    d = symbolic.theorem2()
    assert d.holds
    labels = dict(d.steps)
    assert str(labels["is the drop > 0 for non-negative counts? (sympy)"]) == "None"
    assert labels["drop when o^1_min = 0"] == 0


@pytest.mark.parametrize("k", [2, 3, 5])
def test_theorem3_chain(k):
    d = symbolic.theorem3(k)
    assert d.holds, d.steps
    assert "aligned" in d.to_latex()


def test_bad_arguments():
    with pytest.raises(CapkitError):
        symbolic.theorem3(1)
    with pytest.raises(CapkitError):
        symbolic.lemma1_move(1, rows=2, beta=1, eta=1)
    with pytest.raises(CapkitError):
        symbolic.average_cap_expr(sp.zeros(2, 2), sp.zeros(2, 3))
    with pytest.raises(CapkitError):
        symbolic.average_cap_expr(sp.ones(2, 2), sp.ones(2, 2), version=3)
