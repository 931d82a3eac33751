"""Markdown rendering of a :class:`capkit.report.Report` (pipe tables).

Every text is escaped (:func:`capkit.report.safe.markdown_text`): a name or value renders as
itself, never as HTML, a link, an image or a table cell of its own; the command is in a fenced
block that it cannot close.
"""

from __future__ import annotations

from capkit.report.model import Report, Table, formatted
from capkit.report.safe import markdown_fence, markdown_text, visible


def _cell(text: str) -> str:
    return markdown_text(text, block=False)


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
    md = markdown_text
    out = [f"# {md(report.title)}", ""]
    for section in report.sections:
        out += [f"## {md(section.title)}", ""]
        for paragraph in section.paragraphs:
            out += [md(paragraph), ""]
        for item in section.items:
            out.append(f"- {md(item)}")
        if section.items:
            out.append("")
        for table in section.tables:
            out += [f"**{md(table.title, block=False)}**", "", table_markdown(table), ""]
            if table.note:
                out += [f"_{md(table.note, block=False)}_", ""]
    if report.inputs:
        out += ["## Inputs", ""] + [f"- {md(line)}" for line in report.inputs] + [""]
    command = visible(report.command)
    fence = markdown_fence(command)
    out += ["## Produced by", "", fence, command, fence, "",
            md(", ".join(f"{k} {v}" for k, v in report.versions.items())), ""]
    return "\n".join(out)
