"""Target x key counts of plain integer columns from one table of raw value combinations.

When every key and target column holds integers of one type in every frame (no missing value
can occur), the codes :func:`capkit.counts.encode.encode_frames` gives (per column, the rank
of a value among the values present in any frame; per combination, its rank among the
combinations present, lexicographic in the columns' values) follow from the values alone.
The records are counted once on the grid of raw combinations (value minus the column's minimum,
mixed radix, the first target column most significant, then the keys), a table of at most
as many cells as there are records; each column's level counts, the combinations present, the
target x key table of each frame and every record's cell are read from it. The work is a
handful of passes over the records, about what a bare ``numpy.bincount`` of the same mixed-radix
codes costs, instead of coding each column and then each combination record by record.

The answer is the one :func:`capkit.counts.table.count_frames` gives on its general path: the
same codes, labels (of the columns' own integer type), level checks (in the same order, with the
same counts) and tables. A frame set whose grid of raw combinations would hold more cells than
records, or any other column type, returns None and takes the general path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.counts.encode import _is_number, check_levels

__all__ = ["integer_counts"]


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
                   *, allow_disjoint_levels: bool = False
                   ) -> tuple[list[np.ndarray | None], list[np.ndarray], pd.Index,
                              pd.Index] | None:
    """Per frame the dense (targets x keys) counts (None where they are left to
    ``numpy.bincount`` of the cells) and the records' cells ((n, 2): target code i, key code
    j), then the target labels and the key labels
    (:func:`capkit.counts.encode.encode_frames`'s), or None when the columns are not all plain
    integers or their grids are too large.

    One grid of every column when it has at most as many cells as there are records; otherwise
    one of the target columns and one of the keys, each that small."""
    columns = list(target_cols) + list(key_cols)
    if not _eligible(frames, columns):
        return None
    limit = max(sum(len(f) for f in frames), 1 << 16)
    values = [[f[c].to_numpy() for f in frames] for c in columns]
    lows = [min(int(v.min()) for v in per) for per in values]
    spans = [max(int(v.max()) for v in per) - low + 1 for per, low in zip(values, lows,
                                                                              strict=True)]
    n_t = len(target_cols)
    if math.prod(spans) <= limit:
        parts = [(0, len(columns))]
    elif math.prod(spans[:n_t]) <= limit and math.prod(spans[n_t:]) <= limit:
        parts = [(0, n_t), (n_t, len(columns))]
    else:
        return None
    raws, grids, levels, ranks = [], [], [], []
    for lo, hi in parts:
        raw, grid = _grid([values[c] for c in range(lo, hi)], lows[lo:hi], spans[lo:hi])
        raws.append(raw)
        grids.append(grid)
        for c in range(lo, hi):
            labels, rank = _check(frames, columns[c], "target" if c < n_t else "key",
                                  [g.reshape(spans[lo:hi]) for g in grid], c - lo,
                                  values[c][0].dtype, lows[c], allow_disjoint_levels)
            levels.append(labels)
            ranks.append(rank)
    t_cells, k_cells = math.prod(spans[:n_t]), math.prod(spans[n_t:])
    every = [sum(grid) for grid in grids]
    if len(parts) == 1:
        flat = every[0].reshape(t_cells, k_cells)
        in_t, in_k = flat.sum(axis=1) > 0, flat.sum(axis=0) > 0
    else:
        in_t, in_k = every[0] > 0, every[1] > 0
    used_t, used_k = np.flatnonzero(in_t), np.flatnonzero(in_k)
    target_labels = _labels(levels[:n_t], ranks[:n_t], used_t, spans[:n_t], columns[:n_t])
    key_labels = _labels(levels[n_t:], ranks[n_t:], used_k, spans[n_t:], columns[n_t:])
    remap_t = np.full(t_cells, -1, dtype=np.int64)
    remap_t[used_t] = np.arange(len(used_t))
    remap_k = np.full(k_cells, -1, dtype=np.int64)
    remap_k[used_k] = np.arange(len(used_k))
    if len(parts) == 2:
        cells = [np.column_stack([remap_t[t], remap_k[k]])
                 for t, k in zip(raws[0], raws[1], strict=True)]
        return [None] * len(frames), cells, target_labels, key_labels
    # each raw cell's (target, key) codes, a table of at most `limit` rows: a record's cell is
    # one row of it (no division per record)
    cell = np.column_stack([np.repeat(remap_t, k_cells), np.tile(remap_k, t_cells)])
    tables = [np.ascontiguousarray(grid.reshape(t_cells, k_cells)[used_t][:, used_k])
              for grid in grids[0]]
    return tables, [np.take(cell, code, axis=0) for code in raws[0]], target_labels, key_labels


def _grid(values: list[list[np.ndarray]], lows: list[int], spans: list[int]
          ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per frame, each record's raw combination of these columns (mixed radix of value minus
    the column's minimum, the first column most significant) and the counts of every raw
    combination."""
    offset = sum(low * math.prod(spans[c + 1:]) for c, low in enumerate(lows))
    cells = math.prod(spans)
    raw = []
    for f in range(len(values[0])):
        code = values[0][f].astype(np.int64)
        for c in range(1, len(values)):
            code *= spans[c]
            code += values[c][f]
        if offset:
            code -= offset
        raw.append(code)
    return raw, [np.bincount(code, minlength=cells) for code in raw]


def _check(frames: Sequence[pd.DataFrame], column: str, role: str, grids: list[np.ndarray],
           axis: int, dtype: np.dtype, low: int, allow_disjoint_levels: bool
           ) -> tuple[pd.Index, np.ndarray]:
    """A column's labels (the values present in any frame, in its own type) and each value's
    rank among them, after :func:`capkit.counts.encode.check_levels` on the counts of the
    first two frames (read off the grids)."""
    axes = tuple(a for a in range(grids[0].ndim) if a != axis)
    counts = [grid.sum(axis=axes) for grid in grids]
    here = sum(counts) > 0
    labels = pd.Index(np.flatnonzero(here).astype(dtype) + dtype.type(low))
    check_levels(column, role, labels, counts[0][here], [counts[1][here]],
                 missing=np.zeros(len(labels), dtype=bool), numeric=_is_number(frames[0][column]),
                 allow_disjoint_levels=allow_disjoint_levels)
    return labels, np.cumsum(here) - 1


def _labels(levels: list[pd.Index], ranks: list[np.ndarray], used: np.ndarray,
            spans: list[int], names: list[str]) -> pd.Index:
    """The labels of the combinations ``used`` (raw mixed-radix cells): a MultiIndex named by
    the columns, or the column's Index for one column (as encode_frames gives them)."""
    parts = np.unravel_index(used, spans)
    codes = [rank[part] for rank, part in zip(ranks, parts, strict=True)]
    if len(names) == 1:
        return levels[0].take(codes[0]).rename(names[0])
    # the levels are each column's values present (sorted, all used by some combination):
    # MultiIndex.from_arrays would find the same levels and codes by factorising the labels
    return pd.MultiIndex(levels=levels, codes=codes, names=names, verify_integrity=False)
