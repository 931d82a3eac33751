"""The report of ``capkit attack``: attribute attacks as classification (Hittmeir, Mayer &
Ekelhart 2020) and the membership control, laid out for a data custodian.

Built from an ``AttackRun`` (the tidy table of :func:`capkit.attacks.baseline.baseline_table`
and the inputs). Rates are percentages of the records predicted right (a numeric target: within
the tolerance), averaged over key sets and syntheses; with a holdout, the risk
(m - c) / (1 - c) and the advantage m - c compare the members with the holdout
(:func:`capkit.control.compare_to_control`, per key set).
"""

from __future__ import annotations

import pandas as pd

from capkit.audit.findings import REPLICATES, Finding, over_syntheses
from capkit.audit.verdicts import worst
from capkit.report.model import Report, Section, Table

#: (trained_on, scored_on) -> column of the attacker table.
_COLUMNS = {("synthetic", "members"): "synthetic-trained, members",
            ("synthetic", "holdout"): "synthetic-trained, holdout",
            ("original", "members"): "original-trained, members",
            ("original", "holdout"): "original-trained, holdout"}


def _attacker_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean rate per (target, attacker) and training/scoring, coverage, risk and advantage,
    in percent (advantage in points)."""
    rows = table.copy()
    rows["trained_on"] = rows["trained_on"].replace({"dummy": "synthetic"})
    rates = rows.pivot_table(index=["target", "attacker"], columns=["trained_on", "scored_on"],
                             values="rate", aggfunc="mean", sort=False)
    # each target's attackers in the table's order (pivot_table orders each level on its own)
    pairs = rows[["target", "attacker"]].drop_duplicates()
    rates = rates.reindex(pd.MultiIndex.from_frame(pairs))
    out = pd.DataFrame(index=rates.index)
    for key, name in _COLUMNS.items():
        if key in rates.columns:
            out[name] = 100 * rates[key]
    synthetic = rows[(rows["trained_on"] == "synthetic") & (rows["scored_on"] == "members")]
    grouped = synthetic.groupby(["target", "attacker"], sort=False)
    out["coverage"] = 100 * grouped["coverage"].mean()
    for column in ("risk", "advantage"):
        if column in synthetic.columns:
            out[column] = 100 * grouped[column].mean()
    return out.reset_index()


def _key_sets(table: pd.DataFrame) -> pd.DataFrame:
    """Per (target, key set): the synthetic-trained attacker with the highest members' rate,
    its rates and (with a holdout) its risk interval, worst first."""
    rows = table[(table["trained_on"] == "synthetic") & (table["scored_on"] == "members")]
    by = ["target", "keys", "attacker"]
    columns = [c for c in ("rate", "risk", "risk_low", "risk_high") if c in rows.columns]
    mean = rows.groupby(by, sort=False)[columns].mean().reset_index()
    best = mean.loc[mean.groupby(["target", "keys"], sort=False)["rate"].idxmax()]
    holdout = table[(table["trained_on"] == "synthetic") & (table["scored_on"] == "holdout")]
    out = best.rename(columns={"attacker": "strongest attacker", "rate": "members"})
    if not holdout.empty:
        h = holdout.groupby(by, sort=False)["rate"].mean().rename("holdout").reset_index()
        out = out.merge(h.rename(columns={"attacker": "strongest attacker"}),
                        on=["target", "keys", "strongest attacker"], how="left")
    for column in ("members", "holdout", "risk", "risk_low", "risk_high"):
        if column in out.columns:
            out[column] = 100 * out[column]
    order = ["risk_low", "members"] if "risk_low" in out.columns else ["members"]
    out = out.sort_values(order, ascending=False, kind="stable")
    shown = ["target", "keys", "strongest attacker", "members", "holdout", "risk", "risk_low",
             "risk_high"]
    return out[[c for c in shown if c in out.columns]].reset_index(drop=True)


def _judged(own: pd.DataFrame, held: pd.DataFrame, attacker: str, target: str) -> Finding:
    """The worst key set of one attacker, judged as every command judges a members-vs-holdout
    comparison (:func:`capkit.audit.findings.over_syntheses`: each group's rate averaged over
    the syntheses, compared once, rules C1-C3)."""
    found = []
    for keys, mine in own.groupby("keys", sort=False):
        theirs = held[held["keys"] == keys]
        f = over_syntheses("attack", f"{attacker} attack", str(keys),
                           (100 * mine["rate"]).tolist(), int(mine["n"].iloc[0]),
                           (100 * theirs["rate"]).tolist(), int(theirs["n"].iloc[0]))
        found.append(f)
    level = worst([f.verdict for f in found])
    return next(f for f in found if f.verdict == level)


def _summary_lines(table: pd.DataFrame, has_holdout: bool) -> list[str]:
    lines = []
    for target, rows in table.groupby("target", sort=False):
        members = rows[rows["scored_on"] == "members"]
        synthetic = members[members["trained_on"] == "synthetic"]
        means = synthetic.groupby("attacker", sort=False)["rate"].mean()
        best = str(means.idxmax())
        dummy = float(members[members["trained_on"] == "dummy"]["rate"].mean())
        upper = members[(members["trained_on"] == "original") & (members["attacker"] == best)]
        kind = "within the tolerance" if rows["kind"].iloc[0] == "numeric" else "right"
        line = (f"Target '{target}': the strongest attacker trained on the synthetic data, "
                f"{best}, predicts {100 * means[best]:.2f}% of the original records {kind} "
                f"(mean over key sets), against {100 * dummy:.2f}% for the dummy (the most "
                "frequent value, or for a number the value within the tolerance of the most "
                "records)")
        if len(upper):
            line += (f" and {100 * float(upper['rate'].mean()):.2f}% for {best} trained on the "
                     "original data itself")
        line += "."
        if has_holdout:
            own = synthetic[synthetic["attacker"] == best]
            held = rows[(rows["scored_on"] == "holdout") & (rows["trained_on"] == "synthetic")
                        & (rows["attacker"] == best)]
            worst = own.loc[own["risk_low"].idxmax()]
            judged = _judged(own, held, best, str(target))
            line += (f" On the holdout it predicts {100 * float(held['rate'].mean()):.2f}% "
                     f"(advantage {100 * float(own['advantage'].mean()):+.2f} points on "
                     f"average; highest risk {100 * worst['risk']:.2f}% "
                     f"[{100 * worst['risk_low']:.2f}, {100 * worst['risk_high']:.2f}] for keys "
                     f"{worst['keys']}). By the verdict rules of capkit report "
                     f"(capkit.audit.verdicts), the worst key set ({judged.subject}) is "
                     f"{judged.verdict} ({judged.rule.split(':')[0]}): ")
            line += ("the attack does about as well on people who were not in the data, so what "
                     "it learns is inference about the population, not disclosure about the "
                     "members." if judged.verdict == "not flagged" else
                     "the synthetic data tells the attacker more about its own records than "
                     "about other people of the population (membership disclosure); see the key "
                     "sets below.")
            if table["synthesis"].nunique() > 1:
                line += " " + REPLICATES
            dummy_gap = 100 * float(members[members["trained_on"] == "dummy"]["advantage"].mean())
            line += (f" The dummy, which uses no key, does {dummy_gap:+.2f} points better on the "
                     "members than on the holdout: that much comes from the two groups' target "
                     "distributions (the split), not from the synthesis.")
        lines.append(line)
    return lines


def attack_report(run, command: str, versions: dict[str, str],  # noqa: ANN001
                  figure_svg: bytes | None = None, extra: list[Section] | None = None
                  ) -> Report:
    """The :class:`Report` of a ``capkit attack`` run; ``extra`` sections (the anonymeter
    and SDMetrics ones, :mod:`capkit.report.privacy`) go before the notes."""
    table = run.table
    has_holdout = "risk" in table.columns
    key_sets = table["keys"].nunique()
    m = int(table["synthesis"].max())
    paragraphs = [
        f"Keys: {', '.join(run.inputs.keys)}; {key_sets} key set"
        f"{'s' if key_sets > 1 else ''} of {run.key_length}; "
        f"{'one synthesis' if m == 1 else f'{m} syntheses'}; "
        f"{'with' if has_holdout else 'without'} a holdout; seed {run.seed}; numeric targets: "
        f"a guess within {100 * run.tolerance:g}% of the true value counts as right. "
        "Percentages of records.",
    ]
    if not has_holdout:
        paragraphs.append("Without a holdout (--holdout: records of the same population that "
                          "were not used for the synthesis) the rates cannot tell disclosure "
                          "about the members from inference anyone could make about the "
                          "population.")
    items = [f"Warning: {w}" for w in run.warnings] + _summary_lines(table, has_holdout)
    units = {c: "%" for c in (*_COLUMNS.values(), "coverage", "risk")} | {"advantage": "points"}
    sections = [Section(
        "Attribute attacks (Hittmeir, Mayer & Ekelhart 2020)", css_class="summary",
        paragraphs=paragraphs, items=items,
        tables=[Table("Success rate by attacker", _attacker_table(table), units=units,
                      index=False,
                      note="Mean over key sets and syntheses. The dummy (its row) predicts the "
                           "most frequent target of the synthetic data, or for a number the value "
                           "within the tolerance of the most of its records. Coverage: "
                           "records that got a prediction (the exact-match CAP has none for a "
                           "key absent from the synthetic data). Risk = (m - c) / (1 - c) of "
                           "the members' rate m and the holdout's c; advantage = m - c.")])]
    sets = _key_sets(table)
    set_units = {c: "%" for c in ("members", "holdout", "risk", "risk_low", "risk_high")}
    sections.append(Section("By key set", tables=[Table(
        "The strongest synthetic-trained attacker of each key set", sets, index=False,
        units=set_units, note="Sorted by the lower end of the risk interval (without a "
                              "holdout: by the members' rate).")]))
    sections.extend(extra or [])
    notes = run.inputs.remarks()
    if notes:
        sections.append(Section("Notes", items=notes, css_class="warnings"))
    return Report(title="capkit attribute attack report", command=command, versions=versions,
                  inputs=run.inputs.lines, sections=sections, figure_svg=figure_svg,
                  figure_caption="Share of records predicted right per attacker: trained on "
                                 "the synthetic data (blue) or the original data (orange), on "
                                 "the members (filled) and the holdout (hollow); the dummy "
                                 "as lines.")


__all__ = ["attack_report"]
