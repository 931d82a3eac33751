"""capkit.control.anonymeter_results against anonymeter 1.1.0's EvaluationResults on drawn
counts (``reference/anonymeter/drawn/``, made by ``scripts/peer_cases``): random numbers of
attacks (one, or a main / baseline / control tuple), successes from none to all, fractional
control counts, no control, confidence levels from 0.5 to 0.999. Every rate, error, risk,
interval end and warning must be anonymeter's; where anonymeter raises, capkit refuses."""

from __future__ import annotations

import math

import peer_drawn
import pytest

from capkit.control import anonymeter_results
from capkit.errors import CapkitError

CASES = peer_drawn.cases("anonymeter")
#: Wilson centres and half widths, their residual and its propagated error: a dozen
#: operations on counts below 3,000, each rounding by eps/2; a different order moves them by
#: a few eps relative, and a difference of two rates near each other by a few eps absolute.
REL, ABS = 1e-12, 1e-15


def _close(a: float, b: object) -> bool:
    b = peer_drawn.number(b)
    if math.isnan(b):
        return math.isnan(a)
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def test_cases_are_stored() -> None:
    assert len(CASES) >= 4, "run scripts/peer_cases/peer_cases.py anonymeter"


@pytest.mark.parametrize("path", CASES, ids=[p.name.split(".")[0] for p in CASES])
def test_capkit_equals_anonymeter_on_drawn_counts(path) -> None:
    case = peer_drawn.load(path)
    for call in case["calls"]:
        kwargs = dict(call["kwargs"])
        if isinstance(kwargs["n_attacks"], list):
            kwargs["n_attacks"] = tuple(kwargs["n_attacks"])
        if call["error"] is not None:
            with pytest.raises(CapkitError):
                anonymeter_results(**kwargs)
            continue
        got = anonymeter_results(**kwargs)
        for name in ("attack_rate", "baseline_rate"):
            assert all(map(_close, getattr(got, name), call[name])), (kwargs, name)
        if call["control_rate"] is None:
            assert got.control_rate is None
        else:
            assert all(map(_close, got.control_rate, call["control_rate"])), kwargs
        for name in ("risk", "risk_baseline"):
            value, (low, high) = getattr(got, name)
            want_value, (want_low, want_high) = call[name]
            assert _close(value, want_value) and _close(low, want_low) and _close(
                high, want_high), (kwargs, name)
        assert list(got.warnings) == call["warnings"], kwargs
