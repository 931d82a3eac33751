"""Record-level re-identification risk of a sample: sample uniques, the individual risk of
Benedetti & Franconi as sdcMicro's ``indivRisk`` computes it, and the expected number of
re-identifications.

The model (Benedetti & Franconi 1998, "Statistical and technological solutions for controlled
data dissemination"; Franconi & Polettini 2004, "Individual risk estimation in mu-Argus: a
review", PSD 2004, LNCS 3050, pp. 262-272), in capkit's words. Group the n sample records by
their key (the values of the key variables an intruder knows). For a key k let

- f_k be the number of sample records with that key (the sample frequency), and
- F_k the sum of their sampling weights, an estimate of the number of people in the population
  who share the key.

The intruder who knows a sample record's key picks one of the population's F_k look-alikes;
under the model the population frequency given the sample one follows a negative binomial with
success probability p_k = f_k / F_k, and the individual risk r_k is the expected value of
1 / (population frequency). sdcMicro (``R/indivRisk.R``, ``method = "approx"``, its default,
and ``measure_risk``, which uses it) evaluates it as

- f_k = 1: r_k = p_k / (1 - p_k) * ln(1 / p_k);
- f_k = 2: r_k = p_k / (1 - p_k) - (p_k / (1 - p_k))^2 * ln(1 / p_k);
- f_k > 2: r_k = p_k / (f_k - (1 - p_k)) (the approximation of the series);
- where F_k = f_k (weights 1: the sample is the population, or no weights): r_k = 1 / f_k;

each multiplied by a correction factor ``qual`` (1 by default). Without weights sdcMicro's
``survey = FALSE`` gives r_k = 1 / f_k: the same as F_k = f_k. Every record of key k has risk
r_k; the *expected number of re-identifications* is the sum of the records' risks,
ER = sum_k f_k r_k (sdcMicro's ``global_risk_ER``), and the *global risk* ER / n
(``global_risk``). *Sample uniques* are the records with f_k = 1.

Differences from sdcMicro, stated: sdcMicro's ``freqCalc`` lets a missing key value match any
value (a wildcard, its ``alpha = 1``); capkit counts a missing value as a value of its own, so
that the count is one ``GROUP BY``. sdcMicro's ``method = "exact"`` series is not implemented.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.anonymity.classes import IdentifyingKeysWarning, column_list
from capkit.counts.engines import COUNT_COLUMN
from capkit.counts.groups import (
    WEIGHT_MAX,
    WEIGHT_MIN,
    WEIGHT_MISSING,
    WEIGHT_SUM,
    group_rows,
)
from capkit.errors import CapkitError

#: Relative tolerance between the weights' total and a stated ``population``.
POPULATION_TOLERANCE = 0.01


@dataclass(frozen=True)
class IndividualRisk:
    """Re-identification risk of the records of a sample (see the module note).

    Attributes
    ----------
    per_key
        One row per key in the sample: the key columns, ``fk`` (sample frequency), ``Fk``
        (sum of weights; ``fk`` without weights) and ``risk`` (r_k).
    record_risk
        Each record's risk r_k, indexed like the data (pandas engine only; ``None`` when DuckDB
        or Spark counted, since records never come back to Python).
    records
        n, the number of records.
    sample_uniques
        Number of records alone with their key (f_k = 1).
    expected_reidentifications
        ER = sum over records of r_k (sdcMicro's ``global_risk_ER``).
    weighted
        Whether sampling weights were used.
    """

    per_key: pd.DataFrame
    record_risk: pd.Series | None
    records: int
    sample_uniques: int
    expected_reidentifications: float
    weighted: bool

    @property
    def global_risk(self) -> float:
        """ER / n, the expected share of records re-identified (sdcMicro's ``global_risk``)."""
        return self.expected_reidentifications / self.records

    @property
    def max_risk(self) -> float:
        """The largest individual risk."""
        return float(self.per_key["risk"].max())


def benedetti_franconi(fk: np.ndarray, Fk: np.ndarray, qual: float = 1.0) -> np.ndarray:  # noqa: N803
    """Individual risk r_k from sample frequencies ``fk`` and weight sums ``Fk`` (arrays), as
    sdcMicro's ``indivRisk(method = "approx")`` (formulas in the module note).

    Raises :class:`CapkitError` when some F_k < f_k (a share p_k above 1: weights below 1)."""
    fk = np.asarray(fk, dtype=float)
    Fk = np.asarray(Fk, dtype=float)  # noqa: N806
    if (fk < 1).any():
        raise CapkitError("fk: every sample frequency must be at least 1")
    if (Fk < fk).any():
        raise CapkitError("weights: some key's weights sum to less than its number of records "
                          "(F_k < f_k), so p_k = f_k / F_k exceeds 1: sampling weights are at "
                          "least 1 (the inverse of an inclusion probability)")
    pk = fk / Fk
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = pk / (1 - pk)
        log_inv = np.log(1 / pk)
        risk = np.where(
            fk == 1, odds * log_inv,
            np.where(fk == 2, odds - odds**2 * log_inv, pk / (fk - (1 - pk))))
    risk = np.where(fk == Fk, 1 / fk, risk)
    return risk * qual


def _check_weights(frame: pd.DataFrame, n: int, weights: str, population: float | None) -> None:
    missing = int(frame[WEIGHT_MISSING].sum())
    if missing:
        raise CapkitError(f"weights column {weights!r} has {missing} missing value(s): every "
                          "record needs a sampling weight")
    low, high = float(frame[WEIGHT_MIN].min()), float(frame[WEIGHT_MAX].max())
    if not low > 0:
        raise CapkitError(f"weights column {weights!r} has a weight <= 0 (smallest {low!r}): "
                          "sampling weights are positive")
    if not np.isfinite(high):
        raise CapkitError(f"weights column {weights!r} has an infinite weight")
    total = float(frame[WEIGHT_SUM].sum())
    if total < n:
        raise CapkitError(f"weights column {weights!r} sums to {total:g}, fewer than the {n} "
                          "records: not a plausible population (weights estimate how many "
                          "people each record stands for, at least itself)")
    if population is not None:
        if not population >= n:
            raise CapkitError(f"population must be at least the number of records ({n}), got "
                              f"{population!r}")
        if abs(total - population) > POPULATION_TOLERANCE * population:
            raise CapkitError(f"weights column {weights!r} sums to {total:g}, not to the stated "
                              f"population {population:g} (tolerance "
                              f"{POPULATION_TOLERANCE:.0%})")


def individual_risk(data: object, keys: object, weights: str | None = None, *,
                    population: float | None = None, qual: float = 1.0,
                    engine: str | None = None) -> IndividualRisk:
    """Sample uniques, individual risk and expected re-identifications of a sample.

    Parameters
    ----------
    data
        The sample: a pandas DataFrame, a Parquet/CSV path or glob or DuckDB relation (counted
        by DuckDB, one ``GROUP BY``) or a PySpark DataFrame (counted by Spark). Never modified.
    keys
        The key variables (quasi-identifiers) an intruder knows.
    weights
        Column of sampling weights (how many population members each record stands for).
        Without it the sample is taken as the population: r_k = 1 / f_k.
    population
        Optional size of the population; the weights must sum to it within 1%.
    qual
        sdcMicro's final correction factor (multiplies every risk).
    engine
        ``"pandas"``, ``"duckdb"``, ``"spark"`` or ``None`` (from the input).

    Returns
    -------
    IndividualRisk

    Raises
    ------
    CapkitError
        A missing column; weights that are missing, not positive, infinite, sum to fewer than
        the records or to other than ``population``, or give a key F_k < f_k.

    Warns
    -----
    IdentifyingKeysWarning
        When every record is unique on the keys (they act as an identifier).

    Examples
    --------
    Three records share a key, one is alone; weights 10 each:

    >>> import pandas as pd
    >>> from capkit.anonymity import individual_risk
    >>> df = pd.DataFrame({"sex": ["f", "f", "f", "m"], "w": [10.0] * 4})
    >>> r = individual_risk(df, ["sex"], "w")
    >>> r.sample_uniques, round(r.expected_reidentifications, 6)
    (1, 0.3987)
    """
    key_cols = column_list(keys, "keys")
    if not (isinstance(qual, int | float) and qual > 0):
        raise CapkitError(f"qual must be a positive number, got {qual!r}")
    grouped = group_rows(data, key_cols, weight=weights, engine=engine)
    frame, n = grouped.frame, grouped.records
    fk = frame[COUNT_COLUMN].to_numpy(dtype=np.int64)
    if weights is not None:
        _check_weights(frame, n, weights, population)
        Fk = frame[WEIGHT_SUM].to_numpy(dtype=float)  # noqa: N806
    else:
        if population is not None:
            raise CapkitError("population needs weights (a column of sampling weights)")
        Fk = fk.astype(float)  # noqa: N806
    risk = benedetti_franconi(fk, Fk, qual)
    if n > 1 and fk.max() == 1:
        warnings.warn(f"every one of the {n} records is unique on the keys {key_cols}: they act "
                      "as an identifier", IdentifyingKeysWarning, stacklevel=2)
    per_key = frame[key_cols].copy()
    per_key["fk"] = fk
    per_key["Fk"] = Fk
    per_key["risk"] = risk
    record_risk = None
    if grouped.record_group is not None and isinstance(data, pd.DataFrame):
        record_risk = pd.Series(risk[grouped.record_group], index=data.index, name="risk")
    return IndividualRisk(
        per_key=per_key,
        record_risk=record_risk,
        records=n,
        sample_uniques=int(fk[fk == 1].sum()),
        expected_reidentifications=float(np.sum(fk * risk)),
        weighted=weights is not None,
    )


def sample_uniques(data: object, keys: object, *, engine: str | None = None) -> int:
    """Number of records whose key (combination of ``keys``) no other record shares."""
    grouped = group_rows(data, column_list(keys, "keys"), engine=engine)
    fk = grouped.frame[COUNT_COLUMN].to_numpy(dtype=np.int64)
    return int((fk == 1).sum())
