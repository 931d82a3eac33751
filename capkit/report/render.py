"""One entry point from a :class:`~capkit.report.model.Report` to the requested format."""

from __future__ import annotations

from capkit.errors import CapkitError
from capkit.report.html import render_html
from capkit.report.jsonfmt import render_json
from capkit.report.markdown import render_markdown
from capkit.report.model import FORMATS, Report
from capkit.report.text import render_text


def render(report: Report, fmt: str) -> str:
    """The report as ``text``, ``markdown``, ``json`` or ``html`` (a str ending in a newline)."""
    if fmt == "text":
        return render_text(report)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "json":
        return render_json(report)
    if fmt == "html":
        return render_html(report)
    raise CapkitError(f"format must be one of {FORMATS}, got {fmt!r}")
