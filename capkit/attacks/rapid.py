"""RAPID, the Risk of Attribute Prediction-Induced Disclosure: :func:`rapid`.

Templ, Thees & Müller, "RAPID: Risk of Attribute Prediction-Induced Disclosure in Synthetic
Microdata" (arXiv 2602.09235, 2026). An attacker trained on the released (synthetic) data
predicts each original record's sensitive value from its quasi-identifiers. A record is **at
risk** when the prediction is confidently right:

* categorical target: the attacker's probability g_i of the true class beats the class's share
  b_i among the attacked records by a normalized gain r_i = (g_i - b_i) / (1 - b_i) > tau
  (Section 2.2; default tau = 0.3);
* continuous target: the record error e_i is below epsilon (Section 2.3; default 10%), with the
  R code's symmetric error by default (:mod:`capkit.attacks.rapid_scores`).

RAPID is the share of records at risk (Algorithm 1). capkit reports it with a Wilson interval
(Section 2.5), a seeded bootstrap interval (the paper's uncertainty, without refitting the
attacker), the threshold a permutation null would choose (Section 2.5, riskutility's
``rapid_threshold_select``) and, as for every attack in capkit, the same measure on a holdout
with the members-vs-holdout comparison of :func:`capkit.control.compare_to_control`.

The attacker is any of :mod:`capkit.attacks.attackers` (default ``"ranger"``, the paper's
random forest); it is fitted once and predicts once per key combination
(:mod:`capkit.attacks.fit`), so no step loops over records.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from capkit.attacks import rapid_scores as sc
from capkit.attacks.attackers import NUMERIC, Attacker, resolve
from capkit.attacks.attribute import _per_group
from capkit.attacks.fit import predict, probabilities
from capkit.attacks.grid import Grid, prepare
from capkit.control import ControlComparison, compare_to_control
from capkit.data.align import column_difference
from capkit.data.labels import is_numeric
from capkit.errors import CapkitError


@dataclass(frozen=True)
class ThresholdChoice:
    """The permutation choice of the threshold (riskutility's ``rapid_threshold_select``).

    The observed targets are shuffled against the fixed predictions ``n_permutations`` times;
    at each threshold the observed RAPID is significant when it exceeds the (1 - alpha)
    quantile of the shuffled RAPIDs. ``chosen`` is the largest significant tau (categorical),
    or the largest significant epsilon (continuous), None when none is significant; ``p_value``
    is the permutation p-value (1 + #{null >= observed}) / (1 + n_permutations) at the
    threshold the result used (riskutility's ``rapid_test``).
    """

    thresholds: np.ndarray
    observed: np.ndarray
    null_quantile: np.ndarray
    significant: np.ndarray
    chosen: float | None
    p_value: float
    alpha: float
    n_permutations: int

    def to_frame(self) -> pd.DataFrame:
        """One row per threshold: observed RAPID, the null quantile, significance."""
        return pd.DataFrame({"threshold": self.thresholds, "rapid": self.observed,
                             "null_quantile": self.null_quantile,
                             "significant": self.significant})


@dataclass(frozen=True)
class GroupRapid:
    """RAPID on one group of attacked records (members or holdout).

    Attributes
    ----------
    n
        Records scored (a continuous target's missing values are left out).
    at_risk
        Records at risk.
    rapid
        ``at_risk / n``.
    scores
        Categorical: ``accuracy`` (the most probable class is the true one, ties to the first
        class; no guess, as ``"cap"`` without a matching key, is wrong) and ``mean_gain``.
        Continuous: ``mae``, ``rmse`` and ``median_error`` over the records with a guess.
    """

    n: int
    at_risk: int
    rapid: float
    scores: dict[str, float]


@dataclass(frozen=True)
class RapidResult:
    """RAPID of a release for one sensitive attribute.

    Attributes
    ----------
    attacker, target, keys, kind
        What was run (``kind``: ``"categorical"`` or ``"numeric"``).
    rule
        ``"normalized_gain"`` (categorical) or the error (``"symmetric"``, ``"relative"``,
        ``"absolute"``).
    threshold
        tau (categorical) or epsilon (continuous) used for the flags.
    delta
        The smoothing constant of the relative errors.
    n, at_risk, rapid, scores
        The members' :class:`GroupRapid` fields: RAPID is ``rapid``.
    ci
        Wilson score interval of ``rapid`` at ``confidence``.
    bootstrap_ci
        Percentile interval of ``n_bootstrap`` seeded resamples of the members (None when
        ``n_bootstrap`` is 0).
    threshold_choice
        :class:`ThresholdChoice`, or None when ``n_permutations`` is 0.
    control
        The holdout's :class:`GroupRapid`, or None.
    comparison
        :func:`capkit.control.compare_to_control` of the at-risk counts: rates with Wilson
        intervals, risk (m - c) / (1 - c) and advantage m - c when a holdout is given.
    records
        One row per scored record, index ``(group, record)`` (group ``"member"`` or
        ``"holdout"``; record: the frame's index label): ``observed``, ``predicted`` (the most
        probable class, or the predicted value; NaN without a guess), then ``probability``
        (g_i), ``baseline`` (b_i) and ``gain`` (r_i), or ``error`` (e_i); and ``at_risk``.
    confidence
        Confidence level of the intervals.
    """

    attacker: str
    target: str
    keys: tuple[str, ...]
    kind: str
    rule: str
    threshold: float
    delta: float
    n: int
    at_risk: int
    rapid: float
    scores: dict[str, float]
    ci: tuple[float, float]
    bootstrap_ci: tuple[float, float] | None
    threshold_choice: ThresholdChoice | None
    control: GroupRapid | None
    comparison: ControlComparison
    records: pd.DataFrame
    confidence: float

    @property
    def members(self) -> GroupRapid:
        """The members' result as a :class:`GroupRapid`."""
        return GroupRapid(self.n, self.at_risk, self.rapid, self.scores)

    def curve(self, thresholds: Sequence[float] | None = None, group: str = "member"
              ) -> pd.Series:
        """RAPID of ``group`` at each threshold (the paper's threshold curve), from the stored
        record scores; default thresholds as riskutility's threshold selection."""
        categorical = self.kind != NUMERIC
        if thresholds is None:
            thresholds = sc.DEFAULT_TAUS if categorical else sc.DEFAULT_EPSILONS
        values = np.asarray(thresholds, dtype=np.float64)
        column = "gain" if categorical else "error"
        groups = self.records.index.get_level_values("group")
        if group not in set(groups):
            raise CapkitError(f"group must be one of {sorted(set(groups))}, got {group!r}")
        scores = self.records.loc[group, column].to_numpy(np.float64)
        shares = sc.share_above(scores[None, :], values, categorical)[0]
        return pd.Series(shares, index=pd.Index(values, name="threshold"), name="rapid")


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise CapkitError(f"{name} must be a number, got {value!r}")
    return float(value)


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise CapkitError(f"{name} must be a whole number >= 0, got {value!r}")
    return int(value)


def check_options(tau: float, epsilon: float, delta: float, error: str, alpha: float
                  ) -> tuple[float, float, float]:
    """tau in (0, 1), epsilon > 0, delta > 0, a known error and alpha in (0, 1), or a
    CapkitError naming the argument."""
    tau = _number(tau, "tau")
    if not 0.0 < tau < 1.0:
        raise CapkitError(f"tau must lie strictly between 0 and 1 (a share of the largest "
                          f"possible gain; the paper's default is 0.3), got {tau!r}")
    epsilon = _number(epsilon, "epsilon")
    if not epsilon > 0 or math.isinf(epsilon):
        raise CapkitError(f"epsilon must be a positive number (0.1 for 10%), got {epsilon!r}")
    delta = _number(delta, "delta")
    if not delta > 0 or math.isinf(delta):
        raise CapkitError(f"delta must be a positive number (the R code's 0.01), got {delta!r}")
    if error not in sc.ERRORS:
        raise CapkitError(f"error must be one of {sc.ERRORS}, got {error!r}")
    alpha = _number(alpha, "alpha")
    if not 0.0 < alpha < 1.0:
        raise CapkitError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    return tau, epsilon, delta


def check_columns(original: pd.DataFrame, synthetic: pd.DataFrame) -> None:
    """The release must have the original's columns (a release with other columns is most
    likely not a synthesis of this original)."""
    for name, frame in (("original", original), ("synthetic", synthetic)):
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} data must be a pandas DataFrame, got "
                              f"{type(frame).__name__}")
    missing, extra = column_difference(original, synthetic)
    if missing or extra:
        raise CapkitError(
            "synthetic data must have the columns of the original data: missing from synthetic "
            f"{missing}, only in synthetic {extra} (pass same_columns=False to compare only "
            "the keys and the target)")


def _score_group(grid: Grid, rows: np.ndarray, predicted: np.ndarray, categorical: bool,
                 threshold: float, error: str, delta: float) -> tuple[dict, np.ndarray]:
    """The record columns and the score each flag is taken from (gain or error)."""
    if categorical:
        n_classes = predicted.shape[1]
        g = predicted[np.arange(len(rows)), rows]
        b = sc.class_shares(rows, n_classes)[rows]
        score = sc.normalized_gain(g, b)
        best = np.where(predicted.sum(axis=1) > 0, np.argmax(predicted, axis=1), -1)
        columns = {"observed_row": rows, "predicted_row": best, "probability": g,
                   "baseline": b, "gain": score}
    else:
        y = grid.values[rows]
        score = sc.continuous_error(y, predicted, error, delta)
        columns = {"observed": y, "predicted": predicted, "error": score}
    columns["at_risk"] = sc.flags(score, threshold, categorical)
    return columns, score


def _group_result(columns: dict, categorical: bool) -> GroupRapid:
    flags = columns["at_risk"]
    n, k = len(flags), int(flags.sum())
    if categorical:
        scores = {"accuracy": float(np.mean(columns["predicted_row"] == columns["observed_row"])),
                  "mean_gain": float(np.nanmean(columns["gain"])) if n else float("nan")}
    else:
        gap = columns["predicted"] - columns["observed"]
        made = ~np.isnan(gap)  # "cap" has no guess for a key absent from the release
        scores = {"mae": float(np.mean(np.abs(gap[made]))) if made.any() else float("nan"),
                  "rmse": float(np.sqrt(np.mean(gap[made] ** 2))) if made.any() else float("nan"),
                  "median_error": float(np.median(columns["error"][made])) if made.any()
                  else float("nan")}
    return GroupRapid(n, k, k / n, scores)


def _records_frame(grid: Grid, columns: dict, labels: np.ndarray, categorical: bool
                   ) -> pd.DataFrame:
    if categorical:
        names = grid.target_labels
        best = columns["predicted_row"]
        data = {"observed": names[columns["observed_row"]],
                "predicted": np.where(best >= 0, names[np.maximum(best, 0)], np.nan),
                **{c: columns[c] for c in ("probability", "baseline", "gain", "at_risk")}}
    else:
        data = columns
    return pd.DataFrame(data, index=pd.Index(labels, name="record"))


def _threshold_choice(columns: dict, categorical: bool, used: float, thresholds: np.ndarray,
                      n_permutations: int, alpha: float, rng: np.random.Generator,
                      probabilities_: np.ndarray | None, error: str, delta: float
                      ) -> ThresholdChoice:
    score = columns["gain"] if categorical else columns["error"]
    grid_and_used = np.append(thresholds, used)
    observed = sc.share_above(score[None, :], grid_and_used, categorical)[0]
    if categorical:
        null = sc.permutation_null(n_permutations, rng, grid_and_used,
                                   probabilities=probabilities_, codes=columns["observed_row"],
                                   n_classes=probabilities_.shape[1])
    else:
        null = sc.permutation_null(n_permutations, rng, grid_and_used,
                                   observed=columns["observed"], predicted=columns["predicted"],
                                   error=error, delta=delta)
    quantile = np.quantile(null, 1.0 - alpha, axis=0)  # R's quantile type 7
    significant = observed > quantile
    chosen = thresholds[significant[:-1]]
    p_value = (1.0 + float(np.sum(null[:, -1] >= observed[-1]))) / (1.0 + n_permutations)
    return ThresholdChoice(thresholds, observed[:-1], quantile[:-1], significant[:-1],
                           float(chosen.max()) if len(chosen) else None, p_value, alpha,
                           n_permutations)


def rapid_on_grid(grid: Grid, attacker: str | BaseEstimator | Attacker = "ranger", *,
                  tau: float = 0.3, epsilon: float = 0.1, delta: float = 0.01,
                  error: str = "symmetric", seed: int = 0, confidence: float = 0.95,
                  n_bootstrap: int = 500, n_permutations: int = 199, alpha: float = 0.05,
                  thresholds: Sequence[float] | None = None,
                  index: dict[str, pd.Index] | None = None) -> RapidResult:
    """:func:`rapid` on a prepared :class:`capkit.attacks.grid.Grid` (options as there;
    ``index`` gives the index labels of the members' and holdout's records)."""
    tau, epsilon, delta = check_options(tau, epsilon, delta, error, alpha)
    n_bootstrap = _count(n_bootstrap, "n_bootstrap")
    n_permutations = _count(n_permutations, "n_permutations")
    spec = resolve(attacker, grid.kind)
    categorical = grid.kind != NUMERIC
    threshold = tau if categorical else epsilon
    groups = ["members", "holdout"] if grid.has_holdout else ["members"]
    cells = {g: grid.cells(g)[grid.known(g)] for g in groups}
    if not len(cells["members"]):
        raise CapkitError(f"no original record has a known target {grid.target!r} to attack")
    combos, inverse = np.unique(np.concatenate([cells[g][:, 1] for g in groups]),
                                return_inverse=True)
    inverse = inverse.ravel()
    fitted = probabilities if categorical else predict
    by_group = _per_group(spec, grid.kind)
    shared = None if by_group else fitted(spec, grid, "synthetic", combos, seed, {})
    bounds = np.cumsum([len(cells[g]) for g in groups])[:-1]
    results, frames, member_columns, member_predictions = {}, {}, None, None
    for g, inv in zip(groups, np.split(inverse, bounds), strict=True):
        if by_group:  # anonymeter's ranges are over the synthetic data and the attacked group
            mine, local = np.unique(combos[inv], return_inverse=True)
            predicted = fitted(spec, grid, "synthetic", mine, seed, {})[local.ravel()]
        else:
            predicted = shared[inv]
        columns, _ = _score_group(grid, cells[g][:, 0], predicted, categorical, threshold,
                                  error, delta)
        results[g] = _group_result(columns, categorical)
        labels = (index or {}).get(g)
        labels = labels[grid.known(g)] if labels is not None else np.flatnonzero(grid.known(g))
        frames["member" if g == "members" else "holdout"] = _records_frame(
            grid, columns, labels, categorical)
        if g == "members":
            member_columns, member_predictions = columns, predicted
    members, control = results["members"], results.get("holdout")
    comparison = compare_to_control(members.at_risk, members.n,
                                    control.at_risk if control else None,
                                    control.n if control else None, confidence=confidence)
    boot_rng, perm_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    bootstrap_ci = None
    if n_bootstrap:
        if categorical:
            draws = sc.bootstrap_shares(n_bootstrap, boot_rng,
                                        probability=member_columns["probability"],
                                        codes=member_columns["observed_row"],
                                        n_classes=member_predictions.shape[1], tau=tau)
        else:
            draws = sc.bootstrap_shares(n_bootstrap, boot_rng, at_risk=member_columns["at_risk"])
        low, high = np.quantile(draws, [(1 - confidence) / 2, (1 + confidence) / 2])
        bootstrap_ci = (float(low), float(high))
    choice = None
    if n_permutations:
        scan = np.asarray(sc.DEFAULT_TAUS if thresholds is None and categorical else
                          sc.DEFAULT_EPSILONS if thresholds is None else thresholds,
                          dtype=np.float64)
        choice = _threshold_choice(member_columns, categorical, threshold, scan,
                                   n_permutations, alpha, perm_rng,
                                   member_predictions if categorical else None, error, delta)
    return RapidResult(
        attacker=spec.name, target=grid.target, keys=grid.keys, kind=grid.kind,
        rule="normalized_gain" if categorical else error, threshold=threshold, delta=delta,
        n=members.n, at_risk=members.at_risk, rapid=members.rapid, scores=members.scores,
        ci=comparison.members.ci, bootstrap_ci=bootstrap_ci, threshold_choice=choice,
        control=control, comparison=comparison,
        records=pd.concat(frames, names=["group", "record"]), confidence=confidence)


def rapid(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str,
    *,
    attacker: str | BaseEstimator | Attacker = "ranger",
    tau: float = 0.3,
    epsilon: float = 0.1,
    delta: float = 0.01,
    error: str = "symmetric",
    holdout: pd.DataFrame | None = None,
    seed: int = 0,
    kind: str = "auto",
    confidence: float = 0.95,
    n_bootstrap: int = 500,
    n_permutations: int = 199,
    alpha: float = 0.05,
    thresholds: Sequence[float] | None = None,
    same_columns: bool = True,
    check_overlap: bool = True,
    allow_disjoint_levels: bool = False,
) -> RapidResult:
    """RAPID of Templ, Thees & Müller (2026): the share of original records whose sensitive
    value an attacker trained on the release infers confidently, with a holdout control.

    Parameters
    ----------
    original
        The members: the records the release was made from. Not modified.
    synthetic
        The release (synthetic data). Not modified.
    keys
        The quasi-identifiers the attacker knows.
    target
        The sensitive attribute.
    attacker
        A name of :data:`capkit.attacks.attackers.REGISTRY` (default ``"ranger"``: the paper's
        500-tree random forest with ranger's defaults; ``"rf"`` is capkit's faster 100-tree
        forest), a scikit-learn estimator (a classifier needs ``predict_proba``) or an
        :class:`capkit.attacks.attackers.Attacker`.
    tau
        Categorical target: a record is at risk when its normalized gain exceeds tau, in (0, 1).
    epsilon
        Continuous target: a record is at risk when its error is below epsilon (0.1 = 10% for
        the relative errors; in the target's units for ``error="absolute"``).
    delta
        Smoothing constant of the relative errors (the R code's 0.01).
    error
        ``"symmetric"`` (the R code's default), ``"relative"`` (the paper's Algorithm 1,
        |y - yhat| / (|y| + delta)) or ``"absolute"``.
    holdout
        Records of the same population not used for the synthesis: their RAPID (with their own
        class shares as baseline) and the members-vs-holdout comparison.
    seed
        Seeds the attacker's ``random_state``, the bootstrap and the permutations.
    kind
        ``"auto"``, ``"categorical"`` or ``"numeric"`` (of the target). ``"auto"`` follows the
        R code: a numeric column is continuous, whatever its number of values (the other
        attacks of capkit treat a numeric column with at most 20 values as a category; pass
        ``kind="categorical"`` for that reading).
    confidence
        Confidence level of the Wilson and bootstrap intervals.
    n_bootstrap
        Bootstrap resamples of the members (the paper uses 500; 0: none). The attacker is not
        refitted: each resample re-scores the fixed predictions, with the categorical baseline
        recomputed from the resample.
    n_permutations, alpha, thresholds
        The permutation choice of the threshold (199 shuffles, alpha 0.05, riskutility's
        default grid unless ``thresholds`` is given; 0 permutations: none).
    same_columns
        Require the release to have the original's columns.
    check_overlap, allow_disjoint_levels
        As in :func:`capkit.attacks.attribute.attribute_attack`.

    Returns
    -------
    RapidResult

    Raises
    ------
    CapkitError
        Naming the argument: a target that is also a key, tau outside (0, 1), epsilon or
        delta not positive, a release whose columns differ from the original's, an empty frame,
        a missing column, an unknown attacker, and the checks of
        :func:`capkit.attacks.grid.prepare`.

    Examples
    --------
    >>> import pandas as pd
    >>> people = pd.DataFrame({"age": ["young", "young", "old", "old"] * 5,
    ...                        "ill": ["no", "no", "yes", "yes"] * 5})
    >>> result = rapid(people, people, ["age"], "ill", attacker="cap", n_bootstrap=0,
    ...                n_permutations=0)
    >>> result.rapid
    1.0
    """
    check_options(tau, epsilon, delta, error, alpha)
    if same_columns:
        check_columns(original, synthetic)
    if kind == "auto" and isinstance(original, pd.DataFrame) and target in original.columns:
        kind = "numeric" if is_numeric(original[target]) else "categorical"
    grid = prepare(original, synthetic, keys, target, holdout=holdout, kind=kind,
                   check_overlap=check_overlap, allow_disjoint_levels=allow_disjoint_levels)
    index = {"members": original.index}
    if holdout is not None:
        index["holdout"] = holdout.index
    return rapid_on_grid(grid, attacker, tau=tau, epsilon=epsilon, delta=delta, error=error,
                         seed=seed, confidence=confidence, n_bootstrap=n_bootstrap,
                         n_permutations=n_permutations, alpha=alpha, thresholds=thresholds,
                         index=index)


__all__ = ["GroupRapid", "RapidResult", "ThresholdChoice", "check_columns", "check_options",
           "rapid", "rapid_on_grid"]
