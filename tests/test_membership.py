"""capkit.control: anonymeter's 756 grid cases, the plain-rate control comparison against a
hand-written reference, edge cases and properties."""

from __future__ import annotations

import ast
import math
import warnings
from fractions import Fraction

import pytest
from anonymeter_data import results
from hypothesis import given, settings
from hypothesis import strategies as st

from capkit.control import (
    AnonymeterResults,
    ControlComparison,
    Rate,
    anonymeter_results,
    compare_to_control,
    wilson,
)
from capkit.errors import CapkitError

GRID = results()["stats_grid"]


def _kwargs(call: str) -> dict:
    """Keyword arguments of an ``EvaluationResults(...)`` call string."""
    node = ast.parse(call, mode="eval").body
    return {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}


def _close(a: float, b: float, rel: float = 1e-12) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


def test_grid_has_756_cases():
    assert len(GRID["cases"]) == 756


def test_anonymeter_grid_every_number():
    """Every rate, error, risk, interval, residual and warning of the 756 oracle calls."""
    for case in GRID["cases"]:
        got = anonymeter_results(**_kwargs(case["call"]))
        for name in ("attack_rate", "baseline_rate"):
            assert all(map(_close, getattr(got, name), case[name])), (case["call"], name)
        if case["control_rate"] is None:
            assert got.control_rate is None and got.residual is None
        else:
            assert all(map(_close, got.control_rate, case["control_rate"])), case["call"]
            assert all(map(_close, got.residual, case["residual_unclipped"])), case["call"]
        for name in ("risk", "risk_baseline"):
            value, (low, high) = getattr(got, name)
            want_value, (want_low, want_high) = case[name]
            assert _close(value, want_value) and _close(low, want_low) and _close(
                high, want_high), (case["call"], name)
        assert list(got.warnings) == case["warnings"], case["call"]


def test_anonymeter_tuple_of_attacks():
    got = anonymeter_results((500, 500, 250), 120, 10, 40)
    assert got.n_attacks == (500, 500, 250)
    assert _close(got.control_rate[0], (40 + 0.5 * 1.959963984540054 ** 2)
                  / (250 + 1.959963984540054 ** 2))
    with pytest.raises(CapkitError, match="n_attacks"):
        anonymeter_results((500, 500), 1, 1)


@pytest.mark.parametrize("call, match", [
    (lambda: anonymeter_results(0, 0, 0), "n_attacks"),
    (lambda: anonymeter_results(10, 12, 0), "n_success"),
    (lambda: anonymeter_results(10, 5, 11), "n_baseline"),
    (lambda: anonymeter_results(10, 5, 1, 11), "n_control"),
    (lambda: anonymeter_results((10, 10, 0), 5, 1, 0), "control"),
    (lambda: anonymeter_results(10, 5, 5, confidence_level=1.0), "confidence"),
    (lambda: anonymeter_results(10, 5, 5, confidence_level=1.5), "confidence"),
    (lambda: anonymeter_results(10, 5, 5, confidence_level=-0.1), "confidence"),
    (lambda: wilson(0, 0), "n must be positive"),
    (lambda: wilson(12, 10), "larger than n"),
    (lambda: wilson(-1, 10), "k must be >= 0"),
    (lambda: compare_to_control(5, 0), "n_members"),
    (lambda: compare_to_control(11, 10), "k_members"),
    (lambda: compare_to_control(1, 10, 11, 10), "k_control"),
    (lambda: compare_to_control(1, 10, 1, 0), "n_control"),
    (lambda: compare_to_control(1, 10, 1), "n_control"),
    (lambda: compare_to_control(1, 10, confidence=1), "confidence"),
    (lambda: compare_to_control(float("nan"), 10), "k_members"),
])
def test_edge_calls_are_capkit_errors(call, match):
    """anonymeter's ZeroDivisionError / math domain error / NaN become named CapkitErrors."""
    with pytest.raises(CapkitError, match=match):
        call()


def test_oracle_edge_calls_documented():
    """The oracle's edge calls are the cases refused above (n = 0, k > n, confidence 1, 1.5)."""
    calls = [c["call"] for c in GRID["edge_calls"]]
    assert any("n_total=0" in c for c in calls) and any("n_success=12" in c for c in calls)


