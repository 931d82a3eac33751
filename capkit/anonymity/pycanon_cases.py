"""pycanon 1.3.6's recorded Adult cases: the tables pycanon read, rebuilt from the Adult loader,
and capkit's levels beside pycanon's recorded numbers.

The recorded outputs live in the project's ``reference/pycanon/results.json.gz`` (pycanon 1.3.6
run by the development oracle; its README says how). The Adult records themselves are never
shipped: :func:`adult_table` rebuilds the three tables pycanon read with the oracle's recipe
(``results["inputs"]``): the 30,718 AdultUCI rows with no missing value in the seven pool
columns, a seeded permutation's first 10,000, the derived bands, and two tables with the small
classes suppressed. :func:`recorded_levels` sets capkit's k-anonymity and l-diversity
(``pycanon=True``) beside pycanon's numbers, call by call (Sainz-Pardo Díaz & López García,
"A Python library to check the level of anonymity of a dataset", Scientific Data 9, 2022).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd

from capkit.anonymity.classes import PycanonDifferenceWarning
from capkit.anonymity.levels import k_anonymity, l_diversity
from capkit.data import datasets
from capkit.errors import CapkitError

__all__ = ["COLUMN_ORDER", "POOL_COLUMNS", "SUPPRESSED", "adult_table", "recorded_levels"]

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


def _age20(a: int) -> str:
    return "17-29" if a < 30 else "30-49" if a < 50 else "50-69" if a < 70 else "70-90"


def _adult(derived: dict, path: str | os.PathLike | None) -> pd.DataFrame:
    raw = datasets.load_adult(path, progress=False)
    pool = raw.dropna(subset=POOL_COLUMNS).reset_index(drop=True)
    if len(pool) != POOL_ROWS:
        raise CapkitError(f"the Adult pool has {len(pool)} rows, not pycanon's {POOL_ROWS}: "
                          "another AdultUCI file")
    rows = pool.iloc[np.random.default_rng(SEED).permutation(POOL_ROWS)[:SAMPLE]]
    out = pd.DataFrame({
        "age": rows["age"].astype("int64").to_numpy(),
        **{c: rows[c].astype(str).to_numpy(dtype=object)
           for c in ("sex", "race", "education", "income", "occupation")},
        "hours.per.week": rows["hours.per.week"].astype("int64").to_numpy(),
    })
    age = out["age"].to_numpy()
    out["age5"] = pd.Series([f"{a // 5 * 5}-{a // 5 * 5 + 4}" for a in np.unique(age)],
                            index=np.unique(age)).reindex(age).to_numpy(dtype=object)
    out["age10"] = pd.Series([f"{a // 10 * 10}-{a // 10 * 10 + 9}" for a in np.unique(age)],
                             index=np.unique(age)).reindex(age).to_numpy(dtype=object)
    out["age20"] = pd.Series([_age20(a) for a in np.unique(age)],
                             index=np.unique(age)).reindex(age).to_numpy(dtype=object)
    out["race2"] = np.where(out["race"] == "White", "White", "Non-White").astype(object)
    out["edu6"] = out["education"].map(derived["edu6"]).astype(object)
    out["edu3"] = out["edu6"].map(derived["edu3"]).astype(object)
    return out[COLUMN_ORDER]


def adult_table(name: str, results: dict, path: str | os.PathLike | None = None
                ) -> pd.DataFrame:
    """One of the tables pycanon read (``"adult"``, ``"adult_g2_k5"``, ``"adult_g3_k10"``),
    with its 0..n-1 index and dtypes (int64, or object holding str).

    Parameters
    ----------
    name
        The table.
    results
        The recorded outputs (``datasets.read_reference_json("reference/pycanon")``): their
        ``inputs`` hold the derived bands.
    path
        Where AdultUCI.rda is (default: :func:`capkit.data.datasets.load_adult`'s search).
    """
    adult = _adult(results["inputs"]["derived_columns"], path)
    if name == "adult":
        return adult
    if name not in SUPPRESSED:
        raise CapkitError(f"table must be 'adult' or one of {list(SUPPRESSED)}, got {name!r}")
    qi, k = SUPPRESSED[name]
    size = adult.groupby(qi)[qi[0]].transform("size")
    return adult[size >= k].reset_index(drop=True)


def recorded_levels(results: dict, path: str | os.PathLike | None = None) -> pd.DataFrame:
    """capkit's k-anonymity and l-diversity (``pycanon=True``) beside pycanon's recorded
    number, for every call of the two that pycanon answered on the recorded Adult cases.

    Returns
    -------
    pandas.DataFrame
        ``case``, ``call`` (pycanon's call text), ``pycanon``, ``capkit``.
    """
    tables: dict[str, pd.DataFrame] = {}
    rows = []
    for case, spec in sorted(results["cases"].items()):
        if spec["table"] not in tables:
            tables[spec["table"]] = adult_table(spec["table"], results, path)
        data = tables[spec["table"]]
        for name, call in spec["calls"].items():
            function, *rest = name.split("__")
            if function not in ("k_anonymity", "l_diversity") or call["error"] is not None:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PycanonDifferenceWarning)
                if function == "k_anonymity":
                    got = k_anonymity(data, spec["qi"], pycanon=True)
                else:
                    got = l_diversity(data, spec["qi"], rest[0].split("+"),
                                      gen=not name.endswith("__nogen"), pycanon=True)
            rows.append({"case": case, "call": call["call"], "pycanon": call["result"],
                         "capkit": int(got)})
    return pd.DataFrame(rows)
