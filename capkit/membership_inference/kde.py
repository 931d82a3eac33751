"""Gaussian kernel density estimate with Scott's rule, as DOMIAS uses it.

van Breugel, Sun, Qian & van der Schaar, "Membership Inference Attacks against Synthetic Data
through Overfitting Detection" (AISTATS 2023), estimate the densities of the synthetic and of
the reference data with ``scipy.stats.gaussian_kde`` (its defaults). That estimate, for data
x_1..x_n in d dimensions with weights w_i = 1/n, is

    p(x) = sum_i w_i (2 pi)^(-d/2) / prod_k L_kk * exp(-1/2 ||L^-1 (x - x_i)||^2),

with L = h * cholesky(C), C the sample covariance of the data (n - 1 denominator, computed
through numpy's weighted formula), h = n_eff^(-1/(d + 4)) (Scott, "Multivariate Density
Estimation", 1992, eq. 6.47) and n_eff = 1 / sum_i w_i^2 (a dot product, as scipy computes it:
not exactly n).

:func:`density` evaluates it with a compiled loop that makes scipy's arithmetic, step by step
(scipy 1.17's ``gaussian_kernel_estimate``: data and points whitened by triangular solves with
scipy's Cholesky factor, each point's terms ``w_i * (exp(-q_i / 2) * norm)`` added in data
order; identical data rows as one term weighted by their copies when at most half the rows
are distinct), so it gives DOMIAS's numbers to the last bit unless the data repeat that much,
and then to within the rounding of the merged additions; the points are shared among threads, each
point summed whole by one thread, so the numbers do not depend on the number of threads or on
the machine's BLAS. :func:`blocked_density` computes the same numbers independently: the data
and the points are whitened once by triangular solves, the squared distances of a block of pairs
come from one matrix product (||a||^2 + ||b||^2 - 2 a.b, clipped at 0), and the exponentials are
summed block by block. The two agree to ~1e-13 relative (tests). :func:`log_density` gives log
p(x) without underflow (far from every data point the density is exactly 0): there the sum is
redone, by the same compiled loop, after factoring out each point's largest term.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np
from scipy import linalg
from scipy.stats import gaussian_kde

from capkit.counts.rows import unique_rows
from capkit.errors import CapkitError

#: Pairs (points x data) whose kernel values are held at once.
BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class Kernel:
    """The fitted estimate: whitened data and the constants of the formula.

    Attributes
    ----------
    n, d
        Number of data points and dimensions.
    n_eff, factor
        1 / sum w_i^2 and Scott's factor n_eff^(-1/(d+4)).
    data_covariance
        C (d x d), the data's covariance.
    cholesky
        L = factor * cholesky(C), lower triangular.
    estimate
        scipy's ``gaussian_kde`` on the same data, whose compiled loop :func:`density` calls.
    """

    n: int
    d: int
    n_eff: float
    factor: float
    data_covariance: np.ndarray
    cholesky: np.ndarray
    whitened: np.ndarray
    log_norm: float
    estimate: object = None


def fit(data: np.ndarray, *, name: str = "data") -> Kernel:
    """Fit the estimate on ``data`` (n x d float array), scipy's defaults.

    Raises
    ------
    CapkitError
        Fewer than two records, non-finite values, or a singular covariance (a constant column,
        or columns that are linear combinations of others).
    """
    data = np.ascontiguousarray(data, dtype=np.float64)
    n, d = data.shape
    if n < 2:
        raise CapkitError(f"the density of {name} needs at least 2 records, got {n}")
    if not np.isfinite(data).all():
        raise CapkitError(f"{name} has missing or infinite values in the density's columns")
    weights = np.ones(n) / n
    # scipy's own expression (np.vecdot on numpy >= 2; a dot product before)
    dot = getattr(np, "vecdot", np.dot)
    n_eff = 1.0 / dot(weights, weights)
    factor = n_eff ** (-1.0 / (d + 4))
    covariance = np.atleast_2d(np.cov(data.T, rowvar=1, bias=False, aweights=weights))
    try:
        cho = linalg.cholesky(covariance, lower=True)
    except linalg.LinAlgError:
        raise CapkitError(
            f"the covariance of {name} is singular (a constant column, or columns that are "
            "linear combinations of others): the Gaussian density cannot be estimated") from None
    cho = (cho * factor).astype(np.float64)
    whitened = linalg.solve_triangular(cho, data.T, lower=True).T
    norm = (2 * np.pi) ** (-d / 2.0)
    log_norm = float(np.log(norm) - np.sum(np.log(np.diag(cho))))
    return Kernel(n, d, float(n_eff), float(factor), covariance, cho,
                  np.ascontiguousarray(whitened), log_norm, gaussian_kde(data.T))


def _whiten(kernel: Kernel, points: np.ndarray) -> np.ndarray:
    points = np.ascontiguousarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != kernel.d:
        raise CapkitError(f"points must have {kernel.d} columns, got shape {points.shape}")
    return np.ascontiguousarray(linalg.solve_triangular(kernel.cholesky, points.T, lower=True).T)


def _blocks(kernel: Kernel, z: np.ndarray):
    """(start, stop, half squared distances) for blocks of points against all data."""
    data = kernel.whitened
    data_sq = np.einsum("ij,ij->i", data, data)
    z_sq = np.einsum("ij,ij->i", z, z)
    step = max(1, BLOCK_CELLS // max(kernel.n, 1))
    for start in range(0, len(z), step):
        stop = min(start + step, len(z))
        q = z[start:stop] @ data.T
        q *= -2.0
        q += z_sq[start:stop, None]
        q += data_sq[None, :]
        np.maximum(q, 0.0, out=q)
        q *= 0.5
        yield start, stop, q


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
def _kernel_sums(columns, weights, points, norm, out, start, stop):
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
def _log_kernel_sums(columns, counts, points, out, start, stop):
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


def default_threads() -> int:
    """Threads of :func:`density`: the cores this process may use, at most 8."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def _run(kernel_fn, args, out, threads):
    """Run ``kernel_fn(*args, out, start, stop)`` on contiguous slices of the points, one per
    thread (each point computed whole by one thread: the same numbers for any ``threads``)."""
    m = len(out)
    threads = default_threads() if threads is None else max(1, int(threads))
    bounds = np.linspace(0, m, min(threads, max(m, 1)) + 1).astype(np.int64)
    if len(bounds) <= 2:
        kernel_fn(*args, out, 0, m)
        return out
    with ThreadPoolExecutor(len(bounds) - 1) as pool:
        jobs = [pool.submit(kernel_fn, *args, out, int(a), int(b))
                for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        for job in jobs:
            job.result()
    return out


def _scipy_whitened(kernel: Kernel, points: np.ndarray):
    """Data, points, weights and norm as scipy's ``gaussian_kernel_estimate`` computes them,
    then, when at most half the data rows are distinct, each distinct data row once, in the
    order of its first copy, with its number of copies c and the weight c * w (w = 1/n:
    scipy's uniform weight); otherwise every row, c = 1."""
    estimate = kernel.estimate
    cho = estimate.cho_cov
    data = np.ascontiguousarray(linalg.solve_triangular(cho, estimate.dataset, lower=True).T)
    z = np.ascontiguousarray(linalg.solve_triangular(cho, points.T, lower=True).T)
    norm = math.pow(2 * math.pi, -kernel.d / 2.0)
    for k in range(kernel.d):
        norm /= cho[k, k]
    weights = np.ascontiguousarray(estimate.weights, dtype=np.float64)
    first, inverse = unique_rows(np.ascontiguousarray(estimate.dataset.T).view(np.int64))
    if 2 * len(first) > len(inverse):  # few copies: scipy's sum, term by term
        return data, z, weights, np.ones(len(weights)), norm, float(weights[0])
    keep = np.sort(first)
    counts = np.bincount(inverse)[inverse[keep]].astype(np.float64)
    return (np.ascontiguousarray(data[keep]), z, weights[keep] * counts, counts, norm,
            float(weights[0]))


def _distinct(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct row of ``points`` once (equal bits: equal density, summed by the same
    operations), and the map from every row to its distinct row."""
    first, inverse = unique_rows(np.ascontiguousarray(points).view(np.int64))
    return points[first], inverse


def density(kernel: Kernel, points: np.ndarray, *, threads: int | None = None) -> np.ndarray:
    """p(x) at each row of ``points`` (0.0 where every kernel term underflows, as in scipy).

    scipy's ``gaussian_kde.evaluate`` (what domias 0.0.5 runs), made by a compiled loop with
    the same arithmetic in the same order (bit-identical to scipy 1.17 in the tests), the points
    shared among ``threads`` threads (default :func:`default_threads`; every point is summed
    by one thread, so the result does not depend on the number).

    Work: ``distinct data rows x distinct points``, not ``n x m``, where the data repeat.
    Identical points (the same bits) are evaluated once. When at most half the data rows are
    distinct, a row with c identical copies adds one term ``(c w) * (exp(-q / 2) * norm)`` in
    the place of its first copy instead of c terms ``w * (...)`` (w = 1/n): the sum then
    differs from scipy's by the rounding of the merged additions, at most (c - 1) eps relative
    to that row's terms; with more distinct rows every operation is scipy's. On coded or
    rounded columns the distinct rows stop growing with the number of records.
    """
    points = np.ascontiguousarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != kernel.d:
        raise CapkitError(f"points must have {kernel.d} columns, got shape {points.shape}")
    points, inverse = _distinct(points)
    data, z, weights, _, norm, _ = _scipy_whitened(kernel, points)
    return _run(_kernel_sums, (np.ascontiguousarray(data.T), weights, z, float(norm)),
                np.empty(len(z)), threads)[inverse]


def blocked_density(kernel: Kernel, points: np.ndarray) -> np.ndarray:
    """p(x) by the formula of the module docstring, in numpy blocks (independent of scipy's
    loop; agrees with it to ~1e-13 relative)."""
    z = _whiten(kernel, points)
    out = np.empty(len(z))
    norm = np.exp(kernel.log_norm)
    for start, stop, q in _blocks(kernel, z):
        np.negative(q, out=q)
        np.exp(q, out=q)
        out[start:stop] = q.sum(axis=1) * (norm / kernel.n)
    return out


#: Below this density the log is recomputed with each point's largest term factored out.
TINY = 1e-280


def log_density(kernel: Kernel, points: np.ndarray, *, threads: int | None = None
                ) -> np.ndarray:
    """log p(x) at each row of ``points``, finite everywhere (no underflow).

    The density is summed as in :func:`density`; where it is below :data:`TINY` (far from
    every data point, where the plain sum loses precision or underflows to 0), the sum is
    redone with the point's largest term factored out: log p = log sum exp(-q_i/2 + q_min/2)
    - q_min/2 + log(norm) + log(1/n) (weights 1/n), by the same kind of compiled loop.
    """
    points = np.ascontiguousarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != kernel.d:
        raise CapkitError(f"points must have {kernel.d} columns, got shape {points.shape}")
    points, inverse = _distinct(points)
    out = np.log(np.maximum(density(kernel, points, threads=threads), TINY))
    far = np.flatnonzero(out <= np.log(TINY))
    if len(far):
        data, z, _, counts, norm, weight = _scipy_whitened(kernel, points[far])
        sums = _run(_log_kernel_sums, (np.ascontiguousarray(data.T), counts, z),
                    np.empty(len(far)), threads)
        out[far] = sums + math.log(norm) + math.log(weight)
    return out[inverse]


__all__ = ["BLOCK_CELLS", "TINY", "Kernel", "blocked_density", "default_threads", "density", "fit",
           "log_density"]
