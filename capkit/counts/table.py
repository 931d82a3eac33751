"""Aligned target x key count tables of two in-memory data frames (the pandas engine).

Every CAP-family and synthpop attribute measure is a function of two aligned count tables,
``o[i, j]`` (original records with target level i and key combination j) and ``s[i, j]`` (the
same for the synthetic data); Baillargeon & Charest write them o_ij / s_ij, Raab, Nowok & Dibben
d_tq / s_tq. Rows are target levels, columns are key combinations, everywhere in capkit.

:func:`count_frames` builds them once, vectorised: the columns are coded by
:mod:`capkit.counts.encode` and the cells counted with ``numpy.bincount``. When the dense I x J
table would be too large the counts are a ``scipy.sparse.csr_array``; every function of
:mod:`capkit.cap` accepts either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from capkit.counts.encode import encode_frames, validate_frames
from capkit.counts.integers import integer_counts
from capkit.errors import CapkitError

#: Dense tables up to this many cells (I * J); larger ones are returned sparse by default.
DENSE_CELL_LIMIT = 2**24

#: A count table: dense, or sparse when large (scipy.sparse is imported when a table is built
#: sparse: importing it costs a process about 0.06 CPU-s).
Table = "np.ndarray | scipy.sparse.csr_array"

#: A record -> cell map, None, or a function of no arguments that makes it.
Cells = np.ndarray | Callable[[], np.ndarray] | None

#: Labels, or a function of no arguments that makes them.
Labels = pd.Index | Callable[[], pd.Index]


def wants_sparse(shape: tuple[int, int]) -> bool:
    """Whether an (I, J) table is held sparse by default: more than :data:`DENSE_CELL_LIMIT`
    cells (read at call time, so the limit can be changed for a test or a session)."""
    return shape[0] * shape[1] > DENSE_CELL_LIMIT


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
        Computed on first access when the counts were made without it (a function of no
        arguments given in its place), as the labels may be: the average CAP needs neither.
    synthetic_record_cell
        The same for the synthetic records.
    holdout, holdout_record_cell
        With a holdout (records not used to make the synthetic data, the membership control):
        its counts on the same grid and its record -> cell map; ``None`` otherwise.

    The object is immutable (setting an attribute raises ``AttributeError``).
    """

    __slots__ = ("original", "synthetic", "holdout", "_made")

    original: Table
    synthetic: Table
    holdout: Table | None

    def __init__(self, original: Table, synthetic: Table, targets: Labels, keys: Labels,
                 record_cell: Cells, synthetic_record_cell: Cells, holdout: Table | None = None,
                 holdout_record_cell: Cells = None) -> None:
        for name, value in (("original", original), ("synthetic", synthetic),
                            ("holdout", holdout),
                            ("_made", [targets, keys, record_cell, synthetic_record_cell,
                                       holdout_record_cell])):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"KeyTargetTable is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"KeyTargetTable is immutable: cannot delete {name!r}")

    def _get(self, which: int) -> object:
        found = self._made[which]
        if callable(found):  # made on first use, then kept
            found = self._made[which] = found()
        return found

    @property
    def targets(self) -> pd.Index:
        """Labels of the I rows (see the class)."""
        return self._get(0)

    @property
    def keys(self) -> pd.MultiIndex:
        """Labels of the J columns (see the class)."""
        return self._get(1)

    @property
    def record_cell(self) -> np.ndarray | None:
        """(n, 2): each original record's (i, j) (see the class)."""
        return self._get(2)

    @property
    def synthetic_record_cell(self) -> np.ndarray | None:
        """(m, 2): each synthetic record's (i, j)."""
        return self._get(3)

    @property
    def holdout_record_cell(self) -> np.ndarray | None:
        """Each holdout record's (i, j), or None without a holdout."""
        return self._get(4)

    def __reduce__(self) -> tuple[type, tuple]:
        return (KeyTargetTable, (self.original, self.synthetic, self.targets, self.keys,
                                 self.record_cell, self.synthetic_record_cell, self.holdout,
                                 self.holdout_record_cell))

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        return (f"KeyTargetTable({self.shape[0]} targets x {self.shape[1]} keys, {kind}, "
                f"holdout={'yes' if self.holdout is not None else 'no'})")

    @property
    def shape(self) -> tuple[int, int]:
        """(I, J): number of target levels and of key combinations."""
        return self.original.shape

    @property
    def is_sparse(self) -> bool:
        """Whether the counts are held as sparse matrices."""
        return not isinstance(self.original, np.ndarray) and _sparse().issparse(self.original)


