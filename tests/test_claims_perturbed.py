"""Every stored claim can fail: a moved reproduced value changes its outcome.

Each claim of the committed ledger ``figures/claims.json`` (one ledger per notebook, from the
last full run) is rebuilt with :func:`make_claim` from its stored fields; the rebuilt verdict must
be the stored one and the claim must be ``ok``. Then its reproduced value is moved, by a rule that
depends only on the claim's rule (never on its id): out of the accepted set for a claim expected
to reproduce or a declared difference, into agreement for a claim declared NOT reproduced. The
moved claim must no longer be ``ok``, so the notebook's ``assert ledger.ok`` would fail. A claim
that no move can fail (a ``differs`` without its band ``within``) fails the test with its id,
unless its notebook is still listed as pending in ``test_claims_falsifiable.PENDING``.

A ledger written before verdicts and bands were declared (its claims carry no ``expect`` key)
cannot be held to ``ok``; its unbounded claims are named in a skip until the ledger is
regenerated.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from test_claims_falsifiable import PENDING

from capkit.reproduce.claims import NOT_REPRODUCED, REPRODUCED, Claim, Ledger, make_claim

ROOT = Path(__file__).resolve().parent.parent
#: The ledger checked: the committed one, or another run's (``CAPKIT_CLAIMS_JSON=path``).
CLAIMS = Path(os.environ.get("CAPKIT_CLAIMS_JSON") or ROOT / "figures" / "claims.json")


def _payload(path: Path = CLAIMS) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def rebuild(claim: Claim, reproduced: Any = None, *, moved: bool = False) -> Claim:
    """The claim made again by :func:`make_claim` from its stored fields (``reproduced``
    replaced when ``moved``)."""
    return make_claim(claim.id, claim.source, claim.statement, claim.paper,
                      reproduced if moved else claim.reproduced, claim.rule, tol=claim.tol,
                      decimals=claim.decimals, note=claim.note, within=claim.within,
                      cause=claim.cause, expect=claim.expect)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _changed(value: Any) -> list[Any]:
    """Values that differ from ``value`` (for rule ``exact``): one element changed."""
    if isinstance(value, bool):
        return [not value]
    if _is_number(value):
        return [value + 1, value + max(1.0, abs(value))]
    if isinstance(value, str):
        return [value + "~"]
    if isinstance(value, list):
        if not value:
            return [[0]]
        return [[first, *value[1:]] for first in _changed(value[0])] + [value[:-1]]
    if isinstance(value, dict):
        if not value:
            return [{"~": 0}]
        key = next(iter(value))
        return [{**value, key: v} for v in _changed(value[key])]
    return []


def _outside(low: float, high: float, x: float) -> list[float]:
    """Values past the bound of [low, high] nearer to ``x``, by the band's width (or 1)."""
    step = max(high - low, 1.0)
    return [low - step] if x - low <= high - x else [high + step]


def _away(x: float, paper: float, step: float) -> list[float]:
    """``x`` moved by ``step`` away from ``paper``."""
    return [x + step] if x >= paper else [x - step]


def disagreeing(claim: Claim) -> list[Any]:
    """Reproduced values that leave the claim's accepted set (rule by rule)."""
    rule, p, x = claim.rule, claim.paper, claim.reproduced
    if rule == "exact":
        return _changed(x)
    if rule == "true":
        return [not bool(x)]
    if rule == "between":
        return _outside(float(p[0]), float(p[1]), float(x))
    if rule == "differs":
        if claim.within is None or not _is_number(x):
            return []  # an unbounded difference: no value fails it
        return _outside(float(claim.within[0]), float(claim.within[1]), float(x))
    if not _is_number(x) or not _is_number(p) or math.isnan(x):
        return []
    if rule == "round":
        return _away(x, p, 10.0 ** -claim.decimals)
    if rule == "abs_tol":
        return _away(x, p, 2 * claim.tol if claim.tol > 0 else 1.0)
    if rule == "rel_tol":
        return _away(x, p, 2 * claim.tol * abs(p) if claim.tol * abs(p) > 0 else 1.0)
    step = max(1.0, abs(p))
    return {"le": [p + step], "lt": [p], "ge": [p - step], "gt": [p]}[rule]


def agreeing(claim: Claim) -> list[Any]:
    """Reproduced values that satisfy the claim's rule (for a claim declared NOT reproduced)."""
    rule, p = claim.rule, claim.paper
    if rule == "true":
        return [True]
    if rule == "between":
        return [(float(p[0]) + float(p[1])) / 2]
    if rule == "lt":
        return [p - max(1.0, abs(p))] if _is_number(p) else []
    if rule == "gt":
        return [p + max(1.0, abs(p))] if _is_number(p) else []
    return [p]  # exact, round, abs_tol, rel_tol, le, ge: the paper's own value


def moves(claim: Claim) -> list[Any]:
    """The moved values that must make the claim fail its declared verdict."""
    if claim.rule != "differs" and claim.expect == NOT_REPRODUCED:
        return agreeing(claim)
    return disagreeing(claim)


def cannot_fail(claims: list[Claim]) -> list[str]:
    """Ids of the claims that stay ``ok`` under every move (none would fail the notebook)."""
    out = []
    for claim in claims:
        if not any(not rebuild(claim, v, moved=True).ok for v in moves(claim)):
            out.append(claim.id)
    return out


