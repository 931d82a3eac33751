"""The membership-inference searches that skip records (k-d tree balls, windows on sums) give
the floats and counts of a pass over every pair: checked here against every pair, on values on
coarse grids (many distances tied, at the k-th distance and on the radius), with copies of
records and duplicated targets."""

from __future__ import annotations

import numpy as np
import pytest
from search_cases import every_pair, rounded_pair, share_among_nearest

from capkit.distance import radius, squared


def _case(rng: np.random.Generator, n: int, m: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    return rounded_pair(rng, n, m, p, grids=(2.0, 4.0, 8.0, 1024.0), duplicated=0.3)


@pytest.mark.parametrize("seed", range(4))
def test_knn_share_in_balls_equals_every_pair(monkeypatch, seed: int) -> None:
    """DPI in a k-d tree's balls, squared Euclidean and L1: the shares of every pair, bit for
    bit (integer counts, then the same float operations), with the queries in several batches."""
    monkeypatch.setattr(squared, "BALL_QUERIES", 17)
    rng = np.random.default_rng(seed)
    for _ in range(12):
        n, m, p = int(rng.integers(5, 120)), int(rng.integers(30, 200)), int(rng.integers(1, 6))
        k = int(rng.integers(1, min(25, m) + 1))
        x, y = _case(rng, n, m, p)
        first = rng.random(m) < 0.4
        d_sq, d_l1 = every_pair(x, y), every_pair(x, y, "l1")
        np.testing.assert_array_equal(
            squared.knn_share_in_balls(x, y, first, k, "squared"),
            share_among_nearest(d_sq, first, k))
        np.testing.assert_array_equal(squared.knn_share_in_balls(x, y, first, k, "l1"),
                                      share_among_nearest(d_l1, first, k))


@pytest.mark.parametrize("seed", range(3))
def test_dpi_paths_agree(monkeypatch, seed: int) -> None:
    """The public DPI searches take the tree when there are enough targets: with the threshold
    lowered, the squared and Gower (numeric columns only) shares equal those of the block pass
    and of the compiled kernel over every pair."""
    rng = np.random.default_rng(100 + seed)
    n, m, p, k = 150, 260, 3, 7
    x, y = _case(rng, n, m, p)
    first = rng.random(m) < 0.5
    want_sq = squared.squared_knn_share(x, y, first, k)  # m < TREE_RECORDS: every pair
    no_cat = np.zeros((n, 0), dtype=np.int64), np.zeros((m, 0), dtype=np.int64)
    want_l1 = radius.gower_knn_share(no_cat[0], x, no_cat[1], y, np.zeros(0), first, k)
    monkeypatch.setattr(squared, "TREE_RECORDS", 10)
    np.testing.assert_array_equal(squared.squared_knn_share(x, y, first, k), want_sq)
    np.testing.assert_array_equal(
        radius.gower_knn_share(no_cat[0], x, no_cat[1], y, np.zeros(0), first, k), want_l1)


@pytest.mark.parametrize("seed", range(4))
def test_nearest_and_ball_counts_in_balls_equal_every_pair(monkeypatch, seed: int) -> None:
    """The nearest squared distance and MC's counts within a radius through a k-d tree (forced
    by lowering the thresholds): the floats and integers of every pair, with radii on the grid
    of the distances (pairs exactly on the radius are outside: strict), for the squared
    distance and for the Gower sum without a categorical column (divided by its weight)."""
    monkeypatch.setattr(squared, "BALL_QUERIES", 13)
    monkeypatch.setattr(squared, "TREE_RECORDS", 10)
    monkeypatch.setattr(squared, "SUMS_PER_ROW", 0)
    monkeypatch.setattr(squared, "TREE_IMPORT_PAIRS", 0)
    monkeypatch.setattr(radius, "TREE_SLAB", 0)
    rng = np.random.default_rng(200 + seed)
    for _ in range(10):
        n, m, p = int(rng.integers(5, 120)), int(rng.integers(30, 200)), int(rng.integers(1, 6))
        x, y = _case(rng, n, m, p)
        d_sq = np.zeros((n, m))
        d_l1 = np.zeros((n, m))
        for c in range(p):  # column order, as the blocks and the compiled kernel add them
            diff = x[:, None, c] - y[None, :, c]
            d_sq += diff * diff
            d_l1 += np.abs(diff)
        nearest_ = d_sq.min(axis=1)
        np.testing.assert_array_equal(squared.squared_min(x, y), nearest_)
        for r in (float(np.median(nearest_)), float(np.quantile(d_sq, 0.05)), 0.0):
            want = (d_sq < r).sum(axis=1)
            np.testing.assert_array_equal(squared.squared_ball_counts(x, y, r), want)
            np.testing.assert_array_equal(
                squared.squared_ball_counts(x, y, r, nearest=nearest_), want)
        total = float(rng.choice([1.0, 3.0, 7.0]))
        no_cat = np.zeros((n, 0), dtype=np.int64), np.zeros((m, 0), dtype=np.int64)
        for r in (float(np.median(d_l1.min(axis=1))) / total,
                  float(np.quantile(d_l1, 0.05)) / total):
            want = (d_l1 / total < r).sum(axis=1)
            got = radius.gower_ball_counts(no_cat[0], x, no_cat[1], y, np.zeros(0), total, r)
            np.testing.assert_array_equal(got, want)
