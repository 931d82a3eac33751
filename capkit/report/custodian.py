"""The report of ``capkit report``: the custodian's findings laid out for a reader.

Built from a :class:`capkit.audit.Audit` (the findings of every measure family on every
synthesis, already judged by :mod:`capkit.audit.verdicts`): the verdicts per synthesis first,
then each synthesis's findings (the members' value next to the holdout's and the
no-information baseline, the risk with its interval, the verdict), what to do, the rules
behind the verdicts and synthpop's measures per target. Every rate is a percentage of records
(or of queries / attacks), every column says its unit. Nothing here measures or judges.
"""

from __future__ import annotations

import pandas as pd

from capkit.audit import RULES, Audit, at_risk
from capkit.audit.compare import DIGITS
from capkit.audit.exposure import WORST_SHOWN
from capkit.audit.findings import message
from capkit.audit.findings import severity as finding_severity
from capkit.audit.verdicts import NOT_MEASURED, flag, worst
from capkit.report.model import Picture, Report, Section, Table
from capkit.report.utility import map_entries, map_section, utility_sections

_INTRO = (
    "Each finding compares what the synthetic data tell about the members (the records they "
    "were made from) with what they tell about the holdout (records of the same population "
    "that were not used) and with a no-information baseline. The risk (m - c) / (1 - c) is "
    "the members' success beyond the holdout's, with its 95% interval. 'not flagged' means no "
    "evidence of disclosure by that measure, never proof of safety: no single number here is.")

_NO_HOLDOUT = (
    "{what}: disclosure about the members cannot be told from inference about the population, "
    "so no finding is called disclosive but exact copies of members beyond the data's own "
    "duplicates; give --holdout (records not used for the synthesis) for a verdict.")

_COLUMNS = {"family": "family", "measure": "measure", "subject": "subject", "value": "members",
            "holdout": "holdout", "baseline": "baseline", "risk": "risk",
            "risk_low": "risk low", "risk_high": "risk high", "verdict": "verdict"}


def _findings_table(audit: Audit, name: str) -> Table:
    rows = [f for f in audit.findings if f.synthesis == name and f.unit == "%"]
    frame = pd.DataFrame([{v: getattr(f, k) for k, v in _COLUMNS.items()} for f in rows])
    for c in ("members", "holdout", "baseline", "risk", "risk low", "risk high"):
        frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    units = {c: "%" for c in ("members", "holdout", "baseline", "risk", "risk low",
                              "risk high")}
    return Table(f"Findings: {name}", frame, digits=1, index=False, units=units,
                 note="members / holdout: the measure on each group; baseline: the "
                      "no-information level (baseCAPd, dummy predictor, random queries or "
                      "links); risk: against the holdout (else the baseline), 95% interval.")


def _synthesis_section(audit: Audit, name: str) -> Section:
    mine = [f for f in audit.findings if f.synthesis == name]
    flagged = [f for f in mine if flag(f.verdict) == "flagged" and f.family != "checks"]
    flagged.sort(key=lambda f: f.verdict != "disclosive")
    checks = [f for f in mine if f.family == "checks" and flag(f.verdict) == "flagged"]
    unmeasured = [f for f in mine if flag(f.verdict) == NOT_MEASURED]
    items = [message(f) for f in flagged]
    if checks:
        items.append("synthpop's 1-way / 2-way checks flag entries for "
                     + ", ".join(f"{f.subject} ({f.value:.0f})" for f in checks)
                     + ": the data are nearly disclosive there whatever the synthesis "
                       "(review; rule K1)")
    failed = [f for f in audit.failures if f.synthesis == name]
    if not items:
        items = ["no finding flagged by the rules below (no evidence of disclosure by these "
                 "measures, not proof of safety)" + (", among the families measured"
                                                     if failed else "")]
    items += [f"NOT MEASURED: {f.family}: {f.reason}" for f in failed]
    items += [f"NOT MEASURED (rule M1): {message(f)}" for f in unmeasured]
    actions = []
    for f in flagged + checks:
        line = f"{f.family}: {f.action}"
        if f.action and line not in actions:
            actions.append(line)
    paragraphs = [f"What to do: {'; '.join(actions)}."] if actions else []
    return Section(f"Synthesis: {name}", paragraphs=paragraphs, items=items,
                   tables=[_findings_table(audit, name)])


