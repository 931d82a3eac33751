"""The membership family of the custodian's report: can anyone tell who was in the data?

Per synthesis, :func:`capkit.membership_inference.scores` scores every member and every holdout
record under the attacks of :data:`ATTACKS` (higher = more likely a member). A score ranks; a
verdict needs a decision: the attack flags the records whose score reaches a threshold. The
threshold that separates members from holdout best (largest TPR - FPR) is chosen on one seeded
half of the records, members and holdout halved alike, and the flags are counted on the other
half, so that the choice does not inflate the excess (the split of Jagielski, Ullman & Oprea's
audit, "Auditing Differentially Private Machine Learning", NeurIPS 2020). The members flagged
against the holdout flagged are then one members-vs-holdout comparison like every other
finding's (:func:`capkit.control.compare_to_control`, rules C1-C3 of
:mod:`capkit.audit.verdicts`); the finding's detail gives the AUC on all records.

Cost, n members and holdout records scored against m synthetic records: DCR an exact
nearest-record search and MC its ball counts (:mod:`capkit.membership_inference.attacks`),
about ``(n + m) log m`` plus the records within reach of each query; past
:data:`capkit.data.record_sample.PAIR_BUDGET` record pairs the report scores a seeded sample of
the members and of the holdout against every synthetic record (:mod:`capkit.audit.sampling`,
the rule and draw :func:`capkit.membership_inference.scores` uses for DOMIAS's densities), its
rates the sample's shares with their Wilson intervals. DOMIAS's densities (``n x m``) are not
run here.

Membership is only defined against records that were not used: without a holdout there is no
membership verdict, and the finding says so (rule N0). ``capkit membership`` runs every attack
and reports the ROC curves, the TPR at low FPR and the epsilon bound.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from capkit.audit import verdicts
from capkit.audit.findings import Finding, from_comparison, uncompared
from capkit.control import compare_to_control
from capkit.membership_inference import metrics, scores

__all__ = ["ATTACKS", "best_threshold", "membership_findings", "membership_size"]

#: The attacks the report runs: the distance to the closest synthetic record (DCR; a copy or a
#: near copy of a member gives it away) and Monte Carlo's count of synthetic records near a record
#: (Hilprecht et al. 2019). Neither needs a reference set, so the whole holdout is the control.
ATTACKS = ("dcr", "mc")


def membership_size(auc: float, tpr: float, fpr: float = 0.01) -> str:
    """The size of a membership finding in words: the AUC and the TPR at an FPR of 1% read
    against chance, where a guess flags members as often as non-members (TPR = FPR). Carlini
    et al., "Membership Inference Attacks From First Principles" (IEEE S&P 2022), read an
    attack by its TPR at a low FPR: at or below chance no member is picked out with
    confidence, and a verdict from the threshold's rates is an excess spread over many
    records, not a list of exposed members."""
    text = f"AUC {auc:.3f}, TPR {100 * tpr:.1f}% at FPR {100 * fpr:.0f}%"
    if not np.isfinite(tpr):
        return text
    if tpr <= fpr:
        return (text + f" (no better than chance, {100 * fpr:.0f}%: no member picked out with "
                "confidence; the excess is spread over many records)")
    return text + f" ({tpr / fpr:.1f}x chance)"


def best_threshold(score: np.ndarray, member: np.ndarray) -> float:
    """The score from which flagging a record (score >= threshold) maximises TPR - FPR on these
    records; ties between thresholds go to the highest (fewest records flagged). TPR - FPR is
    compared exactly, as tp n_holdout - fp n_members in integers (1/3 - 0 and 1 - 2/3 are one
    value, not two floats a rounding apart)."""
    order = np.argsort(-score, kind="stable")
    s, m = score[order], member[order]
    tp, fp = np.cumsum(m), np.cumsum(~m)
    last = np.r_[s[1:] != s[:-1], True]  # a threshold sits after the last record of a score
    n_pos, n_neg = int(m.sum()), int((~m).sum())
    gain = tp.astype(np.int64) * n_neg - fp.astype(np.int64) * n_pos
    gain[~last] = np.iinfo(np.int64).min
    return float(s[int(np.argmax(gain))])


def _halves(member: np.ndarray, seed: int) -> np.ndarray:
    """A seeded half of the members and a seeded half of the holdout records (True: select)."""
    rng = np.random.default_rng(seed)
    select = np.zeros(len(member), dtype=bool)
    for group in (np.flatnonzero(member), np.flatnonzero(~member)):
        select[rng.permutation(group)[: len(group) // 2]] = True
    return select


def membership_findings(name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
                        holdout: pd.DataFrame | None, seed: int, confidence: float
                        ) -> list[Finding]:
    """One finding per attack of :data:`ATTACKS` on one synthesis (the module note)."""
    if holdout is None:
        return [uncompared(name, "membership", "membership inference", "all columns",
                           float("nan"), "%", verdicts.not_judged("membership"),
                           "no holdout, no membership verdict: membership needs records that "
                           "were not used for the synthesis (--holdout / holdout=)")]
    # the holdout has passed the report's one overlap check (capkit.data.overlap): the records
    # it shares with the members are the twins a population has, not members
    per = scores(original, holdout, synthetic, attacks=ATTACKS, seed=seed, overlap="allow")
    member = per["member"].to_numpy(dtype=bool)
    select = _halves(member, seed)
    auc = metrics(per)
    found = []
    for attack in ATTACKS:
        score = per[attack].to_numpy(dtype=np.float64)
        cut = best_threshold(score[select], member[select])
        flagged, held = score >= cut, ~select
        k_m, n_m = int((flagged & member & held).sum()), int((member & held).sum())
        k_c, n_c = int((flagged & ~member & held).sum()), int((~member & held).sum())
        comparison = compare_to_control(k_m, n_m, k_c, n_c, confidence=confidence, warn=False)
        size = membership_size(float(auc.loc[attack, "auc"]),
                               float(auc.loc[attack, "tpr_at_fpr_0.01"]))
        finding = from_comparison(
            name, "membership", f"{attack} membership inference", "all columns", comparison,
            None, detail=f"{k_m:,} of {n_m:,} members and {k_c:,} of {n_c:,} holdout records "
                         f"flagged on the half not used to choose the threshold; {size}")
        found.append(replace(finding, severity=size))
    return found
