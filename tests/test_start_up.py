"""The first call in a fresh process: small searches by brute force in numpy give the compiled
kernel's floats and rows, and the entry points import only what a call needs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy
from search_cases import drawn_search

from capkit.distance import _brute, _bylevel
from capkit.distance import squared as _squared
from capkit.distance.nearest import nearest
from capkit.distance.neighbour_risk import entropy
from capkit.distance.neighbours import Encoded, Weights, k_nearest

ROOT = Path(__file__).resolve().parents[1]


def test_brute_force_equals_the_kernel(monkeypatch) -> None:
    rng = np.random.default_rng(20261129)
    for _ in range(60):
        case = drawn_search(rng, rows=120, cat_columns=(0, 1, 3, 5, 18), caps=True)
        assert _brute.usable(len(case["cat_s"]), len(case["cat_r"]), case["num_s"],
                             case["num_r"], case["w_cat"])
        best, arg = nearest(**case)
        with monkeypatch.context() as patch:
            patch.setattr(_brute, "BRUTE_PAIRS", 0)
            kernel_best, kernel_arg = nearest(**case)
        # the same additions in the same order: bit equality, and the same tie rule
        np.testing.assert_array_equal(best, kernel_best)
        np.testing.assert_array_equal(arg, kernel_arg)


def test_every_row_excluded() -> None:
    best, arg = nearest(np.zeros((2, 1), dtype=np.int64), np.zeros((1, 1), dtype=np.int64),
                        np.zeros((2, 1)), np.zeros((1, 1)), np.ones(1),
                        exclude=np.array([[0], [-1]]))
    assert best.tolist() == [np.inf, 0.0]
    assert arg.tolist() == [np.iinfo(np.int64).max, 0]


@pytest.mark.parametrize("self_rule", ["identity", "content"])
def test_k_nearest_in_one_pass_equals_k_searches(monkeypatch, self_rule) -> None:
    # the brute force's one pass against the kernel (the search by level: tests/test_bylevel.py)
    monkeypatch.setattr(_bylevel, "BYLEVEL_PAIRS", 0)
    rng = np.random.default_rng(7)
    for _ in range(30):
        n, m = int(rng.integers(2, 80)), int(rng.integers(1, 80))
        a = Encoded(rng.integers(0, 3, (n, 3)), np.round(rng.random((n, 2)), 1))
        b = Encoded(rng.integers(0, 3, (m, 3)), np.round(rng.random((m, 2)), 1))
        weights = Weights(rng.random(3) + 0.5, rng.random(2) + 0.5)
        for other, same in ((b, False), (a, True)):
            got = k_nearest(a, other, 2, weights=weights, self_rule=self_rule, same=same)
            with monkeypatch.context() as patch:
                patch.setattr(_brute, "BRUTE_PAIRS", 0)
                want = k_nearest(a, other, 2, weights=weights, self_rule=self_rule, same=same)
            np.testing.assert_array_equal(got, want)  # same rows, same formula: same floats


def test_entropy_is_scipys_float() -> None:
    rng = np.random.default_rng(3)
    for _ in range(500):
        n = int(rng.integers(1, 3000))
        counts = rng.integers(1, int(rng.choice([2, 10, 1000, 10**6])), n)
        assert entropy(counts) == scipy_entropy(counts)  # same operations: bit equality


def _imported(code: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join("
                           "sorted(sys.modules)))"], capture_output=True, text=True, env=env,
                          check=True, cwd=ROOT)
    return set(done.stdout.split())


HEAVY = {"numba", "sklearn", "scipy.stats", "scipy.spatial", "lightgbm"}


def test_syntheval_imports_only_what_a_call_needs() -> None:
    code = """
