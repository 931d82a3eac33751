"""Attribute disclosure as classification, with a membership control: :func:`attribute_attack`.

Hittmeir, Mayer & Ekelhart, "A Baseline for Attribute Disclosure Risk in Synthetic Data" (ACM
CODASPY 2020, 133-143, doi 10.1145/3374664.3375722): an intruder who knows the keys of a real
record and holds the synthetic data predicts the record's target with a model trained on the
synthetic data; the share of correct predictions is the attack's success.

Beyond the paper, the same attack is run on a **holdout** (records of the population that were
not used for the synthesis). If it predicts the holdout records as well as the members, what it
learns is inference about the population, not disclosure about the members. The comparison
(rates with Wilson intervals, the risk (m - c) / (1 - c) with its interval, the advantage m - c)
is :func:`capkit.control.compare_to_control`, shared by every attack-style measure.

Numeric targets: a prediction is correct when |guess - truth| <= tolerance * |truth|, a band
around the true value. anonymeter divides by the guess instead, which counts every negative
guess as correct (the relative difference is then negative) and rewards guesses far from a true
value near zero less than it should; the truth is what the intruder must hit, so it sets the
band. A true value of 0 needs an exact guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from capkit.attacks.attackers import NUMERIC, Attacker, resolve
from capkit.attacks.fit import predict
from capkit.attacks.grid import Grid, prepare
from capkit.control import ControlComparison, compare_to_control
from capkit.counts.rows import unique_codes
from capkit.errors import CapkitError

TRAINED_ON = ("synthetic", "original")
#: ``records`` of a result without per-record outcomes (copied per result: building an empty
#: frame costs more than scoring a small grid)
_NO_RECORDS = pd.DataFrame(columns=["observed", "predicted", "correct"])


@dataclass(frozen=True)
class GroupScore:
    """How an attack did on one group of records (members or holdout).

    Attributes
    ----------
    n
        Records attacked (a numeric target's missing values are left out).
    correct
        Records predicted correctly (a record without a prediction counts as wrong).
    rate
        ``correct / n``.
    coverage
        Share of the n records that got a prediction (below 1 only for ``"cap"``, whose
        intruder has no guess for a key absent from the synthetic data).
    scores
        Categorical target: ``accuracy`` (= rate) and ``macro_f1``. Numeric target:
        ``within_tolerance`` (= rate), ``mae`` and ``r2`` over the records with a prediction.
    """

    n: int
    correct: int
    rate: float
    coverage: float
    scores: dict[str, float]


@dataclass(frozen=True)
class AttackResult:
    """An attribute attack on the members, and on the holdout when one is given.

    Attributes
    ----------
    attacker, target, keys, kind, trained_on, tolerance
        What was run: attacker name, target column, key columns, ``"categorical"`` or
        ``"numeric"``, the training data (``"synthetic"``; ``"original"`` for the upper
        bound), the numeric tolerance.
    n, correct, rate, coverage, scores
        The members' :class:`GroupScore` fields.
    control
        The holdout's :class:`GroupScore`, or None.
    comparison
        :func:`capkit.control.compare_to_control` on the correct counts: rates with Wilson
        intervals, risk, advantage.
    risk, risk_ci, advantage
        ``(m - c) / (1 - c)`` clipped to [0, 1], its interval, and ``m - c``; None without a
        holdout.
    records
        One row per attacked record, index ``(group, record)`` with group ``"member"`` or
        ``"holdout"`` and the record's index label: ``observed``, ``predicted`` (NaN: no
        prediction) and ``correct``.
    """

    attacker: str
    target: str
    keys: tuple[str, ...]
    kind: str
    trained_on: str
    tolerance: float
    n: int
    correct: int
    rate: float
    coverage: float
    scores: dict[str, float]
    control: GroupScore | None
    comparison: ControlComparison
    risk: float | None
    risk_ci: tuple[float, float] | None
    advantage: float | None
    records: pd.DataFrame

    @property
    def members(self) -> GroupScore:
        """The members' scores as a :class:`GroupScore`."""
        return GroupScore(self.n, self.correct, self.rate, self.coverage, self.scores)


def macro_f1(observed: np.ndarray, predicted: np.ndarray) -> float:
    """Unweighted mean F1 over the classes seen among observed and predicted values.

    Codes >= 0; a prediction of -1 (none) is a miss for the observed class and no class of its
    own (as scikit-learn's ``f1_score(average="macro")`` with a zero F1 where precision and
    recall are both 0).
    """
    size = int(max(observed.max(initial=-1), predicted.max(initial=-1))) + 1
    made = predicted >= 0
    hit = observed == predicted
    true_positive = np.bincount(observed[hit], minlength=size)
    actual = np.bincount(observed, minlength=size)
    guessed = np.bincount(predicted[made], minlength=size)
    classes = (actual + guessed) > 0
    denominator = actual + guessed
    f1 = np.divide(2 * true_positive, denominator, out=np.zeros(size), where=denominator > 0)
    return float(f1[classes].mean()) if classes.any() else float("nan")


