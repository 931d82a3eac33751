"""What a report holds: :class:`Report`, its :class:`Section` s and :class:`Table` s, and
:func:`formatted` cells; the renderers (text, markdown, json, html) lay these out.

A command builds one :class:`Report` (sections of prose, bullet points and tables, an optional
figure, and the exact command and package versions that produced it);
:func:`capkit.report.render.render` turns it into the requested format. The renderers only lay
out what they are given: they compute nothing.

* ``text``: for the terminal, tables rounded to each table's ``digits``.
* ``markdown``: pipe tables, for a README or an issue.
* ``json``: every number unrounded (NaN as ``null``), for programs; each table lists the unit
  of each column (``"units"``).
* ``html``: one self-contained page (inline CSS, the figure embedded as base64 SVG, the
  pictures as inline ``<svg>`` elements), for a reviewer: open it in any browser, no network
  needed. Only this format shows :attr:`Report.pictures`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

FORMATS = ("text", "markdown", "json", "html")


@dataclass
class Table:
    """A table of a report.

    Attributes
    ----------
    title
        Caption.
    frame
        The numbers, unrounded; the index is shown as the first column when ``index``.
    digits
        Decimals shown by the text, markdown and html renderers (json keeps all).
    note
        A sentence printed under the table.
    index
        Whether to show the index.
    units
        Column -> unit (``"%"``, ``"count"``, ...). The text, markdown and html renderers show
        it in the header, ``"CAP v1 (%)"``; json lists it next to the bare column names.
        Columns without a unit (text) are not in it.
    """

    title: str
    frame: pd.DataFrame
    digits: int = 2
    note: str = ""
    index: bool = True
    units: dict[str, str] = field(default_factory=dict)

    def headers(self) -> list[str]:
        """Column headers as shown to a reader: the name, and the unit in parentheses."""
        return [f"{c} ({self.units[c]})" if c in self.units else str(c)
                for c in self.frame.columns]


@dataclass
class Section:
    """A titled part of a report: paragraphs, then bullet items, then tables."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    css_class: str = ""


@dataclass
class Picture:
    """A figure the html page shows inline, under its caption.

    Attributes
    ----------
    caption
        What the picture shows, in words (also its accessible name).
    svg
        The figure as SVG bytes (:func:`capkit.plots.svg_bytes`).
    """

    caption: str
    svg: bytes


@dataclass
class Report:
    """Everything a report shows.

    Attributes
    ----------
    title
        Page title.
    command
        The exact command line that produced the report (rerun it to get the same numbers).
    versions
        Package name -> version (capkit, python, numpy, pandas, ...).
    inputs
        One line per input file (name, rows, columns read).
    sections
        The body.
    figure_svg
        The summary plot as SVG bytes, or None.
    figure_caption
        Its caption.
    findings
        Judged findings as plain dicts (measure, value, baseline, holdout, risk, ``verdict``,
        rule, ...), which the json renderer lists under ``"findings"`` for scripts; the other
        formats show them through the sections.
    extra
        Further top-level entries of the JSON document, name -> plain JSON value (lists,
        dicts, numbers, text), in order, after ``findings`` (``records_at_risk`` of the
        custodian's report); a name the JSON document already has is an error there.
    pictures
        Figures drawn from the results (forest plot, verdict grid, ...), shown by the html
        renderer only, inline, after the summary section; the other formats say the same in
        their tables.
    """

    title: str
    command: str
    versions: dict[str, str]
    inputs: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    figure_svg: bytes | None = None
    figure_caption: str = ""
    findings: list[dict[str, object]] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)
    pictures: list[Picture] = field(default_factory=list)


def formatted(frame: pd.DataFrame, digits: int) -> pd.DataFrame:
    """Cells as text: floats rounded to ``digits`` (NaN shown as ``NA``), others as str."""
    out = {}
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_float_dtype(values.dtype):
            out[column] = [("NA" if pd.isna(v) else f"{v:.{digits}f}") for v in values]
        else:
            out[column] = ["NA" if (v is None or (isinstance(v, float) and pd.isna(v)))
                           else str(v) for v in values]
    return pd.DataFrame(out, index=[str(i) for i in frame.index], columns=frame.columns)


__all__ = ["FORMATS", "Picture", "Report", "Section", "Table", "formatted"]
