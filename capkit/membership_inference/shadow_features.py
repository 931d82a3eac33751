"""Features of one synthetic data set, for the shadow-modelling meta-classifier.

One job: turn a synthetic frame into a fixed-length vector of numbers that a classifier can
use to guess whether a target record was in the generator's training data. The feature sets
are those of the TAPAS toolbox (Houssiau et al. 2022, ``tapas.attacks.set_classifiers``) after
Stadler, Oprisanu & Troncoso (2022, Sec. 5.1):

* ``"naive"``: mean, median and variance of every column of the one-hot encoded data set
  (numeric columns as they are, each categorical level as a 0/1 column), TAPAS's
  ``NaiveSetFeature``;
* ``"histogram"``: the share of records in each bin of every numeric column (ten bins with
  edges at the deciles of the whole data, plus a bin for missing values) and the share of each
  level of every categorical column (plus values outside the known levels), TAPAS's
  ``HistSetFeature``;
* ``"correlation"``: the Pearson correlations of all pairs of one-hot encoded columns (upper
  triangle; a pair with a constant column counts 0), TAPAS's ``CorrSetFeature``;
* ``"queries"``: for random subsets of the attributes, drawn once per target, the number of
  synthetic records equal to the target on every attribute of the subset, and on all of them
  (Houssiau et al. 2022, "On the Privacy of Synthetic Data", the query-based attack that
  TAPAS reports as the strongest); subset sizes uniform in 1..p.

A missing value (NaN) is its own value: two missing values are equal, the missing share is a
feature of its own, and means, medians and variances are over the values present (0 when
none is). Everything is computed with array operations on the whole synthetic set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.data.labels import is_numeric
from capkit.errors import CapkitError

#: The feature sets :func:`features` knows, in the order their values are concatenated.
FEATURE_SETS: tuple[str, ...] = ("naive", "histogram", "correlation", "queries")
#: Bins of each numeric column's histogram.
BINS = 10


@dataclass(frozen=True)
class FeatureSpec:
    """How a synthetic frame becomes numbers: fixed from the whole data once for all runs.

    Attributes
    ----------
    columns
        The data's columns, in order.
    numeric
        True for a numeric column (:func:`capkit.data.labels.is_numeric`).
    levels
        Per categorical column, its levels in the data (missing values excluded).
    edges
        Per numeric column, the inner bin edges (distinct deciles of the data).
    sets
        The feature sets used, a subset of :data:`FEATURE_SETS` in that order.
    """

    columns: tuple[str, ...]
    numeric: tuple[bool, ...]
    levels: dict[str, np.ndarray]
    edges: dict[str, np.ndarray]
    sets: tuple[str, ...]


def feature_spec(data: pd.DataFrame, sets: Sequence[str] = FEATURE_SETS) -> FeatureSpec:
    """The encoding of :func:`features`, fixed from the whole data (levels, bin edges)."""
    unknown = [s for s in sets if s not in FEATURE_SETS]
    if unknown or not sets:
        raise CapkitError(f"features must be a non-empty subset of {list(FEATURE_SETS)}, "
                          f"got {list(sets)!r}")
    numeric = tuple(is_numeric(data[c]) for c in data.columns)
    levels, edges = {}, {}
    for column, num in zip(data.columns, numeric, strict=True):
        if num:
            values = data[column].to_numpy(dtype=float, na_value=np.nan)
            values = values[~np.isnan(values)]
            inner = (np.quantile(values, np.arange(1, BINS) / BINS) if len(values)
                     else np.empty(0))
            edges[column] = np.unique(inner)
        else:
            levels[column] = _levels(data[column])
    return FeatureSpec(tuple(data.columns), numeric, levels, edges,
                       tuple(s for s in FEATURE_SETS if s in sets))


def _levels(series: pd.Series) -> np.ndarray:
    if isinstance(series.dtype, pd.CategoricalDtype):
        return np.asarray(series.cat.categories, dtype=object)
    return np.asarray(pd.unique(series.dropna()), dtype=object)


def encode(spec: FeatureSpec, frame: pd.DataFrame) -> np.ndarray:
    """(n, p) floats: numeric values, and categorical level codes (-1 for a value outside
    the data's levels, NaN for a missing value)."""
    out = np.empty((len(frame), len(spec.columns)))
    for k, (column, num) in enumerate(zip(spec.columns, spec.numeric, strict=True)):
        series = frame[column]
        if num:
            out[:, k] = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float,
                                                                       na_value=np.nan)
        else:
            out[:, k] = _codes(series, spec.levels[column])
    return out


