"""The distance and density attacks: one score per scored record, higher = more likely a member.

Notation: x a scored record (member or non-member), G the synthetic records, R the reference
records, d(x, G) = min over g in G of d(x, g).

* DCR: ``-d(x, G)``; DCR-Diff: ``d(x, R) - d(x, G)`` (a record closer to the synthetic data
  than to the population is suspicious).
* GAN-Leaks, full black-box (Chen, Yu, Zhang & Fritz, "GAN-Leaks: A Taxonomy of Membership
  Inference Attacks against Generative Models", CCS 2020, eq. 5 with the reconstruction loss a
  distance): ``exp(-d(x, G))``; calibrated (their section 5.2, the reference set standing in
  for the reference generator, as DOMIAS 0.0.5 does): ``sigma(d(x, R) - d(x, G))``,
  ``sigma(t) = 1 / (1 + exp(-t))``. They rank records exactly as DCR and DCR-Diff do under the
  same distance; they are kept because the literature reports them under these names.
* MC (Hilprecht, Haerterich & Bernau, "Monte Carlo and Reconstruction Membership Inference
  Attacks against Generative Models", PoPETs 2019, eq. 1 with the median heuristic of their
  section 4.1): the share of synthetic records strictly within epsilon of x, epsilon the median
  over the scored records of d(x, G).
* DPI (Ward, Wang & Cheng, "Data Plagiarism Index: Characterizing the Privacy Risk of
  Data-Copying in Tabular Generative Models", KDD GenAI Evaluation workshop 2024): among the k
  nearest records of x in G and R together, the share that are synthetic (rank-equivalent to
  their sigmoid of the synthetic / reference count ratio); records tied at the k-th distance
  count fractionally.
* DOMIAS (van Breugel, Sun, Qian & van der Schaar, AISTATS 2023, eq. 2): the density ratio
  p_G(x) / p_R(x), both Gaussian KDEs (:mod:`capkit.membership_inference.kde`); ``domias_density``
  is p_G(x) alone, their ablation "eq. 1".

Cost (n scored records, m synthetic, r reference records; every search exact, the floats and
counts of a pass over every pair):

* DCR, DCR-Diff, GAN-Leaks (both): one nearest-record search per target set. Gower:
  :func:`capkit.distance.nearest.nearest` (categorical combinations compared once, then each
  record visits the targets of the combinations by increasing level, outwards from its sum of
  numeric values, until that sum and the level put the rest beyond its best; a k-d tree's bound
  first without a categorical column): about (n + m) log m plus the targets within reach;
  every pair only when the records' sums and levels all fall within reach of one another.
  Squared Euclidean: :func:`capkit.distance.squared.squared_min`, a sort on sums
  ((n + m) log m) and the targets within the Cauchy-Schwarz reach of each record's bound.
* MC: the DCR search, then the records inside each ball, searched only for the records whose
  nearest distance is inside (squared) or in the combinations whose level is inside (Gower),
  among the targets whose sum of values is within reach of the radius: about n log m plus the
  ball counts' candidates (the median radius puts about one target in a typical ball).
* DPI: Gower with categorical columns, the combinations by level and each combination's targets
  outwards from the record's sum (the k-th distance falls after a few targets), then those
  within the k-th distance's reach of the sum; squared Euclidean, and Gower without a
  categorical column, a k-d tree's balls (:func:`capkit.distance.squared.knn_share_in_balls`):
  about (n + m + r) log(m + r) plus the ball (k targets and their ties) per record.
* DOMIAS: the density sums over every synthetic (and reference) record for each scored record
  (:mod:`capkit.membership_inference.kde`).
* Classifier: a gradient-boosting fit on m + r records and a prediction per scored record
  (:mod:`capkit.membership_inference.classifier`), linear in each.

Distances: capkit's default is the Gower distance (:mod:`capkit.distance.gower`), numeric
columns scaled by their range over all four frames and categorical columns by mismatch; the
nearest record comes from :func:`capkit.distance.nearest.nearest`. ``compat="domias"`` uses
DOMIAS 0.0.5's squared Euclidean distance on the raw columns (its ``domias/baselines.py``,
vanderschaarlab/DOMIAS on GitHub).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from capkit.distance.nearest import nearest

#: DOMIAS 0.0.5's additive constant in the ratio's denominator (evaluator.py line 307).
DOMIAS_EPSILON = 1e-10


@dataclass(frozen=True)
class Encoded:
    """The scored, synthetic and reference records encoded for one distance.

    For ``kind="gower"``: categorical codes, numeric values scaled by weight / range, the
    categorical weights and the Gower denominator. For ``kind="squared"``: the raw numeric
    values (``num_*``), no categorical part.
    """

    kind: str
    cat_x: np.ndarray
    cat_g: np.ndarray
    cat_r: np.ndarray
    num_x: np.ndarray
    num_g: np.ndarray
    num_r: np.ndarray
    w_cat: np.ndarray
    total_weight: float


def distance_to(enc: Encoded, target: str) -> np.ndarray:
    """d(x, G) (``target="g"``) or d(x, R) for every scored record."""
    cat_t = enc.cat_g if target == "g" else enc.cat_r
    num_t = enc.num_g if target == "g" else enc.num_r
    if enc.kind == "squared":
        from capkit.distance import squared  # numpy only

        return squared.squared_min(enc.num_x, num_t)
    best, _ = nearest(enc.cat_x, cat_t, enc.num_x, num_t, enc.w_cat)
    return best / enc.total_weight


def logistic(t: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-t)); 0.0 where exp(-t) overflows, as in numpy."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-t))


def mc(enc: Encoded, d_g: np.ndarray) -> tuple[np.ndarray, float]:
    """MC scores and the epsilon (median of d(x, G) over the scored records)."""
    epsilon = float(np.median(d_g))
    if enc.kind == "squared":
        from capkit.distance import squared  # numpy only

        counts = squared.squared_ball_counts(enc.num_x, enc.num_g, epsilon, nearest=d_g)
    else:
        from capkit.distance import radius  # numba: imported when used

        counts = radius.gower_ball_counts(enc.cat_x, enc.num_x, enc.cat_g, enc.num_g,
                                          enc.w_cat, enc.total_weight, epsilon)
    return counts / len(enc.num_g), epsilon


def dpi(enc: Encoded, k: int) -> np.ndarray:
    """Share of synthetic records among the k nearest of G and R together."""
    is_syn = np.r_[np.ones(len(enc.num_g), bool), np.zeros(len(enc.num_r), bool)]
    k = min(k, len(is_syn))
    num_t = np.concatenate([enc.num_g, enc.num_r])
    if enc.kind == "squared":
        from capkit.distance import squared  # numpy only

        return squared.squared_knn_share(enc.num_x, num_t, is_syn, k)
    cat_t = np.concatenate([enc.cat_g, enc.cat_r])
    from capkit.distance import radius  # numba: imported when used

    return radius.gower_knn_share(enc.cat_x, enc.num_x, cat_t, num_t, enc.w_cat, is_syn, k)


def domias(x: np.ndarray, g: np.ndarray, r: np.ndarray | None, *, compat: bool
           ) -> tuple[np.ndarray, np.ndarray | None, dict]:
    """(``domias_density``, ``domias``, details) on the density's columns.

    capkit: log p_G(x) and log p_G(x) - log p_R(x), computed without underflow (scale-free:
    the Jacobian of any change of units cancels in the ratio). ``compat``: DOMIAS 0.0.5's
    p_G(x) and p_G(x) / (p_R(x) + 1e-10).
    """
    from capkit.membership_inference import kde  # numba, scipy.stats: imported when used

    kg = kde.fit(g, name="synthetic")
    details = {"synthetic": kg}
    if compat:
        p_g = kde.density(kg, x)
        if r is None:
            return p_g, None, details
        kr, p_r = _reference_density(x, r, compat)
        details["reference"] = kr
        return p_g, p_g / (p_r + DOMIAS_EPSILON), details
    log_g = kde.log_density(kg, x)
    if r is None:
        return log_g, None, details
    kr, log_r = _reference_density(x, r, compat)
    details["reference"] = kr
    return log_g, log_g - log_r, details


#: How many reference densities are kept (the most recent), each under a digest of its inputs.
REMEMBERED = 2  # each holds the reference and one density per scored record
_REFERENCE: list[tuple[bytes, tuple]] = []


def _reference_density(x: np.ndarray, r: np.ndarray, compat: bool) -> tuple:
    """The reference's kernel and p_R(x) (``compat``) or log p_R(x), or the kept ones of a
    call on equal ``x`` and ``r`` (equal SHA-256 digests): the reference and the scored records
    do not change with the release, so the releases of one data set compared in turn (as a
    study of several generators does) fit and sum the reference's density once."""
    from capkit.membership_inference import kde

    h = hashlib.sha256(repr(bool(compat)).encode())
    for a in (x, r):
        a = np.ascontiguousarray(a)
        h.update(repr((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    digest = h.digest()
    for at, (kept, found) in enumerate(_REFERENCE):
        if kept == digest:
            _REFERENCE.append(_REFERENCE.pop(at))  # the most recent last
            return found
    kr = kde.fit(r, name="reference")
    value = kde.density(kr, x) if compat else kde.log_density(kr, x)
    value.flags.writeable = False
    _REFERENCE.append((digest, (kr, value)))
    del _REFERENCE[:-REMEMBERED]
    return kr, value


__all__ = ["DOMIAS_EPSILON", "Encoded", "distance_to", "domias", "dpi", "logistic", "mc"]
