"""The count step of :func:`capkit.tables.crosstab` on pandas, DuckDB or Spark.

Every CAP-family and synthpop attribute measure is a function of the aligned target x key
count tables o[i, j] / s[i, j] (Baillargeon & Charest, Section 2.1; Raab, Nowok & Dibben's
d_tq / s_tq). The engines only have to produce those counts, so data larger than memory (DuckDB
on Parquet/CSV files) or spread over a cluster (Spark) is measured by the same functions.

How a big engine counts (no per-record data ever comes back to Python):

1. in the engine, each input is grouped by its key and target columns:
   ``SELECT keys, targets, count(*) FROM data GROUP BY ALL`` (missing values form a group of
   their own, like the pandas path's NA level);
2. only these grouped rows -- one per distinct (key combination, target) cell of that input --
   come back, as a small pandas frame;
3. in pandas, the distinct values of both inputs are put on one grid by the very functions
   of the pandas path (:func:`capkit.tables.factorize_pair`, :func:`capkit.tables.combine_codes`:
   union of levels, sorted or in declared categorical order, NA last), and each grouped row
   becomes a cell (i, j) with its count n.

Because step 3 sees exactly the distinct values the pandas path sees, the levels, their order
and every count are identical to ``engine="pandas"``. The cost is one hash aggregation per input
in the engine, plus work in Python proportional to the number of distinct cells (which is the
number of records only in the worst case where every record is unique).

Public names: :func:`count_codes`, :func:`choose_engine`, :func:`to_pandas`,
:func:`disclosure_cells`, :data:`ENGINES`, :class:`CodedCounts`, :class:`CellCounts`.
"""

from __future__ import annotations

import glob
import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import sparse

from capkit.errors import CapkitError
from capkit.tables import kind_of_series

if TYPE_CHECKING:
    from capkit.disclosure.counts import CellTable
    from capkit.tables import KeyTargetTable

#: The engines :func:`capkit.tables.crosstab` accepts.
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

#: Values read as missing in CSV files (R's ``write.csv`` writes NA as ``NA``; as capkit.io).
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
    """What :func:`capkit.tables.crosstab` needs from an engine: counts and labels.

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
    :func:`capkit.tables.kind_of_series`)."""
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
    """The checks of :func:`capkit.tables.validate_frames`, on column name -> kind maps."""
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


def _restore_categoricals(grouped: pd.DataFrame, source: object, columns: list[str]
                          ) -> pd.DataFrame:
    """Give grouped columns back the declared categories a pandas input had."""
    if not isinstance(source, pd.DataFrame):
        return grouped
    out = grouped
    for c in columns:
        dtype = source[c].dtype
        if isinstance(dtype, pd.CategoricalDtype) and not (
            isinstance(out[c].dtype, pd.CategoricalDtype)
            and out[c].dtype.categories.equals(dtype.categories)
        ):
            if out is grouped:
                out = grouped.copy()
            out[c] = out[c].astype(dtype)
    return out


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


def align_grouped(grouped_o: pd.DataFrame, grouped_s: pd.DataFrame, keys: list[str],
                  targets: list[str], *, dropna: bool = False, engine: str = ""
                  ) -> CodedCounts:
    """Put the grouped rows of both inputs on one aligned grid (step 3 of the module note).

    ``grouped_o`` / ``grouped_s`` have one row per distinct (keys, targets) combination of each
    input and its number of records in :data:`COUNT_COLUMN`. Levels come from
    :func:`capkit.tables.factorize_pair` and :func:`capkit.tables.combine_codes`, exactly as in
    the pandas path; with ``dropna`` the cells with a missing key or target keep their labels
    but are not counted.
    """
    from capkit.tables import encode_columns

    i_o, i_s, target_labels = encode_columns(grouped_o, grouped_s, targets)
    j_o, j_s, key_labels = encode_columns(grouped_o, grouped_s, keys)
    if not isinstance(key_labels, pd.MultiIndex):
        key_labels = pd.MultiIndex.from_arrays([key_labels], names=keys)

    n_cols = len(key_labels)

    def cells(grouped: pd.DataFrame, i: np.ndarray, j: np.ndarray) -> CellCounts:
        n = grouped[COUNT_COLUMN].to_numpy(dtype=np.int64)
        keep = n > 0
        if dropna:
            keep &= grouped[keys + targets].notna().all(axis=1).to_numpy()
        # one entry per cell, row-major; two engine groups can be one pandas level (NaN, NULL)
        flat_cells = i[keep] * n_cols + j[keep]
        size = len(target_labels) * n_cols
        if size <= max(4 * len(flat_cells), 2**20):  # bincount over the grid is cheapest
            total_n = np.bincount(flat_cells, weights=n[keep], minlength=size)
            flat = np.flatnonzero(total_n)
            total_n = total_n[flat]
        else:
            flat, inverse = np.unique(flat_cells, return_inverse=True)
            total_n = np.bincount(inverse.ravel(), weights=n[keep], minlength=len(flat))
        rows, cols = np.divmod(flat, n_cols)
        return CellCounts(i=rows.astype(np.int64), j=cols.astype(np.int64),
                          n=np.rint(total_n).astype(np.int64), records=int(n.sum()))

    return CodedCounts(
        engine=engine,
        targets=target_labels,
        keys=key_labels,
        original=cells(grouped_o, i_o, j_o),
        synthetic=cells(grouped_s, i_s, j_s),
    )


