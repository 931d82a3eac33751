"""capkit's MLPRegressor training (capkit.attacks._mlp_regressor) against scikit-learn's: the same
coefficients, intercepts, iteration count, loss curve and predictions bit for bit (the same
operations in the same order), data on which a reordered operation of the new steps gives other
bits, the estimators it leaves to scikit-learn, and the numeric attacker's predictions through
it equal to those through scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPRegressor

from capkit.attacks import _mlp_regressor as mr
from capkit.attacks import fit as attack_fit
from capkit.attacks.attackers import REGISTRY
from capkit.attacks.grid import prepare
from capkit.distance.neighbours import one_thread


def _cases():
    rng = np.random.default_rng(3)
    # sizes around the batch of 200 (one short batch, exactly one batch, a last batch of one,
    # a last batch of 130 above numpy's pairwise block of 128, several batches), weighted and
    # not, ties (duplicated rows), a constant column, one-hot columns, another alpha and tol,
    # two hidden layers, max_iter reached after a few epochs
    for n in (7, 199, 200, 201, 330, 601):
        x = rng.normal(size=(n, 4))
        y = x[:, 0] - 2 * x[:, 1] ** 2 + rng.normal(size=n)
        yield f"n{n}", x, y, None, {}
        yield f"n{n}-weighted", x, y, rng.integers(1, 40, size=n).astype(float), {}
    c = np.repeat(rng.integers(0, 3, size=(70, 3)).astype(float), 4, axis=0)  # ties
    c[:, 1] = 1.0  # a constant column
    yield "ties", c, np.repeat(rng.normal(size=70), 4), rng.random(280) * 5, {}
    e = np.column_stack([rng.normal(size=(390, 2)) * [1.0, 1e-3],
                         np.eye(5)[rng.integers(0, 5, size=390)]])
    yield "onehot", e, e[:, 0] * 3 + e[:, 3], rng.integers(1, 3, size=390).astype(float), \
        {"alpha": 0.01, "tol": 1e-3}
    # a penalty that dominates the loss (its rounding shows in the loss curve), fractional
    # weights
    yield "penalty", e, e[:, 0] * 1e-3, rng.random(390) * 7, {"alpha": 50.0, "max_iter": 30}
    yield "two layers", e, np.sin(e[:, 0]), None, {"hidden_layer_sizes": (20, 10),
                                                   "max_iter": 6, "n_iter_no_change": 3}


@pytest.mark.parametrize("case", list(_cases()), ids=lambda c: c[0])
def test_fit_and_predict_equal_scikit_learns_bit_for_bit(case):
    _, x, y, w, options = case
    model = MLPRegressor(**{"max_iter": 500, "random_state": 5, **options})
    assert mr.covered(model, x)
    with one_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x, y, sample_weight=w)
        got = mr.fit(model, x, y, w)
        x_test = x[:: max(1, len(x) // 40)]
        want_pred, got_pred = model.predict(x_test), got.predict(x_test)
    # the same floating-point operations in the same order: bit equality, no tolerance
    assert got.n_iter_ == model.n_iter_
    assert np.array_equal(got.loss_curve_, model.loss_curve_)
    for a, b in zip(got.coefs_ + got.intercepts_, model.coefs_ + model.intercepts_,
                    strict=True):
        assert a.shape == b.shape and np.array_equal(a, b)
    assert got_pred.dtype == want_pred.dtype and np.array_equal(got_pred, want_pred)


def test_output_delta_and_loss_terms_are_numpys():
    rng = np.random.default_rng(8)
    out = rng.normal(size=(200, 1)) * 10.0 ** rng.integers(-3, 3, size=(200, 1))
    y = rng.normal(size=500) * 100
    w = rng.integers(1, 1000, size=500) * rng.random(500)
    rows = rng.permutation(500)[:200]
    delta, wb, sq = np.empty((200, 1)), np.empty(200), np.empty(200)
    mr._output_delta(out, y, w, rows, delta, wb, sq)
    y2 = y.reshape(-1, 1)[rows]
    want = out - y2
    want *= w[rows].reshape(-1, 1)
    assert np.array_equal(delta, want)
    # squared_loss's np.average((y - out) ** 2, weights=w, axis=0) from the same terms
    avg = np.average((y2 - out) ** 2, weights=w[rows], axis=0)
    assert np.array_equal(np.sum(sq) / np.sum(wb), avg[0])


def test_data_tell_reordered_operations_apart():
    """On data like the test's, the reorderings a kernel could make give other bits: the
    weighted error as out * w - y * w, the squared term as e * (e * w), the weighted sum added
    sequentially instead of numpy's pairwise, and the L2 term as (alpha / 2) * (v / s)."""
    rng = np.random.default_rng(8)
    out = rng.normal(size=200) * 10.0 ** rng.integers(-3, 3, size=200)
    y = rng.normal(size=200) * 10.0 ** rng.integers(-4, 4, size=200)
    w = rng.integers(1, 1000, size=200) * rng.random(200)
    assert not np.array_equal((out - y) * w, out * w - y * w)
    e = y - out
    assert not np.array_equal((e * e) * w, e * (e * w))
    terms = (e * e) * w
    sequential = 0.0
    for t in terms:
        sequential += t
    assert sequential != np.sum(terms)
    values, s = rng.random(50) * 1e3, rng.random(50) * 1e3
    assert not np.array_equal((0.5 * 0.0001) * values / s, (0.5 * 0.0001) * (values / s))


@pytest.mark.parametrize("change", [{"early_stopping": True}, {"solver": "sgd"},
                                    {"activation": "tanh"}, {"batch_size": 50},
                                    {"shuffle": False}, {"random_state": None},
                                    {"warm_start": True}, {"loss": "poisson"}])
def test_other_parameters_are_left_to_scikit_learn(change):
    x = np.zeros((10, 2))
    assert mr.covered(MLPRegressor(random_state=0), x)
    assert not mr.covered(MLPRegressor(**{"random_state": 0, **change}), x)
    assert not mr.covered(MLPRegressor(random_state=0), sparse.csr_matrix(x))


def test_other_scikit_learn_versions_are_left_to_it(monkeypatch):
    monkeypatch.setattr(sklearn, "__version__", "1.8.0")
    assert not mr.covered(MLPRegressor(random_state=0), np.zeros((10, 2)))


def test_numeric_attacker_predicts_as_through_scikit_learn(monkeypatch):
    rng = np.random.default_rng(4)
    n = 900
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.integers(18, 90, n),
                          "region": rng.choice(list("abcdefg"), n)})
    frame["income"] = (frame["age"] * 40 + (frame["sex"] == "m") * 500
                       + rng.normal(0, 300, n)).round(-1)
    grid = prepare(frame.iloc[600:], frame.iloc[:600], ["sex", "age", "region"], "income",
                   kind="numeric")
    spec = REGISTRY["numeric"]["mlp"]
    query = np.arange(grid.table.shape[1])
    taken: list[bool] = []
    real = mr.covered
    with monkeypatch.context() as spied:
        spied.setattr(mr, "covered", lambda m, x: taken.append(real(m, x)) or taken[-1])
        got = attack_fit.predict(spec, grid, "synthetic", query, seed=3)
    assert taken == [True]  # capkit's fit ran
    monkeypatch.setattr(mr, "covered", lambda model, x: False)  # scikit-learn's own fit
    want = attack_fit.predict(spec, grid, "synthetic", query, seed=3)
    assert np.array_equal(got, want)
