"""A target and a deidentified file read, checked and coded as SDNist 2.4's report codes them.

SDNist's report (NIST CRC, "SDNist v2: Deidentified Data Report Tool", usnistgov/SDNist tag
v2.4.0, ``sdnist/report/dataset/__init__.py: Dataset``) scores a deidentified file against a
target in three versions of both files:

* **C** (validated): every feature a number (``N`` kept apart), ``DENSITY`` replaced by its
  log-scale bin. Here: float arrays with ``N`` as ``+inf`` (so that ``N`` equals ``N`` and
  nothing else), PUMA as its position in the dictionary's PUMA list.
* **X** (transformed, ``transform.py``): integers; ``N`` is -1 (``PINCP``: 9999999,
  ``POVPIP``: 999), PUMA the position of its code among the target's PUMAs (SDNist's schema
  lists them sorted), ``PINCP`` truncated.
* **D** (binned, ``binning.py``): X, except that ``AGEP``, ``POVPIP``, ``PINCP``, ``PWGTP``,
  ``WGTP`` are 20 percentile bins of the target (``int(20 r)`` of the target value's average
  percentile rank ``r``, 19 for ``r = 1``; a deidentified value goes to the first target bin
  whose largest value it does not exceed, past the last one to the last bin, and keeps its own
  value where SDNist's loop leaves it unset) and ``N`` is -1.

Validation differs from SDNist's on one point on purpose: where SDNist drops a feature holding
a value the data dictionary does not allow (and a column with an empty field), capkit raises a
:class:`~capkit.CapkitError` naming the column and the values, so that nothing is scored on
less than the user thinks. Values are truncated to integers as SDNist does (``PINCP`` kept as
a float); the dictionary's minimum and maximum are not checked (SDNist does not check them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.sdnist.dictionary import CODES, DENSITY_MAX, FEATURES, HAS_N, PUMAS, density_bins

__all__ = ["NUMERIC", "Coded", "prepare", "read_file"]

#: The features SDNist bins by the target's percentiles.
NUMERIC = ("AGEP", "POVPIP", "PINCP", "PWGTP", "WGTP")
#: What ``N`` becomes in X, where it is not -1 (``transform.py``).
_X_NULL = {"PINCP": 9999999, "POVPIP": 999}
_IGNORED = ("Unnamed: 0",)  # a written pandas index; SDNist drops it too


@dataclass(frozen=True)
class Coded:
    """Both files in SDNist's three versions, features in SDNist's (alphabetical) order.

    Attributes
    ----------
    features
        The features both files hold, sorted.
    c_target, c_deid
        C versions, float arrays (records x features): ``N`` is ``+inf``, PUMA its position in
        :data:`~capkit.sdnist.dictionary.PUMAS`, DENSITY its bin.
    x_target, x_deid
        X versions (int64).
    d_target, d_deid
        D versions (int64).
    pumas
        The target's PUMA codes, sorted (X's PUMA code is the position in this list; -1 for a
        deidentified record in a PUMA the target does not have).
    """

    features: tuple[str, ...]
    c_target: np.ndarray
    c_deid: np.ndarray
    x_target: np.ndarray
    x_deid: np.ndarray
    d_target: np.ndarray
    d_deid: np.ndarray
    pumas: tuple[str, ...]

    def column(self, name: str) -> int:
        """Position of feature ``name``."""
        return self.features.index(name)


def read_file(source: object, role: str) -> pd.DataFrame:
    """A CSV or Parquet path read as SDNist reads a deidentified file (``pandas.read_csv`` with
    its own type inference), or a DataFrame as it is (not copied, never modified)."""
    if isinstance(source, pd.DataFrame):
        return source
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise CapkitError(f"{role} file {str(source)!r} does not exist")
        name = path.name.lower()
        if name.endswith(".parquet"):
            return pd.read_parquet(path)
        if name.endswith((".csv", ".csv.gz")):
            return pd.read_csv(path)
        raise CapkitError(f"{role} file {str(source)!r} is neither .csv nor .parquet")
    raise CapkitError(f"{role} must be a DataFrame or the path of a CSV/Parquet file, got "
                      f"{type(source).__name__}")


def _check_columns(frame: pd.DataFrame, role: str) -> list[str]:
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        dup = sorted({c for c in names if names.count(c) > 1})
        raise CapkitError(f"{role} data has duplicated columns: {dup}")
    unknown = [c for c in names if c not in FEATURES and c not in _IGNORED]
    if unknown:
        raise CapkitError(f"column {unknown[0]!r} of the {role} data is not in the data "
                          f"dictionary of NIST's Diverse Communities Data Excerpts "
                          f"(features: {', '.join(FEATURES)})")
    if len(frame) == 0:
        raise CapkitError(f"{role} data is empty (0 rows)")
    return [c for c in names if c in FEATURES]


def _bad(values: pd.Series, feature: str, role: str, why: str) -> CapkitError:
    shown = sorted({str(v) for v in values.tolist()})[:5]
    return CapkitError(f"column {feature!r} of the {role} data {why}: {shown}")


def _numbers(series: pd.Series, feature: str, role: str) -> np.ndarray:
    """One feature as C values: floats, ``N`` as +inf, truncated to integers (PINCP apart)."""
    if series.isna().any():
        raise CapkitError(f"column {feature!r} of the {role} data has missing values "
                          f"({int(series.isna().sum())}); SDNist drops such a feature")
    if feature == "PUMA":
        text = series.astype(str)
        unknown = ~text.isin(PUMAS)
        if unknown.any():
            raise _bad(text[unknown], feature, role, "holds codes that are not PUMAs of the "
                       "data dictionary")
        return pd.Categorical(text, categories=list(PUMAS)).codes.astype(float)
    is_n = (series == "N").to_numpy(dtype=bool) if series.dtype == object else \
        np.zeros(len(series), dtype=bool)
    if is_n.any() and feature not in HAS_N:
        raise CapkitError(f"column {feature!r} of the {role} data holds 'N', which the data "
                          f"dictionary does not allow for {feature}")
    rest = series[~is_n]
    numbers = pd.to_numeric(rest, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(numbers)
    if bad.any():
        raise _bad(rest[bad], feature, role, "holds values that are not numbers")
    if feature != "PINCP":
        numbers = np.trunc(numbers)  # SDNist's astype(int)
    if feature in CODES:
        allowed = np.array(sorted(CODES[feature]), dtype=float)
        wrong = ~np.isin(numbers, allowed)
        if wrong.any():
            raise _bad(rest[wrong], feature, role, f"holds codes that are not in the data "
                       f"dictionary (allowed: {sorted(CODES[feature])})")
    out = np.full(len(series), np.inf)
    out[~is_n] = numbers
    return out


def _density_bin(values: np.ndarray, role: str) -> np.ndarray:
    edges, top = density_bins(), DENSITY_MAX + 500
    v = np.where(values < 0, 0.0, values)
    v = np.where(v > top, top - 100, v)
    label = np.searchsorted(edges, v, side="left") - 1  # edges[i] < v <= edges[i + 1]
    if (label < 0).any():
        raise CapkitError(f"column 'DENSITY' of the {role} data holds 0 (or a negative "
                          f"value), which falls in none of SDNist's density bins (SDNist 2.4 "
                          f"fails on it)")
    return label.astype(float)


def _c_version(frame: pd.DataFrame, features: list[str], role: str) -> np.ndarray:
    columns = []
    for f in features:  # one vectorised conversion per feature (24 at most)
        values = _numbers(frame[f], f, role)
        columns.append(_density_bin(values, role) if f == "DENSITY" else values)
    return np.column_stack(columns)


def _x_version(c: np.ndarray, features: tuple[str, ...], puma_codes: np.ndarray) -> np.ndarray:
    x = np.empty(c.shape, dtype=np.int64)
    for j, f in enumerate(features):
        col = c[:, j]
        if f == "PUMA":
            x[:, j] = puma_codes[col.astype(np.int64)]
            continue
        null = _X_NULL.get(f, -1)
        x[:, j] = np.trunc(np.where(np.isinf(col), null, col)).astype(np.int64)
    return x


def _target_bins(values: np.ndarray) -> np.ndarray:
    """``binning.py: percentile_rank_target`` on the non-N values (truncated to integers)."""
    rank = pd.Series(np.trunc(values)).rank(pct=True).to_numpy()
    return np.where(rank < 1, np.floor(20 * rank), 19).astype(np.int64)


def _deid_bins(deid: np.ndarray, target: np.ndarray, target_bin: np.ndarray) -> np.ndarray:
    """``binning.py: percentile_rank_synthetic``: each target bin in increasing order takes the
    deidentified values in (largest value of the bin before, largest value of this bin]; the
    first bin takes everything up to its largest value when it is bin 0 (else from 0, SDNist's
    starting value), the last everything above; values no bin took keep their own value."""
    values = np.trunc(deid).astype(np.int64)
    out = values.copy()
    if len(target_bin) == 0:
        return out
    bins = np.unique(target_bin)
    tops = np.array([np.trunc(target[target_bin == b]).max() for b in bins], dtype=np.int64)
    last = bins[-1]
    lower = np.concatenate([[0], tops[:-1]])  # SDNist's max_b starts at 0
    for b, low, top in zip(bins, lower, tops, strict=True):  # at most 20 bins
        if b == 0:
            take = values <= top
        elif b != last:
            take = (values > low) & (values <= top)
        else:
            take = values > low
        out[take] = b
    return out


def _d_version(c_t: np.ndarray, c_d: np.ndarray, x_t: np.ndarray, x_d: np.ndarray,
               features: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    d_t, d_d = x_t.copy(), x_d.copy()
    for j, f in enumerate(features):
        if f not in NUMERIC:
            continue
        t_ok, s_ok = ~np.isinf(c_t[:, j]), ~np.isinf(c_d[:, j])
        t_bin = _target_bins(c_t[t_ok, j])
        d_t[:, j] = -1
        d_t[t_ok, j] = t_bin
        d_d[:, j] = -1
        d_d[s_ok, j] = _deid_bins(c_d[s_ok, j], c_t[t_ok, j], t_bin)
    return d_t, d_d


def prepare(target: object, deid: object) -> Coded:
    """Read, check and code both files as SDNist's report does.

    Parameters
    ----------
    target, deid
        Paths of CSV/Parquet files or DataFrames (as ``pandas.read_csv`` reads SDNist's files:
        ``N`` as text, numbers as numbers or text). Never modified.

    Raises
    ------
    CapkitError
        A column not in the data dictionary, a value it does not allow (named with its column),
        missing values, no feature in common, an empty file.
    """
    t_frame, d_frame = read_file(target, "target"), read_file(deid, "deidentified")
    t_cols = _check_columns(t_frame, "target")
    d_cols = _check_columns(d_frame, "deidentified")
    features = tuple(sorted(set(t_cols) & set(d_cols)))
    if not features:
        raise CapkitError("the target and deidentified data have no feature in common")
    c_t = _c_version(t_frame, list(features), "target")
    c_d = _c_version(d_frame, list(features), "deidentified")
    pumas: tuple[str, ...] = ()
    puma_codes = np.full(len(PUMAS), -1, dtype=np.int64)
    if "PUMA" in features:
        present = np.unique(c_t[:, features.index("PUMA")].astype(np.int64))
        pumas = tuple(sorted(PUMAS[i] for i in present))
        for position, code in enumerate(pumas):
            puma_codes[PUMAS.index(code)] = position
    x_t, x_d = _x_version(c_t, features, puma_codes), _x_version(c_d, features, puma_codes)
    d_t, d_d = _d_version(c_t, c_d, x_t, x_d, features)
    return Coded(features, c_t, c_d, x_t, x_d, d_t, d_d, pumas)
