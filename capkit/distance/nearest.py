"""Exact nearest record under "categorical level + numeric L1": the search behind every DCR.

The distance between a query record s and a reference record o is
``C(s, o) + sum_k t_k(s, o)``: C, the summed weights of the categorical columns where they
differ, takes few values ("levels"), and the numeric terms ``t_k = |x_sk - x_ok|`` (values
already scaled by weight / range) are >= 0, so a reference record at level c cannot beat a
current best <= c. The search therefore visits levels in increasing order: unique categorical
combinations are compared once (a matrix of levels per chunk of query combinations), and numeric
distances are computed, in fixed-size batches of record pairs, only for the query records whose
best distance so far exceeds the level. Most query records are settled by the records sharing
their categorical combination or differing in one column. With only numeric columns every pair
is visited (chunked brute force). The result is exact: it equals a brute-force minimum over all
pairs to rounding.

Used by :func:`capkit.distance.dcr` (Gower; Minieri, seeds/004) and by SDMetrics' DCR
(:mod:`capkit.sdmetrics.dcr_distance`), whose numeric terms are capped at 1 (``numeric_cap``).
"""

from __future__ import annotations

import numpy as np

from capkit.counts.encode import combine_codes

#: Record pairs whose numeric distance is evaluated at once.
PAIR_BATCH = 2**21
#: Cells of the (synthetic combinations x reference combinations) level matrix held at once.
LEVEL_CELLS = 2**22

def _minimum_update(best: np.ndarray, arg: np.ndarray, s_idx: np.ndarray, r_idx: np.ndarray,
                    d: np.ndarray) -> None:
    """best[s] = min(best[s], d); arg[s] = smallest reference index reaching the new best."""
    touched = np.unique(s_idx)
    before = best[touched].copy()
    np.minimum.at(best, s_idx, d)
    arg[touched[best[touched] < before]] = np.iinfo(np.int64).max
    reach = d == best[s_idx]
    np.minimum.at(arg, s_idx[reach], r_idx[reach])


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
) -> None:
    """Visit every record pair of the combination pairs (gi, hj) at categorical level ``level``.

    ``act`` holds the synthetic records to visit grouped by local combination (``a_count`` of
    each); ``hj`` are reference combination ids. Pairs are enumerated in batches of
    ``pair_batch`` by index arithmetic, never as nested loops.
    """
    a_start = np.concatenate([[0], np.cumsum(a_count)[:-1]])
    sizes = a_count[gi] * r_count[hj]
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if len(ends) else 0
    for first in range(0, total, pair_batch):
        e = np.arange(first, min(first + pair_batch, total), dtype=np.int64)
        pid = np.searchsorted(ends, e, side="right")
        offset = e - (ends[pid] - sizes[pid])
        width = r_count[hj[pid]]
        s_idx = act[a_start[gi[pid]] + offset // width]
        r_idx = r_order[r_start[hj[pid]] + offset % width]
        d = np.full(len(e), level)
        for k in range(num_s.shape[1]):
            d += np.abs(num_s[s_idx, k] - num_r[r_idx, k])
        _minimum_update(best, arg, s_idx, r_idx, d)


def _level_values(w_cat: np.ndarray) -> tuple[np.ndarray, bool]:
    """Possible categorical levels (sorted) and whether all weights are equal (count path)."""
    if np.all(w_cat == w_cat[0]):
        return w_cat[0] * np.arange(len(w_cat) + 1, dtype=np.float64), True
    if len(w_cat) <= 16:
        patterns = np.arange(2 ** len(w_cat))
        values = np.zeros(len(patterns))
        for k in range(len(w_cat)):  # same summation order as the level matrix
            values += w_cat[k] * ((patterns >> k) & 1 == 1)
        return np.unique(values), False
    return np.empty(0), False


def nearest(
    cat_s: np.ndarray,
    cat_r: np.ndarray,
    num_s: np.ndarray,
    num_r: np.ndarray,
    w_cat: np.ndarray,
    *,
    pair_batch: int = PAIR_BATCH,
    level_cells: int = LEVEL_CELLS,
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted (unnormalised) distance to and index of the closest reference record.

    Level 0 (same categorical combination) is a join; higher levels use a matrix of levels
    between the categorical combinations of the still-unsettled synthetic records and the
    reference combinations, visited in increasing order. A synthetic record is settled once its
    best distance is <= the next level, since the numeric part is >= 0 (and floating-point
    addition of a non-negative number never decreases the level).
    """
    n_s, n_r = len(cat_s), len(cat_r)
    pc = cat_s.shape[1]
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
    r_order = np.argsort(g_r, kind="stable")
    ref_combos = np.flatnonzero(r_count > 0)
    ref_parts = parts[ref_combos]
    scan = {"r_count": r_count, "r_start": r_start, "r_order": r_order, "num_s": num_s,
            "num_r": num_r, "best": best, "arg": arg, "pair_batch": pair_batch}

    # Level 0: synthetic records and reference records with the same categorical combination.
    s_order = np.argsort(g_s, kind="stable")
    combos, first = np.unique(g_s[s_order], return_index=True)
    counts = np.diff(np.append(first, n_s))
    shared = r_count[combos] > 0
    act = s_order[np.repeat(shared, counts)]
    local = np.flatnonzero(shared)
    _scan_pairs(0.0, act, counts[shared], np.arange(len(local)), combos[local], **scan)
    if pc == 0:
        return best, arg

    # Higher levels, for the records not settled yet.
    values, counting = _level_values(w_cat)
    # every non-zero level is >= the smallest weight (all weights here are > 0)
    pending = s_order[best[s_order] > w_cat.min()]  # still grouped by combination
    if len(pending) == 0:
        return best, arg
    combos, first = np.unique(g_s[pending], return_index=True)
    counts = np.diff(np.append(first, len(pending)))
    step = max(1, level_cells // max(len(ref_combos), 1))
    for lo in range(0, len(combos), step):
        chunk = combos[lo : lo + step]
        if counting:
            levels = np.zeros((len(chunk), len(ref_combos)), dtype=np.uint8 if pc < 255 else
                              np.uint16)
            for k in range(pc):
                levels += parts[chunk, k][:, None] != ref_parts[:, k][None, :]
            steps = [(float(v), np.uint16(i)) for i, v in enumerate(values)]
        else:
            levels = np.zeros((len(chunk), len(ref_combos)))
            for k in range(pc):
                levels += w_cat[k] * (parts[chunk, k][:, None] != ref_parts[:, k][None, :])
            found = values if len(values) else np.unique(levels)
            steps = [(float(v), v) for v in found]
        records = pending[first[lo] : first[lo] + counts[lo : lo + step].sum()]
        chunk_of = np.repeat(np.arange(len(chunk)), counts[lo : lo + step])
        for level, key in steps:
            if level == 0:
                continue
            active = best[records] > level
            if not active.any():
                break
            a_count = np.bincount(chunk_of[active], minlength=len(chunk))
            gi, hj = np.nonzero((levels == key) & (a_count > 0)[:, None])
            _scan_pairs(level, records[active], a_count, gi, ref_combos[hj], **scan)
    return best, arg


__all__ = ["LEVEL_CELLS", "PAIR_BATCH", "nearest"]
