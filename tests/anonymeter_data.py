"""Test helpers for the anonymeter conformance tests: where the reference outputs are, and how
to rebuild the Adult members / holdout of ``reference/anonymeter`` from the raw data.

The reference folder holds anonymeter 1.1.0's *outputs* only (its README). The Adult records
themselves (the oracle's ``ori.csv.gz`` / ``control.csv.gz``) are never committed: they are
rebuilt here from :func:`capkit.data.datasets.load_adult` with the oracle's recipe.
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

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "anonymeter"
SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle" / "anonymeter"

#: The 11 columns of the oracle's Adult extract, in its order.
COLUMNS = ["age", "workclass", "education", "marital.status", "occupation", "relationship",
           "race", "sex", "capital.gain", "hours.per.week", "native.country"]
SPLIT_SEED = 20261123
N_COMPLETE = 45222



def results() -> dict:
    """The oracle's results.json (shipped gzipped)."""
    return reference_results("anonymeter")


def read_reference(name: str) -> pd.DataFrame:
    """One of the reference CSV tables, read with pandas defaults (as the oracle README says)
    except that floats are parsed exactly (``float_precision="round_trip"``: pandas' default
    parser can be 1 ulp off, and the distances are compared to the bit)."""
    return pd.read_csv(REFERENCE / name, float_precision="round_trip")


def adult_split(n_members: int = 2000, n_holdout: int = 1000, *, text: bool = True
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The oracle's Adult members and holdout, rebuilt from the raw data.

    Recipe (oracle README): AdultUCI with ``education-num`` dropped and ``-`` in names turned
    into ``.``; the 11 :data:`COLUMNS`; rows with a missing value in them dropped (45,222
    left) and the index reset; ``numpy.random.default_rng(20261123).permutation(45222)``;
    members are the first ``n_members`` positions, the holdout the next ``n_holdout``.

    ``text=True`` returns factors as plain text and integers as int64, as the oracle's CSV files
    read with pandas defaults; ``text=False`` keeps pandas categoricals.
    """
    frame = _complete_adult()
    order = np.random.default_rng(SPLIT_SEED).permutation(N_COMPLETE)
    members = frame.iloc[order[:n_members]].reset_index(drop=True)
    holdout = frame.iloc[order[n_members:n_members + n_holdout]].reset_index(drop=True)
    if text:
        members, holdout = _as_text(members), _as_text(holdout)
    return members, holdout


@lru_cache(maxsize=1)
def _complete_adult() -> pd.DataFrame:
    from capkit import datasets

    adult = datasets.load_adult(SHARED_DATA if (SHARED_DATA / "AdultUCI.rda").is_file()
                                else None, progress=False)
    adult = adult.drop(columns=["education.num"], errors="ignore")[COLUMNS]
    adult = adult.dropna().reset_index(drop=True)
    assert len(adult) == N_COMPLETE, len(adult)
    return adult


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(object)
        else:
            out[column] = out[column].astype("int64")
    return out


def synthetic() -> pd.DataFrame:
    """capkit's synthesis of the members (``syn.csv.gz``, shipped), read with pandas defaults."""
    return read_reference("syn.csv.gz")
