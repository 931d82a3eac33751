"""Aligned target x key count tables from two data frames: the narrow waist of capkit.

Every CAP-family and synthpop attribute measure is a function of two aligned count tables,
``o[i, j]`` (original records with target level i and key combination j) and ``s[i, j]`` (the
same for the synthetic data); Baillargeon & Charest write them o_ij / s_ij, Raab, Nowok & Dibben
d_tq / s_tq. Rows are target levels, columns are key combinations, everywhere in capkit.

:func:`crosstab` builds them once, vectorised: each column is factorised over the union of both
frames' levels (``pandas.factorize`` or the declared categories), the key columns are combined
into one code per record, and the cells are counted with ``numpy.bincount``. There is no Python
loop over records or key combinations. When the dense I x J table would be too large the counts
are returned as a ``scipy.sparse.csr_array``; every function of :mod:`capkit.cap` accepts either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pandas.api import types as pdt
from scipy import sparse

from capkit.errors import CapkitError

#: Dense tables up to this many cells (I * J); larger ones are returned sparse by default.
DENSE_CELL_LIMIT = 2**24

Table = np.ndarray | sparse.csr_array


@dataclass(frozen=True)
class KeyTargetTable:
    """Counts of two data frames on an aligned target x key grid.

    Attributes
    ----------
    original, synthetic
        (I, J) integer count tables, rows = target levels, columns = key combinations
        (dense ``numpy.ndarray`` or ``scipy.sparse.csr_array``).
    targets
        Labels of the I rows (a ``MultiIndex`` when several target columns are combined).
    keys
        Labels of the J columns: a ``MultiIndex`` with one level per key column.
    record_cell
        (n, 2) int array: for each original record (in the frame's row order), its (i, j);
        ``-1`` for a record dropped because of a missing value (``dropna=True``).
        ``None`` when a DuckDB or Spark engine counted (records never come back to Python).
    synthetic_record_cell
        The same for the synthetic records.
    """

    original: Table
    synthetic: Table
    targets: pd.Index
    keys: pd.Index
    record_cell: np.ndarray | None
    synthetic_record_cell: np.ndarray | None

    @property
    def shape(self) -> tuple[int, int]:
        """(I, J): number of target levels and of key combinations."""
        return self.original.shape

    @property
    def is_sparse(self) -> bool:
        """Whether the counts are held as sparse matrices."""
        return sparse.issparse(self.original)


def _as_list(columns: str | Sequence[str], argument: str) -> list[str]:
    if isinstance(columns, str):
        return [columns]
    try:
        names = list(columns)
    except TypeError as exc:
        raise CapkitError(f"{argument} must be a column name or a list of column names") from exc
    if not names:
        raise CapkitError(f"{argument} is empty: give at least one column name")
    if len(set(names)) != len(names):
        raise CapkitError(f"{argument} names a column twice: {names}")
    return names


def kind_of_series(series: pd.Series) -> str:
    """``"numeric"``, ``"datetime"`` or ``"text"``: the kind of a column, which must agree
    between original and synthetic data (categoricals by their categories' dtype)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if pdt.is_bool_dtype(dtype) or pdt.is_numeric_dtype(dtype):
        return "numeric"
    if pdt.is_datetime64_any_dtype(dtype):
        return "datetime"
    return "text"


def validate_frames(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: list[str],
    targets: list[str],
) -> None:
    """Raise :class:`CapkitError` unless both frames can be cross-tabulated on keys x targets.

    Checks: both are non-empty DataFrames without duplicated column names, every key and target
    column is present in both, no target is also a key, and each column has the same kind
    (numeric, text or datetime) in both frames.
    """
    for name, frame in (("original", original), ("synthetic", synthetic)):
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} data must be a pandas DataFrame, got {type(frame).__name__}")
        if frame.shape[0] == 0:
            raise CapkitError(f"{name} data is empty (0 rows)")
        duplicated = frame.columns[frame.columns.duplicated()].unique().tolist()
        if duplicated:
            raise CapkitError(f"{name} data has duplicated column names: {duplicated}")
    overlap = [t for t in targets if t in keys]
    if overlap:
        raise CapkitError(f"target column {overlap[0]!r} is also a key; a target cannot be a key")
    for role, columns in (("key", keys), ("target", targets)):
        for column in columns:
            for name, frame in (("original", original), ("synthetic", synthetic)):
                if column not in frame.columns:
                    raise CapkitError(f"{role} column {column!r} is missing from {name} data")
            kind_o, kind_s = kind_of_series(original[column]), kind_of_series(synthetic[column])
            if kind_o != kind_s:
                raise CapkitError(
                    f"{role} column {column!r} is {kind_o} in original data but {kind_s} in "
                    "synthetic data; convert one of them first"
                )


def _union_categories(a: pd.Series, b: pd.Series) -> pd.Index:
    """Declared categories of the categorical side(s) first, then other values, sorted."""
    declared: list[pd.Index] = [
        x.cat.categories for x in (a, b) if isinstance(x.dtype, pd.CategoricalDtype)
    ]
    levels = declared[0]
    for more in declared[1:]:
        levels = levels.append(more.difference(levels, sort=False))
    for x in (a, b):
        if not isinstance(x.dtype, pd.CategoricalDtype):
            values = pd.Index(pd.unique(x.dropna()))
            extra = values.difference(levels, sort=False)
            try:
                extra = extra.sort_values()
            except TypeError:
                pass
            levels = levels.append(extra)
    return levels


def factorize_pair(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Integer codes of two columns over the union of their levels.

    Categorical columns keep their declared level order; other columns are factorised with
    their values sorted (appearance order where values of mixed types cannot be sorted).
    Missing values get a level of their own, the last one, labelled NaN, when they occur.

    Returns
    -------
    codes_a, codes_b : numpy.ndarray
        int64 codes in ``0 .. len(levels) - 1``.
    levels : pandas.Index
        The label of each code.
    """
    if isinstance(a.dtype, pd.CategoricalDtype) or isinstance(b.dtype, pd.CategoricalDtype):
        levels = _union_categories(a, b)
        codes_a = pd.Categorical(a, categories=levels).codes.astype(np.int64)
        codes_b = pd.Categorical(b, categories=levels).codes.astype(np.int64)
    else:
        both = pd.concat([a, b], ignore_index=True)
        try:
            codes, levels = pd.factorize(both, sort=True)
        except TypeError:
            codes, levels = pd.factorize(both, sort=False)
        codes = codes.astype(np.int64, copy=False)
        levels = pd.Index(levels)
        codes_a, codes_b = codes[: len(a)], codes[len(a) :]
    missing_a, missing_b = codes_a < 0, codes_b < 0
    if missing_a.any() or missing_b.any():
        na_code = len(levels)
        codes_a = np.where(missing_a, na_code, codes_a)
        codes_b = np.where(missing_b, na_code, codes_b)
        levels = levels.append(pd.Index([np.nan], dtype=object)) if len(levels) else pd.Index(
            [np.nan], dtype=object
        )
    return codes_a, codes_b, levels


def _compress(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Renumber codes in ``0..size-1`` to ``0..k-1`` keeping their order; return (new, used)."""
    if size <= max(4 * len(codes), 2**20):
        present = np.bincount(codes, minlength=size) > 0
        used = np.flatnonzero(present)
        remap = np.cumsum(present) - 1
        return remap[codes], used
    used, inverse = np.unique(codes, return_inverse=True)
    return inverse.astype(np.int64, copy=False), used


def combine_codes(
    columns_a: list[np.ndarray], columns_b: list[np.ndarray], cardinalities: list[int]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """One code per record for a combination of columns, over the combinations that occur.

    Parameters
    ----------
    columns_a, columns_b
        Per-column codes of the two frames (from :func:`factorize_pair`).
    cardinalities
        Number of levels of each column.

    Returns
    -------
    combined_a, combined_b
        Codes ``0..k-1`` of the k combinations present in either frame, ordered
        lexicographically by the per-column codes.
    components
        For each column, the per-column code of each of the k combinations.
    """
    n_a = len(columns_a[0])
    codes = np.concatenate([columns_a[0], columns_b[0]])
    size = cardinalities[0]
    codes, used = _compress(codes, size)
    components = [used]
    for col_a, col_b, card in zip(columns_a[1:], columns_b[1:], cardinalities[1:], strict=True):
        width = len(components[0])
        codes = codes * card + np.concatenate([col_a, col_b])
        codes, used = _compress(codes, width * card)
        components = [c[used // card] for c in components] + [used % card]
    return codes[:n_a], codes[n_a:], components


def _count(i: np.ndarray, j: np.ndarray, shape: tuple[int, int], as_sparse: bool) -> Table:
    if as_sparse:
        ones = np.ones(len(i), dtype=np.int64)
        return sparse.coo_array((ones, (i, j)), shape=shape).tocsr()
    flat = np.bincount(i * shape[1] + j, minlength=shape[0] * shape[1])
    return flat.reshape(shape).astype(np.int64, copy=False)


def _labels(levels: list[pd.Index], components: list[np.ndarray], names: list[str]) -> pd.Index:
    arrays = [lv.take(c) for lv, c in zip(levels, components, strict=True)]
    return pd.MultiIndex.from_arrays(arrays, names=names)


def encode_columns(first: pd.DataFrame, second: pd.DataFrame, columns: list[str]
                   ) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """One code per row of each frame for its combination of ``columns``.

    Codes run over the combinations present in either frame (the union of both frames' levels,
    :func:`factorize_pair` per column, :func:`combine_codes` across columns).

    Returns
    -------
    codes_first, codes_second, labels
        The codes of ``first`` and ``second``, and the label of each code: an Index for one
        column, a MultiIndex named by ``columns`` for several.
    """
    pairs = [factorize_pair(first[c], second[c]) for c in columns]
    levels = [p[2] for p in pairs]
    codes_first, codes_second, components = combine_codes(
        [p[0] for p in pairs], [p[1] for p in pairs], [len(lv) for lv in levels]
    )
    labels = _labels(levels, components, columns)
    if len(columns) == 1:
        labels = labels.get_level_values(0)
    return codes_first, codes_second, labels


def crosstab(
    original: pd.DataFrame | object,
    synthetic: pd.DataFrame | object,
    keys: str | Sequence[str],
    target: str | Sequence[str],
    *,
    dropna: bool = False,
    sparse_output: bool | None = None,
    engine: str | None = None,
) -> KeyTargetTable:
    """Aligned target x key count tables of an original and a synthetic data frame.

    Parameters
    ----------
    original, synthetic
        The two data frames. Neither is modified. With an ``engine`` (see below) each may also
        be a Parquet/CSV path or glob, a DuckDB relation or a PySpark DataFrame.
    keys
        One or more key columns (the quasi-identifiers an intruder knows); their combinations
        are the keys K_1..K_J of Baillargeon & Charest (Section 2.1).
    target
        One target column, or several that act as one combined target (as SDMetrics'
        ``sensitive_fields`` do).
    dropna
        By default a missing value is a level of its own (synthpop's ``"Missing"``). With
        ``dropna=True`` records with a missing key or target are left out of both tables and
        their ``record_cell`` is ``(-1, -1)``.
    sparse_output
        ``True``/``False`` forces sparse/dense counts; ``None`` (default) goes sparse when the
        table has more than :data:`DENSE_CELL_LIMIT` cells.
    engine
        Who counts: ``"pandas"`` (in memory, the code below), ``"duckdb"`` (files or relations
        larger than memory) or ``"spark"`` (PySpark DataFrames, clusters); ``None`` chooses from
        the inputs (pandas for two DataFrames). Every engine gives the same labels and counts;
        DuckDB and Spark return ``record_cell = None``. See :mod:`capkit.engines`.

    Returns
    -------
    KeyTargetTable
        Counts over the union of both frames' levels: a key combination or target level present
        in only one frame is a column or row of zeros in the other.

    Raises
    ------
    CapkitError
        For a missing column, a target that is also a key, an empty frame, duplicated column
        names, or a column that is numeric in one frame and text in the other.
    """
    key_cols = _as_list(keys, "keys")
    target_cols = _as_list(target, "target")
    if engine is not None or not (
        isinstance(original, pd.DataFrame) and isinstance(synthetic, pd.DataFrame)
    ):
        from capkit import engines

        engine = engines.choose_engine(original, synthetic, engine)
        if engine != "pandas":
            counted = engines.count_codes(original, synthetic, key_cols, target_cols, engine,
                                          dropna=dropna)
            counts_o, counts_s = engines.count_table(counted, sparse_output)
            return KeyTargetTable(counts_o, counts_s, counted.targets, counted.keys, None, None)
        original = engines.to_pandas(original, key_cols + target_cols, "original")
        synthetic = engines.to_pandas(synthetic, key_cols + target_cols, "synthetic")
    validate_frames(original, synthetic, key_cols, target_cols)

    i_o, i_s, target_labels = encode_columns(original, synthetic, target_cols)
    j_o, j_s, key_labels = encode_columns(original, synthetic, key_cols)
    if not isinstance(key_labels, pd.MultiIndex):
        key_labels = pd.MultiIndex.from_arrays([key_labels], names=key_cols)
    shape = (len(target_labels), len(key_labels))

    keep_o = keep_s = None
    if dropna:
        keep_o = original[key_cols + target_cols].notna().all(axis=1).to_numpy()
        keep_s = synthetic[key_cols + target_cols].notna().all(axis=1).to_numpy()

    if sparse_output is None:
        sparse_output = shape[0] * shape[1] > DENSE_CELL_LIMIT

    def count(i: np.ndarray, j: np.ndarray, keep: np.ndarray | None) -> tuple[Table, np.ndarray]:
        cells = np.column_stack([i, j])
        if keep is not None:
            cells[~keep] = -1
            i, j = i[keep], j[keep]
        return _count(i, j, shape, sparse_output), cells

    counts_o, cells_o = count(i_o, j_o, keep_o)
    counts_s, cells_s = count(i_s, j_s, keep_s)
    return KeyTargetTable(
        original=counts_o,
        synthetic=counts_s,
        targets=target_labels,
        keys=key_labels,
        record_cell=cells_o,
        synthetic_record_cell=cells_s,
    )


def records_from_counts(
    counts: np.ndarray,
    targets: Sequence[object],
    keys: Sequence[object],
    *,
    target_name: str = "target",
    key_name: str = "key",
) -> pd.DataFrame:
    """The records behind a target x key count table (the inverse of :func:`crosstab`).

    Records come cell by cell in row-major order (target, then key), each cell repeated as often
    as its count; both columns are categoricals with the given level order. Useful to run the
    frame-level functions on the papers' tables.
    """
    table = np.asarray(counts)
    if table.ndim != 2 or table.shape != (len(targets), len(keys)):
        raise CapkitError(
            f"counts must have shape ({len(targets)}, {len(keys)}) to match targets and keys, "
            f"got {table.shape}"
        )
    if (table < 0).any():
        raise CapkitError("counts hold negative values")
    flat = table.ravel().astype(np.int64)
    cells = np.repeat(np.arange(flat.size), flat)
    i, j = np.divmod(cells, table.shape[1])
    return pd.DataFrame({
        key_name: pd.Categorical.from_codes(j, categories=list(keys)),
        target_name: pd.Categorical.from_codes(i, categories=list(targets)),
    })
