"""Random mixed tables for the peer cases (numpy and pandas only; runs in a peer's venv).

A small population is drawn from a model with ties on purpose (few levels, integers, values
rounded to halves) and some structure (a numeric column depends on a categorical one); the
real (training) and holdout records are disjoint draws from it, some holdout records are then
made *population twins* of real records (equal values, different people), and the synthetic
records mix verbatim copies of real records, noisy copies and fresh draws from the model.
Not imported by capkit or its tests.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

LEVELS = ("a", "b", "c", "d", "e")


def population(rng: np.random.Generator, n: int, *, n_levels: int = 4) -> pd.DataFrame:
    """n records: two text categoricals, an integer categorical, an integer with ties, a
    number rounded to halves and a continuous number."""
    p = rng.dirichlet(np.ones(n_levels) * 1.5)
    c1 = rng.choice(np.array(LEVELS[:n_levels], dtype=object), n, p=p)
    c2 = rng.choice(np.array(["x", "y", "z"], dtype=object), n, p=[0.6, 0.3, 0.1])
    k = rng.integers(0, 3, n)
    base = (c1 == LEVELS[0]) * 2.0 + k
    count = np.clip(np.round(base + rng.normal(0, 1.2, n)), 0, 8).astype(np.int64)
    half = np.round(2 * (base + rng.normal(0, 1.5, n))) / 2
    cont = np.round(10 * base + rng.normal(0, 4, n), 3)
    return pd.DataFrame({"c1": c1, "c2": c2, "k": k.astype(np.int64), "count": count,
                         "half": half, "cont": cont})


def draw_case(seed: int, *, n_real: int, n_holdout: int, syn_ratio: float, twins: int,
              copies: float, missing: float = 0.0) -> dict[str, pd.DataFrame]:
    """Real, holdout and synthetic tables of one case (see the module docstring)."""
    rng = np.random.default_rng(seed)
    pop = population(rng, n_real + n_holdout)
    real = pop.iloc[:n_real].reset_index(drop=True)
    holdout = pop.iloc[n_real:].reset_index(drop=True)
    if twins:
        rows = rng.choice(n_real, twins, replace=False)
        slots = rng.choice(n_holdout, twins, replace=False)
        holdout.iloc[slots] = real.iloc[rows].to_numpy()
        holdout = holdout.astype(real.dtypes.to_dict())
    n_syn = max(6, int(round(syn_ratio * n_real)))
    n_copy = int(round(copies * n_syn))
    n_noisy = (n_syn - n_copy) // 2
    copied = real.iloc[rng.integers(0, n_real, n_copy)]
    noisy = real.iloc[rng.integers(0, n_real, n_noisy)].copy()
    noisy["cont"] = np.round(noisy["cont"] + rng.normal(0, 1, n_noisy), 3)
    noisy["half"] = noisy["half"] + rng.choice([-0.5, 0.0, 0.5], n_noisy)
    fresh = population(rng, n_syn - n_copy - n_noisy)
    syn = pd.concat([copied, noisy, fresh], ignore_index=True)
    syn = syn.iloc[rng.permutation(len(syn))].reset_index(drop=True)
    tables = {"real": real, "holdout": holdout, "synthetic": syn}
    if missing:
        for name, table in tables.items():
            for column in ("c2", "half"):
                hit = rng.random(len(table)) < missing
                table[column] = table[column].astype(object if column == "c2" else float)
                table.loc[hit, column] = None if column == "c2" else np.nan
            tables[name] = table
    return tables


def to_json(frame: pd.DataFrame) -> dict:
    """A table as JSON: column order, dtypes and values (None for a missing value)."""
    data = {}
    for column in frame.columns:
        values = frame[column].tolist()
        data[column] = [None if (v is None or (isinstance(v, float) and np.isnan(v))) else v
                        for v in values]
    return {"columns": list(frame.columns), "dtypes": {c: str(frame[c].dtype) for c in frame},
            "data": data}


def from_json(stored: dict) -> pd.DataFrame:
    """The table :func:`to_json` stored (floats exact: JSON keeps Python's repr)."""
    columns = {}
    for column in stored["columns"]:
        dtype = stored["dtypes"][column]
        values = stored["data"][column]
        if dtype == "object":
            columns[column] = pd.Series(values, dtype=object)
        else:
            columns[column] = pd.Series([np.nan if v is None else v for v in values],
                                        dtype=dtype)
    return pd.DataFrame(columns)


def dumps(obj: object) -> str:
    """JSON with NaN and infinities written as strings (exact floats elsewhere)."""
    def clean(x: object) -> object:
        if isinstance(x, float) and not np.isfinite(x):
            return repr(x)
        if isinstance(x, (np.floating,)):
            return clean(float(x))
        if isinstance(x, (np.integer,)):
            return int(x)
        if isinstance(x, dict):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x
    return json.dumps(clean(obj), sort_keys=False)


def arguments() -> argparse.Namespace:
    """A driver's command line: ``--out FOLDER`` (made if missing) and ``--seeds N [N ...]``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--seeds", required=True, type=int, nargs="+")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    return args


def write_case(path: Path, case: object) -> None:
    """One drawn case as gzipped :func:`dumps` JSON, byte for byte the same on a rerun."""
    with gzip.GzipFile(path, "wb", mtime=0) as handle:
        handle.write(dumps(case).encode())