def within_tolerance(guess: np.ndarray, truth: np.ndarray, tolerance: float) -> np.ndarray:
    """A numeric guess is right when |guess - truth| <= tolerance * |truth| (the truth sets the
    band; anonymeter divides by the guess: ``anonymeter_compat`` of the inference attack)."""
    return np.abs(guess - truth) <= tolerance * np.abs(truth)


def _score(grid: Grid, observed_rows: np.ndarray, predicted: np.ndarray, tolerance: float
           ) -> tuple[GroupScore, np.ndarray]:
    n = len(observed_rows)
    if grid.kind == NUMERIC:
        truth = grid.values[observed_rows]
        made = ~np.isnan(predicted)
        correct = np.zeros(n, dtype=bool)
        correct[made] = within_tolerance(predicted[made], truth[made], tolerance)
        error = predicted[made] - truth[made]
        spread = truth[made] - truth[made].mean() if made.any() else truth[made]
        total = float((spread**2).sum())
        scores = {
            "within_tolerance": float(correct.mean()) if n else float("nan"),
            "mae": float(np.abs(error).mean()) if made.any() else float("nan"),
            "r2": 1.0 - float((error**2).sum()) / total if total > 0 else float("nan"),
        }
    else:
        made = predicted >= 0
        correct = predicted == observed_rows
        scores = {"accuracy": float(correct.mean()) if n else float("nan"),
                  "macro_f1": macro_f1(observed_rows, predicted)}
    k = int(correct.sum())
    return GroupScore(n, k, k / n if n else float("nan"), float(made.mean()) if n else
                      float("nan"), scores), correct


def _labels(grid: Grid, rows: np.ndarray, predicted: np.ndarray) -> tuple[object, object]:
    if grid.kind == NUMERIC:
        return grid.values[rows], predicted
    labels = grid.target_labels
    shown = np.where(predicted >= 0, predicted, 0)
    return labels[rows], np.where(predicted >= 0, labels[shown], np.nan)


def _per_group(spec: Attacker, kind: str) -> bool:
    """Whether the attacker predicts members and holdout each on its own: anonymeter's distance
    takes its numeric ranges over the synthetic data and the attacked group, also inside an
    ensemble."""
    if spec.method == "nn" and spec.distance == "anonymeter":
        return True
    return spec.method == "ensemble" and any(_per_group(resolve(m, kind), kind)
                                             for m in spec.members)


def run_attack(grid: Grid, attacker: str | BaseEstimator | Attacker, *,
               trained_on: str = "synthetic", seed: int = 0, tolerance: float = 0.05,
               confidence: float = 0.95, index: dict[str, pd.Index] | None = None,
               cache: dict | None = None, keep_records: bool = True) -> AttackResult:
    """:func:`attribute_attack` on a prepared :class:`capkit.attacks.grid.Grid`.

    ``index`` gives the index labels of the members' and holdout's records (default: row
    numbers); ``cache`` lets several calls on one grid share members' predictions (see
    :func:`capkit.attacks.fit.predict`); ``keep_records=False`` leaves ``records`` empty (a
    frame without rows, for callers that read the scores only: building the per-record frame
    costs more than scoring a small grid).
    """
    if trained_on not in TRAINED_ON:
        raise CapkitError(f"trained_on must be one of {TRAINED_ON}, got {trained_on!r}")
    spec = resolve(attacker, grid.kind)
    groups = ["members", "holdout"] if grid.has_holdout else ["members"]
    cells = {g: grid.cells(g)[grid.known(g)] for g in groups}
    if not len(cells["members"]):
        raise CapkitError(f"no original record has a known target {grid.target!r} to attack")
    combos, inverse = unique_codes(np.concatenate([cells[g][:, 1] for g in groups]))
    train = "synthetic" if trained_on == "synthetic" else "members"
    bounds = np.cumsum([len(cells[g]) for g in groups])[:-1]
    by_group = _per_group(spec, grid.kind)
    per_combo = None if by_group else predict(spec, grid, train, combos, seed, cache, tolerance)
    scored, frames = {}, {}
    for g, inv in zip(groups, np.split(inverse, bounds), strict=True):
        if by_group:  # anonymeter's ranges are over the synthetic and the attacked group
            mine, local = unique_codes(combos[inv])
            predicted = predict(spec, grid, train, mine, seed, tolerance=tolerance)[local]
        else:
            predicted = per_combo[inv]
        scored[g], correct = _score(grid, cells[g][:, 0], predicted, tolerance)
        if not keep_records:
            continue
        observed, shown = _labels(grid, cells[g][:, 0], predicted)
        labels = (index or {}).get(g)
        record = (labels[grid.known(g)] if labels is not None
                  else np.flatnonzero(grid.known(g)))
        frames["member" if g == "members" else "holdout"] = pd.DataFrame(
            {"observed": observed, "predicted": shown, "correct": correct},
            index=pd.Index(record, name="record"))
    records = (pd.concat(frames, names=["group", "record"]) if keep_records else
               _NO_RECORDS.copy())
    members, control = scored["members"], scored.get("holdout")
    comparison = compare_to_control(members.correct, members.n,
                                    control.correct if control else None,
                                    control.n if control else None, confidence=confidence)
    return AttackResult(
        attacker=spec.name, target=grid.target, keys=grid.keys, kind=grid.kind,
        trained_on=trained_on, tolerance=tolerance, n=members.n, correct=members.correct,
        rate=members.rate, coverage=members.coverage, scores=members.scores, control=control,
        comparison=comparison, risk=comparison.risk, risk_ci=comparison.risk_ci,
        advantage=comparison.advantage, records=records)


