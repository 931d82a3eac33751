"""The compiled loops of :mod:`capkit.membership_inference.kde` (numba: imported only when a
density is large enough to pay for loading them, or when they are loaded already).

Each makes scipy's arithmetic for one point at a time (scipy 1.17's
``gaussian_kernel_estimate``): the squared distance to every data row summed over the columns
in order (0.0, then + residual * residual column by column), then the terms
``w_i * (exp(-q_i / 2) * norm)`` added in data order, libm's ``exp`` as in scipy's C loop.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _squared_all(columns, points, j, out):
    """out[i] = |data_i - point_j|^2 for every data row i, summed over the columns in order
    (scipy's arithmetic: 0.0, then + residual * residual column by column), computed column by
    column over the data's columns (``columns``: the data transposed), a contiguous loop the
    compiler may run on vector registers without changing any row's sum."""
    d, n = columns.shape
    out[:] = 0.0
    for k in range(d):
        column = columns[k]
        x = points[j, k]
        for i in range(n):
            residual = column[i] - x
            out[i] += residual * residual


@numba.njit(cache=True, nogil=True)
def kernel_sums(columns, weights, points, norm, out, start, stop):
    """out[j] = sum_i weights[i] * (exp(-|data_i - point_j|^2 / 2) * norm), i in data order,
    for j in [start, stop): scipy's loop with the two loops swapped, the same additions per
    point in the same order."""
    args = np.empty(columns.shape[1])
    for j in range(start, stop):
        _squared_all(columns, points, j, args)
        total = 0.0
        for i in range(len(args)):
            total += weights[i] * (math.exp(-args[i] / 2.0) * norm)
        out[j] = total


@numba.njit(cache=True, nogil=True)
def log_kernel_sums(columns, counts, points, out, start, stop):
    """out[j] = log sum_i c_i exp(-(q_ij - q_min,j) / 2) - q_min,j / 2, q_ij = |data_i -
    point_j|^2, c_i the copies of data row i (the largest term factored out: finite however
    far the point is)."""
    args = np.empty(columns.shape[1])
    for j in range(start, stop):
        _squared_all(columns, points, j, args)
        low = np.inf
        for i in range(len(args)):
            if args[i] < low:
                low = args[i]
        total = 0.0
        for i in range(len(args)):
            total += counts[i] * math.exp(-(args[i] - low) / 2.0)
        out[j] = math.log(total) - low / 2.0


__all__ = ["kernel_sums", "log_kernel_sums"]
