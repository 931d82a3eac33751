"""Compiled kernel (numba): a block of anonymeter's mixed-type distances in one pass.

:func:`capkit.attacks.neighbors._distances` sums, cell by cell, ``|x_0 - y_0|``, then
``+ |x_j - y_j|`` for the other numeric columns in order (a missing number on both sides is 1),
then ``+ 1.0`` per differing categorical code, the numpy way: one pass over the block per term.
This kernel does the same floating-point operations in the same order for each cell (no
fast-math, so nothing is reassociated or fused), so every distance is the same float to the
bit, with one pass over the block instead of three per column. Each cell is computed on its
own: the answer does not depend on the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["block"]


@njit(cache=True, parallel=True)
def block(query_num: np.ndarray, query_cat: np.ndarray, cand_num: np.ndarray,
          cand_cat: np.ndarray, rows: np.ndarray, cols: np.ndarray, with_cat: bool,
          nan_free: bool) -> np.ndarray:  # pragma: no cover - compiled
    """Distances of query ``rows`` (rows) to candidate ``cols`` (columns)."""
    n_num, n_cat = query_num.shape[1], query_cat.shape[1]
    out = np.empty((len(rows), len(cols)))
    for i in prange(len(rows)):
        r = rows[i]
        for c in range(len(cols)):
            o = cols[c]
            d = 0.0
            for j in range(n_num):
                a, b = query_num[r, j], cand_num[o, j]
                t = abs(a - b)
                if not nan_free and a != a and b != b:
                    t = 1.0
                d = t if j == 0 else d + t
            if with_cat:
                for j in range(n_cat):
                    if query_cat[r, j] != cand_cat[o, j]:
                        d += 1.0
                    else:
                        d += 0.0
            out[i, c] = d
    return out