import numpy as np, pandas as pd
from capkit.syntheval import SynthEval
rng = np.random.default_rng(0)
frame = lambda n: pd.DataFrame({"c": rng.choice(["a", "b"], n), "x": rng.random(n)})
se = SynthEval(frame(200), holdout_dataframe=frame(50), cat_cols=["c"])
se.evaluate(frame(200), dcr={}, nndr={}, nnaa={}, hit_rate={}, eps_risk={})
"""
    # nor scipy.sparse (count tables) nor tqdm (progress bars): 0.07 CPU-s of a first call
    assert not (HEAVY | {"scipy.sparse", "tqdm"}) & _imported(code)


def test_domias_compatible_attacks_import_no_numba() -> None:
    code = """
import numpy as np, pandas as pd
from capkit.membership_inference import scores
rng = np.random.default_rng(0)
frame = lambda n: pd.DataFrame({"x": rng.random(n), "y": rng.random(n)})
scores(frame(100), frame(100), frame(100), frame(100), attacks=("gan_leaks", "mc"),
       compat="domias")
"""
    assert not {"numba", "sklearn", "scipy.stats"} & _imported(code)


def test_gan_leaks_first_call_stays_off_the_k_d_tree() -> None:
    """Columns of similar spread (the sums bound little: well over SUMS_PER_ROW candidates a
    query) but under TREE_IMPORT_PAIRS candidate pairs in all: the nearest distance stays on
    the search on sums rather than importing scipy.spatial (about 0.2 CPU-s) for its tree."""
    code = """
import numpy as np, pandas as pd
from capkit.distance import squared
from capkit.membership_inference import scores
rng = np.random.default_rng(0)
frame = lambda n: pd.DataFrame(rng.random((n, 3)), columns=["x", "y", "z"])
members, nonmembers, synthetic = frame(600), frame(600), frame(2500)
x = np.concatenate([members.to_numpy(), nonmembers.to_numpy()])
_, lo, hi = squared._window(x, squared._BySums(x, synthetic.to_numpy()), np.arange(len(x)))
assert (hi - lo).mean() > squared.SUMS_PER_ROW, (hi - lo).mean()
scores(members, nonmembers, synthetic, frame(600), attacks=("gan_leaks",),
       compat="domias", overlap="allow")
"""
    assert "scipy.spatial" not in _imported(code)


def _every_pair(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.vstack([block for _, _, block in _squared._squared_blocks(x, y)])


@pytest.mark.parametrize("pair_batch", [1, 7, 1 << 20])
def test_squared_search_on_sums_equals_every_pair(monkeypatch, pair_batch) -> None:
    """DOMIAS's squared distance: the nearest distance and the counts within the median radius
    (MC) by the search on sums are the floats and integers of a pass over every pair."""
    monkeypatch.setattr(_squared, "PAIR_BATCH", pair_batch)
    rng = np.random.default_rng(11)
    for _ in range(80):
        n, m, p = int(rng.integers(1, 90)), int(rng.integers(1, 90)), int(rng.integers(1, 6))
        scale = float(rng.choice([1.0, 10.0, 1e5]))
        x = np.round(rng.normal(size=(n, p)) * scale, int(rng.integers(0, 3)))
        y = np.round(rng.normal(size=(m, p)) * scale, int(rng.integers(0, 3)))
        if rng.random() < 0.3:  # copies: distance 0 and ties
            y[: m // 2] = x[rng.integers(0, n, m // 2)]
        if rng.random() < 0.2:  # one column dominates the sums (as fnlwgt on Adult)
            x[:, 0] *= 1e6
            y[:, 0] *= 1e6
        pairs = _every_pair(x, y)
        nearest_ = pairs.min(axis=1)
        np.testing.assert_array_equal(_squared.squared_min(x, y), nearest_)
        radius = float(np.median(nearest_))
        want = (pairs < radius).sum(axis=1)
        np.testing.assert_array_equal(_squared.squared_ball_counts(x, y, radius), want)
        np.testing.assert_array_equal(
            _squared.squared_ball_counts(x, y, radius, nearest=nearest_), want)
