"""How well membership scores separate members from non-members: ROC AUC, TPR at low FPR,
advantage and an audited lower bound on epsilon.

One job: turn per-record scores (higher = more likely a member) and the true membership into
the numbers the membership-inference literature reports.

* **ROC AUC** in its Mann-Whitney form: the probability that a random member scores above a
  random non-member, ties counted as one half (Hanley & McNeil 1982), equal to the trapezoid
  area under the ROC curve (``sklearn.metrics.roc_auc_score``).
* **TPR at a fixed FPR** (Carlini et al. 2022, Sec. III): the ROC curve has one point per
  distinct score t ("member if score >= t") plus the origin (nobody flagged). A rate between two
  thresholds is read as **the largest TPR over the ROC points whose FPR <= the target**, so
  TPR at FPR 0 is the share of members scored strictly above every non-member. (Carlini et
  al.'s published code takes the last point with FPR *strictly* below the target; the two
  differ only when the target FPR is met exactly, e.g. one false positive among 100
  non-members at FPR 0.01, which capkit's reading allows.)
* **Advantage** max over thresholds of TPR - FPR (Yeom et al. 2018; Stadler et al. 2022), the
  Kolmogorov-Smirnov distance between the members' and the non-members' scores; >= 0.
* **Epsilon lower bound** (Jagielski, Ullman & Oprea 2020, "Auditing Differentially Private
  Machine Learning: How Private is Private SGD?", Sec. 3; the effective-epsilon report of the
  TAPAS toolbox, Houssiau et al. 2022): a mechanism that is (epsilon, delta)-differentially
  private has, for every threshold, ``TPR <= e^eps FPR + delta`` and
  ``TNR <= e^eps FNR + delta``. With Clopper-Pearson intervals of the rates, ``eps >=
  log((TPR_low - delta) / FPR_high)`` (and the same with TNR / FNR) holds with the stated
  confidence. The threshold and the direction are chosen on one seeded half of the records
  and the bound is computed on the other half, so choosing among many thresholds does not
  inflate it.

References
----------
N. Carlini, S. Chien, M. Nasr, S. Song, A. Terzis, F. Tramer, "Membership Inference Attacks
From First Principles", IEEE S&P 2022.
M. Jagielski, J. Ullman, A. Oprea, "Auditing Differentially Private Machine Learning: How
Private is Private SGD?", NeurIPS 2020.
F. Houssiau, J. Jordon, S. N. Cohen, O. Daniel, A. Elliott, J. Geddes, C. Mole, C.
Rangel-Smith, L. Szpruch, "TAPAS: a Toolbox for Adversarial Privacy Auditing of Synthetic
Data", NeurIPS 2022 workshop (``tapas.report.EffectiveEpsilonReport``).
C. J. Clopper, E. S. Pearson, "The use of confidence or fiducial limits illustrated in the
case of the binomial", Biometrika 26 (1934) 404-413.
J. A. Hanley, B. J. McNeil, "The meaning and use of the area under a ROC curve", Radiology
143 (1982) 29-36.
T. Stadler, B. Oprisanu, C. Troncoso, "Synthetic Data - Anonymisation Groundhog Day", USENIX
Security 2022.
S. Yeom, I. Giacomelli, M. Fredrikson, S. Jha, "Privacy Risk in Machine Learning: Analyzing
the Connection to Overfitting", IEEE CSF 2018.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import betaincinv
from scipy.stats import rankdata

from capkit.errors import CapkitError

#: The false-positive rates at which the TPR is reported (Carlini et al. 2022).
FPRS: tuple[float, ...] = (0.0, 0.001, 0.01, 0.1)
#: Relative difference below which two epsilon bounds count as tied when choosing a threshold.
TIE = 1e-9


@dataclass(frozen=True)
class MembershipMetrics:
    """The membership-inference numbers of one attack's scores.

    Attributes
    ----------
    auc
        ROC AUC, ties counted as one half.
    tpr_at_fpr
        ``{fpr: tpr}``: the largest TPR over the ROC points with FPR <= fpr.
    advantage
        max over thresholds of TPR - FPR.
    epsilon_lower
        Lower bound on epsilon at the stated confidence (NaN with fewer than two members or
        two non-members: no half would hold one of each).
    n_members, n_nonmembers
        Records of each class.
    """

    auc: float
    tpr_at_fpr: dict[float, float]
    advantage: float
    epsilon_lower: float
    n_members: int
    n_nonmembers: int

    def as_dict(self) -> dict[str, float | int]:
        """Flat ``{column: value}``, the columns of :func:`metrics`' table."""
        out: dict[str, float | int] = {"auc": self.auc}
        out.update({tpr_column(f): t for f, t in self.tpr_at_fpr.items()})
        out.update({"advantage": self.advantage, "epsilon_lower": self.epsilon_lower,
                    "n_members": self.n_members, "n_nonmembers": self.n_nonmembers})
        return out


