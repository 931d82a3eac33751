"""Exact uniform sampling of I x J tables with a fixed total (Baillargeon & Charest, Sec. 4)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import sampling


def brute_force_tables(shape: tuple[int, int], total: int) -> set[tuple[int, ...]]:
    """Slow reference: every vector of I*J cell values in 0..total, kept when it sums to total."""
    cells = shape[0] * shape[1]
    return {v for v in itertools.product(range(total + 1), repeat=cells) if sum(v) == total}


def as_keys(tables: np.ndarray) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in t.ravel()) for t in tables]


# --- counting and enumeration --------------------------------------------------------------

@pytest.mark.parametrize("shape, total", [((1, 1), 0), ((1, 1), 7), ((1, 4), 3), ((2, 2), 0),
                                          ((2, 2), 3), ((2, 3), 4), ((3, 2), 4), ((3, 3), 3)])
def test_enumeration_matches_brute_force_and_count(shape, total):
    expected = brute_force_tables(shape, total)
    listed = sampling.enumerate_tables(shape, total)
    assert listed.shape == (len(expected), *shape)
    assert set(as_keys(listed)) == expected            # every table, each once
    assert len(set(as_keys(listed))) == len(listed)
    assert sampling.count_tables(shape, total) == len(expected)


def test_count_tables_printed_values():
    # 2x2 tables of 3 records: C(6, 3) = 20 (the uniformity case)
    assert sampling.count_tables((2, 2), 3) == 20
    # the paper's 3x3 tables of 900 records: C(908, 8), computed independently of the formula
    # by the product (901 * ... * 908) / 8!
    assert sampling.count_tables((3, 3), 900) == math.prod(range(901, 909)) // math.factorial(8)
    assert sampling.count_tables((3, 3), 900) == 11110584286373380831
    # shape is targets x keys; only the number of cells matters
    assert sampling.count_tables((2, 5), 10) == sampling.count_tables((10, 1), 10)


def test_enumeration_limit():
    with pytest.raises(CapkitError, match="at most"):
        sampling.enumerate_tables((3, 3), 900)


# --- uniformity ------------------------------------------------------------------------------

def chi_square_pvalue(draws: np.ndarray, shape: tuple[int, int], total: int) -> float:
    universe = as_keys(sampling.enumerate_tables(shape, total))
    index = {key: k for k, key in enumerate(universe)}
    observed = np.bincount([index[key] for key in as_keys(draws)], minlength=len(universe))
    assert observed.sum() == len(draws)                # nothing outside the universe
    return float(stats.chisquare(observed).pvalue)     # H0: all tables equally likely


@pytest.mark.parametrize("method", ["auto", "floyd", "permutation"])
def test_uniform_on_2x2_total_3(method):
    draws = sampling.uniform_tables((2, 2), 3, 20_000, seed=4, method=method)
    assert chi_square_pvalue(draws, (2, 2), 3) > 0.01


@pytest.mark.parametrize("method", ["floyd", "permutation"])
def test_uniform_on_3x3_total_4(method):
    # 495 tables, ~100 draws each
    draws = sampling.uniform_tables((3, 3), 4, 49_500, seed=5, method=method)
    assert chi_square_pvalue(draws, (3, 3), 4) > 0.01


def test_chi_square_detects_a_non_uniform_sampler():
    # the same test rejects a plausible wrong sampler (multinomial, equal cell probabilities)
    rng = np.random.default_rng(4)
    wrong = rng.multinomial(3, [0.25] * 4, size=20_000).reshape(-1, 2, 2)
    assert chi_square_pvalue(wrong, (2, 2), 3) < 0.01


def test_3x3_total_900_cell_marginal():
    # Under the uniform law a cell of a K-cell table with total n takes value v with
    # probability C(n - v + K - 2, K - 2) / C(n + K - 1, K - 1); compare the exact mean and
    # standard deviation of cell (0, 0) with 20,000 draws of the paper's setting.
    n, cells = 900, 9
    v = np.arange(n + 1)
    p = np.array([math.comb(n - x + cells - 2, cells - 2) for x in v], dtype=float)
    p /= math.comb(n + cells - 1, cells - 1)
    mean, sd = (p * v).sum(), math.sqrt((p * v**2).sum() - (p * v).sum() ** 2)
    assert mean == pytest.approx(100.0)
    draws = sampling.uniform_tables((3, 3), n, 20_000, seed=11)
    for cell in [(0, 0), (1, 2), (2, 2)]:
        x = draws[:, cell[0], cell[1]]
        assert abs(x.mean() - mean) < 4 * sd / math.sqrt(len(x))
        assert x.std() == pytest.approx(sd, rel=0.03)


# --- contract --------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), total=st.integers(0, 2000),
       size=st.integers(1, 50), seed=st.integers(0, 2**32 - 1),
       method=st.sampled_from(["auto", "floyd", "permutation"]))
def test_tables_are_valid(rows, cols, total, size, seed, method):
    tables = sampling.uniform_tables((rows, cols), total, size, seed, method=method)
    assert tables.shape == (size, rows, cols)
    assert tables.dtype == np.int64
    assert (tables >= 0).all()
    assert (tables.sum(axis=(1, 2)) == total).all()


def test_same_seed_same_tables():
    a = sampling.uniform_tables((3, 3), 900, 100, seed=7)
    b = sampling.uniform_tables((3, 3), 900, 100, seed=7)
    c = sampling.uniform_tables((3, 3), 900, 100, seed=8)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    d = sampling.uniform_tables((3, 3), 900, 100, np.random.default_rng(7))
    assert np.array_equal(a, d)


def test_degenerate_cases():
    assert np.array_equal(sampling.uniform_tables((1, 1), 5, 3, 0), np.full((3, 1, 1), 5))
    assert not sampling.uniform_tables((2, 3), 0, 4, 0).any()


@pytest.mark.parametrize("kwargs, match", [
    ({"total": -1}, "total"),
    ({"total": 2.5}, "total"),
    ({"shape": (0, 3)}, "shape"),
    ({"shape": (3, 0)}, "shape"),
    ({"shape": (3,)}, "shape"),
    ({"shape": 3}, "shape"),
    ({"size": 0}, "size"),
    ({"size": -4}, "size"),
    ({"method": "rejection"}, "method"),
])
def test_bad_input(kwargs, match):
    args = {"shape": (3, 3), "total": 900, "size": 10, "seed": 0} | kwargs
    with pytest.raises(CapkitError, match=match):
        sampling.uniform_tables(**args)


def test_count_tables_bad_input():
    with pytest.raises(CapkitError, match="total"):
        sampling.count_tables((2, 2), -1)
    with pytest.raises(CapkitError, match="shape"):
        sampling.count_tables((2, 0), 3)
