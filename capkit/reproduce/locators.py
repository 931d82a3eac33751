"""A reviewer's view of the claims ledger: each claim's place in its source, and the ledger page
grouped by paper and table.

A locator says where a claim sits in the paper it checks: ``{paper, table, row, column}`` (the
table may be a figure or a section), optionally ``figure``, the stem of the figure in
``figures/`` that shows it. Locators live in data files, ``experiments/locators*.yaml``, each a
mapping ``claim_id: {paper: ..., table: ..., row: ..., column: ...}``; every such file is read.
A claim without a locator is grouped under its source's words.

:func:`ledger_page` writes ``figures/claims.md``: a summary by verdict, a contents table (papers,
their tables, the verdicts in each), then per paper and table a grid, paper | capkit | verdict,
one short row per claim (or, for a table with many rows and columns, one cell per claim), each
claim linked to its notebook and its figure, and below the grid the reasons of every claim that
is not plainly reproduced.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from capkit.errors import CapkitError
from capkit.reproduce import claims as claims_mod

#: The keys a locator must give.
KEYS = ("paper", "table", "row", "column")

#: The verdicts in the order the page reports them, with the mark a grid cell shows.
ORDER = (
    (claims_mod.REPRODUCED, "✓"),
    (claims_mod.CAUSES["paper"], "≠ paper"),
    (claims_mod.CAUSES["peer"], "≠ peer bug"),
    (claims_mod.CAUSES["method"], "≠ method"),
    (claims_mod.CAUSES["not comparable"], "n/c"),
    (claims_mod.DIFFERS, "≠?"),
    (claims_mod.NOT_REPRODUCED, "✗"),
)
MARKS = dict(ORDER)

#: Above this many claims a table with several rows and columns is shown as a grid of cells.
GRID_FROM = 12


def load_locators(root: Path) -> dict[str, dict[str, str]]:
    """Every ``experiments/locators*.yaml`` under ``root``, merged (claim id -> locator).

    A locator lacking one of :data:`KEYS`, or one claim located differently by two files, is a
    CapkitError naming the file and the claim.
    """
    found: dict[str, dict[str, str]] = {}
    origin: dict[str, str] = {}
    for path in sorted((Path(root) / "experiments").glob("locators*.yaml")):
        payload = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(payload, Mapping):
            raise CapkitError(f"{path.name} must map claim ids to locators")
        for claim_id, spec in payload.items():
            if not isinstance(spec, Mapping) or any(k not in spec for k in KEYS):
                raise CapkitError(f"{path.name}: the locator of {claim_id!r} must give "
                                  f"{', '.join(KEYS)}")
            spec = {k: str(v) for k, v in spec.items()}
            if claim_id in found and found[claim_id] != spec:
                raise CapkitError(f"claim {claim_id!r} is located twice, differently: in "
                                  f"{origin[claim_id]} and {path.name}")
            found[str(claim_id)], origin[str(claim_id)] = spec, path.name
    return found


def is_locator_file(path: Path) -> bool:
    """True for ``experiments/locators*.yaml`` (data, not an experiment)."""
    return Path(path).name.startswith("locators")


def _declared_miss(claim: claims_mod.Claim) -> bool:
    return claim.verdict == claims_mod.NOT_REPRODUCED and claim.ok


def _verdict_text(claim: claims_mod.Claim) -> str:
    if not claim.ok:
        return f"**{claim.verdict}, declared {claims_mod._declared(claim)}: the run fails**"
    if _declared_miss(claim):
        return f"{claim.verdict} (declared)"
    return claim.verdict


def _short(value: Any, width: int = 28, digits: int | None = None) -> str:
    text = claims_mod._display(value)
    if digits is not None and isinstance(value, float):
        text = f"{value:.{digits}g}"
    if isinstance(value, bool):
        text = "holds" if value else "does not hold"
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _paper_value(claim: claims_mod.Claim) -> str:
    if claim.rule == "between":
        return "in " + _short(claim.paper, 30)
    if claim.rule in ("le", "lt", "ge", "gt"):
        sign = {"le": "≤", "lt": "<", "ge": "≥", "gt": ">"}[claim.rule]
        return f"{sign} {_short(claim.paper)}"
    if claim.rule in ("abs_tol", "rel_tol"):
        relative = " rel." if claim.rule == "rel_tol" else ""
        return f"{_short(claim.paper)} ± {claim.tol:g}{relative}"
    return _short(claim.paper)


def _capkit_value(claim: claims_mod.Claim) -> str:
    text = _short(claim.reproduced)
    if claim.rule == "differs" and claim.within is not None:
        text += f" (declared in {_short(claim.within, 24)})"
    return text


def _link(label: str, target: Path | None, folder: Path) -> str:
    if target is None:
        return label
    return f"[{label}]({Path(os.path.relpath(target, folder)).as_posix()})"


def ledger_page(ledgers: list[claims_mod.Ledger], locators: Mapping[str, Mapping[str, str]],
                *, notebooks: Mapping[str, Path] | None = None,
                folder: Path | None = None) -> str:
    """The ledger as Markdown grouped by paper and table (see the module docstring).

    ``notebooks`` maps a ledger's name to its notebook and ``folder`` is where the page is
    written, so that links are relative; without them claims are not linked.
    """
    notebooks = dict(notebooks or {})
    folder = Path(folder) if folder is not None else None
    rows = []
    for ledger in ledgers:
        for claim in ledger.claims:
            where = locators.get(claim.id) or {
                "paper": claim.source.split(",")[0], "table": claim.source,
                "row": claim.id, "column": ""}
            rows.append((ledger.name, claim, where))
    counts = {v: sum(c.verdict == v and c.ok for _, c, _ in rows) for v, _ in ORDER}
    declared_misses = sum(_declared_miss(c) for _, c, _ in rows)
    failing = [c for _, c, _ in rows if not c.ok]
    summary = ", ".join(f"{n} {v}" for v, n in counts.items()
                        if n and v != claims_mod.NOT_REPRODUCED)
    lines = [
        "# Claims ledger",
        "",
        "Generated by `capkit reproduce`; do not edit by hand. Each claim is a number or",
        "statement of a paper (or of a peer's output), placed by its locator",
        "(`experiments/locators*.yaml`): paper, table, row, column. The rule, the tolerance and",
        "the expected verdict of each were fixed before its run; a difference is declared with its",
        "cause and the band it must stay in, and a miss expected before the run is declared NOT",
        "reproduced with its reason. The full record (statements, rules, notes) is `claims.json`",
        "beside this page.",
        "",
        f"**{len(rows)} claims: {summary}; {declared_misses} NOT reproduced (declared before the "
        f"run); {len(failing)} without their declared verdict.**",
        "",
        "Marks: " + "; ".join(f"{m} {v}" for v, m in ORDER)
        + " (a difference whose size was not declared before the run cannot fail).",
        "",
    ]
    if failing:
        lines += ["## Claims without their declared verdict", ""]
        lines += [f"- `{c.id}`: {c.verdict}, declared {claims_mod._declared(c)}" for c in failing]
        lines.append("")
    papers: dict[str, dict[str, list]] = {}
    for name, claim, where in rows:
        papers.setdefault(where["paper"], {}).setdefault(where["table"], []).append(
            (name, claim, where))
    lines += ["## Contents", "", "| paper | table | claims | " +
              " | ".join(m for _, m in ORDER) + " |", "|---|---|---:|" + "---:|" * len(ORDER)]
    for paper, tables in papers.items():
        for k, (table, items) in enumerate(tables.items()):
            marks = [str(sum(c.verdict == v for _, c, _ in items) or "") for v, _ in ORDER]
            lines.append(f"| {paper if k == 0 else ''} | {_anchor(paper, table)} | {len(items)} | "
                         + " | ".join(marks) + " |")
    lines.append("")
    for paper, tables in papers.items():
        lines += [f"## {paper}", ""]
        for table, items in tables.items():
            lines += _table_section(paper, table, items, notebooks, folder)
    return "\n".join(lines)


def _slug(text: str) -> str:
    keep = "".join(ch.lower() if ch.isalnum() else "-" for ch in text)
    return "-".join(part for part in keep.split("-") if part)


def _anchor(paper: str, table: str) -> str:
    return f"[{table}](#{_slug(paper + ' ' + table)})"


def _table_section(paper: str, table: str, items: list, notebooks: Mapping[str, Path],
                   folder: Path | None) -> list[str]:
    figures = sorted({w["figure"] for _, _, w in items if w.get("figure")})
    names = sorted({n for n, _, _ in items})
    header = f'### <a id="{_slug(paper + " " + table)}"></a>{table}'
    links = [_link(n, notebooks.get(n), folder) if folder is not None else n for n in names]
    if folder is not None:
        links += [_link(f"{f}.png", folder / f"{f}.png", folder) for f in figures]
    else:
        links += [f"{f}.png" for f in figures]
    lines = [header, "", "From " + ", ".join(links) + ".", ""]
    row_keys = list(dict.fromkeys(w["row"] for _, _, w in items))
    col_keys = list(dict.fromkeys(w["column"] for _, _, w in items))
    if len(items) > GRID_FROM and len(row_keys) > 1 and len(col_keys) > 1:
        lines += _matrix(items, row_keys, col_keys)
    else:
        lines += ["| claim | row | column | paper | capkit | verdict |",
                  "|---|---|---|---|---|---|"]
        for name, claim, where in items:
            ref = _link(claim.id, notebooks.get(name), folder) if folder is not None else claim.id
            cells = [ref, _short(where["row"], 40), _short(where["column"], 24),
                     _paper_value(claim), _capkit_value(claim), _verdict_text(claim)]
            lines.append("| " + " | ".join(cells) + " |")
    notes = [(claim, where) for _, claim, where in items
             if claim.verdict != claims_mod.REPRODUCED or not claim.ok]
    if notes:
        lines += ["", "Not plainly reproduced:", ""]
        for claim, _ in notes:
            reason = claim.note if len(claim.note) <= 400 else claim.note[:399] + "…"
            lines.append(f"- `{claim.id}` ({_verdict_text(claim)}): {claim.statement}. "
                         f"*{reason}*" if reason else f"- `{claim.id}`: {claim.statement}")
    lines.append("")
    return lines


def _matrix(items: list, row_keys: list[str], col_keys: list[str]) -> list[str]:
    """One cell per claim: paper / capkit and the verdict's mark."""
    cell: dict[tuple[str, str], str] = {}
    for _, claim, where in items:
        mark = MARKS.get(claim.verdict, claim.verdict)
        if not claim.ok:
            mark = f"**{mark}!**"
        text = f"{_short(claim.paper, 12, 4)} / {_short(claim.reproduced, 12, 4)} {mark}"
        key = (where["row"], where["column"])
        cell[key] = f"{cell[key]}; {text}" if key in cell else text
    lines = ["row | " + " | ".join(_short(c, 24) for c in col_keys),
             "---|" + "---|" * (len(col_keys) - 1) + "---"]
    lines = ["| " + lines[0] + " |", "|" + lines[1] + "|"]
    for r in row_keys:
        lines.append("| " + " | ".join([_short(r, 24)] + [cell.get((r, c), "") for c in col_keys])
                     + " |")
    lines += ["", "Each cell: paper / capkit, then the verdict's mark."]
    return lines


__all__ = ["GRID_FROM", "KEYS", "is_locator_file", "ledger_page", "load_locators"]
