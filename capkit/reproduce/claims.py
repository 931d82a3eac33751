"""Claims: a paper's printed value next to the reproduced one, with the rule that compares them.

A claim records {id, source, statement, paper value, reproduced value, rule, verdict}. Notebooks
build a :class:`Ledger`, add a claim for every number they check, display it and write it to
JSON; :mod:`capkit.reproduce` gathers the JSON files into ``figures/claims.md`` and
``figures/claims.json``. A claim that does not reproduce is reported as such, never tuned away.

A claim is falsifiable: its rule, tolerance and expected verdict are fixed before its value is
computed (in the notebook's code, a declared list, or the experiment's YAML), never chosen from
the value. A known difference is declared in advance with rule ``"differs"``, its reason, its
cause and the band ``within`` the reproduced value must stay in; a declared difference that
disappears (the value comes back to the paper's) or grows past that band is NOT reproduced.
A claim expected not to reproduce is declared so (``expect="NOT reproduced"`` and its reason):
it is reported as NOT reproduced, and the run fails if it reproduces after all.

Rules
-----
``exact``       reproduced == paper (numbers compared exactly, or as fractions when given so)
``round``       the paper printed the value rounded to ``decimals`` places:
                |reproduced - paper| <= 0.5 * 10**-decimals
``abs_tol``     |reproduced - paper| <= tol
``rel_tol``     |reproduced - paper| <= tol * |paper|
``le``/``lt``/``ge``/``gt``  reproduced <= / < / >= / > paper
``between``     paper is a (low, high) band and low <= reproduced <= high (bounds included)
``true``        reproduced is a boolean statement that must hold (paper value: the paper's words)
``differs``     a documented difference, declared before the run with its reason (``note``), its
                cause (one of :data:`CAUSES`) and the band ``within`` = (low, high) that the
                reproduced value must lie in, bounds included; the band may not hold the paper's
                value. Without ``within`` (older notebooks) the difference is not bounded and
                cannot fail; the ledger says so.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

RULES = ("exact", "round", "abs_tol", "rel_tol", "le", "lt", "ge", "gt", "between", "true",
         "differs")

REPRODUCED = "reproduced"
NOT_REPRODUCED = "NOT reproduced"
DIFFERS = "differs (explained)"

#: The causes a declared difference may give, and the verdict each is reported under.
CAUSES = {
    "paper": "differs (paper's own inconsistency)",
    "peer": "differs (peer's documented bug)",
    "method": "differs (another method, stated)",
    "not comparable": "not comparable",
}

#: The verdicts a claim may be declared to have before its run (``expect``).
EXPECTATIONS = (REPRODUCED, NOT_REPRODUCED)


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
    within: Any = None
    cause: str = ""
    expect: str = REPRODUCED

    @property
    def ok(self) -> bool:
        """True when the verdict is the one declared before the run: a ``differs`` claim that
        stayed within its band, a claim expected to reproduce that did, a claim declared NOT
        reproduced that did not."""
        if self.rule == "differs":
            return self.verdict != NOT_REPRODUCED
        return (self.verdict == NOT_REPRODUCED) == (self.expect == NOT_REPRODUCED)


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
    within: tuple[float, float] | list[float] | None = None,
    cause: str = "",
    expect: str = REPRODUCED,
) -> Claim:
    """Check one claim and return it with its verdict (see the module docstring for rules).

    ``within`` and ``cause`` belong to rule ``"differs"``; ``expect`` (``"reproduced"`` or
    ``"NOT reproduced"``, with its reason in ``note``) to every other rule.
    """
    if rule not in RULES:
        raise CapkitError(f"rule must be one of {RULES}, got {rule!r}")
    if rule in ("abs_tol", "rel_tol") and tol is None:
        raise CapkitError(f"rule {rule!r} needs tol")
    if rule == "round" and decimals is None:
        raise CapkitError("rule 'round' needs decimals")
    if expect not in EXPECTATIONS:
        raise CapkitError(f"expect must be one of {EXPECTATIONS}, got {expect!r}")
    if expect == NOT_REPRODUCED and not note:
        raise CapkitError("a claim declared NOT reproduced needs a note giving the reason")
    if rule == "differs":
        verdict = _differs(paper, reproduced, note, within, cause, expect)
    else:
        if within is not None or cause:
            raise CapkitError("within and cause belong to rule 'differs'")
        verdict = REPRODUCED if _verdict(paper, reproduced, rule, tol, decimals) else NOT_REPRODUCED
    return Claim(id, source, statement, _plain(paper), _plain(reproduced), rule, verdict, tol,
                 decimals, note, _plain(None if within is None else tuple(within)), cause, expect)


def _number(value: Any) -> float | None:
    """``value`` as a float when it is a (non-boolean) number, else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, Fraction, np.integer, np.floating)):
        return float(value)
    return None


