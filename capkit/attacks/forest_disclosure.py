"""Attribute disclosure with maximum knowledge: a random forest trained on the synthetic data
predicts each sensitive column of the real records from all their other columns.

SynthEval 1.7.3's ``att_discl`` (Lautrup et al., "SynthEval", Data Mining and Knowledge
Discovery 2025; ``metrics/privacy/metric_AttrDis.py``), after the attribute-inference
experiments of Hittmeir, Mayer & Ekelhart (ACM CODASPY 2020): for each sensitive column t, a
``RandomForestClassifier`` (t categorical) or ``RandomForestRegressor`` (t numeric), 100 trees,
is fitted on the synthetic records with every other column as predictor, and scored on the real
records. A numeric prediction is correct when it is within ``numeric_tolerance`` of the truth
in the unit of the joint range (scaled values).

SynthEval scores members and holdout records together. :func:`forest_disclosure` reports that
pooled score (the four SynthEval numbers per column) and, beside it, the members' and the
holdout's accuracy separately, the comparison that tells disclosure from inference about the
population (:mod:`capkit.control`).

Encoding as SynthEval: categorical codes and min-max scaling over real, synthetic and holdout
together (:func:`capkit.distance.neighbours.joint_encode`), then the numeric columns rescaled
once more to [0, 1] over the stack as ``(x - min) / (max - min)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.metrics import f1_score, precision_score, recall_score

from capkit.attacks._forest import fit as fast_forest
from capkit.distance.neighbours import joint_encode, legacy_state
from capkit.errors import CapkitError

SCORES = ("accuracy", "precision", "recall", "f1")


@dataclass(frozen=True)
class ForestDisclosureResult:
    """Scores of the forest attack, one row per sensitive column.

    Attributes
    ----------
    table
        DataFrame indexed by sensitive column: ``kind`` ("categorical" or "numeric"),
        ``accuracy``, ``precision``, ``recall``, ``f1`` (macro) over the scored records
        (members, then holdout records, pooled as SynthEval does), ``members_accuracy`` and
        ``holdout_accuracy`` (NaN without a holdout).
    """

    table: pd.DataFrame

    def summary(self) -> dict[str, float]:
        """SynthEval's aggregate: mean of each score over the columns and its standard error
        sd / sqrt(k) (NaN for one column)."""
        out = {}
        k = len(self.table)
        for score in SCORES:
            values = self.table[score].to_numpy()
            if k == 1:
                out[score], out[score + " se"] = float(values[0]), float("nan")
            else:
                out[score] = float(np.mean(values))
                out[score + " se"] = float(np.std(values, ddof=1) / np.sqrt(k))
        return out



def _fitted(model, x: np.ndarray, y: np.ndarray):
    """``model`` fitted on ``x``, ``y``: scikit-learn's trees through
    :func:`capkit.attacks._forest.fit` (the same trees and predictions without the per-tree
    overhead), or ``model.fit`` where that does not cover the model."""
    return fast_forest(model, x, y) or model.fit(x, y)

def _rescaled(encoded: list, numeric_count: int) -> list[np.ndarray]:
    """Features (cat codes then numerics) of each table, numerics rescaled over the stack."""
    stack_num = np.concatenate([e.num for e in encoded])
    lo, hi = stack_num.min(axis=0), stack_num.max(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return [np.column_stack([e.cat.astype(np.float64), (e.num - lo) / (hi - lo)])
                for e in encoded]


def forest_disclosure(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    sensitive: Sequence[str],
    categorical: Sequence[str],
    *,
    holdout: pd.DataFrame | None = None,
    numeric_tolerance: float = 1 / 30,
    n_estimators: int = 100,
    seed: int | np.random.RandomState | None = 0,
) -> ForestDisclosureResult:
    """Random-forest attribute attack on every sensitive column, all other columns known.

    Parameters
    ----------
    real, synthetic, holdout
        Frames with the same columns (order of ``real``). Not modified.
    sensitive
        Columns to predict, in order (one forest each).
    categorical
        The categorical columns; the others must be numeric.
    numeric_tolerance
        A numeric prediction is correct when |prediction - truth| <= this, in the unit of the
        joint range (0 < value <= 1).
    n_estimators
        Trees per forest.
    seed
        Legacy NumPy ``RandomState`` (or its seed) the forests draw their tree seeds from, one
        forest after the other: ``numpy.random.seed(s)`` before SynthEval's call is
        ``seed=s`` here.

    Raises
    ------
    CapkitError
        A sensitive or categorical column that is not a column of ``real``, an empty list of
        sensitive columns, a tolerance outside (0, 1], frames with other columns.
    """
    columns = list(real.columns)
    frames = {"real": real, "synthetic": synthetic}
    if holdout is not None:
        frames["holdout"] = holdout
    for name, frame in frames.items():
        if not isinstance(frame, pd.DataFrame) or len(frame) == 0:
            raise CapkitError(f"{name} must be a non-empty pandas DataFrame")
        if sorted(map(str, frame.columns)) != sorted(map(str, columns)):
            raise CapkitError(f"{name} must have the columns of real: {columns}")
    sensitive = list(sensitive)
    if not sensitive:
        raise CapkitError("sensitive is empty: give at least one column to predict")
    for role, names in (("sensitive", sensitive), ("categorical", list(categorical))):
        unknown = [c for c in names if c not in columns]
        if unknown:
            raise CapkitError(f"{role} column {unknown[0]!r} is not a column of real")
    if not 0 < numeric_tolerance <= 1:
        raise CapkitError(f"numeric_tolerance must be in (0, 1], got {numeric_tolerance!r}")
    cats = [c for c in columns if c in set(categorical)]
    nums = [c for c in columns if c not in set(categorical)]
    encoded = joint_encode(list(frames.values()), cats, nums)
    features = _rescaled(encoded, len(nums))
    # back to the data's column order
    position = {c: i for i, c in enumerate(cats + nums)}
    order = [position[c] for c in columns]
    features = [f[:, order] for f in features]
    x_syn = features[1]
    scored = np.concatenate([features[0]] + ([features[2]] if holdout is not None else []))
    n_members = len(real)
    state = legacy_state(seed)
    rows = []
    for column in sensitive:
        t = columns.index(column)
        others = [k for k in range(len(columns)) if k != t]
        if column in cats:
            model = _fitted(RandomForestClassifier(n_estimators=n_estimators, random_state=state),
                            x_syn[:, others], x_syn[:, t].astype(np.int64))
            truth = scored[:, t].astype(np.int64)
            predicted = model.predict(scored[:, others])
            correct = predicted == truth
            kind = "categorical"
        else:
            model = _fitted(RandomForestRegressor(n_estimators=n_estimators, random_state=state),
                            x_syn[:, others], x_syn[:, t])
            guess = model.predict(scored[:, others])
            predicted = np.where(np.abs(guess - scored[:, t]) <= numeric_tolerance, 1, 0)
            truth = np.ones(len(scored), dtype=np.int64)
            correct = predicted == 1
            kind = "numeric"
        rows.append({
            "column": column, "kind": kind,
            "accuracy": float(np.sum(correct) / len(correct)),
            "precision": float(precision_score(truth, predicted, average="macro",
                                               zero_division=0)),
            "recall": float(recall_score(truth, predicted, average="macro", zero_division=0)),
            "f1": float(f1_score(truth, predicted, average="macro", zero_division=0)),
            "members_accuracy": float(np.mean(correct[:n_members])),
            "holdout_accuracy": (float(np.mean(correct[n_members:])) if holdout is not None
                                 else float("nan")),
        })
    return ForestDisclosureResult(pd.DataFrame(rows).set_index("column"))


__all__ = ["SCORES", "ForestDisclosureResult", "forest_disclosure"]
