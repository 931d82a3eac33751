"""Compiled kernel (numba) of :func:`capkit.distance.grid_knn.exact_neighbours`: from a block of dot
products between query rows and distinct training points, the (query, point) pairs at or below
each query's k-th smallest distance over points.

The squared distance of a pair is ``(-2 a.b + |b|^2) + |a|^2`` on the grid of
:mod:`capkit.distance.grid_knn`, where every term and partial sum is an exact integer below 2^53, so
it is the same float in any order; the k-th smallest over points counts equal distances with
their multiplicity (numpy's ``partition``). The pairs come out row by row, points ascending
within a row: the order of numpy's ``nonzero`` on the block, so what follows is unchanged. One
pass per row computes the distances (in place) and keeps the k smallest, a second counts the
pairs, a third (after the output is allocated) writes them: no temporary block.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def near_pairs(block: np.ndarray, norm_query: np.ndarray, norm_point: np.ndarray, k: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """``block`` (queries x points) holds dot products and is overwritten by the squared
    distances. Returns (row, point, distance) of every pair at or below its row's k-th smallest
    distance over points (the largest when k >= points), row by row, points ascending."""
    n, m = block.shape
    bound = np.empty(n)
    count = np.zeros(n, np.int64)
    kept = min(k, m)
    small = np.empty(kept)
    for i in range(n):
        row = block[i]
        nq = norm_query[i]
        filled = 0
        for j in range(m):
            d = row[j] * -2.0 + nq + norm_point[j]
            row[j] = d
            if filled < kept:
                at = filled
                filled += 1
            elif d < small[kept - 1]:
                at = kept - 1
            else:
                continue
            while at > 0 and small[at - 1] > d:
                small[at] = small[at - 1]
                at -= 1
            small[at] = d
        b = small[kept - 1]
        bound[i] = b
        c = 0
        for j in range(m):
            if row[j] <= b:
                c += 1
        count[i] = c
    total = 0
    for i in range(n):
        total += count[i]
    rows = np.empty(total, np.int64)
    points = np.empty(total, np.int64)
    dist = np.empty(total)
    at = 0
    for i in range(n):
        b = bound[i]
        row = block[i]
        for j in range(m):
            if row[j] <= b:
                rows[at] = i
                points[at] = j
                dist[at] = row[j]
                at += 1
    return rows, points, dist
