"""Every verdict rule of the custodian's report (capkit.audit.verdicts) pinned at its boundary.

Each rule is tested on both sides of its threshold, at the threshold itself (where the rule
says "at least" the boundary value belongs to the severer level), and with the undefined inputs
(None, NaN). The expected levels are read from the rule texts of ``docs/custodian-report.md``
(and the module's docstring), not from the code: moving a threshold (B1's 0.05 to any other
value, B4's 5% to 10%, C2's 1 in 100) or turning an "at least" into "more than" fails a test here.
"""

from __future__ import annotations

import math

import pytest

from capkit.audit import verdicts as v
from capkit.control import ControlComparison, Rate

NAN = float("nan")


def comparison(advantage, advantage_low, risk=0.5, risk_low=0.5):
    """A comparison with the numbers the rules read; the rates themselves are not read."""
    rate = Rate(k=1, n=2, rate=0.5, ci=(0.0, 1.0))
    return ControlComparison(
        members=rate, control=rate, risk=risk,
        risk_ci=None if risk_low is None else (risk_low, 1.0),
        advantage=advantage, confidence=0.95,
        advantage_ci=None if advantage_low is None else (advantage_low, 1.0))


def test_thresholds_are_the_documented_ones():
    """The numbers the rule texts print (docs/custodian-report.md)."""
    assert v.RISK_DISCLOSIVE == 0.05
    assert v.ADVANTAGE_DISCLOSIVE == 0.05
    assert v.ADVANTAGE_REVIEW == 0.01
    assert v.DISCO_REVIEW == 5.0
    assert v.LEVELS == ("disclosive", "review", "not flagged", "not measured")
    assert v.FLAGGED == ("disclosive", "review")
    assert v.PRECEDENCE == ("M1", "C0", "own rule")


# --- B1 / B2: a rate against its no-information baseline, no holdout ---------------------

@pytest.mark.parametrize("risk_low, level, rule", [
    (0.05, "review", "B1"),          # at the threshold: "at least 0.05"
    (0.0500001, "review", "B1"),
    (0.9, "review", "B1"),
    (0.0499999, "not flagged", "B2"),
    (0.01, "not flagged", "B2"),     # above 0 but below 0.05: a `> 0` rule would flag it
    (0.0, "not flagged", "B2"),
    (-0.2, "not flagged", "B2"),
    (None, "not flagged", "B2"),
    (NAN, "not flagged", "B2"),
])
def test_b1_b2_against_baseline(risk_low, level, rule):
    verdict = v.against_baseline(risk_low, "attribute")
    assert (verdict.level, verdict.rule) == (level, rule)
    assert (verdict.action == "") == (level == "not flagged")
    if level != "not flagged":
        assert verdict.action == v.ACTIONS["attribute"]


# --- B4: DiSCO without a holdout ----------------------------------------------------------

@pytest.mark.parametrize("disco, level, rule", [
    (5.0, "review", "B4"),           # "at least 5%"
    (5.0001, "review", "B4"),
    (9.99, "review", "B4"),          # a 10% threshold would not flag it
    (100.0, "review", "B4"),
    (4.9999, "not flagged", "B2"),
    (0.0, "not flagged", "B2"),
    (NAN, "not flagged", "B2"),
])
def test_b4_disco_without_control(disco, level, rule):
    verdict = v.disco_without_control(disco)
    assert (verdict.level, verdict.rule) == (level, rule)
    assert verdict.action == ("" if level == "not flagged" else v.ACTIONS["attribute"])


# --- K1 / K2: synthpop's 1-way / 2-way checks ---------------------------------------------

@pytest.mark.parametrize("flagged, level, rule", [
    (0, "not flagged", "K2"), (1, "review", "K1"), (7, "review", "K1")])
def test_k1_k2_checks(flagged, level, rule):
    verdict = v.checks(flagged)
    assert (verdict.level, verdict.rule) == (level, rule)


# --- C1 / C2 / C3: members against a holdout ----------------------------------------------

