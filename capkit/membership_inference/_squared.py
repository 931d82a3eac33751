"""DOMIAS 0.0.5's squared Euclidean distance on the raw columns (``sum_k (x_k - y_k)^2``,
summed in column order, as its ``d``): the nearest distance, the counts within a radius (MC) and
the make-up of the k nearest records (DPI), every pair in numpy blocks.

Apart from :mod:`capkit.membership_inference._neighbours` (whose Gower searches are compiled)
so that the DOMIAS-compatible attacks do not import numba.
"""

from __future__ import annotations

import numpy as np

BLOCK_CELLS = 1 << 21


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


def squared_min(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """min_j sum_k (x_ik - y_jk)^2 for every row of x."""
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
    the nearest distances: about half the rows)."""
    out = np.zeros(len(x), dtype=np.int64)
    rows = np.arange(len(x)) if nearest is None else np.flatnonzero(
        np.asarray(nearest) < radius)
    part = np.ascontiguousarray(x[rows])
    for start, stop, block in _squared_blocks(part, y):
        out[rows[start:stop]] = (block < radius).sum(axis=1)
    return out


def squared_knn_share(x: np.ndarray, y: np.ndarray, is_first: np.ndarray, k: int) -> np.ndarray:
    """Share of ``is_first`` rows of y among the k nearest rows of y (ties split)."""
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


__all__ = ["squared_ball_counts", "squared_knn_share", "squared_min"]