def _check_ledger(ledger: Ledger, *, pending: bool = False) -> None:
    for claim in ledger.claims:
        again = rebuild(claim)
        assert again.verdict == claim.verdict, (claim.id, again.verdict, claim.verdict)
        assert again.ok, ledger.failures()
    stuck = cannot_fail(ledger.claims)
    if pending and stuck:
        pytest.xfail(f"{ledger.name} is pending; claims that cannot fail: {stuck}")
    assert stuck == [], f"{ledger.name}: claims no moved value fails: {stuck}"


def _by_id(ledger: Ledger, claim_id: str) -> Claim:
    return next(c for c in ledger.claims if c.id == claim_id)


STORED = _payload()


@pytest.mark.parametrize("payload", STORED, ids=[p["name"] for p in STORED])
def test_every_stored_claim_fails_when_moved(payload: dict[str, Any]) -> None:
    ledger = Ledger.from_dict(payload)
    assert ledger.claims, f"{ledger.name}: an empty ledger"
    if not all("expect" in c for c in payload["claims"]):
        for claim in ledger.claims:  # the rules still give the stored verdicts
            assert rebuild(claim).verdict == claim.verdict, claim.id
        stuck = cannot_fail([c for c in ledger.claims if c.ok])
        # only a claim no move exists for (an unbounded difference) may stay ok
        assert [i for i in stuck if moves(_by_id(ledger, i))] == [], stuck
        failing = [c.id for c in ledger.claims if not c.ok]
        if stuck or failing:
            pytest.skip(f"{ledger.name} was written before verdicts and bands were declared; "
                        f"not ok: {failing}; cannot fail: {stuck}")
        return
    _check_ledger(ledger, pending="within" in PENDING.get(ledger.name, set()))


def test_the_committed_ledger_is_there() -> None:
    assert len(STORED) >= 16, f"figures/claims.json holds {len(STORED)} ledgers"


def _hand_made() -> Ledger:
    ledger = Ledger("hand-made")
    ledger.check("exact-int", "s", "t", 7, 7, "exact")
    ledger.check("exact-list", "s", "t", ["a", 1], ["a", 1], "exact")
    ledger.check("exact-dict", "s", "t", {"a": 1}, {"a": 1}, "exact")
    ledger.check("round", "s", "t", 0.31, 0.3074, "round", decimals=2)
    ledger.check("abs_tol", "s", "t", 0.5, 0.52, "abs_tol", tol=0.05)
    ledger.check("rel_tol", "s", "t", 200, 190, "rel_tol", tol=0.1)
    ledger.check("le", "s", "t", 1.0, 0.4, "le")
    ledger.check("lt", "s", "t", 1.0, 1.0 - 1e-12, "lt")
    ledger.check("ge", "s", "t", 0, 0, "ge")
    ledger.check("gt", "s", "t", 0.0, 0.1, "gt")
    ledger.check("between", "s", "t", [0.2, 0.3], 0.3, "between")
    ledger.check("true", "s", "t", "holds", True, "true")
    ledger.check("differs", "s", "t", 0.5, 0.62, "differs", note="why", cause="peer",
                 within=(0.6, 0.7))
    ledger.check("not-reproduced", "s", "t", 0.31, 0.35, "round", decimals=2,
                 expect=NOT_REPRODUCED, note="the paper printed another table")
    return ledger


def test_a_hand_made_ledger_fails_when_any_value_moves() -> None:
    ledger = _hand_made()
    assert ledger.ok, ledger.failures()
    _check_ledger(ledger)
    for claim in ledger.claims:  # the moved value is one Ledger.ok rejects
        for value in moves(claim):
            moved = Ledger("moved", [rebuild(c, value, moved=c.id == claim.id)
                                     for c in ledger.claims])
            assert not moved.ok, (claim.id, value)


@pytest.mark.parametrize("rule, paper, reproduced, extra", [
    ("round", 0.31, 0.35, {"decimals": 2}),
    ("exact", [1, 2], [1, 3], {}),
    ("between", [0.2, 0.3], 0.5, {}),
    ("lt", 1.0, 1.0, {}),
    ("gt", 1.0, 0.5, {}),
    ("true", "holds", False, {}),
])
def test_a_claim_declared_not_reproduced_fails_when_it_agrees(rule, paper, reproduced,
                                                               extra) -> None:
    claim = make_claim("nr", "s", "t", paper, reproduced, rule, expect=NOT_REPRODUCED,
                       note="declared before the run", **extra)
    assert claim.verdict == NOT_REPRODUCED and claim.ok
    values = moves(claim)
    assert values
    for value in values:
        moved = rebuild(claim, value, moved=True)
        assert moved.verdict == REPRODUCED and not moved.ok, value


def test_an_unbounded_difference_is_found() -> None:
    """The search for claims that cannot fail finds one (it can itself fail)."""
    ledger = _hand_made()
    ledger.check("unbounded", "s", "t", 0.5, 0.9, "differs", note="no band")
    assert cannot_fail(ledger.claims) == ["unbounded"]
    with pytest.raises(AssertionError, match="unbounded"):
        _check_ledger(ledger)
