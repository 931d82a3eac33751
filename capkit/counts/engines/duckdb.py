"""The DuckDB engine: group-by counts of Parquet/CSV files, DuckDB relations or DataFrames.

DuckDB streams Parquet and CSV files (globs included) through a parallel hash aggregation and
spills to disk when the groups do not fit in memory, so inputs far larger than memory are
counted in one pass each; only the grouped rows (one per distinct cell) come back to Python.
Hand-written SQL through DuckDB's relational API: the whole job is one ``GROUP BY`` per input.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

import pandas as pd

from capkit.counts.encode import kind_of_series
from capkit.counts.engines.common import (
    COUNT_COLUMN,
    CSV_NA_VALUES,
    expand_paths,
    is_duckdb_relation,
    kind_of_type,
    reject_duplicated_columns,
    require,
    run_grouping,
    validate_schemas,
)
from capkit.errors import CapkitError


def quote(name: str) -> str:
    """A column name as a DuckDB identifier."""
    return '"' + str(name).replace('"', '""') + '"'


#: process id -> the private folder its DuckDB connections spill to (made on first use).
_SPILL: dict[int, str] = {}


def _remove_spill(pid: int) -> None:
    """Remove the spill folder of process ``pid``, if this is that process (a forked child
    inherits the parent's exit handlers, not its folder)."""
    folder = _SPILL.get(pid)
    if folder is not None and os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)
        _SPILL.pop(pid, None)


def spill_folder() -> str:
    """This process's private folder for DuckDB's spilled data: a new folder under the system
    temporary folder made by :func:`tempfile.mkdtemp` (mode 700, a name no other user can
    take beforehand), removed when the process exits."""
    pid = os.getpid()
    folder = _SPILL.get(pid)
    if folder is None or not os.path.isdir(folder):
        folder = tempfile.mkdtemp(prefix=f"capkit_duckdb_{pid}_")
        _SPILL[pid] = folder
        atexit.register(_remove_spill, pid)
    return folder


def connect(config: dict[str, Any] | None = None) -> Any:
    """A fresh in-memory DuckDB connection set up for large aggregations.

    Spilled data goes to a private folder of this process under the system temporary folder
    (:func:`spill_folder`, never the working directory, never a folder another user made);
    insertion order is not kept (it is not needed and costs memory). ``config`` overrides
    DuckDB settings, e.g. ``{"memory_limit": "8GB", "threads": 2}``.
    """
    duckdb = require("duckdb")
    settings: dict[str, Any] = {
        "preserve_insertion_order": False,
        "temp_directory": spill_folder(),
    }
    settings.update(config or {})
    return duckdb.connect(":memory:", config=settings)


def relation(source: object, con: Any, role: str, *, sep: str | None = None) -> Any:
    """A DuckDB relation over ``source`` (DataFrame, path/glob/list of paths, or a relation).

    CSV files are read with ``sep`` as the delimiter when given (``"tab"`` or ``"\\t"`` for a
    tab), else with DuckDB's own detection.
    """
    if is_duckdb_relation(source):
        return source
    try:
        if isinstance(source, pd.DataFrame):
            return con.from_df(source)
        files, fmt = expand_paths(source, role)  # type: ignore[arg-type]
        if fmt == "parquet":
            return con.read_parquet(files)
        options = {} if sep is None else {"sep": "\t" if sep in ("tab", "\\t") else sep}
        return con.read_csv(files, header=True, na_values=list(CSV_NA_VALUES), **options)
    except CapkitError:
        raise
    except Exception as exc:  # duckdb raises its own exception hierarchy
        raise CapkitError(f"{role} data could not be read by DuckDB: {exc}") from exc


def _schema(source: object, rel: Any) -> dict[str, str]:
    if isinstance(source, pd.DataFrame):
        return {str(c): kind_of_series(source[c]) for c in source.columns}
    return {str(c): kind_of_type(str(t)) for c, t in zip(rel.columns, rel.types, strict=True)}


def _grouped(rel: Any, columns: list[str], role: str) -> pd.DataFrame:
    cols = ", ".join(quote(c) for c in columns)
    return run_grouping(
        lambda: rel.aggregate(f"{cols}, count(*) AS {quote(COUNT_COLUMN)}", cols).df(),
        role, "DuckDB")


def group_counts(original: object, synthetic: object, keys: list[str], targets: list[str],
                 *, config: dict[str, Any] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One grouped frame per input: the distinct (keys, targets) rows and their record counts.

    Raises :class:`CapkitError` for unreadable input, a missing column, a target that is a key,
    a column whose kind differs between the inputs, or an empty input.
    """
    con = None
    if not (is_duckdb_relation(original) and is_duckdb_relation(synthetic)):
        con = connect(config)
    try:
        rel_o = relation(original, con, "original")
        rel_s = relation(synthetic, con, "synthetic")
        reject_duplicated_columns(original, synthetic)
        try:
            validate_schemas(_schema(original, rel_o), _schema(synthetic, rel_s), keys, targets)
        except CapkitError:
            # a CSV file with a header and no rows has text columns only: say it is empty
            for role, rel in (("original", rel_o), ("synthetic", rel_s)):
                if not rel.limit(1).fetchall():
                    raise CapkitError(f"{role} data is empty (0 rows)") from None
            raise
        columns = keys + targets
        return _grouped(rel_o, columns, "original"), _grouped(rel_s, columns, "synthetic")
    finally:
        if con is not None:
            con.close()


def to_pandas(source: object, columns: list[str], role: str) -> pd.DataFrame:
    """Only the given columns of a file or relation, as pandas (for ``engine="pandas"``)."""
    con = None if is_duckdb_relation(source) else connect()
    try:
        rel = relation(source, con, role)
        missing = [c for c in columns if c not in rel.columns]
        if missing:
            raise CapkitError(f"column {missing[0]!r} is missing from {role} data")
        try:
            return rel.select(", ".join(quote(c) for c in columns)).df()
        except Exception as exc:
            raise CapkitError(f"{role} data could not be read by DuckDB: {exc}") from exc
    finally:
        if con is not None:
            con.close()
