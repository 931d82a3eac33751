"""Target x key counts of plain integer columns from tables of raw value combinations.

When every key and target column holds integers of one type in every frame (no missing value
can occur), the codes :func:`capkit.counts.encode.encode_frames` gives (per column, the rank
of a value among the values present in any frame; per combination, its rank among the
combinations present, lexicographic in the columns' values) follow from the values alone.
The records are counted on the grid of raw combinations (value minus the column's minimum,
mixed radix, the first target column most significant, then the keys); each column's level
counts, the combinations present and the target x key table of each frame are read from it.
When that grid would hold more cells than there are records, the keys get a grid of their own,
and each record's (raw target, key) code is counted once more on the targets x keys table
itself (whose row sums are the targets' grid and whose column sums are the keys' grid). Then
every frame's key codes sit in one array; the keys of some record are marked (a scatter into a
table of booleans), the array is rewritten into the records' cells, frame f's shifted by f
tables, and one ``numpy.bincount`` gives every frame's table (views of one count); each frame's
key grid is its table's column sums, a sum over cells instead of another count of the
records. numpy's gather and count read intp indices; one intp buffer per call holds the keys'
codes for the gather, then the targets' codes, the cells' codes for the count, and the key
grids. Fresh memory is what a loaded machine charges most for (its page faults): besides the
tables themselves, each call allocates the key codes (kept: the records' cells are read from
them) and that buffer, 40-550 page faults a call on two frames of a million records against
about 2,000 for separate arrays and 7,500 for arrays per frame and step. The work is a handful
of passes over the records, about what a bare ``numpy.bincount`` of the same mixed-radix codes
costs, instead of coding each column and then each combination record by record: O(n + cells)
time and memory.

Every record's cell (its target and key codes) and the labels are made only when asked for
(:class:`capkit.counts.table.KeyTargetTable` makes them on first read): the average CAP never
needs them.

The answer is the one :func:`capkit.counts.table.count_frames` gives on its general path: the
same codes, labels (of the columns' own integer type), level checks (in the same order, with the
same counts), tables and record cells. A frame set whose key or target grid would hold more
than four times as many cells as records, whose codes int64 cannot hold, or any other column
type, returns None and takes the general path. The codes are int32 when the columns are at
most 32 bits wide and every partial code fits (half the memory traffic of int64).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.counts.encode import _is_number, check_levels

__all__ = ["IntegerCounts", "integer_counts"]


@dataclass(frozen=True)
class IntegerCounts:
    """The counts of :func:`integer_counts`.

    Attributes
    ----------
    shape
        (targets, keys) of the tables.
    tables
        Per frame the dense (targets x keys) int64 counts, or None where sparse counts were
        asked for (then they are counted from the cells).
    cells
        Per frame a function returning the records' cells ((n, 2) int64: target code i, key
        code j), computed when called.
    targets, keys
        Functions returning the target labels and the key labels
        (:func:`capkit.counts.encode.encode_frames`'s), made when called.
    """

    shape: tuple[int, int]
    tables: list[np.ndarray | None]
    cells: list[Callable[[], np.ndarray]]
    targets: Callable[[], pd.Index]
    keys: Callable[[], pd.Index]


def _eligible(frames: Sequence[pd.DataFrame], columns: list[str]) -> bool:
    for column in columns:
        dtypes = {f[column].dtype for f in frames}
        if len(dtypes) != 1:
            return False
        dtype = dtypes.pop()
        if not isinstance(dtype, np.dtype) or dtype.kind not in "iu" or (
                dtype.kind == "u" and dtype.itemsize == 8):
            return False
    return True


def integer_counts(frames: Sequence[pd.DataFrame], key_cols: list[str], target_cols: list[str],
                   *, allow_disjoint_levels: bool = False,
                   as_sparse: Callable[[tuple[int, int]], bool] = lambda shape: False
                   ) -> IntegerCounts | None:
    """The tables, lazy record cells and labels of the frames' plain integer columns, or None
    when the columns are not all plain integers or their grids are too large.

    One grid of every column when it has at most as many cells as there are records (at least
    2**16); otherwise one of the keys, when it and the target columns' grid have at most four
    times as many, and each record's (target, key) code counted on a targets x keys table.
    ``as_sparse(shape)`` says whether the (targets x keys) counts are wanted sparse (then
    ``tables`` holds None)."""
    columns = list(target_cols) + list(key_cols)
    if not _eligible(frames, columns):
        return None
    limit = max(sum(len(f) for f in frames), 1 << 16)
    values = [[f[c].to_numpy() for f in frames] for c in columns]
    lows = [min(int(v.min()) for v in per) for per in values]
    highs = [max(int(v.max()) for v in per) for per in values]
    spans = [high - low + 1 for low, high in zip(lows, highs, strict=True)]
    n_t = len(target_cols)
    t_cells, k_cells = math.prod(spans[:n_t]), math.prod(spans[n_t:])
    one = t_cells * k_cells <= limit
    if not one and (t_cells > 4 * limit or k_cells > 4 * limit):
        return None
    parts = [(0, len(columns))] if one else [(0, n_t), (n_t, len(columns))]
    narrow = [values[c][0].dtype.itemsize <= 4 for c in range(len(columns))]
    types = [_code_type(lows[lo:hi], highs[lo:hi], spans[lo:hi], all(narrow[lo:hi]))
             for lo, hi in parts]
    if None in types:
        return None
    if one:
        raw, grids = _grid(values, lows, spans, types[0])
        shaped = [[_marginals(g, spans) for g in grids]] * len(columns)
        flat = _total(grids).reshape(t_cells, k_cells)
        in_t, in_k = flat.any(axis=1), flat.any(axis=0)
    else:  # the keys' grid; each record's (raw target, key) code counted on a targets x keys
        # every frame's key combinations in one array, which becomes the joint codes in place
        n_f = len(frames)
        ends = np.cumsum([0, *(len(v) for v in values[0])])
        parts = [slice(int(ends[f]), int(ends[f + 1])) for f in range(n_f)]
        k_type = types[1]
        k_all = np.empty(int(ends[-1]), dtype=k_type)
        _codes_into(values[n_t:], lows[n_t:], spans[n_t:], [k_all[part] for part in parts])
        # numpy's take and bincount read intp indices: the codes cast once into a buffer that
        # later holds the cells' codes for the count too (fresh memory, whose page faults a
        # loaded machine charges most for, taken once)
        index = np.empty(len(k_all), dtype=np.intp)
        np.copyto(index, k_all)
        in_k = np.zeros(k_cells, dtype=bool)  # the keys of some record, in any frame
        in_k[index] = True
        used_k = np.flatnonzero(in_k)
        n_keys = len(used_k)
        cells = t_cells * n_keys
        if cells <= 4 * limit:  # the target grid: the tables' row sums
            # frame f's cell (i, j) is i * n_keys + j + f * cells: one count, every table
            joint = (np.int32 if k_type is np.int32 and types[0] is np.int32
                     and n_f * cells <= _int_max(np.int32) else np.int64)
            # each raw key's rank among the keys used (a key of no record is never read),
            # written over the keys' codes where the types agree
            ranks = np.cumsum(in_k, dtype=joint)
            ranks -= 1
            code_all = k_all if k_type is joint else np.empty(len(k_all), dtype=joint)
            np.take(ranks, index, out=code_all, mode="clip")
            del k_all
            # the targets' codes in the buffer's memory (free until the count)
            t_all = index.view(np.int32)[:len(code_all)] if joint is np.int32 else index
            _codes_into(values[:n_t], lows[:n_t], spans[:n_t], [t_all[part] for part in parts])
            t_all *= n_keys
            for f in range(1, n_f):
                t_all[parts[f]] += f * cells
            code_all += t_all
            del t_all
            if index.dtype != code_all.dtype:
                np.copyto(index, code_all)
            counts = np.bincount(code_all if index.dtype == code_all.dtype else index,
                                 minlength=n_f * cells)
            raw_tables = [counts[f * cells:(f + 1) * cells].reshape(t_cells, n_keys)
                          for f in range(n_f)]
            t_grids = [table.sum(axis=1) for table in raw_tables]
            # each frame's key grid: its table's column sums (a sum over cells, not another
            # pass over the records), zero for the keys of no record; in the buffer's memory
            # when it is large enough
            k_grids = (index[:n_f * k_cells] if len(index) >= n_f * k_cells
                       else np.empty(n_f * k_cells, dtype=np.intp)).reshape(n_f, k_cells)
            del index
            k_grids[:] = 0
            for f, table in enumerate(raw_tables):
                k_grids[f, used_k] = table.sum(axis=0)
            codes = [code_all[part] for part in parts]
            offsets = [f * cells for f in range(n_f)]
        else:
            k_grids = [np.bincount(index[part], minlength=k_cells) for part in parts]
            del index
            k_raw = [k_all[part] for part in parts]
            remap_k = None if n_keys == k_cells else _remap(used_k, k_cells, np.int32)
            joint = (np.int32 if types[0] is np.int32 and cells <= np.iinfo(np.int32).max
                     else np.int64)  # every i * n_keys + j
            t_raw = _codes(values[:n_t], lows[:n_t], spans[:n_t], joint)
            raw_tables, t_grids = None, [np.bincount(t, minlength=t_cells) for t in t_raw]
            offsets = [0] * n_f
        in_t = _total(t_grids) > 0
        shaped = ([[_marginals(g, spans[:n_t]) for g in t_grids]] * n_t
                  + [[_marginals(g, spans[n_t:]) for g in k_grids]] * (len(columns) - n_t))
    levels, ranks = [], []
    for c, column in enumerate(columns):  # the general path's checks, in its order
        axis = c if one or c < n_t else c - n_t
        labels, rank = _check(frames, column, "target" if c < n_t else "key", shaped[c], axis,
                              values[c][0].dtype, lows[c], allow_disjoint_levels)
        levels.append(labels)
        ranks.append(rank)
    used_t, used_k = np.flatnonzero(in_t), np.flatnonzero(in_k)
    shape = (len(used_t), len(used_k))

    def target_labels() -> pd.Index:
        return _labels(levels[:n_t], ranks[:n_t], used_t, spans[:n_t], columns[:n_t])

    def key_labels() -> pd.Index:
        return _labels(levels[n_t:], ranks[n_t:], used_k, spans[n_t:], columns[n_t:])

    sparse = as_sparse(shape)
    if one:
        tables = [None if sparse else _used(grid.reshape(t_cells, k_cells), used_t, used_k)
                  for grid in grids]
        raw_cell = _RawCells(used_t, used_k, t_cells, k_cells)
        return IntegerCounts(shape, tables, [raw_cell.of(code) for code in raw],
                             target_labels, key_labels)
    remap_t = None if shape[0] == t_cells else _remap(used_t, t_cells, np.int64)
    if raw_tables is None:  # the target's codes, then each record's cell code
        codes = [_joint(t, k, remap_t, remap_k, shape[1])
                 for t, k in zip(t_raw, k_raw, strict=True)]
        tables = [None if sparse else
                  np.bincount(code, minlength=shape[0] * shape[1]).reshape(shape)
                  for code in codes]
        remap_t = None
    else:
        tables = [None if sparse else _used(table, used_t, np.arange(shape[1]))
                  for table in raw_tables]
    return IntegerCounts(shape, tables, [_divided(code, shape[1], remap_t, offset)
                                         for code, offset in zip(codes, offsets, strict=True)],
                         target_labels, key_labels)


#: The largest frame-shifted code (every frame's cells one after another) held in int32; tests
#: lower it to take the int64 paths.
INT32_SHIFTED = int(np.iinfo(np.int32).max)


def _int_max(dtype: type) -> int:
    """The largest frame-shifted code kept in ``dtype``."""
    return INT32_SHIFTED if dtype is np.int32 else int(np.iinfo(dtype).max)


def _code_type(lows: list[int], highs: list[int], spans: list[int], narrow: bool
               ) -> type | None:
    """int32 when the columns are ``narrow`` (at most 32 bits: the arithmetic then reads them
    without a cast) and it holds every value, partial code and offset :func:`_codes` makes of
    values between ``lows`` and ``highs``; otherwise int64 if that holds them, or None."""
    rest = _rest(lows, spans)
    bounds = [*lows, *highs, rest]
    low, high = 0, spans[0] - 1
    for c in range(1, len(spans)):
        low, high = low * spans[c], high * spans[c]
        bounds += [low, high]
        low, high = low + lows[c], high + highs[c]
        bounds += [low, high]
    for dtype in (np.int32, np.int64) if narrow else (np.int64,):
        info = np.iinfo(dtype)
        if info.min <= min(bounds) and max(bounds) <= info.max:
            return dtype
    return None


def _rest(lows: list[int], spans: list[int]) -> int:
    """What :func:`_codes` takes off at the end: the minima of the columns after the first,
    each times the product of the spans after it."""
    return sum(low * math.prod(spans[c + 1:]) for c, low in enumerate(lows) if c)


def _codes(values: list[list[np.ndarray]], lows: list[int], spans: list[int], dtype: type
           ) -> list[np.ndarray]:
    """Per frame, each record's raw combination of these columns (mixed radix of value minus
    the column's minimum, the first column most significant), of type ``dtype`` (which holds
    every value, partial code and offset: :func:`_code_type`)."""
    rest = _rest(lows, spans)
    raw = []
    for f in range(len(values[0])):
        code = (np.subtract(values[0][f], lows[0], dtype=dtype) if lows[0]
                else values[0][f].astype(dtype))
        for c in range(1, len(values)):
            code *= spans[c]
            code += values[c][f]
        if rest:
            code -= rest
        raw.append(code)
    return raw


def _codes_into(values: list[list[np.ndarray]], lows: list[int], spans: list[int],
                out: list[np.ndarray]) -> None:
    """:func:`_codes` written into ``out`` (per frame, an array of a type that holds every
    value, partial code and offset: :func:`_code_type`)."""
    rest = _rest(lows, spans)
    for f, code in enumerate(out):
        np.subtract(values[0][f], lows[0], out=code, dtype=code.dtype)
        for c in range(1, len(values)):
            code *= spans[c]
            code += values[c][f]
        if rest:
            code -= rest


def _grid(values: list[list[np.ndarray]], lows: list[int], spans: list[int], dtype: type
          ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per frame, each record's raw combination of these columns (:func:`_codes`) and the
    counts of every raw combination."""
    raw = _codes(values, lows, spans, dtype)
    return raw, [np.bincount(code, minlength=math.prod(spans)) for code in raw]


