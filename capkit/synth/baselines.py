"""Two reference synthesisers for checking a disclosure report: one that leaks, one that cannot.

* :func:`bootstrap_noise`: a row bootstrap of the original records with a little noise on the
  numeric columns, the worst a "synthesiser" can do short of publishing the data: every
  synthetic record is a near-copy of an original record.
* :func:`independent_columns`: every column sampled on its own from its marginal distribution,
  so no synthetic record carries any relation between columns of an original record: nothing
  can be disclosed about a member beyond what the marginals tell about anyone.

A measure (or a report) that does not flag the first, or flags the second, is wrong. Both are
seeded, vectorised, and leave their input unchanged.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from capkit.errors import CapkitError


def _check(data: object, k: int | None, seed: object) -> int:
    if not isinstance(data, pd.DataFrame) or data.empty:
        raise CapkitError("data must be a non-empty pandas DataFrame")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise CapkitError(f"seed must be an integer, got {seed!r}")
    size = len(data) if k is None else k
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
        raise CapkitError(f"k must be a positive integer (records to draw), got {k!r}")
    return int(size)


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype)


def bootstrap_noise(data: pd.DataFrame, *, seed: int = 0, noise: float = 0.01,
                    k: int | None = None) -> pd.DataFrame:
    """Original records drawn with replacement, numeric columns with Gaussian noise added.

    Each numeric column x gets ``noise * sd(x) * Z`` (Z standard normal, one draw per cell);
    an integer column is rounded back to integers (so a small noise often leaves it exact);
    missing values stay missing; other columns are copied unchanged.

    Parameters
    ----------
    data
        The original records. Not modified.
    seed
        Seed of ``numpy.random.default_rng``.
    noise
        Noise standard deviation as a share of each column's standard deviation (0.01: 1%).
    k
        Records to draw (default: as many as ``data``).

    Returns
    -------
    pandas.DataFrame
        ``k`` records with the columns and dtypes of ``data``, index 0..k-1.
    """
    size = _check(data, k, seed)
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real) or not noise >= 0:
        raise CapkitError(f"noise must be a number >= 0, got {noise!r}")
    rng = np.random.default_rng(int(seed))
    rows = rng.integers(0, len(data), size=size)
    out = data.iloc[rows].reset_index(drop=True)
    for column in out.columns:
        series = out[column]
        if not _numeric(series):
            continue
        values = series.to_numpy(dtype=float, na_value=np.nan)
        spread = float(np.nanstd(data[column].to_numpy(dtype=float, na_value=np.nan)))
        noisy = values + noise * (spread if np.isfinite(spread) else 0.0) * \
            rng.standard_normal(size)
        if pd.api.types.is_integer_dtype(series.dtype):
            noisy = np.round(noisy)
            if series.isna().any():
                out[column] = pd.array(noisy, dtype=series.dtype)
                continue
        out[column] = noisy.astype(series.dtype) if not np.isnan(noisy).any() else noisy
    return out


def independent_columns(data: pd.DataFrame, *, seed: int = 0, k: int | None = None
                        ) -> pd.DataFrame:
    """Every column drawn with replacement from its own values, independently of the others.

    Parameters
    ----------
    data
        The original records. Not modified.
    seed
        Seed of ``numpy.random.default_rng``.
    k
        Records to draw (default: as many as ``data``).

    Returns
    -------
    pandas.DataFrame
        ``k`` records with the columns and dtypes of ``data`` (missing values drawn at their
        own rate), index 0..k-1; the marginal distributions are those of ``data`` up to
        sampling noise, every relation between columns is gone.
    """
    size = _check(data, k, seed)
    rng = np.random.default_rng(int(seed))
    rows = rng.integers(0, len(data), size=(size, data.shape[1]))
    return pd.DataFrame({c: data[c].iloc[rows[:, j]].reset_index(drop=True)
                         for j, c in enumerate(data.columns)})


__all__ = ["bootstrap_noise", "independent_columns"]
