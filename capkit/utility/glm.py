"""The logistic propensity model of synthpop's ``utility.gen(method = "logit")``, fitted as R's
``glm(t ~ .^(maxorder + 1), family = binomial)`` fits it.

R's ``glm.fit`` (R Core Team, ``src/library/stats/R/glm.R``) is iteratively reweighted least
squares from ``mustart = (y + 0.5) / 2``, stopping when ``|dev - devold| / (|dev| + 0.1) <
1e-8`` or after ``maxit`` iterations, with the logit link's clamping of ``mu`` to
``[eps, 1 - eps]``. A general-purpose optimiser (scikit-learn's ``LogisticRegression``,
``scipy.optimize``) stops elsewhere and so gives fitted values that differ from R's in the 7th
to 9th digit; here the same iterations are run, so the fitted values (and the pMSE) agree with
R's to the precision of the least-squares solves (about 1e-12), also when the files separate
perfectly and the iterations stop short of the limit.

The model matrix is R's ``model.matrix`` for that formula: every column, factors as treatment
contrasts (level 1 the baseline), then every interaction of 2 .. maxorder + 1 columns, the
first column's levels varying fastest. Columns that are linear combinations of earlier ones
(R's aliased, NA coefficients: pivoted out by LINPACK's ``dqrdc2``) are found once, by a
Cholesky factorisation of the cross-products that skips a column whose residual is below
1e-9 of its norm; ``df`` is the number of the other coefficients minus one.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from scipy.linalg import lapack, solve_triangular
from threadpoolctl import threadpool_limits

from capkit.errors import CapkitError

EPS = np.finfo(float).eps
THRESH, MTHRESH, INVEPS = 30.0, -30.0, 1.0 / EPS


def _block(series: pd.Series, name: str) -> np.ndarray:
    """Main-effect columns of one variable: the number itself, or treatment dummies."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        L = len(series.cat.categories)
        if L < 2:
            raise CapkitError(f"logit propensity model: factor {name!r} has a single level "
                              "(R: contrasts can be applied only to factors with 2 or more "
                              "levels)")
        return (codes[:, None] == np.arange(1, L)[None, :]).astype(float)
    return series.to_numpy(dtype=float)[:, None]


def model_matrix(frame: pd.DataFrame, maxorder: int) -> np.ndarray:
    """R's ``model.matrix(~ .^(maxorder + 1))`` of ``frame`` (intercept first)."""
    blocks = [_block(frame[c], c) for c in frame.columns]
    cols = [np.ones((len(frame), 1))] + blocks
    for order in range(2, maxorder + 2):
        for combo in combinations(range(len(blocks)), order):
            prod = blocks[combo[0]]
            for j in combo[1:]:  # first factor fastest: kron-like column order
                b = blocks[j]
                prod = (prod[:, None, :] * b[:, :, None]).reshape(len(frame), -1)
            cols.append(prod)
    return np.hstack(cols)


def n_params(levels: list[int], maxorder: int) -> int:
    """synthpop's count of the model's parameters: 1 + the sum over every set of up to
    maxorder + 1 variables of the product of (levels - 1), numbers counted as 2 levels."""
    lv = np.array([2 if n == 0 else n for n in levels]) - 1
    total = 1
    for order in range(1, maxorder + 2):
        total += sum(int(np.prod(lv[list(c)])) for c in combinations(range(len(lv)), order))
    return total


