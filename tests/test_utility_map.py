"""The risk-utility map's table (capkit.utility.release_map) and figure."""

from __future__ import annotations

import numpy as np
import pytest

from capkit import plots, utility
from capkit.errors import CapkitError
from capkit.plots import utility_map


def test_pareto_front_by_brute_force() -> None:
    rng = np.random.default_rng(3)
    risk, bad = rng.integers(0, 6, 40).astype(float), rng.integers(0, 6, 40).astype(float)
    got = utility.pareto_front(risk, bad)
    for i in range(40):  # a point is on the front when no other point dominates it
        dominated = any(risk[j] <= risk[i] and bad[j] <= bad[i]
                        and (risk[j] < risk[i] or bad[j] < bad[i]) for j in range(40))
        assert got[i] == (not dominated)


def test_table_regions_and_front() -> None:
    risk = {"cart": (12.0, 10.0, 14.0), "independent": 1.0, "bootstrap": 40.0,
            "cart_sdc": 6.0, "worse": 13.0}
    s_pmse = {"cart": 2.0, "independent": 250.0, "bootstrap": 1.0, "cart_sdc": 4.0,
              "worse": 5.0}
    t = utility.risk_utility_table(risk, s_pmse, risk_limit=10.0)
    assert list(t.index[t["pareto"]]) == ["cart", "independent", "bootstrap", "cart_sdc"]
    assert t.loc["worse", "region"] == "flagged, useful" and not t.loc["worse", "pareto"]
    assert t.loc["independent", "region"] == "not flagged, not useful"
    assert t.loc["cart_sdc", "region"] == "not flagged and useful"
    assert t.loc["cart", "risk_low"] == 10.0 and np.isnan(t.loc["bootstrap", "risk_low"])
    k = utility.risk_utility_table(risk, {n: -v for n, v in s_pmse.items()},
                                   higher_utility_is_better=True, utility_limit=-10.0)
    assert (k["pareto"] == t["pareto"]).all() and (k["useful"] == t["useful"]).all()
    fig = utility_map.risk_utility_map(t, "releases")
    assert plots.svg_bytes(fig) == plots.svg_bytes(utility_map.risk_utility_map(t, "releases"))


def test_table_refuses_mismatched_releases() -> None:
    with pytest.raises(CapkitError, match="same releases"):
        utility.risk_utility_table({"a": 1.0}, {"b": 2.0})
    with pytest.raises(CapkitError, match="value, low, high"):
        utility.risk_utility_table({"a": (1.0, 2.0)}, {"a": 2.0})
