"""The verdict rules of the custodian's report: pure functions of numbers already measured.

One place for every rule that turns a measured value into words. Nothing here computes a
measure; each function takes the numbers a measure returned and gives a :class:`Verdict`
(one of :data:`LEVELS`, the rule behind it, and what to do).

The rules (also in ``docs/custodian-report.md``):

* **With a holdout** (records not used for the synthesis), a finding compares the members'
  rate m with the holdout's rate c through :func:`capkit.control.compare_to_control`: the
  advantage a = m - c with Newcombe's interval of a difference of two rates, and anonymeter's
  risk (m - c) / (1 - c) with its interval. A verdict needs an excess that is both
  statistically clear (the advantage's lower bound above 0) and large enough to matter on the
  scale a custodian reads, the share of records (the advantage itself: how many members in a
  hundred the synthesis tells about beyond what it tells about anyone). The risk alone is not
  enough: near the ceiling (a target that is 0 for 99.6% of members and 99.2% of the holdout)
  (m - c) / (1 - c) is 50% while 4 members in a thousand gain anything; it stays reported.

  - ``disclosive`` (rule C1): the advantage's lower bound is above 0, the advantage at least
    :data:`ADVANTAGE_DISCLOSIVE` (5 members in 100) and the risk's lower bound at least
    :data:`RISK_DISCLOSIVE` (0.05).
  - ``review`` (rule C2): the advantage's lower bound is above 0 and the advantage at least
    :data:`ADVANTAGE_REVIEW` (1 member in 100; any excess for exact and near copies: a copy is
    a copy), or the advantage is at least 5 in 100 with an interval reaching 0 (too few
    records to tell).
  - ``not flagged`` (rule C0) whatever the holdout says when an attack does no better on the
    members than its no-information baseline (the dummy predictor, random queries): an attack
    weaker than guessing is no evidence.
  - ``not flagged`` (rule C3): otherwise. The members do no better than the holdout within the
    interval, or by too little to matter; this is not proof of safety, only no evidence of
    disclosure by this measure.

* **Without a holdout** disclosure about members cannot be told from inference about the
  population, so a verdict is at most ``review``:

  - a rate against its no-information baseline (the dummy predictor, random queries,
    baseCAPd): ``review`` (rule B1) when the risk against the baseline has a lower bound of at
    least 0.05, else ``not flagged`` (rule B2);
  - exact copies of members: the synthetic records identical to a member, against the share
    of members identical to another member (the data's own duplicates: a record drawn from
    the population without regard to the members equals one of them about as often), by the
    rules C1-C3 with this chance rate in the holdout's place (rules D1-D3): a synthesis that
    is (nearly) a copy of its members is disclosive even without a holdout;
  - DiSCO: ``review`` (rule B4) when at least :data:`DISCO_REVIEW` (5%) of the records are
    disclosed.

* The 1-way / 2-way checks of synthpop: ``review`` (rule K1) when a target or a key-target
  pair is flagged (the data themselves are nearly disclosive there, whatever the synthesis),
  else ``not flagged`` (rule K2).

* ``not measured`` (rule M1): a measure that matches values exactly (repU, DiSCO, CAP, exact
  copies, an attack on a categorical target) on a synthesis that codes one of the columns it
  matches differently from the original (ages 25.1 for classes 17.5, 22, 27) finds less than
  is there: when it finds nothing, its "not flagged" cannot be trusted, and it is not a
  finding to review either. It says so with the reason.

**The order of the rules** (:data:`PRECEDENCE`, :func:`decide`), the first that applies
decides, for every measure and every command:

1. M1: an exact-match measure on columns coded differently that finds no evidence (its own
   rule, or C0, says ``not flagged``) is ``not measured``, with the columns. A finding of
   disclosure stands (a difference in coding only hides matches, it cannot make them).
2. C0: an attack (a rate with a no-information baseline and a holdout) that does no better on
   the members than its baseline is ``not flagged``, whatever the holdout says (it overrides
   C1 and C2).
3. The measure's own rule: C1-C3 with a holdout, D1-D3 for copies without one, B1/B2/B4
   against a baseline, K1/K2 for synthpop's checks, N0 when there is nothing to compare with.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from capkit.control import ControlComparison
from capkit.errors import CapkitError

#: The verdict of a finding that could not be measured (rule M1), the last of :data:`LEVELS`.
NOT_MEASURED = "not measured"

#: Verdict levels, most severe first; ``not measured`` (rule M1) is no judgement and comes last.
LEVELS = ("disclosive", "review", "not flagged", NOT_MEASURED)

#: The levels that flag a finding (what a custodian must act on or look at).
FLAGGED = ("disclosive", "review")

#: The order in which the rules decide a verdict, the first that applies winning: M1 over C0
#: over the measure's own rule. :func:`decide` applies the rules in the order read from here.
PRECEDENCE = ("M1", "C0", "own rule")

#: The risk's lower bound a disclosive finding needs (rule C1), and the lower bound against a
#: no-information baseline from which a finding without holdout needs review (rule B1).
RISK_DISCLOSIVE = 0.05

#: The advantage m - c (share of records) a disclosive finding needs (rule C1), and that an
#: undecided one needs for review (rule C2).
ADVANTAGE_DISCLOSIVE = 0.05

#: The smallest advantage a clear excess must reach to need review (rule C2; 0 for copies).
ADVANTAGE_REVIEW = 0.01

#: Kept for code that imported the old name: the review floor, now on the advantage.
RISK_REVIEW = ADVANTAGE_REVIEW

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
    "membership": "re-synthesise with a smoother model (fewer or larger leaves, more noise, a "
                  "differentially private synthesiser) or suppress the synthetic records closest "
                  "to members",
}

#: The rule texts, by code.
RULES = {
    "C1": "holdout given: the members' rate m beats the holdout's c clearly (the lower bound "
          "of m - c above 0) and by at least 5 records in 100, with a risk (m - c) / (1 - c) "
          "whose lower bound is at least 0.05",
    "C2": "holdout given: m beats c clearly by at least 1 record in 100 (any clear excess for "
          "copies), or by at least 5 in 100 with an interval reaching 0 (too few records)",
    "C3": "holdout given: the members do no better than the holdout within the interval, or "
          "by less than 1 record in 100",
    "C0": "the attack does no better on the members than its no-information baseline (the "
          "dummy predictor, random queries or links): whatever it gains over the holdout is "
          "the holdout's loss, not disclosure about the members; no evidence",
    "B1": "no holdout: the rate beats its no-information baseline by a risk with lower bound "
          "of at least 0.05 (disclosure cannot be told from inference without a holdout)",
    "B2": "no holdout: the rate does not clearly beat its no-information baseline",
    "D1": "synthetic records identical to a member beat the data's own duplicate rate (members "
          "identical to another member) clearly and by at least 5 records in 100",
    "D2": "synthetic records identical to a member beat the data's own duplicate rate clearly "
          "(any clear excess)",
    "D3": "no more synthetic records identical to a member than the data's own duplicates "
          "predict",
    "B4": "no holdout: DiSCO is at least 5% of the records",
    "K1": "synthpop's 1-way / 2-way check flags a target or key-target pair",
    "K2": "synthpop's 1-way / 2-way checks flag nothing",
    "N0": "no holdout and no baseline: reported, not judged",
    "M1": "a key or target is coded differently in the synthesis and the original and the "
          "exact-match measure finds no evidence: it finds less than is there, so it is not "
          "measured (a finding of disclosure stands)",
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


def against_control(comparison: ControlComparison, family: str) -> Verdict:
    """Rules C1-C3: a members' rate against the holdout's (a comparison with a control).

    An undefined risk (NaN: the holdout rate is 100%) can only be ``not flagged``: the holdout
    is disclosed as much as the members.
    """
    a, a_ci = comparison.advantage, comparison.advantage_ci
    risk, risk_ci = comparison.risk, comparison.risk_ci
    if not _finite(a) or a_ci is None or not _finite(risk) or risk_ci is None \
            or not _finite(risk_ci[0]):
        return _verdict("not flagged", "C3", family)
    clear = a_ci[0] > 0
    if clear and a >= ADVANTAGE_DISCLOSIVE and risk_ci[0] >= RISK_DISCLOSIVE:
        return _verdict("disclosive", "C1", family)
    floor = 0.0 if family == "copies" else ADVANTAGE_REVIEW
    if (clear and a >= floor and a > 0) or a >= ADVANTAGE_DISCLOSIVE:
        return _verdict("review", "C2", family)
    return _verdict("not flagged", "C3", family)


def no_better_than_baseline(family: str) -> Verdict:
    """Rule C0: an attack whose members' rate is at most its no-information baseline's is no
    evidence, whatever the holdout's rate (a split artefact cannot make it disclosive)."""
    return _verdict("not flagged", "C0", family)


