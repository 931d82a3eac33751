"""The overlap test's verdict settled by bounds of the binomial tail (capkit.data.overlap's
module note) is the verdict of scipy's exact p-value, and a check whose bounds decide imports no
scipy.special."""

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
