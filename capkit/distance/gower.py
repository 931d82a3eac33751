"""Gower distance: the columns, weights and ranges it uses, and its full matrix (small data).

Minieri, "Synthetic data for privacy preservation - Part 2" (2022): between records i and
j over p columns with weights w_k::

    D_ij = sum_k w_k d_ijk / sum_k w_k,
    d_ijk = 0 if x_ik == x_jk else 1          (categorical column k)
    d_ijk = |x_ik - x_jk| / R_k               (numeric column k, R_k its range)

0 means identical records. It lies in [0, 1] when every numeric value lies within the range
R_k was taken from; a value beyond it (a synthetic value outside the reference's range) makes
d_ijk larger than 1, and the distance can then exceed 1. It is not clipped: the farther a
value lies outside, the farther the record (as in Minieri's definition and SynthEval's DCR,
which capkit reproduces). R_k is the range (max - min) of column k in the
*reference* data (:func:`capkit.distance.dcr`) or in training and holdout together
(:func:`capkit.distance.holdout_comparison`), unless ``ranges`` gives it. Categorical means any
non-numeric column (text, pandas categorical, boolean); a missing categorical value is a level of
its own. Missing numeric values are refused by default (impute them or make the column
categorical); ``missing="level"`` scores a numeric column as a categorical one does its missing
values: d_ijk = 0 when both values are missing, 1 (the largest difference) when one is, and
|x_ik - x_jk| / R_k otherwise, R_k over the values present.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.counts.encode import factorize_pair
from capkit.data.align import column_difference
from capkit.data.labels import is_numeric
from capkit.errors import CapkitError


@dataclass(frozen=True)
class GowerColumns:
    """Which columns enter the Gower distance, how, and with which weight and range."""

    categorical: tuple[str, ...]
    numeric: tuple[str, ...]
    weights: dict[str, float]
    ranges: dict[str, float]
    #: numeric columns with missing values scored as a level (``missing="level"``)
    missing_level: tuple[str, ...] = ()

    @property
    def total_weight(self) -> float:
        """sum_k w_k, the denominator of the Gower distance."""
        return float(sum(self.weights.values()))


def _check_frame(frame: object, name: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    if frame.shape[0] == 0:
        raise CapkitError(f"{name} is empty (0 rows)")
    if frame.columns.duplicated().any():
        raise CapkitError(f"{name} has duplicated column names")
    return frame


def gower_columns(
    frames: Mapping[str, pd.DataFrame],
    *,
    columns: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    ranges: Mapping[str, float] | None = None,
    range_from: Sequence[str] | None = None,
    missing: str = "refuse",
) -> GowerColumns:
    """Validate frames for a Gower distance and fix its columns, weights and ranges.

    Parameters
    ----------
    frames
        ``{"synthetic": ..., "reference": ...}`` (names are used in error messages). All must
        hold the same columns (order free) with the same kind (numeric or categorical).
    columns
        Columns to use (default: all columns of the first frame).
    weights
        ``{column: w_k}``, w_k >= 0 (default 1 for every column; missing columns get 1).
    ranges
        ``{column: R_k}`` for numeric columns, overriding the computed range.
    range_from
        Names of the frames whose values define R_k = max - min (default: the last frame).
    missing
        Missing numeric values: ``"refuse"`` (an error, the default) or ``"level"`` (0 between
        two missing values, 1 between a missing and a present one; see the module docstring).

    Raises
    ------
    CapkitError
        Naming the frame and column: a missing or extra column, a column numeric in one frame and
        categorical in another, missing numeric values, a numeric column with zero range, a
        negative weight, an empty frame.
    """
    if missing not in ("refuse", "level"):
        raise CapkitError(f"missing must be 'refuse' or 'level', got {missing!r}")
    names = list(frames)
    for name in names:
        _check_frame(frames[name], name)
    first = frames[names[0]]
    if columns is None:
        for name in names[1:]:
            frame = frames[name]
            absent, extra = column_difference(first, frame)
            if absent or extra:
                raise CapkitError(
                    f"{names[0]} and {name} must have the same columns: missing from {name} "
                    f"{absent}, only in {name} {extra}"
                )
        columns = list(first.columns)
    columns = list(columns)
    if not columns:
        raise CapkitError("columns is empty: give at least one column")
    categorical, numeric = [], []
    for column in columns:
        kinds = {}
        for name in names:
            if column not in frames[name].columns:
                raise CapkitError(f"column {column!r} is missing from {name}")
            kinds[name] = is_numeric(frames[name][column])
        if len(set(kinds.values())) > 1:
            desc = ", ".join(f"{'numeric' if v else 'categorical'} in {k}"
                             for k, v in kinds.items())
            raise CapkitError(f"column {column!r} has different kinds: {desc}; convert it first")
        (numeric if kinds[names[0]] else categorical).append(column)

    weights = dict(weights or {})
    unknown = [c for c in weights if c not in columns]
    if unknown:
        raise CapkitError(f"weights name columns that are not used: {unknown}")
    full_weights = {c: float(weights.get(c, 1.0)) for c in columns}
    bad = [c for c, w in full_weights.items() if not np.isfinite(w) or w < 0]
    if bad:
        raise CapkitError(f"weight of column {bad[0]!r} must be a finite number >= 0")
    if sum(full_weights.values()) <= 0:
        raise CapkitError("weights sum to 0; at least one column needs a positive weight")

    missing_level = []
    for column in numeric:
        for name in names:
            if frames[name][column].isna().any():
                if missing == "level":
                    missing_level.append(column)
                    break
                raise CapkitError(
                    f"numeric column {column!r} has missing values in {name}; the Gower distance "
                    "needs them imputed, or make the column categorical, or pass "
                    "missing='level' (a missing value is 1 away from any number)"
                )
    given = dict(ranges or {})
    range_names = list(range_from) if range_from is not None else [names[-1]]
    full_ranges: dict[str, float] = {}
    for column in numeric:
        if column in given:
            value = float(given[column])
        else:
            values = pd.concat([frames[n][column] for n in range_names], ignore_index=True)
            value = float(values.max()) - float(values.min())
        if not np.isfinite(value) or value <= 0:
            raise CapkitError(
                f"numeric column {column!r} has zero range in {' and '.join(range_names)}; "
                "drop it, make it categorical or give its range in ranges"
            )
        full_ranges[column] = value
    return GowerColumns(tuple(categorical), tuple(numeric), full_weights, full_ranges,
                        tuple(missing_level))


def encode(
    spec: GowerColumns, x: pd.DataFrame, y: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Categorical codes (n x pc, m x pc), weighted-scaled numerics, categorical weights.

    Columns of weight 0 are left out (they do not change the distance). A numeric column of
    ``spec.missing_level`` also gets a categorical column "is missing" of its weight, and keeps
    its NaNs: :func:`capkit.distance.nearest.nearest` (and :func:`gower_matrix`) score a NaN
    numeric term as 0, so two missing values are 0 apart and a missing and a present one are
    w_k apart.
    """
    categorical = [c for c in spec.categorical if spec.weights[c] > 0]
    numeric = [c for c in spec.numeric if spec.weights[c] > 0]
    cat_x = np.zeros((len(x), len(categorical)), dtype=np.int64)
    cat_y = np.zeros((len(y), len(categorical)), dtype=np.int64)
    for k, column in enumerate(categorical):
        cat_x[:, k], cat_y[:, k], _ = factorize_pair(x[column], y[column])
    scale = np.array([spec.weights[c] / spec.ranges[c] for c in numeric])
    num_x = np.zeros((len(x), len(numeric)))
    num_y = np.zeros((len(y), len(numeric)))
    for k, column in enumerate(numeric):
        num_x[:, k] = x[column].to_numpy(dtype=np.float64, na_value=np.nan) * scale[k]
        num_y[:, k] = y[column].to_numpy(dtype=np.float64, na_value=np.nan) * scale[k]
    flagged = [c for c in spec.missing_level if spec.weights[c] > 0]
    if flagged:
        at = [numeric.index(c) for c in flagged]
        cat_x = np.column_stack([cat_x, np.isnan(num_x[:, at]).astype(np.int64)])
        cat_y = np.column_stack([cat_y, np.isnan(num_y[:, at]).astype(np.int64)])
    w_cat = np.array([spec.weights[c] for c in categorical + flagged], dtype=np.float64)
    return cat_x, cat_y, num_x, num_y, w_cat


