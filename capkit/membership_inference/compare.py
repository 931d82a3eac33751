"""Whether two sets of membership scores of the same records separate members from non-members
equally well: the paired difference of their ROC AUCs, with DeLong's interval.

One job: given two scores of the *same* records (two attacks on one release, or one attack on
two releases made from the same members and scored on the same holdout), estimate
AUC_a - AUC_b and its standard error, accounting for the records being shared. The records'
draw (which people happen to be members and which holdout) moves both AUCs together; the
paired interval keeps only what differs between the two scores. An unpaired comparison of two
Hanley & McNeil intervals cannot separate the two.

DeLong, DeLong & Clarke-Pearson, "Comparing the areas under two or more correlated receiver
operating characteristic curves: a nonparametric approach", Biometrics 44 (1988) 837-845:
with psi(x, y) = 1 if x > y, 1/2 if x = y, 0 otherwise, each member i has the structural
component V10_i = mean_j psi(s_i, s_j) over the non-members j, and each non-member j
V01_j = mean_i psi(s_i, s_j) over the members; AUC = mean V10 = mean V01, and

    Var(AUC_a - AUC_b) = (S10_aa + S10_bb - 2 S10_ab) / m + (S01_aa + S01_bb - 2 S01_ab) / n,

S10 and S01 the sample covariances (denominator m - 1, n - 1) of the components of the two
scores over the m members and the n non-members. The components come from mid-ranks (Sun &
Xu, "Fast implementation of DeLong's algorithm for comparing the areas under correlated
receiver operating characteristic curves", IEEE Signal Processing Letters 21 (2014) 1389-1393):
V10_i = (rank of s_i among all records - rank among the members) / n, V01_j = 1 - (rank of
s_j among all - rank among the non-members) / m, exact for ties.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from capkit.control import two_sided_z
from capkit.errors import CapkitError
from capkit.membership_inference.metrics import _class_sizes, _member_mask, _score_array


@dataclass(frozen=True)
class PairedAUC:
    """AUC_a - AUC_b on the same records, with DeLong's standard error and interval.

    Attributes
    ----------
    auc_a, auc_b
        The two AUCs (Mann-Whitney form, ties 1/2).
    difference
        auc_a - auc_b.
    std_error
        DeLong's standard error of the difference.
    low, high
        The two-sided normal interval at ``confidence`` (not clipped).
    confidence
        Its level.
    """

    auc_a: float
    auc_b: float
    difference: float
    std_error: float
    low: float
    high: float
    confidence: float


def _components(values: np.ndarray, flags: np.ndarray, m: int, n: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's structural components (V10 over the members, V01 over the non-members)."""
    ranks = rankdata(values, method="average")
    within_members = rankdata(values[flags], method="average")
    within_others = rankdata(values[~flags], method="average")
    v10 = (ranks[flags] - within_members) / n
    v01 = 1.0 - (ranks[~flags] - within_others) / m
    return v10, v01


def paired_auc_difference(scores_a: object, scores_b: object, member: object, *,
                          confidence: float = 0.95) -> PairedAUC:
    """AUC of ``scores_a`` minus AUC of ``scores_b`` on the same records, DeLong's interval.

    Parameters
    ----------
    scores_a, scores_b
        Two scores of the same records, one number per record each (higher = more likely a
        member), in the same record order.
    member
        True (or 1) for a member, one per record, by position.
    confidence
        Level of the two-sided interval, in (0, 1).

    Returns
    -------
    PairedAUC

    Raises
    ------
    CapkitError
        Scores of different lengths, missing scores, no member or no non-member, fewer than 2
        of either (no covariance), or a confidence outside (0, 1).
    """
    if not 0 < confidence < 1:
        raise CapkitError(f"confidence must be in (0, 1), got {confidence!r}")
    a = _score_array(scores_a, "scores_a")
    b = _score_array(scores_b, "scores_b")
    if len(a) != len(b):
        raise CapkitError(f"scores_a and scores_b must score the same records: {len(a)} and "
                          f"{len(b)} scores")
    flags = _member_mask(member, len(a))
    m, n = _class_sizes(flags)
    if m < 2 or n < 2:
        raise CapkitError(f"DeLong's interval needs at least 2 members and 2 non-members, got "
                          f"{m} and {n}")
    v10_a, v01_a = _components(a, flags, m, n)
    v10_b, v01_b = _components(b, flags, m, n)
    s10 = np.cov(np.vstack([v10_a, v10_b]))
    s01 = np.cov(np.vstack([v01_a, v01_b]))
    variance = ((s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m
                + (s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]) / n)
    std_error = float(np.sqrt(max(variance, 0.0)))
    auc_a, auc_b = float(v10_a.mean()), float(v10_b.mean())
    difference = auc_a - auc_b
    half = two_sided_z(confidence) * std_error
    return PairedAUC(auc_a, auc_b, difference, std_error, difference - half, difference + half,
                     float(confidence))


__all__ = ["PairedAUC", "paired_auc_difference"]
