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

:func:`fit` makes scipy's fit with scipy's own numpy and LAPACK calls (the same covariance,
factor, Cholesky factor and whitened data, bit for bit, without importing ``scipy.stats``).
:func:`density` makes scipy's evaluation (scipy 1.17's ``gaussian_kernel_estimate``: points
whitened by the same triangular solve, each point's terms ``w_i * (exp(-q_i / 2) * norm)``
added in data order, libm's ``exp``) in one of two ways that give the same bits:

* small inputs (at most :data:`NUMPY_PAIRS` point-term pairs, at most :data:`NUMPY_TERMS`
  terms) while the compiled loop is not loaded in the process: numpy, a block of points at a
  time: the squared distances column by column (0.0 + r_1 r_1 + r_2 r_2 ...), libm's ``exp``
  through ``scipy.special.inv_boxcox(t, 0)`` (a compiled ufunc that returns ``exp(t)`` of the
  C library; numpy's own ``exp`` may run on vector registers and differ in the last bit), the
  products as scipy makes them, and each point's sum by ``np.add.reduce`` across the rows of
  a block (one addition after another in data order, never pairwise: :func:`_numpy_sums`).
  This path spares a process numba's start-up (about 0.3 CPU-s to import numba and load a
  cached loop); it costs about 6.5 ns a pair against the compiled loop's 4;
* otherwise the compiled loop (:mod:`capkit.membership_inference._kde_kernels`).

Either way the points are shared among threads, each point summed whole by one thread, so the
numbers do not depend on the number of threads.

Identical points (the same bits) are evaluated once; identical data rows are one term weighted
by their copies when at most half the rows are distinct (the sum then differs from scipy's by
the rounding of the merged additions); with more distinct rows every operation is scipy's.
:func:`blocked_density` computes the same numbers independently: the data and the points are
whitened once by triangular solves, the squared distances of a block of pairs come from one
matrix product (||a||^2 + ||b||^2 - 2 a.b, clipped at 0), and the exponentials are summed block
by block. The two agree to ~1e-13 relative (tests). :func:`log_density` gives log p(x) without
underflow (far from every data point the density is exactly 0): there the sum is redone, by the
compiled loop, after factoring out each point's largest term.

