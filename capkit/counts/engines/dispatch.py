"""The count step of :func:`capkit.counts.tables.crosstab` on pandas, DuckDB or Spark: which
engine counts, and the aligned long-form counts it returns.

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
   of the pandas path (:func:`capkit.counts.tables.factorize_pair`,
   :func:`capkit.counts.tables.combine_codes`:
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

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from capkit.counts.encode import as_list, encode_columns
from capkit.counts.engines import duckdb as duckdb_engine
from capkit.counts.engines import spark as spark_engine
from capkit.counts.engines.common import (
    COUNT_COLUMN,
    CellCounts,
    CodedCounts,
    choose_engine,
    is_spark_frame,
    require,
)
from capkit.counts.table import count_frames, wants_sparse

if TYPE_CHECKING:
    from scipy import sparse


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


def align_grouped(grouped_o: pd.DataFrame, grouped_s: pd.DataFrame, keys: list[str],
                  targets: list[str], *, dropna: bool = False, engine: str = "",
                  allow_disjoint_levels: bool = False) -> CodedCounts:
    """Put the grouped rows of both inputs on one aligned grid (step 3 of the module note).

    ``grouped_o`` / ``grouped_s`` have one row per distinct (keys, targets) combination of each
    input and its number of records in :data:`COUNT_COLUMN`. Levels come from
    :func:`capkit.counts.tables.factorize_pair` and :func:`capkit.counts.tables.combine_codes`,
    exactly as in
    the pandas path; with ``dropna`` the cells with a missing key or target keep their labels
    but are not counted. Each column's levels are checked on the record counts
    (:func:`capkit.counts.encode.check_levels`).
    """
    weights = (grouped_o[COUNT_COLUMN].to_numpy(dtype=float),
               grouped_s[COUNT_COLUMN].to_numpy(dtype=float))
    i_o, i_s, target_labels = encode_columns(grouped_o, grouped_s, targets, role="target",
                                             weights=weights,
                                             allow_disjoint_levels=allow_disjoint_levels)
    j_o, j_s, key_labels = encode_columns(grouped_o, grouped_s, keys, role="key",
                                          weights=weights,
                                          allow_disjoint_levels=allow_disjoint_levels)
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
        return spark_engine.to_pandas(source, columns, role)
    return duckdb_engine.to_pandas(source, columns, role)


def count_codes(
    original: object,
    synthetic: object,
    keys: str | Sequence[str],
    targets: str | Sequence[str],
    engine: str | None = None,
    *,
    dropna: bool = False,
    allow_disjoint_levels: bool = False,
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
        As in :func:`capkit.counts.tables.crosstab`: cells with a missing key or target are not
        counted (their labels stay).
    allow_disjoint_levels
        As in :func:`capkit.counts.tables.crosstab`.

    Returns
    -------
    CodedCounts
        Labels of the I target rows and J key columns (the same, in the same order, as the
        pandas path of :func:`capkit.counts.tables.crosstab`) and, per input, the non-zero cells
        (i, j, n).

    Raises
    ------
    CapkitError
        Bad input (missing column, target that is a key, empty input, mismatched column kinds,
        unreadable file) or an engine whose package is not installed (the message says what to
        install).
    """
    key_cols = as_list(keys, "keys")
    target_cols = as_list(targets, "target")
    engine = choose_engine(original, synthetic, engine)
    if engine == "pandas":
        columns = key_cols + target_cols
        table = count_frames(to_pandas(original, columns, "original"),
                             to_pandas(synthetic, columns, "synthetic"), key_cols, target_cols,
                             dropna=dropna, sparse_output=True,
                             allow_disjoint_levels=allow_disjoint_levels)

        def long(counts: sparse.csr_array, records: int) -> CellCounts:
            from scipy import sparse

            coo = sparse.coo_array(counts)
            order = np.lexsort((coo.col, coo.row))
            return CellCounts(i=coo.row[order].astype(np.int64),
                              j=coo.col[order].astype(np.int64),
                              n=coo.data[order].astype(np.int64), records=records)

        return CodedCounts("pandas", table.targets, table.keys,
                           long(table.original, len(table.record_cell)),
                           long(table.synthetic, len(table.synthetic_record_cell)))
    require(engine)
    backend = duckdb_engine if engine == "duckdb" else spark_engine
    grouped_o, grouped_s = backend.group_counts(original, synthetic, key_cols, target_cols)
    columns = key_cols + target_cols
    grouped_o = _restore_categoricals(grouped_o, original, columns)
    grouped_s = _restore_categoricals(grouped_s, synthetic, columns)
    return align_grouped(grouped_o, grouped_s, key_cols, target_cols, dropna=dropna,
                         engine=engine, allow_disjoint_levels=allow_disjoint_levels)


def count_table(counted: CodedCounts, sparse_output: bool | None = None
                ) -> tuple[np.ndarray | sparse.csr_array, np.ndarray | sparse.csr_array]:
    """The two (I, J) count tables of :class:`CodedCounts` (dense, or sparse when large).

    ``sparse_output=None`` goes sparse above :data:`capkit.counts.table.DENSE_CELL_LIMIT` cells, as
    the pandas path does; a dense table is only built when asked for or small.
    """
    shape = counted.shape
    if sparse_output is None:
        sparse_output = wants_sparse(shape)

    def build(c: CellCounts) -> np.ndarray | sparse.csr_array:
        if sparse_output:
            from scipy import sparse

            return sparse.coo_array((c.n, (c.i, c.j)), shape=shape).tocsr()
        table = np.zeros(shape, dtype=np.int64)
        table[c.i, c.j] = c.n  # each cell appears once
        return table

    return build(counted.original), build(counted.synthetic)
