"""Logistic regression whose predicted class does not depend on the machine.

scikit-learn's ``LogisticRegression`` (L-BFGS, ``tol=1e-4``) stops where the gradient first
falls below its tolerance. The iterates are computed with BLAS and numpy's vectorised ``exp``
and ``log``, whose last bits differ between CPU kernels (OpenBLAS picks Haswell, SkylakeX or
Prescott kernels by the CPU it finds), so the coefficients it returns differ between machines
far beyond rounding (the solver stops at another iterate), and a key combination whose two best
classes are close gets the other class on another machine. Here:

* the objective is scikit-learn's (multinomial log loss, weighted by ``sample_weight``, plus
  ``||W||^2 / (2 C)``, intercepts not penalised), solved by Newton's method with a Cholesky
  factor (scikit-learn's ``newton-cholesky``) down to a gradient of :data:`TOL`: Newton's
  iterates converge quadratically to the objective's unique minimum (strictly convex in the
  coefficients), so every machine returns it to within rounding;
* the class is chosen by a stated rule: the classes whose decision value is within
  :data:`TIE` of the largest are tied, and the first of them in sorted order is taken (the rule
  of scikit-learn's ``weighted_mode`` and of capkit's other attackers). :data:`TIE` (1e-6 in
  log-odds) is far above the spread of the decision values between BLAS kernels at that
  gradient (at most 1.1e-12 over 2.35 million decision values of Adult's baseline, SkylakeX,
  Haswell and Prescott kernels) and far below any difference that separates classes
  in a fitted model.

Off ties the classes are scikit-learn's for the same objective solved to convergence.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

__all__ = ["TIE", "TOL", "TiedLogisticRegression"]

#: Gradient (max absolute component) at which Newton's iterations stop.
TOL = 1e-10
#: Decision values (log-odds) within this of the largest are tied.
TIE = 1e-6


class TiedLogisticRegression(ClassifierMixin, BaseEstimator):
    """L2-penalised logistic regression solved to its minimum, with a tie rule (module
    docstring). ``C`` as scikit-learn's; ``max_iter`` Newton iterations at most."""

    def __init__(self, C: float = 1.0, max_iter: int = 100) -> None:  # noqa: N803 (sklearn's)
        self.C = C
        self.max_iter = max_iter

    def fit(self, X: object, y: object, sample_weight: object = None  # noqa: N803
            ) -> TiedLogisticRegression:
        self.model_ = LogisticRegression(C=self.C, solver="newton-cholesky", tol=TOL,
                                         max_iter=self.max_iter)
        self.model_.fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        return self

    def decision_function(self, X: object) -> np.ndarray:  # noqa: N803
        """One column of decision values per class (two classes: ``-d/2`` and ``d/2`` of
        scikit-learn's single value, so that their difference is ``d``)."""
        d = np.asarray(self.model_.decision_function(X), dtype=np.float64)
        if d.ndim == 1:
            d = np.column_stack([-d / 2, d / 2])
        return d

    def predict_proba(self, X: object) -> np.ndarray:  # noqa: N803
        """scikit-learn's class probabilities of the fitted model. Their last bits depend on
        the BLAS kernel and threads (about 3e-16 between OpenBLAS's Haswell, SkylakeX and
        Prescott kernels): a threshold on them moves only a record within that of it; the
        classes (:meth:`predict`) do not depend on them."""
        return self.model_.predict_proba(X)

    def predict(self, X: object) -> np.ndarray:  # noqa: N803
        """The first class (sorted) among those within :data:`TIE` of the largest decision
        value."""
        d = self.decision_function(X)
        tied = d >= d.max(axis=1, keepdims=True) - TIE
        return self.classes_[np.argmax(tied, axis=1)]
