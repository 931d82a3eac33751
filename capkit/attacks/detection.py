"""Real-versus-synthetic detection: can a classifier tell the real records from the synthetic?

Two classifier scores PrivEval (github.com/hereditary-eu/PrivEval, ``Metrics/DetectionMLP.py``
and ``Metrics/MemInf.py``) reports, after SynthCity's ``DetectionMLP`` and SynthEval's
membership-inference attack: the real records are labelled 1, the synthetic 0, and

* :func:`mlp_detection_auc`: the mean ROC AUC of a two-layer perceptron (scikit-learn's
  ``MLPClassifier(hidden_layer_sizes=(100, 50), max_iter=300, early_stopping=True)``, trained
  by :mod:`capkit.attacks._mlp`: the same operations, bit for bit) over stratified k folds,
  features standardised over the union;
* :func:`boosted_real_recall`: the mean recall on the real records (the share of real test
  records classified real) of a gradient-boosted tree classifier over ``iterations`` stratified
  70/30 splits. PrivEval uses LightGBM with unseeded splits; capkit uses scikit-learn's
  ``HistGradientBoostingClassifier`` (the same family: histogram-binned boosted trees, not
  LightGBM's exact defaults) with seeded splits, so its number is reproducible but not
  PrivEval's to the digit (``docs/priveval-differences.md``).

Both are seeded and fitted on one thread (BLAS and OpenMP limited to one: the same result for
any thread count, and no oversubscription on a shared machine); scikit-learn's MLP still depends
on the CPU's BLAS kernels, so its AUC can move in the last digits between machines. The last
few answers are kept under a SHA-256 digest of their inputs: a call on equal features and
arguments takes the kept answer, e.g. PrivEval's metrics under several of its
variants on one release.
"""

from __future__ import annotations

import hashlib

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import recall_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler

from capkit.attacks._mlp import mlp_probability
from capkit.distance.neighbours import one_thread
from capkit.errors import CapkitError

__all__ = ["boosted_real_recall", "mlp_detection_auc"]

#: How many answers are kept (the most recent), each under a digest of its inputs.
REMEMBERED = 32
_ANSWERS: list[tuple[tuple, bytes, float]] = []


def _digest(*arrays: np.ndarray) -> bytes:
    """SHA-256 of the arrays' shapes, types and bytes: equal inputs, equal digests."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(repr((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    return h.digest()


def _remembered(key: tuple, x: np.ndarray, y: np.ndarray, compute: object) -> float:
    """``compute()``, or the kept answer of a call with the same ``key`` and equal ``x``, ``y``
    (equal SHA-256 digests: a digest of 32 bytes is kept, not a copy of the features)."""
    digest = _digest(x, y)
    for at, (kept_key, kept_digest, value) in enumerate(_ANSWERS):
        if kept_key == key and kept_digest == digest:
            _ANSWERS.append(_ANSWERS.pop(at))  # the most recent last
            return value
    value = compute()
    _ANSWERS.append((key, digest, value))
    del _ANSWERS[:-REMEMBERED]
    return value


def _stack(real: object, synthetic: object) -> tuple[np.ndarray, np.ndarray]:
    r = np.asarray(real, dtype=np.float64)
    s = np.asarray(synthetic, dtype=np.float64)
    if r.ndim != 2 or s.ndim != 2 or r.shape[1] != s.shape[1]:
        raise CapkitError(f"real and synthetic features must be 2-d with the same columns, got "
                          f"{r.shape} and {s.shape}")
    if len(r) < 10 or len(s) < 10:
        raise CapkitError("real and synthetic need at least 10 records each to train a detector")
    return np.vstack([r, s]), np.concatenate([np.ones(len(r)), np.zeros(len(s))])


def mlp_detection_auc(real: object, synthetic: object, *, folds: int = 5, seed: int = 42
                      ) -> float:
    """Mean ROC AUC of the MLP detector over ``folds`` stratified folds (shuffled with
    ``seed``; the MLP's own seed is ``seed`` too, PrivEval's 42). 1/2: indistinguishable."""
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise CapkitError(f"folds must be an integer >= 2, got {folds!r}")
    x, y = _stack(real, synthetic)
    return _remembered(("mlp", int(folds), seed), x, y, lambda: _mlp_auc(x, y, int(folds), seed))


def _mlp_auc(x: np.ndarray, y: np.ndarray, folds: int, seed: int) -> float:
    x = StandardScaler().fit_transform(x)
    aucs = []
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(x, y):
        with one_thread():
            # MLPClassifier(hidden_layer_sizes=(100, 50), max_iter=300, random_state=seed,
            # early_stopping=True, validation_fraction=0.1): the same fit, bit for bit
            probability = mlp_probability(x[train], y[train], x[test], hidden=(100, 50),
                                          max_iter=300, validation_fraction=0.1, seed=seed)
        aucs.append(roc_auc_score(y[test], probability))
    return float(np.mean(aucs))


def _booster(classifier: str, seed: int) -> object:
    if classifier == "lightgbm":
        try:
            from lightgbm import LGBMClassifier
        except ImportError as exc:
            raise CapkitError("classifier='lightgbm' needs the lightgbm package (pip install "
                              "lightgbm); the default 'hist_gradient_boosting' needs none"
                              ) from exc
        return LGBMClassifier(verbosity=-1, random_state=42, n_jobs=1)
    if classifier != "hist_gradient_boosting":
        raise CapkitError("classifier must be 'hist_gradient_boosting' or 'lightgbm', got "
                          f"{classifier!r}")
    return HistGradientBoostingClassifier(random_state=seed)


def boosted_real_recall(real: object, synthetic: object, *, iterations: int = 5, seed: int = 0,
                        classifier: str = "hist_gradient_boosting") -> float:
    """Mean recall of the real class over ``iterations`` stratified 70/30 splits (split k drawn
    with ``seed + k``; the classifier seeded with ``seed``). ``classifier="lightgbm"``:
    PrivEval's ``LGBMClassifier(random_state=42)`` (needs the lightgbm package; its splits
    stay seeded, PrivEval's are not)."""
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
            or iterations < 1:
        raise CapkitError(f"iterations must be an integer >= 1, got {iterations!r}")
    _booster(classifier, seed)  # a bad classifier name raises before anything is computed
    x, y = _stack(real, synthetic)
    return _remembered(("boosted", int(iterations), seed, classifier), x, y,
                       lambda: _recall(x, y, int(iterations), seed, classifier))


def _recall(x: np.ndarray, y: np.ndarray, iterations: int, seed: int, classifier: str) -> float:
    recalls = []
    for k in range(iterations):
        x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.3, random_state=seed + k,
                                                  stratify=y)
        with one_thread():
            model = _booster(classifier, seed).fit(x_tr, y_tr)
            recalls.append(recall_score(y_te, model.predict(x_te)))
    return float(np.mean(recalls))
