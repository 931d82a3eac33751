"""One set of class breaks for members, holdout and synthesis.

A numeric target grouped into classes (``ngroups_target``, the report's grouping of a numeric
target) must be grouped with the breaks of the members and the synthesis in the holdout's run
too: breaks rebuilt from the holdout make the control measure other classes, and a synthesis
whose distribution differs from the original's (hours without its zeros) then looks disclosive
though members and holdout are alike.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.audit import audit
from capkit.disclosure import disclosure, disclosure_summary


def _draw(n: int, seed: int, zeros: bool = True) -> pd.DataFrame:
    """A population model: hours depend on sex and age; 20% of people under 65 and 80% of
    those over work 0 hours (``zeros=False``: a synthesiser that lost the zeros draws every
    record's hours from the working part of the model)."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    region = rng.choice(list("abcdef"), n)
    age = rng.choice(["18-29", "30-44", "45-64", "65+"], n)
    mean = 20 + 10 * (sex == "m") + np.select(
        [age == "18-29", age == "30-44", age == "45-64"], [5, 15, 10], -10)
    worked = np.clip(np.round(rng.normal(mean, 6)), 1, 80)
    works = rng.random(n) > np.where(age == "65+", 0.8, 0.2)
    hours = (np.where(works, worked, 0) if zeros else worked).astype(int)
    return pd.DataFrame({"sex": sex, "region": region, "age": age, "hours": hours})


def _release() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Members (90%) and holdout (10%) split at random from one population; a synthesis drawn
    from the population's model (it saw no member) without the zeros."""
    population = _draw(8000, 1)
    order = np.random.default_rng(3).permutation(len(population))
    members = population.iloc[order[:7200]].reset_index(drop=True)
    holdout = population.iloc[order[7200:]].reset_index(drop=True)
    return members, holdout, _draw(1000, 9, zeros=False)


def test_disclosure_holdout_run_uses_the_members_breaks() -> None:
    members, holdout, synthetic = _release()
    keys = ["sex", "region", "age"]
    res = disclosure(synthetic, members, keys, "hours", ngroups_target=5, holdout=holdout)
    # the same classes in both runs: the holdout's labels are the members' labels
    assert list(res.holdout.cells[0].row_labels) == list(res.cells[0].row_labels)
    control = res.control.set_index("measure")
    # members and holdout are alike: DCAP and DiSCO differ by sampling noise only. The rule
    # is fixed before the values: the risk's interval must reach 0 (no clear excess)
    for measure in ("DiSCO", "DCAP"):
        assert control.loc[measure, "risk_low"] <= 0, control
        assert abs(control.loc[measure, "difference"]) < 3.0, control  # points, noise of 3,000


def test_summary_holdout_run_uses_the_members_breaks() -> None:
    members, holdout, synthetic = _release()
    summary = disclosure_summary(synthetic, members, ["sex", "region", "age"], ["hours"],
                                 ngroups_targets=[5], holdout=holdout)
    row = summary.control.set_index("measure").loc["DCAP"]
    assert row["risk_low"] <= 0 and abs(row["difference"]) < 3.0, summary.control


def test_report_not_disclosive_when_only_the_synthesis_differs() -> None:
    members, holdout, synthetic = _release()
    result = audit(members, {"no zeros": synthetic}, holdout=holdout,
                   keys=["sex", "region", "age"], targets=["hours"],
                   families=("synthpop measures",), original_exposure=False, sweep_size=None)
    attribute = [f for f in result.findings if f.family == "attribute"]
    assert attribute
    assert all(f.verdict == "not flagged" for f in attribute), [
        (f.measure, f.value, f.holdout, f.verdict) for f in attribute]