def test_confidence_zero_is_anonymeter_z_zero():
    """The one grid case at confidence 0: z = 0, zero-width intervals (anonymeter allows it)."""
    got = anonymeter_results(100, 50, 0, 20, confidence_level=0.0)
    assert got.attack_rate == (0.5, 0.0) and got.control_rate == (0.2, 0.0)
    assert compare_to_control(50, 100, 20, 100, confidence=0).members.ci == (0.5, 0.5)


def test_wilson_matches_oracle_rate():
    case = GRID["cases"][0]  # n=1, k=0, 0.95
    assert _close(wilson(0, 1)[0], case["attack_rate"][0])
    assert _close(wilson(0, 1)[1], case["attack_rate"][1])


# -- plain rates: a slow reference written from the formulas, in exact fractions where possible


def _reference_compare(km, nm, kc, nc, confidence=0.95):
    """Hand formula: plain rates, Wilson half widths, first-order propagation, clip."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    m, c = Fraction(km) / Fraction(nm), Fraction(kc) / Fraction(nc)

    def half(k, n):
        return z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)

    em, ec = half(km, nm), half(kc, nc)
    risk = float((m - c) / (1 - c))
    err = math.hypot(em / float(1 - c), ec * float(m - 1) / float(1 - c) ** 2)
    clip = lambda x: min(max(x, 0.0), 1.0)  # noqa: E731
    return clip(risk), (clip(risk - err), clip(risk + err)), float(m - c)


@pytest.mark.parametrize("km, nm, kc, nc", [
    (30, 100, 10, 100), (121, 500, 91, 500), (0, 10, 0, 10), (10, 10, 9, 10), (5, 1000, 50, 1000),
    (17, 2000, 5, 1000), (193, 2000, 50, 1000), (1, 3, 2, 3), (46.22, 500, 3.05, 500),
])
def test_compare_to_control_against_hand_reference(km, nm, kc, nc):
    got = compare_to_control(km, nm, kc, nc)
    risk, ci, advantage = _reference_compare(km, nm, kc, nc)
    assert math.isclose(got.risk, risk, rel_tol=1e-12, abs_tol=1e-15)
    assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
               for a, b in zip(got.risk_ci, ci, strict=True))
    assert math.isclose(got.advantage, advantage, rel_tol=1e-12, abs_tol=1e-15)
    assert got.members.rate == km / nm and got.control.rate == kc / nc


def test_rate_interval_is_wilson_score_interval():
    got = compare_to_control(3, 10)
    centre, half = wilson(3, 10)
    assert isinstance(got.members, Rate) and got.members.rate == 0.3
    assert got.members.ci == (centre - half, centre + half)
    assert got.control is None and got.risk is None and got.advantage is None


def test_control_rate_one_is_nan_with_note():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compare_to_control(5, 10, 10, 10)
    assert math.isnan(got.risk) and all(math.isnan(x) for x in got.risk_ci)
    assert "undefined" in got.note and got.advantage == -0.5
    assert any(issubclass(w.category, RuntimeWarning) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "undefined" in compare_to_control(5, 10, 10, 10, warn=False).note


def test_results_are_frozen():
    got = compare_to_control(1, 2, 1, 2)
    assert isinstance(got, ControlComparison)
    with pytest.raises(AttributeError):
        got.risk = 0.5  # type: ignore[misc]
    assert isinstance(anonymeter_results(10, 1, 1), AnonymeterResults)


counts = st.integers(min_value=1, max_value=5000).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n)))


@pytest.mark.filterwarnings("ignore:the control rate is 1:RuntimeWarning")
@settings(max_examples=300, deadline=None)
@given(counts, counts, st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_properties(member, control, confidence):
    (km, nm), (kc, nc) = member, control
    got = compare_to_control(km, nm, kc, nc, confidence=confidence)
    assert math.copysign(1, got.advantage) == math.copysign(1, km / nm - kc / nc) or (
        got.advantage == 0)
    if kc == nc:
        assert math.isnan(got.risk)
        return
    assert 0.0 <= got.risk <= 1.0
    low, high = got.risk_ci
    assert 0.0 <= low <= got.risk <= high <= 1.0
    assert (got.risk > 0) == (got.advantage > 0)
    for rate in (got.members, got.control):
        assert 0.0 <= rate.ci[0] <= rate.rate <= rate.ci[1] <= 1.0
    anon = anonymeter_results((nm, nm, nc), km, 0, kc, confidence)
    value, (alow, ahigh) = anon.risk
    assert 0.0 <= alow <= value <= ahigh <= 1.0
