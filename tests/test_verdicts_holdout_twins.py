"""A holdout holding members: only the shared records in excess of chance are set aside.

In a population of few coarse columns many people share every value with a member (twins). A
real holdout has them at the rate the members' own duplicates predict; setting every shared
record aside would leave a control without its twins, and the members' chance twins in a
synthesis would then read as copies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.audit import audit
from capkit.data.overlap import check_holdout
from capkit.synth.baselines import independent_columns


def _coarse(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                         "region": rng.choice(list("abcdefgh"), n),
                         "age": rng.choice(["18-29", "30-44", "45-64", "65+"], n),
                         "job": rng.choice(["clerk", "nurse", "driver", "cook", "teacher",
                                            "farmer", "baker", "miner"], n),
                         "smoke": rng.choice(["yes", "no"], n, p=[0.3, 0.7]),
                         "kids": rng.choice(10, n, p=[0.3, 0.2, 0.15, 0.1, 0.08, 0.06, 0.05,
                                                      0.03, 0.02, 0.01])})


def _split() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    data = _coarse(5000, 21)
    members, real = data.iloc[:3000].reset_index(drop=True), data.iloc[3000:]
    leaked = members.iloc[:400]  # a split that leaked 400 members into the holdout
    holdout = pd.concat([real, leaked], ignore_index=True)
    return members, real.reset_index(drop=True), holdout


def test_only_the_excess_over_chance_is_set_aside() -> None:
    members, real, holdout = _split()
    real_twins = check_holdout(members, real).overlap.shared  # the real holdout's twins
    checked = check_holdout(members, holdout)
    assert checked.warning is not None and "in excess of chance" in checked.warning
    kept_twins = check_holdout(members, checked.holdout).overlap.shared
    # the rule: the control keeps about the twins a real holdout of its size has. Tolerance:
    # a binomial count of n = 2,000 at p ~ real_twins / 2,000; 4 standard deviations
    p = real_twins / len(real)
    tolerance = 4 * np.sqrt(len(real) * p * (1 - p))
    assert real_twins > 100  # the data do have twins (else the test tests nothing)
    assert abs(kept_twins - real_twins) <= tolerance, (kept_twins, real_twins, tolerance)
    # and the leaked members are gone: the control is about the size of the real holdout
    assert abs(len(checked.holdout) - len(real)) <= tolerance


def test_chance_twins_of_an_independent_synthesis_are_no_copies() -> None:
    members, _, holdout = _split()
    synthetic = independent_columns(members, seed=4)
    result = audit(members, {"independent": synthetic}, holdout=holdout,
                   keys=["sex", "region", "age"], families=("distance",),
                   original_exposure=False, sweep_size=None)
    copies = {f.measure: f for f in result.findings if f.family == "copies"}
    assert copies["exact copies"].verdict == "not flagged", copies["exact copies"]
    assert copies["near copies"].verdict == "not flagged", copies["near copies"]
