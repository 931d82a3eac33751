"""Test helpers for the SynthEval 1.7.3 conformance tests: the shipped outputs, and the oracle's
real / holdout / synthetic tables rebuilt from the Adult data.

``reference/syntheval/results.json.gz`` holds SynthEval's outputs only (its README). The three
tables it was computed on are Adult records (real, holdout) or made from them (the syntheses):
none is committed; :func:`tables` rebuilds them with the oracle's recipe
(``shared/oracle/syntheval/README.md``), and ``tests/test_syntheval_oracle.py`` checks the
rebuilt tables against the oracle's CSV files when they are beside the clone.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from reference_data import SHARED_DATA as SHARED_DATA
from reference_data import have_adult as have_adult
from reference_data import reference_results

SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle" / "syntheval"
COLUMNS = ["age", "workclass", "education", "marital.status", "occupation", "race", "sex",
           "capital.gain", "hours.per.week", "income"]
CAT_COLS = ["workclass", "education", "marital.status", "occupation", "race", "sex", "income"]
NUMERIC = ["age", "capital.gain", "hours.per.week"]
SPLIT_SEED = 20261125
N_POOL = 30718
CASES = ("bootnoise", "indep", "leaky")


def results() -> dict:
    """SynthEval's recorded calls and outputs (``reference/syntheval/results.json.gz``)."""
    return reference_results("syntheval")


def read_csv(path: Path) -> pd.DataFrame:
    """An oracle CSV as its README says (exact floats with pandas < 3 need round_trip)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""],
                       float_precision="round_trip")


def _independent(real: pd.DataFrame, rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame({c: rng.choice(real[c].to_numpy(), n, replace=True) for c in COLUMNS})


@lru_cache(maxsize=1)
def _tables() -> dict[str, pd.DataFrame]:
    from capkit import datasets

    adult = datasets.load_adult(SHARED_DATA / "AdultUCI.rda"
                                if (SHARED_DATA / "AdultUCI.rda").is_file() else None,
                                progress=False)
    pool = adult[COLUMNS].dropna().reset_index(drop=True)
    assert len(pool) == N_POOL, len(pool)
    for column in CAT_COLS:
        pool[column] = pool[column].astype(str).astype(object)
    perm = np.random.default_rng(SPLIT_SEED).permutation(N_POOL)
    real = pool.iloc[perm[:1500]].reset_index(drop=True)
    holdout = pool.iloc[perm[1500:2100]].reset_index(drop=True)
    rng = np.random.default_rng(101)
    boot = real.iloc[rng.integers(0, 1500, 1500)].reset_index(drop=True)
    for column in NUMERIC:
        boot[column] = boot[column] + rng.normal(0, 0.01 * real[column].std(ddof=1), 1500)
    indep = _independent(real, np.random.default_rng(102), 1500)
    rng = np.random.default_rng(103)
    copies = real.iloc[rng.choice(1500, 450, replace=False)]
    leaky = pd.concat([copies, _independent(real, rng, 1050)], ignore_index=True)
    leaky = leaky.iloc[rng.permutation(1500)].reset_index(drop=True)
    return {"real": real, "holdout": holdout, "bootnoise": boot, "indep": indep,
            "leaky": leaky}


def tables() -> dict[str, pd.DataFrame]:
    """``real``, ``holdout`` and the three syntheses, rebuilt (fresh copies).

    Recipe (oracle README): AdultUCI, the 10 :data:`COLUMNS`, rows with a missing value
    dropped (30,718), ``default_rng(20261125).permutation``: real = the first 1,500 positions,
    holdout the next 600. ``bootnoise`` (seed 101): 1,500 real rows drawn with replacement, each
    numeric column plus Gaussian noise of sd 1 % of real's; ``indep`` (102): every column drawn
    independently from real's values; ``leaky`` (103): 450 distinct real rows plus 1,050 rows
    made like ``indep``, shuffled.
    """
    return {k: v.copy() for k, v in _tables().items()}


def value(text: object) -> object:
    """A recorded output (the repr of a float, "nan", or a dict of them) back to numbers."""
    if isinstance(text, dict):
        return {k: value(v) for k, v in text.items()}
    if text is None:
        return None
    try:
        return float(text)
    except (TypeError, ValueError):
        return text
