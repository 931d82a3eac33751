"""The verdict rules of the custodian's report: pure functions of numbers already measured.

One place for every rule that turns a measured value into words. Nothing here computes a
measure; each function takes the numbers a measure returned and gives a :class:`Verdict`
(one of :data:`LEVELS`, the rule behind it, and what to do).

The rules (also in ``docs/custodian-report.md``):

* **With a holdout** (records not used for the synthesis), a finding compares the members'
  rate m with the holdout's rate c through :func:`capkit.control.compare_to_control`:
  risk = (m - c) / (1 - c) with its interval.

  - ``disclosive`` (rule C1): the risk's lower bound is at least :data:`RISK_DISCLOSIVE`
    (0.05): the synthesis tells about its own members clearly more than about anyone else.
  - ``review`` (rule C2): the lower bound is above 0 and the risk at least
    :data:`RISK_REVIEW` (0.01; any excess for exact and near copies: a copy is a copy), or the
    risk itself is at least 0.05 with an interval reaching 0 (too few records to tell).
  - ``not flagged`` (rule C3): otherwise. The members do no better than the holdout within the
    interval; this is not proof of safety, only no evidence of disclosure by this measure.

* **Without a holdout** disclosure about members cannot be told from inference about the
  population, so a verdict is at most ``review``:

  - a rate against its no-information baseline (the dummy predictor, random queries,
    baseCAPd): ``review`` (rule B1) when the risk against the baseline has a lower bound of at
    least 0.05, else ``not flagged`` (rule B2);
  - exact copies of members: ``review`` (rule B3) when any member has one;
  - DiSCO: ``review`` (rule B4) when at least :data:`DISCO_REVIEW` (5%) of the records are
    disclosed.

* The 1-way / 2-way checks of synthpop: ``review`` (rule K1) when a target or a key-target
  pair is flagged (the data themselves are nearly disclosive there, whatever the synthesis),
  else ``not flagged`` (rule K2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Verdict levels, most severe first.
LEVELS = ("disclosive", "review", "not flagged")

#: The risk's lower bound from which a finding is disclosive (rule C1), and the risk from which
#: an undecided finding needs review (rule C2).
RISK_DISCLOSIVE = 0.05

#: The smallest risk a detectable excess must reach to need review (rule C2; 0 for copies).
RISK_REVIEW = 0.01

#: DiSCO (percent of records) from which a synthesis without holdout needs review (rule B4).
DISCO_REVIEW = 5.0

#: What to do, per family of measures, when a finding is not ``not flagged``.
ACTIONS = {
    "copies": "re-synthesise (fewer or larger leaves, a smoothed or proper synthesis) or "
              "suppress the synthetic records that copy a member",
    "identity": "group or coarsen a key (fewer levels, bands for numbers) or suppress the "
                "replicated unique records",
    "attribute": "group or coarsen the keys that pin the target down, coarsen the target, or "
                 "re-synthesise it with a less faithful model",
    "checks": "look at the flagged target or key-target pair: merge its rare levels or drop "
              "it from the release",
    "attack": "coarsen the keys the attack uses or re-synthesise the target with more noise",
    "singling out": "group or coarsen the columns of the successful queries (rare values, "
                    "extreme numbers) or re-synthesise",
    "linkability": "coarsen the columns shared by the two halves, or re-synthesise",
}

#: The rule texts, by code.
RULES = {
    "C1": "holdout given: the risk (m - c) / (1 - c) has a lower bound of at least 0.05",
    "C2": "holdout given: the risk's lower bound is above 0 and the risk at least 0.01 (any "
          "excess for copies), or the risk is at least 0.05 with an interval reaching 0",
    "C3": "holdout given: the members do no better than the holdout within the interval",
    "B1": "no holdout: the rate beats its no-information baseline by a risk with lower bound "
          "of at least 0.05 (disclosure cannot be told from inference without a holdout)",
    "B2": "no holdout: the rate does not clearly beat its no-information baseline",
    "B3": "no holdout: some member has an exact copy in the synthetic data",
    "B4": "no holdout: DiSCO is at least 5% of the records",
    "K1": "synthpop's 1-way / 2-way check flags a target or key-target pair",
    "K2": "synthpop's 1-way / 2-way checks flag nothing",
    "N0": "no holdout and no baseline: reported, not judged",
}


@dataclass(frozen=True)
class Verdict:
    """A verdict: its level (one of :data:`LEVELS`), the rule code and text, what to do."""

    level: str
    rule: str
    action: str

    @property
    def rule_text(self) -> str:
        """The rule in words."""
        return f"{self.rule}: {RULES[self.rule]}"


def _verdict(level: str, rule: str, family: str) -> Verdict:
    return Verdict(level, rule, "" if level == "not flagged" else ACTIONS[family])


def _finite(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def against_control(risk: float | None, risk_low: float | None, family: str) -> Verdict:
    """Rules C1-C3: a members' rate against the holdout's, from the risk and its lower bound.

    An undefined risk (NaN: the holdout rate is 100%) is ``not flagged`` by C3: the holdout is
    disclosed as much as the members.
    """
    if not _finite(risk) or not _finite(risk_low):
        return _verdict("not flagged", "C3", family)
    if risk_low >= RISK_DISCLOSIVE:
        return _verdict("disclosive", "C1", family)
    floor = 0.0 if family == "copies" else RISK_REVIEW
    if (risk_low > 0 and risk >= floor) or risk >= RISK_DISCLOSIVE:
        return _verdict("review", "C2", family)
    return _verdict("not flagged", "C3", family)


def against_baseline(risk_low: float | None, family: str) -> Verdict:
    """Rules B1-B2: a rate against its no-information baseline, without a holdout."""
    if _finite(risk_low) and risk_low >= RISK_DISCLOSIVE:
        return _verdict("review", "B1", family)
    return _verdict("not flagged", "B2", family)


def copies_without_control(members_with_copy: int) -> Verdict:
    """Rule B3: exact copies of members, without a holdout."""
    if members_with_copy > 0:
        return _verdict("review", "B3", "copies")
    return _verdict("not flagged", "B2", "copies")


def disco_without_control(disco_percent: float) -> Verdict:
    """Rule B4: DiSCO (percent) without a holdout."""
    if _finite(disco_percent) and disco_percent >= DISCO_REVIEW:
        return _verdict("review", "B4", "attribute")
    return _verdict("not flagged", "B2", "attribute")


def checks(flagged: int) -> Verdict:
    """Rules K1-K2: synthpop's 1-way / 2-way checks, from the number of flagged entries."""
    if flagged > 0:
        return _verdict("review", "K1", "checks")
    return _verdict("not flagged", "K2", "checks")


def not_judged(family: str) -> Verdict:
    """Rule N0: a value with neither holdout nor baseline."""
    return _verdict("not flagged", "N0", family)


def worst(levels: list[str]) -> str:
    """The most severe of ``levels`` (``not flagged`` for none)."""
    present = [lv for lv in LEVELS if lv in set(levels)]
    return present[0] if present else "not flagged"


__all__ = ["ACTIONS", "DISCO_REVIEW", "LEVELS", "RISK_DISCLOSIVE", "RISK_REVIEW", "RULES",
           "Verdict", "against_baseline", "against_control", "checks", "copies_without_control",
           "disco_without_control", "not_judged", "worst"]
