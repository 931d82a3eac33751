"""Classification-based attribute risk and record-level CAP before/after synthesis.

Hu, "Methods for Risk Evaluation part 3" (lecture, Statistical Data Privacy, Vassar College),
after Choi et al. (2017) and Kaur et al. (2021). The CAP uses a very simple model (the target's
distribution among synthetic records with the same key); a classification-based measure lets any
classifier play the intruder:

1. using only the synthetic data Z, fit a model predicting the target from the keys;
2. predict the target of every confidential record y_0 from its keys;
3. the attribute risk is the share of correct predictions (categorical target) or, for a
   numeric target, the mean squared error of the predictions (lower = riskier).

The lecture uses k-NN with k = 3. For a before/after comparison the same model is also trained
on the confidential data itself and the two are compared record by record: the relative
absolute prediction error of each record under both, and the share of records predicted *less*
accurately from the synthetic data than from the confidential data (the lecture's 0.339 for
its CE example).

The lecture also compares the individual CAP of every record before (CAP under the confidential
data, Definition 1 of Baillargeon & Charest with S = O) and after synthesis (CAP under Z), as a
scatter with the diagonal: :func:`record_cap_comparison`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from capkit.attacks.attackers import resolve
from capkit.attacks.fit import predict
from capkit.attacks.grid import prepare
from capkit.attacks.knn import ExactKNeighborsClassifier, ExactKNeighborsRegressor
from capkit.cap import record_cap
from capkit.errors import CapkitError


@dataclass(frozen=True)
class AttributeRisk:
    """Result of :func:`attribute_risk`.

    Attributes
    ----------
    kind
        ``"categorical"`` (classification: accuracy) or ``"numeric"`` (regression: MSE).
    risk_synthetic, risk_original
        Accuracy (share of correct predictions) or MSE of the model trained on the synthetic /
        on the original data, predicting the original records.
    records
        One row per evaluated original record (index of ``original``): ``observed``,
        ``predicted (synthetic)``, ``predicted (original)``, and ``error (synthetic)``,
        ``error (original)``: the relative absolute error |pred - y| / |y| for a numeric target
        (NaN where y = 0), 0/1 (wrong prediction) for a categorical one.
    share_less_accurate_synthetic
        Share of records whose error from the synthetic-trained model exceeds the error from the
        original-trained one (records with an undefined error left out).
    n_dropped
        Original records left out because their numeric target is missing.
    """

    kind: str
    target: str
    keys: tuple[str, ...]
    risk_synthetic: float
    risk_original: float
    records: pd.DataFrame
    share_less_accurate_synthetic: float
    n_dropped: int

    @property
    def measure(self) -> str:
        """Name of the file-level measure: ``"accuracy"`` or ``"MSE"``."""
        return "accuracy" if self.kind == "categorical" else "MSE"

    def summary(self) -> pd.DataFrame:
        """The file-level comparison as a small table."""
        return pd.DataFrame(
            {self.measure: [self.risk_synthetic, self.risk_original]},
            index=pd.Index(["trained on synthetic", "trained on original"], name="model"),
        )


def attribute_risk(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str,
    *,
    estimator: BaseEstimator | None = None,
    kind: str = "auto",
    seed: int = 0,
) -> AttributeRisk:
    """Classification-based attribute disclosure risk (Hu, lecture part 3, "Procedure").

    Runs through the attack machinery of :mod:`capkit.attacks` (one way to run a classifier
    attack): the estimator is an ``"estimator"`` attacker fitted on the records (one-hot
    categorical keys, min-max scaled numeric keys), predicting per key combination.

    Parameters
    ----------
    original, synthetic
        The confidential data and the synthetic data. Neither is modified.
    keys
        Columns the intruder knows (the predictors).
    target
        The column the intruder predicts.
    estimator
        Any scikit-learn estimator (classifier for a categorical target, regressor for a numeric
        one); default k-NN with k = 3, as in the lecture. It is cloned, and its
        ``random_state`` (if it has one) is set to ``seed``. Keys are encoded first: categorical
        keys one-hot (a missing value is a level), numeric keys scaled to [0, 1] by their range
        in the training data (min-max).
    kind
        ``"categorical"``, ``"numeric"`` or ``"auto"`` (numeric dtype, not boolean -> numeric).
    seed
        Seed for estimators with a ``random_state``; the default k-NN is deterministic.

    Returns
    -------
    AttributeRisk

    Raises
    ------
    CapkitError
        A target that is also a key, a missing column, a column numeric in one frame and text
        in the other, missing values in a numeric key, an unknown ``kind``, an estimator of the
        wrong type for the target.
    """
    grid = prepare(original, synthetic, keys, target, kind=kind)
    if estimator is None:
        estimator = (ExactKNeighborsClassifier(n_neighbors=3) if grid.kind == "categorical"
                     else ExactKNeighborsRegressor(n_neighbors=3))
    spec = resolve(estimator, grid.kind)
    if not grid.known("synthetic").any():
        raise CapkitError(f"target {target!r} has no non-missing value to learn from")
    keep = grid.known("members")
    cells = grid.cells("members")[keep]
    combos, inverse = np.unique(cells[:, 1], return_inverse=True)
    pred_syn = predict(spec, grid, "synthetic", combos, seed)[inverse]
    pred_org = predict(spec, grid, "members", combos, seed)[inverse]
    if grid.kind == "numeric":
        observed = grid.values[cells[:, 0]]
        risk_syn = float(np.mean((pred_syn - observed) ** 2))
        risk_org = float(np.mean((pred_org - observed) ** 2))
        scale = np.where(observed != 0, np.abs(observed), np.nan)
        err_syn = np.abs(pred_syn - observed) / scale
        err_org = np.abs(pred_org - observed) / scale
    else:
        labels = grid.target_labels
        risk_syn = float(np.mean(pred_syn == cells[:, 0]))
        risk_org = float(np.mean(pred_org == cells[:, 0]))
        err_syn = (pred_syn != cells[:, 0]).astype(np.float64)
        err_org = (pred_org != cells[:, 0]).astype(np.float64)
        observed, pred_syn, pred_org = labels[cells[:, 0]], labels[pred_syn], labels[pred_org]
    defined = ~np.isnan(err_syn) & ~np.isnan(err_org)
    share = float(np.mean(err_syn[defined] > err_org[defined])) if defined.any() else float("nan")
    records = pd.DataFrame({
        "observed": observed, "predicted (synthetic)": pred_syn, "predicted (original)": pred_org,
        "error (synthetic)": err_syn, "error (original)": err_org,
    }, index=original.index[keep])
    return AttributeRisk(grid.kind, target, grid.keys, risk_syn, risk_org, records, share,
                         int((~keep).sum()))


def record_cap_comparison(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str | Sequence[str],
    **options: Any,
) -> pd.DataFrame:
    """Individual CAP of every original record before and after synthesis (Hu, lecture part 3).

    Returns a frame indexed like ``original`` with ``CAP under O`` (the CAP the record would
    have if the confidential data itself were released: Definition 1 with S = O) and ``CAP under
    S`` (with the synthetic data). Their means are the average CAP (version 1) of O with itself
    and with S. ``options`` go to :func:`capkit.cap.record_cap` (e.g. ``dropna``).
    """
    return pd.DataFrame({
        "CAP under O": record_cap(original, original, keys, target, **options),
        "CAP under S": record_cap(original, synthetic, keys, target, **options),
    })


__all__ = ["AttributeRisk", "attribute_risk", "record_cap_comparison"]