def _codes(series: pd.Series, levels: np.ndarray) -> np.ndarray:
    """Position of each value among ``levels`` (-1 outside them), NaN where missing."""
    index = pd.Index(levels)
    if isinstance(series.dtype, pd.CategoricalDtype):
        mapping = index.get_indexer(pd.Index(np.asarray(series.cat.categories, dtype=object)))
        raw = series.cat.codes.to_numpy()
        mapping = np.append(mapping, -1)  # raw code -1 (missing) reads the last entry
        codes = mapping[raw].astype(float)
        codes[raw < 0] = np.nan
        return codes
    values = pd.Index(series.to_numpy(dtype=object))
    codes = index.get_indexer(values).astype(float)
    codes[series.isna().to_numpy()] = np.nan
    return codes


def _one_hot(spec: FeatureSpec, coded: np.ndarray) -> np.ndarray:
    """Numeric columns as they are (NaN -> 0, with a missing flag) and 0/1 level columns
    (none set for a missing value or one outside the levels), written into one array."""
    n = len(coded)
    widths = [1 if num else len(spec.levels[column])
              for column, num in zip(spec.columns, spec.numeric, strict=True)]
    out = np.zeros((n, sum(widths) + len(widths)))
    rows = np.arange(n)
    at = 0
    for k, num in enumerate(spec.numeric):
        values = coded[:, k]
        missing = np.isnan(values)
        if num:
            out[:, at] = np.where(missing, 0.0, values)
        else:
            hit = ~missing & (values >= 0)  # a level code 0..L-1 (-1: outside the levels)
            out[rows[hit], at + values[hit].astype(np.int64)] = 1.0
        out[:, at + widths[k]] = missing
        at += widths[k] + 1
    return out


def _naive(hot: np.ndarray) -> np.ndarray:
    return np.concatenate([hot.mean(axis=0), np.median(hot, axis=0), hot.var(axis=0)])


def _histogram(spec: FeatureSpec, coded: np.ndarray) -> np.ndarray:
    n = max(len(coded), 1)
    parts = []
    for k, (column, num) in enumerate(zip(spec.columns, spec.numeric, strict=True)):
        values = coded[:, k]
        missing = np.isnan(values)
        if num:
            edges = spec.edges[column]
            bins = np.searchsorted(edges, values[~missing], side="right")
            counts = np.bincount(bins, minlength=len(edges) + 1)
        else:
            codes = values[~missing].astype(np.int64)
            # level codes 0..L-1, then the values outside the levels (-1) in the last bin
            counts = np.bincount(np.where(codes < 0, len(spec.levels[column]), codes),
                                 minlength=len(spec.levels[column]) + 1)
        parts.append(np.append(counts, missing.sum()) / n)
    return np.concatenate(parts)


def _correlation(hot: np.ndarray) -> np.ndarray:
    centred = hot - hot.mean(axis=0)
    spread = np.sqrt((centred ** 2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = (centred.T @ centred) / np.outer(spread, spread)
    upper = corr[np.triu_indices(hot.shape[1], k=1)]
    return np.where(np.isfinite(upper), upper, 0.0)


def query_masks(p: int, n_queries: int, rng: np.random.Generator) -> np.ndarray:
    """(n_queries + 1, p) 0/1 attribute subsets: random ones (size uniform in 1..p, then the
    attributes uniform without replacement), then all attributes."""
    sizes = rng.integers(1, p + 1, n_queries)
    keys = rng.random((n_queries, p))
    ranks = np.argsort(np.argsort(keys, axis=1, kind="stable"), axis=1, kind="stable")
    masks = (ranks < sizes[:, None]).astype(np.int64)
    return np.vstack([masks, np.ones((1, p), dtype=np.int64)])


def _queries(coded: np.ndarray, target: np.ndarray, masks: np.ndarray) -> np.ndarray:
    equal = (coded == target[None, :]) | (np.isnan(coded) & np.isnan(target)[None, :])
    # (n, queries): attributes of each subset matched; small whole numbers, exact in floats
    hits = equal.astype(np.float64) @ masks.T.astype(np.float64)
    return (hits == masks.sum(axis=1)[None, :]).sum(axis=0).astype(float)


def features(spec: FeatureSpec, frame: pd.DataFrame, target: np.ndarray,
             masks: np.ndarray) -> np.ndarray:
    """The feature vector of one synthetic frame (columns already checked and ordered).

    Parameters
    ----------
    spec
        From :func:`feature_spec`.
    frame
        The synthetic records.
    target
        (p,) the target record as :func:`encode` codes it.
    masks
        From :func:`query_masks` (used by ``"queries"``).
    """
    coded = encode(spec, frame)
    parts = []
    hot = _one_hot(spec, coded) if {"naive", "correlation"} & set(spec.sets) else None
    for name in spec.sets:
        if name == "naive":
            parts.append(_naive(hot))
        elif name == "histogram":
            parts.append(_histogram(spec, coded))
        elif name == "correlation":
            parts.append(_correlation(hot))
        else:
            parts.append(_queries(coded, target, masks))
    return np.concatenate(parts)
