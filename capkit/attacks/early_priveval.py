"""Three attacks PrivEval computed before its August 2025 rewrite, when it last wrote its
published results (github.com/hereditary-eu/PrivEval, commit 379d742, 2025-07-31,
``Metrics/CZeroCAP.py``, ``Metrics/CGeneralizedCAP.py``, ``Metrics/NNAA.py``).

Under the names "ZeroCAP", "GeneralizedCAP" and "NNAA" that code measured something other than
the CAP family (Taub et al. 2018; Hittmeir et al. 2020) and Yale et al.'s adversarial accuracy;
capkit keeps them, under descriptive names, only to explain PrivEval's published numbers
(``docs/priveval-differences.md``):

* :func:`unique_key_agreement`: among the synthetic records whose key occurs in the original
  with a single sensitive value, the share carrying that value (0 when there is none);
* :func:`forest_key_accuracy`: a random forest trained on the keys of the original and
  synthetic records pooled, predicting the sensitive value; its test accuracy above chance,
  (acc - 1/L) / (1 - 1/L) (0 below chance), L the number of sensitive values;
* :func:`neighbour_profile_accuracy`: the accuracy of a perceptron telling real from synthetic
  records by seven statistics of their k nearest real and synthetic distances.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

from capkit.attacks._forest import fit as fast_forest
from capkit.attacks._mlp import mlp_probability
from capkit.distance.neighbours import one_thread
from capkit.errors import CapkitError

__all__ = ["forest_key_accuracy", "neighbour_profile_accuracy", "unique_key_agreement"]


def _dense(table: object) -> np.ndarray:
    return table.toarray() if sparse.issparse(table) else np.asarray(table)


def unique_key_agreement(o: object, s: object) -> float:
    """Share of the synthetic records in a key column j where the original has exactly one
    sensitive value i*_j that carry i*_j: ``sum_j s[i*_j, j] / sum_j m_j`` over those j.

    ``o``, ``s``: aligned (targets x keys) count tables (:func:`capkit.counts.tables.crosstab`).
    0 when no synthetic record has such a key (PrivEval's value)."""
    o, s = _dense(o), _dense(s)
    if o.shape != s.shape:
        raise CapkitError(f"o and s must have the same shape, got {o.shape} and {s.shape}")
    unique = (o > 0).sum(axis=0) == 1
    if not unique.any():
        return 0.0
    rows = np.argmax(o[:, unique] > 0, axis=0)
    hit = s[rows, np.flatnonzero(unique)].sum()
    total = s[:, unique].sum()
    return float(hit / total) if total > 0 else 0.0


def forest_key_accuracy(keys: np.ndarray, sensitive: np.ndarray, *, seed: int = 42) -> float:
    """Chance-adjusted test accuracy of ``RandomForestClassifier(n_estimators=50, max_depth=10,
    min_samples_split=5, min_samples_leaf=2)`` on a stratified 70/30 split (both seeded with
    ``seed``) of the pooled records' integer-coded ``keys`` predicting ``sensitive``."""
    x = np.asarray(keys, dtype=np.float64)
    y = np.asarray(sensitive)
    if x.ndim != 2 or len(x) != len(y):
        raise CapkitError(f"keys must be (n, p) with n = len(sensitive), got {x.shape} and "
                          f"{y.shape}")
    labels = np.unique(y)
    if len(x) < 10 or len(labels) < 2:
        return 0.0
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, random_state=seed,
                                              stratify=y)
    model = RandomForestClassifier(n_estimators=50, max_depth=10, random_state=seed,
                                   min_samples_split=5, min_samples_leaf=2)
    with one_thread():
        fitted = fast_forest(model, x_tr, y_tr) or model.fit(x_tr, y_tr)  # the same trees
        accuracy = accuracy_score(y_te, fitted.predict(x_te))
    chance = 1.0 / len(labels)
    return float((accuracy - chance) / (1.0 - chance)) if accuracy > chance else 0.0


def _profile(own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Seven statistics of k distances to real (``own`` columns first) and synthetic records."""
    mean_r, mean_s = own.mean(axis=1), other.mean(axis=1)
    return np.column_stack([mean_r, own.std(axis=1), mean_s, other.std(axis=1), own.min(axis=1),
                            other.min(axis=1), mean_r / (mean_s + 1e-8)])


def neighbour_profile_accuracy(rr: np.ndarray, rs: np.ndarray, sr: np.ndarray, ss: np.ndarray,
                               *, seed: int = 42) -> float:
    """Test accuracy of ``MLPClassifier(hidden_layer_sizes=(100,), max_iter=1000,
    early_stopping=True)`` (seeded) on a stratified 70/30 split of the records' distance
    profiles: for a real record the distances to its k nearest *other* real records (``rr``)
    and to its k nearest synthetic records (``rs``), for a synthetic record to its k nearest
    real (``sr``) and k nearest other synthetic records (``ss``); each array (records, k)."""
    rr, rs, sr, ss = (np.asarray(a, dtype=np.float64) for a in (rr, rs, sr, ss))
    if rr.shape != rs.shape or sr.shape != ss.shape or rr.ndim != 2 or rr.shape[1] != \
            sr.shape[1] or rr.shape[1] < 1:
        raise CapkitError("rr and rs must be (n_real, k), sr and ss (n_synthetic, k), k >= 1")
    x = np.nan_to_num(np.vstack([_profile(rr, rs), _profile(sr, ss)]), nan=0.0, posinf=1e8,
                      neginf=-1e8)
    y = np.concatenate([np.zeros(len(rr)), np.ones(len(sr))])
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, random_state=seed,
                                              stratify=y)
    # MLPClassifier(hidden_layer_sizes=(100,), max_iter=1000, random_state=seed,
    # early_stopping=True, validation_fraction=0.1, n_iter_no_change=10, alpha=0.0001), trained
    # by capkit.attacks._mlp (the same fit, bit for bit); its predict: the class at p > 1/2
    with one_thread():
        probability = mlp_probability(x_tr, y_tr, x_te, hidden=(100,), max_iter=1000,
                                      validation_fraction=0.1, seed=seed)
    guess = np.unique(y_tr)[(probability > 0.5).astype(int)]
    return float(accuracy_score(y_te, guess))
