"""pycanon 1.3.6's recorded outputs (``reference/pycanon``) and the Adult tables they were
computed on, rebuilt from :func:`capkit.data.datasets.load_adult` with the oracle's recipe
(the records themselves are never shipped)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd
from reference_data import SHARED_DATA, SHARED_ORACLE, have_adult, reference_results

from capkit.data import datasets

__all__ = ["SHARED_ORACLE", "adult_table", "have_adult", "matches", "results"]

#: Columns without a missing value in the pool (oracle README), in AdultUCI order.
POOL_COLUMNS = ["age", "sex", "race", "education", "income", "occupation", "hours.per.week"]
POOL_ROWS = 30718
SEED = 20261125
SAMPLE = 10000
#: Classes below these sizes were suppressed to make the two "suppressed" tables.
SUPPRESSED = {"adult_g2_k5": (["age10", "sex", "race", "edu6"], 5),
              "adult_g3_k10": (["age20", "sex", "race2", "edu3"], 10)}
COLUMN_ORDER = ["age", "age5", "age10", "age20", "sex", "race", "race2", "education", "edu6",
                "edu3", "income", "occupation", "hours.per.week"]


def results() -> dict:
    """The oracle's ``results.json`` (``reference/pycanon/results.json.gz``)."""
    return reference_results("pycanon")


def _age20(a: int) -> str:
    return "17-29" if a < 30 else "30-49" if a < 50 else "50-69" if a < 70 else "70-90"


@lru_cache(maxsize=1)
def _adult() -> pd.DataFrame:
    derived = results()["inputs"]["derived_columns"]
    raw = datasets.load_adult(SHARED_DATA if (SHARED_DATA / "AdultUCI.rda").is_file() else None,
                              progress=False)
    pool = raw.dropna(subset=POOL_COLUMNS).reset_index(drop=True)
    assert len(pool) == POOL_ROWS, len(pool)
    rows = pool.iloc[np.random.default_rng(SEED).permutation(POOL_ROWS)[:SAMPLE]]
    out = pd.DataFrame({
        "age": rows["age"].astype("int64").to_numpy(),
        "sex": rows["sex"].astype(str).to_numpy(dtype=object),
        "race": rows["race"].astype(str).to_numpy(dtype=object),
        "education": rows["education"].astype(str).to_numpy(dtype=object),
        "income": rows["income"].astype(str).to_numpy(dtype=object),
        "occupation": rows["occupation"].astype(str).to_numpy(dtype=object),
        "hours.per.week": rows["hours.per.week"].astype("int64").to_numpy(),
    })
    age = out["age"]
    out["age5"] = age.map(lambda a: f"{a // 5 * 5}-{a // 5 * 5 + 4}").astype(object)
    out["age10"] = age.map(lambda a: f"{a // 10 * 10}-{a // 10 * 10 + 9}").astype(object)
    out["age20"] = age.map(_age20).astype(object)
    out["race2"] = np.where(out["race"] == "White", "White", "Non-White").astype(object)
    out["edu6"] = out["education"].map(derived["edu6"]).astype(object)
    out["edu3"] = out["edu6"].map(derived["edu3"]).astype(object)
    return out[COLUMN_ORDER]


def adult_table(name: str) -> pd.DataFrame:
    """One of the oracle's input tables (``adult``, ``adult_g2_k5``, ``adult_g3_k10``), with
    its 0..n-1 index and its dtypes (int64, or object holding str)."""
    adult = _adult()
    if name == "adult":
        return adult.copy()
    qi, k = SUPPRESSED[name]
    size = adult.groupby(qi)[qi[0]].transform("size")
    return adult[size >= k].reset_index(drop=True)


def matches(got: object, want: object, rel: float = 1e-9) -> bool:
    """capkit's result against the oracle's JSON value: integers exactly (and integral), floats
    to ``rel`` (relative), "nan" as NaN, lists element by element."""
    if isinstance(want, list):
        return isinstance(got, tuple | list) and len(got) == len(want) and all(
            matches(a, b, rel) for a, b in zip(got, want, strict=True))
    if want == "nan":
        return isinstance(got, float) and math.isnan(got)
    if isinstance(want, int) and not isinstance(want, bool):
        return isinstance(got, int | np.integer) and int(got) == want
    return isinstance(got, float) and abs(got - want) <= rel * max(1.0, abs(want))
