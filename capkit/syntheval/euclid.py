"""SynthEval 1.7.3's ``nn_distance='euclid'``: the distance metrics on the Euclidean distance.

SynthEval (Lautrup et al., "SynthEval", Data Mining and Knowledge Discovery 2025,
``utils/nn_distance.py``) finds neighbours with scikit-learn's ``NearestNeighbors`` (Minkowski,
p = 2, optionally weighted: sqrt(sum_k w_k (x_k - y_k)^2)) over **every encoded column** in the
data's column order: a categorical column enters as its integer code 0 .. L-1 (unscaled), a
numeric column as its joint min-max scaled value. When the two tables are equal in content it
fits and queries the same table and drops the first returned neighbour (the record itself, or a
duplicate at distance 0): the k nearest of the others.

Here the squared differences are added column by column in data order and the square root is
taken, which is how scikit-learn's tree search (its choice for up to 15 columns) rounds each
distance, so the distances are SynthEval's to the bit there; with more than 15 columns
scikit-learn searches by brute force with the ``|x|^2 - 2 x.y + |y|^2`` expansion, which rounds
differently (``docs/syntheval-differences.md``). No BLAS is involved, so the numbers do not
depend on the machine.

Metrics (as in the Gower case, :mod:`capkit.distance.neighbour_risk`): ``dcr``, ``nndr``,
``nnaa`` and ``eps_risk``; SynthEval's ``eps_risk`` keeps the numeric columns only, weighted by
1 / (entropy + 1e-16), and fails with a holdout (its weights do not fit the holdout's columns):
capkit raises an error that says so.
"""

from __future__ import annotations

import numpy as np

from capkit.distance.neighbour_risk import entropy, median_ratio, nnaa_with
from capkit.distance.neighbours import Encoded
from capkit.distance.neighbours import euclidean_k_nearest as k_nearest
from capkit.errors import CapkitError


def columns(table: Encoded, order: np.ndarray) -> np.ndarray:
    """The encoded table as one float matrix in data column order (``order``: for each data
    column, its position in ``concat(cat, num)``)."""
    return np.column_stack([table.cat.astype(np.float64), table.num])[:, order]


def median_dcr_ratio(real: np.ndarray, synthetic: np.ndarray, *, self_rule: str = "content",
                     zero_internal: str = "syntheval") -> float:
    """SynthEval's ``mDCR`` on the Euclidean distance (0 when the real median is 0 and the
    synthetic one is not, or ``inf`` with ``zero_internal="inf"``; both 0 give 1)."""
    return median_ratio(k_nearest(synthetic, real, 1, self_rule=self_rule)[:, 0],
                        k_nearest(real, real, 1, self_rule=self_rule, same=True)[:, 0],
                        zero_internal)


def _ratio(a: np.ndarray, b: np.ndarray, self_rule: str) -> np.ndarray:
    d = k_nearest(a, b, 2, self_rule=self_rule)
    return np.where(d[:, 0] == 0, 0.0, d[:, 0] / (d[:, 1] + 1e-16))


def nndr(real: np.ndarray, synthetic: np.ndarray, holdout: np.ndarray | None, *,
         per: str = "real", self_rule: str = "content") -> dict[str, float]:
    """``avg``, ``err`` and with a holdout ``priv_loss``, ``priv_loss_err`` (as
    :func:`capkit.distance.neighbour_risk.nndr`)."""
    if per not in ("synthetic", "real"):
        raise CapkitError(f"per must be 'synthetic' or 'real', got {per!r}")
    pairs = (lambda x: (x, synthetic)) if per == "real" else (lambda x: (synthetic, x))
    ratio = _ratio(*pairs(real), self_rule)
    avg, err = float(np.mean(ratio)), float(np.std(ratio, ddof=1) / np.sqrt(len(ratio)))
    out = {"avg": avg, "err": err}
    if holdout is not None:
        other = _ratio(*pairs(holdout), self_rule)
        other_err = np.std(other, ddof=1) / np.sqrt(len(other))
        out["priv_loss"] = float(np.mean(other) - avg)
        out["priv_loss_err"] = float(np.sqrt(other_err**2 + err**2))
    return out


def _aa(a: np.ndarray, b: np.ndarray, self_rule: str) -> float:
    left = np.mean(k_nearest(a, b, 1, self_rule=self_rule)[:, 0]
                   > k_nearest(a, a, 1, self_rule=self_rule, same=True)[:, 0])
    right = np.mean(k_nearest(b, a, 1, self_rule=self_rule)[:, 0]
                    > k_nearest(b, b, 1, self_rule=self_rule, same=True)[:, 0])
    return float(0.5 * (left + right))


def _balanced(a: np.ndarray, b: np.ndarray, n_resample: int, state: np.random.RandomState,
              self_rule: str) -> tuple[float, float]:
    ab, ba = len(a) / len(b), len(b) / len(a)
    if ab < 2 and ba < 2:
        return _aa(a, b, self_rule), 0.0
    values = []
    for _ in range(n_resample):  # a-side draw first, as SynthEval's pandas samples
        a_draw = a if ab < 2 else a[state.permutation(len(a))[:len(b)]]
        b_draw = b if ba < 2 else b[state.permutation(len(b))[:len(a)]]
        values.append(_aa(a_draw, b_draw, self_rule))
    return float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(len(values)))


def nnaa(real: np.ndarray, synthetic: np.ndarray, holdout: np.ndarray | None, *,
         n_resample: int = 30, seed: int | np.random.RandomState | None = 0,
         self_rule: str = "content") -> dict[str, float]:
    """Adversarial accuracy as :func:`capkit.distance.neighbour_risk.nnaa`, Euclidean."""
    return nnaa_with(_balanced, real, synthetic, holdout, n_resample=n_resample, seed=seed,
                     self_rule=self_rule)


def eps_risk(real_num: np.ndarray, synthetic_num: np.ndarray, *, self_rule: str = "content"
             ) -> dict[str, float]:
    """SynthEval's ``eps_risk`` with ``euclid``: the numeric columns only, each weighted by
    1 / (entropy of its rounded scaled values + 1e-16) (natural log, over the real records)."""
    if real_num.shape[1] == 0:
        raise CapkitError("eps_risk with nn_distance='euclid' uses the numeric columns only, "
                          "and there are none")
    weights = np.array([1 / (entropy(np.unique(np.round(real_num[:, k]),
                                               return_counts=True)[1]) + 1e-16)
                        for k in range(real_num.shape[1])])
    inside = k_nearest(real_num, real_num, 1, weights=weights, self_rule=self_rule,
                       same=True)[:, 0]
    outside = k_nearest(real_num, synthetic_num, 1, weights=weights, self_rule=self_rule)[:, 0]
    return {"eps_risk": float(np.sum(outside - inside < 0) / float(len(real_num)))}


__all__ = ["columns", "eps_risk", "median_dcr_ratio", "nnaa", "nndr"]
