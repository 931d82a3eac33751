"""The normal quantile of the 95% intervals (capkit.control.Z95): one number, taken from scipy,
the same everywhere, and within one ulp of the true quantile."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

from scipy.stats import norm

from capkit import control
from capkit.audit import utility_family

#: The 0.975 quantile of the standard normal to 21 digits: sqrt(2) erfinv(0.95), computed with
#: mpmath at 50 digits (not by capkit).
TRUE_Z975 = Fraction("1.95996398454005423552")


def test_z95_is_scipys_quantile_and_the_one_every_95_interval_uses() -> None:
    assert control.Z95 == float(norm.ppf(0.975))  # scipy's ndtri, bit for bit
    assert control.Z95 == control.two_sided_z(0.95)  # the z of compare_to_control at 95%
    assert utility_family.Z95 is control.Z95  # the map's intervals: the same number
    # the constant the map used before it was computed: no interval of any output moved
    assert control.Z95 == 1.959963984540054


def test_z95_is_within_one_ulp_of_the_true_quantile() -> None:
    ulp = Fraction(math.ulp(control.Z95))
    assert abs(Fraction(control.Z95) - TRUE_Z975) <= ulp
    # statistics.NormalDist's is further off (nearly three ulps below), so it is not the one taken
    assert abs(Fraction(NormalDist().inv_cdf(0.975)) - TRUE_Z975) > ulp
