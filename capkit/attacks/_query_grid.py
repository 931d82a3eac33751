"""Query match counts from one histogram per set of columns (the counting behind
:mod:`capkit.attacks.queries` when many queries share their columns).

The queries of anonymeter's singling-out attack (Giomi et al. 2022, "A Unified Framework for
Quantifying Privacy Risk in Synthetic Data", PoPETs 2023) are conjunctions of one condition per
column, each condition an interval of the column's values (``== v``, ``<= v``, ``> v``,
``is_null`` ...) or, for ``!=``, two intervals. So the queries on one set of k columns are boxes
in a k-dimensional grid: per column, the distinct values the queries name cut the column's
values into cells (a cell per named value, a cell per gap between them that holds some value,
a cell for missing values); each record falls in one cell of the grid (integer codes per
column, combined into one code); one ``bincount`` of the combined codes and a cumulative sum
along each axis give every box's count from its 2^k corners (inclusion-exclusion). A second,
weighted ``bincount`` (the sum of the record positions in each cell) gives the position of the
only match of a query that matches exactly one record.

Cost per set of columns: O(n k + G + q 2^k) for n records, G grid cells and q queries, against
O(q k n / 64) for AND-ing bit masks; all integers, so the counts are exact and equal to the bit
masks' (integer sums of at most n(n-1)/2 < 2^53 for the positions).
"""

from __future__ import annotations

import itertools

import numpy as np

#: Largest grid (cells) counted by one histogram; larger sets of columns use bit masks.
GRID_LIMIT = 1 << 22
#: Most columns in a query counted by a histogram.
MAX_DIMS = 3
#: Fixed cost of a histogram (in the units of one record and column), for the choice of method.
SET_OVERHEAD = 300_000
_NULL_OPS = ("is_null", "is_not_null")


def column_cells(domain: np.ndarray, targets: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, int]:
    """Cells of one column for the sorted distinct ``targets`` (floats, no NaN).

    Returns (the cell of each value of ``domain`` (the column's sorted distinct values), the
    sorted raw cell numbers kept, number of cells). Raw numbering: 0 missing, 2i+1 the gap
    below ``targets[i]``, 2i+2 ``targets[i]`` itself, 2m+1 above the last target; kept: 0, the
    targets' cells and the gaps holding a value."""
    m = len(targets)
    pos = np.searchsorted(targets, domain, side="left")
    hit = np.zeros(len(domain), dtype=bool)
    inside = pos < m
    hit[inside] = targets[pos[inside]] == domain[inside]
    raw = 2 * pos + 1 + hit
    kept = np.unique(np.concatenate([[0], raw, 2 * np.arange(m) + 2]))
    return np.searchsorted(kept, raw), kept, len(kept)


def raw_intervals(op: np.ndarray, at: np.ndarray, m: int) -> np.ndarray:
    """Raw cell intervals (q x 2 x 2: two intervals of [low, high], empty when low > high) of
    conditions ``op`` whose target is ``targets[at]`` among m targets."""
    top = 2 * m + 1
    point = 2 * at + 2
    out = np.empty((len(op), 2, 2), dtype=np.int64)
    out[:, 1, 0], out[:, 1, 1] = 1, 0  # second interval empty unless "!="
    rules = {"==": (point, point), "<=": (1, point), "<": (1, point - 1),
             ">=": (point, top), ">": (point + 1, top), "is_null": (0, 0),
             "is_not_null": (1, top), "!=": (1, point - 1)}
    for name, (low, high) in rules.items():
        chosen = op == name
        if chosen.any():
            out[chosen, 0, 0] = low[chosen] if np.ndim(low) else low
            out[chosen, 0, 1] = high[chosen] if np.ndim(high) else high
    unequal = op == "!="
    out[unequal, 1, 0], out[unequal, 1, 1] = point[unequal] + 1, top
    return out


