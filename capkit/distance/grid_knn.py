"""Exact k nearest records under the Euclidean distance, features rounded to a grid, ties by
lowest position: the search behind capkit's k-NN attackers and PrivEval's Euclidean measures.

How it differs from its siblings in :mod:`capkit.distance`: :mod:`~capkit.distance.nearest`
finds the one nearest record under a categorical level plus numeric L1 (every DCR, Gower's);
:mod:`~capkit.distance.mixed_knn` the k nearest under anonymeter's mixed-type distance;
:mod:`~capkit.distance.neighbours` the k nearest *distances* SynthEval's measures take. Here the
records are plain feature vectors (numbers, one-hot codes) and the answer is their positions.

scikit-learn computes Euclidean distances as ``|x|^2 - 2 x.y + |y|^2`` through BLAS and OpenMP,
in an order that depends on the number of threads and on the CPU's kernels, and picks among
neighbours at equal distance in the order its chunks happen to meet them: the same data can get
other neighbours, other predictions and other verdicts on another machine or with
``OMP_NUM_THREADS=1``. Here:

* features are rounded to integers on a grid of 2^-q (q chosen per search so that every squared
  norm and dot product stays below 2^53, at most 2^-24 of a unit: min-max scaled keys keep 24
  bits, one-hot codes are exact); the squared distances are then integers computed without any
  rounding, whatever the order of the sums (BLAS, threads, FMA);
* the k nearest are the records below the k-th distance and, among those at it, the **lowest
  training positions** (the rule of every capkit nearest-record search).

Off ties and off the rounding (which moves a distance by at most 2^-24 of a key's range) the
neighbours are scikit-learn's (a test compares the classifiers built on them,
:mod:`capkit.attacks.knn`).
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from scipy import sparse

from capkit.counts.rows import unique_rows
from capkit.counts.runs import concatenated_ranges
from capkit.distance.mixed_knn import CELLS, Neighbors
from capkit.distance.neighbours import one_thread
from capkit.errors import CapkitError

__all__ = ["dense_features", "exact_neighbours"]

#: Finest grid of the features: 2^-24 of a unit.
MAX_BITS = 24

#: Bytes of features (training and query rows) whose searches are remembered, the oldest
#: forgotten first (the last search is always kept): the same features give the same answer.
REMEMBERED = 1 << 26
_ANSWERS: list[tuple[np.ndarray, np.ndarray, int, Neighbors]] = []


def dense_features(x: object) -> np.ndarray:
    """``x`` (array-like or scipy sparse) as a 2-d float64 array of finite numbers."""
    if sparse.issparse(x):
        x = x.toarray()
    out = np.asarray(x, dtype=np.float64)
    if out.ndim != 2:
        raise CapkitError(f"features must be a 2-d array, got shape {out.shape}")
    if not np.isfinite(out).all():
        raise CapkitError("features must be finite numbers (no NaN or infinity)")
    return out


def _bits(train: np.ndarray, query: np.ndarray) -> int:
    """Grid bits q such that squared norms of the rounded rows stay below 2^51 (so that
    |x|^2 + |y|^2 - 2 x.y and every partial sum are exact integers in float64)."""
    biggest = max(float(np.abs(train).max(initial=0.0)), float(np.abs(query).max(initial=0.0)),
                  1.0)
    width = max(train.shape[1], 1)
    # (biggest * 2^q + 1)^2 * width * 4 < 2^53  <=>  q < (51 - log2 width) / 2 - log2 biggest
    q = int(np.floor((51 - np.log2(width)) / 2 - np.log2(biggest))) - 1
    return min(MAX_BITS, q)


def _distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows and each row's code into them (:func:`capkit.counts.rows.unique_rows`
    on the bits; the order of the distinct rows changes no answer: the selection sorts by
    distance and position)."""
    rows = np.ascontiguousarray(rows + 0.0)  # -0.0 and 0.0 are one value
    first, code = unique_rows(rows.view(np.int64))
    return rows[first], code