# --------------------------------------------------------------------------------------------
# entry points


def to_pandas(source: object, columns: list[str], role: str) -> pd.DataFrame:
    """The given columns of any supported input as a pandas DataFrame (for ``engine="pandas"``).

    Files are read through DuckDB (only the needed columns are decoded; CSV missing values as in
    :data:`CSV_NA_VALUES`), so the pandas and DuckDB engines read a file to the same values.
    """
    if isinstance(source, pd.DataFrame):
        return source
    if is_spark_frame(source):
        from capkit.engines import spark as spark_engine

        return spark_engine.to_pandas(source, columns, role)
    from capkit.engines import duckdb as duckdb_engine

    return duckdb_engine.to_pandas(source, columns, role)


def count_codes(
    original: object,
    synthetic: object,
    keys: str | Sequence[str],
    targets: str | Sequence[str],
    engine: str | None = None,
    *,
    dropna: bool = False,
) -> CodedCounts:
    """Long-form aligned counts of two inputs, counted by an engine.

    Parameters
    ----------
    original, synthetic
        pandas DataFrames, Parquet/CSV paths or globs (or lists of them), DuckDB relations or
        PySpark DataFrames. Never modified.
    keys, targets
        Column names (one or several).
    engine
        ``"pandas"``, ``"duckdb"`` or ``"spark"``; ``None`` chooses from the inputs
        (:func:`choose_engine`).
    dropna
        As in :func:`capkit.tables.crosstab`: cells with a missing key or target are not
        counted (their labels stay).

    Returns
    -------
    CodedCounts
        Labels of the I target rows and J key columns (the same, in the same order, as the
        pandas path of :func:`capkit.tables.crosstab`) and, per input, the non-zero cells
        (i, j, n).

    Raises
    ------
    CapkitError
        Bad input (missing column, target that is a key, empty input, mismatched column kinds,
        unreadable file) or an engine whose package is not installed (the message says what to
        install).
    """
    from capkit.tables import _as_list

    key_cols = _as_list(keys, "keys")
    target_cols = _as_list(targets, "target")
    engine = choose_engine(original, synthetic, engine)
    if engine == "pandas":
        from capkit.tables import crosstab

        columns = key_cols + target_cols
        table = crosstab(to_pandas(original, columns, "original"),
                         to_pandas(synthetic, columns, "synthetic"), key_cols, target_cols,
                         dropna=dropna, sparse_output=True)

        def long(counts: sparse.csr_array, records: int) -> CellCounts:
            coo = sparse.coo_array(counts)
            order = np.lexsort((coo.col, coo.row))
            return CellCounts(i=coo.row[order].astype(np.int64),
                              j=coo.col[order].astype(np.int64),
                              n=coo.data[order].astype(np.int64), records=records)

        return CodedCounts("pandas", table.targets, table.keys,
                           long(table.original, len(table.record_cell)),
                           long(table.synthetic, len(table.synthetic_record_cell)))
    require(engine)
    if engine == "duckdb":
        from capkit.engines import duckdb as backend
    else:
        from capkit.engines import spark as backend  # type: ignore[no-redef]
    grouped_o, grouped_s = backend.group_counts(original, synthetic, key_cols, target_cols)
    columns = key_cols + target_cols
    grouped_o = _restore_categoricals(grouped_o, original, columns)
    grouped_s = _restore_categoricals(grouped_s, synthetic, columns)
    return align_grouped(grouped_o, grouped_s, key_cols, target_cols, dropna=dropna,
                         engine=engine)


def count_table(counted: CodedCounts, sparse_output: bool | None = None
                ) -> tuple[np.ndarray | sparse.csr_array, np.ndarray | sparse.csr_array]:
    """The two (I, J) count tables of :class:`CodedCounts` (dense, or sparse when large).

    ``sparse_output=None`` goes sparse above :data:`capkit.tables.DENSE_CELL_LIMIT` cells, as
    the pandas path does; a dense table is only built when asked for or small.
    """
    from capkit.tables import DENSE_CELL_LIMIT

    shape = counted.shape
    if sparse_output is None:
        sparse_output = shape[0] * shape[1] > DENSE_CELL_LIMIT

    def build(c: CellCounts) -> np.ndarray | sparse.csr_array:
        if sparse_output:
            return sparse.coo_array((c.n, (c.i, c.j)), shape=shape).tocsr()
        table = np.zeros(shape, dtype=np.int64)
        table[c.i, c.j] = c.n  # each cell appears once
        return table

    return build(counted.original), build(counted.synthetic)


