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
from pandas.api import types as pdt
from sklearn.utils import check_random_state

from capkit.counts.encode import as_list, validate_frames
from capkit.data.align import column_difference
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
        only_first, only_other = column_difference(first, frame)
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


def inferred_sdtype(values: pd.Series) -> str:
    """SDMetrics' sdtype of a column without metadata, from the real data's dtype: numbers are
    numerical, text and categories categorical, bool boolean, datetimes datetime (SDMetrics
    gives unsigned integers no type and fails on them; capkit calls them numerical)."""
    dtype = values.dtype
    if pdt.is_bool_dtype(dtype):
        return "boolean"
    if pdt.is_datetime64_any_dtype(dtype):
        return "datetime"
    if pdt.is_numeric_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        return "numerical"
    return "categorical"


def attack_fields(real: pd.DataFrame, synthetic: pd.DataFrame, metadata: object,
                  table_name: str | None, key_fields: object, sensitive_fields: object,
                  allowed: tuple[str, ...], metric: str) -> tuple[list[str], list[str]]:
    """The checked key and sensitive columns of an attacker metric (SDMetrics'
    ``_validate_inputs``): same columns in both tables, fields given directly or as
    ``metadata["key_fields"]`` / ``metadata["sensitive_fields"]``, each of an allowed sdtype
    (from the metadata, else :func:`inferred_sdtype`), numbers in one table and text in the
    other refused, no sensitive field among the keys."""
    check_frames({"real_data": real, "synthetic_data": synthetic})
    sdtypes = {c: inferred_sdtype(real[c]) for c in real.columns}
    if metadata is not None:
        metadata = single_table_metadata(metadata, table_name)
        key_fields = metadata.get("key_fields", key_fields)
        sensitive_fields = metadata.get("sensitive_fields", sensitive_fields)
        for column, meta in metadata["columns"].items():
            sdtypes[column] = meta.get("sdtype") if isinstance(meta, dict) else None
    keys = field_list(key_fields, "key_fields")
    sensitive = field_list(sensitive_fields, "sensitive_fields")
    check_present(keys + sensitive, real, "key and sensitive fields", "real_data")
    overlap = [c for c in sensitive if c in keys]
    if overlap:
        raise CapkitError(f"sensitive field {overlap[0]!r} is also in key_fields; a target "
                          "cannot be a key")
    for column in keys + sensitive:
        if sdtypes.get(column) not in allowed:
            raise CapkitError(f"{metric}: column {column!r} has sdtype {sdtypes.get(column)!r}; "
                              f"this metric takes {' or '.join(allowed)} columns")
    validate_frames(real, synthetic, keys, sensitive)
    return keys, sensitive


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


__all__ = [
    "attack_fields",
    "check_frames",
    "check_positive_int",
    "check_present",
    "field_list",
    "inferred_sdtype",
    "random_state",
    "single_table_metadata",
]
