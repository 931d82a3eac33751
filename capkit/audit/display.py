"""How an :class:`~capkit.audit.run.Audit` shows itself: one short line (``repr``), a few lines
(``summary``) and a small HTML table for notebooks (``_repr_html_``), instead of the dataclass's
every field (kilobytes of findings on one line)."""

from __future__ import annotations

import html
from typing import Protocol

import pandas as pd


class Audit(Protocol):
    """What the displays read of a :class:`capkit.audit.run.Audit` (a protocol, so that this
    module imports nothing of the class that calls it)."""

    findings: list
    keys: list[str]
    targets: list[str]
    syntheses: list[str]
    notes: list[str]
    n_members: int
    n_holdout: int | None

    def verdicts(self) -> pd.DataFrame: ...

__all__ = ["short_repr", "summary_html", "summary_text"]


def _counts(audit: Audit) -> list[tuple[str, dict[str, int]]]:
    table = audit.verdicts()
    return [(str(name), {level: int(n) for level, n in row.items()})
            for name, row in table.iterrows()]


def _records(audit: Audit) -> str:
    held = "no holdout" if audit.n_holdout is None else f"{audit.n_holdout:,} holdout"
    return f"{audit.n_members:,} members, {held}"


def short_repr(audit: Audit) -> str:
    """``<Audit: 2 syntheses, 48 findings (5 disclosive, 24 review, 19 not flagged); ...>``."""
    total = {"disclosive": 0, "review": 0, "not flagged": 0}
    for _, counts in _counts(audit):
        for level, n in counts.items():
            total[level] = total.get(level, 0) + n
    levels = ", ".join(f"{n} {level}" for level, n in total.items())
    return (f"<Audit: {len(audit.syntheses)} syntheses, {len(audit.findings)} findings "
            f"({levels}); {_records(audit)}; {len(audit.keys)} keys, "
            f"{len(audit.targets)} targets; .summary(), .to_frame()>")


def summary_text(audit: Audit) -> str:
    """One line per synthesis with its verdict counts, then what was measured."""
    lines = [f"Audit of {len(audit.syntheses)} syntheses ({_records(audit)})"]
    for name, counts in _counts(audit):
        lines.append(f"  {name}: " + ", ".join(f"{n} {level}" for level, n in counts.items()))
    lines.append(f"keys: {', '.join(map(str, audit.keys)) or 'none'}")
    lines.append(f"targets: {', '.join(map(str, audit.targets)) or 'none'}")
    if audit.notes:
        lines.append(f"{len(audit.notes)} notes (.notes); every finding: .to_frame()")
    return "\n".join(lines)


def summary_html(audit: Audit) -> str:
    """A small table of verdict counts per synthesis, with the keys and targets."""
    levels = tuple(audit.verdicts().columns)  # "not measured" only when some finding is
    head = "".join(f"<th>{level}</th>" for level in levels)
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td>"
        + "".join(f"<td>{counts.get(level, 0)}</td>" for level in levels) + "</tr>"
        for name, counts in _counts(audit))
    keys = html.escape(", ".join(map(str, audit.keys)) or "none")
    targets = html.escape(", ".join(map(str, audit.targets)) or "none")
    return (f"<div><p><b>Audit</b> of {len(audit.syntheses)} syntheses "
            f"({html.escape(_records(audit))}), {len(audit.findings)} findings</p>"
            f"<table><tr><th>synthesis</th>{head}</tr>{rows}</table>"
            f"<p>keys: {keys}<br>targets: {targets}<br>every finding: "
            "<code>.to_frame()</code>, notes: <code>.notes</code></p></div>")
