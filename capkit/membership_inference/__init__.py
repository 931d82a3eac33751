"""Membership inference on synthetic data: can an attacker holding the release tell who was in
the training data?

* :mod:`~capkit.membership_inference.scores`: every record scored by every attack of one
  release (DCR, DCR-Diff, GAN-Leaks and its calibrated form, MC, DPI, DOMIAS and its ablated
  density, a synthetic-vs-reference classifier);
* :mod:`~capkit.membership_inference.score_sample`: which scored records DOMIAS's densities
  (``n x (m + r)``) score past the pair budget: a seeded sample, said in every output;
* :mod:`~capkit.membership_inference.kde`: the Gaussian kernel density DOMIAS uses;
* :mod:`~capkit.membership_inference.attacks`, :mod:`~capkit.membership_inference.classifier`:
  the attacks themselves;
* :mod:`~capkit.membership_inference.summary`: per attack the AUC, TPRs at low FPR (with
  intervals), advantage and epsilon bound of one release, and the members most exposed (what
  a report shows);
* :mod:`~capkit.membership_inference.metrics`: ROC AUC, TPR at low FPR, advantage and an
  audited lower bound on epsilon from any scores;
* :mod:`~capkit.membership_inference.compare`: the paired difference of two scores' AUCs on the
  same records, with DeLong's interval;
* :mod:`~capkit.membership_inference.shadow`: the audit of a generator by shadow modelling
  (features in :mod:`~capkit.membership_inference.shadow_features`, outlier targets by
  :mod:`~capkit.membership_inference.outliers`).

Not to be confused with :mod:`capkit.control` (formerly ``capkit.membership``), the
members-vs-holdout statistics (Wilson intervals, risk) every attack-style measure shares.
"""

import lazy_loader

# Names resolved on first use (lazy_loader): the audit's membership family imports the scores
# and metrics without the shadow models' scikit-learn.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "compare": ["PairedAUC", "paired_auc_difference"],
    "metrics": ["FPRS", "MembershipMetrics", "metrics"],
    "scores": ["ATTACKS", "scores"],
    "shadow": ["GeneratorAudit", "audit_generator", "cart_generator"],
    "summary": ["exposed_members", "summary"],
})