@pytest.mark.parametrize("advantage, low, risk_low, family, level, rule", [
    # C1: clear (lower bound > 0), advantage >= 0.05 and the risk's lower bound >= 0.05
    (0.05, 1e-9, 0.05, "attribute", "disclosive", "C1"),         # every "at least" at its bound
    (0.30, 0.20, 0.40, "attribute", "disclosive", "C1"),
    (0.0499999, 1e-9, 0.40, "attribute", "review", "C2"),        # advantage just short of C1
    (0.30, 0.20, 0.0499999, "attribute", "review", "C2"),        # risk bound just short of C1
    (0.30, 0.0, 0.40, "attribute", "review", "C2"),              # not clear (bound 0): undecided
    (0.30, -0.01, 0.40, "attribute", "review", "C2"),
    # C2 for a clear excess: at least 1 record in 100
    (0.01, 1e-9, 0.0, "attribute", "review", "C2"),
    (0.0099999, 1e-9, 0.0, "attribute", "not flagged", "C3"),
    # undecided (interval reaching 0): review only from an advantage of 5 in 100
    (0.05, 0.0, 0.0, "attribute", "review", "C2"),
    (0.0499999, 0.0, 0.0, "attribute", "not flagged", "C3"),
    (0.0499999, -0.3, 0.0, "attribute", "not flagged", "C3"),
    # copies: any clear excess needs review
    (0.0001, 1e-9, 0.0, "copies", "review", "C2"),
    (0.0001, 0.0, 0.0, "copies", "not flagged", "C3"),
    (0.0, 1e-9, 0.0, "copies", "not flagged", "C3"),              # no excess at all
    # members doing worse than the holdout
    (-0.2, -0.3, 0.0, "attribute", "not flagged", "C3"),
])
def test_c1_c3_against_control(advantage, low, risk_low, family, level, rule):
    verdict = v.against_control(comparison(advantage, low, risk_low=risk_low), family)
    assert (verdict.level, verdict.rule) == (level, rule)
    assert verdict.action == ("" if level == "not flagged" else v.ACTIONS[family])


@pytest.mark.parametrize("kwargs", [
    {"advantage": NAN, "advantage_low": 0.2},
    {"advantage": None, "advantage_low": 0.2},
    {"advantage": 0.3, "advantage_low": None},
    {"advantage": 0.3, "advantage_low": 0.2, "risk": NAN},
    {"advantage": 0.3, "advantage_low": 0.2, "risk": None},
    {"advantage": 0.3, "advantage_low": 0.2, "risk_low": None},
    {"advantage": 0.3, "advantage_low": 0.2, "risk_low": NAN},
])
def test_c3_when_a_number_is_undefined(kwargs):
    """An undefined risk (a holdout rate of 100%) or missing interval can only be not flagged."""
    verdict = v.against_control(comparison(**kwargs), "attribute")
    assert (verdict.level, verdict.rule) == ("not flagged", "C3")


# --- D1 / D2 / D3: exact copies against the data's own duplicates -------------------------

@pytest.mark.parametrize("advantage, low, risk_low, level, rule", [
    (0.05, 1e-9, 0.05, "disclosive", "D1"),
    (0.0499999, 1e-9, 0.05, "review", "D2"),
    (0.0001, 1e-9, 0.0, "review", "D2"),          # any clear excess of copies
    (0.0001, 0.0, 0.0, "not flagged", "D3"),
    (-0.01, -0.02, 0.0, "not flagged", "D3"),
])
def test_d1_d3_against_duplicates(advantage, low, risk_low, level, rule):
    verdict = v.against_duplicates(comparison(advantage, low, risk_low=risk_low))
    assert (verdict.level, verdict.rule) == (level, rule)
    assert verdict.action == ("" if level == "not flagged" else v.ACTIONS["copies"])


# --- M1, N0, the order of levels, the rule texts ------------------------------------------

def test_m1_n0_and_rule_texts():
    m1 = v.coding_differs("identity")
    assert (m1.level, m1.rule) == ("not measured", "M1")
    assert "recode" in m1.action
    n0 = v.not_judged("identity")
    assert (n0.level, n0.rule, n0.action) == ("not flagged", "N0", "")
    assert m1.rule_text == "M1: " + v.RULES["M1"]
    assert set(v.RULES) == {"C0", "C1", "C2", "C3", "B1", "B2", "D1", "D2", "D3", "B4", "K1",
                            "K2", "N0", "M1"}
    assert "0.05" in v.RULES["B1"] and "5%" in v.RULES["B4"]


# --- the order of the rules: M1, then C0, then the measure's own rule ---------------------