def _label_text(values: pd.Index, missing: str) -> np.ndarray:
    text = np.asarray(values.astype(str), dtype=object)
    text[np.asarray(pd.isna(values))] = missing
    return text


def _level_text(labels: pd.MultiIndex, k: int, missing: str) -> np.ndarray:
    """Text of level k of every entry, sharing one string object per distinct level."""
    level = _label_text(labels.levels[k], missing)
    codes = np.asarray(labels.codes[k])
    return np.append(level, missing)[np.where(codes < 0, len(level), codes)]


def _pasted(parts: list[np.ndarray]) -> tuple[str, ...]:
    from capkit.disclosure.counts import Q_SEP

    if len(parts) == 1:
        return tuple(parts[0])
    return tuple(Q_SEP.join(p) for p in zip(*parts, strict=True))


def _union_cells(o: object, s: object, n_cols: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat row-major positions of the cells where o > 0 or s > 0, and both counts there."""
    if not (sparse.issparse(o) or sparse.issparse(s)):
        do, ds = np.asarray(o).ravel(), np.asarray(s).ravel()
        cells = np.flatnonzero((do > 0) | (ds > 0))
        return cells, do[cells], ds[cells]
    co, cs = sparse.csr_array(o).astype(np.int64), sparse.csr_array(s).astype(np.int64)
    big = int(co.max()) + 1 if co.nnz else 1
    top = int(cs.max()) if cs.nnz else 0
    if top < 2**62 // big:  # both counts packed in one sparse sum: O(nnz), no sort of cells
        both = sparse.coo_array(co + cs * big)
        cells = both.row.astype(np.int64) * n_cols + both.col
        order = np.argsort(cells, kind="stable")
        packed = both.data[order]
        return cells[order], packed % big, packed // big
    oo, so = co.tocoo(), cs.tocoo()
    flat = np.concatenate([oo.row.astype(np.int64) * n_cols + oo.col,
                           so.row.astype(np.int64) * n_cols + so.col])
    cells, inverse = np.unique(flat, return_inverse=True)
    d = np.bincount(inverse.ravel(), weights=np.concatenate([oo.data, np.zeros(so.nnz)]),
                    minlength=len(cells))
    s_ = np.bincount(inverse.ravel(), weights=np.concatenate([np.zeros(oo.nnz), so.data]),
                     minlength=len(cells))
    keep = (d > 0) | (s_ > 0)
    return cells[keep], d[keep], s_[keep]


def disclosure_cells(table: KeyTargetTable) -> CellTable:
    """A :func:`capkit.tables.crosstab` table as the cells synthpop's measures are computed on.

    This lets :func:`capkit.disclosure.compute` (Raab, Nowok & Dibben's identity and attribute
    measures, pairing cells by label) run on counts from any engine. Labels are the text of the
    values with a missing value written ``"Missing"`` (synthpop's label); key combinations
    are pasted with ``" | "``. Only the measures' inputs are reproduced: synthpop's own label
    processing (grouping of numeric variables, ``synorig.compare``) is not applied here.
    """
    from capkit.disclosure.counts import CellTable
    from capkit.disclosure.labels import MISSING

    n_rows, n_cols = table.shape
    cells, d, s_ = _union_cells(table.original, table.synthetic, n_cols)
    row, col = np.divmod(cells, n_cols)
    d, s_ = np.rint(d).astype(np.int64), np.rint(s_).astype(np.int64)
    targets = table.targets
    if isinstance(targets, pd.MultiIndex):
        row_text = np.array(_pasted([_level_text(targets, k, MISSING)
                                     for k in range(targets.nlevels)]), dtype=object)
    else:
        row_text = _label_text(targets, MISSING)
    comps = [_level_text(table.keys, k, MISSING) for k in range(table.keys.nlevels)]
    in_syn = np.bincount(col[s_ > 0], minlength=n_cols) > 0
    orig_rows = np.bincount(row[d > 0], minlength=n_rows) > 0
    return CellTable(
        row_labels=tuple(row_text),
        col_labels=_pasted(comps),
        col_components=tuple(tuple(c) for c in comps),
        row=row.astype(np.int64), col=col.astype(np.int64), d=d, s=s_,
        col_in_synthetic=in_syn,
        n_orig=int(d.sum()),
        n_syn=int(s_.sum()),
        orig_target_missing=bool(orig_rows[row_text == MISSING].any()),
    )




__all__ = [
    "COUNT_COLUMN",
    "ENGINES",
    "CellCounts",
    "CodedCounts",
    "align_grouped",
    "choose_engine",
    "count_codes",
    "count_table",
    "disclosure_cells",
    "engine_for",
    "expand_paths",
    "kind_of_series",
    "require",
    "to_pandas",
]