def _total(grids: list[np.ndarray]) -> np.ndarray:
    """The cell-wise sum of the frames' grids."""
    total = np.add(grids[0], grids[1]) if len(grids) > 1 else grids[0].copy()
    for grid in grids[2:]:
        total += grid
    return total


def _used(grid: np.ndarray, used_t: np.ndarray, used_k: np.ndarray) -> np.ndarray:
    """The rows ``used_t`` and columns ``used_k`` of a (raw targets x raw keys) grid."""
    if len(used_t) < grid.shape[0]:
        grid = grid[used_t]
    if len(used_k) < grid.shape[1]:
        grid = grid[:, used_k]
    return np.ascontiguousarray(grid)


def _remap(used: np.ndarray, cells: int, dtype: type) -> np.ndarray:
    """Each raw cell's rank among the ``used`` ones (-1 for the others)."""
    remap = np.full(cells, -1, dtype=dtype)
    remap[used] = np.arange(len(used))
    return remap


def _joint(t: np.ndarray, k: np.ndarray, remap_t: np.ndarray | None,
           remap_k: np.ndarray | None, n_keys: int) -> np.ndarray:
    """Each record's cell of a (targets x keys) table as one code, ``i * n_keys + j``, of
    ``t``'s type, from its raw target and key combinations and their ranks among those used
    (None: all are); ``t`` is consumed."""
    if remap_t is not None:
        t = np.take(remap_t.astype(t.dtype), t)
    t *= n_keys
    t += k if remap_k is None else np.take(remap_k, k)
    return t


