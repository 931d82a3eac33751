"""R's ``glm.fit`` for a binomial logit, operation for operation: the arithmetic of R 4.2's IRLS
loop with LINPACK's ``dqrls`` (R's ``dqrdc2``, Householder QR with limited column pivoting, and
``dqrsl``) on the reference BLAS, so that the iterates are R's to the last bit.

Used only under ``compat="synthpop"``. :mod:`capkit.utility.glm` runs the same iterations with
LAPACK's QR and finds the aliased columns once, on the unweighted model matrix; its fitted values
agree with R's to about 1e-12 whenever R's iterations converge. They do not always: R decides
the rank afresh at every iteration, on the *weighted* matrix ``diag(w) X``, by ``dqrdc2``'s test
(a column is dropped when its norm, after the Householder steps of the columns kept before it,
falls below ``tol = min(1e-7, epsilon / 1000) = 1e-11`` times its original norm). A column that
is an exact combination of others stays one after the weighting, but the rounding residual of
the combination is relative to the *other* columns' weighted norms: when the records under a
column get weights ``sqrt(mu (1 - mu))`` near ``sqrt(DBL_EPSILON)`` (fitted values clamped at 0
or 1, as in quasi-separated cells), that residual exceeds 1e-11 of the column's own norm, the
aliased column is admitted, and its coefficient is the ratio of two rounding errors (1e14 and
more). The fit then leaves the maximum likelihood and R's loop stops when the deviance of the
clamped fitted values repeats. Which records end on which side depends on those rounding
errors, so only the same operations in the same order give R's numbers; this module runs them.

What is replicated (R Core Team, ``src/library/stats/R/glm.R``, ``src/appl/dqrdc2.f``,
``src/appl/dqrsl.f``, ``src/appl/dqrls.f``, ``src/library/stats/src/family.c``; LINPACK:
Dongarra, Bunch, Moler & Stewart, "LINPACK Users' Guide", 1979; the reference BLAS of LAPACK
3.11, whose ``dnrm2`` is Anderson, "Algorithm 978: Safe scaling in the Level 1 BLAS", 2017):
``ddot`` (a clean-up loop of ``n mod 5`` terms, then groups of five added left to right),
``daxpy``, ``dscal``, ``dnrm2`` (three accumulators), ``dgemv`` for ``x %*% start`` (column by
column), the logit link's clamped ``linkinv`` and ``mu.eta``, ``binomial()$dev.resids``
(``2 log(y / mu)``) and R's ``sum`` (sequential, in 80-bit long double). Floating-point
operations are IEEE double without fused multiply-add (numba without fastmath), and ``exp`` and
``log`` are the C library's, as R's. On glibc x86-64 the results are bit-identical to R 4.2.2's
with the reference BLAS (checked against R on synthpop's ``utility.gen`` logit models of
SD2011: every coefficient of iterations 1-17 and the fitted values of the last iteration, 69,
of the 752-parameter model; every iteration of the main-effects model); R linked to another
BLAS adds in another order and its own numbers change where rounding decides.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from capkit.errors import CapkitError

EPS = float(np.finfo(float).eps)
INVEPS = 1.0 / EPS
# LAPACK 3.10+ dnrm2's thresholds and scalings for IEEE double (Anderson 2017)
TSML, TBIG = 2.0 ** -511, 2.0 ** 486
SSML, SBIG = 2.0 ** 537, 2.0 ** -538


@njit(cache=True)
def _ddot(n: int, x: np.ndarray, xo: int, y: np.ndarray, yo: int) -> float:
    """Reference BLAS ``ddot`` with unit strides, from offsets xo and yo."""
    dtemp = 0.0
    m = n % 5
    for i in range(m):
        dtemp = dtemp + x[xo + i] * y[yo + i]
    if n < 5:
        return dtemp
    for i in range(m, n, 5):
        dtemp = dtemp + x[xo + i] * y[yo + i] + x[xo + i + 1] * y[yo + i + 1] \
            + x[xo + i + 2] * y[yo + i + 2] + x[xo + i + 3] * y[yo + i + 3] \
            + x[xo + i + 4] * y[yo + i + 4]
    return dtemp


@njit(cache=True)
def _dnrm2(n: int, x: np.ndarray, xo: int) -> float:
    """Reference BLAS ``dnrm2`` (LAPACK 3.10+): sums of squares in three accumulators."""
    asml = 0.0
    amed = 0.0
    abig = 0.0
    notbig = True
    for i in range(n):
        ax = abs(x[xo + i])
        if ax > TBIG:
            s = ax * SBIG
            abig = abig + s * s
            notbig = False
        elif ax < TSML:
            if notbig:
                s = ax * SSML
                asml = asml + s * s
        else:
            amed = amed + ax * ax
    if abig > 0.0:
        if amed > 0.0 or amed != amed:
            abig = abig + (amed * SBIG) * SBIG
        return (1.0 / SBIG) * math.sqrt(abig)
    if asml > 0.0:
        if amed > 0.0 or amed != amed:
            amed = math.sqrt(amed)
            asml = math.sqrt(asml) / SSML
            ymin, ymax = (amed, asml) if asml > amed else (asml, amed)
            r = ymin / ymax
            return 1.0 * math.sqrt(ymax * ymax * (1.0 + r * r))
        return (1.0 / SSML) * math.sqrt(asml)
    return 1.0 * math.sqrt(amed)


@njit(cache=True)
def _ddot4(n: int, x: np.ndarray, xo: int, y0: np.ndarray, y1: np.ndarray, y2: np.ndarray,
           y3: np.ndarray):
    """Four :func:`_ddot` of ``x`` with ``y0 .. y3`` in one pass: each sum in ddot's own order
    (the four chains only interleave, so each result is bit for bit ``_ddot``'s)."""
    d0 = 0.0
    d1 = 0.0
    d2 = 0.0
    d3 = 0.0
    m = n % 5
    for i in range(m):
        a = x[xo + i]
        d0 = d0 + a * y0[xo + i]
        d1 = d1 + a * y1[xo + i]
        d2 = d2 + a * y2[xo + i]
        d3 = d3 + a * y3[xo + i]
    if n < 5:
        return d0, d1, d2, d3
    for i in range(xo + m, xo + n, 5):
        a0, a1, a2, a3, a4 = x[i], x[i + 1], x[i + 2], x[i + 3], x[i + 4]
        d0 = d0 + a0 * y0[i] + a1 * y0[i + 1] + a2 * y0[i + 2] + a3 * y0[i + 3] + a4 * y0[i + 4]
        d1 = d1 + a0 * y1[i] + a1 * y1[i + 1] + a2 * y1[i + 2] + a3 * y1[i + 3] + a4 * y1[i + 4]
        d2 = d2 + a0 * y2[i] + a1 * y2[i + 1] + a2 * y2[i + 2] + a3 * y2[i + 3] + a4 * y2[i + 4]
        d3 = d3 + a0 * y3[i] + a1 * y3[i + 1] + a2 * y3[i + 2] + a3 * y3[i + 3] + a4 * y3[i + 4]
    return d0, d1, d2, d3


@njit(cache=True)
def _reflect(x: np.ndarray, xl: np.ndarray, lc: int, rows: np.ndarray, qraux: np.ndarray,
             work1: np.ndarray, t: float, j: int) -> None:
    """``daxpy`` of the Householder vector into position j's column, then its norm updated."""
    xj = x[rows[j]]
    n = xj.size
    for i in range(lc, n):
        xj[i] = xj[i] + t * xl[i]
    if qraux[j] != 0.0:
        r = abs(xj[lc]) / qraux[j]
        tt = max(1.0 - r * r, 0.0)
        if abs(tt) >= 1e-6:
            qraux[j] = qraux[j] * math.sqrt(tt)
        else:  # large reduction: the norm recomputed (R's 1999 fix)
            qraux[j] = _dnrm2(n - lc - 1, xj, lc + 1)
            work1[j] = qraux[j]


@njit(cache=True)
def _dqrdc2(x: np.ndarray, tol: float):
    """R's ``dqrdc2`` on ``x`` (p rows, each a column of the model matrix, overwritten).

    Returns (rank, qraux, jpvt): position j holds column ``jpvt[j]`` (row ``jpvt[j]`` of x,
    which is not moved: the positions are an index). The Householder steps stop at the rank:
    the columns moved to the end are not needed for the coefficients."""
    p, n = x.shape
    qraux = np.empty(p)
    work1 = np.empty(p)
    work2 = np.empty(p)
    jpvt = np.arange(p)
    for j in range(p):
        qraux[j] = _dnrm2(n, x[j], 0)
        work1[j] = qraux[j]
        work2[j] = qraux[j] if qraux[j] != 0.0 else 1.0
    k = p + 1  # Fortran's k: one past the last column not moved to the end (1-based)
    for lc in range(min(n, p)):
        while lc + 1 < k and qraux[lc] < work2[lc] * tol:  # negligible: cycle to the end
            i, t1, tt, ttt = jpvt[lc], qraux[lc], work1[lc], work2[lc]
            for j in range(lc + 1, p):
                jpvt[j - 1] = jpvt[j]
                qraux[j - 1] = qraux[j]
                work1[j - 1] = work1[j]
                work2[j - 1] = work2[j]
            jpvt[p - 1], qraux[p - 1], work1[p - 1], work2[p - 1] = i, t1, tt, ttt
            k -= 1
        if lc + 1 >= k:
            break
        if lc + 1 == n:
            continue
        xl = x[jpvt[lc]]
        nrmxl = _dnrm2(n - lc, xl, lc)
        if nrmxl == 0.0:
            continue
        if xl[lc] != 0.0:
            nrmxl = abs(nrmxl) if xl[lc] >= 0.0 else -abs(nrmxl)
        s = 1.0 / nrmxl
        for i in range(lc, n):
            xl[i] = s * xl[i]
        xl[lc] = 1.0 + xl[lc]
        j = lc + 1
        while j + 3 < k - 1:  # the columns still in play, four at a time
            d0, d1, d2, d3 = _ddot4(n - lc, xl, lc, x[jpvt[j]], x[jpvt[j + 1]],
                                    x[jpvt[j + 2]], x[jpvt[j + 3]])
            _reflect(x, xl, lc, jpvt, qraux, work1, -d0 / xl[lc], j)
            _reflect(x, xl, lc, jpvt, qraux, work1, -d1 / xl[lc], j + 1)
            _reflect(x, xl, lc, jpvt, qraux, work1, -d2 / xl[lc], j + 2)
            _reflect(x, xl, lc, jpvt, qraux, work1, -d3 / xl[lc], j + 3)
            j += 4
        while j < k - 1:
            t = -_ddot(n - lc, xl, lc, x[jpvt[j]], lc) / xl[lc]
            _reflect(x, xl, lc, jpvt, qraux, work1, t, j)
            j += 1
        qraux[lc] = xl[lc]
        xl[lc] = -nrmxl
    return min(k - 1, n), qraux, jpvt


@njit(cache=True)
def _dqrls(xt: np.ndarray, y: np.ndarray, tol: float):
    """R's ``dqrls`` (``dqrdc2``, then ``dqrsl`` with job 1110 for the coefficients).

    ``xt`` is the transposed model matrix (overwritten). Returns the coefficients in pivoted
    order (zero past the rank), the rank and the pivot (0-based)."""
    p, n = xt.shape
    k, qraux, jpvt = _dqrdc2(xt, tol)
    qty = y.copy()
    for j in range(min(k, n - 1)):
        if qraux[j] != 0.0:
            xj = xt[jpvt[j]]
            temp = xj[j]
            xj[j] = qraux[j]
            t = -_ddot(n - j, xj, j, qty, j) / xj[j]
            for i in range(j, n):
                qty[i] = qty[i] + t * xj[i]
            xj[j] = temp
    b = np.zeros(p)
    for j in range(k):
        b[j] = qty[j]
    for jj in range(k):
        j = k - jj - 1
        b[j] = b[j] / xt[jpvt[j]][j]
        if j != 0:
            t = -b[j]
            xj = xt[jpvt[j]]
            for i in range(j):
                b[i] = b[i] + t * xj[i]
    return b, k, jpvt


@njit(cache=True)
def _weighted_t(xt: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``t(x * w)``: each column of the model matrix times the weights, one row per column."""
    p, n = xt.shape
    out = np.empty((p, n))
    for j in range(p):
        for i in range(n):
            out[j, i] = xt[j, i] * w[i]
    return out


@njit(cache=True)
def _gemv(xt: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Reference BLAS ``dgemv('N')`` for ``x %*% b``: the columns added one after another."""
    p, n = xt.shape
    y = np.zeros(n)
    for j in range(p):
        t = b[j]
        xj = xt[j]
        for i in range(n):
            y[i] = y[i] + t * xj[i]
    return y


@njit(cache=True)
def _linkinv(eta: np.ndarray) -> np.ndarray:
    out = np.empty_like(eta)
    for i in range(eta.size):
        e = eta[i]
        tmp = EPS if e < -30.0 else (INVEPS if e > 30.0 else math.exp(e))
        out[i] = tmp / (1.0 + tmp)
    return out


@njit(cache=True)
def _mu_eta(eta: np.ndarray) -> np.ndarray:
    out = np.empty_like(eta)
    for i in range(eta.size):
        e = eta[i]
        opexp = 1.0 + math.exp(e)
        out[i] = EPS if (e > 30.0 or e < -30.0) else math.exp(e) / (opexp * opexp)
    return out


@njit(cache=True)
def _linkfun(mu: np.ndarray) -> np.ndarray:
    out = np.empty_like(mu)
    for i in range(mu.size):
        out[i] = math.log(mu[i] / (1.0 - mu[i]))
    return out


@njit(cache=True)
def _dev_resids(y: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """``binomial()$dev.resids`` with unit weights: ``2 (y log(y/mu) + (1-y) log((1-y)/(1-mu)))``,
    a term left out where its y is 0."""
    out = np.empty_like(mu)
    for i in range(mu.size):
        yi, mui = y[i], mu[i]
        a = yi * math.log(yi / mui) if yi != 0.0 else 0.0
        b = (1.0 - yi) * math.log((1.0 - yi) / (1.0 - mui)) if 1.0 - yi != 0.0 else 0.0
        out[i] = 2.0 * (a + b)
    return out


def _rsum(values: np.ndarray) -> float:
    """R's ``sum`` of doubles: sequential, in long double (80-bit on x86-64)."""
    return float(np.cumsum(values.astype(np.longdouble))[-1])


def fit_logit_r(X: np.ndarray, y: np.ndarray, maxit: int = 25, epsilon: float = 1e-8
                ) -> dict:
    """``glm.fit(X, y, family = binomial(), control = list(maxit, epsilon))`` with unit weights,
    as R computes it.

    Returns
    -------
    dict with ``fitted`` (mu), ``coefficients`` (NaN for the columns the last iteration's QR
    pivoted out), ``rank`` (of the last iteration), ``converged``, ``iter``, ``deviance``.
    """
    y = np.ascontiguousarray(y, dtype=float)
    xt = np.ascontiguousarray(np.asarray(X, dtype=float).T)
    p, n = xt.shape
    tol = min(1e-7, epsilon / 1000)
    mustart = (y + 0.5) / 2.0  # binomial()$initialize with unit weights
    eta = _linkfun(mustart)
    mu = _linkinv(eta)
    devold = _rsum(_dev_resids(y, mu))
    start = np.zeros(p)
    coefold = None
    conv = False
    rank, pivot = p, np.arange(p)
    it = 0
    while it < int(maxit):
        it += 1
        mu_eta = _mu_eta(eta)
        z = eta + (y - mu) / mu_eta
        w = np.sqrt((1.0 * (mu_eta * mu_eta)) / (mu * (1.0 - mu)))
        b, rank, pivot = _dqrls(_weighted_t(xt, w), z * w, tol)
        if not np.isfinite(b).all():
            break  # R: "non-finite coefficients at iteration", not converged
        start = start.copy()
        start[pivot] = b
        eta = _gemv(xt, start)
        mu = _linkinv(eta + 0.0)
        dev = _rsum(_dev_resids(y, mu))
        halvings = 0
        while not math.isfinite(dev):  # R's step halving (never reached: mu is clamped)
            if coefold is None or halvings >= maxit:
                raise CapkitError("logit fit: no valid set of coefficients has been found "
                                  "(R's glm.fit stops here too)")
            halvings += 1
            start = (start + coefold) / 2.0
            eta = _gemv(xt, start)
            mu = _linkinv(eta + 0.0)
            dev = _rsum(_dev_resids(y, mu))
        if abs(dev - devold) / (abs(dev) + 0.1) < epsilon:
            conv = True
            break
        devold = dev
        coefold = start
    coef = start.copy()
    coef[pivot[rank:]] = np.nan
    return {"fitted": mu, "coefficients": coef, "rank": int(rank), "converged": conv,
            "iter": it, "deviance": _rsum(_dev_resids(y, mu))}
