"""k nearest neighbours with exact distances and a tie rule: scikit-learn's ``KNeighbors*``
(Euclidean, uniform weights) without its dependence on the thread count and the CPU.

scikit-learn computes Euclidean distances as ``|x|^2 - 2 x.y + |y|^2`` through BLAS and OpenMP,
in an order that depends on the number of threads and on the CPU's kernels, and picks among
neighbours at equal distance in the order its chunks happen to meet them: the same data can get
other neighbours, other predictions and other verdicts on another machine or with
``OMP_NUM_THREADS=1``. Here:

* features are rounded to integers on a grid of 2^-q (q chosen per fit so that every squared
  norm and dot product stays below 2^53, at most 2^-24 of a unit: min-max scaled keys keep 24
  bits, one-hot codes are exact); the squared distances are then integers computed without any
  rounding, whatever the order of the sums (BLAS, threads, FMA);
* the k nearest are the records below the k-th distance and, among those at it, the **lowest
  training positions** (:func:`capkit.attacks.neighbors._select`, the rule of every capkit
  nearest-record search);
* a classifier votes with uniform weights, a tie between classes going to the first class in
  sorted order (scikit-learn's ``weighted_mode``); a regressor averages its neighbours' targets
  in (distance, position) order.

Off ties and off the rounding (which moves a distance by at most 2^-24 of a key's range) the
predictions are scikit-learn's (a test compares them).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from capkit.attacks.neighbors import CELLS, Neighbors, _select
from capkit.errors import CapkitError

__all__ = ["ExactKNeighborsClassifier", "ExactKNeighborsRegressor", "exact_neighbours"]

#: Finest grid of the features: 2^-24 of a unit.
MAX_BITS = 24


def _dense(x: object) -> np.ndarray:
    if sparse.issparse(x):
        x = x.toarray()
    out = np.asarray(x, dtype=np.float64)
    if out.ndim != 2:
        raise CapkitError(f"features must be a 2-d array, got shape {out.shape}")
    if not np.isfinite(out).all():
        raise CapkitError("features must be finite numbers (no NaN or infinity)")
    return out


def _bits(train: np.ndarray, query: np.ndarray) -> int:
    """Grid bits q such that squared norms of the rounded rows stay below 2^51 (so that
    |x|^2 + |y|^2 - 2 x.y and every partial sum are exact integers in float64)."""
    biggest = max(float(np.abs(train).max(initial=0.0)), float(np.abs(query).max(initial=0.0)),
                  1.0)
    width = max(train.shape[1], 1)
    # (biggest * 2^q + 1)^2 * width * 4 < 2^53  <=>  q < (51 - log2 width) / 2 - log2 biggest
    q = int(np.floor((51 - np.log2(width)) / 2 - np.log2(biggest))) - 1
    return min(MAX_BITS, q)


def exact_neighbours(train: object, query: object, k: int) -> Neighbors:
    """The k nearest training rows of every query row under squared Euclidean distance on the
    features rounded to a grid (module docstring): exact, ties by lowest training position.

    Returns :class:`capkit.attacks.neighbors.Neighbors` (distances in grid units squared).
    """
    train, query = _dense(train), _dense(query)
    if train.shape[1] != query.shape[1]:
        raise CapkitError(f"query has {query.shape[1]} features, the training data "
                          f"{train.shape[1]}")
    n_train, n_q = len(train), len(query)
    if not 1 <= k <= n_train:
        raise CapkitError(f"n_neighbors must be from 1 to the number of training records "
                          f"({n_train}), got {k}")
    scale = 2.0 ** _bits(train, query)
    a, b = np.round(train * scale), np.round(query * scale)
    norm_a, norm_b = (a * a).sum(axis=1), (b * b).sum(axis=1)
    out = Neighbors(np.empty((n_q, k), np.int64), np.empty((n_q, k)), np.empty(n_q),
                    np.empty(n_q, np.int64), np.empty(n_q, np.int64), np.empty(n_q, np.int64))
    cands = np.arange(n_train)
    step = max(1, CELLS // max(n_train, 1))
    for s in range(0, n_q, step):
        rows = np.arange(s, min(s + step, n_q))
        block = norm_b[rows, None] + norm_a[None, :] - 2.0 * (b[rows] @ a.T)
        kth = block.max(axis=1) if k == n_train else np.partition(block, k - 1, axis=1)[:, k - 1]
        _select(block, block, rows, cands, k, kth, out, None)
    return out


class _ExactKNeighbors(BaseEstimator):
    def __init__(self, n_neighbors: int = 5) -> None:
        self.n_neighbors = n_neighbors

    def fit(self, X: object, y: object) -> _ExactKNeighbors:  # noqa: N803 (scikit-learn's name)
        self._x = _dense(X)
        y = np.asarray(y)
        if len(y) != len(self._x):
            raise CapkitError(f"y has {len(y)} rows, X {len(self._x)}")
        self._y = y
        self.n_features_in_ = self._x.shape[1]
        return self

    def _neighbours(self, X: object) -> np.ndarray:  # noqa: N803
        return exact_neighbours(self._x, X, self.n_neighbors).index


class ExactKNeighborsClassifier(ClassifierMixin, _ExactKNeighbors):
    """``KNeighborsClassifier(n_neighbors)`` (Euclidean, uniform weights) with exact distances
    and ties by lowest training position (module docstring). ``y`` may have several columns."""

    def fit(self, X: object, y: object) -> ExactKNeighborsClassifier:  # noqa: N803
        super().fit(X, y)
        columns = self._y.reshape(len(self._y), -1)
        found = [np.unique(columns[:, j], return_inverse=True) for j in range(columns.shape[1])]
        self._classes = [c for c, _ in found]
        self._codes = [codes.reshape(-1) for _, codes in found]
        self.classes_ = self._classes[0] if self._y.ndim == 1 else self._classes
        return self

    def predict(self, X: object) -> np.ndarray:  # noqa: N803
        index = self._neighbours(X)
        out = []
        for classes, codes in zip(self._classes, self._codes, strict=True):
            votes = np.zeros((len(index), len(classes)), dtype=np.int64)
            np.add.at(votes, (np.repeat(np.arange(len(index)), index.shape[1]),
                              codes[index].ravel()), 1)
            out.append(classes[votes.argmax(axis=1)])  # first class among equal votes
        return out[0] if self._y.ndim == 1 else np.column_stack(out)


class ExactKNeighborsRegressor(RegressorMixin, _ExactKNeighbors):
    """``KNeighborsRegressor(n_neighbors)`` (Euclidean, uniform weights) with exact distances
    and ties by lowest training position (module docstring)."""

    def predict(self, X: object) -> np.ndarray:  # noqa: N803
        index = self._neighbours(X)
        values = self._y.astype(np.float64)[index]
        total = np.zeros(values.shape[:1] + values.shape[2:])
        for j in range(index.shape[1]):  # a fixed order of additions
            total = total + values[:, j]
        return total / index.shape[1]
