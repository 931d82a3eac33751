"""Two reference syntheses that bracket a real synthesiser's disclosure risk.

* :func:`bootstrap_with_noise`: the original records resampled with replacement, numbers
  perturbed by a little Gaussian noise. Nearly a release of the members: every privacy measure
  should call it risky (the "copy" end of the scale; Stadler, Oprisanu & Troncoso, "Synthetic
  Data - Anonymisation Groundhog Day", USENIX Security 2022, use such near-copies to show what
  an attack detects).
* :func:`independent_columns`: every column resampled on its own, so each marginal is kept and
  every relation between columns is broken. An intruder learns only the marginals: a privacy
  measure should call it safe (the "noise" end of the scale).
* :func:`leaky_release`: a synthesis in which a share of the records is replaced by exact copies
  of members, the calibration series of membership inference (a known, growing leak every
  attack should react to; the "leaky" releases of Stadler et al. and of DOMIAS's experiments,
  van Breugel et al., AISTATS 2023).

Both are seeded (``numpy.random.default_rng(seed)``), keep the columns' dtypes (integers stay
integers, categoricals keep their categories) and never modify their input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.data.labels import is_coded_category, is_numeric
from capkit.errors import CapkitError

__all__ = ["bootstrap_with_noise", "independent_columns", "leaky_release"]


def _check(frame: object, n: int | None) -> int:
    if not isinstance(frame, pd.DataFrame):
        raise CapkitError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if len(frame) == 0:
        raise CapkitError("frame is empty (0 rows)")
    if n is None:
        return len(frame)
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise CapkitError(f"n must be None or a positive integer, got {n!r}")
    return int(n)


def bootstrap_with_noise(frame: pd.DataFrame, *, noise: float = 0.01, seed: int = 0,
                         n: int | None = None) -> pd.DataFrame:
    """Rows drawn with replacement, numeric columns plus N(0, (noise * sd)^2) noise.

    Parameters
    ----------
    frame
        The original records. Not modified.
    noise
        Standard deviation of the noise as a share of each numeric column's standard deviation
        (default 1%). Only measurements are perturbed:

        * a column of codes, **any numeric column with at most**
        :data:`capkit.data.labels.CATEGORY_LEVELS` **(20) distinct values** (missing values
        aside: :func:`capkit.data.labels.is_coded_category`), whatever its dtype, keeps the
        drawn records' values as they are: survey files store categories as numbers, whole
        (1, 2, 3) or not (age classes by their midpoints 17.5, 22, 27), and a perturbed code is
        no code of the original (every exact-match measure would then find nothing, and the
        near-copy would look safe and useless). The attacks treat such a column as a category
        by the same test;
        * the other columns of whole numbers (integer columns, and float columns whose values
        are all whole, such as incomes in whole units beside missing values) are rounded back
        to whole numbers after the noise (with 1% of the standard deviation most values come
        back unchanged: this is meant to be a near-copy).

        The noise is drawn for every numeric column in the columns' order, codes included, so
        the draws of a column do not depend on which other columns are codes.
    seed
        Seed of ``numpy.random.default_rng``.
    n
        Rows to draw (default: as many as ``frame``).

    Returns
    -------
    pandas.DataFrame
        Index 0..n-1, the columns and dtypes of ``frame``.
    """
    size = _check(frame, n)
    if not np.isfinite(noise) or noise < 0:
        raise CapkitError(f"noise must be a number >= 0, got {noise!r}")
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(frame), size)
    out = frame.iloc[rows].reset_index(drop=True)
    for column in out.columns:
        if not is_numeric(frame[column]):
            continue
        original = frame[column].to_numpy(dtype=float, na_value=np.nan)
        spread = float(np.nanstd(original))
        # integers, also stored as floats beside missing values (R's numeric NA), stay whole
        whole = bool(np.all(np.mod(original[~np.isnan(original)], 1) == 0))
        values = original[rows] + rng.normal(0.0, noise * spread if spread > 0 else 0.0, size)
        if is_coded_category(frame[column]):  # a code stays a code (drawn, then left alone)
            continue
        if whole:
            values = np.round(values)
        out[column] = pd.Series(values, index=out.index).astype(frame[column].dtype)
    return out


def independent_columns(frame: pd.DataFrame, *, seed: int = 0, n: int | None = None
                        ) -> pd.DataFrame:
    """Each column drawn with replacement from its own values, independently of the others.

    Parameters
    ----------
    frame
        The original records. Not modified.
    seed
        Seed of ``numpy.random.default_rng``.
    n
        Rows to draw (default: as many as ``frame``).

    Returns
    -------
    pandas.DataFrame
        Index 0..n-1, the columns and dtypes of ``frame``.
    """
    size = _check(frame, n)
    rng = np.random.default_rng(seed)
    return pd.DataFrame({column: frame[column].iloc[rng.integers(0, len(frame), size)]
                         .reset_index(drop=True) for column in frame.columns})


def leaky_release(synthetic: pd.DataFrame, members: pd.DataFrame, share: float, *,
                  seed: int = 0) -> pd.DataFrame:
    """``synthetic`` with a share of its records replaced by exact copies of members.

    Parameters
    ----------
    synthetic
        A synthesis. Not modified.
    members
        The records it was made from (same columns). Not modified.
    share
        Share f in [0, 1] of the synthetic records replaced: round(f x len(synthetic)) of them,
        at positions drawn without replacement, each by a different member drawn without
        replacement (so at most ``len(members)`` records).
    seed
        Seed of ``numpy.random.default_rng``: the positions, then the members.

    Returns
    -------
    pandas.DataFrame
        Index 0..n-1, the columns and dtypes of ``synthetic``.
    """
    _check(synthetic, None)
    _check(members, None)
    if list(members.columns) != list(synthetic.columns):
        raise CapkitError("members and synthetic must have the same columns in the same order")
    if isinstance(share, bool) or not np.isfinite(share) or not 0 <= share <= 1:
        raise CapkitError(f"share must be a number in [0, 1], got {share!r}")
    k = int(round(float(share) * len(synthetic)))
    if k > len(members):
        raise CapkitError(f"share {share} needs {k} distinct members, members has {len(members)}")
    rng = np.random.default_rng(seed)
    where = rng.choice(len(synthetic), k, replace=False)
    which = rng.choice(len(members), k, replace=False)
    out = synthetic.reset_index(drop=True).copy()
    for column in out.columns:
        values = out[column].astype(object).to_numpy()
        values[where] = members[column].astype(object).to_numpy()[which]
        out[column] = pd.Series(values, index=out.index).astype(synthetic[column].dtype)
    return out
