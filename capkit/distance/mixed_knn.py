"""Exact k nearest synthetic records under anonymeter's mixed-type distance, for every record.

How it differs from its siblings in :mod:`capkit.distance`: :mod:`~capkit.distance.nearest`
finds the one nearest record under Gower's level-plus-L1 sum (every DCR);
:mod:`~capkit.distance.neighbours` the k nearest distances SynthEval's measures take;
:mod:`~capkit.distance.grid_knn` the k nearest under the Euclidean distance on a grid. This one
is anonymeter's distance, with the counts of tied candidates and the band at the k-th distance
that the linkability and inference attacks (:mod:`capkit.attacks`) need.

The distance (Giomi et al. 2022, "A Unified Framework for Quantifying Privacy Risk in Synthetic
Data", PoPETs 2023; anonymeter's ``MixedTypeKNeighbors``) between a record x and a candidate y
over the given columns is a sum, numeric columns first then the others, each group in name
order, starting from 0.0:

* numeric column: ``|x / r - y / r|`` with r = max - min of the column over the candidates and
  the queried records together (r = 0 -> 1); the division comes first, as in anonymeter, so the
  floats are the same to the bit. Both missing -> 1; one missing -> the distance is NaN, which
  ranks after every number;
* any other column (text, categorical, boolean): 0 if equal, else 1 (a missing value is a level
  of its own, equal to another missing value).

Neighbours are ranked by distance, ties by the **lowest candidate position** (capkit's rule;
anonymeter's order among ties comes from numba's quicksort). For each record the search also
returns the k-th distance and how many candidates share it, so callers can tell whether a tie
decides the k nearest set, and it can hand over the "band" (candidates at or below the k-th
distance) block by block.

Speed without approximation: candidates are grouped by their values in the non-numeric columns.
Another group is at least 1 away (one differing column adds 1 to a sum of non-negative terms),
so when the k-th distance inside a record's own group is below 1, no other candidate can come
closer or tie: the search is exact within the group. The remaining records (no group, k-th
distance >= 1, missing numbers) are compared with every candidate. In a group of
:data:`WINDOW_CANDIDATES` or more candidates (and no missing number) a record is compared only
with the candidates whose term on one numeric column is within a k-d tree bound of its k-th
distance (:func:`_windowed`): a sum of non-negative terms is at least each term, so no other
candidate can be as close; the answer is the same, the work about ``log m`` plus those
candidates per record instead of the group's size. The distances are read by
compiled kernels (:mod:`capkit.distance._mixed_kernel`), each query by one thread, without
holding a block of distances; there is no Python loop over records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from tqdm import tqdm

from capkit.counts.rows import unique_rows
from capkit.counts.runs import concatenated_ranges
from capkit.data.labels import is_numeric
from capkit.distance import _mixed_kernel, squared
from capkit.errors import CapkitError

__all__ = ["MixedData", "Neighbors", "encode", "nearest", "pair_distances"]

#: Distance cells (float64) computed at once.
CELLS = 1 << 22
#: Candidates of a group from which a query is compared only with a window of them
#: (:func:`_windowed`) rather than with all.
WINDOW_CANDIDATES = 2048
#: A window wider than this is replaced by the candidates in the L1 ball of the bound (the k-d
#: tree's ball query): fewer in several dimensions than in a slab of one column.
BALL_WINDOW = 256
#: Candidates of a query's band (those at or below its k-th distance) that the search itself
#: hands over; a wider band (many ties) is listed by a second pass over its distances.
BAND_SLOTS = 8


@dataclass(frozen=True)
class MixedData:
    """Queries and candidates encoded for the distance: scaled numbers and category codes."""

    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    query_num: np.ndarray
    query_cat: np.ndarray
    cand_num: np.ndarray
    cand_cat: np.ndarray
    nan_free: bool = True

    @property
    def n_queries(self) -> int:
        return len(self.query_num)

    def distinct_queries(self) -> tuple[MixedData, np.ndarray]:
        """The same data with each distinct query row once (identical rows have identical
        neighbours), and the map from every query to its distinct row."""
        key = np.column_stack([np.ascontiguousarray(self.query_num).view(np.int64),
                               self.query_cat])
        first, inverse = unique_rows(key)
        return (replace(self, query_num=self.query_num[first], query_cat=self.query_cat[first]),
                inverse)

    @property
    def n_candidates(self) -> int:
        return len(self.cand_num)


def encode(queries: pd.DataFrame, candidates: pd.DataFrame, columns: list[str],
           names: tuple[str, str] = ("original", "synthetic")) -> MixedData:
    """Encode ``columns`` of both frames for :func:`nearest` (anonymeter's preprocessing).

    Raises
    ------
    CapkitError
        A column missing from a frame, or numeric in one frame and not in the other.
    """
    numeric, categorical = [], []
    for column in columns:
        for frame, name in ((queries, names[0]), (candidates, names[1])):
            if column not in frame.columns:
                raise CapkitError(f"column {column!r} is missing from {name}")
        kinds = (is_numeric(queries[column]), is_numeric(candidates[column]))
        if kinds[0] != kinds[1]:
            raise CapkitError(
                f"column {column!r} is {'numeric' if kinds[1] else 'not numeric'} in "
                f"{names[1]} but {'numeric' if kinds[0] else 'not numeric'} in {names[0]}; "
                "code it the same way in both")
        (numeric if kinds[0] else categorical).append(column)
    numeric, categorical = sorted(numeric), sorted(categorical)
    n_q = len(queries)
    q_num = np.empty((n_q, len(numeric)))
    c_num = np.empty((len(candidates), len(numeric)))
    for j, column in enumerate(numeric):
        q = queries[column].to_numpy(dtype=float, na_value=np.nan)
        c = candidates[column].to_numpy(dtype=float, na_value=np.nan)
        both = np.concatenate([q, c])
        span = np.nanmax(both) - np.nanmin(both) if (~np.isnan(both)).any() else 0.0
        span = 1.0 if span == 0 or np.isnan(span) else span
        q_num[:, j], c_num[:, j] = q / span, c / span
    q_cat = np.empty((n_q, len(categorical)), dtype=np.int64)
    c_cat = np.empty((len(candidates), len(categorical)), dtype=np.int64)
    for j, column in enumerate(categorical):
        types = [{type(v).__name__ for v in pd.unique(frame[column].dropna().astype(object))}
                 for frame in (queries, candidates)]
        if types[0] and types[1] and types[0] != types[1]:
            raise CapkitError(f"column {column!r} holds {'/'.join(sorted(types[1]))} values in "
                              f"{names[1]} but {'/'.join(sorted(types[0]))} in {names[0]}; "
                              "code it the same way in both")
        joined = pd.concat([queries[column].astype(object), candidates[column].astype(object)],
                           ignore_index=True)
        codes, _ = pd.factorize(joined, use_na_sentinel=False)
        q_cat[:, j], c_cat[:, j] = codes[:n_q], codes[n_q:]
    nan_free = not (np.isnan(q_num).any() or np.isnan(c_num).any())
    return MixedData(tuple(numeric), tuple(categorical), q_num, q_cat, c_num, c_cat, nan_free)


def pair_distances(data: MixedData, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Distance of query ``rows[i]`` to candidate ``cols[i]`` for every i, summed in
    anonymeter's order (numbers, then the others): bit-identical to the distances
    :func:`nearest` ranks (:mod:`capkit.distance._mixed_kernel`)."""
    acc = np.zeros(len(rows))
    term = np.empty(len(rows)) if len(data.numeric) > 1 else None
    for j in range(len(data.numeric)):
        a, b = data.query_num[rows, j], data.cand_num[cols, j]
        out = acc if j == 0 else term  # 0.0 + t == t: the first term is the sum so far
        np.subtract(a, b, out=out)
        np.abs(out, out=out)
        if not data.nan_free:
            out[np.isnan(a) & np.isnan(b)] = 1.0
        if j:
            acc += term
    for j in range(len(data.categorical)):
        acc += data.query_cat[rows, j] != data.cand_cat[cols, j]
    return acc


@dataclass(frozen=True)
class Neighbors:
    """k nearest candidates of every query (distance, then lowest position).

    Attributes
    ----------
    index, distance
        queries x k: positions of the nearest candidates and their distances, nearest first.
    kth
        The k-th smallest distance (NaN ranks last, shown as inf here).
    n_below, n_at_kth
        Candidates strictly closer than ``kth``, and at exactly ``kth`` (n_below < k <=
        n_below + n_at_kth; the k nearest set depends on the tie order when n_below + n_at_kth
        > k).
    n_at_min
        Candidates at the minimum distance.
    """

    index: np.ndarray
    distance: np.ndarray
    kth: np.ndarray
    n_below: np.ndarray
    n_at_kth: np.ndarray
    n_at_min: np.ndarray


#: Called with (query positions, candidate positions, at_kth) for every candidate at or below a
#: query's k-th distance.
BandCallback = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def nearest(data: MixedData, k: int, *, on_band: BandCallback | None = None,
            progress: bool = False) -> Neighbors:
    """The k nearest candidates of every query, exactly (module docstring).

    Parameters
    ----------
    data
        From :func:`encode`.
    k
        Neighbours wanted, 1 <= k <= number of candidates.
    on_band
        Optional callback receiving, block by block, every (query, candidate) pair at or below
        the query's k-th distance, with a flag for "at the k-th distance".
    progress
        Show a tqdm progress bar.
    """
    n_q, n_c = data.n_queries, data.n_candidates
    if not 1 <= k <= n_c:
        raise CapkitError(f"n_neighbors must be from 1 to the number of synthetic records "
                          f"({n_c}), got {k}")
    out = Neighbors(np.empty((n_q, k), np.int64), np.empty((n_q, k)), np.empty(n_q),
                    np.empty(n_q, np.int64), np.empty(n_q, np.int64), np.empty(n_q, np.int64))
    groups_q, groups_c = _profiles(data)
    order_c = np.argsort(groups_c, kind="stable")
    starts = np.searchsorted(groups_c[order_c], np.arange(groups_c.max() + 2 if n_c else 1))
    order_q = np.argsort(groups_q, kind="stable")
    q_sorted = groups_q[order_q]
    q_bounds = np.flatnonzero(np.r_[True, q_sorted[1:] != q_sorted[:-1], True])
    several_groups = len(data.categorical) > 0 and starts[-1] > starts[1]
    fallback = [order_q[q_sorted < 0]]
    if not data.numeric:  # categories only: every candidate of a query's group is at 0
        fallback = [_same_values(groups_q, order_c, starts, k, several_groups, out, on_band)]
        q_bounds = q_bounds[:1]  # no group left for the loop below
    bar = tqdm(total=len(q_bounds) - 1, desc="nearest neighbours", disable=not progress)
    for a, b in zip(q_bounds[:-1], q_bounds[1:], strict=True):
        group = q_sorted[a]
        bar.update()
        if group < 0:
            continue
        queries = order_q[a:b]
        cands = order_c[starts[group]:starts[group + 1]]  # ascending positions (stable sort)
        if len(cands) < k and several_groups:
            fallback.append(queries)
            continue
        if data.nan_free and len(cands) >= WINDOW_CANDIDATES:
            _windowed(data, queries, cands, k, several_groups, out, on_band, fallback)
            continue
        columns = _columns(data, cands)
        step = max(1, CELLS // max(len(cands), 1))
        for s in range(0, len(queries), step):
            rows = queries[s:s + step]
            found = _search(data, rows, columns, k, with_cat=False)
            exact = (found[0] < 1.0) | (not several_groups)
            if not exact.all():
                fallback.append(rows[~exact])
            _fill(data, found, exact, rows, cands, columns, False, out, on_band)
    bar.close()
    rest = np.concatenate(fallback)
    everything = np.arange(n_c)
    columns = _columns(data, everything)
    step = max(1, CELLS // max(n_c, 1))
    for s in range(0, len(rest), step):
        rows = rest[s:s + step]
        found = _search(data, rows, columns, k, with_cat=True)
        _fill(data, found, np.ones(len(rows), dtype=bool), rows, everything, columns, True, out,
              on_band)
    return out


def _windowed(data: MixedData, queries: np.ndarray, cands: np.ndarray, k: int,
              several_groups: bool, out: Neighbors, on_band: BandCallback | None,
              fallback: list[np.ndarray]) -> None:
    """:func:`nearest` for the ``queries`` of one large group of candidates (ascending
    positions ``cands``), each compared only with the candidates that can be at or below its
    k-th distance: the same answer as comparing it with all of them.

    A distance is a sum of non-negative terms, and a rounded sum of non-negative floats is at
    least each of its terms, so a candidate whose term ``|x_j - y_j|`` on one numeric column j
    exceeds a bound U of the query's k-th distance is farther than that distance: neither among
    the k nearest, nor tied at the k-th, nor in the band. U is the k-th L1 distance of a k-d
    tree (scipy's ``cKDTree``; its sums are rounded in another order, so U is raised by a
    relative 1e-9, and a tree distance of 0 is an exact copy, at 0 here too). The window, the
    candidates with ``|x_j - y_j| <= U`` (a contiguous run of the candidates sorted on column
    j), is widened by 1e-9 of ``U + |x_j|`` to cover the rounding of its ends; j is, per query,
    the column with the narrowest window. The window is then searched in ascending positions,
    as the whole group would be, by :func:`capkit.distance._mixed_kernel.nearest_windows`: the
    same floats, counts and ties. A window wider than :data:`BALL_WINDOW` is replaced by the
    candidates the tree finds in the L1 ball of radius U (raised by a relative 1e-9 once more:
    a candidate at or below the k-th distance is within U of the query in the tree's sums too),
    fewer than in a slab of one column when several columns spread the records (a ball of
    fewer than k candidates, which the bound rules out, keeps the slab). The work is a tree
    search (log m) and the window or ball per query, about ``n_queries x (candidates near the
    k-th distance)`` instead of ``n_queries x n_candidates``.
    """
    from scipy.spatial import cKDTree

    values = data.cand_num[cands]
    m, p = values.shape
    orders = np.empty((p, m), dtype=np.int64)
    columns = np.empty((p, m))
    for j in range(p):
        order = np.lexsort((cands, values[:, j]))
        orders[j], columns[j] = cands[order], values[order, j]
    tree = cKDTree(values)
    for s in range(0, len(queries), CELLS // 64):
        rows = queries[s:s + CELLS // 64]
        x = data.query_num[rows]
        bound = tree.query(x, k=[k], p=1)[0][:, 0]
        bound = bound + 1e-9 * bound
        lows, highs = np.empty((p, len(rows)), np.int64), np.empty((p, len(rows)), np.int64)
        for j in range(p):
            reach = bound + 1e-9 * (bound + np.abs(x[:, j]))  # covers rounding of x -/+ reach
            lows[j] = np.searchsorted(columns[j], x[:, j] - reach, side="left")
            highs[j] = np.searchsorted(columns[j], x[:, j] + reach, side="right")
        column = np.argmin(highs - lows, axis=0)
        pick = np.arange(len(rows))
        lo = lows[column, pick] + column * m  # places in `pool`
        hi = highs[column, pick] + column * m
        pool = orders.ravel()
        wide = np.flatnonzero(hi - lo > BALL_WINDOW)
        if len(wide):  # the L1 ball of radius U (raised again for the tree's rounding)
            sizes, inside = squared.tree_balls(tree, x[wide], bound[wide] * (1 + 1e-9), 1)
            inside = cands[inside]  # any order: a window is searched in ascending positions
            starts = len(pool) + np.cumsum(sizes) - sizes
            sure = sizes >= k  # always (the ball holds the k nearest); else the slab stays
            lo[wide[sure]], hi[wide[sure]] = starts[sure], starts[sure] + sizes[sure]
            pool = np.concatenate([pool, inside])
        found = _mixed_kernel.nearest_windows(data.query_num, pool, data.cand_num, lo, hi,
                                              np.asarray(rows, np.int64), k, BAND_SLOTS)
        exact = (found[0] < 1.0) | (not several_groups)
        if not exact.all():
            fallback.append(rows[~exact])
        kth, n_below, n_at, n_min, place, dist, band, band_at = (f[exact] for f in found)
        rows, lo, hi = rows[exact], lo[exact], hi[exact]
        out.index[rows], out.distance[rows], out.kth[rows] = place, dist, kth
        out.n_below[rows], out.n_at_kth[rows], out.n_at_min[rows] = n_below, n_at, n_min
        if on_band is None or len(rows) == 0:
            continue
        held = band >= 0
        r, slot = np.nonzero(held)
        on_band(rows[r], band[r, slot], band_at[r, slot])
        wide = np.flatnonzero(~held[:, 0])
        if len(wide):
            start = np.concatenate([[0], np.cumsum(n_below[wide] + n_at[wide])]).astype(np.int64)
            r, c, at = _mixed_kernel.band_windows(data.query_num, pool, data.cand_num,
                                                  lo[wide], hi[wide],
                                                  np.asarray(rows[wide], np.int64), kth[wide],
                                                  start)
            on_band(rows[wide[r]], c, at)


def _columns(data: MixedData, cands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The candidates' numeric and categorical columns, one row per column (contiguous)."""
    return (np.ascontiguousarray(data.cand_num[cands].T),
            np.ascontiguousarray(data.cand_cat[cands].T))


def _search(data: MixedData, rows: np.ndarray, columns: tuple[np.ndarray, np.ndarray], k: int,
            with_cat: bool) -> tuple[np.ndarray, ...]:
    """k-th distance, counts below / at it / at the minimum, and the k nearest (places among
    the candidates of ``columns``, distances) of query ``rows``
    (:func:`capkit.distance._mixed_kernel.nearest_rows`)."""
    return _mixed_kernel.nearest_rows(data.query_num, data.query_cat, *columns,
                                      np.asarray(rows, dtype=np.int64), k, with_cat,
                                      data.nan_free, BAND_SLOTS)


def _fill(data: MixedData, found: tuple[np.ndarray, ...], keep: np.ndarray, rows: np.ndarray,
          cands: np.ndarray, columns: tuple[np.ndarray, np.ndarray], with_cat: bool,
          out: Neighbors, on_band: BandCallback | None) -> None:
    """Write the ``keep`` rows of a search into ``out``, and hand their band to ``on_band``."""
    kth, n_below, n_at, n_min, place, dist, band, band_at = (f[keep] for f in found)
    rows = rows[keep]
    if len(rows) == 0:
        return
    out.index[rows] = cands[place]
    out.distance[rows] = dist
    out.kth[rows] = kth
    out.n_below[rows] = n_below
    out.n_at_kth[rows] = n_at
    out.n_at_min[rows] = n_min
    if on_band is None:
        return
    held = band >= 0  # the bands the search kept (at most BAND_SLOTS candidates)
    r, slot = np.nonzero(held)
    on_band(rows[r], cands[band[r, slot]], band_at[r, slot])
    wide = np.flatnonzero(~held[:, 0]) if band.shape[1] else np.arange(len(rows))
    if len(wide):  # the others' distances computed again, their band listed
        start = np.concatenate([[0], np.cumsum(n_below[wide] + n_at[wide])]).astype(np.int64)
        r, c, at = _mixed_kernel.band_rows(data.query_num, data.query_cat, *columns,
                                           np.asarray(rows[wide], dtype=np.int64), kth[wide],
                                           start, with_cat, data.nan_free)
        on_band(rows[wide[r]], cands[c], at)


def _same_values(groups_q: np.ndarray, order_c: np.ndarray, starts: np.ndarray, k: int,
                 several_groups: bool, out: Neighbors, on_band: BandCallback | None
                 ) -> np.ndarray:
    """:func:`nearest`'s groups when there is no numeric column: a query's group holds the
    candidates with its values, all at distance 0, so its k nearest are the group's k lowest
    positions and its band is the whole group, with no distance to compute. Fills ``out`` for
    those queries and returns the others (no group, or fewer than k in it)."""
    size = np.diff(starts)
    group = np.maximum(groups_q, 0)
    own = (groups_q >= 0) & ((size[group] >= k) | (not several_groups))
    rows = np.flatnonzero(own)
    first, length = starts[group[rows]], size[group[rows]]
    out.index[rows] = order_c[first[:, None] + np.arange(k)]  # ascending positions
    out.distance[rows] = 0.0
    out.kth[rows] = 0.0
    out.n_below[rows] = 0
    out.n_at_kth[rows] = length
    out.n_at_min[rows] = length
    if on_band is not None and len(rows):
        on_band(np.repeat(rows, length), order_c[concatenated_ranges(length, first)],
                np.ones(int(length.sum()), dtype=bool))
    return np.flatnonzero(~own)


def _profiles(data: MixedData) -> tuple[np.ndarray, np.ndarray]:
    """Group ids of the candidates' non-numeric values; queries get their group's id, or -1."""
    if not data.categorical:
        return np.zeros(data.n_queries, np.int64), np.zeros(data.n_candidates, np.int64)
    both = np.concatenate([data.cand_cat, data.query_cat])
    ids = unique_rows(both)[1]
    cand, query = ids[:data.n_candidates], ids[data.n_candidates:]
    present = np.zeros(ids.max() + 1, dtype=bool)
    present[cand] = True
    remap = np.cumsum(present) - 1
    return np.where(present[query], remap[query], -1), remap[cand]
