"""Who counts: pandas in memory, DuckDB on files larger than memory, Spark on a cluster.

Names only; the dispatcher is :mod:`capkit.counts.engines.dispatch`, what the engines share is
:mod:`capkit.counts.engines.common`, each engine has its own module (``duckdb``, ``spark``).
"""

from capkit.counts.engines.common import (
    COUNT_COLUMN,
    CSV_NA_VALUES,
    ENGINES,
    FILE_SIZE_THRESHOLD,
    INSTALL_HINT,
    CellCounts,
    CodedCounts,
    choose_engine,
    engine_for,
    expand_paths,
    is_duckdb_relation,
    is_path,
    is_spark_frame,
    kind_of_type,
    reject_duplicated_columns,
    require,
    run_grouping,
    validate_schemas,
)
from capkit.counts.engines.dispatch import align_grouped, count_codes, count_table, to_pandas

__all__ = [
    "COUNT_COLUMN",
    "CSV_NA_VALUES",
    "ENGINES",
    "FILE_SIZE_THRESHOLD",
    "INSTALL_HINT",
    "CellCounts",
    "CodedCounts",
    "align_grouped",
    "choose_engine",
    "count_codes",
    "count_table",
    "engine_for",
    "expand_paths",
    "is_duckdb_relation",
    "is_path",
    "is_spark_frame",
    "kind_of_type",
    "reject_duplicated_columns",
    "require",
    "run_grouping",
    "to_pandas",
    "validate_schemas",
]