def independent_columns(X: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Indices of the columns kept: each column not (numerically) a combination of the kept
    columns before it."""
    G = X.T @ X
    p = G.shape[0]
    L = np.zeros((p, p))
    kept: list[int] = []
    for j in range(p):
        k = len(kept)
        row = np.zeros(k)
        if k:
            Lk = L[:k, :k]
            row = _forward(Lk, G[kept, j])
        resid = G[j, j] - row @ row
        if G[j, j] > 0 and resid > tol * G[j, j]:
            L[k, :k] = row
            L[k, k] = np.sqrt(resid)
            kept.append(j)
    return np.array(kept, dtype=np.int64)


def _forward(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    return solve_triangular(L, b, lower=True, check_finite=False)


def _least_squares(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """argmin |A x - b| by Householder QR (LAPACK dgeqrf / dormqr, as R's dqrls), A of full
    column rank. One BLAS thread: on a shared machine a tall-thin QR is many times slower
    with threads competing for the cores."""
    p = A.shape[1]
    with threadpool_limits(limits=1, user_api="blas"):
        qr, tau, _, info = lapack.dgeqrf(A)
        lwork = int(lapack.dormqr("L", "T", qr, tau, b[:, None], -1)[1][0])
        qtb, _, info2 = lapack.dormqr("L", "T", qr, tau, b[:, None], max(lwork, 1))
    if info != 0 or info2 != 0:
        raise CapkitError(f"least squares failed in the logit fit (LAPACK info {info}, {info2})")
    return solve_triangular(qr[:p, :p], qtb[:p, 0], check_finite=False)


def _linkinv(eta: np.ndarray) -> np.ndarray:
    tmp = np.where(eta < MTHRESH, EPS, np.where(eta > THRESH, INVEPS, np.exp(eta)))
    return tmp / (1.0 + tmp)


def _mu_eta(eta: np.ndarray) -> np.ndarray:
    opexp = 1.0 + np.exp(eta)
    return np.where((eta > THRESH) | (eta < MTHRESH), EPS, np.exp(eta) / (opexp * opexp))


def _deviance(y: np.ndarray, mu: np.ndarray) -> float:
    return float(np.sum(np.where(y > 0, -2.0 * np.log(mu), -2.0 * np.log(1.0 - mu))))


#: The relative change of the deviance at which the IRLS iterations stop (R's
#: ``glm.control(epsilon = 1e-8)``): a fit's deviance is known to this relative precision.
EPSILON = 1e-8


def null_deviance(y: np.ndarray) -> float:
    """The deviance of the intercept-only logit, as R's ``glm.fit`` computes ``null.deviance``:
    the deviance of the constant fit ``mu = mean(y)`` (the same function as every fit's)."""
    y = np.asarray(y, dtype=float)
    return _deviance(y, np.full(len(y), np.mean(y)))


def above_null(deviance: float, y: np.ndarray, epsilon: float = EPSILON) -> bool:
    """Whether a fit's ``deviance`` is above the null deviance of ``y`` by more than the IRLS
    tolerance ``epsilon`` (relative, as the iterations' stopping rule reads it:
    ``(deviance - null) / (|null| + 0.1) > epsilon``). A maximum likelihood fit with an
    intercept is never above the null deviance; one whose predictors tell nothing (a synthesis
    that copies the original) equals it in exact arithmetic and differs by rounding only."""
    null = null_deviance(y)
    return (deviance - null) / (abs(null) + 0.1) > epsilon


def fit_logit(X: np.ndarray, y: np.ndarray, maxit: int = 200, epsilon: float = EPSILON
              ) -> dict:
    """R's ``glm.fit`` for a binomial logit with unit weights.

    Returns
    -------
    dict with ``fitted`` (mu), ``coefficients`` (NaN for aliased columns), ``rank``,
    ``converged``, ``iter``, ``deviance``.
    """
    y = np.asarray(y, dtype=float)
    keep = independent_columns(X)
    Xk = np.ascontiguousarray(X[:, keep])
    mu = (y + 0.5) / 2.0
    eta = np.log(mu / (1.0 - mu))
    mu = _linkinv(eta)
    devold = _deviance(y, mu)
    coef = np.zeros(len(keep))
    converged = False
    it = 0
    while it < maxit:
        it += 1
        mu_eta = _mu_eta(eta)
        var = mu * (1.0 - mu)
        z = eta + (y - mu) / mu_eta
        w = np.sqrt(mu_eta ** 2 / var)
        start = _least_squares(Xk * w[:, None], z * w)
        eta_new = Xk @ start
        mu_new = _linkinv(eta_new)
        dev = _deviance(y, mu_new)
        halvings = 0
        while not np.isfinite(dev) and halvings < 100:  # R's step halving
            start = (start + coef) / 2.0
            eta_new = Xk @ start
            mu_new = _linkinv(eta_new)
            dev = _deviance(y, mu_new)
            halvings += 1
        coef, eta, mu = start, eta_new, mu_new
        if abs(dev - devold) / (abs(dev) + 0.1) < epsilon:
            converged = True
            break
        devold = dev
    full = np.full(X.shape[1], np.nan)
    full[keep] = coef
    return {"fitted": mu, "coefficients": full, "rank": len(keep), "converged": converged,
            "iter": it, "deviance": _deviance(y, mu)}
