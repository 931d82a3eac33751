"""The report of ``capkit membership``: membership inference on one release (per attack AUC,
TPR at low FPR, advantage and epsilon bound; the members most exposed), laid out for a data
custodian. Built from :func:`capkit.membership_inference.summary`'s table."""

from __future__ import annotations

import pandas as pd

from capkit.report.model import Report, Section, Table


def _lines(table: pd.DataFrame) -> list[str]:
    best = table["auc"].idxmax()
    row = table.loc[best]
    lines = [f"The strongest attack by AUC is {best}: AUC {row['auc']:.3f} "
             f"[{row['auc_low']:.3f}, {row['auc_high']:.3f}], TPR at FPR 0.01 "
             f"{100 * row['tpr_at_fpr_0.01']:.2f}%, advantage {100 * row['advantage']:.2f} points, "
             f"epsilon lower bound {row['epsilon_lower']:.2f}."]
    above = [a for a in table.index if table.loc[a, "auc_low"] > 0.5]
    if above:
        lines.append("AUC interval above 0.5 (the attack tells members from the holdout better "
                     f"than chance): {', '.join(above)}.")
    else:
        lines.append("Every AUC interval reaches 0.5: no attack tells the members from the "
                     "holdout better than chance on average.")
    lowest = table["tpr_at_fpr_0"].idxmax()
    if table.loc[lowest, "tpr_at_fpr_0"] > 0:
        lines.append(f"{lowest} scores {100 * table.loc[lowest, 'tpr_at_fpr_0']:.2f}% of the "
                     "members above every holdout record (TPR at FPR 0): those members are "
                     "identified without a single false alarm.")
    return lines


def membership_report(table: pd.DataFrame, exposed: pd.DataFrame, command: str,
                      versions: dict[str, str], inputs: list[str],
                      figure_svg: bytes | None = None) -> Report:
    """The :class:`Report` of a ``capkit membership`` run."""
    settings = table.attrs.get("settings", {})
    drawn = settings.get("score_sample")
    # on a sample the scored records differ by attack: the counts stay in the table
    shown = (table.drop(columns=["n_members", "n_nonmembers"]) if drawn is None else
             table.rename(columns={"n_members": "members scored",
                                   "n_nonmembers": "holdout scored"})).reset_index()
    percent = [c for c in shown.columns if c.startswith("tpr_at_fpr")]
    for column in percent + ["advantage"]:
        shown[column] = 100 * shown[column]
    units = {c: "%" for c in percent} | {"advantage": "points"}
    paragraphs = [
        f"{settings.get('n_members', '?')} members, {settings.get('n_nonmembers', '?')} scored "
        f"holdout records, {settings.get('n_synthetic', '?')} synthetic and "
        f"{settings.get('n_reference', '?')} reference records; distance "
        f"{settings.get('distance', '?')}; seed {settings.get('seed', '?')}"
        + (f"; compat {settings['compat']}" if settings.get("compat") else "") + ".",
        "Each attack scores every member and every holdout record (higher = more likely a "
        "member). AUC: probability that a member scores above a holdout record (0.5 = chance; "
        "Hanley-McNeil 95% interval). TPR at FPR f: share of members caught while flagging at "
        "most a share f of the holdout (Clopper-Pearson 95% interval). Epsilon lower bound: "
        "threshold chosen on one seeded half, bound on the other (Jagielski et al. 2020).",
    ]
    intervals = [c for c in shown.columns if c.startswith("tpr_at_fpr") and
                 c.endswith(("_low", "_high"))]
    main = shown.drop(columns=intervals)
    bounds = shown[["attack", *intervals]]
    notes = list(table.attrs.get("notes", []))
    sections = []
    if drawn is not None:  # said first, in every format: these figures are a sample's
        loud = [n for n in notes if n.startswith("SAMPLE ESTIMATE")]
        notes = [n for n in notes if not n.startswith("SAMPLE ESTIMATE")]
        paragraphs[1] = paragraphs[1].replace(
            "holdout record (higher = more likely a member).",
            f"holdout record (higher = more likely a member), except "
            f"{', '.join(drawn['attacks'])}: a seeded sample (seed {drawn['seed']}) of "
            f"{drawn['members']:,} members and {drawn['nonmembers']:,} holdout records, whose "
            "counts and intervals are the sample's.")
        sections.append(Section("Sample estimate", css_class="warnings", items=loud))
    sections += [Section("Membership inference", css_class="summary", paragraphs=paragraphs,
                         items=_lines(table),
                         tables=[Table("Per attack", main, digits=3, index=False, units=units),
                                 Table("Intervals of the TPRs (Clopper-Pearson 95%)", bounds,
                                       digits=2, index=False, units=units)])]
    if len(exposed):
        frame = exposed.copy()
        frame["matching"] = frame["matching"].map(", ".join)
        sections.append(Section("Members most exposed", tables=[Table(
            f"Ranked by {table.attrs.get('exposed_attack', 'dcr')}", frame, digits=4,
            index=False, note="member: row of the members file (0-based); rank among all "
                              + ("scored records" if drawn is None else
                                 "records the attack scored (a sample for "
                                 f"{', '.join(drawn['attacks'])})")
                              + "; nearest_synthetic: row of the synthetic file; "
                              "matching: the columns on which the two records agree.")]))
    if notes:
        sections.append(Section("Notes", items=notes, css_class="warnings"))
    return Report(title="capkit membership inference report", command=command,
                  versions=versions, inputs=inputs, sections=sections, figure_svg=figure_svg,
                  figure_caption="Left: ROC curve of every attack on log-log axes (the dotted "
                                 "diagonal is a random guess). Right: each attack's scores on "
                                 "the members and on the holdout (ranks).")


__all__ = ["membership_report"]
