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
