"""Printed numbers of the source documents that no claim can check, and why.

The ledger holds a claim for every printed number capkit can recompute. The others (a figure
that prints no numbers, an example whose data are not published, an input rather than a result,
a quantity capkit does not compute) are declared with the reason in a data file,
``experiments/ledger/uncheckable.yaml``; this module reads that file and renders it as a section
of the ledger, so the reader of ``claims.md`` sees every number of the papers either checked or
declared.

Each entry names the paper and where the number is printed (table / figure / section, row,
column), the value as printed (a string: "0.7228838", "(figure, no numbers)") and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import yaml

from capkit.errors import CapkitError

__all__ = ["Uncheckable", "load", "markdown"]


@dataclass(frozen=True)
class Uncheckable:
    """One printed number (or number-less figure) that no claim checks, with the reason."""

    paper: str
    table: str
    row: str
    column: str
    printed: str
    reason: str


FIELDS = tuple(f.name for f in fields(Uncheckable))


def load(path: str | Path) -> list[Uncheckable]:
    """The entries of an uncheckable-numbers YAML file (a list of mappings with :data:`FIELDS`).

    Raises
    ------
    CapkitError
        When the file is not a list, or an entry lacks a field, has an unknown one or an empty
        value (the message names the entry's position and the field).
    """
    payload = yaml.safe_load(Path(path).read_text())
    if not isinstance(payload, list):
        raise CapkitError(f"{path}: expected a list of entries, got {type(payload).__name__}")
    entries = []
    for position, item in enumerate(payload):
        if not isinstance(item, dict):
            raise CapkitError(f"{path}: entry {position} is not a mapping")
        unknown = sorted(set(item) - set(FIELDS))
        if unknown:
            raise CapkitError(f"{path}: entry {position} has unknown field(s) {unknown}")
        for name in FIELDS:
            value = item.get(name)
            if value is None or not str(value).strip():
                raise CapkitError(f"{path}: entry {position} lacks field {name!r}")
        entries.append(Uncheckable(**{name: str(item[name]).strip() for name in FIELDS}))
    return entries


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def markdown(entries: list[Uncheckable]) -> str:
    """The entries as a Markdown section: a count, then one table per paper (in file order)."""
    lines = ["## Printed numbers no claim can check", "",
             f"**{len(entries)} printed numbers or figures of the source documents are declared "
             "uncheckable, each with the reason.**", ""]
    papers = list(dict.fromkeys(e.paper for e in entries))
    for paper in papers:
        lines += [f"### {paper}", "", "| where | row | column | printed | reason |",
                  "|---|---|---|---|---|"]
        for e in entries:
            if e.paper == paper:
                lines.append("| " + " | ".join(_cell(x) for x in (e.table, e.row, e.column,
                                                                  e.printed, e.reason)) + " |")
        lines.append("")
    return "\n".join(lines)
