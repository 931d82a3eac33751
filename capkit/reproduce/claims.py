"""Claims: a paper's printed value next to the reproduced one, with the rule that compares them.

A claim records {id, source, statement, paper value, reproduced value, rule, verdict}. Notebooks
build a :class:`Ledger`, add a claim for every number they check, display it and write it to
JSON; :mod:`capkit.reproduce` gathers the JSON files into ``figures/claims.md`` and
``figures/claims.json``. A claim that does not reproduce is reported as such, never tuned away;
a known, explained difference (e.g. the paper vs synthpop 1.9-2) is recorded with the rule
``"differs"`` and its reason.

Rules
-----
``exact``       reproduced == paper (numbers compared exactly, or as fractions when given so)
``round``       the paper printed the value rounded to ``decimals`` places:
                |reproduced - paper| <= 0.5 * 10**-decimals
``abs_tol``     |reproduced - paper| <= tol
``rel_tol``     |reproduced - paper| <= tol * |paper|
``le``/``lt``/``ge``/``gt``  reproduced <= / < / >= / > paper
``between``     paper is a (low, high) band and low <= reproduced <= high
``true``        reproduced is a boolean statement that must hold (paper value: the paper's words)
``differs``     a documented difference: never fails, the reason says why
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd

from capkit.errors import CapkitError

RULES = ("exact", "round", "abs_tol", "rel_tol", "le", "lt", "ge", "gt", "between", "true",
         "differs")

REPRODUCED = "reproduced"
NOT_REPRODUCED = "NOT reproduced"
DIFFERS = "differs (explained)"


def _plain(value: Any) -> Any:
    """JSON-friendly form of numpy scalars, fractions and tuples."""
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value


@dataclass(frozen=True)
class Claim:
    """One checked statement of a paper."""

    id: str
    source: str
    statement: str
    paper: Any
    reproduced: Any
    rule: str
    verdict: str
    tol: float | None = None
    decimals: int | None = None
    note: str = ""

    @property
    def ok(self) -> bool:
        """True unless the claim failed to reproduce."""
        return self.verdict != NOT_REPRODUCED


def _verdict(paper: Any, reproduced: Any, rule: str, tol: float | None,
             decimals: int | None) -> bool:
    if rule == "exact":
        if isinstance(paper, Fraction) or isinstance(reproduced, Fraction):
            return Fraction(paper) == Fraction(reproduced)
        return paper == reproduced
    if rule == "true":
        return bool(reproduced)
    if rule == "between":
        low, high = paper
        return low <= reproduced <= high
    x, y = float(reproduced), float(paper)
    if math.isnan(x):
        return False
    if rule == "round":
        return abs(x - y) <= 0.5 * 10.0 ** (-decimals) * (1 + 1e-9)
    if rule == "abs_tol":
        return abs(x - y) <= tol
    if rule == "rel_tol":
        return abs(x - y) <= tol * abs(y)
    return {"le": x <= y, "lt": x < y, "ge": x >= y, "gt": x > y}[rule]


def make_claim(
    id: str,
    source: str,
    statement: str,
    paper: Any,
    reproduced: Any,
    rule: str = "exact",
    *,
    tol: float | None = None,
    decimals: int | None = None,
    note: str = "",
) -> Claim:
    """Check one claim and return it with its verdict (see the module docstring for rules)."""
    if rule not in RULES:
        raise CapkitError(f"rule must be one of {RULES}, got {rule!r}")
    if rule in ("abs_tol", "rel_tol") and tol is None:
        raise CapkitError(f"rule {rule!r} needs tol")
    if rule == "round" and decimals is None:
        raise CapkitError("rule 'round' needs decimals")
    if rule == "differs" and not note:
        raise CapkitError("rule 'differs' needs a note explaining the difference")
    if rule == "differs":
        verdict = DIFFERS
    else:
        verdict = REPRODUCED if _verdict(paper, reproduced, rule, tol, decimals) else NOT_REPRODUCED
    return Claim(id, source, statement, _plain(paper), _plain(reproduced), rule, verdict, tol,
                 decimals, note)


@dataclass
class Ledger:
    """The claims one notebook (or run) checks, in order."""

    name: str
    claims: list[Claim] = field(default_factory=list)

    def check(self, *args: Any, **kwargs: Any) -> Claim:
        """Make a claim (arguments of :func:`make_claim`), keep it and return it."""
        claim = make_claim(*args, **kwargs)
        if any(c.id == claim.id for c in self.claims):
            raise CapkitError(f"claim id {claim.id!r} is used twice in ledger {self.name!r}")
        self.claims.append(claim)
        return claim

    @property
    def ok(self) -> bool:
        """True when no claim failed."""
        return all(c.ok for c in self.claims)

    def to_frame(self) -> pd.DataFrame:
        """The claims as a table (for display in a notebook)."""
        rows = [
            {"id": c.id, "source": c.source, "paper": _display(c.paper),
             "reproduced": _display(c.reproduced), "rule": _rule_text(c), "verdict": c.verdict}
            for c in self.claims
        ]
        return pd.DataFrame(rows, columns=["id", "source", "paper", "reproduced", "rule",
                                           "verdict"])

    def to_dict(self) -> dict[str, Any]:
        """``{"name": ..., "claims": [...]}``, the JSON form of the ledger."""
        return {"name": self.name, "claims": [asdict(c) for c in self.claims]}

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> Ledger:
        """The ledger of :meth:`to_dict`'s form."""
        return cls(payload["name"], [Claim(**c) for c in payload["claims"]])

    def save(self, path: str | Path | None) -> None:
        """Write the claims as JSON (no-op when ``path`` is None, e.g. under nbval)."""
        if path is None:
            return
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n")


def load(path: str | Path) -> Ledger:
    """Read a ledger written by :meth:`Ledger.save`."""
    return Ledger.from_dict(json.loads(Path(path).read_text()))


def _display(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, list):
        return "[" + ", ".join(_display(v) for v in value) + "]"
    return str(value)


def _rule_text(claim: Claim) -> str:
    if claim.rule == "round":
        return f"round to {claim.decimals} dp"
    if claim.rule in ("abs_tol", "rel_tol"):
        return f"{claim.rule} {claim.tol:g}"
    return claim.rule


def ledger_markdown(ledgers: list[Ledger]) -> str:
    """The claims ledger as Markdown: a summary, then one table per notebook."""
    claims = [c for ledger in ledgers for c in ledger.claims]
    counts = {v: sum(c.verdict == v for c in claims) for v in (REPRODUCED, DIFFERS, NOT_REPRODUCED)}
    lines = [
        "# Claims ledger",
        "",
        "Generated by `capkit reproduce`; do not edit by hand. Each row is a statement of a paper,",
        "the paper's value, the value capkit reproduced, the rule that compares them and the",
        "verdict. Differences are reported with their reason, never tuned away.",
        "",
        f"**{len(claims)} claims: {counts[REPRODUCED]} reproduced, {counts[DIFFERS]} differ with "
        f"an explanation, {counts[NOT_REPRODUCED]} not reproduced.**",
        "",
    ]
    for ledger in ledgers:
        lines += [f"## {ledger.name}", "",
                  "| id | source | statement | paper | reproduced | rule | verdict |",
                  "|---|---|---|---|---|---|---|"]
        for c in ledger.claims:
            statement = c.statement + (f" *Note: {c.note}*" if c.note else "")
            cells = [c.id, c.source, statement, _display(c.paper), _display(c.reproduced),
                     _rule_text(c), c.verdict]
            lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in cells) + " |")
        lines.append("")
    return "\n".join(lines)
