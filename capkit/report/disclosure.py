"""The report of ``capkit disclosure``: synthpop's disclosure measures laid out for a reader.

Built from a ``DisclosureRun`` (the :class:`capkit.disclosure.DisclosureSummary` of every target
and the inputs). Numbers are synthpop's (Raab, Nowok & Dibben, "Practical privacy metrics for
synthetic data", Appendix), averaged over the syntheses where there are several; the per
synthesis values are in the last section (and unrounded in the json output).

The CAP family section adds Baillargeon & Charest's average CAP. With missing values counted
as a level (synthpop's default) the two papers' measures coincide: DCAP = 100 x average CAP
version 1 (Definition 2), and version 2 (Definition 3, records whose key occurs in the
synthetic data only) = 100 x DCAP / iS, since iS is the share of original records whose key
occurs in the synthetic data; the command computes it
(:func:`capkit.disclosure.measures.cap_v2`) and passes it in.

Every measure is a percentage, as in synthpop, except the counts (Npairs, max_denom,
mean_denom, the check tables' record counts); every number column says its unit.
"""

from __future__ import annotations

import pandas as pd

from capkit.audit.findings import REPLICATES, coding_caveat, over_syntheses
from capkit.report.model import Report, Section, Table

#: Units of the columns of the report's tables (the others are percentages).
_COUNTS = ("Npairs", "max_denom", "mean_denom", "syntheses", "nLevelDis", "totalDisclosive",
           "npairs", "key_target_total", "key_total")

#: What each of synthpop's exclusion reasons (Nexclusions columns) removed, and the option.
_REASONS = {
    "excluded target": "with the excluded target level (--not-targetlev)",
    "missing target": "with a missing target (--no-target-na)",
    "missing in  keys": "with a missing key (--no-keys-na)",
    "set to exclude": "in excluded key-target combinations",
    "over denom_lim": "in cells over --denom-lim (--exclude-over-denom-lim)",
}


def _units(frame: pd.DataFrame) -> dict[str, str]:
    """Unit of each number column: a count or a percentage."""
    return {c: "count" if c in _COUNTS else "%" for c in frame.columns
            if pd.api.types.is_numeric_dtype(frame[c].dtype)}


def _table(title: str, frame: pd.DataFrame, **options: object) -> Table:
    return Table(title, frame, units=_units(frame), **options)  # type: ignore[arg-type]


def _exclusions(results: dict) -> list[str]:
    """What the options left out, per target: original records, and synthetic records per
    synthesis (synthpop's Nexclusions, rows 'original' and 'synthetic')."""
    lines = []
    for target, r in results.items():
        parts = []
        for reason, words in _REASONS.items():
            n_o = int(r.nexclusions[0].loc["original", reason])
            n_s = [int(t.loc["synthetic", reason]) for t in r.nexclusions]
            if n_o == 0 and not any(n_s):
                continue
            syn = (f"{n_s[0]} synthetic record{'s' if n_s[0] != 1 else ''}" if len(n_s) == 1
                   else f"{', '.join(map(str, n_s))} synthetic records (syntheses "
                        f"1-{len(n_s)})")
            parts.append(f"{n_o} original record{'s' if n_o != 1 else ''} {words}, and {syn}")
        if parts:
            lines.append(f"Target '{target}': left out " + "; ".join(parts) + ".")
    return lines

_EXPLAIN_ATTRIB = (
    "attrib.orig (Dorig) is the percentage of original records whose key combination has a "
    "single value of the target in the original data: an intruder who knew the original would "
    "learn their target. attrib.syn (DiSCO) is the percentage of original records whose target "
    "the synthetic data disclose: their key combination has a single target value in the "
    "synthetic data, and it is the right one. Rows are ordered by attrib.syn."
)