def to_cells(raw: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Raw intervals -> intervals of kept cells (same shape; empty stays empty)."""
    low = np.searchsorted(kept, raw[..., 0], side="left")
    high = np.searchsorted(kept, raw[..., 1], side="right") - 1
    empty = raw[..., 0] > raw[..., 1]
    low[empty], high[empty] = 1, 0
    return np.stack([low, high], axis=-1)


def box_sums(prefix: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Sum of the cells of each box from the zero-padded cumulative grid ``prefix``.

    ``boxes``: q x k x 2 x 2 (per dimension two intervals [low, high] of cells, empty when
    low > high; the box is the union over the choice of one interval per dimension)."""
    q, k = boxes.shape[:2]
    total = np.zeros(q, dtype=np.int64)
    flat = prefix.ravel()
    strides = np.array([int(np.prod(prefix.shape[d + 1:])) for d in range(k)], dtype=np.int64)
    choices = [(0,) if not (boxes[:, d, 1, 0] <= boxes[:, d, 1, 1]).any() else (0, 1)
               for d in range(k)]
    for choice in itertools.product(*choices):
        low = boxes[:, np.arange(k), list(choice), 0]
        high = boxes[:, np.arange(k), list(choice), 1] + 1
        live = (low < high).all(axis=1)
        if not live.any():
            continue
        low, high = low[live], high[live]
        part = np.zeros(int(live.sum()), dtype=np.int64)
        for corner in itertools.product((0, 1), repeat=k):
            at = np.where(np.array(corner, dtype=bool), high, low) @ strides
            sign = -1 if (k - sum(corner)) % 2 else 1
            part += sign * flat[at]
        total[live] += part
    return total


def grid_counts(codes: list[np.ndarray], domains: list[np.ndarray], ops: np.ndarray,
                targets: np.ndarray, first: bool) -> tuple[np.ndarray, np.ndarray]:
    """Counts (and the only match's position, -1 unless exactly one) of q queries on the same
    k columns: ``codes[d]`` each record's position in ``domains[d]`` (-1 missing), ``ops`` and
    ``targets`` q x k (targets float, unused for null tests, never NaN otherwise)."""
    k = len(codes)
    n = len(codes[0])
    cells, boxes, sizes = [], [], []
    for d in range(k):
        uses_value = ~np.isin(ops[:, d], _NULL_OPS)
        values = np.unique(targets[uses_value, d])
        at = np.zeros(len(ops), dtype=np.int64)
        at[uses_value] = np.searchsorted(values, targets[uses_value, d])
        of_domain, kept, size = column_cells(domains[d], values)
        lookup = np.concatenate([[0], of_domain]).astype(np.int32)  # cells < GRID_LIMIT
        cells.append(lookup[codes[d] + 1])
        boxes.append(to_cells(raw_intervals(ops[:, d], at, len(values)), kept))
        sizes.append(size)
    combined = cells[0].astype(np.int64)
    for d in range(1, k):
        combined *= sizes[d]
        combined += cells[d]
    del cells
    grid = int(np.prod(sizes))
    boxes = np.stack(boxes, axis=1)

    def prefix(weights: np.ndarray | None) -> np.ndarray:
        counted = np.bincount(combined, weights=weights, minlength=grid)
        if weights is not None:
            counted = np.rint(counted).astype(np.int64)
        out = np.zeros([s + 1 for s in sizes], dtype=np.int64)
        out[tuple(slice(1, None) for _ in range(k))] = counted.reshape(sizes)
        for d in range(k):
            np.cumsum(out, axis=d, out=out)
        return out

    counts = box_sums(prefix(None), boxes)
    firsts = np.full(len(ops), -1, dtype=np.int64)
    if first and (counts == 1).any():
        single = counts == 1
        firsts[single] = box_sums(prefix(np.arange(n, dtype=np.float64)), boxes[single])
    return counts, firsts


def grid_size(domain_sizes: list[int], value_counts: list[int]) -> int:
    """Upper bound of the cells of a grid: per column min(2 m + 2, distinct values + m + 1)."""
    return int(np.prod([min(2 * m + 2, d + m + 1) for d, m in zip(domain_sizes, value_counts,
                                                                   strict=True)]))


def split_counts(columns, conditions: list, index: np.ndarray, first: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts of the queries (rows of ``index``, condition ids, -1 padding) a histogram
    serves: one column at most once, 1..:data:`MAX_DIMS` columns, a grid of at most
    :data:`GRID_LIMIT` cells, and enough queries on the set of columns to beat bit masks.

    ``columns`` is a :class:`capkit.attacks.queries.FrameColumns`. Returns (counts, positions
    of the only match (-1), which queries were served); a query with a condition that matches
    nothing (a missing value compared) is served with count 0."""
    q, width = index.shape
    counts = np.zeros(q, dtype=np.int64)
    firsts = np.full(q, -1, dtype=np.int64)
    served = np.zeros(q, dtype=bool)
    used = np.unique(index[index >= 0])
    if q == 0 or len(used) == 0:
        return counts, firsts, served
    names: dict[object, int] = {}
    col_of = np.full(used.max() + 2, -1, dtype=np.int64)
    op_of = np.empty(used.max() + 2, dtype=object)
    null_op = np.zeros(used.max() + 2, dtype=bool)
    value_of = np.full(used.max() + 2, np.nan)
    for cid in used.tolist():
        column, op, value = conditions[cid]
        col_of[cid] = names.setdefault(column, len(names))
        op_of[cid] = op
        null_op[cid] = op in _NULL_OPS
        if op not in _NULL_OPS:
            value_of[cid] = columns.target(column, op, value)
    # per query and condition: its column (-1 padding: the last slot), in a narrow type
    col_of = col_of.astype(np.int16 if len(names) < (1 << 15) - 1 else np.int64)
    dead = (~null_op[index] & np.isnan(value_of[index]) & (index >= 0)).any(1)
    served[dead] = True
    cols = col_of[index]
    order = np.argsort(np.where(cols < 0, len(names), cols), axis=1, kind="stable")
    cols = np.take_along_axis(cols, order, axis=1)
    ids = np.take_along_axis(index, order, axis=1)
    del order
    k = (cols >= 0).sum(axis=1)
    repeated = ((cols[:, 1:] == cols[:, :-1]) & (cols[:, 1:] >= 0)).any(axis=1)
    fits = ~dead & ~repeated & (k >= 1) & (k <= MAX_DIMS)
    del k, repeated, dead
    if not fits.any():
        return counts, firsts, served
    keys, group = np.unique(cols[fits], axis=0, return_inverse=True)
    del cols
    where = np.flatnonzero(fits)
    by_group = np.argsort(group.ravel(), kind="stable")
    bounds = np.searchsorted(group.ravel()[by_group], np.arange(len(keys) + 1))
    del group
    by_name = {v: c for c, v in names.items()}
    for g, key in enumerate(keys.tolist()):
        members = where[by_group[bounds[g]:bounds[g + 1]]]
        dims = [c for c in key if c >= 0]
        chosen = ids[members, :len(dims)]
        ops, targets = op_of[chosen], value_of[chosen]
        domains = [columns.domain(by_name[c]) for c in dims]
        distinct = [len(np.unique(targets[:, d][~np.isnan(targets[:, d])]))
                    for d in range(len(dims))]
        size = grid_size([len(x) for x in domains], distinct)
        grid_cost = columns.n * (len(dims) + 4) + 3 * size + SET_OVERHEAD
        mask_cost = len(members) * len(dims) * columns.words * 2 + columns.n * len(dims)
        if size > GRID_LIMIT or grid_cost > mask_cost:
            continue
        codes = [columns.codes(by_name[c]) for c in dims]
        counts[members], firsts[members] = grid_counts(codes, domains, ops, targets, first)
        served[members] = True
    return counts, firsts, served


def blocks_by_columns(conditions: list, index: np.ndarray, step: int):
    """Positions of the queries (rows of ``index``) in blocks of at most ``step``, the queries
    on the same columns together (so that a block's condition masks are few)."""
    if len(index) <= step:
        if len(index):
            yield np.arange(len(index))
        return
    names: dict[object, int] = {}
    of = np.array([names.setdefault(c[0], len(names)) for c in conditions] + [-1])
    order = np.lexsort(np.sort(of[index], axis=1).T[::-1])
    for start in range(0, len(order), step):
        yield order[start:start + step]
