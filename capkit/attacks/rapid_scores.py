"""RAPID's record scores and what is computed from them: flags, bootstrap, permutation null.

Templ, Thees & Müller, "RAPID: Risk of Attribute Prediction-Induced Disclosure in Synthetic
Microdata" (arXiv 2602.09235, 2026), Section 2 and Algorithm 1; the R code of the authors
(github.com/qwertzlbry/RAPID, ``evaluate_categorical``, ``evaluate_numeric``) and of the
riskutility package (``confint.rapid``, ``rapid_test``, ``rapid_threshold_select``).

Everything here is a function of fixed predictions (class probabilities or predicted values)
and observed targets, so it never refits the attacker: the bootstrap resamples records, the
permutation null shuffles the observed targets against the fixed predictions (as riskutility
does: "the model is fitted once ... each permutation only re-evaluates the risk score").

Categorical target (the paper's "normalized gain", R's ``RCS_marginal``)::

    g_i = attacker's probability of record i's true class
    b_i = share of record i's class among the attacked records
    r_i = (g_i - b_i) / (1 - b_i)          at risk when r_i > tau

Continuous target, at risk when e_i < epsilon, with e_i one of::

    symmetric  2 |y - yhat| / (|y| + |yhat| + 2 delta)   (the R code's default)
    relative   |y - yhat| / (|y| + delta)               (the paper's Algorithm 1)
    absolute   |y - yhat|                              (epsilon in the target's units)
"""

from __future__ import annotations

import numpy as np

ERRORS = ("symmetric", "relative", "absolute")

#: The thresholds riskutility's ``rapid_threshold_select`` scans by default: tau 0.05..0.95 by
#: 0.05; epsilon 1%..49% by 2% (as proportions here).
DEFAULT_TAUS = np.round(np.arange(1, 20) * 0.05, 10)
DEFAULT_EPSILONS = np.round(np.arange(1, 50, 2) / 100, 10)

#: Records per block of the bootstrap and permutation draws (bounds memory, not results).
BLOCK_CELLS = 4_000_000


def class_shares(codes: np.ndarray, n_classes: int) -> np.ndarray:
    """Share of each class code among ``codes`` (length ``n_classes``)."""
    counts = np.bincount(codes, minlength=n_classes).astype(np.float64)
    return counts / max(len(codes), 1)


def normalized_gain(g: np.ndarray, b: np.ndarray) -> np.ndarray:
    """r = (g - b) / (1 - b); NaN where b = 1 (one class only: no gain is possible)."""
    g, b = np.asarray(g, dtype=np.float64), np.asarray(b, dtype=np.float64)
    room = 1.0 - b
    return np.divide(g - b, room, out=np.full(g.shape, np.nan), where=room > 0)


def continuous_error(y: np.ndarray, yhat: np.ndarray, error: str = "symmetric",
                     delta: float = 0.01) -> np.ndarray:
    """The record errors e_i of a continuous target (see the module docstring)."""
    y, yhat = np.asarray(y, dtype=np.float64), np.asarray(yhat, dtype=np.float64)
    gap = np.abs(y - yhat)
    if error == "symmetric":
        return 2.0 * gap / (np.abs(y) + np.abs(yhat) + 2.0 * delta)
    if error == "relative":
        return gap / (np.abs(y) + delta)
    return gap


def flags(score: np.ndarray, threshold: float, categorical: bool) -> np.ndarray:
    """At risk: gain above tau (categorical) or error below epsilon (continuous); NaN is never
    at risk."""
    with np.errstate(invalid="ignore"):
        return score > threshold if categorical else score < threshold


