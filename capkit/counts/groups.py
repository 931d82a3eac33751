"""Counts of one table grouped by some of its columns: one ``GROUP BY`` on pandas, DuckDB or Spark.

:func:`capkit.counts.tables.crosstab` counts two aligned tables (an original and a synthetic
one). Measures of a single table -- k-anonymity and its relatives, the individual
re-identification risk of a sample -- need the same thing for one table only: each distinct
combination of the named columns and its number of records (and, with sampling weights, the
sum of the weights of its records). :func:`group_rows` returns exactly that, counted

- by pandas for a DataFrame (and, then, each record's group, so per-record results can be
  given back);
- by DuckDB for Parquet/CSV files, globs or DuckDB relations (or a DataFrame with
  ``engine="duckdb"``): ``SELECT cols, count(*), sum(w), ... FROM data GROUP BY cols``, one
  streaming hash aggregation that spills to disk past memory; only the grouped rows come back;
- by Spark for a PySpark DataFrame (or ``engine="spark"``): one ``groupBy().agg()`` on the
  executors, the grouped rows collected to the driver.

Missing values form a group of their own on both engines (pandas ``dropna=False``, SQL's NULL
group), as in :func:`capkit.counts.tables.crosstab`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from capkit.counts.encode import as_list
from capkit.counts.engines import duckdb as duckdb_engine
from capkit.counts.engines import spark as spark_engine
from capkit.counts.engines.common import (
    COUNT_COLUMN,
    ENGINES,
    is_duckdb_relation,
    is_path,
    is_spark_frame,
    require,
    run_grouping,
)
from capkit.errors import CapkitError

#: Names of the weight statistics in :attr:`GroupedRows.frame` (cannot clash with a user column).
WEIGHT_SUM = "__capkit_weight_sum__"
WEIGHT_MIN = "__capkit_weight_min__"
WEIGHT_MAX = "__capkit_weight_max__"
WEIGHT_MISSING = "__capkit_weight_missing__"


@dataclass(frozen=True)
class GroupedRows:
    """One table grouped by some of its columns.

    Attributes
    ----------
    frame
        One row per distinct combination of the grouping columns (missing values included),
        with its number of records in :data:`capkit.counts.engines.COUNT_COLUMN`; with a weight
        column also :data:`WEIGHT_SUM`, :data:`WEIGHT_MIN`, :data:`WEIGHT_MAX` and
        :data:`WEIGHT_MISSING` (records whose weight is missing or NaN; DuckDB counts a group's
        NaN weights as one).
    records
        Number of rows of the table.
    engine
        ``"pandas"``, ``"duckdb"`` or ``"spark"``.
    record_group
        For each record (in row order), its row in ``frame``; ``None`` when DuckDB or Spark
        counted.
    """

    frame: pd.DataFrame
    records: int
    engine: str
    record_group: np.ndarray | None


def _choose(data: object, engine: str | None) -> str:
    if engine is None:
        if isinstance(data, pd.DataFrame):
            return "pandas"
        if is_path(data) or is_duckdb_relation(data):
            return "duckdb"
        if is_spark_frame(data):
            return "spark"
        raise CapkitError(f"data must be a pandas DataFrame, a Parquet/CSV path or glob, a "
                          f"DuckDB relation or a PySpark DataFrame; got {type(data).__name__}")
    if engine not in ENGINES:
        raise CapkitError(f"engine must be one of {list(ENGINES)} or None, got {engine!r}")
    if engine == "pandas" and not isinstance(data, pd.DataFrame):
        raise CapkitError("engine='pandas' needs a pandas DataFrame; use engine='duckdb' for "
                          "files and relations, engine='spark' for PySpark DataFrames")
    if engine == "duckdb" and is_spark_frame(data):
        raise CapkitError("data is a PySpark DataFrame: count it with engine='spark'")
    if engine == "spark" and is_duckdb_relation(data):
        raise CapkitError("data is a DuckDB relation: count it with engine='duckdb'")
    return engine


def _check_columns(present: list[str], columns: list[str], weight: str | None) -> None:
    for column in columns + ([weight] if weight is not None else []):
        if column not in present:
            raise CapkitError(f"column {column!r} is missing from the data")
    if weight is not None and weight in columns:
        raise CapkitError(f"weight column {weight!r} is also a grouping column")


def _group_pandas(data: pd.DataFrame, columns: list[str], weight: str | None) -> GroupedRows:
    if data.columns.duplicated().any():
        dup = data.columns[data.columns.duplicated()].unique().tolist()
        raise CapkitError(f"data has duplicated column names: {dup}")
    _check_columns([str(c) for c in data.columns], columns, weight)
    if len(data) == 0:
        raise CapkitError("data is empty (0 rows)")
    grouped = data[columns].groupby(columns, dropna=False, observed=True, sort=True)
    codes = grouped.ngroup().to_numpy(dtype=np.int64)
    sizes = grouped.size()
    frame = sizes.index.to_frame(index=False)
    if len(columns) == 1:  # a flat Index comes back as one column already; keep dtypes
        frame.columns = columns
    frame[COUNT_COLUMN] = sizes.to_numpy(dtype=np.int64)
    if weight is not None:
        w = pd.to_numeric(data[weight], errors="coerce").to_numpy(dtype=float)
        missing = np.isnan(w)
        filled = np.where(missing, 0.0, w)
        groups = len(frame)
        frame[WEIGHT_SUM] = np.bincount(codes, weights=filled, minlength=groups)
        lo = np.full(groups, np.inf)
        hi = np.full(groups, -np.inf)
        np.minimum.at(lo, codes[~missing], w[~missing])
        np.maximum.at(hi, codes[~missing], w[~missing])
        frame[WEIGHT_MIN] = lo
        frame[WEIGHT_MAX] = hi
        frame[WEIGHT_MISSING] = np.bincount(codes, weights=missing, minlength=groups).astype(
            np.int64)
    return GroupedRows(frame, len(data), "pandas", codes)


def _group_duckdb(data: object, columns: list[str], weight: str | None,
                  config: dict[str, Any] | None) -> GroupedRows:
    require("duckdb")
    con = None if is_duckdb_relation(data) else duckdb_engine.connect(config)
    try:
        rel = duckdb_engine.relation(data, con, "data")
        _check_columns([str(c) for c in rel.columns], columns, weight)
        q = duckdb_engine.quote
        cols = ", ".join(q(c) for c in columns)
        aggregates = [f"count(*) AS {q(COUNT_COLUMN)}"]
        if weight is not None:
            # a NaN weight makes the group's sum and max NaN (DuckDB orders NaN last), which
            # the caller sees; NULLs are counted
            w = q(weight)
            aggregates += [f"sum({w}) AS {q(WEIGHT_SUM)}", f"min({w}) AS {q(WEIGHT_MIN)}",
                           f"max({w}) AS {q(WEIGHT_MAX)}",
                           f"count(*) - count({w}) AS {q(WEIGHT_MISSING)}"]
        frame = run_grouping(lambda: rel.aggregate(f"{cols}, {', '.join(aggregates)}",
                                                   cols).df(), "data", "DuckDB")
    finally:
        if con is not None:
            con.close()
    frame[COUNT_COLUMN] = frame[COUNT_COLUMN].to_numpy(dtype=np.int64)
    if weight is not None:
        frame[WEIGHT_MISSING] = frame[WEIGHT_MISSING].to_numpy(dtype=np.int64)
        high = frame[WEIGHT_MAX].astype(float)
        nan_weight = high.isna() & (frame[WEIGHT_MISSING] < frame[COUNT_COLUMN])
        frame[WEIGHT_MISSING] += nan_weight.to_numpy(dtype=np.int64)  # at least one NaN
        frame[WEIGHT_SUM] = frame[WEIGHT_SUM].astype(float).fillna(0.0)
        frame[WEIGHT_MIN] = frame[WEIGHT_MIN].astype(float).fillna(np.inf)
        frame[WEIGHT_MAX] = high.fillna(-np.inf)
    return GroupedRows(frame, int(frame[COUNT_COLUMN].sum()), "duckdb", None)


def _group_spark(data: object, columns: list[str], weight: str | None, spark: Any
                 ) -> GroupedRows:
    require("spark")
    from pyspark.sql import functions as F  # noqa: N812

    if spark is None and is_spark_frame(data):
        spark = data.sparkSession  # type: ignore[attr-defined]
    spark = spark_engine.session(spark)
    needed = columns + ([weight] if weight is not None else [])
    if isinstance(data, pd.DataFrame):
        _check_columns([str(c) for c in data.columns], columns, weight)
    frame = spark_engine.spark_frame(data, spark, "data", needed)
    _check_columns([str(c) for c in frame.columns], columns, weight)

    def col(name: str) -> Any:
        return F.col("`" + str(name).replace("`", "``") + "`")

    aggregates = [F.count(F.lit(1)).alias(COUNT_COLUMN)]
    if weight is not None:
        w = col(weight).cast("double")
        ok = F.when(F.isnan(w), None).otherwise(w)
        aggregates += [F.coalesce(F.sum(ok), F.lit(0.0)).alias(WEIGHT_SUM),
                       F.min(ok).alias(WEIGHT_MIN), F.max(ok).alias(WEIGHT_MAX),
                       (F.count(F.lit(1)) - F.count(ok)).alias(WEIGHT_MISSING)]
    grouped = run_grouping(
        lambda: frame.groupBy(*[col(c) for c in columns]).agg(*aggregates).toPandas(),
        "data", "Spark")
    grouped[COUNT_COLUMN] = grouped[COUNT_COLUMN].to_numpy(dtype=np.int64)
    if weight is not None:
        grouped[WEIGHT_MISSING] = grouped[WEIGHT_MISSING].to_numpy(dtype=np.int64)
        grouped[WEIGHT_SUM] = grouped[WEIGHT_SUM].astype(float)
        grouped[WEIGHT_MIN] = grouped[WEIGHT_MIN].astype(float).fillna(np.inf)
        grouped[WEIGHT_MAX] = grouped[WEIGHT_MAX].astype(float).fillna(-np.inf)
    return GroupedRows(grouped, int(grouped[COUNT_COLUMN].sum()), "spark", None)


def group_rows(data: object, columns: str | list[str], *, weight: str | None = None,
               engine: str | None = None, config: dict[str, Any] | None = None,
               spark: Any = None) -> GroupedRows:
    """Each distinct combination of ``columns`` in ``data`` and its number of records.

    Parameters
    ----------
    data
        A pandas DataFrame, a Parquet/CSV path or glob (or a list of them), a DuckDB relation
        or a PySpark DataFrame. Never modified.
    columns
        The grouping columns.
    weight
        Optional numeric column whose sum, minimum, maximum and number of missing values are
        given per group (sampling weights).
    engine
        ``"pandas"``, ``"duckdb"``, ``"spark"`` or ``None`` (pandas for a DataFrame, Spark for
        a PySpark DataFrame, DuckDB otherwise).
    config
        DuckDB settings (e.g. ``{"memory_limit": "8GB", "threads": 2}``).
    spark
        The Spark session to count in (default: the PySpark DataFrame's, the active one, or a
        new local one).

    Returns
    -------
    GroupedRows

    Raises
    ------
    CapkitError
        For a missing column, an empty table, an unreadable file or an unknown engine.
    """
    cols = as_list(columns, "columns")
    engine = _choose(data, engine)
    if engine == "pandas":
        return _group_pandas(data, cols, weight)  # type: ignore[arg-type]
    if engine == "spark":
        return _group_spark(data, cols, weight, spark)
    return _group_duckdb(data, cols, weight, config)


__all__ = ["WEIGHT_MAX", "WEIGHT_MIN", "WEIGHT_MISSING", "WEIGHT_SUM", "GroupedRows",
           "group_rows"]