def _severest(audit: Audit, name: str, family: str) -> str:
    """A disclosive family of a synthesis and the size of its largest disclosive finding (the
    risk; membership's AUC and TPR at 1% FPR): the rule's word stays, the size tells an AUC of
    0.53 from one of 0.81 at a glance."""
    mine = [f for f in audit.findings if f.synthesis == name and f.family == family
            and f.verdict == "disclosive"]
    top = max(mine, key=lambda f: -1.0 if f.risk is None or f.risk != f.risk else f.risk)
    size = finding_severity(top)
    return f"{family}: {size}" if size else family


def _verdict_section(audit: Audit) -> Section:
    table = audit.verdicts()
    items = []
    for name, row in table.iterrows():
        highest = worst([lv for lv in table.columns if row[lv] > 0])
        families = sorted({f.family for f in audit.findings
                           if f.synthesis == name and f.verdict == "disclosive"})
        where = f" ({'; '.join(_severest(audit, name, fam) for fam in families)})" \
            if families else ""
        failed = [f.family for f in audit.failures if f.synthesis == name]
        unmeasured = int(row.get(NOT_MEASURED, 0))
        items.append(f"{name}: {row['disclosive']} disclosive{where}, {row['review']} to "
                     f"review, {row['not flagged']} not flagged"
                     + (f", {unmeasured} NOT MEASURED (coded differently)" if unmeasured
                        else "") + f"; worst: {highest}"
                     + (" among the measured findings only" if unmeasured
                        and flag(highest) != "flagged" else "")
                     + (f"; not measured: {', '.join(failed)}" if failed else ""))
    paragraphs = ([f"WARNING: {w}." for w in audit.warnings] + [_INTRO]
                  + ([_NO_HOLDOUT.format(what="No holdout was given" if not audit.warnings else
                                         "No holdout is used (see the warning above)")]
                     if audit.n_holdout is None else []))
    return Section("Verdicts", paragraphs=paragraphs, items=items,
                   tables=[Table("Findings per verdict", table, digits=0,
                                 units={c: "count" for c in table.columns})],
                   css_class="summary")


#: Records listed per synthesis in the report (``--records FILE`` writes every member).
TOP_RECORDS = 10

_AT_RISK = (
    "The members most exposed by each synthesis, ranked by a score that adds up the measures "
    "flagging the record, weighted by severity: exact copy {exact:g}, near copy {near:g}, "
    "replicated unique {rep:g}, DiSCO {disco:g}, attack {attack:g}, singled out {single:g}, "
    "sample unique {unique:g}, plus {extra:g} for each further target disclosed (ties by row). "
    "'row' is the record's 0-based row in the original file (header excluded). A flag says "
    "which measure found the record, not that its value was learnt: see "
    "docs/custodian-report.md, 'The people at risk'. Only flags beyond the control count: a "
    "flag whose measure's finding is 'not flagged' against the holdout or its baseline is "
    "chance and is left out, and a sample unique alone lists no record (it is the original's "
    "exposure); a synthesis with nothing left says 'none'.")


