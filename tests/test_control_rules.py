"""capkit.control's rules at their edges (kills the mutants the rest of the suite let live):
the control counts go together, and the default confidence level is 95%.

Expected values are worked out by hand from the definitions in capkit.control's docstring
(Wilson 1927; Giomi et al. 2022), never taken from the code under test.
"""

from __future__ import annotations

import math

import pytest

from capkit.control import attack_risks, compare_to_control, wilson
from capkit.errors import CapkitError


@pytest.mark.parametrize("kwargs, missing", [
    ({"k_control": 10}, "n_control"), ({"n_control": 100}, "k_control")])
def test_control_counts_go_together(kwargs, missing):
    with pytest.raises(CapkitError, match=f"{missing} is None while the other control count"):
        compare_to_control(30, 100, **kwargs)


def test_default_confidence_is_95_percent():
    z = 1.959963984540054  # the two-sided 95% normal quantile
    centre, half = wilson(30, 100)
    assert centre == pytest.approx((30 + z * z / 2) / (100 + z * z), abs=1e-15)
    assert half == pytest.approx(z / (100 + z * z) * math.sqrt(30 * 70 / 100 + z * z / 4),
                                 abs=1e-15)
    assert compare_to_control(30, 100, 10, 100).confidence == 0.95
    risks = attack_risks(30, 100, 10, 10, 100)
    assert risks.control.confidence == 0.95 and risks.baseline.confidence == 0.95
    assert risks.anonymeter.confidence_level == 0.95


def test_attack_risks_headline_and_baseline():
    """The headline is the control's risk with a control, the baseline's without one,
    anonymeter's when asked; the baseline is compared with k_against_baseline when given."""
    with_control = attack_risks(30, 100, 10, 10, 100)
    assert with_control.reference == "control"
    assert (with_control.risk, with_control.risk_ci) == (with_control.control.risk,
                                                          with_control.control.risk_ci)
    # (0.3 - 0.1) / (1 - 0.1): the members' rate against the control's
    assert with_control.risk == pytest.approx(0.2 / 0.9, abs=1e-15)
    without = attack_risks(30, 100, 20)
    assert without.reference == "baseline" and without.control.control is None
    assert without.risk == pytest.approx(0.1 / 0.8, abs=1e-15)  # (0.3 - 0.2) / (1 - 0.2)
    anon = attack_risks(30, 100, 10, 10, 100, anonymeter_headline=True)
    assert anon.reference == "anonymeter" and anon.risk == anon.anonymeter.risk[0]
    against = attack_risks(30, 100, 20, k_against_baseline=40)
    assert against.baseline.members.k == 40 and against.control.members.k == 30
    assert against.risk == pytest.approx(0.2 / 0.8, abs=1e-15)  # (0.4 - 0.2) / (1 - 0.2)


def _wilson_interval(k, n, z=1.959963984540054):
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    return max(centre - half, 0.0), min(centre + half, 1.0)


@pytest.mark.parametrize("k1, n1, k2, n2", [(30, 100, 10, 100), (3, 40, 19, 25), (99, 100, 1, 7)])
def test_advantage_interval_is_newcombes(k1, n1, k2, n2):
    """Newcombe (1998), method 10, from the Wilson intervals written out here."""
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = _wilson_interval(k1, n1), _wilson_interval(k2, n2)
    low = p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    got = compare_to_control(k1, n1, k2, n2).advantage_ci
    assert got == pytest.approx((low, high), abs=1e-12)  # a few float operations apart


def test_attack_risks_warns_only_without_a_control():
    """The baseline comparison warns about an undefined risk (baseline rate 1) only when it is
    the headline, i.e. without a control."""
    with pytest.warns(RuntimeWarning, match="control rate is 1"):
        attack_risks(30, 100, 100)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        risks = attack_risks(30, 100, 100, 10, 100)
    assert math.isnan(risks.baseline.risk) and risks.reference == "control"


def test_attack_risks_passes_anonymeter_its_attack_counts():
    assert attack_risks(30, 100, 10, n_baseline_attacks=50).anonymeter.n_attacks == (100, 50, 100)
    assert attack_risks(30, 100, 10, 10, 80).anonymeter.n_attacks == (100, 100, 80)
    anon = attack_risks(30, 100, 10, 10, 100, anonymeter_headline=True)
    assert (anon.risk, anon.risk_ci) == (anon.anonymeter.risk[0], anon.anonymeter.risk[1])
