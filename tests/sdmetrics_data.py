"""Test helpers for the SDMetrics conformance tests: where the reference outputs are, and how to
rebuild the Adult members / holdout of ``reference/sdmetrics`` from the raw data.

The reference folder holds SDMetrics 0.32.0's *outputs* and capkit's synthesis only (its
README). The Adult records themselves (the oracle's ``members.csv.gz`` / ``holdout.csv.gz``)
are never committed: they are rebuilt here from :func:`capkit.datasets.load_adult` with the
oracle's recipe.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from reference_data import (  # re-exported for the tests
    SHARED_DATA as SHARED_DATA,
)
from reference_data import (
    have_adult as have_adult,
)
from reference_data import (
    reference_results as reference_results,
)

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "sdmetrics"
SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle" / "sdmetrics"

#: The 12 columns of the oracle's Adult extract, in its order.
COLUMNS = ["age", "workclass", "fnlwgt", "education", "marital.status", "occupation",
           "relationship", "race", "sex", "capital.gain", "hours.per.week", "income"]
NUMERIC = ["age", "fnlwgt", "capital.gain", "hours.per.week"]
SPLIT_SEED = 20261123
N_POOL = 30718



def results() -> dict:
    """The oracle's results.json (shipped gzipped)."""
    return reference_results("sdmetrics")


def read_csv(path: Path) -> pd.DataFrame:
    """Read one of the oracle's CSV files as its README says: only "" is missing, numeric
    columns int64, the others text."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


@lru_cache(maxsize=1)
def _split() -> tuple[pd.DataFrame, pd.DataFrame]:
    from capkit import datasets

    adult = datasets.load_adult(SHARED_DATA / "AdultUCI.rda"
                                if (SHARED_DATA / "AdultUCI.rda").is_file() else None,
                                progress=False)
    pool = adult[COLUMNS].dropna().reset_index(drop=True)
    assert len(pool) == N_POOL, len(pool)
    for column in pool.columns:
        kind = "int64" if column in NUMERIC else object
        pool[column] = pool[column].astype(kind)
    order = np.random.default_rng(SPLIT_SEED).permutation(N_POOL)
    members = pool.iloc[order[:2000]].reset_index(drop=True)
    holdout = pool.iloc[order[2000:3000]].reset_index(drop=True)
    return members, holdout


def adult_split() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The oracle's Adult members (``real``) and holdout (``holdout``), rebuilt from raw data.

    Recipe (oracle README): AdultUCI (``-`` in names turned into ``.``), the 12
    :data:`COLUMNS`; rows with a missing value in them dropped (30,718 left: income is missing
    for the UCI test rows) and the index reset;
    ``numpy.random.default_rng(20261123).permutation(30718)``; members are the first 2,000
    positions, the holdout the next 1,000. Numeric columns int64, the others text (what the
    oracle's CSV files give). Fresh copies on every call.
    """
    members, holdout = _split()
    return members.copy(), holdout.copy()


def synthetic() -> pd.DataFrame:
    """capkit's synthesis of the members (``synthetic.csv.gz``, shipped), as the oracle read it."""
    return read_csv(REFERENCE / "synthetic.csv.gz")


def metadata() -> dict:
    """``meta`` of the oracle's calls: numerical for the int columns, categorical otherwise."""
    return {"columns": {c: {"sdtype": "numerical" if c in NUMERIC else "categorical"}
                        for c in COLUMNS}}


def as_float(text: object) -> object:
    """A result of results.json back to numbers: floats from their repr, dicts recursively."""
    if isinstance(text, dict):
        return {k: as_float(v) for k, v in text.items()}
    try:
        return float(text)
    except (TypeError, ValueError):
        return text