def _records_section(audit: Audit, show_values: bool) -> tuple[Section, list[dict]]:
    """The most exposed records of each synthesis (flags beyond the control only), and their
    JSON entries."""
    table = audit.records_flagged if not audit.records_flagged.empty else \
        audit.records_at_risk
    listed = at_risk.top(table, TOP_RECORDS)
    flags = at_risk.flag_lists(listed) if len(listed) else []
    entries = [{"row": int(r), "synthesis": str(n), "flags": f, "score": float(sc),
                "rank": int(k)} for r, n, f, sc, k in
               zip(listed["row"], listed["synthesis"], flags, listed["score"],
                   listed["rank"], strict=True)] if len(listed) else []
    # rare values are counted over every member, then the listed rows are taken
    shown = at_risk.masked(table, audit.keys, show=show_values).loc[listed.index]
    paragraphs = [_AT_RISK.format(
        exact=at_risk.WEIGHTS["exact copy"], near=at_risk.WEIGHTS["near copy"],
        rep=at_risk.WEIGHTS["replicated unique"], disco=at_risk.WEIGHTS["DiSCO"],
        attack=at_risk.WEIGHTS["attack"], single=at_risk.WEIGHTS["singled out"],
        unique=at_risk.WEIGHTS["sample unique"], extra=at_risk.EXTRA_TARGET)]
    paragraphs.append(
        "Values as they are (--show-values / show_values=True): handle this report as the "
        "original data." if show_values else
        f"Masked: a key value held by fewer than {at_risk.RARE_VALUE} members and every "
        f"disclosed target value show as {at_risk.MASK} (--show-values shows them).")
    tables, items = [], []
    for name in audit.syntheses:
        mine = shown[shown["synthesis"] == name] if len(shown) else shown
        if not len(mine):
            items.append(f"{name}: none (no member flagged by a measure beyond its control)")
            continue
        frame = pd.DataFrame({
            "rank": mine["rank"].to_numpy(), "row": mine["row"].to_numpy(),
            "score": mine["score"].to_numpy(dtype=float),
            "flags": [", ".join(f) for f, n in zip(flags, listed["synthesis"], strict=True)
                      if n == name],
            **{k: mine[k].to_numpy() for k in audit.keys},
            "disclosed": mine["disclosed values"].to_numpy()})
        tables.append(Table(f"Records at risk: {name}", frame, digits=2, index=False,
                            note="flags: the measures that flag the record; disclosed: the "
                                 "targets DiSCO or the attack gets right for it."))
    return Section("The people at risk", paragraphs=paragraphs, items=items,
                   tables=tables), entries


def _exposure_section(audit: Audit) -> Section | None:
    """The original's own exposure on the report's keys (capkit.anonymity)."""
    own = audit.exposure
    if own is None:
        return None
    frame = own.shown()
    return Section(
        "The original's own exposure",
        paragraphs=["What the original data expose on the report's keys before any synthesis "
                    "(capkit.anonymity; docs/anonymity.md): k-anonymity (Sweeney 2002), the "
                    "sample uniques, the expected number of re-identifications (Benedetti & "
                    "Franconi's individual risk summed over the records, as sdcMicro's "
                    "global_risk_ER) and each target's l-diversity (Machanavajjhala et al. "
                    "2007). A synthesis cannot be judged safer than the original is exposed: "
                    "these say how much there is to protect."],
        items=list(own.notes),
        tables=[Table("The original on the keys " + ", ".join(own.keys), frame, digits=2,
                      index=False)])


