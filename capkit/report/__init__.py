"""Reports of the ``capkit`` commands in four formats: text, markdown, json and html. Names only.

* ``text``: for the terminal, tables rounded to each table's ``digits``.
* ``markdown``: pipe tables, for a README or an issue.
* ``json``: every number unrounded (NaN as ``null``), for programs.
* ``html``: one self-contained page (inline CSS, the figure embedded as base64 SVG), for a
  reviewer: open it in any browser, no network needed.

:mod:`~capkit.report.model` holds the report's structure, :mod:`~capkit.report.render` the
entry point, one module per format lays it out, and one module per command
(:mod:`~capkit.report.cap`, :mod:`~capkit.report.disclosure`) builds it from results.
"""

from capkit.report.model import FORMATS, Picture, Report, Section, Table, formatted
from capkit.report.render import render

__all__ = ["FORMATS", "Picture", "Report", "Section", "Table", "formatted", "render"]
