"""Exact nearest record under "categorical level + numeric L1": the search behind every DCR.

The distance between a query record s and a reference record o is
``C(s, o) + sum_k t_k(s, o)``: C, the summed weights of the categorical columns where they
differ, takes few values ("levels"), and the numeric terms ``t_k = |x_sk - x_ok|`` (values
already scaled by weight / range) are >= 0, so a reference record at level c cannot beat a
current best <= c. The search therefore visits levels in increasing order: unique categorical
combinations are compared once (with equal weights, counted per query combination in the
compiled kernel; otherwise a matrix of levels per chunk of query combinations), and record
pairs are evaluated by the compiled kernel (:mod:`capkit.distance._kernel`) only for the query
records whose best distance so far is >= the level. A pair is abandoned once its partial sum
exceeds the best, and the records of a combination are visited outwards from the query's sum of
numeric values, a lower bound of the numeric part (``|sum x - sum y| <= sum |x - y|``); with
only numeric columns and many reference records a k-d tree (L1) first gives each query an upper
bound. Most query records are settled by the records sharing their categorical combination or
differing in one column. The result is exact: every distance is the float a brute force over
all pairs computes (the terms added in column order after the level), the row the smallest
among equally close records, whatever the number of threads.

Used by :func:`capkit.distance.dcr` (Gower; Minieri 2022) and by SDMetrics' DCR
(:mod:`capkit.sdmetrics.dcr_distance`), whose numeric terms are capped at 1 (``numeric_cap``).
Its siblings find k nearest records: :mod:`~capkit.distance.neighbours` (this search run k
times, for SynthEval's measures), :mod:`~capkit.distance.mixed_knn` (anonymeter's distance) and
:mod:`~capkit.distance.grid_knn` (Euclidean, on a grid).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from capkit.counts.encode import combine_codes
from capkit.counts.runs import concatenated_ranges
from capkit.distance import _brute
from capkit.distance._brute import _pattern_values

#: Record pairs whose numeric distance is evaluated at once.
PAIR_BATCH = 2**21
#: Cells of the (synthetic combinations x reference combinations) level matrix held at once.
LEVEL_CELLS = 2**22
#: The fewest query records per call of the compiled kernel (each call starts its threads).
QUERY_BLOCK = 256
#: With only numeric columns, at most this many of them and at least this many reference
#: records, a k-d tree bounds each best distance before the exact search.
KD_TREE_COLUMNS, KD_TREE_RECORDS = 16, 4096

def _no_exclusion(exclude: np.ndarray | None, n_s: int) -> np.ndarray:
    """``exclude`` as the kernel takes it: (n_s, e) reference rows, e = 0 for none."""
    return np.empty((n_s, 0), dtype=np.int64) if exclude is None else exclude


def _scan_pairs(
    level: float,
    act: np.ndarray,
    a_count: np.ndarray,
    gi: np.ndarray,
    hj: np.ndarray,
    r_count: np.ndarray,
    r_start: np.ndarray,
    r_order: np.ndarray,
    num_s: np.ndarray,
    num_r: np.ndarray,
    best: np.ndarray,
    arg: np.ndarray,
    pair_batch: int,
    numeric_cap: np.ndarray | None,
    missing: bool,
    prune: bool,
    sum_s: np.ndarray,
    sum_r: np.ndarray,
    margin: float,
    tick: Callable[[int], object] | None = None,
    exclude: np.ndarray | None = None,
) -> None:
    """Visit every record pair of the combination pairs (gi, hj) at categorical level ``level``.

    ``act`` holds the query records to visit grouped by local combination (``a_count`` of
    each); ``gi`` (sorted) are local combinations, ``hj`` reference combination ids. The pairs
    are evaluated by the compiled kernel :func:`capkit.distance._kernel.scan_queries`, query by
    query, in blocks of about ``pair_batch`` record pairs (at least :data:`QUERY_BLOCK` query
    records; ``tick`` is called with the number of
    query records of each block done, for a progress bar).
    """
    if len(gi) == 0:
        return
    rows, first = np.unique(gi, return_index=True)
    row_pairs = np.append(first, len(gi)).astype(np.int64)
    a_start = np.concatenate([[0], np.cumsum(a_count)[:-1]])
    per_row = a_count[rows]
    queries = act[concatenated_ranges(per_row, a_start[rows])]
    query_row = np.repeat(np.arange(len(rows), dtype=np.int64), per_row)
    # reference records per query, to cut the queries into blocks of about pair_batch pairs
    row_refs = np.add.reduceat(r_count[hj], first)
    work = np.cumsum(row_refs[query_row])
    combos = hj.astype(np.int64)
    cap = np.zeros(num_s.shape[1]) if numeric_cap is None else numeric_cap.astype(np.float64)
    from capkit.distance._kernel import scan_queries  # numba: loaded by the first large search

    lo = 0
    while lo < len(queries):
        hi = int(np.searchsorted(work, (work[lo - 1] if lo else 0) + pair_batch, side="right"))
        hi = min(max(hi, lo + QUERY_BLOCK), len(queries))
        scan_queries(float(level), queries[lo:hi], query_row[lo:hi], row_pairs, combos,
                     r_count, r_start, r_order, num_s, num_r, best, arg,
                     cap, numeric_cap is not None, missing, prune, sum_s, sum_r, margin,
                     _no_exclusion(exclude, num_s.shape[0]))
        if tick is not None:
            tick(hi - lo)
        lo = hi


def _level_values(w_cat: np.ndarray) -> tuple[np.ndarray, bool]:
    """Possible categorical levels (sorted) and whether all weights are equal (count path)."""
    if np.all(w_cat == w_cat[0]):
        return w_cat[0] * np.arange(len(w_cat) + 1, dtype=np.float64), True
    if len(w_cat) <= 16:
        return np.unique(_pattern_values(w_cat)), False
    return np.empty(0), False


def _one_hot(parts: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """(rows, width) float32 indicator matrix: one 1 per categorical column of each row."""
    matrix = np.zeros((len(parts), width), dtype=np.float32)
    rows = np.repeat(np.arange(len(parts)), parts.shape[1])
    matrix[rows, (parts + offsets).ravel()] = 1.0
    return matrix


class _Levels:
    """Level matrices (query combinations x reference combinations), as indices into
    ``values``, the sorted possible levels.

    With equal weights the level is the number of differing columns, computed as ``p`` minus a
    product of indicator matrices (exact in float32: small integers) when the indicator matrix
    of the reference combinations is small enough, else by comparing column by column. With
    unequal weights the weighted sum is formed column by column, in the order of
    :func:`_level_values`, and looked up in the sorted values.
    """

    def __init__(self, parts: np.ndarray, ref_parts: np.ndarray, w_cat: np.ndarray,
                 level_cells: int) -> None:
        self.parts, self.ref_parts, self.w_cat = parts, ref_parts, w_cat
        self.values, self.counting = _level_values(w_cat)
        cards = parts.max(axis=0) + 1
        self.offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
        width = int(cards.sum())
        self.ref_hot = None
        # unequal weights, few columns: the level index of each mismatch pattern, so a level
        # matrix is a pattern matrix (bit k: column k differs) looked up, not a float sum
        self.lookup = None
        if not self.counting and len(self.values) and len(w_cat) <= 16:
            self.lookup = np.searchsorted(self.values, _pattern_values(w_cat)).astype(np.uint32)
        if self.counting and len(ref_parts) * width <= level_cells:
            self.ref_hot = _one_hot(ref_parts, self.offsets, width).T.copy()
        self.width = width

    def matrix(self, chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Level indices of the combinations ``chunk`` against every reference combination,
        and the level values they index."""
        pc = self.parts.shape[1]
        if self.counting:
            dtype = np.uint8 if pc < 255 else np.uint16
            if self.ref_hot is not None:
                matches = _one_hot(self.parts[chunk], self.offsets, self.width) @ self.ref_hot
                return (pc - matches).astype(dtype), self.values
            levels = np.zeros((len(chunk), len(self.ref_parts)), dtype=dtype)
            for k in range(pc):
                levels += self.parts[chunk, k][:, None] != self.ref_parts[:, k][None, :]
            return levels, self.values
        if self.lookup is not None:
            pattern = np.zeros((len(chunk), len(self.ref_parts)), dtype=np.uint16)
            for k in range(pc):
                differs = self.parts[chunk, k][:, None] != self.ref_parts[:, k][None, :]
                pattern |= differs.astype(np.uint16) << np.uint16(k)
            return self.lookup[pattern], self.values
        weighted = np.zeros((len(chunk), len(self.ref_parts)))
        for k in range(pc):
            weighted += self.w_cat[k] * (self.parts[chunk, k][:, None]
                                         != self.ref_parts[:, k][None, :])
        values = self.values if len(self.values) else np.unique(weighted)
        return np.searchsorted(values, weighted).astype(np.uint32), values


