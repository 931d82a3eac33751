"""Markdown rendering of a :class:`capkit.report.Report` (pipe tables)."""

from __future__ import annotations

from capkit.report.model import Report, Table, formatted


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table_markdown(table: Table) -> str:
    """A pipe table; numeric columns right-aligned."""
    cells = formatted(table.frame, table.digits)
    header = table.headers()
    numeric = [table.frame[c].dtype.kind in "iuf" for c in table.frame.columns]
    align = ["---:" if n else "---" for n in numeric]
    if table.index:
        header, align = [""] + header, ["---"] + align
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |",
             "|" + "|".join(align) + "|"]
    for idx, row in zip(cells.index, cells.itertuples(index=False), strict=True):
        values = ([idx] if table.index else []) + list(row)
        lines.append("| " + " | ".join(_cell(v) for v in values) + " |")
    return "\n".join(lines)


def render_markdown(report: Report) -> str:
    """The report as markdown."""
    out = [f"# {report.title}", ""]
    for section in report.sections:
        out += [f"## {section.title}", ""]
        for paragraph in section.paragraphs:
            out += [paragraph, ""]
        for item in section.items:
            out.append(f"- {item}")
        if section.items:
            out.append("")
        for table in section.tables:
            out += [f"**{table.title}**", "", table_markdown(table), ""]
            if table.note:
                out += [f"_{table.note}_", ""]
    if report.inputs:
        out += ["## Inputs", ""] + [f"- {line}" for line in report.inputs] + [""]
    out += ["## Produced by", "", "```", report.command, "```", "",
            ", ".join(f"{k} {v}" for k, v in report.versions.items()), ""]
    return "\n".join(out)
