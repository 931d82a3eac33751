"""k-nearest-neighbour classifier and regressor with exact distances and a tie rule:
scikit-learn's ``KNeighbors*`` (Euclidean, uniform weights) without its dependence on the thread
count and the CPU.

These are models (an attacker fits one on the synthetic records and predicts the target of the
real ones); the search for the k nearest training rows is capkit's exact Euclidean one,
:func:`capkit.distance.grid_knn.exact_neighbours` (features on a grid, squared distances exact
integers, ties by lowest training position), so the predictions are the same on every machine
and thread count:

* a classifier votes with uniform weights, a tie between classes going to the first class in
  sorted order (scikit-learn's ``weighted_mode``);
* a regressor averages its neighbours' targets in (distance, position) order.

Off ties and off the grid's rounding (which moves a distance by at most 2^-24 of a key's range)
the predictions are scikit-learn's (a test compares them).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from capkit.distance.grid_knn import dense_features, exact_neighbours
from capkit.errors import CapkitError

__all__ = ["ExactKNeighborsClassifier", "ExactKNeighborsRegressor"]


class _ExactKNeighbors(BaseEstimator):
    def __init__(self, n_neighbors: int = 5) -> None:
        self.n_neighbors = n_neighbors

    def fit(self, X: object, y: object) -> _ExactKNeighbors:  # noqa: N803 (scikit-learn's name)
        self._x = dense_features(X)
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