def tpr_column(fpr: float) -> str:
    """Column name of the TPR at ``fpr``: ``tpr_at_fpr_0``, ``tpr_at_fpr_0.001``, ..."""
    return f"tpr_at_fpr_{fpr:g}"


def _member_mask(member: object, n: int) -> np.ndarray:
    values = member.to_numpy() if isinstance(member, pd.Series) else np.asarray(member)
    if values.ndim != 1 or len(values) != n:
        raise CapkitError(f"member must be one flag per score ({n}), got shape {values.shape}")
    if values.dtype == bool:
        return values
    try:
        numeric = values.astype(float)
    except (TypeError, ValueError):
        numeric = None
    if numeric is None or not np.isin(numeric, (0.0, 1.0)).all():
        raise CapkitError("member must be boolean (True for a member) or 0/1")
    return numeric == 1.0


def _score_array(scores: object, name: str) -> np.ndarray:
    try:
        values = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as err:
        raise CapkitError(f"scores of {name!r} must be numbers") from err
    if values.ndim != 1:
        raise CapkitError(f"scores of {name!r} must be one number per record")
    if np.isnan(values).any():
        raise CapkitError(f"scores of {name!r} hold {int(np.isnan(values).sum())} missing "
                          "values (NaN); every scored record needs a score")
    return values


