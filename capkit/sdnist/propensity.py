"""SDNist's propensity mean square error (pMSE) and its propensity distribution.

SDNist 2.4 (usnistgov/SDNist, ``sdnist/metrics/propensity.py: PropensityMSE.pmse``), after
Woo, Reiter, Oganian & Karr, "Global measures of data utility for microdata masked for
disclosure limitation" (2009) and Snoke, Raab, Nowok, Dibben & Slavkovic, "General and specific
utility measures for synthetic data" (2018): the target's records (label 0) then the
deidentified file's (label 1), on the transformed data X (all features, alphabetical), fit a
scikit-learn ``DecisionTreeClassifier(max_depth=6)`` and score the same records; with ``p`` the
predicted probability of label 1 and ``c = n_S / N``,

    pMSE = (1 / N) * sum (p_i - c)^2     (summed in record order, as SDNist's Python sum)

The distribution counts the target's and the deidentified records in 100 bins of
``floor(round(p, 2) * 100)`` (Python's ``round``; 100 goes to bin 99).

The tree breaks ties between equally good splits with its random state; SDNist leaves it to
numpy's global ``RandomState``, which its k-marginal sub-samples have advanced before. Passing
the ``RandomState`` that :func:`capkit.sdnist.kmarginal.subsample_baselines` advanced gives the
tree SDNist's draws. This is the one place capkit uses numpy's legacy ``RandomState``: it is the
stream SDNist's numbers come from.

This pMSE is SDNist's: a depth-6 tree fitted and scored on the same records. The propensity
pMSE of synthpop's ``utility.gen`` (CART with a complexity parameter, the null expectation and
the standardised S_pMSE) is a different computation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

__all__ = ["BINS", "pmse"]

#: SDNist's number of propensity bins.
BINS = 100


def pmse(x_target: np.ndarray, x_deid: np.ndarray,
         random_state: np.random.RandomState | int | None = 0) -> tuple[float, pd.DataFrame]:
    """SDNist's pMSE and propensity distribution.

    Parameters
    ----------
    x_target, x_deid
        The X versions (records x features, features sorted).
    random_state
        The tree's random state (a ``RandomState``, advanced; or a seed).

    Returns
    -------
    pmse
        The propensity mean square error (at full precision).
    distribution
        100 rows (bins 0..99), columns ``Target samples`` and ``Deid. samples`` (SDNist's
        ``propensity_distribution.csv``).
    """
    from sklearn.tree import DecisionTreeClassifier

    n_t, n_s = len(x_target), len(x_deid)
    if n_t == 0 or n_s == 0:
        raise CapkitError("the propensity score needs records in both files")
    features = np.concatenate([x_target, x_deid])
    label = np.concatenate([np.zeros(n_t, dtype=np.int64), np.ones(n_s, dtype=np.int64)])
    tree = DecisionTreeClassifier(max_depth=6, random_state=random_state)
    tree.fit(features, label)
    prob = tree.predict_proba(features)[:, 1]
    n = n_t + n_s
    c = n_s / n
    total = np.cumsum((prob - c) ** 2)[-1]  # left to right, as Python's sum
    score = 1 / n * float(total)
    values, inverse = np.unique(prob, return_inverse=True)  # one value per leaf (64 at most)
    leaf_bin = np.array([min(math.floor(round(float(v), 2) * BINS), BINS - 1) for v in values],
                        dtype=np.int64)
    bins = leaf_bin[inverse.reshape(-1)]
    distribution = pd.DataFrame({
        "Target samples": np.bincount(bins[:n_t], minlength=BINS),
        "Deid. samples": np.bincount(bins[n_t:], minlength=BINS)})
    return score, distribution
