"""synthpop's ``remove.lindep`` screening of the predictors before each CART fit (spec 4.1).

synthpop 1.9-2 (``R/sampler.syn.r``): predictors are compared as numbers (categorical ones as
level codes); those with (almost) no variance, those correlated >= 0.99999 with y, and those
found linearly dependent through the eigenvalues of their correlation matrix are dropped before
rpart sees them.
"""

from __future__ import annotations

import numpy as np


def lindep(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the columns of ``X`` that synthpop keeps as predictors of ``y`` (spec 4.1).

    Parameters
    ----------
    X
        (n, p) predictors as numbers (categorical: level codes).
    y
        (n,) the variable being synthesised, as numbers.
    """
    keep = np.arange(X.shape[1])
    if len(X) < 2 or X.shape[1] == 0:
        return keep[:0] if len(X) < 2 else keep
    var = X.var(axis=0, ddof=1)
    keep = keep[var > 1e-5]  # NaN fails both ways (synthpop: NaN as 0)
    if not len(keep):
        return keep
    Xk = X[:, keep]
    with np.errstate(invalid="ignore", divide="ignore"):
        yc = y - y.mean()
        xc = Xk - Xk.mean(axis=0)
        r = (xc * yc[:, None]).sum(0) / np.sqrt((xc ** 2).sum(0) * (yc ** 2).sum())
    keep = keep[~(r >= 0.99999)]  # NaN is kept (synthpop: NaN as 0)
    if len(keep) < 2:
        return keep
    C = np.corrcoef(X[:, keep], rowvar=False)
    vals, vecs = np.linalg.eigh(C)
    order = np.argsort(-vals, kind="stable")
    vals, vecs = vals[order], vecs[:, order]
    kept = list(keep)
    r_ = len(vals) - 1
    # synthpop's quirk: the initial decomposition is reused, positions index the kept list
    while r_ > 0 and vals[r_] / vals[0] < 1e-5:
        pos = int(np.argmax(np.abs(vecs[:, r_])))
        if pos < len(kept):
            kept.pop(pos)
        r_ -= 1
    return np.array(kept, dtype=np.int64)
