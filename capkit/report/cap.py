"""The report of ``capkit cap``: Baillargeon & Charest's CAP measures per target.

Built from a ``CapRun`` (one row per target and synthesis). Values are percentages, as in the
``capkit disclosure`` report (its DCAP is CAP v1): average CAP version 1 (Definition 2) and
version 2 (Definition 3), the baseline (sum of squared target shares), the intruder's correct
predictions (Section 4) and the share of original records whose key does not occur in the
synthetic data. Every number column says its unit.
"""

from __future__ import annotations

import pandas as pd

from capkit.audit.findings import REPLICATES, coding_caveat, over_syntheses
from capkit.report.model import Report, Section, Table

_COLUMNS = ["records", "baseline", "CAP v1", "CAP v2", "correct predictions",
            "key not in synthetic"]
_UNITS = {c: "%" for c in _COLUMNS} | {"records": "count", "holdout records": "count",
                                        "holdout CAP v1": "%", "difference": "points",
                                        "risk": "%", "risk low": "%", "risk high": "%"}


_CONTROL = ["CAP v1", "holdout CAP v1", "difference", "risk", "risk low", "risk high"]


def _control_section(table: pd.DataFrame, keys: list[str], coded: list[str]) -> Section:
    """Members' against holdout's CAP v1 per target: the mean over syntheses of each, compared
    once and judged by the report's rules (:func:`capkit.audit.findings.over_syntheses`; a key
    or the target coded differently: rule M1, :func:`capkit.audit.findings.coding_caveat`)."""
    rows, items = [], []
    for target, part in table.groupby("target", sort=False):
        f = over_syntheses("attribute", "CAP v1", str(target), part["CAP v1"].tolist(),
                           int(part["records"].iloc[0]), part["holdout CAP v1"].tolist(),
                           int(part["holdout records"].iloc[0]))
        differ = [c for c in coded if c in [*keys, target]]
        f = coding_caveat(f, differ)
        rows.append({"target": target, "CAP v1": f.value, "holdout CAP v1": f.holdout,
                     "difference": f.value - f.holdout, "risk": f.risk, "risk low": f.risk_low,
                     "risk high": f.risk_high, "verdict": f.verdict})
        which = f" ({f.synthesis}; {f.detail.split('; ', 1)[1]})" if len(part) > 1 else ""
        items.append(f"Target '{target}'{which}: CAP v1 {f.value:.2f}% for the original records "
                     f"against {f.holdout:.2f}% for the holdout; risk {f.risk:.2f}% "
                     f"[{f.risk_low:.2f}, {f.risk_high:.2f}]: {f.verdict} ({f.rule})."
                     + (f" Columns coded differently: {', '.join(differ)}." if differ else ""))
    mean = pd.DataFrame(rows).set_index("target")
    units = {c: "%" for c in _CONTROL} | {"difference": "points"}
    m = int(table["synthesis"].nunique())
    return Section(
        "Membership control", items=items,
        paragraphs=["The holdout holds records of the same population that were not used to "
                    "make the synthetic data. Their CAP is what the synthetic data says about "
                    "anyone; only the original records' excess is disclosure about them. "
                    "Risk = (m - c) / (1 - c) of the two average CAPs, with its interval "
                    "(capkit.control); the verdict follows the rules of capkit report "
                    "(capkit.audit.verdicts)."] + ([REPLICATES] if m > 1 else []),
        tables=[Table("CAP v1 of original and holdout records", mean, units=units)])


def cap_report(run, command: str, versions: dict[str, str]) -> Report:  # noqa: ANN001
    """The :class:`Report` of a ``capkit cap`` run."""
    table = run.table
    m = int(table["synthesis"].max())
    mean = table.groupby("target", sort=False)[_COLUMNS].mean()
    mean["records"] = table.groupby("target", sort=False)["records"].first()
    avg = f"mean over {m} syntheses" if m > 1 else "one synthesis"
    lines = [f"Warning: {w}" for w in run.warnings]
    for target, row in mean.iterrows():
        lines.append(
            f"Target '{target}': an intruder attributing targets from the synthetic records with "
            f"the same keys is right for {row['CAP v1']:.2f}% of the original records on average "
            f"(CAP v1), {row['CAP v2']:.2f}% of those whose key occurs in the synthetic data "
            f"(CAP v2), against {row['baseline']:.2f}% from the target's distribution alone "
            "(baseline).")
    na = ("records with a missing key or target left out (--dropna)" if run.dropna
          else "a missing value is a level of its own")
    sections = [Section(
        "CAP (Baillargeon & Charest 2020)", css_class="summary",
        paragraphs=[f"Keys: {', '.join(run.inputs.keys)}; {avg}; {na}. Percentages."],
        items=lines,
        tables=[Table("Average CAP by target", mean, units=_UNITS,
                      note="CAP v1: Definition 2 (a key absent from the synthetic data counts "
                           "0); CAP v2: Definition 3 (over records whose key occurs in the "
                           "synthetic data; NA when none does); correct predictions: share "
                           "of original records "
                           "whose most frequent synthetic target (ties shared) is right. "
                           "100 - CAP v2 and 100 - CAP v1 are SDMetrics' CategoricalCAP and "
                           "CategoricalZeroCAP scores, in percent.")])]
    if "holdout CAP v1" in table.columns:
        sections.append(_control_section(table, run.inputs.keys,
                                         run.inputs.coded_differently))
    if m > 1:
        sections.append(Section("Per synthesis", tables=[
            Table("All syntheses", table.set_index(["target", "synthesis"]).reset_index(),
                  index=False, units=_UNITS)]))
    notes = run.inputs.remarks()
    if notes:
        sections.append(Section("Notes", items=notes, css_class="warnings"))
    return Report(title="capkit CAP report", command=command, versions=versions,
                  inputs=run.inputs.lines, sections=sections)