OWN = {"disclosive": v.against_control(comparison(0.30, 0.20, risk_low=0.40), "attack"),
       "review": v.against_control(comparison(0.02, 1e-9, risk_low=0.0), "attack"),
       "not flagged": v.against_control(comparison(0.0, -0.1, risk_low=0.0), "attack"),
       "B4": v.disco_without_control(7.0), "N0": v.not_judged("attack")}


@pytest.mark.parametrize("own, weak, coded, level, rule", [
    # nothing else applies: the measure's own rule
    ("disclosive", False, False, "disclosive", "C1"),
    ("review", False, False, "review", "C2"),
    ("not flagged", False, False, "not flagged", "C3"),
    ("B4", False, False, "review", "B4"),
    # C0 beats the measure's rule whatever it says
    ("disclosive", True, False, "not flagged", "C0"),
    ("review", True, False, "not flagged", "C0"),
    ("not flagged", True, False, "not flagged", "C0"),
    # M1 beats C0 and every 'not flagged', never a finding of disclosure, never says review
    ("not flagged", False, True, "not measured", "M1"),
    ("N0", False, True, "not measured", "M1"),
    ("not flagged", True, True, "not measured", "M1"),
    ("review", True, True, "not measured", "M1"),     # C0 first takes the review away
    ("disclosive", False, True, "disclosive", "C1"),   # coding only hides matches
    ("review", False, True, "review", "C2"),
    ("B4", False, True, "review", "B4"),
])
def test_precedence_m1_then_c0_then_own_rule(own, weak, coded, level, rule):
    verdict = v.decide(OWN[own], "attack", weaker_than_baseline=weak, coded_differently=coded)
    assert (verdict.level, verdict.rule) == (level, rule)
    assert verdict.level != "review" or rule != "M1"



@pytest.mark.parametrize("order, level, rule", [
    # the case: an attack weaker than its baseline on a column coded differently whose own
    # rule says disclosive; each order of the rules gives the first applying rule's verdict
    (("M1", "C0", "own rule"), "not measured", "M1"),  # C0 takes the finding away, M1 says so
    (("C0", "M1", "own rule"), "not flagged", "C0"),
    (("own rule", "M1", "C0"), "disclosive", "C1"),
    (("M1", "own rule", "C0"), "disclosive", "C1"),    # disclosure found: M1 does not apply
])
def test_decide_follows_the_order_of_precedence(monkeypatch, order, level, rule):
    """decide reads PRECEDENCE: another order of the rules gives another verdict."""
    monkeypatch.setattr(v, "PRECEDENCE", order)
    verdict = v.decide(OWN["disclosive"], "attack", weaker_than_baseline=True,
                       coded_differently=True)
    assert (verdict.level, verdict.rule) == (level, rule)
    # a case where only C0 and the own rule apply: their order decides
    verdict = v.decide(OWN["review"], "attack", weaker_than_baseline=True)
    want = ("review", "C2") if order.index("own rule") < order.index("C0") else \
        ("not flagged", "C0")
    assert (verdict.level, verdict.rule) == want


@pytest.mark.parametrize("order", [("M1", "C0"), ("M1", "C0", "own rule", "C0"),
                                   ("M1", "C0", "C9")])
def test_decide_refuses_a_precedence_without_every_rule(monkeypatch, order):
    monkeypatch.setattr(v, "PRECEDENCE", order)
    with pytest.raises(v.CapkitError, match="PRECEDENCE"):
        v.decide(OWN["review"], "attack")

@pytest.mark.parametrize("levels, most", [
    (["not measured"], "not measured"),
    (["not measured", "not flagged"], "not flagged"),
    (["not measured", "review"], "review"),
    ([], "not flagged"),
    (["not flagged"], "not flagged"),
    (["not flagged", "review"], "review"),
    (["review", "disclosive", "not flagged"], "disclosive"),
    (["disclosive"], "disclosive"),
    (["review", "review"], "review"),
])
def test_worst(levels, most):
    assert v.worst(levels) == most


def test_finite():
    assert v._finite(0.0) and v._finite(1) and not v._finite(None) and not v._finite(math.nan)


@pytest.mark.parametrize("level, state", [("disclosive", "flagged"), ("review", "flagged"),
                                          ("not flagged", "not flagged"),
                                          ("not measured", "not measured")])
def test_flag_not_measured_is_neither(level, state):
    assert v.flag(level) == state and state in v.FLAG_STATES


def test_flag_refuses_an_unknown_level():
    with pytest.raises(v.CapkitError, match="verdict level"):
        v.flag("flagged")
