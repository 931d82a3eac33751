"""run_attack(..., keep_records=False) returns the empty frame it built before (the columns,
dtypes and index of ``pd.DataFrame(columns=["observed", "predicted", "correct"])``), a fresh
one per result: changing one result's frame changes no other."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.attacks.attribute import run_attack
from capkit.attacks.grid import prepare


def test_results_without_records_get_a_fresh_empty_frame() -> None:
    rng = np.random.default_rng(0)
    members = pd.DataFrame({"k": rng.integers(0, 3, 40).astype(str),
                            "t": rng.integers(0, 2, 40).astype(str)})
    synthetic = members.sample(frac=1.0, random_state=1).reset_index(drop=True)
    grid = prepare(members, synthetic, ["k"], "t")
    before = pd.DataFrame(columns=["observed", "predicted", "correct"])
    first = run_attack(grid, "cap", keep_records=False).records
    pd.testing.assert_frame_equal(first, before)
    assert first.index.equals(before.index) and type(first.index) is type(before.index)
    first["observed"] = pd.Series(dtype=float)
    first.loc[0] = [1, 2, 3]
    second = run_attack(grid, "gcap", keep_records=False).records
    pd.testing.assert_frame_equal(second, before)
