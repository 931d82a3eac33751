"""Reading the peer cases drawn by ``scripts/peer_cases`` (``reference/<peer>/drawn/``).

Each case is one gzipped JSON file: the input tables (column order, dtypes, values with None
for a missing value), the peer's calls and the peer's outputs (floats exact; NaN and
infinities as the strings "nan", "inf", "-inf"). This reader is the tests' own: the generator
is never imported by capkit or the tests.
"""

from __future__ import annotations

import gzip
import hashlib
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


def argpartition_fingerprint() -> str:
    """The k-smallest indices numpy's ``argpartition`` picks among tied float64 values (kth = 4,
    as scikit-learn's brute k-NN search with 5 neighbours calls it), hashed. It names the tie
    behaviour of this machine's numpy, which depends on its version and CPU dispatch
    (x86-simd-sort's AVX-512 or AVX2 kernels, or the generic introselect); the peer-case
    generator records the same fingerprint beside the numbers it stores."""
    picks = []
    for n, levels in ((64, 3), (200, 4), (1000, 5)):
        values = (np.arange(n) * 7 % levels).astype(np.float64)
        picks.append(sorted(int(i) for i in np.argpartition(values, 4)[:5]))
    return hashlib.sha256(json.dumps(picks).encode()).hexdigest()[:16]


#: Why a k-NN number of SDMetrics may have no stored value for this machine.
KNN_DISPATCH = ("SDMetrics' CategoricalKNN (and every Ensemble with its attacker) breaks "
                "neighbour ties with numpy's argpartition, whose choice among tied records "
                "depends on numpy's version and CPU dispatch (x86-simd-sort on AVX-512 or AVX2, "
                "introselect otherwise): SDMetrics itself gives other numbers on such machines")
