"""HTML rendering of a :class:`capkit.report.Report`: one self-contained page.

No external resource: the CSS is inline and the figure is embedded as a base64 SVG data URI, so
the page can be mailed, archived or opened offline. Every text is HTML-escaped, its control
characters shown as escapes (:func:`capkit.report.safe.visible`).
"""

from __future__ import annotations

import base64
import re
from html import escape as _html_escape

from capkit.report.model import Picture, Report, Table, formatted
from capkit.report.safe import visible


def escape(text: object) -> str:
    """A text for the page: its control characters shown as escapes, then HTML-escaped."""
    return _html_escape(visible(text))


_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 70em; padding: 0 1em; color: #1d2430; line-height: 1.45; }
h1 { font-size: 1.6em; border-bottom: 2px solid #2b6cb0; padding-bottom: .3em; }
h2 { font-size: 1.25em; margin-top: 1.8em; color: #2b4c7e; }
div.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: .6em 0 1.2em 0; font-size: .92em; }
caption { text-align: left; font-weight: 600; padding-bottom: .3em; }
th, td { border: 1px solid #c9d3df; padding: .25em .6em; }
th { background: #eef3f9; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.note { font-size: .9em; color: #4a5568; margin-top: -.8em; }
section.flags li { margin-bottom: .4em; }
section.warnings { background: #fff8e6; border-left: 4px solid #d69e2e; padding: .2em 1em; }
pre { background: #f4f6f8; padding: .8em; overflow-x: auto; white-space: pre-wrap; }
figure img { max-width: 100%; height: auto; }
figure.picture { margin: 1em 0; }
figure.picture svg { display: block; max-width: 100%; height: auto; }
""".strip()


def table_html(table: Table) -> str:
    """A ``<table>`` with a caption; numeric cells right-aligned."""
    cells = formatted(table.frame, table.digits)
    numeric = [table.frame[c].dtype.kind in "iuf" for c in table.frame.columns]
    head = ("<th></th>" if table.index else "") + "".join(
        f"<th>{escape(h)}</th>" for h in table.headers())
    rows = []
    for idx, row in zip(cells.index, cells.itertuples(index=False), strict=True):
        tds = "".join(f'<td class="num">{escape(v)}</td>' if n else f"<td>{escape(v)}</td>"
                      for v, n in zip(row, numeric, strict=True))
        th = f"<th>{escape(idx)}</th>" if table.index else ""
        rows.append(f"<tr>{th}{tds}</tr>")
    # a wide table scrolls inside its own box, never the page
    out = (f'<div class="scroll"><table><caption>{escape(table.title)}</caption>\n'
           f"<thead><tr>{head}</tr></thead>\n"
           "<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>")
    if table.note:
        out += f'\n<p class="note">{escape(table.note)}</p>'
    return out


def render_html(report: Report) -> str:
    """The report as a self-contained HTML page."""
    body = [f"<h1>{escape(report.title)}</h1>"]
    for section in report.sections:
        cls = f' class="{escape(section.css_class)}"' if section.css_class else ""
        body.append(f"<section{cls}>\n<h2>{escape(section.title)}</h2>")
        body += [f"<p>{escape(p)}</p>" for p in section.paragraphs]
        if section.items:
            body.append("<ul>\n" + "\n".join(f"<li>{escape(i)}</li>" for i in section.items)
                        + "\n</ul>")
        body += [table_html(t) for t in section.tables]
        body.append("</section>")
        if section.css_class == "summary" and report.figure_svg is not None:
            body.append(_figure(report))
        if section.css_class == "summary":
            body += _pictures(report.pictures)
    if report.figure_svg is not None and not any(s.css_class == "summary"
                                                 for s in report.sections):
        body.append(_figure(report))
    if report.pictures and not any(s.css_class == "summary" for s in report.sections):
        body += _pictures(report.pictures)
    if report.inputs:
        body.append("<section><h2>Inputs</h2><ul>\n" + "\n".join(
            f"<li>{escape(line)}</li>" for line in report.inputs) + "\n</ul></section>")
    versions = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>"
                       for k, v in report.versions.items())
    body.append("<section><h2>Produced by</h2><p>Rerun this command to get the same numbers:"
                f"</p>\n<pre>{escape(report.command)}</pre>\n"
                f"<table><caption>Versions</caption>{versions}</table></section>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(report.title)}</title>\n<style>\n{_CSS}\n</style>\n</head>\n"
            "<body>\n" + "\n".join(body) + "\n</body>\n</html>\n")


def _figure(report: Report) -> str:
    data = base64.b64encode(report.figure_svg or b"").decode("ascii")
    caption = escape(report.figure_caption)
    return (f'<figure><img alt="{caption}" src="data:image/svg+xml;base64,{data}">'
            f"<figcaption>{caption}</figcaption></figure>")


#: What precedes the <svg> element in matplotlib's SVG file (XML declaration, DOCTYPE,
#: comments), dropped to embed it in the page.
_PROLOGUE = re.compile(r"\A.*?(?=<svg[\s>])", re.DOTALL)
#: matplotlib's RDF metadata block (date-free), not needed in a page.
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)
#: An element id and the two ways matplotlib's SVG refers to one (``url(#id)``,
#: ``xlink:href="#id"``): prefixed per picture so ids stay unique in the page.
_IDS = re.compile(r'(\bid="|url\(#|href="#)')


def _pictures(pictures: list[Picture]) -> list[str]:
    """One section with each picture as an inline ``<svg>`` under its caption."""
    if not pictures:
        return []
    out = ["<section class=\"pictures\">\n<h2>Pictures</h2>"]
    for j, picture in enumerate(pictures, start=1):
        svg = _METADATA.sub("", _PROLOGUE.sub("", picture.svg.decode("utf-8"), count=1),
                            count=1)
        svg = _IDS.sub(lambda m, j=j: f"{m.group(1)}picture{j}-", svg)
        svg = visible(svg, lines=True)  # a name's control characters, in its labels' comments
        caption = escape(picture.caption)
        svg = svg.replace("<svg", f'<svg role="img" aria-label="{caption}"', 1)
        out.append(f'<figure class="picture">\n{svg.strip()}\n<figcaption>{caption}'
                   "</figcaption></figure>")
    out.append("</section>")
    return out
