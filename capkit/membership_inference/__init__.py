"""Membership inference on synthetic data: can an attacker holding the release tell who was in
the training data?

* :mod:`~capkit.membership_inference.metrics`: ROC AUC, TPR at low FPR, advantage and an
  audited lower bound on epsilon from any scores.

Not to be confused with :mod:`capkit.control` (formerly ``capkit.membership``), the
members-vs-holdout statistics (Wilson intervals, risk) every attack-style measure shares.
"""

from capkit.membership_inference.metrics import FPRS, MembershipMetrics, metrics

__all__ = ["FPRS", "MembershipMetrics", "metrics"]