def against_baseline(risk_low: float | None, family: str) -> Verdict:
    """Rules B1-B2: a rate against its no-information baseline, without a holdout."""
    if _finite(risk_low) and risk_low >= RISK_DISCLOSIVE:
        return _verdict("review", "B1", family)
    return _verdict("not flagged", "B2", family)


def against_duplicates(comparison: ControlComparison) -> Verdict:
    """Rules D1-D3: synthetic records identical to a member against the members' own duplicate
    rate, judged as rules C1-C3 judge copies against a holdout."""
    judged = against_control(comparison, "copies")
    return _verdict(judged.level, "D" + judged.rule[1:], "copies")


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


def coding_differs(family: str) -> Verdict:
    """Rule M1: an exact-match measure that found nothing on files whose coding differs is
    not measured (what fixes it: recode one file to the other's values)."""
    return Verdict(NOT_MEASURED, "M1", "recode one file to the other's values, or leave the "
                   "column out of the keys and targets")


def _m1(own: Verdict, family: str, weaker: bool, coded: bool, rest: Callable[[], Verdict]
        ) -> Verdict | None:
    """Rule M1 applies when the rules after it find no evidence (their verdict is not in
    :data:`FLAGGED`) on a column coded differently."""
    if not coded:
        return None
    return coding_differs(family) if rest().level not in FLAGGED else None


