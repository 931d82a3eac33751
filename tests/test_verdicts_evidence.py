"""No "review" where there is nothing to review: an attack weaker than guessing on the members
is no evidence (rule C0), and singling out from a handful of queries is not measured."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.audit import audit
from capkit.audit.findings import from_comparison
from capkit.control import compare_to_control


def test_an_attack_below_the_dummy_is_no_evidence() -> None:
    # a k-NN attack right for 73.9% of 12,000 members and 71.6% of the holdout, while the
    # dummy (the most frequent value) is right for 80.4% of the members
    n = 12_000
    control = compare_to_control(8868, n, 2577, 3600, warn=False)  # 73.9% vs 71.6%
    dummy = compare_to_control(8868, n, 9648, n, warn=False)  # 73.9% vs 80.4%
    assert control.advantage_ci[0] > 0  # a clear excess over the holdout, by the numbers
    finding = from_comparison("s", "attack", "knn attack", "t", control, dummy,
                              "dummy predictor")
    assert finding.verdict == "not flagged" and finding.rule.startswith("C0"), finding
    # the same excess over the holdout from an attack that beats the dummy stays judged
    beaten = compare_to_control(8868, n, 7000, n, warn=False)
    judged = from_comparison("s", "attack", "knn attack", "t", control, beaten,
                             "dummy predictor")
    assert judged.verdict == "review" and judged.rule.startswith("C2"), judged


def test_c0_at_its_boundary_equal_to_the_dummy_is_no_evidence() -> None:
    """C0 holds when the members' rate is at most the dummy's: equal rates are no evidence, one
    record more than the dummy's is judged by the holdout (C1-C3)."""
    n = 12_000
    control = compare_to_control(8868, n, 2577, 3600, warn=False)
    for dummy_hits, rule in ((8868, "C0"), (8867, "C2")):
        dummy = compare_to_control(8868, n, dummy_hits, n, warn=False)
        finding = from_comparison("s", "attack", "knn attack", "t", control, dummy,
                                  "dummy predictor")
        assert finding.rule.startswith(rule), (dummy_hits, finding)
    # without a holdout C0 does not apply: the baseline's own rules (B1-B2) judge
    dummy = compare_to_control(8868, n, 8868, n, warn=False)
    alone = from_comparison("s", "attack", "knn attack", "t", None, dummy, "dummy predictor")
    assert alone.rule.startswith("B2"), alone


def _few_unique(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(list("abcd"), n),
                         "job": rng.choice(["a", "b", "c"], n),
                         "smoke": rng.choice(["y", "n"], n)})
    members, holdout = data.iloc[: n // 2], data.iloc[n // 2:]
    # a synthesis of 5 record types, each many times, and 4 records of its own: a handful of
    # synthetic records are unique on any columns (the queries singling out can be made from)
    common = members.iloc[[0, 1, 2, 3, 4]].loc[lambda f: ~f.duplicated()]
    rest = pd.DataFrame({"sex": ["f", "m", "f", "m"], "region": ["a", "b", "c", "d"],
                         "job": ["a", "b", "c", "a"], "smoke": ["y", "y", "n", "n"]})
    rest = rest[~rest.apply(tuple, axis=1).isin(common.apply(tuple, axis=1))]
    synthetic = pd.concat([common.loc[common.index.repeat(200)], rest], ignore_index=True)
    return members, holdout, synthetic


def test_singling_out_from_a_handful_of_queries_is_not_measured() -> None:
    members, holdout, synthetic = _few_unique(2000, 2)
    result = audit(members, {"few": synthetic}, holdout=holdout, keys=["sex", "region"],
                   families=("singling out", "distance"), original_exposure=False,
                   sweep_size=None)
    assert not [f for f in result.findings if f.family == "singling out"], result.findings
    failure = [f for f in result.failures if f.family == "singling out"]
    assert len(failure) == 1
    assert "fewer than 10 queries" in failure[0].reason and "only 3" in failure[0].reason
    assert "not measured" in failure[0].text()


def _survey(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(list("abcd"), n),
                         "age": rng.integers(18, 90, n),
                         "income": np.round(rng.lognormal(10, 0.6, n), -1)})


def test_a_disclosive_summary_line_carries_its_size() -> None:
    """Two 'disclosive' membership findings of very different size read differently in the
    summary line: the risk, the AUC and the TPR at 1% FPR stand beside the family."""
    from capkit.report.custodian import custodian_report

    data = _survey(1600, 7)
    members, holdout = data.iloc[:800].reset_index(drop=True), data.iloc[800:]
    leak = members.sample(frac=1.0, replace=True, random_state=1).reset_index(drop=True)
    result = audit(members, {"bootstrap": leak}, holdout=holdout, keys=["sex", "region"],
                   families=("membership inference",), original_exposure=False,
                   sweep_size=None, workers=1)
    found = [f for f in result.findings if f.family == "membership"]
    assert found and all("AUC" in f.severity and "at FPR 1%" in f.severity for f in found)
    assert any(f.verdict == "disclosive" for f in found)
    report = custodian_report(result, "capkit report", {}, [])
    (line,) = [i for i in report.sections[0].items if i.startswith("bootstrap:")]
    assert "disclosive (membership: risk " in line and "AUC " in line, line
