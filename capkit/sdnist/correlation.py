"""SDNist's correlation differences and its education-income regressions.

SDNist 2.4 (usnistgov/SDNist; NIST CRC, "SDNist v2: Deidentified Data Report Tool"):

* **Correlation differences** (``report/plots/correlation.py``, ``metrics/pearson_correlation.py``):
  for SDNist's 19 correlation features (those both files hold, in the data dictionary's order)
  on the transformed data X, Kendall's tau-b (pandas' ``Series.corr(method="kendall")``, i.e.
  scipy's ``kendalltau``) and Pearson's r (scipy's ``pearsonr``) of every pair, deidentified
  minus target. Here tau-b comes from each pair's contingency table (concordant minus
  discordant pairs counted exactly with 2-d cumulative sums, all pairs in one array) and r from
  one matrix product; they agree with scipy's to about 1e-15.
* **Regressions** (``report/score/utility/linear_regression.py``, ``metrics/regression.py``):
  on the records with no ``N`` in EDU, PINCP_DECILE, RAC1P and SEX, the least-squares line of
  PINCP_DECILE on EDU (scipy's ``linregress``), slope and intercept rounded to 2 decimals, for
  the whole population and for men and women of four race groups (RAC1P 1; 2; 6; 3, 4, 5, 7);
  (0, 0) for a group with fewer than 2 records or a single EDU value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.counts.rows import unique_codes

__all__ = ["CORRELATION_FEATURES", "REGRESSION_GROUPS", "correlation_differences",
           "kendall_tau_b", "pearson", "regressions"]

#: SDNist's correlation features, in the data dictionary's order.
CORRELATION_FEATURES = ("PUMA", "AGEP", "SEX", "MSP", "HISP", "RAC1P", "NOC", "NPF",
                        "HOUSING_TYPE", "OWN_RENT", "DENSITY", "INDP_CAT", "EDU", "PINCP_DECILE",
                        "DVET", "DREM", "DPHY", "DEYE", "DEAR")
#: SDNist's regression groups: name -> (RAC1P codes, SEX) (``None``: everyone).
REGRESSION_GROUPS: dict[str, tuple[tuple[int, ...], int] | None] = {
    "total_population": None,
    "white_men": ((1,), 1), "white_women": ((1,), 2),
    "black_men": ((2,), 1), "black_women": ((2,), 2),
    "asian_men": ((6,), 1), "asian_women": ((6,), 2),
    "aiannh_men": ((3, 4, 5, 7), 1), "aiannh_women": ((3, 4, 5, 7), 2),
}


def kendall_tau_b(x: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of every pair of columns of an integer matrix (k x k), from the pairs'
    contingency tables; NaN for a constant column (as scipy)."""
    n, k = x.shape
    codes = np.empty((n, k), dtype=np.int64)
    levels = np.empty(k, dtype=np.int64)
    for j in range(k):  # one coding per column
        values, codes[:, j] = unique_codes(x[:, j])
        levels[j] = len(values)
    size = int(levels.max())
    first, second = np.triu_indices(k)
    cell = (np.arange(len(first))[None, :] * size + codes[:, first]) * size + codes[:, second]
    table = np.bincount(cell.ravel(), minlength=len(first) * size * size)
    table = table.reshape(len(first), size, size)
    # after[i, j] = records with a larger first value and a larger (below: smaller) second one
    suffix = table[:, ::-1, ::-1].cumsum(axis=1).cumsum(axis=2)[:, ::-1, ::-1]
    larger = np.zeros_like(table)
    larger[:, :-1, :-1] = suffix[:, 1:, 1:]
    prefix = table[:, ::-1, :].cumsum(axis=1)[:, ::-1, :].cumsum(axis=2)
    smaller = np.zeros_like(table)
    smaller[:, :-1, 1:] = prefix[:, 1:, :-1]
    con_minus_dis = (table * (larger - smaller)).sum(axis=(1, 2))
    rows, cols = table.sum(axis=2), table.sum(axis=1)
    total = n * (n - 1) // 2
    x_tie = (rows * (rows - 1) // 2).sum(axis=1)
    y_tie = (cols * (cols - 1) // 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = con_minus_dis / np.sqrt(total - x_tie) / np.sqrt(total - y_tie)  # scipy's order
    out = np.empty((k, k))
    out[first, second] = tau
    out[second, first] = tau
    return out


def pearson(x: np.ndarray) -> np.ndarray:
    """Pearson's r of every pair of columns (k x k); NaN for a constant column."""
    centred = x.astype(float) - x.mean(axis=0)
    cross = np.einsum("ni,nj->ij", centred, centred)  # no BLAS threads: small, and exact order
    norm = np.sqrt(np.diag(cross))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cross / norm[:, None] / norm[None, :]
    return np.clip(r, -1.0, 1.0)


def correlation_differences(x_target: np.ndarray, x_deid: np.ndarray,
                            features: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """SDNist's Kendall and Pearson correlation differences (deidentified minus target) of its
    correlation features the files hold: ``{"kendall": frame, "pearson": frame}``, each
    indexed and headed by the features in the data dictionary's order."""
    names = [f for f in CORRELATION_FEATURES if f in features]
    cols = [features.index(f) for f in names]
    if len(cols) < 2:  # SDNist needs two features
        return {}
    t, s = x_target[:, cols], x_deid[:, cols]
    return {"kendall": pd.DataFrame(kendall_tau_b(s) - kendall_tau_b(t), index=names,
                                    columns=names),
            "pearson": pd.DataFrame(pearson(s) - pearson(t), index=names, columns=names)}


def _line(edu: np.ndarray, decile: np.ndarray) -> list[float]:
    from scipy.stats import linregress

    if len(edu) > 1 and len(np.unique(edu)) > 1:
        fit = linregress(edu, decile)
        return [round(float(fit.slope), 2), round(float(fit.intercept), 2)]
    return [0, 0]


def regressions(c_target: np.ndarray, c_deid: np.ndarray, features: tuple[str, ...]
                ) -> dict[str, dict[str, list[float]]]:
    """SDNist's regression lines of PINCP_DECILE on EDU: group -> ``{"target": [slope,
    intercept], "deidentified": [...]}``, rounded to 2 decimals as SDNist rounds them. Only
    the total population without RAC1P and SEX; nothing without EDU and PINCP_DECILE."""
    if "EDU" not in features or "PINCP_DECILE" not in features:
        return {}
    demographics = "RAC1P" in features and "SEX" in features
    used = [f for f in ("EDU", "PINCP_DECILE", "RAC1P", "SEX") if f in features]
    out: dict[str, dict[str, list[float]]] = {}
    data = {}
    for role, c in (("target", c_target), ("deidentified", c_deid)):
        cols = c[:, [features.index(f) for f in used]]
        data[role] = cols[~np.isinf(cols).any(axis=1)]  # rows with N dropped (SDNist's to_num)
    for name, group in REGRESSION_GROUPS.items():  # nine groups
        if group is not None and not demographics:
            continue
        out[name] = {}
        for role, rows in data.items():
            if group is not None:
                race, sex = group
                rows = rows[np.isin(rows[:, 2], race) & (rows[:, 3] == sex)]
            out[name][role] = _line(rows[:, 0], rows[:, 1])
    return out