def _c0(own: Verdict, family: str, weaker: bool, coded: bool, rest: Callable[[], Verdict]
        ) -> Verdict | None:
    """Rule C0 applies when the members' rate is at most the no-information baseline's."""
    return no_better_than_baseline(family) if weaker else None


def _own(own: Verdict, family: str, weaker: bool, coded: bool, rest: Callable[[], Verdict]
         ) -> Verdict | None:
    """The measure's own rule always applies."""
    return own


#: Each name of :data:`PRECEDENCE` and the rule it stands for: given the measure's own verdict,
#: the family, the two conditions and the verdict of the rules after it, the rule's verdict or
#: None when it does not apply.
_RULES_IN_ORDER = {"M1": _m1, "C0": _c0, "own rule": _own}


def decide(own: Verdict, family: str, *, weaker_than_baseline: bool = False,
           coded_differently: bool = False) -> Verdict:
    """The verdict of a finding by the rules in the order :data:`PRECEDENCE` gives (M1, then
    C0, then the measure's own rule ``own``: C1-C3, D1-D3, B1/B2/B4, K1/K2 or N0), the first
    that applies deciding. The rules are applied in the order read from :data:`PRECEDENCE` at
    each call, so the constant is the order the code follows.

    Parameters
    ----------
    own
        The verdict of the measure's own rule.
    family
        The finding's family (its action).
    weaker_than_baseline
        The members' rate is at most the no-information baseline's, with a holdout (rule C0).
    coded_differently
        A column the measure matches exactly is coded differently in the synthesis (rule M1).
    """
    order = tuple(PRECEDENCE)
    if sorted(order) != sorted(_RULES_IN_ORDER) or "own rule" not in order:
        raise CapkitError(f"PRECEDENCE must order the rules {sorted(_RULES_IN_ORDER)} once "
                          f"each, got {order!r}")

    def apply(at: int) -> Verdict:
        if at == len(order):  # unreachable: the measure's own rule always applies
            return own
        rule = _RULES_IN_ORDER[order[at]]
        judged = rule(own, family, weaker_than_baseline, coded_differently,
                      lambda: apply(at + 1))
        return apply(at + 1) if judged is None else judged

    return apply(0)


#: What a verdict says of its finding when findings are counted or releases compared: one of
#: these (:func:`flag`).
FLAG_STATES = ("flagged", "not flagged", NOT_MEASURED)


def flag(level: str) -> str:
    """Whether a finding of verdict ``level`` is flagged: ``"flagged"`` for a level of
    :data:`FLAGGED` (disclosive, review), ``"not measured"`` for :data:`NOT_MEASURED` (rule M1,
    or a finding a release lacks), else ``"not flagged"``. A finding not measured is neither
    flagged nor not flagged: a release must not look riskier, or safer, because a measure could
    not be made. The one rule for the report's verdict lines and the risk-utility map."""
    if level not in LEVELS:
        raise CapkitError(f"verdict level must be one of {LEVELS}, got {level!r}")
    if level in FLAGGED:
        return "flagged"
    return NOT_MEASURED if level == NOT_MEASURED else "not flagged"


def not_judged(family: str) -> Verdict:
    """Rule N0: a value with neither holdout nor baseline."""
    return _verdict("not flagged", "N0", family)


def worst(levels: list[str]) -> str:
    """The most severe of ``levels`` (``not flagged`` for none; ``not measured`` only when
    nothing else is there)."""
    present = [lv for lv in LEVELS if lv in set(levels)]
    return present[0] if present else "not flagged"


__all__ = ["ACTIONS", "ADVANTAGE_DISCLOSIVE", "ADVANTAGE_REVIEW", "DISCO_REVIEW", "FLAGGED",
           "FLAG_STATES", "LEVELS", "NOT_MEASURED", "PRECEDENCE", "RISK_DISCLOSIVE",
           "RISK_REVIEW", "RULES",
           "Verdict", "against_baseline", "against_control", "against_duplicates", "checks",
           "coding_differs", "decide", "flag",
           "disco_without_control", "no_better_than_baseline", "not_judged", "worst"]
