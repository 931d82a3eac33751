"""The squared-Euclidean searches visit their queries in order of their sums, take the nearest
record from a k-d tree's two nearest (a ball only where the second is within reach) and MC's
counts from the tree's few nearest within the radius (a ball only where there are more):
the same floats and counts as every pair, and as the given order, bit for bit. Checked on
values on coarse grids (ties at the minimum and on the radius), copies of queries among the
targets and duplicated targets, with the thresholds lowered so that small cases take every
path."""

from __future__ import annotations

import numpy as np
import pytest
from search_cases import every_pair, rounded_pair

from capkit.distance import squared


def _case(rng: np.random.Generator, n: int, m: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    return rounded_pair(rng, n, m, p, grids=(2.0, 4.0, 1024.0), duplicated=0.4)


@pytest.mark.parametrize("seed", range(4))
def test_ordered_searches_equal_every_pair_and_the_given_order(monkeypatch, seed: int) -> None:
    rng = np.random.default_rng(300 + seed)
    monkeypatch.setattr(squared, "BALL_QUERIES", 11)
    monkeypatch.setattr(squared, "TREE_RECORDS", 10)
    for _ in range(8):
        n, m, p = int(rng.integers(5, 150)), int(rng.integers(30, 200)), int(rng.integers(1, 6))
        x, y = _case(rng, n, m, p)
        first = rng.random(m) < 0.4
        k = int(rng.integers(1, 8))
        d = every_pair(x, y)
        nearest = d.min(axis=1)
        radius = float(np.median(nearest))
        results = {}
        for order in (10**9, 3):  # the given order, then the sums' order
            monkeypatch.setattr(squared, "ORDER_QUERIES", order)
            for per_row, few in ((0, 8), (0, 2), (10**9, 8)):  # the k-d tree (a ball listed
                # past `few` targets within reach), then the search on sums
                monkeypatch.setattr(squared, "SUMS_PER_ROW", per_row)
                monkeypatch.setattr(squared, "TREE_IMPORT_PAIRS", 0)
                monkeypatch.setattr(squared, "BALL_FEW", few)
                got = (squared.squared_min(x, y),
                       squared.squared_ball_counts(x, y, radius, nearest=nearest),
                       squared.squared_ball_counts(x, y, radius),
                       squared.ball_counts_in_balls(x, y, radius, "squared"),
                       squared.knn_share_in_balls(x, y, first, k, "squared"),
                       squared.knn_share_in_balls(x, y, first, k, "l1"))
                results[order, per_row, few] = [a.tobytes() for a in got]
                np.testing.assert_array_equal(got[0], nearest)
                want = (d < radius).sum(axis=1)
                for counts in got[1:4]:
                    np.testing.assert_array_equal(counts, want)
        assert len({tuple(r) for r in results.values()}) == 1


def test_the_two_nearest_shortcut_is_taken_and_guarded(monkeypatch) -> None:
    """Most queries have a single target at the tree's nearest distance (no ball listed);
    queries with tied targets (duplicated targets) take the ball: both give every pair's
    minimum."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 3))
    y = rng.normal(size=(300, 3))
    y[150:] = y[:150]  # every target twice: every nearest is tied
    y = np.concatenate([y, rng.normal(size=(300, 3))])  # and single targets
    calls = []
    listed = squared.tree_balls

    def count(tree, q, radius, p):
        calls.append(len(q))
        return listed(tree, q, radius, p)

    monkeypatch.setattr(squared, "tree_balls", count)
    got = squared._tree_min(x, y)
    np.testing.assert_array_equal(got, every_pair(x, y).min(axis=1))
    assert 0 < sum(calls) < len(x)  # some balls, not one per query