def _differs(paper: Any, reproduced: Any, note: str, within: Any, cause: str,
             expect: str) -> str:
    """The verdict of a declared difference: its cause's when the reproduced value stays in the
    declared band, NOT reproduced when it leaves it (the difference disappeared or grew)."""
    if not note:
        raise CapkitError("rule 'differs' needs a note explaining the difference")
    if cause and cause not in CAUSES:
        raise CapkitError(f"cause must be one of {tuple(CAUSES)}, got {cause!r}")
    if expect != REPRODUCED:
        raise CapkitError("rule 'differs' is itself the declared verdict: give no expect")
    label = CAUSES.get(cause, DIFFERS)
    if within is None:
        return label
    low, high = (float(b) for b in within)
    if not low <= high:
        raise CapkitError(f"within must be a (low, high) band, got {within!r}")
    p = _number(paper)
    if p is not None and low <= p <= high:
        raise CapkitError(f"the declared band {within!r} holds the paper's value {paper!r}: a "
                          "difference that disappears would pass")
    x = _number(reproduced)
    if x is None:
        raise CapkitError(f"within needs a numeric reproduced value, got {reproduced!r}")
    return label if low <= x <= high else NOT_REPRODUCED


@dataclass
class Ledger:
    """The claims one notebook (or run) checks, in order.

    ``declared`` maps a claim id to the verdict declared for it before the run and the reason,
    ``{"expect": "NOT reproduced", "reason": "..."}`` (a notebook's declared list, or its
    experiment's YAML for a run whose parameters change the outcome). :meth:`check` applies it;
    a declared claim that is never checked makes the ledger fail, as a claim would.
    """

    name: str
    claims: list[Claim] = field(default_factory=list)
    declared: dict[str, dict[str, str]] = field(default_factory=dict)

    def check(self, *args: Any, **kwargs: Any) -> Claim:
        """Make a claim (arguments of :func:`make_claim`), keep it and return it."""
        claim_id = kwargs["id"] if "id" in kwargs else args[0]
        if claim_id in self.declared:
            if "expect" in kwargs:
                raise CapkitError(f"claim {claim_id!r} is declared twice: in the ledger's "
                                  "declarations and by its check's expect")
            spec = self.declared[claim_id]
            reason = spec.get("reason", "")
            if not reason:
                raise CapkitError(f"the declaration of claim {claim_id!r} gives no reason")
            note = kwargs.get("note", "")
            kwargs["note"] = f"{reason}; {note}" if note else reason
            kwargs["expect"] = spec.get("expect", REPRODUCED)
        claim = make_claim(*args, **kwargs)
        if any(c.id == claim.id for c in self.claims):
            raise CapkitError(f"claim id {claim.id!r} is used twice in ledger {self.name!r}")
        self.claims.append(claim)
        return claim

    @property
    def unchecked(self) -> list[str]:
        """Declared claim ids that no :meth:`check` made."""
        made = {c.id for c in self.claims}
        return [k for k in self.declared if k not in made]

    @property
    def ok(self) -> bool:
        """True when every claim has its declared verdict and every declared claim was made."""
        return all(c.ok for c in self.claims) and not self.unchecked

    def failures(self) -> list[str]:
        """The claims whose verdict is not the declared one, and declared claims never made, in
        words (for an ``assert ledger.ok, ledger.failures()``)."""
        out = [f"{c.id}: {c.verdict} (declared: {_declared(c)}); paper {_display(c.paper)}, "
               f"reproduced {_display(c.reproduced)}" for c in self.claims if not c.ok]
        return out + [f"{k}: declared but never checked" for k in self.unchecked]

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
        return {"name": self.name, "claims": [asdict(c) for c in self.claims],
                "declared": self.declared}

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> Ledger:
        """The ledger of :meth:`to_dict`'s form."""
        return cls(payload["name"], [Claim(**c) for c in payload["claims"]],
                   payload.get("declared") or {})

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


def _declared(claim: Claim) -> str:
    """The verdict declared for a claim before its run."""
    if claim.rule == "differs":
        return CAUSES.get(claim.cause, DIFFERS) + (
            f" within {_display(claim.within)}" if claim.within is not None else "")
    return claim.expect


def _rule_text(claim: Claim) -> str:
    if claim.rule == "round":
        return f"round to {claim.decimals} dp"
    if claim.rule in ("abs_tol", "rel_tol"):
        return f"{claim.rule} {claim.tol:g}"
    if claim.rule == "differs" and claim.within is not None:
        return f"differs, within {_display(claim.within)}"
    return claim.rule
