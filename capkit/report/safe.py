"""Names and values from files nobody vetted, written so that they cannot act: shown escaped in
every report format, and neutralised in the CSV files capkit writes.

* :func:`visible`: control characters (terminal escape sequences, ``\\r``, ``\\x08`` ...), line
  and paragraph separators and the bidirectional overrides of Unicode (the "Trojan Source"
  characters; Boucher & Anderson, "Trojan Source: Invisible Vulnerabilities", USENIX
  Security 2023) shown as Python escapes (``\\x1b``, ``\\r``, ``\\u202e``), as the warnings show
  them: a value can no longer clear the terminal or print a line of its own.
* :func:`markdown_text`: a text as markdown that renders as that same text: HTML's ``&``, ``<``,
  ``>`` as entities (no raw HTML, no ``<javascript:...>`` autolink) and markdown's punctuation
  backslash-escaped (no link, image, emphasis, code span or table cell of the value's making;
  CommonMark 0.31, "Backslash escapes" and "Entity and numeric character references").
* :func:`json_text`: a JSON document with every such character as a ``\\uXXXX`` escape (the
  document parses to the same values).
* :func:`csv_safe`: OWASP's rule against CSV injection ("CSV Injection", OWASP Foundation): a
  text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
  single quote, so that a spreadsheet shows it as text instead of running it as a formula.
"""

from __future__ import annotations

import csv
import re

import numpy as np
import pandas as pd

#: Characters never written raw: C0 and C1 controls, DEL, the line and paragraph separators, and
#: the bidirectional marks, embeddings, overrides and isolates.
_HIDDEN = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_HIDDEN_RE = re.compile(f"[{_HIDDEN}]")

#: OWASP's formula triggers: a cell starting with one of these is read as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _escaped(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def visible(text: object, *, lines: bool = False) -> str:
    """``text`` with every control character shown as its Python escape (``\\x1b``, ``\\r``,
    ``\\n``, ``\\u202e``); ``lines=True`` keeps the line breaks (``\\n``) of a text laid out on
    several lines."""
    text = str(text)
    if lines:
        return "\n".join(_HIDDEN_RE.sub(_escaped, line) for line in text.split("\n"))
    return _HIDDEN_RE.sub(_escaped, text)


#: Markdown's punctuation that can start a construct inside a line (CommonMark's backslash
#: escapes): emphasis, code spans, links and images, table cells, strikethrough, raw HTML and
#: the backslash itself.
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]|~])")
#: What makes a block at the start of a line: a heading, a list item, a quote, a setext line.
_MARKDOWN_BLOCK = re.compile(r"^(\s*)([#+\-=>]|\d+[.)])")


def markdown_text(text: object, *, block: bool = True) -> str:
    """``text`` as markdown that renders as that very text on one line: control characters
    escaped (:func:`visible`), ``&``, ``<``, ``>`` as entities, markdown's punctuation
    backslash-escaped, and (``block``: a paragraph, heading or list item, not a table cell) a
    block marker at its start escaped."""
    shown = visible(str(text).replace("\r\n", " ").replace("\n", " "))
    shown = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    shown = _MARKDOWN_INLINE.sub(r"\\\1", shown)
    if not block:
        return shown
    return _MARKDOWN_BLOCK.sub(lambda m: m.group(1) + "\\" + m.group(2), shown, count=1)


def markdown_fence(text: str) -> str:
    """A fence of backticks longer than any run of backticks in ``text`` (at least three), so
    that a fenced code block of ``text`` cannot be closed from inside."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    return "`" * max(3, max(runs, default=0) + 1)


_JSON_HIDDEN_RE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                             "\u2066-\u2069]")


def json_text(document: str) -> str:
    """A JSON document (``json.dumps`` already escapes the C0 controls) with DEL, the C1
    controls, the separators and the bidirectional characters as ``\\uXXXX`` escapes; they
    occur only inside strings, so the document parses to the same values."""
    return _JSON_HIDDEN_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


def is_formula(value: object) -> bool:
    """Whether a cell is text that a spreadsheet would read as a formula (OWASP's rule)."""
    return isinstance(value, str) and value.startswith(FORMULA_START)


def _text_test(values: pd.Series, test: str, argument: object) -> pd.Series | None:
    """Which cells of a column are text passing ``Series.str.<test>(argument)`` (None: a
    column of numbers, dates or booleans, which holds no text)."""
    if (pd.api.types.is_numeric_dtype(values.dtype)
            or pd.api.types.is_datetime64_any_dtype(values.dtype)):
        return None
    text = values.astype(object)
    is_text = text.map(type).eq(str).to_numpy(dtype=bool)
    if not is_text.any():
        return None
    mask = np.zeros(len(text), dtype=bool)
    found = getattr(text[is_text].astype(str).str, test)(argument)
    mask[is_text] = found.to_numpy(dtype=bool)
    return pd.Series(mask, index=values.index)


def _formula_mask(values: pd.Series) -> pd.Series | None:
    """Which cells of a column are text starting with a formula character (None: a column of
    numbers, dates or booleans, never formulas: -3 is a number)."""
    return _text_test(values, "startswith", FORMULA_START)


def formula_cells(frame: pd.DataFrame) -> tuple[int, list[str]]:
    """How many cells of ``frame`` (its header included) a spreadsheet would read as formulas,
    and the names of the columns holding them."""
    count, columns = 0, []
    for c in frame.columns:
        mask = _formula_mask(frame[c])
        n = (0 if mask is None else int(mask.sum())) + int(is_formula(c))
        if n:
            columns.append(c)
        count += n
    return count, columns


def _quoted(value: object) -> object:
    return "'" + value if is_formula(value) else value


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names that start with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return begin with a single quote (OWASP's rule against
    CSV injection); numbers, dates, booleans and the other cells unchanged."""
    out = frame.copy()
    for j, c in enumerate(frame.columns):
        mask = _formula_mask(frame[c])
        if mask is not None and mask.any():
            column = frame[c].astype(object)
            out.isetitem(j, column.where(~mask, "'" + column[mask].astype(str)))
    out.columns = [_quoted(c) for c in frame.columns]
    return out


def csv_quoting(frame: pd.DataFrame) -> dict[str, int]:
    """The ``to_csv`` options that keep every cell of ``frame`` in its row: Python's CSV writer
    quotes a cell holding a line feed but not one holding only a carriage return, which every
    reader (a spreadsheet, pandas) takes for the end of the row; when some text cell or column
    name holds one, every text cell is quoted (``csv.QUOTE_NONNUMERIC``)."""
    if any("\r" in str(c) for c in frame.columns):
        return {"quoting": csv.QUOTE_NONNUMERIC}
    for c in frame.columns:
        mask = _text_test(frame[c], "contains", "\r")
        if mask is not None and mask.any():
            return {"quoting": csv.QUOTE_NONNUMERIC}
    return {}


__all__ = ["FORMULA_START", "csv_quoting", "csv_safe", "formula_cells", "is_formula", "json_text",
           "markdown_fence", "markdown_text", "visible"]