def gower_matrix(
    x: pd.DataFrame,
    y: pd.DataFrame,
    *,
    weights: Mapping[str, float] | None = None,
    ranges: Mapping[str, float] | None = None,
    max_cells: int = 50_000_000,
    missing: str = "refuse",
) -> np.ndarray:
    """Full Gower distance matrix between the rows of ``x`` and of ``y`` (small data only).

    R_k is the range in ``y`` unless ``ranges`` gives it; ``missing`` as in
    :func:`gower_columns`. For a DCR on large data use :func:`dcr`, which never builds this
    matrix.

    Returns
    -------
    (len(x), len(y)) float64 array.
    """
    spec = gower_columns({"x": x, "y": y}, weights=weights, ranges=ranges, missing=missing)
    if len(x) * len(y) > max_cells:
        raise CapkitError(
            f"gower_matrix would hold {len(x) * len(y):,} cells (> max_cells); use dcr()"
        )
    cat_x, cat_y, num_x, num_y, w_cat = encode(spec, x, y)
    total = np.zeros((len(x), len(y)))
    for k in range(cat_x.shape[1]):
        total += w_cat[k] * (cat_x[:, k][:, None] != cat_y[:, k][None, :])
    for k in range(num_x.shape[1]):
        total += np.fmax(np.abs(num_x[:, k][:, None] - num_y[:, k][None, :]), 0.0)  # NaN: 0
    return total / spec.total_weight


__all__ = ["GowerColumns", "encode", "gower_columns", "gower_matrix"]