def _sparse():  # noqa: ANN202
    """scipy.sparse, imported when first needed."""
    from scipy import sparse

    return sparse


def _count(i: np.ndarray, j: np.ndarray, shape: tuple[int, int], as_sparse: bool) -> Table:
    if as_sparse:
        ones = np.ones(len(i), dtype=np.int64)
        return _sparse().coo_array((ones, (i, j)), shape=shape).tocsr()
    flat = np.bincount(i * shape[1] + j, minlength=shape[0] * shape[1])
    return flat.reshape(shape).astype(np.int64, copy=False)


def count_frames(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    key_cols: list[str],
    target_cols: list[str],
    *,
    dropna: bool = False,
    sparse_output: bool | None = None,
    holdout: pd.DataFrame | None = None,
    allow_disjoint_levels: bool = False,
) -> KeyTargetTable:
    """The counts of :func:`capkit.counts.tables.crosstab` for two pandas DataFrames.

    Parameters and result as there (``key_cols`` and ``target_cols`` are lists of names); the
    record -> cell maps are filled. With a ``holdout`` frame its counts come on the same grid
    (the union of the levels of all three frames).
    """
    validate_frames(original, synthetic, key_cols, target_cols)
    frames = [original, synthetic]
    if holdout is not None:
        validate_frames(original, holdout, key_cols, target_cols, ("original", "holdout"))
        frames.append(holdout)

    def as_sparse(shape: tuple[int, int]) -> bool:
        return wants_sparse(shape) if sparse_output is None else bool(sparse_output)

    fast = integer_counts(frames, key_cols, target_cols,
                          allow_disjoint_levels=allow_disjoint_levels, as_sparse=as_sparse)
    if fast is not None:  # plain integers, never missing: dropna drops nothing
        counted = []
        for table, cells in zip(fast.tables, fast.cells, strict=True):
            if table is None:
                cells = cells()
                table = _count(cells[:, 0], cells[:, 1], fast.shape, True)
            counted.append((table, cells))
        return _result(counted, fast.targets, lambda: _multi(fast.keys(), key_cols),
                       holdout is not None)

    target_codes, target_labels = encode_frames(frames, target_cols, role="target",
                                                allow_disjoint_levels=allow_disjoint_levels)
    key_codes, key_labels = encode_frames(frames, key_cols, role="key",
                                          allow_disjoint_levels=allow_disjoint_levels)
    key_labels = _multi(key_labels, key_cols)
    shape = (len(target_labels), len(key_labels))
    sparse_output = as_sparse(shape)

    def count(frame: pd.DataFrame, i: np.ndarray, j: np.ndarray) -> tuple[Table, np.ndarray]:
        cells = np.column_stack([i, j])
        if dropna:
            keep = frame[key_cols + target_cols].notna().all(axis=1).to_numpy()
            cells[~keep] = -1
            i, j = i[keep], j[keep]
        return _count(i, j, shape, sparse_output), cells

    counted = [count(f, i, j) for f, i, j in zip(frames, target_codes, key_codes, strict=True)]
    return _result(counted, target_labels, key_labels, holdout is not None)


def _multi(key_labels: pd.Index, key_cols: list[str]) -> pd.MultiIndex:
    if isinstance(key_labels, pd.MultiIndex):
        return key_labels
    return pd.MultiIndex.from_arrays([key_labels], names=key_cols)


def _result(counted: list[tuple[Table, Cells]], target_labels: Labels, key_labels: Labels,
            with_holdout: bool) -> KeyTargetTable:
    held = counted[2] if with_holdout else (None, None)
    return KeyTargetTable(
        original=counted[0][0],
        synthetic=counted[1][0],
        targets=target_labels,
        keys=key_labels,
        record_cell=counted[0][1],
        synthetic_record_cell=counted[1][1],
        holdout=held[0],
        holdout_record_cell=held[1],
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