def _worst_section(audit: Audit) -> Section | None:
    """The worst combinations of k of the report's keys (the k-key sweep)."""
    worst = audit.worst_combinations
    if worst is None:
        return None
    paragraphs = [
        f"An intruder may know only some of the keys. For every combination of {worst.size} of "
        "them and every target, DiSCO (the members' records whose target the synthesis gives "
        "away on those keys) less Dorig (what the original itself gives away on them): NIST "
        "SDNist's k-DiSCO, capkit.disclosure.sweep (docs/sweep-and-sdc.md). The worst "
        f"{WORST_SHOWN} of each synthesis, in percent of the members"
        + ("; with a holdout, ranked by the advantage (the members' DiSCO less the holdout's: "
           "what the synthesis tells about its members beyond what it tells about anyone), "
           "the holdout's DiSCO and the risk beside it. A combination where the holdout's "
           "DiSCO is as high discloses nothing about the members, however large DiSCO - Dorig."
           if worst.by == "advantage" else ", ranked by DiSCO - Dorig (no holdout).")]
    if worst.skipped:
        return Section("Worst key combinations", paragraphs=paragraphs,
                       items=[f"not measured: {worst.skipped}"])
    frame = worst.table.copy()
    frame["identifying"] = frame["identifying"].map({True: "yes", False: "no"})
    units = {c: "%" for c in ("DiSCO", "Dorig", "excess", "holdout DiSCO", "advantage",
                              "risk", "risk low", "risk high") if c in frame.columns}
    units["k"] = "count"
    return Section("Worst key combinations", paragraphs=paragraphs, items=list(worst.notes),
                   tables=[Table(f"The worst {worst.size}-key combinations per synthesis",
                                 frame, digits=2, index=False, units=units,
                                 note="excess = DiSCO - Dorig (points); identifying: every "
                                      "member alone on these keys.")])


def _before_after_section(table: pd.DataFrame, before: str, after: str) -> Section:
    """The findings before and after a treatment, one row each (capkit.audit.compare)."""
    names = pd.Series([f"{f}: {m} ({s})" for f, m, s in
                       zip(table["family"], table["measure"], table["subject"], strict=True)])
    frame = pd.DataFrame({
        "finding": names.to_numpy(), "unit": table["unit"].to_numpy(),
        "before": table["before"].to_numpy(dtype=float),
        "after": table["after"].to_numpy(dtype=float),
        "change": table["change"].to_numpy(dtype=float),
        "holdout before": table["holdout before"].to_numpy(dtype=float),
        "holdout after": table["holdout after"].to_numpy(dtype=float),
        "verdict": [f"{b} -> {a}" for b, a in zip(table["verdict before"],
                                                  table["verdict after"], strict=True)],
        "worse": [", ".join(w for w, on in (("WORSE", a), ("MORE SEVERE", b)) if on)
                  for a, b in zip(table["worse"], table["more severe"], strict=True)]})
    worse, severer = table["worse"].to_numpy(), table["more severe"].to_numpy()
    items = [f"worse after the treatment (the members' value): {', '.join(names[worse])}"
             if worse.any() else "no finding's value is worse after the treatment"]
    if severer.any():
        items.append(f"verdict more severe after the treatment: {', '.join(names[severer])} "
                     "(the holdout's value fell more than the members': what the removed "
                     "records told about anyone went with them)")
    return Section(
        "Before and after the treatment",
        paragraphs=[f"The findings of {before} (before) and of {after} (after the treatment), "
                    "judged in one run with the same keys, targets, holdout and rules. change ="
                    " after - before of the members' value, in the finding's unit; WORSE: the "
                    "value moved towards more disclosure (down, for the median distance to the "
                    "closest record); MORE SEVERE: the verdict did."],
        items=items, tables=[Table("Before and after", frame, digits=DIGITS, index=False)])


