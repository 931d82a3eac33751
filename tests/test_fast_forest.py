"""capkit.attacks._forest grows scikit-learn's random forests without its per-tree overhead:
the same trees node for node and the same predictions bit for bit, against
``RandomForestClassifier`` / ``RandomForestRegressor`` themselves, on varied cases (sample
weights or none, one-hot and scaled numeric features, duplicated rows with other targets, a
constant feature, two to five classes, other forest parameters) and through the attackers of
the baseline table ("rf", "ranger") against the code that fitted scikit-learn's estimator."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier, RandomForestRegressor

from capkit.attacks import _forest, fit
from capkit.attacks.grid import prepare
from tests.test_attacks_fast import CASES, frame

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "impurity",
               "n_node_samples", "weighted_n_node_samples", "missing_go_to_left")


def _data(seed: int, n: int, classes: int, regression: bool):
    """One-hot keys (10 and 9 levels), a scaled numeric key, a constant column; a third of the
    rows repeated with other targets (ties a split cannot separate); integer weights."""
    rng = np.random.default_rng(seed)
    x = np.zeros((n, 21))
    x[np.arange(n), rng.integers(0, 10, n)] = 1.0
    x[np.arange(n), 10 + rng.integers(0, 9, n)] = 1.0
    x[:, 19] = rng.integers(17, 91, n) / 73.0
    x[:, 20] = 1.0
    x = np.vstack([x, x[: n // 3]])
    m = len(x)
    y = rng.normal(0.0, 1000.0, m) if regression else rng.integers(0, classes, m) * 7
    return x, y, rng.integers(1, 50, m).astype(np.float64), rng


def _same_trees(reference, forest: _forest.Forest) -> None:
    assert len(reference.estimators_) == len(forest.trees)
    for estimator, tree in zip(reference.estimators_, forest.trees, strict=True):
        for name in TREE_ARRAYS:
            np.testing.assert_array_equal(getattr(estimator.tree_, name), getattr(tree, name),
                                          err_msg=name)


PARAMS = [
    {},
    {"max_features": None, "min_samples_leaf": 2},
    {"max_features": 0.5, "max_depth": 4, "min_samples_split": 0.05},
    {"max_features": 3, "min_weight_fraction_leaf": 0.01, "min_impurity_decrease": 1e-3},
    {"n_estimators": 37, "criterion": "entropy"},
]


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", range(len(PARAMS)))
def test_trees_and_predictions_are_scikit_learns(regression: bool, weighted: bool,
                                                  case: int) -> None:
    params = dict(PARAMS[case])
    if regression and params.get("criterion") == "entropy":
        del params["criterion"]
    for n, classes in ((40, 2), (300, 5)):
        x, y, w, rng = _data(10 * case + n, n, classes, regression)
        model = (RandomForestRegressor if regression else RandomForestClassifier)(
            **{"n_estimators": 100, "random_state": case, **params})
        weight = w if weighted else None
        forest = _forest.fit(model, x, y if regression else y.astype(np.int64), weight)
        assert forest is not None
        assert not hasattr(model, "estimators_")  # the estimator passed is not fitted
        model.fit(x, y, sample_weight=weight)
        _same_trees(model, forest)
        query = np.vstack([x[:50], rng.random((60, x.shape[1])).round(1)])
        np.testing.assert_array_equal(forest.predict(query), model.predict(query))
        if not regression:
            np.testing.assert_array_equal(forest.classes_, model.classes_)
            np.testing.assert_array_equal(forest.predict_proba(query),
                                          model.predict_proba(query))


def test_unseeded_forests_draw_from_numpys_global_state() -> None:
    x, y, w, _ = _data(1, 80, 3, False)
    model = RandomForestClassifier(n_estimators=20)
    np.random.seed(7)  # noqa: NPY002 (the global state is what an unseeded forest draws)
    forest = _forest.fit(model, x, y, w)
    np.random.seed(7)  # noqa: NPY002
    _same_trees(model.fit(x, y, sample_weight=w), forest)


def test_the_tree_order_of_the_sum_shows_in_the_bits() -> None:
    """The equality above would catch another order of the additions: adding the same trees'
    values in reverse order moves some predictions by rounding."""
    x, y, w, rng = _data(3, 300, 2, True)
    model = RandomForestRegressor(n_estimators=100, random_state=0)
    forest = _forest.fit(model, x, y, w)
    query = rng.random((200, x.shape[1])).round(1)
    backwards = np.zeros(len(query))
    for tree in forest.trees[::-1]:
        backwards += tree.predict(np.asarray(query, dtype=np.float32))[:, 0]
    backwards /= len(forest.trees)
    reference = model.fit(x, y, sample_weight=w).predict(query)
    np.testing.assert_allclose(backwards, reference, rtol=1e-12, atol=1e-9)
    assert not np.array_equal(backwards, reference)
    np.testing.assert_array_equal(forest.predict(query), reference)
    x, y, w, rng = _data(4, 300, 3, False)
    model = RandomForestClassifier(n_estimators=100, random_state=0)
    forest = _forest.fit(model, x, y, w)
    query = rng.random((200, x.shape[1])).round(1)
    backwards = np.zeros((len(query), 3))
    for tree in forest.trees[::-1]:
        backwards += tree.predict(np.asarray(query, dtype=np.float32))[:, :3]
    backwards /= len(forest.trees)
    reference = model.fit(x, y, sample_weight=w).predict_proba(query)
    assert not np.array_equal(backwards, reference)
    np.testing.assert_array_equal(forest.predict_proba(query), reference)


@pytest.mark.parametrize("model, data", [
    (RandomForestClassifier(oob_score=True), "dense"),
    (RandomForestClassifier(class_weight="balanced"), "dense"),
    (RandomForestClassifier(max_samples=0.5), "dense"),
    (RandomForestClassifier(bootstrap=False), "dense"),
    (RandomForestClassifier(ccp_alpha=0.01), "dense"),
    (RandomForestClassifier(max_leaf_nodes=8), "dense"),
    (RandomForestRegressor(criterion="poisson"), "dense"),
    (ExtraTreesClassifier(), "dense"),
    (RandomForestClassifier(), "sparse"),
    (RandomForestClassifier(), "nan"),
    (RandomForestClassifier(), "float target"),
])
def test_what_the_shortcut_does_not_cover_is_left_to_scikit_learn(model, data: str) -> None:
    x, y, w, _ = _data(5, 60, 2, False)
    if data == "sparse":
        x = sparse.csr_matrix(x)
    elif data == "nan":
        x[3, 19] = np.nan
    elif data == "float target":
        y = y + 0.5
    assert _forest.fit(model, x, y, w) is None


def test_another_scikit_learn_version_is_left_to_scikit_learn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    x, y, w, _ = _data(6, 60, 2, False)
    monkeypatch.setattr(_forest, "VERIFIED", ("0.0",))
    assert _forest.fit(RandomForestClassifier(), x, y, w) is None


@pytest.mark.parametrize("case", [0, 3, 6, 8])  # 2-4 classes, 32 and 33 features, ties
def test_forest_attackers_predict_as_with_scikit_learns_fit(
        case: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The "rf" (weighted cells) and "ranger" (records, ordinal keys) attackers, categorical
    and numeric targets, predictions and probabilities: with the shortcut as with
    scikit-learn's own ``fit`` (the code before it)."""
    levels, numeric, classes, tied = CASES[case]
    rng = np.random.default_rng(300 + case)
    original = frame(rng, 120, levels, numeric, classes, tied)
    synthetic = frame(rng, 160, levels, numeric, classes, tied)
    keys = [c for c in original.columns if c not in ("t", "y")]
    calls: list[bool] = []
    real = _forest.fit
    monkeypatch.setattr(fit, "fast_forest", lambda *a: calls.append(True) or real(*a))
    for target in ("t", "y"):
        grid = prepare(original, synthetic, keys, target,
                       kind="categorical" if target == "t" else "numeric")
        query = np.arange(grid.table.shape[1])
        runs = [("rf", "synthetic"), ("rf", "members")]
        runs += [("ranger", "synthetic")] * (target == "t")
        for name, train in runs:
            fast = fit.predict(name, grid, train, query, seed=case)
            with monkeypatch.context() as before:
                before.setattr(fit, "fast_forest", lambda *a: None)
                slow = fit.predict(name, grid, train, query, seed=case)
                if target == "t":
                    slow_p = fit.probabilities(name, grid, train, query, seed=case)
            np.testing.assert_array_equal(fast, slow)
            if target == "t":
                np.testing.assert_array_equal(
                    fit.probabilities(name, grid, train, query, seed=case), slow_p)
    assert len(calls) == 3 + 3 + 2  # every forest took the shortcut


