"""What the counting engines share: the choice of engine, input kinds, paths, schema checks.

Every CAP-family and synthpop attribute measure is a function of the aligned target x key
count tables o[i, j] / s[i, j] (Baillargeon & Charest, Section 2.1; Raab, Nowok & Dibben's
d_tq / s_tq). The engines (:mod:`capkit.counts.engines.duckdb`,
:mod:`capkit.counts.engines.spark`) only have to produce those counts; this module holds what
they and the dispatcher (:mod:`capkit.counts.engines.dispatch`) have in common.
"""

from __future__ import annotations

import glob
import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

ENGINES = ("pandas", "duckdb", "spark")

#: Package to install for each engine (pip name, and capkit's extra where there is one).
INSTALL_HINT = {
    "duckdb": "pip install duckdb  (a capkit dependency; reinstall capkit)",
    "spark": "pip install 'capkit[spark]'  (or: pip install pyspark; Spark also needs Java 17+)",
}

#: Name of the count column in the grouped results (cannot clash with a user column).
COUNT_COLUMN = "__capkit_count__"

_PARQUET = (".parquet", ".pq")
_CSV = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".csv.zst")

#: Values read as missing in CSV files (R's ``write.csv`` writes NA as ``NA``; as capkit.data.io).
CSV_NA_VALUES = ("", "NA")


@dataclass(frozen=True)
class CellCounts:
    """Long-form counts of one input over the aligned grid.

    ``i[c]``, ``j[c]`` are the target row and key column of cell c and ``n[c]`` its number of
    records; each cell appears once, and only cells with ``n > 0`` are listed.
    ``records`` is the number of rows of the input (including rows left out by ``dropna``).
    """

    i: np.ndarray
    j: np.ndarray
    n: np.ndarray
    records: int


@dataclass(frozen=True)
class CodedCounts:
    """What :func:`capkit.counts.tables.crosstab` needs from an engine: counts and labels.

    Attributes
    ----------
    engine
        The engine that counted.
    targets
        Labels of the I target rows (a ``MultiIndex`` for several target columns).
    keys
        Labels of the J key columns: a ``MultiIndex`` with one level per key column.
    original, synthetic
        :class:`CellCounts` of each input.
    """

    engine: str
    targets: pd.Index
    keys: pd.MultiIndex
    original: CellCounts
    synthetic: CellCounts

    @property
    def shape(self) -> tuple[int, int]:
        """(I, J)."""
        return len(self.targets), len(self.keys)


# --------------------------------------------------------------------------------------------
# recognising inputs and engines


def _module_of(obj: object) -> str:
    return type(obj).__module__ or ""


def is_spark_frame(obj: object) -> bool:
    """Whether ``obj`` is a PySpark DataFrame (classic or Spark Connect), without importing it."""
    return _module_of(obj).startswith("pyspark") and type(obj).__name__ == "DataFrame"


def is_duckdb_relation(obj: object) -> bool:
    """Whether ``obj`` is a DuckDB relation (``DuckDBPyRelation``), without importing DuckDB."""
    return _module_of(obj).startswith(("duckdb", "_duckdb")) and "Relation" in type(obj).__name__


def is_path(obj: object) -> bool:
    """Whether ``obj`` names files: a str/Path (a glob allowed) or a list of them."""
    if isinstance(obj, str | os.PathLike):
        return True
    return (isinstance(obj, list | tuple) and len(obj) > 0
            and all(isinstance(x, str | os.PathLike) for x in obj))


def _describe(obj: object) -> str:
    return f"{_module_of(obj)}.{type(obj).__name__}".lstrip(".")


def _check_input(obj: object, role: str) -> None:
    if not (isinstance(obj, pd.DataFrame) or is_path(obj) or is_spark_frame(obj)
            or is_duckdb_relation(obj)):
        raise CapkitError(
            f"{role} data must be a pandas DataFrame, a Parquet/CSV path or glob (or a list of "
            f"them), a DuckDB relation or a PySpark DataFrame; got {_describe(obj)}"
        )


def choose_engine(original: object, synthetic: object, engine: str | None = None) -> str:
    """The engine to count with: ``engine`` if given, else chosen from the inputs.

    Without ``engine``: a PySpark DataFrame among the inputs -> ``"spark"``; otherwise a DuckDB
    relation or a file path -> ``"duckdb"``; otherwise (two pandas DataFrames) ``"pandas"``.

    Raises
    ------
    CapkitError
        For an unknown engine, an input of an unsupported type, or inputs the chosen engine
        cannot read (a PySpark DataFrame outside Spark, a DuckDB relation inside Spark).
    """
    for role, obj in (("original", original), ("synthetic", synthetic)):
        _check_input(obj, role)
    inputs = (original, synthetic)
    if engine is None:
        if any(is_spark_frame(x) for x in inputs):
            engine = "spark"
        elif any(is_duckdb_relation(x) or is_path(x) for x in inputs):
            engine = "duckdb"
        else:
            engine = "pandas"
    if not isinstance(engine, str) or engine not in ENGINES:
        raise CapkitError(f"engine must be one of {list(ENGINES)} (or None), got {engine!r}")
    for role, obj in (("original", original), ("synthetic", synthetic)):
        if engine == "duckdb" and is_spark_frame(obj):
            raise CapkitError(
                f"{role} data is a PySpark DataFrame: count it with engine='spark' (or write it "
                "to Parquet and give the path to engine='duckdb')"
            )
        if engine == "spark" and is_duckdb_relation(obj):
            raise CapkitError(
                f"{role} data is a DuckDB relation: count it with engine='duckdb' (or write it "
                "to Parquet and give the path to engine='spark')"
            )
    return engine