def _mean(results: dict, attr: str, columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame({t: getattr(r, attr)[columns].mean() for t, r in results.items()}).T


#: At most this many 2-way pairs per target are spelled out in words (all are in the table).
MAX_PAIR_SENTENCES = 5


def _flags(run) -> tuple[list[str], list[Table]]:  # noqa: ANN001
    """Flagged levels and pairs, pooled over syntheses, in words and as tables."""
    items: list[str] = []
    tables: list[Table] = []
    m = run.summary.m
    for target, r in run.summary.per_target.items():
        ones = [c.assign(synthesis=j) for j, c in enumerate(r.check_1way, start=1)
                if c is not None]
        twos = [c.assign(synthesis=j) for j, c in enumerate(r.check_2way, start=1)
                if c is not None]
        if ones:
            one = pd.concat(ones)
            grouped = one.groupby("Level", sort=False).agg(
                syntheses=("synthesis", "size"), PctLevelDis=("PctLevelDis", "mean"),
                nLevelDis=("nLevelDis", "mean"), totalDisclosive=("totalDisclosive", "mean"),
                PctLevelAll=("PctLevelAll", "mean"))
            for level, row in grouped.iterrows():
                where = f" (in {int(row['syntheses'])} of {m} syntheses)" if m > 1 else ""
                items.append(
                    f"Target '{target}'{where}: level '{level}' holds "
                    f"{row['PctLevelDis']:.1f}% of the records the synthetic data disclose "
                    f"({row['nLevelDis']:.0f} of {row['totalDisclosive']:.0f}), although it is "
                    f"{row['PctLevelAll']:.1f}% of all original records: disclosure is "
                    f"concentrated on '{target}' = '{level}'; check whether that value is "
                    "sensitive.")
            tables.append(_table(f"1-way check, target {target}", grouped))
        if twos:
            two = pd.concat(twos)
            grouped = two.groupby(["target_key_levs", "key"], sort=False).agg(
                syntheses=("synthesis", "size"), npairs=("npairs", "mean"),
                key_target_total=("key_target_total", "first"),
                key_total=("key_total", "first"),
                PctTargetKeyLevel=("PctTargetKeyLevel", "first"))
            grouped = grouped.sort_values(["syntheses", "npairs"], ascending=False,
                                          kind="stable").reset_index()
            for _, row in grouped.head(MAX_PAIR_SENTENCES).iterrows():
                level, _, key_level = str(row["target_key_levs"]).partition("|")
                where = f"in {row['syntheses']} of {m} syntheses, " if m > 1 else ""
                items.append(
                    f"Target '{target}': {where}{row['npairs']:.0f} disclosed records "
                    f"have '{target}' = '{level}' with '{row['key']}' = '{key_level}'; in the "
                    f"original data {row['PctTargetKeyLevel']:.1f}% of the records with "
                    f"'{row['key']}' = '{key_level}' have '{target}' = '{level}' "
                    f"({row['key_target_total']} of {row['key_total']}): "
                    f"'{row['key']}' = '{key_level}' on its own already points to "
                    f"'{target}' = '{level}'.")
            if len(grouped) > MAX_PAIR_SENTENCES:
                items.append(f"Target '{target}': {len(grouped) - MAX_PAIR_SENTENCES} more "
                             "flagged pairs in the 2-way table below.")
            tables.append(_table(f"2-way check, target {target}", grouped, index=False,
                                 note="npairs: disclosed records of the pair (mean over the "
                                      "syntheses that flag it)."))
    return items, tables


def _control_section(summary, keys: list[str],  # noqa: ANN001 - a DisclosureSummary
                     coded: list[str]) -> Section:
    """DiSCO and DCAP of the original records against the holdout's, per target: the mean over
    syntheses of each, compared once and judged by the report's rules
    (:func:`capkit.audit.findings.over_syntheses`; a key or the target coded differently:
    rule M1, :func:`capkit.audit.findings.coding_caveat`)."""
    frame = summary.control.set_index(["target", "measure"])
    items = []
    for target, measure in frame.index:
        if measure == "baseCAPd":
            continue
        members = summary.per_target[target]
        held = summary.holdout.per_target[target]
        values = (members.attrib[measure] if measure in members.attrib.columns
                  else members.allcaps[measure]).tolist()
        h_values = (held.attrib[measure] if measure in held.attrib.columns
                    else held.allcaps[measure]).tolist()
        f = over_syntheses("attribute", measure, str(target), values, members.n_orig,
                           h_values, held.n_orig)
        differ = [c for c in coded if c in [*keys, target]]
        f = coding_caveat(f, differ)
        which = f" ({f.synthesis}; {f.detail.split('; ', 1)[1]})" if summary.m > 1 else ""
        items.append(f"Target '{target}', {measure}{which}: {f.value:.2f}% of the original records "
                     f"against {f.holdout:.2f}% of the holdout; risk {f.risk:.2f}% "
                     f"[{f.risk_low:.2f}, {f.risk_high:.2f}]: {f.verdict} ({f.rule})."
                     + (f" Columns coded differently: {', '.join(differ)}." if differ else ""))
    shown = frame.reset_index()
    for column in ("risk", "risk_low", "risk_high"):
        shown[column] = 100 * shown[column]
    units = {c: "%" for c in ("members", "holdout", "risk", "risk_low", "risk_high")}
    return Section(
        "Membership control", items=items,
        paragraphs=["The holdout holds records of the same population that were not used to "
                    "make the synthetic data, measured with the same options. What the "
                    "synthetic data discloses about them is inference about the population; "
                    "only the original records' excess is disclosure about them. Risk = "
                    "(m - c) / (1 - c) of the two groups' shares, with its interval "
                    "(capkit.control); baseCAPd is each group's no-information level; the "
                    "verdict follows the rules of capkit report (capkit.audit.verdicts)."]
        + ([REPLICATES] if summary.m > 1 else []),
        tables=[Table("Original records (members) against holdout", shown, index=False,
                      units=units | {"difference": "points"})])


def disclosure_report(run, command: str, versions: dict[str, str],  # noqa: ANN001
                      figure_svg: bytes | None = None) -> Report:
    """The :class:`Report` of a ``capkit disclosure`` run."""
    summary = run.summary
    inputs = run.inputs
    results = summary.per_target
    m = summary.m
    avg = f"averaged over {m} syntheses" if m > 1 else "one synthesis"
    first = next(iter(results.values()))
    uio = float(first.ident["UiO"].mean())
    repu = float(first.ident["repU"].mean())
    keys = ", ".join(summary.keys)
    sections: list[Section] = []

    ident_line = (f"Identity disclosure from keys {keys}: {uio:.2f}% of the {summary.n_orig} "
                  f"original records are unique on the keys (UiO); {repu:.2f}% are unique in "
                  f"the original and replicated as a unique in the synthetic data (repU, {avg}).")
    table = summary.attrib_table.copy()
    sections.append(Section(
        "Summary", css_class="summary",
        paragraphs=[f"Disclosure risk for {summary.n_orig} records in the original data, "
                    f"{avg}.", ident_line],
        items=[f"Warning: {w}" for w in run.warnings],
        tables=[_table("Attribute disclosure measures (disclosure_summary)", table,
                       note=_EXPLAIN_ATTRIB)]))

    flag_items, flag_tables = _flags(run)
    if not flag_items:
        flag_items = ["No target level and no target-key pair was flagged by the 1-way "
                      "and 2-way checks."]
    sections.append(Section(
        "Flagged relationships", css_class="flags",
        paragraphs=["The 1-way check flags a target level that holds most of the disclosed "
                    "records; the 2-way check flags a target level that a single key level "
                    "largely determines in the original data, with many disclosed records. "
                    "Disclosures flagged this way come from a strong relationship in the "
                    "data (nearly everyone with that key level has that target level) rather "
                    "than from the synthesis copying individuals; judge whether the "
                    "relationship is sensitive, and if not, exclude the level "
                    "(--not-targetlev) or raise the thresholds."],
        items=flag_items, tables=flag_tables))

    ident = _mean(results, "ident", ["UiO", "UiS", "UiOiS", "repU"])
    attrib = _mean(results, "attrib", ["Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO",
                                       "max_denom", "mean_denom"])
    caps = _mean(results, "allcaps", ["baseCAPd", "CAPd", "CAPs", "DCAP", "TCAP"])
    family = pd.DataFrame({
        "baseline": caps["baseCAPd"], "CAP v1 (DCAP)": caps["DCAP"],
        "CAP v2": run.cap_v2.reindex(caps.index), "TCAP": caps["TCAP"],
        "CAPd (original)": caps["CAPd"], "CAPs (synthetic)": caps["CAPs"],
    }, index=caps.index)
    sections.append(Section(
        "Measures by target", paragraphs=[f"Percentages, {avg}."],
        tables=[
            _table("Identity measures", ident),
            _table("Attribute measures", attrib,
                   note="max_denom and mean_denom are original record counts of the "
                        "disclosive cells (synthpop 1.9-2)."),
            _table("CAP family", family,
                  note="baseline = 100 x sum of squared target shares; CAP v1 = DCAP "
                       "(Baillargeon & Charest Definition 2, a key absent from the synthetic "
                       "data counting 0); CAP v2 (Definition 3) = 100 x DCAP / iS, over "
                       "records whose key occurs in the synthetic data; TCAP over the same "
                       "records, counting only a unanimous synthetic key as a prediction."),
        ]))

    if getattr(summary, "control", None) is not None:
        sections.append(_control_section(summary, inputs.keys, inputs.coded_differently))

    notes = inputs.remarks()
    messages = sorted({msg for r in results.values() for msg in r.messages})
    notes += messages
    notes += _exclusions(results)
    options = {k: v for k, v in run.options.items() if v not in (None, {}, [])}
    notes.append("Options: " + (", ".join(f"{k}={v}" for k, v in options.items())
                                if options else "synthpop defaults"))
    sections.append(Section("Notes", items=notes, css_class="warnings"))

    if m > 1:
        per_syn = []
        for target, r in results.items():
            frame = pd.concat([r.ident, r.attrib, r.allcaps], axis=1)
            frame.index = [f"synthesis {j}" for j in frame.index]
            per_syn.append(_table(f"Target {target}", frame))
        sections.append(Section("Per synthesis", tables=per_syn))
    return Report(
        title="capkit disclosure report", command=command, versions=versions,
        inputs=inputs.lines, sections=sections, figure_svg=figure_svg,
        figure_caption="Attribute disclosure: original measure (attrib.orig) against "
                       "synthetic measure (attrib.syn), per target.")