def share_above(scores: np.ndarray, thresholds: np.ndarray, categorical: bool) -> np.ndarray:
    """(rows, thresholds) share of each row of ``scores`` at risk at each threshold, by sorting
    each row once (NaN never at risk)."""
    scores = np.atleast_2d(scores)
    n = scores.shape[1]
    if categorical:  # count r > t: n_valid - (number <= t)
        ordered = np.sort(np.where(np.isnan(scores), -np.inf, scores), axis=1)
        below_or_equal = np.stack([np.searchsorted(row, thresholds, side="right")
                                   for row in ordered])
        return (n - below_or_equal) / n
    ordered = np.sort(np.where(np.isnan(scores), np.inf, scores), axis=1)
    below = np.stack([np.searchsorted(row, thresholds, side="left") for row in ordered])
    return below / n


def _blocks(rows: int, n: int) -> list[tuple[int, int]]:
    step = max(1, BLOCK_CELLS // max(n, 1))
    return [(start, min(start + step, rows)) for start in range(0, rows, step)]


def bootstrap_shares(n_draws: int, rng: np.random.Generator, *, at_risk: np.ndarray | None = None,
                     probability: np.ndarray | None = None, codes: np.ndarray | None = None,
                     n_classes: int = 0, tau: float = 0.3) -> np.ndarray:
    """RAPID on ``n_draws`` bootstrap resamples of the attacked records (attacker not refitted).

    Continuous target (``at_risk`` given): the share of flagged records in each resample.
    Categorical target (``probability`` g_i, ``codes`` of the true classes): the baseline b is
    recomputed from each resample's class shares, as the paper's bootstrap does when it calls
    ``rapid()`` on the resampled original data.
    """
    if at_risk is not None:
        n = len(at_risk)
        source = np.asarray(at_risk, dtype=np.float64)
    else:
        n = len(codes)
    out = np.empty(n_draws)
    for start, stop in _blocks(n_draws, n):
        index = rng.integers(0, n, size=(stop - start, n))
        if at_risk is not None:
            out[start:stop] = source[index].mean(axis=1)
            continue
        drawn = codes[index]
        offsets = np.arange(stop - start)[:, None] * n_classes
        counts = np.bincount((drawn + offsets).ravel(), minlength=(stop - start) * n_classes)
        shares = counts.reshape(stop - start, n_classes) / n
        b = np.take_along_axis(shares, drawn, axis=1)
        gain = normalized_gain(probability[index], b)
        out[start:stop] = flags(gain, tau, True).mean(axis=1)
    return out


def permutation_null(n_permutations: int, rng: np.random.Generator, thresholds: np.ndarray, *,
                     probabilities: np.ndarray | None = None, codes: np.ndarray | None = None,
                     n_classes: int = 0, observed: np.ndarray | None = None,
                     predicted: np.ndarray | None = None, error: str = "symmetric",
                     delta: float = 0.01) -> np.ndarray:
    """(n_permutations, thresholds) RAPID when the observed targets are shuffled against the
    fixed predictions: the null of no link between keys and target (riskutility's
    ``rapid_test``). Categorical: ``probabilities`` (n, I) and ``codes``; the class shares, and
    so b, are unchanged by a shuffle. Continuous: ``observed`` and ``predicted`` values."""
    categorical = probabilities is not None
    n = len(codes) if categorical else len(observed)
    if categorical:
        shares = class_shares(codes, n_classes)
    out = np.empty((n_permutations, len(thresholds)))
    rows = np.arange(n)
    for start, stop in _blocks(n_permutations, n):
        source = codes if categorical else observed
        shuffled = rng.permuted(np.broadcast_to(source, (stop - start, n)), axis=1)
        if categorical:
            score = normalized_gain(probabilities[rows, shuffled], shares[shuffled])
        else:
            score = continuous_error(shuffled, predicted[None, :], error, delta)
        out[start:stop] = share_above(score, thresholds, categorical)
    return out


__all__ = ["DEFAULT_EPSILONS", "DEFAULT_TAUS", "ERRORS", "bootstrap_shares", "class_shares",
           "continuous_error", "flags", "normalized_gain", "permutation_null", "share_above"]