#: Above this total size of input files, :func:`engine_for` picks DuckDB over pandas (1 GiB).
FILE_SIZE_THRESHOLD = 2**30


def engine_for(original: object, synthetic: object, threshold: int = FILE_SIZE_THRESHOLD
               ) -> str:
    """The engine a command line should use when the user did not choose one.

    Like :func:`choose_engine`, except that files whose total size is at most ``threshold``
    bytes are read into pandas (the pandas engine also gives per-record cells). Use it as
    ``crosstab(original, synthetic, keys, target, engine=engine_for(original, synthetic))``.
    """
    engine = choose_engine(original, synthetic)
    pairs = (("original", original), ("synthetic", synthetic))
    if engine != "duckdb" or any(is_duckdb_relation(x) for _, x in pairs):
        return engine
    size = sum(os.path.getsize(f) for role, x in pairs if is_path(x)
               for f in expand_paths(x, role)[0])
    return "duckdb" if size > threshold else "pandas"


def require(engine: str) -> Any:
    """Import the Python package behind ``engine``; a :class:`CapkitError` says what to install."""
    package = {"duckdb": "duckdb", "spark": "pyspark"}.get(engine)
    if package is None:
        return None
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        raise CapkitError(
            f"engine {engine!r} needs the Python package {package!r}, which is not installed: "
            f"{INSTALL_HINT[engine]}"
        ) from exc


# --------------------------------------------------------------------------------------------
# files


def expand_paths(source: str | os.PathLike | Sequence[str | os.PathLike], role: str
                 ) -> tuple[list[str], str]:
    """The files named by a path, a glob or a list of them, and their format.

    Returns (files, format) with format ``"parquet"`` or ``"csv"``. Raises :class:`CapkitError`
    naming ``role`` when nothing matches, the extension is unknown or formats are mixed.
    """
    items = [source] if isinstance(source, str | os.PathLike) else list(source)
    files: list[str] = []
    for item in items:
        text = os.fspath(item)
        if glob.has_magic(text):
            matched = sorted(glob.glob(text, recursive=True))
            if not matched:
                raise CapkitError(f"{role} data: no file matches {text!r}")
            files.extend(matched)
        else:
            if not Path(text).is_file():
                raise CapkitError(f"{role} data: file {text!r} does not exist")
            files.append(text)
    formats = set()
    for f in files:
        name = f.lower()
        if name.endswith(_PARQUET):
            formats.add("parquet")
        elif name.endswith(_CSV):
            formats.add("csv")
        else:
            raise CapkitError(
                f"{role} data: cannot tell the format of {f!r}; expected one of "
                f"{list(_PARQUET + _CSV)}"
            )
    if len(formats) > 1:
        raise CapkitError(f"{role} data mixes Parquet and CSV files; give one format")
    return files, formats.pop()


# --------------------------------------------------------------------------------------------
# schema checks shared by the engines


def kind_of_type(type_name: str) -> str:
    """``"numeric"``, ``"datetime"`` or ``"text"`` for an engine's type name (as
    :func:`capkit.counts.tables.kind_of_series`)."""
    name = type_name.upper()
    numeric = ("INT", "FLOAT", "DOUBLE", "DECIMAL", "REAL", "BOOLEAN", "LONG", "SHORT", "BYTE",
               "NUMERIC")
    if name.startswith(("DATE", "TIMESTAMP", "TIME")):
        return "datetime"
    if any(word in name for word in numeric) and not name.startswith(("ENUM", "STRUCT", "MAP",
                                                                       "ARRAY")):
        return "numeric"
    return "text"


def validate_schemas(schema_o: dict[str, str], schema_s: dict[str, str], keys: list[str],
                     targets: list[str]) -> None:
    """The checks of :func:`capkit.counts.tables.validate_frames`, on column name -> kind maps."""
    overlap = [t for t in targets if t in keys]
    if overlap:
        raise CapkitError(f"target column {overlap[0]!r} is also a key; a target cannot be a key")
    for role, columns in (("key", keys), ("target", targets)):
        for column in columns:
            for name, schema in (("original", schema_o), ("synthetic", schema_s)):
                if column not in schema:
                    raise CapkitError(f"{role} column {column!r} is missing from {name} data")
            if schema_o[column] != schema_s[column]:
                raise CapkitError(
                    f"{role} column {column!r} is {schema_o[column]} in original data but "
                    f"{schema_s[column]} in synthetic data; convert one of them first"
                )


# --------------------------------------------------------------------------------------------
# the pandas side: aligning the grouped rows of both inputs


def reject_duplicated_columns(original: object, synthetic: object) -> None:
    """A pandas input with two columns of one name cannot be counted by name."""
    for role, source in (("original", original), ("synthetic", synthetic)):
        if isinstance(source, pd.DataFrame) and source.columns.duplicated().any():
            dup = source.columns[source.columns.duplicated()].unique().tolist()
            raise CapkitError(f"{role} data has duplicated column names: {dup}")


def run_grouping(run: Callable[[], pd.DataFrame], role: str, engine: str) -> pd.DataFrame:
    """Run an engine's GROUP BY; its failure or an empty result becomes a CapkitError."""
    try:
        grouped = run()
    except Exception as exc:
        raise CapkitError(f"{role} data could not be counted by {engine}: {exc}") from exc
    if len(grouped) == 0:
        raise CapkitError(f"{role} data is empty (0 rows)")
    return grouped
