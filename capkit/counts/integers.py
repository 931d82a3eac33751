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
                   ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], pd.Index,
                              pd.Index] | None:
    """Per frame the dense (targets x keys) counts, the records' target codes i and key codes
    j, then the target labels and the key labels (:func:`capkit.counts.encode.encode_frames`'s),
    or None when the columns are not all plain integers or their grid is too large."""
    columns = list(target_cols) + list(key_cols)
    if not _eligible(frames, columns):
        return None
    total = sum(len(f) for f in frames)
    values = [[f[c].to_numpy() for f in frames] for c in columns]
    lows = [min(int(v.min()) for v in per) for per in values]
    spans = [max(int(v.max()) for v in per) - low + 1 for per, low in zip(values, lows,
                                                                              strict=True)]
    cells = math.prod(spans)
    if cells > max(total, 1 << 16):
        return None
    offset = sum(low * math.prod(spans[c + 1:]) for c, low in enumerate(lows))
    raw = []
    for f in range(len(frames)):
        code = values[0][f].astype(np.int64)
        for c in range(1, len(columns)):
            code *= spans[c]
            code += values[c][f]
        if offset:
            code -= offset
        raw.append(code)
    grids = [np.bincount(code, minlength=cells).reshape(spans) for code in raw]
    every = sum(grids)
    levels, ranks, present = [], [], []
    for c, column in enumerate(columns):
        axes = tuple(a for a in range(len(columns)) if a != c)
        here = every.sum(axis=axes) > 0
        dtype = values[c][0].dtype
        labels = pd.Index(np.flatnonzero(here).astype(dtype) + dtype.type(lows[c]))
        size = len(labels)
        check_levels(column, "target" if c < len(target_cols) else "key", labels,
                     grids[0].sum(axis=axes)[here], [grids[1].sum(axis=axes)[here]],
                     missing=np.zeros(size, dtype=bool), numeric=_is_number(frames[0][column]),
                     allow_disjoint_levels=allow_disjoint_levels)
        levels.append(labels)
        ranks.append(np.cumsum(here) - 1)
        present.append(here)
    n_t = len(target_cols)
    t_cells, k_cells = math.prod(spans[:n_t]), math.prod(spans[n_t:])
    flat = every.reshape(t_cells, k_cells)
    used_t, used_k = np.flatnonzero(flat.sum(axis=1) > 0), np.flatnonzero(flat.sum(axis=0) > 0)
    target_labels = _labels(levels[:n_t], ranks[:n_t], used_t, spans[:n_t], columns[:n_t])
    key_labels = _labels(levels[n_t:], ranks[n_t:], used_k, spans[n_t:], columns[n_t:])
    remap_t = np.full(t_cells, -1, dtype=np.int64)
    remap_t[used_t] = np.arange(len(used_t))
    remap_k = np.full(k_cells, -1, dtype=np.int64)
    remap_k[used_k] = np.arange(len(used_k))
    # each raw cell's target and key codes (tables of at most `total` cells: no division per
    # record)
    cell_i, cell_j = np.repeat(remap_t, k_cells), np.tile(remap_k, t_cells)
    tables, codes_i, codes_j = [], [], []
    for grid, code in zip(grids, raw, strict=True):
        tables.append(np.ascontiguousarray(grid.reshape(t_cells, k_cells)[used_t][:, used_k]))
        codes_i.append(cell_i[code])
        codes_j.append(cell_j[code])
    return tables, codes_i, codes_j, target_labels, key_labels


def _labels(levels: list[pd.Index], ranks: list[np.ndarray], used: np.ndarray,
            spans: list[int], names: list[str]) -> pd.Index:
    """The labels of the combinations ``used`` (raw mixed-radix cells): a MultiIndex named by
    the columns, or the column's Index for one column (as encode_frames gives them)."""
    parts = np.unravel_index(used, spans)
    arrays = [lv.take(rank[part]) for lv, rank, part in zip(levels, ranks, parts, strict=True)]
    labels = pd.MultiIndex.from_arrays(arrays, names=names)
    return labels.get_level_values(0) if len(names) == 1 else labels
