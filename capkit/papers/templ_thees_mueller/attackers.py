"""The CART attacker of RAPID's Simulation 4: R's ``rpart`` with its defaults, as a classifier.

Templ, Thees & Müller (arXiv 2602.09235, 2026), Section 5.6 compare a random forest, CART and
gradient boosting as attackers; their CART is ``rpart(method = "class")`` with rpart's defaults
(cp = 0.01, minbucket = 7) and its class probabilities (``predict(type = "prob")``: the class
shares of the record's leaf). :class:`RpartClassifier` grows that tree with capkit's rpart
kernel (:func:`capkit.synth.cart.fit`, the trees synthpop's CART grows) behind scikit-learn's
classifier interface, so it runs as any capkit attacker. Two approximations, both stated in
``docs/rapid.md``: capkit's kernel sets minsplit = 3 x minbucket = 21 (rpart's default is 20),
and the keys come encoded as capkit's attackers encode them (ordinal codes as numbers), so an
unordered factor is cut between codes instead of split into any two groups of levels.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from capkit.attacks.attackers import Attacker
from capkit.errors import CapkitError
from capkit.synth import cart


class RpartClassifier(ClassifierMixin, BaseEstimator):
    """rpart's classification tree (cp, minbucket) with leaf class shares as probabilities."""

    def __init__(self, cp: float = 0.01, minbucket: int = 7) -> None:
        self.cp = cp
        self.minbucket = minbucket

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None
            ) -> RpartClassifier:
        """Grow the tree on records X (numbers) with classes y."""
        if sample_weight is not None and not np.all(sample_weight == sample_weight[0]):
            raise CapkitError("RpartClassifier fits records, not weighted cells "
                              "(use it with compress=False)")
        X = np.asarray(X, dtype=np.float64)
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        p = X.shape[1]
        self.tree_ = cart.fit(X, np.full(p, cart.NUMERIC), np.zeros(p, dtype=np.int64),
                              codes.astype(np.float64), True, n_classes=len(self.classes_),
                              minbucket=int(self.minbucket), cp=float(self.cp))
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class shares of each record's leaf (rpart's ``predict(type = "prob")``)."""
        counts = self.tree_.counts[self.tree_.route(np.asarray(X, dtype=np.float64))]
        counts = np.asarray(counts, dtype=np.float64)
        return counts / counts.sum(axis=1, keepdims=True)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The most probable class (first on ties)."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


#: The paper's CART attacker as a capkit attacker (records, ordinal keys, numbers as they are).
RPART = Attacker("rpart", "estimator", RpartClassifier(), keys_as="ordinal", numeric_as="raw")

__all__ = ["RPART", "RpartClassifier"]