def _divided(code: np.ndarray, n_keys: int, remap_t: np.ndarray | None, offset: int = 0
             ) -> Callable[[], np.ndarray]:
    """The records' cells ((n, 2) int64: i, j) of their joint codes less ``offset``, when
    called; ``remap_t`` gives the rows' ranks among the rows used (None: every row is)."""
    def cells() -> np.ndarray:
        i, j = np.divmod(code - offset if offset else code.astype(np.int64), n_keys)
        i, j = i.astype(np.int64, copy=False), j.astype(np.int64, copy=False)
        return np.column_stack([i if remap_t is None else np.take(remap_t, i), j])
    return cells


class _RawCells:
    """Each raw cell's (target code, key code), a table of at most as many rows as records,
    made on first use: a record's cell is one row of it (no division per record)."""

    def __init__(self, used_t: np.ndarray, used_k: np.ndarray, t_cells: int, k_cells: int):
        self._args = (used_t, used_k, t_cells, k_cells)
        self._table: np.ndarray | None = None

    def _cells(self) -> np.ndarray:
        if self._table is None:
            used_t, used_k, t_cells, k_cells = self._args
            self._table = np.column_stack([np.repeat(_remap(used_t, t_cells, np.int64), k_cells),
                                           np.tile(_remap(used_k, k_cells, np.int64), t_cells)])
        return self._table

    def of(self, code: np.ndarray) -> Callable[[], np.ndarray]:
        """The cells of records of these raw codes, when called."""
        return lambda: np.take(self._cells(), code, axis=0)


