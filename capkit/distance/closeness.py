"""Closeness scores of real records to synthetic ones, from nearest-record distances.

The scores PrivEval (Hereditary project, github.com/hereditary-eu/PrivEval, ``Metrics/``) collects
from SynthCity (Qian, Cebere & van der Schaar, "Synthcity: facilitating innovative use cases of
synthetic data in different data modalities", 2023), SynthEval and the avatar paper (Guillaudeux
et al., "Patient-centric synthetic data generation, no reason to risk re-identification in
biomedical data analysis", npj Digital Medicine 2023) are functions of a few arrays of nearest-
record distances. They are written here once, as functions of those arrays; the distances come
from an exact nearest-record search (:func:`capkit.distance.grid_knn.exact_neighbours` for Euclidean
distances, :mod:`capkit.distance.nearest` for Gower's). Notation: ``d_rs[i]`` is the distance of
real record i to its nearest synthetic record, ``d_rr[i]`` to its nearest *other* real record.

* :func:`nearest_neighbour_distance` (NSND): 1 - mean of the min-max normalised ``d_rs``;
* :func:`close_value_probability` (CVP): share of normalised ``d_rs`` below ``threshold``;
* :func:`distant_value_probability` (DVP): 1 - share of normalised ``d_rs`` at or above it;
* :func:`authenticity`: 1 - share of real records closer to another real record than to any
  synthetic one (SynthCity's authenticity, Alaa et al. 2022, "How faithful is your synthetic
  data?", ICML, Section 3);
* :func:`identifiable_share`: share of real records closer to a synthetic record than to any
  other real record (Yoon, Drumright & van der Schaar 2020, ADS-GAN, Definition 1);
* :func:`median_ratio_score`: 1 - sigmoid(median d_rs / median d_rr);
* :func:`mean_dcr_score`: 1 - sigmoid(log10 mean DCR) (1 for a mean of 0);
* :func:`distance_ratio`: d1 / d2 per record (1 where d2 = 0);
* :func:`principal_coordinates`: the first principal components of standardised columns
  (saiph's PCA, the projection of the avatar paper's DCR, NNDR and hidden rate).
"""

from __future__ import annotations

import sys

import numpy as np

from capkit.errors import CapkitError

__all__ = ["authenticity", "close_value_probability", "distance_ratio",
           "distant_value_probability", "identifiable_share", "mean_dcr_score",
           "median_ratio_score", "minmax_normalised", "nearest_neighbour_distance",
           "principal_coordinates"]


def _distances(values: object, name: str) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64).ravel()
    if len(out) == 0:
        raise CapkitError(f"{name} is empty: no records to measure")
    if np.isnan(out).any() or (out < 0).any():
        raise CapkitError(f"{name} must hold distances >= 0 without NaN")
    return out


def _threshold(value: float, name: str) -> float:
    if not np.isfinite(value) or not 0 < value < 1:
        raise CapkitError(f"{name} must be a share of the distance range in (0, 1), "
                          f"got {value!r}")
    return float(value)


def minmax_normalised(d_rs: object) -> np.ndarray | None:
    """(d - min d) / (max d - min d); None when every distance is the same."""
    d = _distances(d_rs, "d_rs")
    lo, hi = d.min(), d.max()
    if hi == lo:
        return None
    return (d - lo) / (hi - lo)


def nearest_neighbour_distance(d_rs: object) -> float:
    """NSND: ``1 - mean_i (d_i - min d) / (max d - min d)``; 0 when all distances are equal
    (PrivEval's ``NearestSynNeighborDistance``, after SynthCity's ``NearestSyntheticNeighbor
    Distance``). Higher: real records nearer their synthetic neighbours than most are."""
    norm = minmax_normalised(d_rs)
    return 0.0 if norm is None else 1.0 - float(np.mean(norm))


def close_value_probability(d_rs: object, threshold: float = 0.2) -> float:
    """CVP: share of real records whose min-max normalised ``d_rs`` is below ``threshold``
    (every record when all distances are equal)."""
    t = _threshold(threshold, "threshold")
    norm = minmax_normalised(d_rs)
    return 1.0 if norm is None else float(np.mean(norm < t))


def distant_value_probability(d_rs: object, threshold: float = 0.8) -> float:
    """DVP: 1 - share of real records whose min-max normalised ``d_rs`` is at or above
    ``threshold`` (1 when all distances are equal)."""
    t = _threshold(threshold, "threshold")
    norm = minmax_normalised(d_rs)
    return 1.0 if norm is None else 1.0 - float(np.mean(norm >= t))


def authenticity(d_rr: object, d_rs: object) -> float:
    """``1 - mean_i 1(d_rr[i] < d_rs[i])``: the share of real records with a synthetic record
    at least as close as their nearest other real record (PrivEval's ``Authenticity``)."""
    rr, rs = _distances(d_rr, "d_rr"), _distances(d_rs, "d_rs")
    if len(rr) != len(rs):
        raise CapkitError(f"d_rr has {len(rr)} records, d_rs {len(rs)}")
    return 1.0 - float(np.mean(rr < rs))


