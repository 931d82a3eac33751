"""Comparing singling-out success between an original and a control of different sizes.

Whether a query singles out depends on the size of the data it is counted in. Two ways to put
the members and the control on one footing:

* capkit (:func:`matched_singles`): exact and deterministic. For the larger of the two sets,
  the expected number of queries that would single out in a uniformly random subset of the
  smaller set's size: a query matching c of N records singles out in a random m-subset with the
  hypergeometric probability c * C(N - c, m - 1) / C(N, m).
* anonymeter 1.1 (:func:`anonymeter_correction`, Giomi et al. 2022, PoPETs 2023): the control
  count is multiplied by f(n_ori) / f(n_control), f(n) = norm * [1 - (n w + 1)(1 - w)^n] / (n + 1)
  (the integral over query weights 0..w of Cohen & Nissim's singling-out probability), with
  (w, norm) fitted by ``scipy.optimize.curve_fit`` to "successes" in random control subsets
  (10 sizes from min(1000, n) to n, 5 draws each). The number it records per subset is the
  length of the tuple of counts, i.e. the number of queries, not the number that single out, so
  the data it fits is the constant n_queries and the subsets play no part: the correction is a
  deterministic function of (n_queries, the subset sizes, n_ori, n_control). This reproduces
  the oracle's corrected counts (46.22 from 91 with 500 queries; 3.047 from 6 with 31 queries,
  which the number of singling-out queries, 6, would not give: 3.48).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import curve_fit
from scipy.special import gammaln

from capkit.errors import CapkitError


def matched_singles(counts: np.ndarray, n_records: int, size: int) -> np.ndarray:
    """Probability that each query, matching ``counts`` of ``n_records`` records, singles out
    in a uniformly random subset of ``size`` records: the hypergeometric pmf at 1,
    c * C(N - c, m - 1) / C(N, m), in log-gamma form, once per distinct count."""
    counts = np.asarray(counts, dtype=np.int64)
    if size >= n_records:
        return (counts == 1).astype(float)
    distinct, inverse = np.unique(counts, return_inverse=True)
    c = distinct.astype(float)
    n, m = float(n_records), float(size)
    possible = (c >= 1) & (n - c >= m - 1)
    c_ok = np.where(possible, c, 1.0)
    log_p = (np.log(c_ok) + _log_choose(n - c_ok, m - 1) - _log_choose(n, m))
    return np.where(possible, np.exp(log_p), 0.0)[inverse.reshape(counts.shape)]


def _log_choose(a: np.ndarray | float, b: float) -> np.ndarray | float:
    return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)


def _integral(n: np.ndarray | float, w: float) -> np.ndarray | float:
    """Integral over weights 0..w of n w (1 - w)^(n - 1), in anonymeter's arithmetic."""
    return ((n * 0 + 1) * (1 - 0) ** n - (n * w + 1) * (1 - w) ** n) / (n + 1)


def _model(x: np.ndarray, w: float, norm: float) -> np.ndarray:
    return norm * _integral(x, w)


def anonymeter_correction(n_queries: int, n_control: int, n_original: int) -> float:
    """anonymeter's size-correction factor f(n_original) / f(n_control) for the control count,
    fitted (as anonymeter does) to the constant ``n_queries`` at the 50 subset sizes."""
    sizes = np.repeat(np.linspace(min(1000, n_control), n_control, 10).astype(int), 5)
    observed = np.full(len(sizes), n_queries)
    w_guess = 1 / np.max(sizes)
    p0 = (w_guess, 1 / _integral(np.max(sizes), w_guess))
    try:
        params, _ = curve_fit(_model, xdata=sizes, ydata=observed, bounds=(0, (1, np.inf)),
                              p0=p0)
    except (RuntimeError, ValueError) as exc:
        raise CapkitError("anonymeter's control-size correction could not be fitted "
                          f"(control of {n_control} unique records): {exc}") from exc
    return float(_model(n_original, *params) / _model(n_control, *params))
