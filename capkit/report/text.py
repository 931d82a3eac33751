"""Plain-text rendering of a :class:`capkit.report.Report` (for the terminal)."""

from __future__ import annotations

import textwrap

from capkit.report.model import Report, Table, formatted


def table_text(table: Table) -> str:
    """A table as aligned columns of text, numbers right-aligned."""
    cells = formatted(table.frame, table.digits)
    header = [str(c) for c in cells.columns]
    rows = [list(r) for r in cells.itertuples(index=False)]
    index = list(cells.index) if table.index else None
    columns = [header] if index is None else [[""] + header]
    body = rows if index is None else [[i, *r] for i, r in zip(index, rows, strict=True)]
    grid = columns + body
    numeric = ([False] if index is not None else []) + [
        table.frame[c].dtype.kind in "iuf" for c in table.frame.columns]
    widths = [max(len(row[k]) for row in grid) for k in range(len(grid[0]))]
    lines = []
    for row in grid:
        parts = []
        for k, (cell, width) in enumerate(zip(row, widths, strict=True)):
            parts.append(cell.rjust(width) if numeric[k] else cell.ljust(width))
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def render_text(report: Report) -> str:
    """The report as plain text."""
    out = [report.title, "=" * len(report.title), ""]
    for section in report.sections:
        out += [section.title, "-" * len(section.title)]
        for paragraph in section.paragraphs:
            out += textwrap.wrap(paragraph, 96) + [""]
        for item in section.items:
            out += textwrap.wrap(item, 96, initial_indent="* ", subsequent_indent="  ")
        if section.items:
            out.append("")
        for table in section.tables:
            out += [table.title, table_text(table)]
            if table.note:
                out += textwrap.wrap(table.note, 96)
            out.append("")
    if report.inputs:
        out += ["Inputs", "------", *report.inputs, ""]
    out += ["Produced by", "-----------", report.command,
            ", ".join(f"{k} {v}" for k, v in report.versions.items()), ""]
    return "\n".join(out)
