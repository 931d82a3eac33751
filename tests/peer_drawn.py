"""Reading the peer cases drawn by ``scripts/peer_cases`` (``reference/<peer>/drawn/``).

Each case is one gzipped JSON file: the input tables (column order, dtypes, values with None
for a missing value), the peer's calls and the peer's outputs (floats exact; NaN and
infinities as the strings "nan", "inf", "-inf"). This reader is the tests' own: the generator
is never imported by capkit or the tests.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

DRAWN = Path(__file__).resolve().parents[1] / "reference"


def cases(peer: str) -> list[Path]:
    """The stored cases of ``peer``, in name order."""
    return sorted((DRAWN / peer / "drawn").glob("*.json.gz"))


def load(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def frame(stored: dict) -> pd.DataFrame:
    """A stored table, with its dtypes (object columns keep None as the missing value)."""
    columns = {}
    for column in stored["columns"]:
        dtype, values = stored["dtypes"][column], stored["data"][column]
        if dtype == "object":
            columns[column] = pd.Series(values, dtype=object)
        else:
            columns[column] = pd.Series([np.nan if v is None else v for v in values],
                                        dtype=dtype)
    return pd.DataFrame(columns)


def number(value: object) -> float:
    """A stored number (the strings "nan", "inf", "-inf" included)."""
    return float(value)


def close(got: float, expected: float, rel: float) -> bool:
    """Equal, both NaN, or within ``rel`` relative (at least absolute for values below 1)."""
    if math.isnan(expected):
        return math.isnan(got)
    return got == expected or abs(got - expected) <= rel * max(1.0, abs(expected))
