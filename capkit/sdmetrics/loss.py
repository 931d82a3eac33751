"""SDMetrics' loss of the numerical attackers: distances between CDF values (copulas).

SDMetrics 0.32 (``single_table/privacy/loss.py``; docs/sdmetrics-differences.md) fits, for each
sensitive column of the real data, a ``copulas.univariate.Univariate()`` (the family chosen
automatically: the candidate with the smallest Kolmogorov-Smirnov statistic among Beta, Gamma,
Gaussian, GaussianKDE, LogLaplace, StudentT, TruncatedGaussian and Uniform, then refitted) and
measures a prediction p of a true tuple y as

    loss(p, y) = sum_t |F_t(p_t) - F_t(y_t)| ** p_norm

with no root and no averaging, although SDMetrics' docstring calls it an L_p norm (a bug kept
here: the numbers are SDMetrics'). The family choices and fits are copulas' own, so capkit
calls copulas (the ``sdmetrics`` extra: ``pip install 'capkit[sdmetrics]'``); what capkit adds
is evaluating each CDF once per distinct value, in chunks, for all records at once.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

try:  # optional: the numerical attacker metrics need it, nothing else in capkit does
    from copulas.univariate import Univariate
except ImportError:  # pragma: no cover - exercised only without the extra
    Univariate = None

#: Values whose CDF is evaluated at once (a Gaussian KDE holds values x data points).
CDF_CHUNK = 1024


def fit_cdf(values: np.ndarray) -> object:
    """copulas' automatically selected univariate distribution of ``values``."""
    if Univariate is None:
        raise CapkitError("SDMetrics' numerical metrics need copulas (the distribution family "
                          "selection is copulas'): pip install 'capkit[sdmetrics]'")
    model = Univariate()
    with warnings.catch_warnings():  # candidate families that fit badly warn; copulas skips them
        warnings.simplefilter("ignore", RuntimeWarning)
        model.fit(values)
    return model


def cdf_values(model: object, values: np.ndarray) -> np.ndarray:
    """``model.cdf`` of every value, evaluated once per distinct value, in chunks."""
    values = np.asarray(values, dtype=np.float64)
    unique, inverse = np.unique(values, return_inverse=True)
    out = np.empty(len(unique))
    for start in range(0, len(unique), CDF_CHUNK):
        out[start : start + CDF_CHUNK] = model.cdf(unique[start : start + CDF_CHUNK])
    return out[inverse.ravel()]


class InverseCDFDistance:
    """SDMetrics' ``InverseCDFDistance``: ``sum_t |F_t(pred_t) - F_t(real_t)| ** p``.

    Parameters
    ----------
    p
        The exponent (SDMetrics' "L_p"; no root is taken).
    """

    def __init__(self, p: float = 2) -> None:
        self.p = p
        self.cdfs: list = []

    def fit(self, data: pd.DataFrame, cols: Sequence[str]) -> None:
        """Fit one copulas ``Univariate`` per column (SDMetrics fits the real data's sensitive
        columns)."""
        self.cdfs = [fit_cdf(np.array(data[c])) for c in cols]

    def measure(self, pred: Sequence[float], real: Sequence[float]) -> float:
        """The loss of one prediction (SDMetrics' per-record call)."""
        return float(self.measure_all(np.array([pred], dtype=float),
                                      np.array([real], dtype=float))[0])

    def measure_all(self, pred: np.ndarray, real: np.ndarray) -> np.ndarray:
        """(n,) losses of (n, t) predictions against (n, t) true values."""
        total = np.zeros(len(pred))
        for t, model in enumerate(self.cdfs):
            total += np.abs(cdf_values(model, pred[:, t]) - cdf_values(model, real[:, t])
                            ) ** self.p
        return total


class InverseCDFCutoff(InverseCDFDistance):
    """SDMetrics' ``InverseCDFCutoff``, the neighbour rule of NumericalRadiusNearestNeighbor:
    weight 1 when ``sum_k |G_k(x_k) - G_k(y_k)| ** p < |K| * cutoff ** p``, else 0 (G_k fitted
    on the synthetic keys)."""

    def __init__(self, p: float = 2, cutoff: float = 0.1) -> None:
        super().__init__(p)
        self.cutoff = cutoff**p

    def fit(self, data: pd.DataFrame, cols: Sequence[str]) -> None:
        super().fit(data, cols)
        self.cutoff *= len(cols)

    def measure(self, pred: Sequence[float], real: Sequence[float]) -> int:
        return 1 if super().measure(pred, real) < self.cutoff else 0


__all__ = ["InverseCDFCutoff", "InverseCDFDistance", "cdf_values", "fit_cdf"]