def roc_curve(scores: object, member: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROC points of "member if score >= t" for every distinct score t, from the origin.

    Parameters
    ----------
    scores
        One number per record, higher = more likely a member.
    member
        True (or 1) for a member, one per score, by position.

    Returns
    -------
    fpr, tpr, thresholds
        Arrays of the distinct scores + 1 points: the origin (threshold +inf, nobody flagged),
        then one point per distinct score in decreasing order, ending at (1, 1). This is
        ``sklearn.metrics.roc_curve(member, scores, drop_intermediate=False)``.
    """
    values = _score_array(scores, "scores")
    flags = _member_mask(member, len(values))
    positives, negatives = _class_sizes(flags)
    tps, fps, thresholds = _cumulative(values, flags)
    return fps / negatives, tps / positives, thresholds


def _class_sizes(flags: np.ndarray) -> tuple[int, int]:
    positives = int(flags.sum())
    negatives = len(flags) - positives
    if positives == 0:
        raise CapkitError("member holds no member: membership metrics need members and "
                          "non-members")
    if negatives == 0:
        raise CapkitError("member holds no non-member: membership needs records not used "
                          "for the synthesis")
    return positives, negatives


def _cumulative(values: np.ndarray, flags: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """True and false positives at each distinct threshold (decreasing), from the origin."""
    order = np.argsort(-values, kind="stable")
    sorted_values, sorted_flags = values[order], flags[order]
    last = np.flatnonzero(np.diff(sorted_values) != 0)  # last position of each distinct score
    ends = np.append(last, len(values) - 1)
    tps = np.concatenate([[0], np.cumsum(sorted_flags)[ends]]).astype(float)
    fps = np.concatenate([[0], (ends + 1) - tps[1:]]).astype(float)
    return tps, fps, np.concatenate([[np.inf], sorted_values[ends]])


def auc(scores: object, member: object) -> float:
    """ROC AUC as the Mann-Whitney statistic: P(member's score > non-member's), ties 1/2.

    ``AUC = (R_members - P (P + 1) / 2) / (P N)`` with R_members the sum of the members' mid
    ranks (Hanley & McNeil 1982, Eq. 1-2), exact for ties.
    """
    values = _score_array(scores, "scores")
    flags = _member_mask(member, len(values))
    positives, negatives = _class_sizes(flags)
    return _auc(values, flags, positives, negatives)


def _auc(values: np.ndarray, flags: np.ndarray, positives: int, negatives: int) -> float:
    ranks = rankdata(values, method="average")
    rank_sum = float(ranks[flags].sum())  # half-integers: exact in float64 below 2**52
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def clopper_pearson(k: np.ndarray, n: np.ndarray, confidence: float = 0.95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper-Pearson interval of a binomial proportion k / n.

    ``low = Beta^-1(alpha / 2; k, n - k + 1)`` (0 when k = 0) and ``high = Beta^-1(1 - alpha
    / 2; k + 1, n - k)`` (1 when k = n), alpha = 1 - confidence (Clopper & Pearson 1934); what
    ``scipy.stats.binomtest(k, n).proportion_ci(confidence, method="exact")`` returns.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, betaincinv(k, np.maximum(n - k + 1, 1), alpha / 2), 0.0)
        high = np.where(k < n, betaincinv(k + 1, np.maximum(n - k, 1), 1 - alpha / 2), 1.0)
    return low, high


def _epsilon_bounds(tp: np.ndarray, fp: np.ndarray, positives: int, negatives: int,
                    confidence: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Per threshold: the bound from TPR / FPR and the one from TNR / FNR (each >= 0).

    Clopper-Pearson ends are computed once per distinct count, and the TNR / FNR ends from
    the TPR / FPR ones by the interval's symmetry, ``high(n - k) = 1 - low(k)`` (exact in
    arithmetic; to about 1e-13 relative in floating point)."""
    alpha = 1.0 - confidence
    counts, where = np.unique(tp, return_inverse=True)
    tpr_low = np.where(counts > 0, betaincinv(counts, np.maximum(positives - counts + 1, 1),
                                              alpha / 2), 0.0)[where]
    counts, where = np.unique(fp, return_inverse=True)
    with np.errstate(invalid="ignore"):
        fpr_high = np.where(counts < negatives,
                            betaincinv(counts + 1, np.maximum(negatives - counts, 1),
                                       1 - alpha / 2), 1.0)[where]
    fnr_high, tnr_low = 1.0 - tpr_low, 1.0 - fpr_high
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.log(np.maximum(tpr_low - delta, 0.0) / fpr_high)
        backward = np.log(np.maximum(tnr_low - delta, 0.0) / fnr_high)
    # a Clopper-Pearson upper bound is > 0 for n >= 1, so only log(0) = -inf can occur
    return np.maximum(forward, 0.0), np.maximum(backward, 0.0)


def _halves(flags: np.ndarray, seed: int) -> np.ndarray:
    """True for the records of the selection half: half of the members and half of the
    non-members (the larger half of an odd class goes to the test half), drawn by ``seed``."""
    rng = np.random.default_rng(seed)
    select = np.zeros(len(flags), dtype=bool)
    for cls in (True, False):  # members first, then non-members, from one stream
        where = np.flatnonzero(flags == cls)
        chosen = rng.permutation(len(where))[: len(where) // 2]
        select[where[chosen]] = True
    return select


def epsilon_lower_bound(scores: object, member: object, *, confidence: float = 0.95,
                        delta: float = 0.0, seed: int = 0) -> float:
    """Audited lower bound on epsilon (Jagielski et al. 2020, Sec. 3; TAPAS's effective epsilon).

    1. Split the records: a seeded half of the members and a seeded half of the non-members
       form the **selection** half, the others the **test** half.
    2. On the selection half, for every distinct score t (rule "member if score >= t") and both
       directions, compute ``log((TPR_low - delta) / FPR_high)`` and
       ``log((TNR_low - delta) / FNR_high)`` from two-sided Clopper-Pearson intervals at
       ``confidence``; keep the threshold and direction with the largest value (ties, to
       1e-9 relative: the highest threshold, the TPR/FPR direction first).
    3. On the test half, apply that threshold and direction and return the same expression,
       clipped below at 0.

    Both directions are those of the rule "member if score >= t" (TAPAS's ``inverse``), so a
    score that ranks members *below* non-members gives no bound, as it gives no advantage.

    Each rate's interval is two-sided at ``confidence`` and only its one-sided end is used, so
    the bound holds with probability >= 1 - (1 - confidence) (a union bound over the two
    rates' one-sided errors of (1 - confidence) / 2 each), the reading of Jagielski et al.'s
    code (``clopper_pearson_interval(x, N, alpha=0.05)``). TAPAS's report instead widens each
    rate's interval to 1 - (1 - confidence) / 2, which gives a smaller bound, and selects on a
    10% validation split; capkit halves as the issue of its users asks.

    Parameters
    ----------
    scores, member
        As :func:`roc_curve`.
    confidence
        Confidence level of each Clopper-Pearson interval (default 0.95).
    delta
        The delta of (epsilon, delta)-differential privacy (default 0).
    seed
        Seed of the split.

    Returns
    -------
    float
        The bound (>= 0); NaN when a class has fewer than two records.
    """
    values = _score_array(scores, "scores")
    flags = _member_mask(member, len(values))
    _class_sizes(flags)
    _check_level(confidence, delta)
    return _epsilon(values, flags, confidence, delta, seed)


def _check_level(confidence: float, delta: float) -> None:
    if not 0 < confidence < 1:
        raise CapkitError(f"confidence must be in (0, 1), got {confidence!r}")
    if not 0 <= delta < 1:
        raise CapkitError(f"delta must be in [0, 1), got {delta!r}")


def _epsilon(values: np.ndarray, flags: np.ndarray, confidence: float, delta: float,
             seed: int) -> float:
    if min(int(flags.sum()), int((~flags).sum())) < 2:
        return float("nan")
    select = _halves(flags, seed)
    sel_values, sel_flags = values[select], flags[select]
    tps, fps, thresholds = _cumulative(sel_values, sel_flags)
    pos, neg = int(sel_flags.sum()), int((~sel_flags).sum())
    forward, backward = _epsilon_bounds(tps[1:], fps[1:], pos, neg, confidence, delta)
    both = np.concatenate([forward, backward])  # index i < m: forward at thresholds[i + 1]
    # first maximum: highest threshold, forward before backward; bounds equal in exact
    # arithmetic (e.g. both directions when FP = 0 and FN = 0) differ by rounding, so values
    # within 1e-9 (relative) of the largest count as ties
    best = int(np.argmax(both >= both.max() * (1 - TIE)))
    m = len(forward)
    threshold, backwards = thresholds[1 + best % m], best >= m
    test_values, test_flags = values[~select], flags[~select]
    flagged = test_values >= threshold
    tp = np.array([int((flagged & test_flags).sum())])
    fp = np.array([int((flagged & ~test_flags).sum())])
    f, b = _epsilon_bounds(tp, fp, int(test_flags.sum()), int((~test_flags).sum()),
                           confidence, delta)
    return float(b[0] if backwards else f[0])


def _one(values: np.ndarray, flags: np.ndarray, fprs: Sequence[float], confidence: float,
         delta: float, seed: int) -> MembershipMetrics:
    positives, negatives = _class_sizes(flags)
    tps, fps, _ = _cumulative(values, flags)
    tpr, fpr = tps / positives, fps / negatives
    # the ROC is monotone: the largest TPR with FPR <= f is at the last such point
    # (fps / N is correctly rounded, so an FPR equal to f as a fraction compares equal to f)
    at = {float(f): float(tpr[np.searchsorted(fpr, f, side="right") - 1]) for f in fprs}
    return MembershipMetrics(
        auc=_auc(values, flags, positives, negatives),
        tpr_at_fpr=at,
        advantage=float(np.max(tpr - fpr)),
        epsilon_lower=_epsilon(values, flags, confidence, delta, seed),
        n_members=positives,
        n_nonmembers=negatives,
    )


def metrics(scores: pd.DataFrame | pd.Series | np.ndarray | Sequence[float],
            member: object = None, *, fprs: Sequence[float] = FPRS, confidence: float = 0.95,
            delta: float = 0.0, seed: int = 0) -> MembershipMetrics | pd.DataFrame:
    """AUC, TPR at low FPRs, advantage and epsilon lower bound of membership scores.

    Parameters
    ----------
    scores
        One attack's scores (array or Series: one per record, higher = more likely a member),
        or a DataFrame with one column per attack. A DataFrame holding a boolean ``member``
        column (what :func:`capkit.membership_inference.scores` returns) may be passed alone:
        that column is the membership and every other column an attack.
    member
        True (or 1) for a member, one per record, by position. Default: the frame's
        ``member`` column.
    fprs
        The false-positive rates at which the TPR is read (default 0, 0.001, 0.01, 0.1); see
        the module docstring for how a rate between two thresholds is read.
    confidence, delta, seed
        Of the epsilon lower bound (:func:`epsilon_lower_bound`).

    Returns
    -------
    MembershipMetrics or pandas.DataFrame
        For one attack, a :class:`MembershipMetrics`; for a DataFrame, one row per attack
        (index: the attack's column name) with columns ``auc``, ``tpr_at_fpr_0``,
        ``tpr_at_fpr_0.001``, ``tpr_at_fpr_0.01``, ``tpr_at_fpr_0.1``, ``advantage``,
        ``epsilon_lower``, ``n_members``, ``n_nonmembers``.

    Raises
    ------
    CapkitError
        No member or no non-member, a score that is NaN, ``member`` not boolean or not one per
        record, an FPR outside [0, 1].
    """
    if any(not 0 <= f <= 1 for f in fprs):
        raise CapkitError(f"fprs must lie in [0, 1], got {list(fprs)!r}")
    _check_level(confidence, delta)
    if isinstance(scores, pd.DataFrame):
        frame = scores
        if member is None:
            if "member" not in frame.columns:
                raise CapkitError("member is missing: pass it, or a frame with a boolean "
                                  "'member' column")
            member = frame["member"]
            frame = frame.drop(columns="member")
        if frame.shape[1] == 0:
            raise CapkitError("scores hold no attack column")
        flags = _member_mask(member, len(frame))
        rows = {str(col): _one(_score_array(frame[col], str(col)), flags, fprs, confidence,
                               delta, seed).as_dict()
                for col in frame.columns}
        table = pd.DataFrame.from_dict(rows, orient="index")
        table.index.name = "attack"
        return table
    if member is None:
        raise CapkitError("member is missing: one flag per score (True for a member)")
    values = _score_array(scores, "scores")
    return _one(values, _member_mask(member, len(values)), fprs, confidence, delta, seed)
