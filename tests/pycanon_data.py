"""pycanon 1.3.6's recorded outputs (``reference/pycanon``) and the Adult tables they were
computed on, rebuilt from :func:`capkit.data.datasets.load_adult` with the oracle's recipe
(the records themselves are never shipped)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pandas as pd
from reference_data import SHARED_DATA, SHARED_ORACLE, have_adult, reference_results

from capkit.anonymity import pycanon_cases

__all__ = ["SHARED_ORACLE", "adult_table", "have_adult", "matches", "results"]


def results() -> dict:
    """The oracle's ``results.json`` (``reference/pycanon/results.json.gz``)."""
    return reference_results("pycanon")


@cache
def _table(name: str) -> pd.DataFrame:
    path = SHARED_DATA if (SHARED_DATA / "AdultUCI.rda").is_file() else None
    return pycanon_cases.adult_table(name, results(), path)


def adult_table(name: str) -> pd.DataFrame:
    """One of the oracle's input tables (``adult``, ``adult_g2_k5``, ``adult_g3_k10``), with
    its 0..n-1 index and its dtypes (int64, or object holding str), rebuilt by
    :func:`capkit.anonymity.pycanon_cases.adult_table` (the one copy of the oracle's recipe)."""
    return _table(name).copy()


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
