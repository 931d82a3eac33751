"""The overlap test's verdict settled by bounds of the binomial tail (capkit.data.overlap's
module note) is the verdict of scipy's exact p-value, a check whose bounds decide imports no
scipy.special, and the numeric columns' groups count as the frame's groupby."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import bdtrc

from capkit.data import overlap
from capkit.data.overlap import ALPHA, _tail_decided, record_overlap


def test_bounds_give_scipys_verdict() -> None:
    rng = np.random.default_rng(20261129)
    decided = undecided = 0
    for n in (1, 2, 5, 30, 300, 3_000, 100_000, 2_000_000):
        for p in (1e-6, 1e-4, 0.004, 0.05, 0.3, 0.7, 0.999):
            mean = n * p
            # every count near the mean and around the ALPHA boundary, and drawn ones
            spread = int(8 * np.sqrt(mean * (1 - p)) + 12)
            ks = set(range(max(0, int(mean) - spread), min(n, int(mean) + spread) + 1))
            ks |= {int(k) for k in rng.integers(0, n + 1, 40)} | {0, 1, n}
            for k in sorted(ks):
                verdict = _tail_decided(k, n, p)
                exact = float(bdtrc(k - 1, n, p)) < ALPHA if k > 0 else False
                if verdict is None:
                    undecided += 1
                else:
                    decided += 1
                    assert verdict == exact, (k, n, p)
    # the bounds settle most counts (else they would save nothing)
    assert decided > 10 * undecided


def test_excess_and_p_value_as_scipys() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        n_m, n_o = int(rng.integers(5, 400)), int(rng.integers(1, 400))
        levels = int(rng.integers(1, 30))
        members = pd.DataFrame({"a": rng.integers(0, levels, n_m), "b": rng.integers(0, 2, n_m)})
        other = pd.DataFrame({"a": rng.integers(0, levels, n_o), "b": rng.integers(0, 2, n_o)})
        if rng.random() < 0.3:  # a file holding members
            other = pd.concat([other, members.iloc[: n_m // 2]], ignore_index=True)
            n_o = len(other)
        found = record_overlap(members, other)
        p0 = (found.member_duplicates + 0.5) / (n_m + 1)
        exact = float(bdtrc(found.shared - 1, n_o, p0)) if found.shared else 1.0
        assert found.p_value == exact  # the same float, computed when read
        assert found.excess == (exact < ALPHA)
        assert found.expected == n_o * p0


def test_decided_overlap_imports_no_scipy_special() -> None:
    code = """
import numpy as np, pandas as pd
from capkit.data.overlap import record_overlap
rng = np.random.default_rng(0)
frame = lambda n: pd.DataFrame({"x": rng.integers(0, 40, n), "y": rng.integers(0, 3, n)})
found = record_overlap(frame(3000), frame(3000))
assert found.shared > found.expected and not found.excess
"""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join("
                           "sorted(sys.modules)))"], capture_output=True, text=True, env=env,
                          check=True)
    assert "scipy.special" not in done.stdout.split()
    assert overlap.ALPHA < 0.5  # the median rule's verdict needs it


def test_numeric_groups_count_as_groupby(monkeypatch) -> None:
    rng = np.random.default_rng(11)

    def column(kind: str, n: int) -> np.ndarray:
        if kind == "f":
            values = rng.choice([0.0, -0.0, 1.5, np.nan, 2.0, 1e300, -np.inf], n)
        elif kind == "f32":
            values = rng.choice([0.0, -0.0, 0.1, np.nan], n).astype(np.float32)
        elif kind == "i":
            values = rng.integers(-2, 3, n)
        elif kind == "u":
            values = rng.integers(0, 3, n).astype(np.uint8)
        else:
            values = rng.random(n) < 0.5
        return values

    for _ in range(60):
        kinds = list(rng.choice(["f", "f32", "i", "u", "b"], int(rng.integers(1, 5))))
        n_m, n_o = int(rng.integers(0, 300)), int(rng.integers(0, 300))
        members = pd.DataFrame({f"c{i}": column(k, n_m) for i, k in enumerate(kinds)})
        other = pd.DataFrame({f"c{i}": column(k, n_o) for i, k in enumerate(kinds)})
        if n_m and rng.random() < 0.5:
            other = pd.concat([other, members.iloc[: n_m // 3]], ignore_index=True)
        if len(members) == 0 and len(other) == 0:
            continue
        fast = record_overlap(members, other)
        with monkeypatch.context() as patch:
            patch.setattr(overlap, "_numeric_groups", lambda *args: None)
            slow = record_overlap(members, other)
        assert (fast.shared, fast.member_duplicates, fast.expected) == (
            slow.shared, slow.member_duplicates, slow.expected)
        np.testing.assert_array_equal(fast.is_shared, slow.is_shared)
        np.testing.assert_array_equal(fast.member_count, slow.member_count)
    # other types, or a column of another type in one frame, take the frame's groupby
    assert overlap._numeric_groups(pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [1.0]}),
                                   ["a"]) is None
    assert overlap._numeric_groups(pd.DataFrame({"a": ["x"]}), pd.DataFrame({"a": ["x"]}),
                                   ["a"]) is None
