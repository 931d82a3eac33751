"""A finding of the custodian's report: one measured value, its comparisons, its verdict.

:class:`Finding` holds what a measure returned (the members' value, the holdout's, the
no-information baseline, the risk and its interval, every rate in percent) and the
:class:`~capkit.audit.verdicts.Verdict` the rules of :mod:`capkit.audit.verdicts` give it;
:func:`from_comparison` builds one from a :class:`capkit.control.ControlComparison`, and
:func:`message` says it in plain words. Nothing here measures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from capkit.audit import verdicts
from capkit.control import ControlComparison, compare_to_control
from capkit.errors import CapkitError


@dataclass(frozen=True)
class Finding:
    """One measured value of one synthesis, compared and judged.

    Attributes
    ----------
    synthesis
        Name of the synthesis.
    family
        ``copies``, ``identity``, ``attribute``, ``checks``, ``attack``, ``singling out`` or
        ``linkability`` (the keys of :data:`capkit.audit.verdicts.ACTIONS`).
    measure
        The measure's name (``DiSCO``, ``exact copies``, ``knn attack``, ...).
    subject
        What it is about: a target column, or ``all columns``, ``keys``.
    value
        The members' value, in ``unit``.
    unit
        ``"%"`` (percent of records / queries / attacks) or ``"count"``.
    holdout
        The same measure on the holdout records (None without a holdout).
    baseline
        The no-information baseline (dummy predictor, random queries, baseCAPd), or None.
    baseline_name
        What the baseline is.
    risk, risk_low, risk_high
        The risk (m - c) / (1 - c) in percent with its interval: against the holdout when one
        is given, else against the baseline (None when neither).
    verdict, rule, action
        The verdict level, the rule (code: words) and what to do (empty when not flagged).
    detail
        Counts behind the value (e.g. ``"812 of 5000 members"``).
    severity
        How large the disclosure is, beside the rule's word, for the summary line
        (:func:`severity`): the risk and, for membership inference, the AUC and the TPR at
        an FPR of 1%, so that two "disclosive" findings of very different size read
        differently.
    """

    synthesis: str
    family: str
    measure: str
    subject: str
    value: float
    unit: str
    holdout: float | None
    baseline: float | None
    baseline_name: str
    risk: float | None
    risk_low: float | None
    risk_high: float | None
    verdict: str
    rule: str
    action: str
    detail: str = ""
    severity: str = ""

    def to_dict(self) -> dict[str, object]:
        """The finding as a plain dict (for JSON), with its plain-words ``message``."""
        return {**asdict(self), "message": message(self)}


def _pct(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else 100.0 * x


def from_comparison(synthesis: str, family: str, measure: str, subject: str,
                    control: ControlComparison | None, baseline: ControlComparison | None,
                    baseline_name: str = "", detail: str = "") -> Finding:
    """A finding from the members-vs-holdout comparison (``control``, may be None or lack a
    control rate) and the members-vs-baseline comparison (``baseline``, may be None).

    The verdict follows rules C1-C3 when a holdout rate is there (C0 when the members' rate
    is at most the baseline's, in the order of :func:`capkit.audit.verdicts.decide`), else
    B1-B2 against the baseline, else N0 (:mod:`capkit.audit.verdicts`).
    """
    main = control if control is not None else baseline
    has_control = control is not None and control.control is not None
    weak = (has_control and baseline is not None and baseline.control is not None
            and baseline.members.rate <= baseline.control.rate)
    if has_control:  # rule C0 (no better than guessing on the members) before C1-C3
        judged = verdicts.decide(verdicts.against_control(control, family), family,
                                 weaker_than_baseline=weak)
        compared = control
    elif baseline is not None and baseline.control is not None:
        judged, compared = verdicts.against_baseline(baseline.risk_ci[0], family), baseline
    else:
        judged, compared = verdicts.not_judged(family), None
    low_high = compared.risk_ci if compared is not None else (None, None)
    return Finding(
        synthesis=synthesis, family=family, measure=measure, subject=subject,
        value=100.0 * main.members.rate, unit="%",
        holdout=_pct(control.control.rate) if has_control else None,
        baseline=_pct(baseline.control.rate) if baseline is not None and
        baseline.control is not None else None,
        baseline_name=baseline_name,
        risk=_pct(compared.risk) if compared is not None else None,
        risk_low=_pct(low_high[0]), risk_high=_pct(low_high[1]),
        verdict=judged.level, rule=judged.rule_text, action=judged.action, detail=detail)


def from_duplicates(synthesis: str, measure: str, chance: ControlComparison, detail: str
                    ) -> Finding:
    """A copies finding without holdout: the synthetic records identical to a member against
    the members identical to another member (``chance``), by rules D1-D3."""
    judged = verdicts.against_duplicates(chance)
    return Finding(
        synthesis=synthesis, family="copies", measure=measure, subject="all columns",
        value=100.0 * chance.members.rate, unit="%", holdout=None,
        baseline=_pct(chance.control.rate),
        baseline_name="members identical to another member",
        risk=_pct(chance.risk), risk_low=_pct(chance.risk_ci[0]),
        risk_high=_pct(chance.risk_ci[1]), verdict=judged.level, rule=judged.rule_text,
        action=judged.action, detail=detail)


def uncompared(synthesis: str, family: str, measure: str, subject: str, value: float,
               unit: str, judged: verdicts.Verdict, detail: str = "",
               baseline: float | None = None, baseline_name: str = "") -> Finding:
    """A finding judged on its own value (no holdout, no risk): ``judged`` gives its verdict."""
    return Finding(synthesis, family, measure, subject, value, unit, None, baseline,
                   baseline_name, None, None, None, judged.level, judged.rule_text,
                   judged.action, detail)


def from_percents(synthesis: str, family: str, measure: str, subject: str, members: float,
                  n_members: int, holdout: float | None, n_holdout: int | None,
                  baseline: float | None = None, baseline_name: str = "",
                  confidence: float = 0.95) -> Finding:
    """A finding from percentages of records (synthpop's measures): the counts
    ``percent / 100 * n`` go through :func:`capkit.control.compare_to_control`; without a
    holdout, DiSCO follows rule B4, the others B1-B2 against ``baseline``, and a measure with
    neither (repU) is not judged (N0)."""
    detail = f"{members:.2f}% of {n_members} members"
    if holdout is not None and n_holdout:
        control = _percents_compared(members, n_members, holdout, n_holdout, confidence)
        # no rule C0 here: baseCAPd is synthpop's own quantity (every record, a key combination
        # the synthesis lacks counting as a miss), not a guess scored on the same records as
        # the measure, so CAP below it can still tell the members from the holdout
        f = from_comparison(synthesis, family, measure, subject, control, None, baseline_name,
                            detail)
        return _with(f, baseline=baseline)
    if measure == "DiSCO" or baseline is None:  # no comparison: DiSCO's own rule, else none
        judged = (verdicts.disco_without_control(members) if measure == "DiSCO"
                  else verdicts.not_judged(family))
        return uncompared(synthesis, family, measure, subject, members, "%", judged, detail,
                          baseline, baseline_name)
    against = _percents_compared(members, n_members, baseline, n_members, confidence)
    f = from_comparison(synthesis, family, measure, subject, None, against, baseline_name,
                        detail)
    return _with(f, value=members)


def over_syntheses(family: str, measure: str, subject: str, members: Sequence[float],
                   n_members: int, holdout: Sequence[float], n_holdout: int,
                   confidence: float = 0.95) -> Finding:
    """One judgement of several syntheses against the holdout, the same for every command:
    each synthesis is judged on its own (:func:`from_percents`, rules C1-C3), and so is the
    mean of the syntheses' percentages (Raab, Nowok & Dibben's m replicates of one
    synthesiser); the finding returned is the **worst** of these, the mean when it is as bad
    as the worst file. Averaging alone would let nine safe files hide a disclosive tenth (a
    bootstrap among model-based syntheses); judging each file never can. The finding names
    the synthesis whose numbers it gives, and says what the others were."""
    m = len(members)
    if m == 0 or len(holdout) != m:
        raise CapkitError("members and holdout need one percentage per synthesis each")
    mean = from_percents(f"mean of {m} syntheses" if m > 1 else "synthesis 1", family, measure,
                         subject, float(np.mean(members)), n_members, float(np.mean(holdout)),
                         n_holdout, confidence=confidence)
    if m == 1:
        return mean
    each = [from_percents(f"synthesis {j + 1}", family, measure, subject, float(v), n_members,
                          float(h), n_holdout, confidence=confidence)
            for j, (v, h) in enumerate(zip(members, holdout, strict=True))]
    level = verdicts.worst([f.verdict for f in [mean, *each]])
    counts = {lv: sum(f.verdict == lv for f in each) for lv in verdicts.LEVELS}
    said = ", ".join(f"{n} {lv}" for lv, n in counts.items() if n)
    if mean.verdict == level:
        return _with(mean, detail=f"{mean.detail}; each of the {m} syntheses judged on its "
                                  f"own: {said}")
    top = max((f for f in each if f.verdict == level),
              key=lambda f: -math.inf if f.risk is None or math.isnan(f.risk) else f.risk)
    return _with(top, detail=f"{top.detail}; the worst of {m} syntheses judged one by one "
                             f"({said}); their mean is {mean.verdict}")


def coding_caveat(finding: Finding, differs: Sequence[str], forced: bool = False) -> Finding:
    """Rule M1, the same for every command: ``differs`` are the columns that the finding's
    measure matches exactly (its keys and target, every column for exact copies) and that a
    synthesis codes differently from the original (:func:`capkit.data.coding.mismatches`).
    The finding says so beside its numbers; one that found no evidence (C0, C3, ...) is 'not
    measured' (an exact-match measure finds less than is there), one that found disclosure
    keeps its verdict (:func:`capkit.audit.verdicts.decide`); ``forced``: measured with
    ``allow_disjoint_levels``, said too.
    """
    if not (differs or forced):
        return finding
    said = [f"coded differently: {', '.join(differs)}"] if differs else []
    said += ["forced with --allow-disjoint-levels / allow_disjoint_levels=True"] if forced else []
    detail = "; ".join([finding.detail, *said] if finding.detail else said)
    judged = verdicts.decide(verdicts.Verdict(finding.verdict, "", finding.action),
                             finding.family, coded_differently=bool(differs))
    if judged.rule == "M1":
        return _with(finding, detail=detail, verdict=judged.level, rule=judged.rule_text,
                     action=judged.action)
    return _with(finding, detail=detail)


#: What the reports say when they average several syntheses.
REPLICATES = ("With several synthetic files each file is judged on its own, and so is the mean "
              "of their rates (replicates of one synthesiser); the verdict given is the worst "
              "of these, with the numbers of the file (or the mean) it comes from: averaging "
              "alone would let safe files hide a disclosive one.")


def _percents_compared(members: float, n_members: int, other: float, n_other: int,
                       confidence: float) -> ControlComparison:
    """:func:`capkit.control.compare_to_control` of two percentages of records."""
    return compare_to_control(members / 100 * n_members, n_members, other / 100 * n_other,
                              n_other, confidence=confidence, warn=False)


def _with(finding: Finding, **changes: object) -> Finding:
    return Finding(**{**asdict(finding), **changes})


def _num(x: float | None, unit: str = "%") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "NA"
    return f"{x:,.0f}" if unit == "count" else f"{x:.1f}%"


def severity(f: Finding) -> str:
    """The size of a finding in a few words: its ``severity`` when the measure set one (the
    membership family's AUC and TPR at 1% FPR), the risk with its interval, e.g.
    ``"risk 19.0% (14.2% to 23.8%); AUC 0.815, TPR 12.0% at FPR 1%"``."""
    parts = []
    if f.risk is not None and not (isinstance(f.risk, float) and math.isnan(f.risk)):
        parts.append(f"risk {_num(f.risk)} ({_num(f.risk_low)} to {_num(f.risk_high)})")
    if f.severity:
        parts.append(f.severity)
    return "; ".join(parts)


def message(f: Finding) -> str:
    """The finding in plain words, e.g. ``"DiSCO for income: 23.0% of members, 6.1x the
    holdout's 3.8% (risk 20.0%, 17.9-22.1%): disclosive"``."""
    about = f"{f.measure} for {f.subject}" if f.subject else f.measure
    text = f"{about}: {_num(f.value, f.unit)}"
    if f.detail:
        text += f" ({f.detail})"
    if f.holdout is not None:
        ratio = (f"{f.value / f.holdout:.1f}x" if f.holdout > 0 else
                 ("infinitely above" if f.value > 0 else "the same as"))
        text += f", {ratio} the holdout's {_num(f.holdout, f.unit)}"
    if f.baseline is not None:
        text += f"; no-information baseline ({f.baseline_name}) {_num(f.baseline, f.unit)}"
    if f.risk is not None:
        text += f"; risk {_num(f.risk)} ({_num(f.risk_low)} to {_num(f.risk_high)})"
    if f.verdict == verdicts.NOT_MEASURED:
        return f"{text}: {f.verdict}: {_unmeasured_reason(f)}"
    return f"{text}: {f.verdict}"


def _unmeasured_reason(f: Finding) -> str:
    """Why a finding is not measured (rule M1): the columns coded differently, by role."""
    said = [p for p in f.detail.split("; ") if p.startswith("coded differently: ")]
    columns = said[-1].removeprefix("coded differently: ") if said else ""
    role = {"identity": "keys", "copies": "columns"}.get(f.family, "keys or target")
    return f"{role} coded differently" + (f" ({columns})" if columns else "")


__all__ = ["REPLICATES", "Finding", "coding_caveat", "from_comparison", "from_duplicates",
           "from_percents", "message", "over_syntheses", "severity"]
