"""Plain-text rendering of a :class:`capkit.report.Report` (for the terminal).

Every text is shown with its control characters escaped (:func:`capkit.report.safe.visible`):
a name or value can neither move the cursor, clear the screen nor start a line of its own.
"""

from __future__ import annotations

import textwrap

from capkit.report.model import Report, Table, formatted
from capkit.report.safe import visible


def table_text(table: Table) -> str:
    """A table as aligned columns of text, numbers right-aligned."""
    cells = formatted(table.frame, table.digits)
    header = table.headers()
    header = [visible(h) for h in header]
    rows = [[visible(v) for v in r] for r in cells.itertuples(index=False)]
    index = [visible(i) for i in cells.index] if table.index else None
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


def _wrap(text: str, **indents: str) -> list[str]:
    """Lines of at most 96 characters, never breaking an option such as --no-target-na."""
    return textwrap.wrap(visible(text.replace("\n", " ")), 96, break_on_hyphens=False,
                         break_long_words=False, **indents)


def render_text(report: Report) -> str:
    """The report as plain text."""
    title = visible(report.title)
    out = [title, "=" * len(title), ""]
    for section in report.sections:
        heading = visible(section.title)
        out += [heading, "-" * len(heading)]
        for paragraph in section.paragraphs:
            out += _wrap(paragraph) + [""]
        for item in section.items:
            out += _wrap(item, initial_indent="* ", subsequent_indent="  ")
        if section.items:
            out.append("")
        for table in section.tables:
            out += [visible(table.title), table_text(table)]
            if table.note:
                out += _wrap(table.note)
            out.append("")
    if report.inputs:
        out += ["Inputs", "------", *(visible(line) for line in report.inputs), ""]
    out += ["Produced by", "-----------", visible(report.command),
            visible(", ".join(f"{k} {v}" for k, v in report.versions.items())), ""]
    return "\n".join(out)
