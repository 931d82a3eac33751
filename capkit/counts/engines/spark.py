"""The Spark engine: group-by counts of PySpark DataFrames (or files / DataFrames via Spark).

On a cluster the aggregation runs on the executors; only the grouped rows (one per distinct
(keys, target) cell) are collected to the driver, through Arrow. Hand-written PySpark DataFrame
API: the whole job is one ``groupBy().agg(count)`` per input.

A PySpark DataFrame is counted in its own session. Other inputs (pandas frames, Parquet/CSV
paths) use the active session, or start a local one (``local[*]``) when there is none.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from capkit.counts.encode import kind_of_series
from capkit.counts.engines.common import (
    COUNT_COLUMN,
    expand_paths,
    is_spark_frame,
    kind_of_type,
    reject_duplicated_columns,
    require,
    run_grouping,
    validate_schemas,
)
from capkit.errors import CapkitError

#: Where Spark's Java comes from on Debian/Ubuntu.
JAVA_HINT = ("Spark needs a Java runtime (17 or later): on Debian/Ubuntu "
             "`apt-get install -y default-jre-headless`, or set JAVA_HOME")


def session(existing: Any = None) -> Any:
    """The Spark session to count in: ``existing``, the active one, or a new local one.

    A new local session uses every core (``local[*]``), few shuffle partitions (the grouped
    results are small) and Arrow for collecting results.
    """
    if existing is not None:
        return existing
    require("spark")
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    try:
        return (
            SparkSession.builder.master("local[*]")
            .appName("capkit")
            .config("spark.sql.shuffle.partitions", "8")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
    except Exception as exc:  # py4j / Java launch errors
        raise CapkitError(f"could not start a local Spark session: {exc}. {JAVA_HINT}") from exc


def _plain(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Categoricals as plain values (Spark has no categorical type; the order is restored)."""
    out = frame[columns]
    cats = [c for c in columns if isinstance(out[c].dtype, pd.CategoricalDtype)]
    if cats:
        out = out.astype({c: out[c].cat.categories.dtype for c in cats})
    return out


def spark_frame(source: object, spark: Any, role: str, columns: list[str], *,
                sep: str | None = None) -> Any:
    """A PySpark DataFrame over ``source`` (CSV files separated by ``sep``, default ``,``;
    ``"tab"`` or ``"\\t"`` for a tab)."""
    if is_spark_frame(source):
        return source
    try:
        if isinstance(source, pd.DataFrame):
            missing = [c for c in columns if c not in source.columns]
            if missing:
                raise CapkitError(f"column {missing[0]!r} is missing from {role} data")
            return spark.createDataFrame(_plain(source, columns))
        files, fmt = expand_paths(source, role)  # type: ignore[arg-type]
        if fmt == "parquet":
            return spark.read.parquet(*files)
        delimiter = "\t" if sep in ("tab", "\\t") else (sep or ",")
        return spark.read.csv(files, header=True, inferSchema=True, nullValue="NA",
                              sep=delimiter)
    except CapkitError:
        raise
    except Exception as exc:
        raise CapkitError(f"{role} data could not be read by Spark: {exc}") from exc


def _col(name: str) -> Any:
    from pyspark.sql import functions as F  # noqa: N812

    return F.col("`" + str(name).replace("`", "``") + "`")


def _schema(source: object, frame: Any) -> dict[str, str]:
    if isinstance(source, pd.DataFrame):
        return {str(c): kind_of_series(source[c]) for c in source.columns}
    return {f.name: kind_of_type(f.dataType.simpleString()) for f in frame.schema.fields}


def _grouped(frame: Any, columns: list[str], role: str) -> pd.DataFrame:
    from pyspark.sql import functions as F  # noqa: N812

    return run_grouping(
        lambda: (frame.groupBy(*[_col(c) for c in columns])
                 .agg(F.count(F.lit(1)).alias(COUNT_COLUMN)).toPandas()),
        role, "Spark")


def group_counts(original: object, synthetic: object, keys: list[str], targets: list[str],
                 *, spark: Any = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One grouped frame per input: the distinct (keys, targets) rows and their record counts.

    Raises :class:`CapkitError` for unreadable input, a missing column, a target that is a key,
    a column whose kind differs between the inputs, or an empty input.
    """
    if spark is None:
        spark = next((x.sparkSession for x in (original, synthetic) if is_spark_frame(x)), None)
    spark = session(spark)
    columns = keys + targets
    reject_duplicated_columns(original, synthetic)
    frames = {
        role: None if isinstance(source, pd.DataFrame) else spark_frame(source, spark, role,
                                                                         columns)
        for role, source in (("original", original), ("synthetic", synthetic))
    }
    validate_schemas(_schema(original, frames["original"]),
                     _schema(synthetic, frames["synthetic"]), keys, targets)
    frame_o, frame_s = (
        spark_frame(source, spark, role, columns) if frames[role] is None else frames[role]
        for role, source in (("original", original), ("synthetic", synthetic))
    )
    return _grouped(frame_o, columns, "original"), _grouped(frame_s, columns, "synthetic")


def to_pandas(source: Any, columns: list[str], role: str) -> pd.DataFrame:
    """Only the given columns of a PySpark DataFrame, collected to pandas."""
    missing = [c for c in columns if c not in source.columns]
    if missing:
        raise CapkitError(f"column {missing[0]!r} is missing from {role} data")
    try:
        return source.select(*[_col(c) for c in columns]).toPandas()
    except Exception as exc:
        raise CapkitError(f"{role} data could not be collected from Spark: {exc}") from exc