def check_tolerance(tolerance: float) -> float:
    """``tolerance`` as a float >= 0, or a CapkitError naming it."""
    try:
        value = float(tolerance)
    except (TypeError, ValueError) as exc:
        raise CapkitError(f"tolerance must be a number >= 0, got {tolerance!r}") from exc
    if not np.isfinite(value) or value < 0:
        raise CapkitError(f"tolerance must be a number >= 0, got {tolerance!r}")
    return value


def attribute_attack(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str,
    *,
    attacker: str | BaseEstimator | Attacker = "ensemble",
    holdout: pd.DataFrame | None = None,
    seed: int = 0,
    tolerance: float = 0.05,
    kind: str = "auto",
    trained_on: str = "synthetic",
    confidence: float = 0.95,
    check_overlap: bool = True,
    allow_disjoint_levels: bool = False,
) -> AttackResult:
    """Attribute disclosure attack of Hittmeir, Mayer & Ekelhart (2020), with a holdout control.

    The attacker is trained on the synthetic data and predicts the target of every original
    record (and of every holdout record) from its keys.

    Parameters
    ----------
    original
        The members: the records the synthetic data was made from. Not modified.
    synthetic
        The synthetic data. Not modified.
    keys
        Columns the intruder knows.
    target
        The column the intruder predicts.
    attacker
        ``"cap"`` (majority among exact key matches; no prediction without a match),
        ``"gcap"`` (the paper's generalized CAP: majority of the nearest keys by Hamming
        distance), ``"nn"`` (nearest synthetic record by exact Gower distance, lowest row index
        on ties), ``"rf"``, ``"svm"``, ``"nb"``, ``"knn"``, ``"lr"``, ``"ensemble"`` (hard vote
        of the five; for a numeric target the mean of linear regression, SVR and MLP),
        ``"dummy"`` (majority class / mean), ``"mlp"`` (numeric), any scikit-learn estimator,
        or an :class:`capkit.attacks.attackers.Attacker`. See
        :mod:`capkit.attacks.attackers`.
    holdout
        Records of the same population not used for the synthesis (the membership control).
    seed
        Seeds the estimators' ``random_state`` and the tie draws of the count attackers;
        the same inputs and seed give identical results.
    tolerance
        Numeric target: a guess is correct when |guess - truth| <= tolerance * |truth|.
    kind
        ``"auto"``, ``"categorical"`` or ``"numeric"`` (of the target).
    trained_on
        ``"synthetic"`` (the attack) or ``"original"`` (the paper's upper bound: the same
        attacker trained on the members themselves).
    confidence
        Confidence level of the intervals.
    check_overlap
        Warn when holdout rows are identical to original rows on every column
        beyond chance (:func:`capkit.data.overlap.check_holdout`).
    allow_disjoint_levels
        Attack even when a categorical key or target barely shares levels between original and
        synthetic data (an error by default: they are probably coded differently).

    Returns
    -------
    AttackResult

    Raises
    ------
    CapkitError
        Naming the argument: see :func:`capkit.attacks.grid.prepare`, and an unknown attacker,
        a classifier for a numeric target, a negative tolerance.
    """
    tolerance = check_tolerance(tolerance)
    grid = prepare(original, synthetic, keys, target, holdout=holdout, kind=kind,
                   check_overlap=check_overlap, allow_disjoint_levels=allow_disjoint_levels)
    index = {"members": original.index}
    if holdout is not None:
        index["holdout"] = holdout.index
    return run_attack(grid, attacker, trained_on=trained_on, seed=seed, tolerance=tolerance,
                      confidence=confidence, index=index)


__all__ = ["AttackResult", "GroupScore", "attribute_attack", "macro_f1", "run_attack"]
