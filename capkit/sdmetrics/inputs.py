"""Input rules shared by capkit's SDMetrics-compatible metrics, as :class:`CapkitError`.

SDMetrics 0.32 (``single_table/base.py``, ``privacy/base.py``) requires the real and synthetic
tables to hold the same set of columns and the key / sensitive lists to be non-empty; what it
does not check (an empty table, a non-DataFrame synthetic table, duplicated column names) ends
in a traceback or a silent number there and in a clear error here. The legacy NumPy random state
that SDMetrics draws from (``DataFrame.sample``, scikit-learn estimators with
``random_state=None``) is :func:`random_state`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from capkit.counts.encode import as_list
from capkit.errors import CapkitError


def field_list(fields: str | Sequence[str] | None, argument: str) -> list[str]:
    """Column names as a list (a single name allowed); CapkitError when None or empty."""
    if fields is None:
        raise CapkitError(f"{argument} is required: give a list of column names")
    return as_list(fields, argument)


def check_frames(frames: dict[str, object], *, same_columns: bool = True) -> None:
    """Every value a non-empty DataFrame without duplicated column names, all with the same set
    of columns (SDMetrics' rule, also for columns no metric uses)."""
    for name, frame in frames.items():
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        if frame.shape[0] == 0:
            raise CapkitError(f"{name} is empty (0 rows)")
        duplicated = frame.columns[frame.columns.duplicated()].unique().tolist()
        if duplicated:
            raise CapkitError(f"{name} has duplicated column names: {duplicated}")
    if not same_columns:
        return
    names = list(frames)
    first = frames[names[0]]
    for name in names[1:]:
        frame = frames[name]
        only_first = [c for c in first.columns if c not in set(frame.columns)]
        only_other = [c for c in frame.columns if c not in set(first.columns)]
        if only_first or only_other:
            raise CapkitError(
                f"{names[0]} and {name} must have the same columns (as in SDMetrics): "
                f"only in {names[0]} {only_first}, only in {name} {only_other}"
            )


def check_present(columns: Sequence[str], frame: pd.DataFrame, argument: str, name: str) -> None:
    """Every column of ``columns`` is in ``frame``."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise CapkitError(f"{argument} {missing} are missing from {name}")


def check_positive_int(value: object, argument: str) -> int:
    """An int > 0 (SDMetrics lets a bool through, as bool is an int; so does capkit)."""
    if not isinstance(value, (int, np.integer)) or value <= 0:
        raise CapkitError(f"{argument} must be an integer greater than zero, got {value!r}")
    return int(value)


def single_table_metadata(metadata: object, table_name: str | None) -> dict:
    """The single-table metadata dict (``{"columns": {name: {"sdtype": ...}}}``) of SDMetrics'
    metadata: a single-table dict, or a multi-table dict (``{"tables": {...}}``) and the table's
    name (optional when it has one table)."""
    if table_name is not None and not isinstance(table_name, str):
        raise CapkitError(f"table_name must be a string or None, got {table_name!r}")
    if not isinstance(metadata, dict):
        raise CapkitError(
            "metadata must be a dict such as {'columns': {'age': {'sdtype': 'numerical'}, ...}}, "
            f"got {type(metadata).__name__}")
    if "tables" in metadata:
        tables = metadata["tables"]
        if not isinstance(tables, dict) or not tables:
            raise CapkitError("metadata['tables'] must be a non-empty dict of table metadata")
        if table_name is None:
            if len(tables) > 1:
                raise CapkitError("metadata holds several tables; give table_name")
            table_name = next(iter(tables))
        if table_name not in tables:
            raise CapkitError(f"unknown table {table_name!r}; metadata has {list(tables)}")
        metadata = tables[table_name]
    columns = metadata.get("columns") if isinstance(metadata, dict) else None
    if not isinstance(columns, dict):
        raise CapkitError("the table metadata needs a 'columns' dict (column -> {'sdtype': ...})")
    return metadata


def random_state(seed: int | np.random.RandomState | None) -> np.random.RandomState:
    """The legacy NumPy random state SDMetrics draws from.

    ``None`` is NumPy's global state (what ``DataFrame.sample`` and scikit-learn use when given
    no seed, so ``numpy.random.seed(s)`` before a call reproduces SDMetrics' numbers); an int
    is a fresh ``RandomState(seed)``, which draws the same numbers as the global state right
    after ``numpy.random.seed(seed)``.
    """
    if isinstance(seed, (bool, np.bool_)):
        raise CapkitError(f"seed must be an int, a numpy RandomState or None, got {seed!r}")
    try:
        return check_random_state(seed)
    except ValueError as exc:
        raise CapkitError(
            f"seed must be an int, a numpy RandomState or None, got {seed!r}") from exc


__all__ = ["check_frames", "check_positive_int", "check_present", "field_list", "random_state",
           "single_table_metadata"]
