"""DOMIAS 0.0.5's squared Euclidean distance on the raw columns (``sum_k (x_k - y_k)^2``,
summed in column order, as its ``d``): the nearest distance, the counts within a radius (MC) and
the make-up of the k nearest records (DPI).

The nearest distance and the counts visit only the target records whose sum of values is
within reach: by Cauchy-Schwarz ``(sum_k (x_k - y_k))^2 <= p * sum_k (x_k - y_k)^2``, so a
record y with ``|sum x - sum y| > sqrt(p * B)`` is farther than B. B is the radius (MC), or
for the nearest distance the best of the 2 x :data:`WINDOW` records nearest in sum (a distance
actually reached, so an upper bound). The bound is widened by a margin far above the rounding of
the sums and distances (``1e-9`` relative, ``1e-9 p max sum |row|`` absolute), and every
candidate's distance is computed with the same operations as a pass over every pair
(:func:`_squared_blocks`), so the minima and counts are the same floats and integers; with
non-finite values, or when the bound leaves more than half the pairs, every pair is visited.
On Adult's raw columns (sums dominated by ``fnlwgt``) a few records per query remain; where
more than :data:`SUMS_PER_ROW` remain (columns of similar spread: the sums then bound little),
the nearest distance and the counts come from a k-d tree's balls instead (:func:`_tree_min`,
:func:`ball_counts_in_balls`), the same floats and counts.

The make-up of the k nearest (DPI) comes from a k-d tree's balls (:func:`knn_share_in_balls`,
also used by the Gower searches without a categorical column): a tree search and the ball per
query, ``(n + m) log m`` plus the ball's records (k and their ties), instead of every pair.

Every search visits its queries in order of their sums (:func:`_sum_order`) and puts each
result back in its place: a query's result depends on it alone, so the numbers are those of the
given order, but consecutive queries now look at neighbouring targets and tree nodes. In a
random order each query started in another part of memory, and once the data outgrew the
processor's caches (a few hundred thousand records) that made these searches grow as
n^1.3-1.7 on a noisy bootstrap of Adult.

The k-d tree is split at the sliding midpoint (:func:`kd_tree`), which on those data visits
fewer nodes a search than the median split; timed with every node a block of queries touches
in the processor's caches, the cost of a search grows with m alike, so what remains of the
growth is that work, not memory.

Cost: sorting the targets and the queries by sum, ``(n + m) log m``, then per query a tree
search (about log m) and the targets within reach: one or a few on data whose records are
distinct. Worst case: when most records are copies of a few (a bootstrap without noise), every
copy is tied at the nearest distance, inside MC's ball and among the k nearest, so each query
visits about m / (distinct target rows) targets and the work grows as n m / distinct rows,
whatever the order; exact counts and ties leave no shortcut.

Kept apart from :mod:`capkit.distance.radius` (whose Gower searches are compiled) so that the
DOMIAS-compatible attacks do not import numba.
"""

from __future__ import annotations

import functools
import itertools
import sys

import numpy as np

from capkit.counts.runs import concatenated_ranges

BLOCK_CELLS = 1 << 21
#: Candidate pairs evaluated at once by the search on sums.
PAIR_BATCH = 1 << 20
#: Records on each side of a query's position in the sorted sums that give its first bound.
WINDOW = 8
#: DPI: targets from which the k nearest are searched in a k-d tree's balls, and the most
#: columns for which a tree pays.
TREE_RECORDS, TREE_COLUMNS = 2048, 16
#: Queries whose k-d tree balls are listed at once.
BALL_QUERIES = 1 << 14
#: Candidates per query of the search on sums past which the nearest distance and the ball
#: counts go to a k-d tree (when :func:`tree_usable`): few on Adult's raw columns, where the
#: sums (dominated by ``fnlwgt``) leave a few records per query.
SUMS_PER_ROW = 64
#: MC's ball counts: targets a k-d tree query returns at once; a query with that many within
#: reach has its ball listed instead.
BALL_FEW = 8
#: Queries from which the searches visit them in order of their sums (:func:`_sum_order`).
ORDER_QUERIES = 4096
#: Candidate pairs up to which the nearest distance stays on the search on sums while
#: ``scipy.spatial`` is not imported yet: importing it costs about 0.2 CPU-s, the search on
#: sums about 35 ns a pair (GAN-Leaks' first call at 8,000 records: 1.5 million pairs).
TREE_IMPORT_PAIRS = 1 << 22