def identifiable_share(d_rr: object, d_rs: object) -> float:
    """``mean_i 1(d_rs[i] < d_rr[i])``: real records strictly closer to a synthetic record than
    to any other real record (Yoon et al. 2020, Definition 1, with the distance given)."""
    rr, rs = _distances(d_rr, "d_rr"), _distances(d_rs, "d_rs")
    if len(rr) != len(rs):
        raise CapkitError(f"d_rr has {len(rr)} records, d_rs {len(rs)}")
    return float(np.mean(rs < rr))


def _sigmoid(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x)))


def median_ratio_score(d_rs: object, d_rr: object) -> float:
    """``1 - sigmoid(median d_rs / median d_rr)``, 0 when the real median is 0 (PrivEval's
    ``MDCR``). In (0, 1/2]: 1/2 for synthetic records on top of the real ones."""
    rs, rr = _distances(d_rs, "d_rs"), _distances(d_rr, "d_rr")
    internal = float(np.median(rr))
    if internal == 0:
        return 0.0
    return 1.0 - _sigmoid(float(np.median(rs)) / internal)


def mean_dcr_score(dcr: object) -> float:
    """``1 - sigmoid(log10 mean DCR)``; 1 for a mean of 0 (PrivEval's ``DCR``)."""
    mean = float(np.mean(_distances(dcr, "dcr")))
    if mean == 0:
        return 1.0
    return 1.0 - _sigmoid(float(np.log10(mean)))


def distance_ratio(d1: object, d2: object) -> np.ndarray:
    """d1 / d2 per record, 1 where d2 = 0 (the avatar paper's NNDR convention)."""
    a, b = _distances(d1, "d1"), _distances(d2, "d2")
    if len(a) != len(b):
        raise CapkitError(f"d1 has {len(a)} records, d2 {len(b)}")
    out = np.ones(len(a))
    ok = b != 0
    out[ok] = a[ok] / b[ok]
    return out


def principal_coordinates(reference: np.ndarray, *others: np.ndarray, components: int = 2,
                          method: str = "exact", seed: int = 0) -> list[np.ndarray]:
    """Coordinates on the first principal axes of the standardised ``reference`` columns.

    As saiph's PCA (``saiph.projection.fit_transform`` on numeric columns; Lê, Josse & Husson,
    FactoMineR): each column centred on its reference mean and divided by its reference
    standard deviation (ddof = 0; a constant column by 1); the axes are the first
    ``components`` right singular vectors of the standardised reference. ``others`` are
    standardised with the reference's mean and deviation and projected on the same axes. The
    sign of an axis is arbitrary, so distances between coordinates are what is defined.

    ``method="randomized"``: the axes of saiph's randomised SVD (Halko, Martinsson & Tropp,
    "Finding structure with randomness", SIAM Review 2011, algorithms 4.4 and 5.1: a Gaussian
    test matrix of ``components`` columns drawn from ``numpy.random.RandomState(seed)``, two
    power iterations, no oversampling), which saiph uses whenever fewer axes than columns are
    kept, unseeded; approximate axes, so the coordinates move with ``seed``.

    Returns
    -------
    list of (n, components) arrays: the reference's coordinates, then each other's.
    """
    ref = np.asarray(reference, dtype=np.float64)
    if ref.ndim != 2 or len(ref) == 0:
        raise CapkitError("reference must be a non-empty 2-d array of numbers")
    if not 1 <= int(components) <= ref.shape[1]:
        raise CapkitError(f"components must be from 1 to {ref.shape[1]}, got {components!r}")
    mean = ref.mean(axis=0)
    std = (ref - mean).std(axis=0)
    std[std <= sys.float_info.min] = 1.0
    z = (ref - mean) / std
    if method == "exact":
        _, _, vt = np.linalg.svd(z, full_matrices=False)
    elif method == "randomized":
        omega = np.random.RandomState(seed).normal(0.0, 1.0, size=(z.shape[1], int(components)))
        q, _ = np.linalg.qr(z @ omega)
        for _ in range(2):
            q_tilde, _ = np.linalg.qr(z.T @ q)
            q, _ = np.linalg.qr(z @ q_tilde)
        _, _, vt = np.linalg.svd(q.T @ z, full_matrices=False)
    else:
        raise CapkitError(f"method must be 'exact' or 'randomized', got {method!r}")
    axes = vt[:int(components)].T
    out = [z @ axes]
    for other in others:
        arr = np.asarray(other, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[1] != ref.shape[1]:
            raise CapkitError(f"a projected table must have {ref.shape[1]} columns, got shape "
                              f"{arr.shape}")
        out.append(((arr - mean) / std) @ axes)
    return out