Cost. Fitting is O(n d^2 + n log n) (the covariance, the solve, the distinct rows).
Evaluating m points is O(n' m' d) time and O((n + m) d) memory, n' and m' the distinct data
rows and points: every term is computed, as in scipy. No exact method does much less: the
result is defined to the last bit by scipy's sum of every term in data order, and a term may be
skipped only when adding it changes nothing: when it is exactly 0.0 (exp(-q/2) underflows for q
above about 1490 in whitened units, about 10 standard deviations at Scott's bandwidth: under 1%
of the pairs on Adult's numeric columns), or below half a unit in the last place of the sum
so far (known from q alone, with a margin, before computing it). In data order the sum so far
is small until the point's near records come, so on Adult's numeric columns (3,000 and 8,000
records a role) 80% and 73% of the terms still change it; a compiled loop that skips the others
(terms listed in chunks, branch-free) took 3.7-3.9 ns a pair against 3.5 for computing every
one, and is not used. The work is therefore the kernel sum scipy runs in C, one libm ``exp``
per pair (3.05 ns a call on an AMD EPYC, measured in a compiled loop; a vectorised ``exp``,
numpy's own on AVX-512 for one, differs in the last bit on some arguments, and a copy of one C
library's algorithm would tie the bits to that build), and no faster than that: on Adult's 5
numeric columns scipy takes about 6.5-8 ns a pair (with its whitening and set-up), the
compiled loop 3.5-3.8 and the numpy path 7 (all of Adult, a third in each role, 1.06e9 pairs:
scipy 6.6 CPU-s, capkit 4.0). 10 times scipy's speed would need a tenth of its exponentials;
with every fixed cost at zero the ratio is at most about 2.6 (7.85 ns against one ``exp``'s
3.05 at 3,000 records a role). A caller with many records bounds the cost by evaluating the
density at a seeded sample of the scored records, the density still fitted on every synthetic
and reference record (:func:`capkit.membership_inference.scores`' ``score_sample``).
"""

from __future__ import annotations

import functools
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from threadpoolctl import ThreadpoolController

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
        L = factor * cholesky(C), lower triangular (scipy's ``cho_cov``, bit for bit).
    whitened
        L^-1 x_i for every data row (n x d), by scipy's triangular solve.
    log_norm
        log((2 pi)^(-d/2) / prod_k L_kk).
    norm
        (2 pi)^(-d/2) divided by each L_kk in turn, as scipy's loop builds it.
    columns, weights, counts
        The terms :func:`density` sums, transposed (d x terms): every whitened data row with
        weight w = 1/n and count 1, or, when at most half the data rows are distinct, each
        distinct row once (in the order of its first copy) with its c copies and weight c w.
    """

    n: int
    d: int
    n_eff: float
    factor: float
    data_covariance: np.ndarray
    cholesky: np.ndarray
    whitened: np.ndarray
    log_norm: float
    norm: float = 0.0
    columns: np.ndarray | None = None
    weights: np.ndarray | None = None
    counts: np.ndarray | None = None


@functools.cache
def _blas() -> ThreadpoolController:
    """numpy's and scipy's BLAS libraries (both loaded by this module's imports), found once."""
    return ThreadpoolController()


def _one_blas_thread():
    """Context: the BLAS libraries limited to one thread, for the triangular solves of the
    data and the points (L^-1 x, d x d against d x n). Each right-hand side (a record) is
    solved alone whatever the threads (OpenBLAS splits the records between them, never a
    sum), so the floats are the same: tested against the threaded calls up to 130 columns and
    200,000 records. The covariance and its Cholesky factor keep the libraries' threads: on
    one thread their floats differ on some sizes (a product of 3,000 x 70, a factor of 130 x
    130). With OpenBLAS's default threads each solve cost about 5 ms of CPU in its waiting
    workers, against 0.1 ms on one thread."""
    return _blas().limit(limits=1, user_api="blas")


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
    # scipy's own call: numpy's power ufunc (it may run on vector registers, and then differs
    # in the last bit from the scalar ``**``)
    factor = np.power(n_eff, -1.0 / (d + 4))
    # the covariance and its factor with the libraries' own threads, as scipy makes them (on
    # one thread OpenBLAS's product and Cholesky factor differ in the last bit on some sizes)
    covariance = np.atleast_2d(np.cov(data.T, rowvar=1, bias=False, aweights=weights))
    try:
        cho = linalg.cholesky(covariance, lower=True)
    except linalg.LinAlgError:
        raise CapkitError(
            f"the covariance of {name} is singular (a constant column, or columns that are "
            "linear combinations of others): the Gaussian density cannot be estimated") from None
    cho = (cho * factor).astype(np.float64)
    # scipy's gaussian_kernel_estimate whitens its data by this very call (data.T: d x n)
    with _one_blas_thread():
        whitened = np.ascontiguousarray(linalg.solve_triangular(cho, data.T, lower=True).T)
    log_norm = float(np.log((2 * np.pi) ** (-d / 2.0)) - np.sum(np.log(np.diag(cho))))
    norm = math.pow(2 * math.pi, -d / 2.0)
    for k in range(d):  # scipy's order: one division per diagonal entry
        norm /= float(cho[k, k])
    first, inverse = distinct_rows(data)
    if 2 * len(first) > n:  # few copies: scipy's sum, term by term
        rows, counts = whitened, np.ones(n)
        terms = weights
    else:
        keep = np.sort(first)
        counts = np.bincount(inverse)[inverse[keep]].astype(np.float64)
        rows, terms = whitened[keep], weights[keep] * counts
    return Kernel(n, d, float(n_eff), float(factor), covariance, cho, whitened, log_norm,
                  norm, np.ascontiguousarray(rows.T), np.ascontiguousarray(terms), counts)


def _whiten(kernel: Kernel, points: np.ndarray) -> np.ndarray:
    """``points`` checked and whitened (L^-1 x, scipy's triangular solve)."""
    return _scipy_points(kernel, _points(kernel, points))


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


#: Point-term pairs up to which :func:`density` sums in numpy when the compiled loop is not
#: loaded yet: below where numba's start-up (0.3 CPU-s) equals the numpy path's extra cost
#: (3 ns a pair).
NUMPY_PAIRS = 1 << 26
#: Terms (distinct data rows) up to which the numpy path is used (a block holds at least
#: 4 points).
NUMPY_TERMS = 1 << 14
#: Pairs in one block of the numpy path (three buffers of 512 kB).
NUMPY_BLOCK = 1 << 16

_KERNELS = "capkit.membership_inference._kde_kernels"


def _loaded() -> bool:
    """Whether the compiled loop is loaded in this process already (then it is the faster)."""
    module = sys.modules.get(_KERNELS)
    return module is not None and bool(module.kernel_sums.signatures)


def _numpy_sums(columns: np.ndarray, weights: np.ndarray, z: np.ndarray, norm: float
                ) -> np.ndarray:
    """The compiled loop's numbers (scipy's) in numpy, a block of points at a time: for each
    point j, sum_i weights[i] * (exp(-q_ij / 2) * norm), q_ij = 0.0 + r_1^2 + ... + r_d^2
    (r_k = data_ik - point_jk), added in data order.

    The squared distances of a block are held with point j in row j (long contiguous rows,
    fast to broadcast); the exponential writes them transposed, data row i in row i, so that
    ``np.add.reduce(axis=0)`` adds row after row: out = row 0, then out += row 1, ... (numpy
    sums pairwise only along the axis that is contiguous in memory, and here that is the
    points' axis; a block of one point is evaluated as two copies of it, whose one column would
    otherwise be contiguous)."""
    from scipy.special import inv_boxcox  # exp(t) of the C library, a compiled ufunc

    d, n = columns.shape
    m = len(z)
    out = np.empty(m)
    step = max(2, NUMPY_BLOCK // max(n, 1))
    width = max(2, min(step, m))
    q, r, e = np.empty((width, n)), np.empty((width, n)), np.empty((n, width))
    for start in range(0, m, step):
        stop = min(start + step, m)
        block = z[start:stop] if stop - start > 1 else z[[start, start]]
        qq, rr, ee = q[:len(block)], r[:len(block)], e[:, :len(block)]
        np.subtract(columns[0][None, :], block[:, 0:1], out=qq)
        np.multiply(qq, qq, out=qq)  # 0.0 + r * r is r * r
        for k in range(1, d):
            np.subtract(columns[k][None, :], block[:, k:k + 1], out=rr)
            np.multiply(rr, rr, out=rr)
            np.add(qq, rr, out=qq)
        np.multiply(qq, -0.5, out=qq)  # -q / 2, exactly
        inv_boxcox(qq.T, 0.0, out=ee)
        np.multiply(ee, norm, out=ee)
        np.multiply(weights[:, None], ee, out=ee)
        out[start:stop] = np.add.reduce(ee, axis=0)[: stop - start]
    return out


def _numpy_range(columns, weights, z, norm, out, start, stop):
    """:func:`_numpy_sums` of the points start..stop, into ``out`` (one thread's share)."""
    out[start:stop] = _numpy_sums(columns, weights, z[start:stop], norm)


def _scipy_points(kernel: Kernel, points: np.ndarray) -> np.ndarray:
    """The points whitened as scipy's ``gaussian_kernel_estimate`` whitens them (one
    triangular solve of the points transposed by L)."""
    with _one_blas_thread():
        return np.ascontiguousarray(
            linalg.solve_triangular(kernel.cholesky, points.T, lower=True).T)


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first position of each distinct row of a float64 matrix (rows equal when their bits
    are), and each row's distinct-row number: ``capkit.counts.rows.unique_rows`` of the bits
    viewed as int64 (the same numbers, in the same order: lexicographic by those integers), by
    one stable ``np.lexsort`` of the rows and a comparison of neighbours, O(n d log n)
    (a few milliseconds at 10,000 rows, where the column-by-column renumbering of 64-bit
    patterns took tens)."""
    bits = np.ascontiguousarray(rows, dtype=np.float64).view(np.int64)
    n = len(bits)
    if n == 0 or bits.shape[1] == 0:
        return np.zeros(min(n, 1), dtype=np.int64), np.zeros(n, dtype=np.int64)
    order = np.lexsort(bits.T[::-1])  # the first column the primary key; stable
    ordered = bits[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse  # stable: the lowest position of each distinct row


def _distinct(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct row of ``points`` once (equal bits: equal density, summed by the same
    operations), and the map from every row to its distinct row."""
    first, inverse = distinct_rows(points)
    return points[first], inverse


def _points(kernel: Kernel, points: np.ndarray) -> np.ndarray:
    points = np.ascontiguousarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != kernel.d:
        raise CapkitError(f"points must have {kernel.d} columns, got shape {points.shape}")
    return points


def density(kernel: Kernel, points: np.ndarray, *, threads: int | None = None,
            method: str | None = None) -> np.ndarray:
    """p(x) at each row of ``points`` (0.0 where every kernel term underflows, as in scipy).

    scipy's ``gaussian_kde.evaluate`` (what domias 0.0.5 runs), made with the same arithmetic
    in the same order (bit-identical to scipy 1.17 in the tests), by numpy or by the compiled
    loop (module docstring; ``method`` ``"numpy"`` or ``"compiled"`` forces one, None
    chooses: the two give the same bits). The points are shared among ``threads`` threads
    (default :func:`default_threads`; every point is summed by one thread, so the result does
    not depend on the number).

    Work: ``distinct data rows x distinct points``, not ``n x m``, where the data repeat.
    Identical points (the same bits) are evaluated once. When at most half the data rows are
    distinct, a row with c identical copies adds one term ``(c w) * (exp(-q / 2) * norm)`` in
    the place of its first copy instead of c terms ``w * (...)`` (w = 1/n): the sum then
    differs from scipy's by the rounding of the merged additions, at most (c - 1) eps relative
    to that row's terms; with more distinct rows every operation is scipy's. On coded or
    rounded columns the distinct rows stop growing with the number of records.
    """
    if method not in (None, "numpy", "compiled"):
        raise CapkitError(f"method must be None, 'numpy' or 'compiled', got {method!r}")
    points, inverse = _distinct(_points(kernel, points))
    z = _scipy_points(kernel, points)
    terms = kernel.columns.shape[1]
    if method is None:
        small = len(z) * terms <= NUMPY_PAIRS and terms <= NUMPY_TERMS
        method = "numpy" if small and not _loaded() else "compiled"
    if method == "numpy":
        return _run(_numpy_range, (kernel.columns, kernel.weights, z, kernel.norm),
                    np.empty(len(z)), threads)[inverse]
    from capkit.membership_inference import _kde_kernels  # numba: imported when used

    return _run(_kde_kernels.kernel_sums, (kernel.columns, kernel.weights, z, kernel.norm),
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
    - q_min/2 + log(norm) + log(1/n) (weights 1/n), by the compiled loop.
    """
    points, inverse = _distinct(_points(kernel, points))
    out = np.log(np.maximum(density(kernel, points, threads=threads), TINY))
    far = np.flatnonzero(out <= np.log(TINY))
    if len(far):
        from capkit.membership_inference import _kde_kernels  # numba: imported when used

        z = _scipy_points(kernel, points[far])
        sums = _run(_kde_kernels.log_kernel_sums, (kernel.columns, kernel.counts, z),
                    np.empty(len(far)), threads)
        out[far] = sums + math.log(kernel.norm) + math.log(1.0 / kernel.n)
    return out[inverse]


__all__ = ["BLOCK_CELLS", "NUMPY_BLOCK", "NUMPY_PAIRS", "NUMPY_TERMS", "TINY", "Kernel",
           "blocked_density", "default_threads", "density", "distinct_rows", "fit",
           "log_density"]
