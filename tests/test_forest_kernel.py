"""capkit.attacks._forest_kernel grows scikit-learn's Gini classification trees node for node:
every array of every tree (children, features, thresholds, values, impurities, sample counts
and weights) equals ``RandomForestClassifier``'s own, on cases chosen to reach each branch of the
grower: features counted by rank and features whose ranks are sorted (many distinct values in
small nodes), values closer than scikit-learn's ``FEATURE_THRESHOLD`` (1e-7) and signed zeros,
features constant within a node, up to seven classes, weighted and unweighted bootstraps, and the
forest parameters capkit's attackers use ("rf", "ranger") and others."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from capkit.attacks import _forest, _forest_kernel

ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "impurity",
          "n_node_samples", "weighted_n_node_samples", "missing_go_to_left", "max_depth")


def _features(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "continuous":  # distinct values: small nodes sort their ranks
        return np.column_stack([rng.normal(0, 1, n), rng.normal(50, 20, n),
                                rng.integers(0, 3, n), rng.random(n) * 1e4])
    if kind == "close":  # values within 1e-7 of each other (merged by scikit-learn's scan)
        near = rng.choice(np.array([-1e-7, -5e-8, -0.0, 0.0, 2e-8, 9e-8, 1.5e-7, 3e-7, 1.0]), n)
        return np.column_stack([near, rng.integers(0, 4, n) * 1e-8, rng.integers(0, 5, n),
                                1.0 + rng.integers(0, 3, n) * 1e-7])
    if kind == "onehot":  # keys constant within most nodes
        x = np.zeros((n, 12))
        x[np.arange(n), rng.integers(0, 8, n)] = 1.0
        x[:, 8] = rng.integers(17, 91, n) / 73.0
        x[:, 9] = 1.0
        x[:, 10] = rng.integers(0, 2, n)
        x[:, 11] = rng.integers(0, 40, n)
        return x
    return np.column_stack([rng.integers(0, k, n) for k in (2, 7, 16, 73, 120)])  # codes


CASES = [  # kind, rows, classes, weighted, forest parameters
    ("codes", 3000, 2, False, {"max_features": "sqrt", "min_samples_split": 10}),  # ranger
    ("codes", 400, 7, True, {}),  # rf on weighted cells
    ("continuous", 500, 3, False, {"max_features": "sqrt", "min_samples_split": 10}),
    ("continuous", 200, 2, True, {"max_features": None, "min_samples_leaf": 3}),
    ("close", 300, 3, False, {"max_features": 1}),
    ("close", 300, 2, True, {"max_depth": 3, "min_weight_fraction_leaf": 0.02}),
    ("onehot", 500, 4, True, {"min_samples_split": 0.03, "min_impurity_decrease": 1e-4}),
    ("onehot", 800, 5, False, {"max_features": 0.5, "min_samples_leaf": 2}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_grown_trees_are_scikit_learns(case: int, monkeypatch: pytest.MonkeyPatch) -> None:
    kind, n, classes, weighted, params = CASES[case]
    rng = np.random.default_rng(40 + case)
    x = _features(rng, n, kind)
    x = np.vstack([x, x[: n // 4]])  # repeated keys with other classes: ties no split parts
    y = (rng.integers(0, classes, len(x)) + (x[:, 1] > np.median(x[:, 1]))) % classes * 3
    weight = rng.integers(1, 30, len(x)).astype(np.float64) if weighted else None
    model = RandomForestClassifier(n_estimators=30, random_state=case, **params)
    monkeypatch.setattr(_forest, "GROW_WEIGHTED", True)  # weighted fits grown here too
    grown: list[int] = []
    real = _forest_kernel.grow
    monkeypatch.setattr(_forest_kernel, "grow", lambda *a: grown.append(1) or real(*a))
    forest = _forest.fit(model, x, y, weight)
    assert len(grown) == 30  # every tree grown by the kernel
    model.fit(x, y, sample_weight=weight)
    for estimator, tree in zip(model.estimators_, forest.trees, strict=True):
        for name in ARRAYS:
            np.testing.assert_array_equal(getattr(estimator.tree_, name), getattr(tree, name),
                                          err_msg=name)
    query = np.vstack([x[:100], rng.permuted(x[:100], axis=0)])
    np.testing.assert_array_equal(forest.predict_proba(query), model.predict_proba(query))
    np.testing.assert_array_equal(forest.predict(query), model.predict(query))


def test_weighted_fits_are_left_to_scikit_learns_builder_by_default(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    x = _features(rng, 200, "onehot")
    y = rng.integers(0, 3, 200)
    w = rng.integers(1, 9, 200).astype(np.float64)
    grown: list[int] = []
    real = _forest_kernel.grow
    monkeypatch.setattr(_forest_kernel, "grow", lambda *a: grown.append(1) or real(*a))
    model = RandomForestClassifier(n_estimators=4, random_state=0)
    np.testing.assert_array_equal(_forest.fit(model, x, y, w).predict_proba(x),
                                  model.fit(x, y, sample_weight=w).predict_proba(x))
    assert not grown
    _forest.fit(model, x, y)
    assert len(grown) == 4


def test_entropy_and_regression_are_left_to_scikit_learns_builder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    x = _features(rng, 200, "codes")
    y = rng.integers(0, 3, 200)
    monkeypatch.setattr(_forest_kernel, "grow", None)  # would fail if called
    model = RandomForestClassifier(n_estimators=5, criterion="entropy", random_state=0)
    forest = _forest.fit(model, x, y)
    np.testing.assert_array_equal(forest.predict_proba(x),
                                  model.fit(x, y).predict_proba(x))
