"""The order of the verdict rules on every path: M1 (not measured, keys coded differently) over
C0 (no better than the no-information baseline) over the measure's own rule, on frames built
here. A coding difference never turns a finding into 'review'."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.audit import audit
from capkit.audit.findings import coding_caveat, from_percents, message


def test_c0_is_for_attacks_scored_beside_their_dummy_not_for_cap() -> None:
    """C0 judges an attack against its dummy scored on the same members (k-NN, singling out,
    linkability). CAP's baseCAPd is synthpop's own quantity over every record, where a key
    combination the synthesis lacks is a miss: DCAP 30.1% of 1,400 members against the
    holdout's 15.3% of 600 is disclosive even below a baseCAPd of 40% (SD2011's CART)."""
    f = from_percents("s", "attribute", "DCAP (CAP v1)", "t", 30.1, 1400, 15.3, 600,
                      baseline=40.0, baseline_name="baseCAPd")
    assert (f.verdict, f.rule[:2]) == ("disclosive", "C1")
    assert f.baseline == 40.0


def test_coding_caveat_gives_not_measured_never_review() -> None:
    weak = from_percents("s", "attribute", "DCAP (CAP v1)", "t", 76.4, 2000, 76.3, 800,
                         baseline=98.8, baseline_name="baseCAPd")
    none = from_percents("s", "attribute", "DiSCO", "t", 0.0, 2000, 0.0, 800)
    leak = from_percents("s", "attribute", "DiSCO", "t", 30.0, 2000, 3.0, 800)
    for f in (weak, none):
        said = coding_caveat(f, ["k1"])
        assert (said.verdict, said.rule[:2]) == ("not measured", "M1")
        assert message(said).endswith(": not measured: keys or target coded differently (k1)")
    kept = coding_caveat(leak, ["k1"])
    assert (kept.verdict, kept.rule[:2]) == ("disclosive", "C1")
    assert "coded differently: k1" in kept.detail


def _survey(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.choice([17.5, 22.0, 27.0, 32.0, 37.0, 42.0], n)
    kids = rng.integers(0, 4, n).astype(float)
    rating = np.clip(np.round(1 + 0.08 * (age - 17.5) + rng.normal(0, 1, n)), 1, 5)
    return pd.DataFrame({"age": age, "kids": kids, "rating": rating,
                         "job": rng.integers(1, 7, n).astype(float)})


def _off_grid_audit():
    """A GaussianCopula-like release audited: the members' codes plus a little noise written to
    one decimal (ages 25.1 where the original has the classes 17.5, 22, 27...)."""
    data = _survey(1500, 3)
    members, holdout = data.iloc[:1000].reset_index(drop=True), data.iloc[1000:]
    rng = np.random.default_rng(4)
    smooth = members.sample(frac=1.0, random_state=5).reset_index(drop=True)
    smooth = (smooth + rng.normal(0, 1.5, smooth.shape)).round(1)
    return audit(members, {"gc": smooth}, holdout=holdout, keys=["age", "kids"],
                 targets=["rating", "job"], families=["synthpop measures"])


def test_codes_written_off_their_grid_are_not_measured_not_review() -> None:
    """A GaussianCopula-like release: the members' codes plus a little noise written to one
    decimal (ages 25.1 where the original has the classes 17.5, 22, 27...). Every exact-match
    finding that finds nothing reads 'not measured' with its reason; none is 'review'."""
    result = _off_grid_audit()
    coded = [f for f in result.findings if "coded differently" in f.detail]
    assert coded, result.findings
    assert not [f for f in coded if f.rule.startswith("M1") and f.verdict != "not measured"]
    assert any(f.verdict == "not measured" for f in coded)
    assert "not measured" in result.verdicts().columns


def test_the_summary_line_does_not_let_not_measured_pass_as_not_flagged() -> None:
    """With nothing flagged and findings not measured, the verdict line says so loudly: a
    custodian must not read 'worst: not flagged' and skip the count before it."""
    from capkit.report.custodian import _verdict_section

    result = _off_grid_audit()
    row = result.verdicts().loc["gc"]
    (line,) = _verdict_section(result).items
    assert row["disclosive"] + row["review"] == 0 and row["not measured"] > 0, row
    assert f"{row['not measured']} NOT MEASURED (coded differently)" in line
    assert line.endswith("worst: not flagged among the measured findings only")


def test_membership_size_reads_the_tpr_against_chance() -> None:
    """A 'disclosive' membership finding at TPR 0.0% at FPR 1% (CART on a table with many
    natural twins) says in words that no member is picked out with confidence; one at 2.1%
    says it is 2.1 times chance (a guess flags members as often as non-members)."""
    from capkit.audit.membership_family import membership_size

    weak = membership_size(0.575, 0.0)
    assert weak.startswith("AUC 0.575, TPR 0.0% at FPR 1%")
    assert "no better than chance" in weak and "no member picked out" in weak
    assert "no better than chance" in membership_size(0.6, 0.01)  # TPR = FPR: chance itself
    strong = membership_size(0.756, 0.021)
    assert strong == "AUC 0.756, TPR 2.1% at FPR 1% (2.1x chance)"
    assert membership_size(0.5, float("nan")) == "AUC 0.500, TPR nan% at FPR 1%"
