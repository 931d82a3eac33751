"""A numeric key shifted by one in an exact copy is a coding difference, whatever the key's
number of values: keys are matched exactly on their combination."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.audit import audit
from capkit.data.coding import mismatches


def _people(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                         "region": rng.choice(list("abcdef"), n),
                         "age": rng.integers(16, 91, n),  # 75 values: "continuous"
                         "job": rng.choice([f"job{i}" for i in range(12)], n)})


def test_a_shifted_continuous_key_is_found() -> None:
    members = _people(2000, 1)
    shifted = members.assign(age=members["age"] + 1)  # an exact copy, age written one up
    found = mismatches(members, shifted, ["sex", "region", "age", "job"],
                       keys=["sex", "region", "age"])
    assert [m.column for m in found] == ["age"], found
    assert found[0].shift == 1 and "shifted by -1" in found[0].text()


def test_a_smoothing_synthesis_is_no_shift() -> None:
    members = _people(2000, 1)
    rng = np.random.default_rng(5)
    noisy = members.assign(age=np.clip(members["age"] + np.round(rng.normal(0, 3, 2000)), 16,
                                       90).astype(int))
    assert mismatches(members, noisy, ["age"], keys=["sex", "region", "age"]) == []
    same = members.sample(frac=1.0, replace=True, random_state=2)  # a bootstrap
    assert mismatches(members, same, ["age"], keys=["sex", "region", "age"]) == []


def test_the_report_does_not_call_the_shifted_copy_safe() -> None:
    members = _people(2000, 1)
    shifted = members.assign(age=members["age"] + 1)
    result = audit(members, {"shifted": shifted}, keys=["sex", "region", "age"],
                   targets=["job"], families=("synthpop measures",), original_exposure=False,
                   sweep_size=None)
    assert any("key 'age' is coded differently" in w for w in result.warnings), result.warnings
    disco = next(f for f in result.findings if f.measure == "DiSCO")
    assert disco.verdict != "not flagged" and "coded differently: age" in disco.detail, disco