def custodian_report(audit: Audit, command: str, versions: dict[str, str],
                     inputs: list[str], show_values: bool = False,
                     pictures: list[Picture] | None = None,
                     before_after: tuple[str, str, pd.DataFrame] | None = None,
                     release_map: pd.DataFrame | None = None, map_by_user: bool = False
                     ) -> Report:
    """The :class:`Report` of an audit: verdicts, findings per synthesis, the original's own
    exposure and the worst key combinations (when the audit measured them), the people at risk
    (key values and target values masked unless ``show_values``), rules, measures. The JSON
    document lists the records shown under ``records_at_risk``, the exposure under
    ``original_exposure`` and the sweep under ``worst_key_combinations``; ``pictures`` (drawn by the
    caller with :mod:`capkit.plots.custodian`) show in the html page only. ``before_after``
    (the names of a synthesis and its treated version, and
    :func:`capkit.audit.compare.before_after`'s table) adds their findings side by side after
    the verdicts, and under ``before_after`` in the JSON document. When the audit measured the
    utility (``audit(..., utility=True)``), a utility section follows the syntheses (``utility``
    in the JSON document), and ``release_map``
    (:func:`capkit.audit.utility_family.release_map`) adds the risk-utility map
    (``risk_utility_map``; ``map_by_user``: its risk was named by the user)."""
    sections = [_verdict_section(audit)]
    if before_after is not None:
        sections.append(_before_after_section(before_after[2], *before_after[:2]))
    sections += [_synthesis_section(audit, name) for name in audit.syntheses]
    if audit.utility is not None:
        sections += utility_sections(audit.utility)
    if release_map is not None:
        sections.append(map_section(release_map, map_by_user))
    sections += [s for s in (_exposure_section(audit), _worst_section(audit)) if s is not None]
    entries: list[dict] = []
    if not audit.records_at_risk.empty:
        section, entries = _records_section(audit, show_values)
        sections.append(section)
    rules = pd.DataFrame({"rule": list(RULES.values())}, index=list(RULES))
    sections.append(Section(
        "How the verdicts are decided",
        paragraphs=["Every verdict follows one of these rules (capkit.audit.verdicts; "
                    "docs/custodian-report.md). The holdout's rate is the control: a measure "
                    "is disclosive only when the members' rate clearly exceeds it."],
        tables=[Table("Verdict rules", rules, index=True)]))
    if not audit.measures.empty:
        frame = audit.measures.set_index(["synthesis", "target"])
        frame.index = [f"{s} | {t}" for s, t in frame.index]
        sections.append(Section(
            "synthpop's measures per target",
            paragraphs=["Raab, Nowok & Dibben's measures with the keys below, in percent of "
                        "the members; DCAP = 100 x CAP v1 (Baillargeon & Charest, Def. 2), "
                        "CAP v2 over the records whose key occurs in the synthetic data "
                        "(Def. 3); the holdout's DiSCO and DCAP are its control."],
            tables=[Table("Measures per synthesis and target", frame, digits=1,
                          units={c: "%" for c in frame.columns})]))
    sections.append(Section("Keys and targets", items=[
        f"keys: {', '.join(audit.keys)}", f"targets: {', '.join(audit.targets)}",
        *audit.notes]))
    holdout = ("no holdout" if audit.n_holdout is None else
               f"holdout: {audit.n_holdout:,} records")
    return Report(title="Disclosure risk report", command=command, versions=versions,
                  inputs=[*inputs, holdout] if inputs else [holdout], sections=sections,
                  findings=[f.to_dict() for f in audit.findings],
                  extra={"records_at_risk": entries, **_extra(audit, before_after),
                         **_worth(audit, release_map)},
                  pictures=list(pictures or []))


def _extra(audit: Audit, before_after: tuple[str, str, pd.DataFrame] | None
           ) -> dict[str, object]:
    """The JSON document's entries for the original's exposure, the worst combinations and
    the findings before and after a treatment."""
    out: dict[str, object] = {}
    if before_after is not None:
        out["before_after"] = {"before": before_after[0], "after": before_after[1],
                               "findings": before_after[2].to_dict("records")}
    if audit.exposure is not None:
        out["original_exposure"] = audit.exposure.to_dict()
    if audit.worst_combinations is not None:
        out["worst_key_combinations"] = audit.worst_combinations.to_dict()
    return out


def _worth(audit: Audit, release_map: pd.DataFrame | None) -> dict[str, object]:
    """The JSON document's entries for the utility and the risk-utility map."""
    out: dict[str, object] = {}
    if audit.utility is not None:
        out["utility"] = audit.utility.to_dict()
    if release_map is not None:
        out["risk_utility_map"] = map_entries(release_map)
    return out


__all__ = ["TOP_RECORDS", "custodian_report"]