def _expand(pair_row: np.ndarray, pair_point: np.ndarray, length: np.ndarray,
            start: np.ndarray, by_point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first ``length`` training positions of each (query, point) pair, pair by pair:
    (query of each position, position)."""
    return np.repeat(pair_row, length), by_point[concatenated_ranges(length, start[pair_point])]


def _select_pairs(r: np.ndarray, u: np.ndarray, d: np.ndarray, n: int, k: int,
                  size: np.ndarray, start: np.ndarray, by_point: np.ndarray, out: Neighbors,
                  rows: np.ndarray) -> None:
    """Fill ``out`` for ``rows`` from the pairs (query ``r`` of ``rows``, point ``u``, distance
    ``d``) at or below each query's k-th smallest distance over points, in any order
    (:func:`capkit.distance._grid_kernel.near_pairs`; ``size`` training rows at each point,
    their positions ``by_point[start:start + size]`` ascending).

    The k-th distance is where the multiplicities, summed in distance order, first reach k; it
    is at most the k-th smallest distance over points (each point holds at least one row), so
    only the pairs at or below that bound are looked at. Rows below the k-th distance are all
    taken; among the rows at it, the lowest positions (of any point at that distance)."""
    order = np.lexsort((d, r))
    r_o, d_o, m_o = r[order], d[order], size[u[order]]
    first = np.searchsorted(r_o, np.arange(n))
    running = np.cumsum(m_o)
    within = running - (running - m_o)[first][r_o]
    kth = d_o[first + np.bincount(r_o[within < k], minlength=n)]
    low = d_o[first]
    below, at = d < kth[r], d == kth[r]
    n_below = np.bincount(r[below], weights=size[u[below]], minlength=n).astype(np.int64)
    # rows at the k-th distance: each point's first (k - n_below) positions, then the lowest
    need = k - n_below
    at_row, at_pos = _expand(r[at], u[at], np.minimum(size[u[at]], need[r[at]]), start,
                             by_point)
    keep = np.lexsort((at_pos, at_row))
    at_row, at_pos = at_row[keep], at_pos[keep]
    rank = np.arange(len(at_row)) - np.searchsorted(at_row, np.arange(n))[at_row]
    chosen = rank < need[at_row]
    b_row, b_pos = _expand(r[below], u[below], size[u[below]], start, by_point)
    b_dist = np.repeat(d[below], size[u[below]])
    all_row = np.concatenate([b_row, at_row[chosen]])
    all_pos = np.concatenate([b_pos, at_pos[chosen]])
    all_dist = np.concatenate([b_dist, kth[at_row[chosen]]])
    final = np.lexsort((all_pos, all_dist, all_row))
    out.index[rows] = all_pos[final].reshape(n, k)
    out.distance[rows] = all_dist[final].reshape(n, k)
    out.kth[rows] = kth
    out.n_below[rows] = n_below
    out.n_at_kth[rows] = np.bincount(r[at], weights=size[u[at]], minlength=n).astype(np.int64)
    on_low = d == low[r]
    out.n_at_min[rows] = np.bincount(r[on_low], weights=size[u[on_low]],
                                     minlength=n).astype(np.int64)


def exact_neighbours(train: object, query: object, k: int) -> Neighbors:
    """The k nearest training rows of every query row under squared Euclidean distance on the
    features rounded to a grid (module docstring): exact, ties by lowest training position.

    Identical rows are searched once: the distances are computed between the distinct query
    rows and the distinct training rows (a survey's keys take few distinct values), and the
    multiplicities and positions of the training rows settle the k nearest. The last few
    answers are kept (:data:`REMEMBERED` bytes of features at most) with a copy of their
    features, and a search whose features equal a kept one's (compared value by value) takes
    its answer: an attack on many targets with the same keys searches once.

    Returns :class:`capkit.distance.mixed_knn.Neighbors` (distances in grid units squared).
    """
    train, query = dense_features(train), dense_features(query)
    for at, (kept_train, kept_query, kept_k, found) in enumerate(_ANSWERS):
        if (kept_k == k and kept_train.shape == train.shape
                and kept_query.shape == query.shape and np.array_equal(kept_train, train)
                and np.array_equal(kept_query, query)):
            _ANSWERS.append(_ANSWERS.pop(at))  # the most recent last
            return found
    found = _search(train, query, k)
    _ANSWERS.append((train.copy(), query.copy(), int(k), found))
    while sum(t.nbytes + q.nbytes for t, q, _, _ in _ANSWERS) > REMEMBERED and \
            len(_ANSWERS) > 1:
        _ANSWERS.pop(0)
    return found


#: Up to this many features, and from this many distinct training points on, a k-d tree finds
#: each query's k nearest points (a projection on two axes: no block of every distance).
TREE_FEATURES = 3
TREE_POINTS = 1024

#: From this many (query, point) distances on, the blocks' products run on one BLAS thread.
ONE_THREAD_CELLS = 1 << 20


def _select_tree(points: np.ndarray, queries: np.ndarray, k: int, size: np.ndarray,
                 start: np.ndarray, by_point: np.ndarray, out: Neighbors) -> np.ndarray:
    """Fill ``out`` for the queries whose k nearest distinct points a k-d tree settles, and
    return the others (to be searched by distance blocks).

    The tree (scipy's ``cKDTree``) gives each query k points and the distance d_k of the
    farthest; it is settled when no other point lies within d_k (1 + 1e-9), counted by the
    tree: its k points are then every point at or below its k-th distance over points, the
    pairs :func:`_select_pairs` needs, with their distances recomputed exactly on the grid
    (squared differences of integers, sums below 2^53: the block's integers). A query with
    another point that near (a tie, or distances the tree's rounding cannot tell apart) is left
    to the blocks, so the answer is the blocks' answer, bit for bit."""
    from scipy.spatial import cKDTree  # only searches of few features load it

    tree = cKDTree(points)
    dist, near = tree.query(queries, k=k)
    near = near.reshape(len(queries), k)
    reach = dist.reshape(len(queries), k)[:, -1] * (1.0 + 1e-9)
    settled = tree.query_ball_point(queries, reach, return_length=True) == k
    rows = np.flatnonzero(settled)
    r = np.repeat(np.arange(len(rows)), k)
    u = near[rows].reshape(-1)
    diff = queries[rows][r] - points[u]
    d = (diff * diff).sum(axis=1)
    _select_pairs(r, u, d, len(rows), k, size, start, by_point, out, rows)
    return np.flatnonzero(~settled)


def _search(train: np.ndarray, query: np.ndarray, k: int) -> Neighbors:
    if train.shape[1] != query.shape[1]:
        raise CapkitError(f"query has {query.shape[1]} features, the training data "
                          f"{train.shape[1]}")
    n_train = len(train)
    if not 1 <= k <= n_train:
        raise CapkitError(f"n_neighbors must be from 1 to the number of training records "
                          f"({n_train}), got {k}")
    scale = 2.0 ** _bits(train, query)
    points, code = _distinct(np.round(train * scale))
    queries, query_code = _distinct(np.round(query * scale))
    size = np.bincount(code, minlength=len(points))
    by_point = np.argsort(code, kind="stable")  # positions grouped by point, ascending
    start = np.cumsum(size) - size
    norm_a, norm_b = (points * points).sum(axis=1), (queries * queries).sum(axis=1)
    n_q = len(queries)
    out = Neighbors(np.empty((n_q, k), np.int64), np.empty((n_q, k)), np.empty(n_q),
                    np.empty(n_q, np.int64), np.empty(n_q, np.int64), np.empty(n_q, np.int64))
    todo = np.arange(n_q)
    if points.shape[1] <= TREE_FEATURES and TREE_POINTS <= len(points) and k < len(points):
        todo = _select_tree(points, queries, k, size, start, by_point, out)
    from capkit.distance._grid_kernel import near_pairs  # compiled: loaded on the first search

    step = max(1, CELLS // len(points))
    # the block products on one BLAS thread: the same integers on any number of threads, and on
    # a busy machine BLAS's threads spend several times the CPU (waiting for each other)
    with one_thread() if len(todo) * len(points) >= ONE_THREAD_CELLS else nullcontext():
        for s in range(0, len(todo), step):
            rows = todo[s:s + step]
            # (-2 a.b + |b|^2) + |a|^2, and the pairs at or below each row's k-th distance over
            # points (_select_pairs' input), by the kernel: every term and partial sum is an
            # exact integer below 2^53 on the grid (_bits), so the order changes no bit
            block = queries[rows] @ points.T
            r, u, d = near_pairs(block, norm_b[rows], norm_a, k)
            _select_pairs(r, u, d, len(rows), k, size, start, by_point, out, rows)
    fields = [np.asarray(field)[query_code] for field in
              (out.index, out.distance, out.kth, out.n_below, out.n_at_kth, out.n_at_min)]
    for field in fields:  # a remembered answer is shared: nobody may change it
        field.flags.writeable = False
    return Neighbors(*fields)
