"""PrivEval's 17 privacy metrics, computed by capkit's measures (PrivEval, Hereditary project,
github.com/hereditary-eu/PrivEval at commit 2aecac8, ``get_metric_results.py``).

``variant="priveval"`` reproduces PrivEval's preprocessing and definitions (its published
numbers, ``docs/priveval-differences.md``); ``variant="capkit"`` keeps PrivEval's definition
where capkit has no better one and uses capkit's measure where it has one: the generalised CAP
as the expected success of the pooled nearest-key attacker (Hittmeir et al. 2020), NNAA,
hitting rate, epsilon-identifiability, median-DCR ratio, DCR and NNDR on Gower's distance over
the frames as they are (text and booleans categorical), not over label codes or a
2-d projection. Every search is exact, ties to the lowest position, so a result does not depend
on the machine (but for DetectionMLP, see :mod:`capkit.attacks.detection`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit import cap
from capkit.attacks import gcap
from capkit.attacks.detection import boosted_real_recall, mlp_detection_auc
from capkit.counts.rows import unique_rows
from capkit.counts.tables import crosstab
from capkit.distance import closeness as cl
from capkit.distance.dcr import dcr
from capkit.distance.nearest import nearest
from capkit.distance.neighbour_risk import (
    adversarial_accuracy,
    entropy_weights,
    epsilon_identifiability,
    hitting_rate,
    median_dcr_ratio,
    nnaa,
    nndr,
)
from capkit.distance.neighbours import Encoded, Weights, joint_encode, k_nearest
from capkit.errors import CapkitError
from capkit.priveval import prepare, published
from capkit.priveval._search import Searches
from capkit.priveval.hitting import hitting_rate_labels

__all__ = ["METRICS", "VARIANTS", "metrics"]

#: PrivEval's metric names, in the order of its result files.
METRICS = (
    "Attribute Inference Risk", "GeneralizedCAP", "ZeroCAP", "Median Distance to Closest Record",
    "Hitting Rate", "Membership Inference Risk", "Nearest Neighbour Adversarial Accuracy",
    "Common Row Proportion", "Nearest Synthetic Neighbour Distance", "Close Value Probability",
    "Distant Value Probability", "Authenticity", "DetectionMLP", "Identifiability Score",
    "Distance to Closest Record", "Nearest Neighbour Distance Ratio", "Hidden Rate",
)
VARIANTS = ("priveval", "published", "capkit")


def _codes(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> list[np.ndarray]:
    """Joint integer codes of ``columns`` in every frame (equal values, equal codes)."""
    out = [np.empty((len(f), len(columns)), dtype=np.int64) for f in frames]
    for k, column in enumerate(columns):
        _, inverse = np.unique(np.concatenate([f[column].to_numpy() for f in frames]),
                               return_inverse=True)
        start = 0
        for f, o in zip(frames, out, strict=True):
            o[:, k] = inverse[start:start + len(f)]
            start += len(f)
    return out


def _air(real: pd.DataFrame, synthetic: pd.DataFrame, sensitive: str, search: Searches) -> float:
    r, s = prepare.air_features(real, synthetic, sensitive)
    index, _ = search("air", s, r, 1, "rs")
    accuracy = float(np.mean(real[sensitive].to_numpy() == synthetic[sensitive].to_numpy()[
        index[:, 0]]))
    f1 = 2 * accuracy / (accuracy + 1) if accuracy > 0 else 0.0
    shares = real.value_counts().to_numpy() / len(real)
    total = -np.sum(shares * np.log(shares))
    weight = np.sum(-shares * np.log(shares + 1e-8)) / total if total > 0 else 1.0
    return float(weight * f1)


def _cap_pair(real: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str], sensitive: str,
              variant: str) -> tuple[float, float]:
    """(GeneralizedCAP, ZeroCAP): the share of real records whose attacker guess is right."""
    table = crosstab(real, synthetic, keys, sensitive, allow_disjoint_levels=True)
    zero = cap.average_cap(table.original, table.synthetic, version=1)
    if variant == "capkit":
        cells = np.asarray(table.record_cell)
        unique_j, position = np.unique(cells[:, 1], return_inverse=True)
        pools = gcap.nearest_pools(table.synthetic, gcap.key_parts(table.keys), unique_j)
        dense = pools.toarray()
        share = dense[cells[:, 0], position] / dense.sum(axis=0)[position]
        return float(np.mean(share)), float(zero)
    cat_r, cat_s = _codes([real, synthetic], keys)
    empty = np.zeros((len(real), 0)), np.zeros((len(synthetic), 0))
    _, arg = nearest(cat_r, cat_s, empty[0], empty[1], np.ones(len(keys)))
    right = real[sensitive].to_numpy() == synthetic[sensitive].to_numpy()[arg]
    return float(np.mean(right)), float(zero)


def _gower_tables(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[Encoded, Encoded,
                                                                       list[str], list[str]]:
    cat = [c for c in real.columns if not pd.api.types.is_numeric_dtype(real[c])
           or real[c].dtype == bool]
    num = [c for c in real.columns if c not in cat]
    enc_r, enc_s = joint_encode([real, synthetic], cat, num)
    return enc_r, enc_s, cat, num


def _priveval_gower(labels_r: pd.DataFrame, labels_s: pd.DataFrame) -> float:
    """PrivEval's NNAA on the label frames: Yale et al.'s adversarial accuracy under SynthEval's
    Gower distance on *unscaled* values, every column numeric: each |x - y| weighted by
    1 / max(range, 1) (added term by term as scipy's weighted ``cdist`` does, so that equal
    distances come out equal), the sum divided by the number of columns. The range is taken
    over the two tables each distance matrix compares: real and synthetic for the distances
    between them, the real records alone for real-to-real, the synthetic alone for
    synthetic-to-synthetic (SynthEval's matrix function called on one table)."""
    r = labels_r.to_numpy(dtype=np.float64)
    s = labels_s.to_numpy(dtype=np.float64)
    none = np.zeros((0,), dtype=np.float64)

    def weights(*tables: np.ndarray) -> Weights:
        return Weights(none, 1.0 / np.maximum(np.ptp(np.vstack(tables), axis=0), 1.0))

    a = Encoded(np.zeros((len(r), 0), dtype=np.int64), r)
    b = Encoded(np.zeros((len(s), 0), dtype=np.int64), s)
    total = float(r.shape[1])
    a_self = k_nearest(a, a, 1, weights=weights(r), total=total, self_rule="content",
                       same=True)[:, 0]
    b_self = k_nearest(b, b, 1, weights=weights(s), total=total, self_rule="content",
                       same=True)[:, 0]
    return adversarial_accuracy(a, b, self_rule="content", a_self=a_self, b_self=b_self,
                                weights=weights(r, s), total=total)


def metrics(real: pd.DataFrame, synthetic: pd.DataFrame, sensitive: str = "Revenue", *,
            keys: Sequence[str] | None = None, variant: str = "priveval", seed: int = 0,
            close_threshold: float = 0.2, distant_threshold: float = 0.8,
            hit_threshold: float = 1 / 30, skip: Sequence[str] = (),
            classifier: str = "hist_gradient_boosting", projection: str = "exact"
            ) -> pd.Series:
    """PrivEval's 17 metrics of ``synthetic`` against ``real``, under PrivEval's names.

    Parameters
    ----------
    real, synthetic
        The original and the release, with the same columns. Not modified.
    sensitive
        The attribute the attribute-inference metrics guess (PrivEval's ``Revenue``).
    keys
        The quasi-identifiers of the CAP metrics (default: every other column, PrivEval's).
    variant
        ``"priveval"``: PrivEval's preprocessing and definitions at commit 2aecac8;
        ``"published"``: PrivEval's definitions at commit 379d742 (2025-07-31), the code that
        last wrote its published results (:mod:`capkit.priveval.published`);
        ``"capkit"``: capkit's measure where it has one (module docstring).
    seed
        Seed of the membership-inference classifier's splits (the one random metric).
    close_threshold, distant_threshold
        CVP's and DVP's thresholds on the normalised distance, in (0, 1).
    hit_threshold
        The hitting rate's share of each numeric range, in [0, 1].
    skip
        Metric names not to compute (NaN in the result), e.g. the slow DetectionMLP.
    classifier
        The membership-inference classifier: ``"hist_gradient_boosting"`` (scikit-learn's) or
        ``"lightgbm"`` (PrivEval's; needs the lightgbm package).
    projection
        The 2-d projection of DCR, NNDR and the hidden rate: ``"exact"`` principal axes, or
        ``"randomized"``, saiph's randomised SVD drawn with ``seed``
        (:func:`capkit.distance.closeness.principal_coordinates`).

    Returns
    -------
    pandas Series of floats indexed by :data:`METRICS` (higher = more risk, as PrivEval).

    Raises
    ------
    CapkitError
        Bad frames or arguments (:func:`capkit.priveval.prepare.check_inputs`), an unknown
        variant or metric name, a threshold outside its range.
    """
    key_list = prepare.check_inputs(real, synthetic, sensitive, keys)
    if variant not in VARIANTS:
        raise CapkitError(f"variant must be one of {VARIANTS}, got {variant!r}")
    unknown = [name for name in skip if name not in METRICS]
    if unknown:
        raise CapkitError(f"skip names unknown metrics {unknown}; expected names from {METRICS}")
    for name, value in (("close_threshold", close_threshold),
                        ("distant_threshold", distant_threshold)):
        if not isinstance(value, (int, float)) or not 0 < value < 1:
            raise CapkitError(f"{name} must be in (0, 1), got {value!r}")
    if projection not in ("exact", "randomized"):
        raise CapkitError(f"projection must be 'exact' or 'randomized', got {projection!r}")
    if not isinstance(hit_threshold, (int, float)) or not 0 <= hit_threshold <= 1:
        raise CapkitError(f"hit_threshold must be in [0, 1], got {hit_threshold!r}")
    out = dict.fromkeys(METRICS, np.nan)
    want = [m for m in METRICS if m not in skip]
    labels_r, labels_s = prepare.label_frames(real, synthetic)
    capkit_way = variant == "capkit"
    search = Searches()
    if variant == "published":
        early = published.early_metrics(real, synthetic, labels_r, labels_s, sensitive,
                                        key_list, want, search, seed=seed,
                                        classifier=classifier)
        out.update(early)
        want = [m for m in want if m not in early]
    if capkit_way:
        enc_r, enc_s, cat, num = _gower_tables(real, synthetic)

    if "Attribute Inference Risk" in want:
        out["Attribute Inference Risk"] = _air(real, synthetic, sensitive, search)
    if "GeneralizedCAP" in want or "ZeroCAP" in want:
        out["GeneralizedCAP"], out["ZeroCAP"] = _cap_pair(labels_r, labels_s, key_list,
                                                          sensitive, variant)
    if "Median Distance to Closest Record" in want:
        if capkit_way:
            ratio = median_dcr_ratio(enc_r, enc_s)
            out["Median Distance to Closest Record"] = 1.0 - 1.0 / (1.0 + np.exp(-ratio))
        else:
            zr, zs = prepare.standardised(labels_r.to_numpy(), labels_s.to_numpy())
            d_rs = search("label", zs, zr, 1, "rs")[1][:, 0]
            d_rr = search("label", zr, zr, 2, "rr")[1][:, 1]
            out["Median Distance to Closest Record"] = cl.median_ratio_score(d_rs, d_rr)
    if "Hitting Rate" in want:
        out["Hitting Rate"] = (hitting_rate(enc_r, enc_s, hit_threshold) if capkit_way
                               else hitting_rate_labels(labels_r, labels_s, hit_threshold))
    if "Membership Inference Risk" in want:
        both = pd.get_dummies(pd.concat([real, synthetic], ignore_index=True), drop_first=True,
                              dtype=np.int64).astype(np.float64)
        both = both.fillna(both.mean()).to_numpy()
        out["Membership Inference Risk"] = 1.0 - boosted_real_recall(
            both[:len(real)], both[len(real):], seed=seed, classifier=classifier)
    if "Nearest Neighbour Adversarial Accuracy" in want:
        if capkit_way:
            accuracy = nnaa(enc_r, enc_s, seed=seed)["avg"]
        else:
            accuracy = _priveval_gower(labels_r, labels_s)
        out["Nearest Neighbour Adversarial Accuracy"] = 1.0 - accuracy
    if "Common Row Proportion" in want:
        joint = pd.concat([real, synthetic], ignore_index=True)
        codes = _codes([joint], list(real.columns))[0]
        row = unique_rows(codes)[1]
        common = np.intersect1d(row[:len(real)], row[len(real):])
        out["Common Row Proportion"] = len(common) / (len(real) + 1e-8)
    if any(m in want for m in ("Nearest Synthetic Neighbour Distance", "Close Value Probability",
                               "Distant Value Probability")):
        r, s = prepare.onehot_standardised(real, synthetic)
        d_rs = search("onehot", s, r, 1, "rs")[1][:, 0]
        out["Close Value Probability"] = cl.close_value_probability(d_rs, close_threshold)
        out["Distant Value Probability"] = cl.distant_value_probability(d_rs, distant_threshold)
        out["Nearest Synthetic Neighbour Distance"] = cl.nearest_neighbour_distance(d_rs)
    if "Authenticity" in want:
        r, s = prepare.numeric_standardised(real, synthetic)
        out["Authenticity"] = cl.authenticity(search("numeric", r, r, 2, "rr")[1][:, 1],
                                              search("numeric", s, r, 1, "rs")[1][:, 0])
    if "DetectionMLP" in want:
        r, s = prepare.onehot_standardised(real, synthetic)
        out["DetectionMLP"] = 1.0 - mlp_detection_auc(r, s)
    if "Identifiability Score" in want:
        if capkit_way:
            order = np.argsort(np.argsort([real.columns.get_loc(c) for c in cat + num]))
            weights, total = entropy_weights(enc_r, order, raw_numeric=real[num].to_numpy())
            out["Identifiability Score"] = epsilon_identifiability(
                enc_r, enc_s, weights=weights, total=total)["eps_risk"]
        else:
            r, s = prepare.identifiability_features(real, synthetic)
            out["Identifiability Score"] = cl.identifiable_share(
                search("identify", r, r, 2, "rr")[1][:, 1],
                search("identify", s, r, 1, "rs")[1][:, 0])
    projected = [m for m in ("Distance to Closest Record", "Nearest Neighbour Distance Ratio",
                             "Hidden Rate") if m in want]
    if projected:
        pr, ps = cl.principal_coordinates(labels_r.fillna(0).to_numpy(),
                                          labels_s.fillna(0).to_numpy(), method=projection,
                                          seed=seed)
        if not capkit_way and ("Distance to Closest Record" in want
                               or "Nearest Neighbour Distance Ratio" in want):
            d2 = search("projection", pr, ps, 2, "sr")[1]  # two nearest real, per synthetic
        if "Distance to Closest Record" in want:
            d = dcr(synthetic, real).distance if capkit_way else d2[:, 0]
            out["Distance to Closest Record"] = cl.mean_dcr_score(d)
        if "Nearest Neighbour Distance Ratio" in want:
            if capkit_way:
                ratio = nndr(enc_r, enc_s, per="synthetic")["avg"]
            else:
                ratio = float(np.mean(cl.distance_ratio(d2[:, 0], d2[:, 1])))
            out["Nearest Neighbour Distance Ratio"] = 1.0 - ratio
        if "Hidden Rate" in want:
            index = search("projection", ps, pr, 1, "rs")[0][:, 0]
            out["Hidden Rate"] = float(np.mean(index == np.arange(len(pr))))
    return pd.Series(out, name=variant, dtype=np.float64)