def nearest(
    cat_s: np.ndarray,
    cat_r: np.ndarray,
    num_s: np.ndarray,
    num_r: np.ndarray,
    w_cat: np.ndarray,
    *,
    numeric_cap: np.ndarray | None = None,
    pair_batch: int = PAIR_BATCH,
    level_cells: int = LEVEL_CELLS,
    progress: Callable[[int], object] | None = None,
    exclude: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted (unnormalised) distance to and index of the closest reference record.

    The distance of query record s to reference record o is
    ``sum_k w_cat[k] * (cat_s[s, k] != cat_r[o, k]) + sum_k t_k`` with numeric terms
    ``t_k = |num_s[s, k] - num_r[o, k]|``.

    Parameters
    ----------
    cat_s, cat_r
        (n, pc) and (m, pc) integer codes of the categorical columns (same coding in both).
    num_s, num_r
        (n, pq) and (m, pq) numeric values, already scaled (weight / range).
    w_cat
        (pc,) weights (> 0) of the categorical columns.
    numeric_cap
        (pq,) optional caps: ``t_k = min(|...|, numeric_cap[k])`` (SDMetrics' DCR,
        :mod:`capkit.sdmetrics.dcr_distance`). Whether capped or not, a missing value (NaN) on
        either side makes ``t_k = 0``: the caller encodes missingness as a categorical column.
    pair_batch
        About this many record pairs per call of the compiled kernel (one progress step).
    level_cells
        Cells of a level matrix held at once.
    progress
        Called with a number of query records each time that many are settled (for a bar).
    exclude
        (n, e) optional reference rows that each query record may not take (``-1``: none):
        the record itself when a table is searched against itself, the neighbours already
        found when the k-th nearest is wanted (:mod:`capkit.distance.neighbours`). A query
        record whose every reference record is excluded gets ``inf``.

    Returns
    -------
    best, arg
        (n,) distance to the closest reference record and its row (the smallest row among the
        equally close records).

    Notes
    -----
    Level 0 (same categorical combination) is a join; higher levels use a matrix of levels
    between the categorical combinations of the still-unsettled query records and the
    reference combinations, visited in increasing order. A query record is settled once its
    best distance is < the next level, since the numeric part is >= 0 (and floating-point
    addition of a non-negative number never decreases the level); a best distance equal to the
    next level is visited there too, so equally close records tie to the lowest position.
    Pairs of combinations are taken from the matrix a few levels at a time (as many as fit in
    an eighth of the matrix), for the combinations that still have unsettled records.
    """
    n_s, n_r = len(cat_s), len(cat_r)
    pc = cat_s.shape[1]
    num_s = np.ascontiguousarray(num_s, dtype=np.float64)
    num_r = np.ascontiguousarray(num_r, dtype=np.float64)
    if _brute.usable(n_s, n_r, num_s, num_r, w_cat):  # small: every pair, same floats and rows
        best, arg = _brute.brute_nearest(
            cat_s, cat_r, num_s, num_r, np.asarray(w_cat, dtype=np.float64),
            None if numeric_cap is None else np.asarray(numeric_cap, dtype=np.float64),
            None if exclude is None else np.asarray(exclude, dtype=np.int64).reshape(n_s, -1),
            pair_batch=pair_batch, progress=progress)
        return best, arg
    best = np.full(n_s, np.inf)
    arg = np.full(n_s, np.iinfo(np.int64).max, dtype=np.int64)
    if pc:
        cards = [int(max(cat_s[:, k].max(), cat_r[:, k].max())) + 1 for k in range(pc)]
        g_s, g_r, comps = combine_codes([cat_s[:, k] for k in range(pc)],
                                        [cat_r[:, k] for k in range(pc)], cards)
        parts = np.column_stack(comps)
    else:
        g_s, g_r = np.zeros(n_s, dtype=np.int64), np.zeros(n_r, dtype=np.int64)
        parts = np.zeros((1, 0), dtype=np.int64)
    n_combos = parts.shape[0]
    r_count = np.bincount(g_r, minlength=n_combos)
    r_start = np.concatenate([[0], np.cumsum(r_count)[:-1]])
    num_s = np.ascontiguousarray(num_s, dtype=np.float64)
    num_r = np.ascontiguousarray(num_r, dtype=np.float64)
    missing = bool(np.isnan(num_s).any() or np.isnan(num_r).any())
    # the sums of the numeric values bound the distance from below (see the kernel), unless a
    # cap or a missing value breaks |x - y| >= x - y; the margin covers their rounding
    prune = numeric_cap is None and not missing and 0 < num_s.shape[1] <= 10_000
    sum_s, sum_r = num_s.sum(axis=1), num_r.sum(axis=1)
    r_order = (np.lexsort((sum_r, g_r)) if prune else np.argsort(g_r, kind="stable"))
    largest = max(float(np.abs(num_s).sum(axis=1).max(initial=0.0)),
                  float(np.abs(num_r).sum(axis=1).max(initial=0.0)))
    ref_combos = np.flatnonzero(r_count > 0)
    scan = {"r_count": r_count, "r_start": r_start, "r_order": r_order,
            "num_s": num_s, "num_r": num_r, "best": best, "arg": arg,
            "pair_batch": pair_batch, "numeric_cap": numeric_cap, "missing": missing,
            "prune": prune, "sum_s": sum_s, "sum_r": sum_r[r_order],
            "margin": 1e-9 * (largest + float(np.sum(w_cat)) + 1.0),
            "exclude": None if exclude is None else np.asarray(exclude, dtype=np.int64).reshape(
                n_s, -1)}

    if pc == 0 and prune and n_r >= KD_TREE_RECORDS and num_s.shape[1] <= KD_TREE_COLUMNS \
            and exclude is None:  # an excluded record could be the tree's bound
        # an upper bound of each best distance from a k-d tree (L1), raised by the margin, lets
        # the exact search below skip every pair farther than it from the start; the distance
        # and row are still those of the exact search (a bound is never a result)
        from scipy.spatial import cKDTree

        bound = cKDTree(num_r).query(num_s, k=1, p=1)[0]
        best[:] = bound + scan["margin"]
    # Level 0: query records and reference records with the same categorical combination.
    s_order = np.argsort(g_s, kind="stable")
    combos, first = np.unique(g_s[s_order], return_index=True)
    counts = np.diff(np.append(first, n_s))
    shared = r_count[combos] > 0
    act = s_order[np.repeat(shared, counts)]
    local = np.flatnonzero(shared)
    # with no categorical column every pair is at level 0: a record is settled by its block
    _scan_pairs(0.0, act, counts[shared], np.arange(len(local)), combos[local], **scan,
                tick=progress if pc == 0 else None)
    if pc == 0:
        return best, arg

    # Higher levels, for the records not settled yet.
    # every non-zero level is >= the smallest weight (all weights here are > 0); a record whose
    # best equals a level can still meet a lower-indexed record as close at that level, so it is
    # visited there too (>=): ties go to the lowest reference position
    pending = s_order[best[s_order] >= w_cat.min()]  # still grouped by combination
    if progress is not None:
        progress(n_s - len(pending))
    if len(pending) == 0:
        return best, arg
    combos, first = np.unique(g_s[pending], return_index=True)
    counts = np.diff(np.append(first, len(pending)))
    if np.all(w_cat == w_cat[0]):  # equal weights: levels counted per combination, compiled
        _count_levels(parts, combos, first, counts, pending, ref_combos, float(w_cat[0]), scan,
                      progress)
        return best, arg
    levels = _Levels(parts, parts[ref_combos], w_cat, level_cells)
    step = max(1, level_cells // max(len(ref_combos), 1))
    for lo in range(0, len(combos), step):
        matrix, values = levels.matrix(combos[lo : lo + step])
        records = pending[first[lo] : first[lo] + counts[lo : lo + step].sum()]
        chunk_of = np.repeat(np.arange(len(matrix)), counts[lo : lo + step])
        _visit_levels(matrix, values, records, chunk_of, ref_combos, scan)
        if progress is not None:
            progress(len(records))
    return best, arg


def _narrow(parts: np.ndarray) -> np.dtype:
    """The narrowest unsigned type that holds every code of ``parts`` and the number of its
    columns (``np.min_scalar_type``; int64 for negative codes): the kernel counts differing
    columns in the codes' own type, and compares 8 or 4 times as many combinations per
    instruction in a narrow one (on Adult's independent synthesis the count went from 0.17 s
    to 0.015 s)."""
    if parts.size and int(parts.min()) < 0:
        return np.dtype(np.int64)
    return np.min_scalar_type(max(int(parts.max(initial=0)), parts.shape[1]))


def _count_levels(parts: np.ndarray, combos: np.ndarray, first: np.ndarray, counts: np.ndarray,
                  pending: np.ndarray, ref_combos: np.ndarray, weight: float, scan: dict,
                  progress: Callable[[int], object] | None) -> None:
    """Levels >= 1 with equal weights (:func:`capkit.distance._kernel.scan_levels`), in blocks
    of query combinations holding about :data:`QUERY_BLOCK` records or more."""
    from capkit.distance._kernel import scan_levels  # numba: loaded by the first large search

    narrow = _narrow(parts)
    q_parts = np.ascontiguousarray(parts[combos], dtype=narrow)
    ref_parts = np.ascontiguousarray(parts[ref_combos], dtype=narrow)
    ends = np.cumsum(counts)
    cap = (np.zeros(scan["num_s"].shape[1]) if scan["numeric_cap"] is None
           else scan["numeric_cap"].astype(np.float64))
    lo = 0
    while lo < len(combos):
        hi = int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + QUERY_BLOCK, side="left"))
        hi = min(max(hi + 1, lo + 1), len(combos))
        q_first = np.append(first[lo:hi], first[hi - 1] + counts[hi - 1]).astype(np.int64)
        scan_levels(q_parts[lo:hi], q_first, pending, ref_parts, ref_combos.astype(np.int64),
                    weight, scan["r_count"], scan["r_start"], scan["r_order"], scan["num_s"],
                    scan["num_r"], scan["best"], scan["arg"], cap,
                    scan["numeric_cap"] is not None, scan["missing"], scan["prune"],
                    scan["sum_s"], scan["sum_r"], scan["margin"],
                    _no_exclusion(scan["exclude"], scan["num_s"].shape[0]))
        if progress is not None:
            progress(int(q_first[-1] - q_first[0]))
        lo = hi


def _visit_levels(matrix: np.ndarray, values: np.ndarray, records: np.ndarray,
                  chunk_of: np.ndarray, ref_combos: np.ndarray, scan: dict) -> None:
    """Visit the levels >= 1 of one chunk of query combinations in increasing order.

    ``matrix[g, h]`` indexes ``values``, the level of query combination g against reference
    combination ``ref_combos[h]``; ``records`` are the chunk's query records, ``chunk_of`` the
    row of ``matrix`` of each. The (g, h) pairs of a band of consecutive levels are extracted in
    one pass over the rows that still have unsettled records.
    """
    best = scan["best"]
    n_rows = len(matrix)
    # level counts estimated on every few rows (exact for small chunks), to size the bands
    every = max(1, n_rows // 64)
    histogram = np.bincount(matrix[::every].ravel(), minlength=len(values)) * every
    budget = max(matrix.size // 8, 1)
    low = 1 if values[0] == 0 else 0
    while low < len(values):
        active = best[records] >= values[low]
        if not active.any():
            return
        a_count = np.bincount(chunk_of[active], minlength=n_rows)
        rows = np.flatnonzero(a_count > 0)
        cumulative = np.cumsum(histogram[low:])
        high = low + max(1, int(np.searchsorted(cumulative, budget, side="right")))
        sub = matrix[rows] if len(rows) < n_rows else matrix
        in_band = sub < high
        if low > 1:
            in_band &= sub >= low
        gi, hj = np.nonzero(in_band)
        gi = rows[gi] if len(rows) < n_rows else gi
        level_of = matrix[gi, hj]
        for index in range(low, high):
            active = best[records] >= values[index]
            if not active.any():
                return
            a_count = np.bincount(chunk_of[active], minlength=n_rows)
            take = (level_of == index) & (a_count[gi] > 0)
            _scan_pairs(float(values[index]), records[active], a_count, gi[take],
                        ref_combos[hj[take]], **scan)
        low = high


__all__ = ["LEVEL_CELLS", "PAIR_BATCH", "nearest"]