def _check(frames: Sequence[pd.DataFrame], column: str, role: str,
           grids: list[list[np.ndarray]], axis: int, dtype: np.dtype, low: int,
           allow_disjoint_levels: bool) -> tuple[pd.Index, np.ndarray]:
    """A column's labels (the values present in any frame, in its own type) and each value's
    rank among them, after :func:`capkit.counts.encode.check_levels` on the counts of the
    first two frames (``grids``: per frame, the counts of each column of the grid, as
    :func:`_marginals` gives them; the column is number ``axis``)."""
    counts = [grid[axis] for grid in grids]
    here = sum(counts) > 0
    labels = pd.Index(np.flatnonzero(here).astype(dtype) + dtype.type(low))
    check_levels(column, role, labels, counts[0][here], [counts[1][here]],
                 missing=np.zeros(len(labels), dtype=bool), numeric=_is_number(frames[0][column]),
                 allow_disjoint_levels=allow_disjoint_levels)
    return labels, np.cumsum(here) - 1


def _marginals(grid: np.ndarray, spans: list[int]) -> list[np.ndarray]:
    """The counts of each column's values on a grid of mixed-radix combinations (``spans``,
    the first column most significant): the first column's, then the same of the grid summed
    over it (each pass over a grid smaller by the first span, along long rows)."""
    out = []
    for span in spans[:-1]:
        rows = grid.reshape(span, -1)
        out.append(rows.sum(axis=1))
        grid = rows.sum(axis=0)
    out.append(grid)
    return out


def _labels(levels: list[pd.Index], ranks: list[np.ndarray], used: np.ndarray,
            spans: list[int], names: list[str]) -> pd.Index:
    """The labels of the combinations ``used`` (raw mixed-radix cells): a MultiIndex named by
    the columns, or the column's Index for one column (as encode_frames gives them)."""
    rest = used.astype(np.int32) if math.prod(spans) <= np.iinfo(np.int32).max else used
    parts = []
    for span in spans[:0:-1]:  # the digits of the mixed radix, the last column's first
        rest, digit = np.divmod(rest, span)
        parts.append(digit)
    parts.append(rest)
    codes = [part if rank[-1] == len(rank) - 1 else np.take(rank, part)  # all present: itself
             for rank, part in zip(ranks, parts[::-1], strict=True)]
    if len(names) == 1:
        return levels[0].take(codes[0]).rename(names[0])
    # the levels are each column's values present (sorted, all used by some combination):
    # MultiIndex.from_arrays would find the same levels and codes by factorising the labels
    return pd.MultiIndex(levels=levels, codes=codes, names=names, verify_integrity=False)
