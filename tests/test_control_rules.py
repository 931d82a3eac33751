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
