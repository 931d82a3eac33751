"""Test helpers for the DOMIAS conformance tests: the shipped domias 0.0.5 outputs, and the
oracle's inputs rebuilt from Adult (no Adult record is committed; ``reference/domias/README.md``).

Recipe (``results.json`` -> ``inputs`` and ``cases.<id>.recipe``): the six numeric Adult
columns as float64; ``real = X[numpy.random.default_rng(20261126).permutation(48842)[:4000]]``
(members, non-members, reference by position: 1,000 / 1,000 / 2,000); the synthetic sets drawn
from the members with ``numpy.random.default_rng(seed)`` as the recipe's text says; the "z"
cases standardised with the stored mean and population sd of the 4,000 real rows.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from reference_data import SHARED_DATA, have_adult, reference_results  # noqa: F401

SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle" / "domias"


def results() -> dict:
    """The trimmed oracle results (``reference/domias/results.json.gz``)."""
    return reference_results("domias")


@lru_cache(maxsize=1)
def _real_raw() -> np.ndarray:
    from capkit import datasets

    inputs = results()["inputs"]["adult"]
    adult = datasets.load_adult(SHARED_DATA / "AdultUCI.rda"
                                if (SHARED_DATA / "AdultUCI.rda").is_file() else None,
                                progress=False)
    x = adult[inputs["columns"]].to_numpy(dtype=np.float64)
    assert len(x) == inputs["n_pool"], len(x)
    perm = np.random.default_rng(inputs["split_seed"]).permutation(inputs["n_pool"])
    return np.ascontiguousarray(x[perm[:4000]])


def _synthetic_raw(kind: str, seed: int, members: np.ndarray, n: int = 2000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n_mem, d = members.shape
    if kind == "bootnoise":
        idx = rng.integers(0, n_mem, size=n)
        noise = rng.normal(0.0, 1.0, size=(n, d))
        return members[idx] + noise * (0.01 * members.std(axis=0))
    if kind == "gaussian":
        return rng.multivariate_normal(members.mean(axis=0), np.cov(members, rowvar=False),
                                       size=n)
    if kind == "leaky":
        n_copy = round(0.2 * n)
        copies = members[rng.choice(n_mem, size=n_copy, replace=False)]
        rest = rng.multivariate_normal(members.mean(axis=0), np.cov(members, rowvar=False),
                                       size=n - n_copy)
        return np.concatenate([copies, rest])[rng.permutation(n)]
    raise ValueError(kind)


def case_inputs(case_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(members, non-members, synthetic, reference) of one oracle case, C-ordered float64."""
    info = results()
    case = info["cases"][case_id]
    real = _real_raw()
    members = real[:1000]
    synthetic = _synthetic_raw(case["recipe"]["kind"], case["recipe"]["seed"], members)
    if case["scale"] == "z":
        mean = np.array(info["inputs"]["adult"]["real_mean"])
        sd = np.array(info["inputs"]["adult"]["real_sd"])
        real = (real - mean) / sd
        synthetic = (synthetic - mean) / sd
    return tuple(np.ascontiguousarray(a) for a in
                 (real[:1000], real[1000:2000], synthetic, real[2000:]))
