"""PrivEval's metrics as they were when it last wrote its published results.

PrivEval's ``metric_results/*.csv`` were last written at commit 379d742 (2025-07-31,
github.com/hereditary-eu/PrivEval); between 2025-08-05 and 2025-09-18 (commit 2aecac8) eleven
of its seventeen metrics changed. :func:`early_metrics` computes those eleven as the code of
379d742 defines them, with the same inputs (the frames as read, or the label frames, as
``get_results.py`` passes them); the other six (Common Row Proportion, Authenticity, hitting
rate, DCR, NNDR, hidden rate) did not change in substance and come from
:func:`capkit.priveval.metrics.metrics`.

At 379d742:

* Attribute Inference Risk: the nearest synthetic record on every key once (text one-hot,
  unscaled numbers), F1 = 2a / (1 + a) of its guess (a: share right), weighted by the sum over
  the real records of -p log(p + 1e-8) / H (p: the share of the record's pattern);
* GeneralizedCAP: :func:`capkit.attacks.early_priveval.forest_key_accuracy` on the pooled label
  frames, every key coded by its sorted *strings*;
* ZeroCAP: :func:`capkit.attacks.early_priveval.unique_key_agreement`;
* Median DCR: sigmoid(median d(synthetic, real) / median d(real, other real)) on the
  standardised label frames (the synthetic-to-real direction; no ``1 -``);
* Membership Inference Risk: the real-class recall itself (no ``1 -``);
* NNAA: :func:`capkit.attacks.early_priveval.neighbour_profile_accuracy` on the standardised
  numeric columns of the label frames;
* NSND, CVP, DVP: on the numeric columns only (no one-hot text), NSND without ``1 -``;
* DetectionMLP: the AUC itself on the numeric columns only;
* Identifiability: against the *second* nearest other real record.

The hitting rate's code did not change, but its published values are those it gives when the
label-coded text columns and the 0/1 booleans are left out: its type test keeps columns of
dtype ``int64`` or ``float64`` only, and where NumPy's default integer is 32 bits (Windows
before NumPy 2) ``LabelEncoder`` codes and ``astype(int)`` are ``int32``, so those four columns
drop out of the comparison. capkit infers this from the numbers (leaving them out gives the
published value, to two decimals, on every release); PrivEval does not say where it ran.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.attacks.detection import boosted_real_recall, mlp_detection_auc
from capkit.attacks.early_priveval import (
    forest_key_accuracy,
    neighbour_profile_accuracy,
    unique_key_agreement,
)
from capkit.counts.tables import crosstab
from capkit.distance import closeness as cl
from capkit.priveval import prepare
from capkit.priveval._search import Searches
from capkit.priveval.hitting import hitting_rate_labels

__all__ = ["CHANGED", "early_metrics"]

#: The metrics whose definition changed after PrivEval last wrote its results, and the hitting
#: rate, whose published values skip the label-coded and boolean columns (see early_metrics).
CHANGED = ("Hitting Rate",
    "Attribute Inference Risk", "GeneralizedCAP", "ZeroCAP", "Median Distance to Closest Record",
    "Membership Inference Risk", "Nearest Neighbour Adversarial Accuracy",
    "Nearest Synthetic Neighbour Distance", "Close Value Probability",
    "Distant Value Probability", "DetectionMLP", "Identifiability Score",
)


def _air(real: pd.DataFrame, synthetic: pd.DataFrame, sensitive: str, search: Searches
         ) -> float:
    keys = [c for c in real.columns if c != sensitive]
    both = pd.get_dummies(pd.concat([real[keys], synthetic[keys]]), dtype=np.int64)
    values = both.to_numpy(dtype=np.float64)
    index, _ = search("air_keys", values[len(real):], values[:len(real)], 1, "rs")
    accuracy = float(np.mean(real[sensitive].to_numpy()
                             == synthetic[sensitive].to_numpy()[index[:, 0]]))
    f1 = 2 * accuracy / (accuracy + 1) if accuracy > 0 else 0.0
    _, pattern, counts = np.unique(
        np.column_stack([pd.factorize(real[c])[0] for c in real.columns]), axis=0,
        return_inverse=True, return_counts=True)
    share = counts / len(real)
    total = -np.sum(share * np.log(share))
    per_record = share[pattern.ravel()]
    weight = (np.sum(-per_record * np.log(per_record + 1e-8)) / total if total > 0 else 1.0)
    return float(weight * f1)


def _string_codes(frame: pd.DataFrame) -> np.ndarray:
    """Each column coded by the rank of its values' strings (``LabelEncoder`` on ``astype(str)``,
    lexicographic: "10.0" before "2.0")."""
    return np.column_stack([np.unique(frame[c].astype(str).to_numpy(), return_inverse=True)[1]
                            for c in frame.columns])


def early_metrics(real: pd.DataFrame, synthetic: pd.DataFrame, labels_r: pd.DataFrame,
                  labels_s: pd.DataFrame, sensitive: str, keys: Sequence[str],
                  want: Sequence[str], search: Searches, *, seed: int = 0,
                  classifier: str = "hist_gradient_boosting") -> dict[str, float]:
    """The metrics of :data:`CHANGED` among ``want``, as PrivEval's commit 379d742 computes
    them (module docstring). ``labels_r``, ``labels_s``: PrivEval's label frames
    (:func:`capkit.priveval.prepare.label_frames`); ``search``: the call's searches (shared
    with the other metrics); ``seed``, ``classifier``: the membership classifier's splits and
    kind."""
    out: dict[str, float] = {}
    keys = [c for c in labels_r.columns if c in set(keys)]  # the label frames' column order
    if "Attribute Inference Risk" in want:
        out["Attribute Inference Risk"] = _air(real, synthetic, sensitive, search)
    if "GeneralizedCAP" in want:
        pooled = pd.concat([labels_r, labels_s], ignore_index=True)
        out["GeneralizedCAP"] = forest_key_accuracy(_string_codes(pooled[keys]),
                                                    pooled[sensitive].astype(str).to_numpy())
    if "ZeroCAP" in want:
        table = crosstab(labels_r.astype(str), labels_s.astype(str), keys, sensitive,
                         allow_disjoint_levels=True)
        out["ZeroCAP"] = unique_key_agreement(table.original, table.synthetic)
    if "Nearest Neighbour Adversarial Accuracy" in want:
        zr, zs = prepare.standardised(labels_r.to_numpy(), labels_s.to_numpy())
        k = min(5, len(zr) - 1, len(zs) - 1)
        out["Nearest Neighbour Adversarial Accuracy"] = neighbour_profile_accuracy(
            search("label", zr, zr, k + 1, "rr")[1][:, 1:], search("label", zs, zr, k, "rs")[1],
            search("label", zr, zs, k, "sr")[1], search("label", zs, zs, k + 1, "ss")[1][:, 1:])
    if "Hitting Rate" in want:
        coded = [c for c in real.columns if not pd.api.types.is_numeric_dtype(real[c])
                 or real[c].dtype == bool]
        out["Hitting Rate"] = hitting_rate_labels(labels_r.drop(columns=coded),
                                                  labels_s.drop(columns=coded))
    if "Median Distance to Closest Record" in want:
        zr, zs = prepare.standardised(labels_r.to_numpy(), labels_s.to_numpy())
        mut = float(np.median(search("label", zr, zs, 1, "sr")[1][:, 0]))
        internal = float(np.median(search("label", zr, zr, 2, "rr")[1][:, 1]))
        out["Median Distance to Closest Record"] = (
            0.0 if internal == 0 else float(1.0 / (1.0 + np.exp(-mut / internal))))
    if "Membership Inference Risk" in want:
        both = pd.get_dummies(pd.concat([real, synthetic], ignore_index=True), drop_first=True,
                              dtype=np.int64).astype(np.float64)
        both = both.fillna(both.mean()).to_numpy()
        out["Membership Inference Risk"] = boosted_real_recall(
            both[:len(real)], both[len(real):], seed=seed, classifier=classifier)
    numeric = [m for m in ("Nearest Synthetic Neighbour Distance", "Close Value Probability",
                           "Distant Value Probability") if m in want]
    if numeric:
        r, s = prepare.numeric_standardised(real, synthetic)
        d_rs = search("numeric", s, r, 1, "rs")[1][:, 0]
        norm = cl.minmax_normalised(d_rs)
        out["Nearest Synthetic Neighbour Distance"] = 0.0 if norm is None else float(
            np.mean(norm))
        out["Close Value Probability"] = cl.close_value_probability(d_rs)
        out["Distant Value Probability"] = cl.distant_value_probability(d_rs)
    if "DetectionMLP" in want:
        num = real.select_dtypes(include=[np.number]).columns
        out["DetectionMLP"] = mlp_detection_auc(
            real[num].fillna(real[num].mean()).to_numpy(dtype=np.float64),
            synthetic[num].fillna(synthetic[num].mean()).to_numpy(dtype=np.float64))
    if "Identifiability Score" in want:
        r, s = prepare.identifiability_features(real, synthetic)
        out["Identifiability Score"] = cl.identifiable_share(
            search("identify", r, r, 3, "rr")[1][:, 2], search("identify", s, r, 1, "rs")[1][:, 0])
    return {name: value for name, value in out.items() if name in want}
