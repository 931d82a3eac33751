"""The distinct rows of an integer matrix, column by column: ``np.unique(axis=0)``'s answer,
faster.

``np.unique(m, axis=0)`` views each row as one structured value and sorts those with a
generic field-by-field comparison, which is slow (about 20 ms for 50,000 rows of four
columns). The same answer comes from one 1-d ``np.unique`` per column: the rank of a row's
prefix times the number of values of the next column plus that column's rank orders the rows
lexicographically by their values, and renumbering after each column keeps the codes below
the number of rows. The distinct rows therefore come out in ``np.unique(axis=0)``'s order
(lexicographic by value, each column compared as its dtype), and so do the inverse and the
first positions: tested equal on random and degenerate matrices.
"""

from __future__ import annotations

import numpy as np

from capkit.errors import CapkitError

__all__ = ["unique_codes", "unique_rows"]


def unique_codes(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(column, return_inverse=True)`` of a 1-d array (the inverse as int64): for
    integers spanning few values, from a table of the values instead of a sort."""
    column = np.asarray(column)
    if column.ndim != 1:
        raise CapkitError(f"unique_codes needs a 1-d array, got {column.ndim} dimensions")
    if column.dtype.kind in "iu" and len(column):
        low, high = int(column.min()), int(column.max())
        if high - low < max(4 * len(column), 1 << 16):  # a table of the values, no sort
            base = column.dtype.type(low)  # in the column's own type (uint64 past 2**63)
            if column.dtype.itemsize < 8:  # narrow types: the difference may not fit them
                shifted = column.astype(np.int64) - low
            else:
                shifted = (column - base).astype(np.int64, copy=False)
            present = np.zeros(high - low + 1, dtype=bool)
            present[shifted] = True
            if present.all():  # every value low..high occurs: the codes are the shifts
                return np.arange(high - low + 1).astype(column.dtype) + base, shifted
            remap = np.cumsum(present) - 1
            return np.flatnonzero(present).astype(column.dtype) + base, remap[shifted]
        top = column == column.dtype.type(high)  # two values far apart (a one-hot column's
        if np.all(top | (column == column.dtype.type(low))):  # floats seen as integers)
            return np.array([low, high], dtype=column.dtype), top.astype(np.int64)
    values, inverse = np.unique(column, return_inverse=True)
    return values, inverse.reshape(-1).astype(np.int64, copy=False)


def _ranks(column: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ranks 0..k-1 of a column's values (in value order) and k."""
    if column.dtype == bool:
        return column.astype(np.int64), 2
    values, inverse = unique_codes(column)
    return inverse, len(values)


def unique_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first position of each distinct row, and each row's distinct-row number.

    The distinct rows are numbered in ``np.unique(matrix, axis=0)``'s order, so
    ``matrix[first]`` equals ``np.unique(matrix, axis=0)`` and ``inverse`` its
    ``return_inverse`` (flattened); ``first`` is its ``return_index`` (the lowest position of
    each distinct row).

    Parameters
    ----------
    matrix
        A 2-d array of integers or booleans (floats viewed as int64 work too: rows are then
        equal when their bits are).
    """
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise CapkitError(f"unique_rows needs a 2-d array, got {matrix.ndim} dimensions")
    n = len(matrix)
    code = np.zeros(n, dtype=np.int64)
    if n == 0:
        return code, code
    width = 1
    for j in range(matrix.shape[1]):
        ranks, size = _ranks(matrix[:, j])
        combined = code * size + ranks
        if width * size <= max(4 * n, 1 << 20):  # a table of the codes in use
            present = np.zeros(width * size, dtype=bool)
            present[combined] = True
            remap = np.cumsum(present) - 1
            code, width = remap[combined], int(remap[-1]) + 1
        else:  # below n * n < 2**63 either way; sort the codes in use
            used, inverse = np.unique(combined, return_inverse=True)
            code, width = inverse.reshape(-1).astype(np.int64, copy=False), len(used)
    order = np.argsort(code, kind="stable")
    starts = np.ones(n, dtype=bool)
    starts[1:] = code[order[1:]] != code[order[:-1]]
    return order[starts], code
