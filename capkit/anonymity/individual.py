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

Missing key values: sdcMicro's ``freqCalc`` lets a missing value match any value (a wildcard:
two records match when they agree on every key that both have), so f_k and F_k of a record
count every record it matches. capkit's default counts a missing value as a value of its own
(as everywhere in capkit); ``missing="wildcard"`` counts as sdcMicro does, from the grouped rows
(:func:`wildcard_counts`), so it too needs one ``GROUP BY`` only. sdcMicro's
``method = "exact"`` series is not implemented.
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


def wildcard_counts(keys: pd.DataFrame, records: np.ndarray, weights: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """sdcMicro's frequencies with missing values as wildcards (``freqCalc``, C routine
    ``f2``): for each distinct row t of ``keys`` (one per grouped row, holding ``records[t]``
    records of total weight ``weights[t]``), f(t) and F(t) are the sums over every row u that
    agrees with t on each key column where both have a value.

    Rows are handled by missingness pattern: for two patterns A and B the rows match on the
    columns observed in both, so one merge on those columns per pair of patterns gives all
    matches (a loop over the patterns present, at most 2^keys, never over records or rows).
    """
    observed = keys.notna().to_numpy()
    pattern = observed @ (1 << np.arange(observed.shape[1], dtype=np.int64))
    fk = np.zeros(len(keys), dtype=np.int64)
    Fk = np.zeros(len(keys))  # noqa: N806
    patterns = np.unique(pattern)
    plain = keys.reset_index(drop=True).astype(object)
    for a in patterns:  # patterns of the rows that receive
        rows_a = np.flatnonzero(pattern == a)
        for b in patterns:  # patterns of the rows that are matched
            rows_b = np.flatnonzero(pattern == b)
            common = [c for k, c in enumerate(keys.columns) if (a >> k) & 1 and (b >> k) & 1]
            if not common:
                fk[rows_a] += records[rows_b].sum()
                Fk[rows_a] += weights[rows_b].sum()
                continue
            side_b = plain.iloc[rows_b][common].assign(__n=records[rows_b], __w=weights[rows_b])
            sums = side_b.groupby(common, sort=False)[["__n", "__w"]].sum().reset_index()
            side_a = plain.iloc[rows_a][common].assign(__row=rows_a)
            hit = side_a.merge(sums, on=common, how="inner")
            fk[hit["__row"].to_numpy()] += hit["__n"].to_numpy(dtype=np.int64)
            Fk[hit["__row"].to_numpy()] += hit["__w"].to_numpy(dtype=float)
    return fk, Fk


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
                    missing: str = "value", engine: str | None = None) -> IndividualRisk:
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
    missing
        ``"value"`` (default): a missing key value is a value of its own, as everywhere in
        capkit. ``"wildcard"``: a missing value matches every value, as sdcMicro's
        ``freqCalc`` counts (:func:`wildcard_counts`); ``per_key`` then also gives
        ``records``, the records with exactly that row's values.
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
    if missing not in ("value", "wildcard"):
        raise CapkitError(f"missing must be 'value' or 'wildcard', got {missing!r}")
    grouped = group_rows(data, key_cols, weight=weights, engine=engine)
    frame, n = grouped.frame, grouped.records
    records = frame[COUNT_COLUMN].to_numpy(dtype=np.int64)  # records with exactly these values
    if weights is not None:
        _check_weights(frame, n, weights, population)
        weight_sum = frame[WEIGHT_SUM].to_numpy(dtype=float)
    else:
        if population is not None:
            raise CapkitError("population needs weights (a column of sampling weights)")
        weight_sum = records.astype(float)
    if missing == "wildcard":
        fk, Fk = wildcard_counts(frame[key_cols], records, weight_sum)  # noqa: N806
    else:
        fk, Fk = records, weight_sum  # noqa: N806
    risk = benedetti_franconi(fk, Fk, qual)
    if n > 1 and fk.max() == 1:
        warnings.warn(f"every one of the {n} records is unique on the keys {key_cols}: they act "
                      "as an identifier", IdentifyingKeysWarning, stacklevel=2)
    per_key = frame[key_cols].copy()
    if missing == "wildcard":
        per_key["records"] = records
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
        sample_uniques=int(records[fk == 1].sum()),
        expected_reidentifications=float(np.sum(records * risk)),
        weighted=weights is not None,
    )


def sample_uniques(data: object, keys: object, *, engine: str | None = None) -> int:
    """Number of records whose key (combination of ``keys``) no other record shares."""
    grouped = group_rows(data, column_list(keys, "keys"), engine=engine)
    fk = grouped.frame[COUNT_COLUMN].to_numpy(dtype=np.int64)
    return int((fk == 1).sum())
