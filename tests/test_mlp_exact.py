"""capkit's MLP training (capkit.attacks._mlp) against scikit-learn's MLPClassifier: the same
probabilities bit for bit (the same operations in the same order), and the detection scores'
kept answers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

from capkit.attacks import detection
from capkit.attacks._mlp import mlp_probability
from capkit.distance.neighbours import one_thread


def _sklearn(x_train, y_train, x_test, hidden, max_iter, fraction, seed):
    model = MLPClassifier(hidden_layer_sizes=hidden, max_iter=max_iter, random_state=seed,
                          early_stopping=True, validation_fraction=fraction)
    with one_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x_train, y_train)
    return model.predict_proba(x_test)[:, 1]


def _cases():
    rng = np.random.default_rng(11)
    # separable, overlapping, duplicated rows and ties, constant and 0/1 columns, labels not 0/1,
    # more than one batch of 200 with a short last batch, a few epochs only (max_iter reached)
    a = rng.normal(size=(260, 4))
    yield "overlap", a, (rng.random(260) < 0.5).astype(float), a[:40], (20, 10), 300, 0.1, 0
    b = np.vstack([rng.normal(size=(120, 3)), rng.normal(size=(120, 3)) + 2.0])
    yield "apart", b, np.repeat([1.0, 0.0], 120), b[::7], (100, 50), 300, 0.1, 42
    c = np.repeat(rng.integers(0, 3, size=(60, 3)).astype(float), 5, axis=0)  # ties
    c[:, 2] = 1.0  # a constant column
    yield "ties", c, rng.choice(["real", "synthetic"], size=len(c)), c[:25], (8,), 300, 0.2, 7
    d = np.column_stack([rng.integers(0, 2, size=430), rng.normal(size=430)]).astype(float)
    yield "long", d, (d[:, 1] + rng.normal(size=430) > 0).astype(int), d[:50], (16, 8, 4), 4, \
        0.1, 3
    # one hidden layer of 100 (the neighbour-profile attacker's), one-hot columns beside
    # numbers, a last batch of 150 (above numpy's pairwise block of 128)
    e = np.column_stack([rng.normal(size=(390, 3)) * [1.0, 1e3, 1e-3],
                         np.eye(4)[rng.integers(0, 4, size=390)]])
    yield "one layer", e, (e[:, 0] + e[:, 4] + rng.normal(size=390) > 0.5).astype(float), \
        e[:60], (100,), 1000, 0.1, 42


@pytest.mark.parametrize("case", list(_cases()), ids=lambda c: c[0])
def test_probabilities_equal_scikit_learns_bit_for_bit(case):
    _, x, y, x_test, hidden, max_iter, fraction, seed = case
    want = _sklearn(x, y, x_test, hidden, max_iter, fraction, seed)
    with one_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        got = mlp_probability(x, y, x_test, hidden=hidden, max_iter=max_iter,
                              validation_fraction=fraction, seed=seed)
    # the same floating-point operations in the same order: bit equality, no tolerance
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_too_few_epochs_warn_as_scikit_learn():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(80, 2))
    with one_thread(), pytest.warns(ConvergenceWarning, match="Maximum iterations"):
        mlp_probability(x, (x[:, 0] > 0).astype(float), x, hidden=(4,), max_iter=2)


def test_detection_auc_as_scikit_learns_and_kept_answers():
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(4)
    real, synthetic = rng.normal(size=(90, 3)), rng.normal(size=(80, 3)) + 0.5
    x = StandardScaler().fit_transform(np.vstack([real, synthetic]))
    y = np.r_[np.ones(90), np.zeros(80)]
    aucs = [roc_auc_score(y[te], _sklearn(x[tr], y[tr], x[te], (100, 50), 300, 0.1, 42))
            for tr, te in StratifiedKFold(3, shuffle=True, random_state=42).split(x, y)]
    detection._ANSWERS.clear()
    assert detection.mlp_detection_auc(real, synthetic, folds=3) == float(np.mean(aucs))
    kept = len(detection._ANSWERS)
    assert detection.mlp_detection_auc(real, synthetic, folds=3) == float(np.mean(aucs))
    assert len(detection._ANSWERS) == kept  # the kept answer, not a new one
    real[0, 0] += 1.0  # another input: computed anew
    detection.mlp_detection_auc(real, synthetic, folds=3)
    assert len(detection._ANSWERS) == kept + 1


def _profile_cases():
    rng = np.random.default_rng(8)
    # distances of k = 5 neighbours: overlapping, apart, with ties and zero distances
    rr = np.sort(rng.gamma(2.0, size=(300, 5)), axis=1)
    yield "overlap", rr, np.sort(rng.gamma(2.0, size=(300, 5)), axis=1), \
        np.sort(rng.gamma(2.0, size=(250, 5)), axis=1), np.sort(rng.gamma(2.0, size=(250, 5)),
                                                                  axis=1), 42
    far = np.sort(rng.gamma(4.0, size=(260, 5)), axis=1)
    yield "apart", rr[:260], far, far + 1.0, rr[:260] * 0.5, 3
    ties = np.round(rr, 0)  # repeated values and zeros (a zero mean: the 1e-8 guard)
    yield "ties", ties, ties[::-1], ties[:200], np.round(far[:200], 0), 42


@pytest.mark.parametrize("case", list(_profile_cases()), ids=lambda c: c[0])
def test_neighbour_profile_accuracy_as_scikit_learns_mlp(case):
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    from capkit.attacks.early_priveval import _profile, neighbour_profile_accuracy

    _, rr, rs, sr, ss, seed = case
    # PrivEval's code at commit 379d742: scikit-learn's MLPClassifier and its predict
    x = np.nan_to_num(np.vstack([_profile(rr, rs), _profile(sr, ss)]), nan=0.0, posinf=1e8,
                      neginf=-1e8)
    y = np.concatenate([np.zeros(len(rr)), np.ones(len(sr))])
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, random_state=seed,
                                              stratify=y)
    model = MLPClassifier(hidden_layer_sizes=(100,), max_iter=1000, random_state=seed,
                          early_stopping=True, validation_fraction=0.1, n_iter_no_change=10,
                          alpha=0.0001)
    with one_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        want = float(accuracy_score(y_te, model.fit(x_tr, y_tr).predict(x_te)))
    # the same fit bit for bit and the same rule at 1/2: the same count of right guesses
    assert neighbour_profile_accuracy(rr, rs, sr, ss, seed=seed) == want