def _squared_blocks(x: np.ndarray, y: np.ndarray):
    """(start, stop, block of sum_k (x_k - y_k)^2 summed in column order)."""
    step = max(1, BLOCK_CELLS // max(len(y), 1))
    for start in range(0, len(x), step):
        stop = min(start + step, len(x))
        block = np.zeros((stop - start, len(y)))
        for k in range(x.shape[1]):
            diff = x[start:stop, k][:, None] - y[:, k][None, :]
            diff *= diff
            block += diff
        yield start, stop, block


def _pair_squared(x: np.ndarray, y: np.ndarray, qi: np.ndarray, tj: np.ndarray) -> np.ndarray:
    """sum_k (x_qi,k - y_tj,k)^2 for each pair, with :func:`_squared_blocks`' operations."""
    out = np.zeros(len(qi))
    for k in range(x.shape[1]):
        diff = x[qi, k] - y[tj, k]
        diff *= diff
        out += diff
    return out


def _largest_row(values: np.ndarray) -> float:
    """max_i sum_k |values_ik| (0.0 for no row), a block of rows at a time (each row's sum is
    the same float as over the whole array)."""
    step = max(1, BLOCK_CELLS // max(values.shape[1], 1))
    return max((float(np.abs(values[start:start + step]).sum(axis=1).max(initial=0.0))
                for start in range(0, len(values), step)), default=0.0)


class _BySums:
    """The target records sorted by their sum of values, and the margin of the bound."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        sums = y.sum(axis=1)
        self.order = np.argsort(sums)  # ties in any order: minima and counts do not change
        self.targets = y
        self.sums = sums[self.order]
        self.query_sums = x.sum(axis=1)
        self.p = x.shape[1]
        largest = max(_largest_row(x), _largest_row(y))
        self.margin = 1e-9 * self.p * largest

    @functools.cached_property
    def y(self) -> np.ndarray:
        """The targets in the order of their sums (copied when first read: a search that goes
        to the k-d tree reads only the sums)."""
        return np.ascontiguousarray(self.targets[self.order])

    def ranges(self, rows: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """[lo, hi) of the sorted targets within reach of distance ``bound`` (at least one)."""
        reach = np.sqrt(self.p * bound) * (1 + 1e-9) + self.margin
        centre = self.query_sums[rows]
        lo = np.searchsorted(self.sums, centre - reach, side="left")
        hi = np.searchsorted(self.sums, centre + reach, side="right")
        lo = np.minimum(lo, len(self.sums) - 1)
        return lo, np.maximum(hi, lo + 1)


def _sum_order(x: np.ndarray) -> np.ndarray | None:
    """The queries in order of their sum of values (None: keep the given order, for fewer than
    :data:`ORDER_QUERIES` queries). Each query's result depends on that query alone, so the
    order changes no number; it changes where in memory consecutive queries look: the targets
    near in sum (the search on sums), the k-d tree's nodes (its searches). In the given order
    every query starts in another part of the tree or of the sorted targets, a cache miss
    each, and past a few hundred thousand records (data beyond the processor's caches) that
    made these searches grow as n^1.3-1.7 (module docstring)."""
    if len(x) < ORDER_QUERIES or not np.isfinite(x).all():
        return None
    # any order of tied sums will do (no result depends on the order): numpy's quicksort,
    # about 5x faster than its stable sort on a million sums
    return np.argsort(x.sum(axis=1))


def _in_order(search, x: np.ndarray, *args, rows_like: tuple = (), **kwargs) -> np.ndarray:
    """``search(x, *args)`` computed on the queries in :func:`_sum_order` and returned in the
    given order (``rows_like``: keyword arguments holding one value per query, permuted
    alike)."""
    order = _sum_order(x)
    if order is None:
        return search(x, *args, **kwargs)
    for name in rows_like:
        if kwargs.get(name) is not None:
            kwargs[name] = np.asarray(kwargs[name])[order]
    found = search(np.take(x, order, axis=0), *args, **kwargs)  # 3x faster than x[order]
    out = np.empty_like(found)
    out[order] = found
    return out


def _usable(x: np.ndarray, y: np.ndarray) -> bool:
    return bool(len(x) and len(y) and x.shape[1] and np.isfinite(x).all()
                and np.isfinite(y).all())


def _reduce_pairs(x: np.ndarray, by: _BySums, rows: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                  reduce) -> np.ndarray:
    """``reduce(distances, starts)`` of every row's candidate pairs, in chunks of about
    :data:`PAIR_BATCH` pairs (whole rows)."""
    counts = hi - lo
    ends = np.cumsum(counts)
    out = []
    first = 0
    while first < len(rows):
        done = int(ends[first - 1]) if first else 0
        last = int(np.searchsorted(ends, done + PAIR_BATCH, side="right"))
        last = min(max(last, first + 1), len(rows))
        per = counts[first:last]
        local = np.repeat(np.arange(first, last), per)
        starts = np.concatenate([[0], np.cumsum(per)[:-1]])
        tj = concatenated_ranges(per, lo[first:last])
        d = _pair_squared(x, by.y, rows[local], tj)
        out.append(reduce(d, starts))
        first = last
    return np.concatenate(out) if out else np.zeros(0)


def squared_min(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """min_j sum_k (x_ik - y_jk)^2 for every row of x (the search on sums of the module
    docstring, the queries in order of their sums; the same floats as a pass over every
    pair)."""
    return _in_order(_squared_min, np.asarray(x), y)


def _window(x: np.ndarray, by: _BySums, rows: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's bound (the best of the 2 x :data:`WINDOW` targets nearest in sum) and the
    [lo, hi) of the sorted targets within its reach."""
    position = np.searchsorted(by.sums, by.query_sums[rows])
    near = np.clip(position[:, None] + np.arange(-WINDOW, WINDOW)[None, :], 0,
                   len(by.sums) - 1)
    bound = _pair_squared(x, by.targets, np.repeat(rows, near.shape[1]),
                          by.order[near.ravel()]).reshape(near.shape).min(axis=1)
    lo, hi = by.ranges(rows, bound)
    return bound, lo, hi


def _squared_min(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if _usable(x, y):
        by = _BySums(x, y)
        if len(x) > 4 * ORDER_QUERIES and tree_usable(x, y, 1):
            # which search to take (both give the same floats), judged on every
            # len(x) // ORDER_QUERIES-th query: the bounds of all cost more than the tree
            probe = np.arange(0, len(x), len(x) // ORDER_QUERIES)
            _, lo, hi = _window(x, by, probe)
            if int((hi - lo).sum()) > SUMS_PER_ROW * len(probe):
                return _tree_min(x, y)
        rows = np.arange(len(x))
        bound, lo, hi = _window(x, by, rows)
        pairs = int((hi - lo).sum())
        cold = 0 if "scipy.spatial" in sys.modules else TREE_IMPORT_PAIRS
        if pairs > max(SUMS_PER_ROW * len(x), cold) and tree_usable(x, y, 1):
            return _tree_min(x, y)
        if pairs <= len(x) * len(y) // 2:
            found = _reduce_pairs(x, by, rows, lo, hi, np.minimum.reduceat)
            return np.minimum(found, bound)  # bound: a distance reached (both exact floats)
    out = np.empty(len(x))
    for start, stop, block in _squared_blocks(x, y):
        out[start:stop] = block.min(axis=1)
    return out


def squared_ball_counts(x: np.ndarray, y: np.ndarray, radius: float,
                        nearest: np.ndarray | None = None) -> np.ndarray:
    """#{j : sum_k (x_ik - y_jk)^2 < radius} for every row of x.

    ``nearest``: each row's :func:`squared_min` to y, when known; a row whose nearest
    distance is not below the radius has no record inside (the same floats: 0 without a
    search), so only the other rows' distances are computed (MC's radius is the median of
    the nearest distances: about half the rows). The queries are searched in order of their
    sums (:func:`_sum_order`)."""
    return _in_order(_squared_ball_counts, np.asarray(x), y, radius, nearest=nearest,
                     rows_like=("nearest",))


def _squared_ball_counts(x: np.ndarray, y: np.ndarray, radius: float,
                         nearest: np.ndarray | None = None) -> np.ndarray:
    out = np.zeros(len(x), dtype=np.int64)
    rows = np.arange(len(x)) if nearest is None else np.flatnonzero(
        np.asarray(nearest) < radius)
    if _usable(x, y) and len(rows) and np.isfinite(radius) and radius >= 0:
        by = _BySums(x, y)
        tree = len(rows) > 4 * ORDER_QUERIES and tree_usable(x, y, 1)
        if tree:  # judged on every len(rows) // ORDER_QUERIES-th row, as in _squared_min
            probe = rows[::len(rows) // ORDER_QUERIES]
            lo, hi = by.ranges(probe, np.full(len(probe), float(radius)))
            tree = int((hi - lo).sum()) > SUMS_PER_ROW * len(probe)
        if not tree:
            lo, hi = by.ranges(rows, np.full(len(rows), float(radius)))
            pairs = int((hi - lo).sum())
            tree = pairs > SUMS_PER_ROW * len(rows) and tree_usable(x, y, 1)
        if tree:
            # x is already in the sums' order (squared_ball_counts), and so are its rows
            out[rows] = _ball_counts_in_balls(x[rows], y, float(radius), "squared")
            return out
        if pairs <= len(rows) * len(y) // 2:
            def inside(d: np.ndarray, starts: np.ndarray) -> np.ndarray:
                return np.add.reduceat((d < radius).astype(np.int64), starts)

            out[rows] = _reduce_pairs(x, by, rows, lo, hi, inside)
            return out
    part = np.ascontiguousarray(x[rows])
    for start, stop, block in _squared_blocks(part, y):
        out[rows[start:stop]] = (block < radius).sum(axis=1)
    return out


def _pair_l1(x: np.ndarray, y: np.ndarray, qi: np.ndarray, tj: np.ndarray) -> np.ndarray:
    """0.0 + sum_k |x_qi,k - y_tj,k| for each pair, added in column order: the floats of the
    Gower search's pairs without a categorical column
    (:mod:`capkit.distance.radius`)."""
    out = np.zeros(len(qi))
    for k in range(x.shape[1]):
        out += np.abs(x[qi, k] - y[tj, k])
    return out


def _shares(d: np.ndarray, sizes: np.ndarray, first: np.ndarray, k: int) -> np.ndarray:
    """Share of ``first`` targets among the k nearest of each query, from the distances ``d``
    of its candidates (``sizes[i]`` consecutive candidates of query i, at least k, holding
    every target at or below its k-th distance): ``(less_first + (k - less) * tied_first /
    tied) / k`` with integer counts, the operations of :func:`squared_knn_share`'s blocks."""
    rows = np.repeat(np.arange(len(sizes)), sizes)
    order = np.lexsort((d, rows))
    kth = d[order[np.cumsum(sizes) - sizes + k - 1]]
    less = d < kth[rows]
    tied = d == kth[rows]
    count = len(sizes)
    less_first = np.bincount(rows[less & first], minlength=count)
    n_less = np.bincount(rows[less], minlength=count)
    tied_first = np.bincount(rows[tied & first], minlength=count)
    n_tied = np.bincount(rows[tied], minlength=count)
    value = less_first.astype(float)
    value += (k - n_less) * tied_first / n_tied
    return value / k


def tree_usable(x: np.ndarray, y: np.ndarray, k: int) -> bool:
    """Whether the k-d tree searches apply: finite values far from overflow and from
    underflow (every non-zero value at least 1e-100 in size, so that a square of a difference
    is a normal float and the tree's rounding stays relative), a few columns, and enough
    targets for a tree to pay."""
    if not (len(x) and len(y) >= max(TREE_RECORDS, k) and 0 < x.shape[1] <= TREE_COLUMNS
            and np.isfinite(x).all() and np.isfinite(y).all()):
        return False
    for values in (x, y):  # a block of rows at a time: no copy of the data
        values = values.reshape(len(values), -1)
        step = max(1, BLOCK_CELLS // values.shape[1])
        for start in range(0, len(values), step):
            size = np.abs(values[start:start + step])
            if size.max() >= 1e100 or np.any((size > 0) & (size < 1e-100)):
                return False
    return True


def kd_tree(y: np.ndarray):
    """scipy's ``cKDTree`` on the targets, split at the sliding midpoint (``balanced_tree=
    False``; Maneewongvatana and Mount, "It's okay to be skinny, if your friends are fat",
    1999) instead of the median. A search's answers do not depend on how the tree splits (the
    tree's distances of a pair are the same sums, and every candidate's distance is then
    computed exactly), only its work does: on a noisy bootstrap of Adult's raw columns the
    nearest-record searches visit fewer nodes, 1.5-1.9x less CPU at 100k-1M records."""
    from scipy.spatial import cKDTree  # numba-free; loaded by the first large search

    return cKDTree(y, balanced_tree=False)


def tree_balls(tree, q: np.ndarray, radius: np.ndarray, p: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """The targets in each query's ball (scipy's ``query_ball_point``, distance <= radius):
    the number per query and the targets, query after query."""
    balls = tree.query_ball_point(q, radius, p=p, return_sorted=False)
    sizes = np.fromiter(map(len, balls), dtype=np.int64, count=len(q))
    return sizes, np.fromiter(itertools.chain.from_iterable(balls), dtype=np.int64,
                              count=int(sizes.sum()))


def _tree_min(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`squared_min` by a k-d tree (Euclidean): the tree's two nearest distances U <= V;
    every target at the exact minimum is within U (1 + 1e-9) in the tree's sums
    (:func:`knn_share_in_balls`' argument with k = 1). When V is beyond that, the nearest
    target is the only one there, and its exact distance is the minimum; otherwise the exact
    distances of every target in the tree's ball of radius U (1 + 1e-9) give it. The same
    floats as the ball for every query, without listing a ball (a Python list per query) for
    most of them."""
    tree = kd_tree(y)
    out = np.empty(len(x))
    for start in range(0, len(x), BALL_QUERIES):
        stop = min(start + BALL_QUERIES, len(x))
        q = x[start:stop]
        dist, index = tree.query(q, k=2, p=2)
        reach = dist[:, 0] * (1 + 1e-9)
        alone = dist[:, 1] > reach
        rows = np.arange(start, stop)
        out[rows[alone]] = _pair_squared(x, y, rows[alone], index[alone, 0])
        wide = np.flatnonzero(~alone)
        if len(wide):
            sizes, tj = tree_balls(tree, q[wide], reach[wide], 2)
            if int(sizes.min()) < 1:  # the bound rules this out; kept as a guard
                raise RuntimeError("a k-d tree ball holds no target")
            d = _pair_squared(x, y, np.repeat(rows[wide], sizes), tj)
            out[rows[wide]] = np.minimum.reduceat(d, np.cumsum(sizes) - sizes)
    return out


def ball_counts_in_balls(x: np.ndarray, y: np.ndarray, radius: float, norm: str,
                         scale: float = 1.0) -> np.ndarray:
    """#{j : d(x_i, y_j) / scale < radius} for every row of x, d the squared Euclidean
    distance (``norm="squared"``, scale 1) or the sum of absolute differences (``"l1"``),
    each query compared only with the targets in a k-d tree's ball of radius sqrt(radius)
    (squared) or radius x scale (L1), raised by 1e-9: a target inside in exact distances is
    inside the raised ball in the tree's sums (their roundings differ by far less). The
    candidates' distances are computed as a pass over every pair computes them, so the counts
    are the same integers. The ball is first asked of the tree as its :data:`BALL_FEW` nearest
    within a little more than the radius (arrays, no list per query): fewer found are the
    whole ball; a query with that many has its ball listed. Work: a tree search and the ball
    per query, the queries in order of their sums (:func:`_sum_order`)."""
    return _in_order(_ball_counts_in_balls, np.asarray(x), y, radius, norm, scale)


def _ball_counts_in_balls(x: np.ndarray, y: np.ndarray, radius: float, norm: str,
                          scale: float = 1.0) -> np.ndarray:
    out = np.zeros(len(x), dtype=np.int64)
    if not radius > 0:  # nothing is strictly within 0 (or a NaN radius)
        return out
    tree = kd_tree(y)
    p = 2 if norm == "squared" else 1
    pair = _pair_squared if norm == "squared" else _pair_l1
    reach = (np.sqrt(radius) if norm == "squared" else radius * scale) * (1 + 1e-9)
    few = min(BALL_FEW, len(y))
    for start in range(0, len(x), BALL_QUERIES):
        stop = min(start + BALL_QUERIES, len(x))
        q = x[start:stop]
        # the BALL_FEW nearest within a little more than the reach: where fewer are found,
        # they are the whole ball (and a few beyond it, which the exact test leaves out)
        dist, index = tree.query(q, k=list(range(1, few + 1)), p=p,
                                 distance_upper_bound=reach * (1 + 1e-9))
        found = np.isfinite(dist)
        whole = ~found[:, -1] if few == BALL_FEW else np.ones(len(q), dtype=bool)
        rows, cols = np.nonzero(found & whole[:, None])
        listed = np.flatnonzero(~whole)
        if len(listed):  # BALL_FEW or more: the tree lists the ball
            sizes, tj = tree_balls(tree, q[listed], np.full(len(listed), reach), p)
            rows = np.concatenate([rows, np.repeat(listed, sizes)])
            targets = np.concatenate([index[found & whole[:, None]], tj])
        else:
            targets = index[rows, cols]
        d = pair(x, y, rows + start, targets)
        inside = (d / scale < radius) if norm == "l1" else (d < radius)
        out[start:stop] = np.bincount(rows[inside], minlength=stop - start)
    return out


def knn_share_in_balls(x: np.ndarray, y: np.ndarray, is_first: np.ndarray, k: int,
                       norm: str) -> np.ndarray:
    """Share of ``is_first`` rows of y among the k nearest rows of y (ties split), for the
    squared Euclidean distance (``norm="squared"``) or the sum of absolute differences
    (``"l1"``), each query compared only with the targets in a k-d tree's ball.

    The tree (scipy's ``cKDTree``, Euclidean or L1) gives each query the k-th distance U of its
    own sums: k targets are within U there, so within U (1 + 1e-12) in exact distances, and
    every target at or below the exact k-th distance is within U (1 + 1e-9) in the tree's sums
    (the two roundings differ by far less than 1e-9 relative; a distance 0 is 0 in both). The
    ball of that radius is listed by the tree and the candidates' distances are computed with
    the operations of a pass over every pair (:func:`_pair_squared`, :func:`_pair_l1`): the
    same k-th distance and counts, so the same shares. Work: a tree search (about log m) and
    the ball per query, instead of m per query; the queries in order of their sums
    (:func:`_sum_order`).
    """
    return _in_order(_knn_share_in_balls, np.asarray(x), y, is_first, k, norm)


def _knn_share_in_balls(x: np.ndarray, y: np.ndarray, is_first: np.ndarray, k: int,
                        norm: str) -> np.ndarray:
    first = np.asarray(is_first, dtype=bool)
    tree = kd_tree(y)
    p = 2 if norm == "squared" else 1
    pair = _pair_squared if norm == "squared" else _pair_l1
    out = np.empty(len(x))
    for start in range(0, len(x), BALL_QUERIES):
        stop = min(start + BALL_QUERIES, len(x))
        q = x[start:stop]
        bound = tree.query(q, k=[k], p=p)[0][:, 0]
        sizes, tj = tree_balls(tree, q, bound * (1 + 1e-9), p)
        if int(sizes.min()) < k:  # the bound rules this out; kept as a guard
            raise RuntimeError("a k-d tree ball holds fewer than k targets")
        qi = np.repeat(np.arange(start, stop), sizes)
        out[start:stop] = _shares(pair(x, y, qi, tj), sizes, first[tj], k)
    return out


def squared_knn_share(x: np.ndarray, y: np.ndarray, is_first: np.ndarray, k: int) -> np.ndarray:
    """Share of ``is_first`` rows of y among the k nearest rows of y (ties split): in a k-d
    tree's balls (:func:`knn_share_in_balls`) when :func:`tree_usable`, else every pair."""
    if tree_usable(x, y, k):
        return knn_share_in_balls(x, y, is_first, k, "squared")
    out = np.empty(len(x))
    first = np.asarray(is_first, dtype=bool)
    for start, stop, block in _squared_blocks(x, y):
        kth = np.partition(block, k - 1, axis=1)[:, k - 1][:, None]
        less = block < kth
        tied = block == kth
        value = (less & first).sum(axis=1).astype(float)
        n_tied = tied.sum(axis=1)
        value += (k - less.sum(axis=1)) * (tied & first).sum(axis=1) / n_tied
        out[start:stop] = value / k
    return out


__all__ = ["ball_counts_in_balls", "kd_tree", "knn_share_in_balls", "squared_ball_counts",
           "squared_knn_share", "squared_min", "tree_balls", "tree_usable"]
