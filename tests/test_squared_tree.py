"""The squared-Euclidean searches' k-d tree is split at the sliding midpoint (``kd_tree``), not
at the median (scipy's default, the tree before): the answers do not depend on the tree's
splits, only the work does. Checked on integer lattices (many exact ties: at the nearest
distance, on MC's radius and at the k-th distance), with duplicated points and copies of
queries among the targets, every tree path forced: the same floats and counts as a pass over
every pair and as the median-split tree, bit for bit. Also: the usability check without a copy
of the data gives the verdicts of the check it replaced."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import cKDTree
from search_cases import every_pair, share_among_nearest

from capkit.distance import squared


def _lattice(rng: np.random.Generator, n: int, m: int, p: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """Small integers (Adult's raw columns are integers): squared distances are exact integers,
    so many queries have several targets at their nearest distance."""
    x = rng.integers(-3, 4, size=(n, p)).astype(float)
    y = rng.integers(-3, 4, size=(m, p)).astype(float)
    y[: m // 4] = x[rng.integers(0, n, m // 4)]  # copies of queries: distance 0
    y[m // 2: m // 2 + m // 4] = y[: m // 4]  # duplicated targets
    if rng.random() < 0.5:  # one column much wider (as fnlwgt)
        x[:, 0] *= 1000
        y[:, 0] *= 1000
    return x, y


def _searches(x, y, first, k, radius, nearest):
    return (squared.squared_min(x, y),
            squared.squared_ball_counts(x, y, radius, nearest=nearest),
            squared.squared_ball_counts(x, y, radius),
            squared.ball_counts_in_balls(x, y, radius, "squared"),
            squared.knn_share_in_balls(x, y, first, k, "squared"),
            squared.knn_share_in_balls(x, y, first, k, "l1"))


def test_the_tree_is_split_at_the_sliding_midpoint() -> None:
    y = np.random.default_rng(0).normal(size=(300, 3))
    tree = squared.kd_tree(y)
    assert isinstance(tree, cKDTree)
    # the median split puts half of each node's points on each side; the sliding midpoint
    # cuts the widest side's range in half, so on skewed values its first cut is not the median
    skewed = np.exp(np.random.default_rng(1).normal(size=(4096, 1)) * 2)
    assert squared.kd_tree(skewed).tree.lesser.children != 2048
    assert cKDTree(skewed).tree.lesser.children == 2048


@pytest.mark.parametrize("seed", range(4))
def test_ties_and_duplicates_equal_every_pair_and_the_median_tree(monkeypatch, seed) -> None:
    rng = np.random.default_rng(900 + seed)
    monkeypatch.setattr(squared, "BALL_QUERIES", 13)
    monkeypatch.setattr(squared, "TREE_RECORDS", 10)
    monkeypatch.setattr(squared, "SUMS_PER_ROW", 0)  # the tree wherever it is usable
    for _ in range(6):
        n, m, p = int(rng.integers(5, 160)), int(rng.integers(40, 220)), int(rng.integers(1, 5))
        x, y = _lattice(rng, n, m, p)
        first = rng.random(m) < 0.4
        k = int(rng.integers(1, 9))
        d = every_pair(x, y)
        nearest = d.min(axis=1)
        radius = float(np.median(nearest))
        tied = (d == nearest[:, None]).sum(axis=1)
        assert (tied > 1).any()  # the case holds ties at the nearest distance
        results = []
        for tree in ("sliding", "median"):
            if tree == "median":  # the tree of the code before: scipy's default (median) split
                monkeypatch.setattr(squared, "kd_tree", lambda v: cKDTree(v))
            for few in (8, 2):  # MC's counts from the tree's few nearest, or every ball listed
                monkeypatch.setattr(squared, "BALL_FEW", few)
                got = _searches(x, y, first, k, radius, nearest)
                np.testing.assert_array_equal(got[0], nearest)
                want = (d < radius).sum(axis=1)
                for counts in got[1:4]:
                    np.testing.assert_array_equal(counts, want)
                # the shares: the reference's integer counts and float operations
                np.testing.assert_array_equal(got[4], share_among_nearest(d, first, k))
                l1 = every_pair(x, y, "l1")
                np.testing.assert_array_equal(got[5], share_among_nearest(l1, first, k))
                results.append([a.tobytes() for a in got])
        assert all(r == results[0] for r in results)


def test_usable_without_a_copy_gives_the_old_verdicts(monkeypatch) -> None:
    def before(x: np.ndarray, y: np.ndarray) -> bool:
        size = np.abs(np.concatenate([x.ravel(), y.ravel()]))
        size = size[size > 0]
        return bool(len(size) == 0 or (size.max() < 1e100 and size.min() >= 1e-100))

    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(3000, 3)), rng.normal(size=(2500, 3))
    cases = []
    for value in (0.0, 1e-101, 1e-100, -1e-100, 9.9e99, 1e100, -1e100, 5e-324):
        for where in ("x", "y"):
            a, b = x.copy(), y.copy()
            (a if where == "x" else b)[int(rng.integers(0, 2500)), int(rng.integers(0, 3))] = value
            cases.append((a, b))
    cases.append((np.zeros((3000, 2)), np.zeros((2500, 2))))
    for a, b in cases:
        assert squared.tree_usable(a, b, 1) == before(a, b)
    monkeypatch.setattr(squared, "BLOCK_CELLS", 7)  # blocks of two rows, the last shorter
    for a, b in cases:
        assert squared.tree_usable(a, b, 1) == before(a, b)