@pytest.mark.parametrize("seed", [0, 3])
def test_other_forest_users_give_scikit_learns_answers(seed, monkeypatch):
    """SynthEval's forest attribute disclosure (one shared RandomState across the columns'
    forests, a classifier and a regressor) and PrivEval's forest key accuracy give the same
    numbers through ``_forest.fit`` as with scikit-learn's own fit (``_forest.fit`` switched
    off)."""
    import pandas as pd

    from capkit.attacks import early_priveval, forest_disclosure

    rng = np.random.default_rng(seed)
    n = 300

    def table(m):
        return pd.DataFrame({"a": rng.integers(0, 4, m).astype(str), "b": rng.integers(0, 3, m),
                             "c": rng.normal(0, 1, m).round(1), "d": rng.integers(0, 2, m)})

    real, syn = table(n), table(n)
    keys, sensitive = rng.integers(0, 5, (n, 3)), rng.integers(0, 3, n)

    def both():
        return (forest_disclosure.forest_disclosure(real, syn, ["a", "c"], ["a", "b", "d"],
                                                    seed=seed).table,
                early_priveval.forest_key_accuracy(keys, sensitive, seed=seed))

    fast = both()
    monkeypatch.setattr(forest_disclosure, "fast_forest", lambda *a, **k: None)
    monkeypatch.setattr(early_priveval, "fast_forest", lambda *a, **k: None)
    slow = both()
    pd.testing.assert_frame_equal(fast[0], slow[0], check_exact=True)
    assert fast[1] == slow[1]
