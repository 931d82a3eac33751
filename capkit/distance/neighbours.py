"""k nearest *distances* as SynthEval's measures take them: under its Gower distance on jointly
encoded tables (:func:`k_nearest`) or its Euclidean one (:func:`euclidean_k_nearest`), with its
self rule.

How it differs from its siblings in :mod:`capkit.distance`: :mod:`~capkit.distance.nearest` is
the one-nearest-record search this module's Gower case runs k times;
:mod:`~capkit.distance.neighbour_risk` holds the measures computed from these distances;
:mod:`~capkit.distance.mixed_knn` (anonymeter's distance) and :mod:`~capkit.distance.grid_knn`
(Euclidean, exact on a grid) return the neighbours' positions under a tie rule, for the attacks.

The measures of :mod:`capkit.distance.neighbour_risk` (nearest-neighbour distance ratio,
adversarial accuracy, epsilon-identifiability, the median-DCR ratio, the hitting rate) work on
tables encoded once, together (:func:`joint_encode`), and on the first and second nearest
records of one table among another (:func:`k_nearest`), found by the project's one exact search,
:func:`capkit.distance.nearest.nearest` (the k-th neighbour is the nearest one once the first
k - 1 are excluded); up to 2^30 record pairs the same rows and floats come from numpy without the
compiled kernel's start-up, level by level (:mod:`capkit.distance._bylevel`) or, where that
would visit too many pairs, over every pair (:mod:`capkit.distance._brute`).

The Gower distance between encoded records x and y with column weights w is (Gower 1971, as
coded by SynthEval 1.7.3, ``utils/nn_distance.py``)::

    d(x, y) = [ sum_{k numeric} w_k |x_k - y_k|
                + |C| * sum_{k in C} w_k [x_k != y_k] / sum_{k in C} w_k ] / sum_k w_k

With unit weights this is capkit's Gower distance (:mod:`capkit.distance.gower`) on values
scaled to [0, 1]. With other weights the categorical block is renormalised (each categorical
column weighs ``|C| w_k / sum_C w``); ``renormalise=False`` gives the plain weighted mean.
Distances are returned exactly as that formula rounds in float64 (numeric terms summed in
column order, then the categorical term added, then the division), so SynthEval's numbers are
matched to the last bit.

Self rule: when a table is searched against itself, a record is not its own neighbour
(``self_rule="identity"``, capkit's default). SynthEval instead adds 1 to the diagonal of the
distance matrix whenever the two tables are equal *in content* (``np.array_equal``), so a
synthetic table that is a verbatim copy of the real one is treated as "real against itself"
(``self_rule="content"``), and the record itself stays a candidate at distance 1.

SynthEval's ``nn_distance='euclid'`` (:func:`euclidean_k_nearest`) finds neighbours with
scikit-learn's ``NearestNeighbors`` (Minkowski, p = 2, optionally weighted:
sqrt(sum_k w_k (x_k - y_k)^2)); there the squared differences are added column by column in
data order and the square root is taken, which is how scikit-learn's tree search (its choice
for up to 15 columns) rounds each distance, so the distances are SynthEval's to the bit there
(:mod:`capkit.syntheval.euclid`). No BLAS is involved: the numbers do not depend on the machine.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import ThreadpoolController

from capkit.counts.encode import factorize_many
from capkit.distance import _brute, _bylevel
from capkit.distance.nearest import nearest
from capkit.errors import CapkitError

SELF_RULES = ("identity", "content")
#: Pair distances held in memory at once by :func:`euclidean_k_nearest` (rows of ``a`` per
#: block x rows of ``b``).
PAIR_BLOCK = 2**21


@functools.cache
def _threadpools() -> ThreadpoolController:
    """The process's thread pools, found once (finding them reads the loaded libraries)."""
    return ThreadpoolController()


def one_thread() -> object:
    """Context: native thread pools (BLAS, OpenMP) limited to one thread."""
    return _threadpools().limit(limits=1)


def legacy_state(seed: int | np.random.RandomState | None) -> np.random.RandomState:
    """The legacy NumPy random state SynthEval draws from: ``RandomState(seed)`` for an int
    (``numpy.random.seed(seed)`` then SynthEval's call gives the same draws), the state itself
    when one is passed (so that draws flow from one measure to the next), NumPy's global state
    for None (SynthEval's own behaviour)."""
    if seed is None:
        return np.random.mtrand._rand
    if isinstance(seed, np.random.RandomState):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise CapkitError(f"seed must be an integer >= 0, a numpy RandomState or None, got "
                          f"{seed!r}")
    return np.random.RandomState(int(seed))


@dataclass(frozen=True)
class Encoded:
    """One table encoded for the distance: categorical codes and scaled numeric values.

    Attributes
    ----------
    cat
        (n, |C|) int64 codes, the same coding in every table encoded together.
    num
        (n, |N|) float64 values min-max scaled over the tables encoded together.
    """

    cat: np.ndarray
    num: np.ndarray

    def __len__(self) -> int:
        return len(self.cat)

    def rows(self, index: np.ndarray) -> Encoded:
        """The records at positions ``index``, in that order."""
        return Encoded(self.cat[index], self.num[index])

    def equals(self, other: Encoded) -> bool:
        """Same shape and values in the same row order (SynthEval's "content" test)."""
        return (self.cat.shape == other.cat.shape and self.num.shape == other.num.shape
                and np.array_equal(self.cat, other.cat) and np.array_equal(self.num, other.num))


def _values(series: pd.Series) -> pd.Series:
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.astype(series.dtype.categories.dtype)
    return series


def joint_encode(frames: Sequence[pd.DataFrame], categorical: Sequence[str],
                 numeric: Sequence[str]) -> list[Encoded]:
    """Encode several tables together: ordinal codes and min-max scaling over their union.

    Categorical columns: each distinct value of the union gets its rank among the sorted values
    (strings by code point, numbers numerically), as scikit-learn's ``OrdinalEncoder``.
    Numeric columns: lo, hi = min, max of the union; ``x * scale + offset`` with
    scale = 1 / (hi - lo) (1 for a constant column) and offset = -lo * scale, in that order, as
    scikit-learn's ``MinMaxScaler`` (so hi may encode to 1 - 1 ulp).

    Parameters
    ----------
    frames
        Tables holding every column of ``categorical`` and ``numeric``. Not modified.
    categorical, numeric
        Column names; numeric columns must hold numbers without missing values.

    Returns
    -------
    list of Encoded, one per frame, columns in the given orders.
    """
    cats = []
    for column in categorical:
        # by value, whatever the declared category order (as OrdinalEncoder sorts)
        codes, _ = factorize_many([_values(frame[column]) for frame in frames])
        cats.append(codes)
    nums = []
    for column in numeric:
        values = []
        for frame in frames:
            series = frame[column]
            if not pd.api.types.is_numeric_dtype(series) or series.isna().any():
                raise CapkitError(f"numeric column {column!r} must hold numbers without missing "
                                  "values; list it among the categorical columns or impute it")
            values.append(series.to_numpy(dtype=np.float64))
        lo = min(float(v.min()) for v in values)
        hi = max(float(v.max()) for v in values)
        span = hi - lo
        scale = 1.0 if span < 10 * np.finfo(np.float64).eps else 1.0 / span
        offset = 0.0 - lo * scale
        nums.append([v * scale + offset for v in values])
    out = []
    for index, frame in enumerate(frames):
        n = len(frame)
        cat = (np.column_stack([c[index] for c in cats]).astype(np.int64) if cats
               else np.zeros((n, 0), dtype=np.int64))
        num = np.column_stack([c[index] for c in nums]) if nums else np.zeros((n, 0))
        out.append(Encoded(cat, num))
    return out


@dataclass(frozen=True)
class Weights:
    """Column weights of the Gower distance (``None`` entries: all 1)."""

    cat: np.ndarray
    num: np.ndarray
    renormalise: bool = True

    @classmethod
    def unit(cls, table: Encoded) -> Weights:
        return cls(np.ones(table.cat.shape[1]), np.ones(table.num.shape[1]))

    def all_weights(self, order: np.ndarray) -> np.ndarray:
        """The weights in the data's column order (``order``: for each data column, its
        position in ``concat(cat, num)``), for the total sum_k w_k as numpy sums it."""
        return np.concatenate([self.cat, self.num])[order]

    def effective_cat(self) -> np.ndarray:
        """Weight each categorical mismatch adds to the numerator."""
        if self.renormalise and len(self.cat):
            return len(self.cat) * self.cat / self.cat.sum()
        return self.cat


def pair_distance(a: Encoded, b: Encoded, rows: np.ndarray, cols: np.ndarray, weights: Weights,
                  total: float) -> np.ndarray:
    """Gower distance of the record pairs (a[rows], b[cols]), rounded as the formula above."""
    num = np.zeros(len(rows))
    for k in range(a.num.shape[1]):
        num = num + weights.num[k] * np.abs(a.num[rows, k] - b.num[cols, k])
    if a.cat.shape[1]:
        mismatch = np.zeros(len(rows))
        for k in range(a.cat.shape[1]):
            mismatch = mismatch + weights.cat[k] * (a.cat[rows, k] != b.cat[cols, k])
        if weights.renormalise:
            cat = mismatch / weights.cat.sum() * a.cat.shape[1]
        else:
            cat = mismatch
        num = num + cat
    return num / total


def k_nearest(a: Encoded, b: Encoded, k: int, *, weights: Weights | None = None,
              total: float | None = None, self_rule: str = "identity",
              same: bool = False) -> np.ndarray:
    """Distances of each record of ``a`` to its k nearest records of ``b`` (n_a, k), sorted.

    Parameters
    ----------
    a, b
        Tables encoded together (:func:`joint_encode`).
    k
        Number of neighbours (1 or 2 in the measures; ties counted with multiplicity).
    weights, total
        Column weights (default 1) and the denominator sum_k w_k (default their sum).
    self_rule
        ``"identity"``: when ``same`` (``b`` is ``a``), a record is not its own neighbour.
        ``"content"``: SynthEval's rule, applied whenever ``a`` and ``b`` are equal in content:
        the record itself stays a candidate at distance 1 (so a record whose every other
        record is farther than 1 gets 1).
    same
        ``b`` is the same table as ``a`` (for the identity rule).

    Returns
    -------
    (n_a, k) float64 array. ``inf`` where ``b`` has fewer than k candidate records.
    """
    if self_rule not in SELF_RULES:
        raise CapkitError(f"self_rule must be one of {SELF_RULES}, got {self_rule!r}")
    weights = weights or Weights.unit(a)
    if total is None:
        total = float(np.sum(np.concatenate([weights.cat, weights.num])))
    exclude_self = same if self_rule == "identity" else a.equals(b)
    n = len(a)
    excluded = [np.arange(n)] if exclude_self else []
    w_eff = weights.effective_cat()
    keep = w_eff > 0
    num_scale = weights.num
    out = np.full((n, k), np.inf)
    num_a, num_b = a.num * num_scale, b.num * num_scale
    cat_a, cat_b, w_kept = a.cat[:, keep], b.cat[:, keep], w_eff[keep]
    width = min(k, len(b))
    found_k = None
    if len(b) and n * len(b) <= _bylevel.BYLEVEL_PAIRS and _bylevel.usable(num_a, num_b,
                                                                           w_kept):
        # up to tens of thousands of records: the brute force's k rows, level by level in numpy
        found_k = _bylevel.bylevel_k(cat_a, cat_b, num_a, num_b, w_kept,
                                     np.column_stack(excluded) if excluded else None, width)
    if found_k is None and _brute.usable(n, len(b), num_a, num_b, w_kept):
        # small: the k searches below in one pass over the pairs (the same rows)
        found_k = _brute.brute_k(cat_a, cat_b, num_a, num_b, w_kept, None,
                                 np.column_stack(excluded) if excluded else None, width)
    for j in range(width):
        if found_k is not None:
            best, arg = found_k[0][:, j], found_k[1][:, j]
        else:
            exclude = np.column_stack(excluded) if excluded else None
            # one BLAS thread: the level matrices are small products, and threads of a shared
            # machine slow them by several times
            with one_thread():
                best, arg = nearest(cat_a, cat_b, num_a, num_b, w_kept, exclude=exclude)
        found = np.isfinite(best)
        out[found, j] = pair_distance(a, b, np.flatnonzero(found), arg[found], weights, total)
        excluded.append(np.where(found, arg, -1))
    if self_rule == "content" and exclude_self:
        # SynthEval's diagonal: the record itself at distance 0 + 1
        out = np.sort(np.column_stack([out, np.ones(n)]), axis=1)[:, :k]
    return out


def euclidean_k_nearest(a: np.ndarray, b: np.ndarray, k: int, *,
                        weights: np.ndarray | None = None, self_rule: str = "content",
                        same: bool = False) -> np.ndarray:
    """Euclidean distances of each row of ``a`` to its k nearest rows of ``b`` (n_a, k), sorted
    (SynthEval's ``nn_distance='euclid'``, module docstring).

    ``self_rule="content"`` (SynthEval): when ``a`` and ``b`` are equal in content, the first
    (smallest) distance is dropped. ``"identity"``: when ``same``, a row is not its own
    neighbour. ``inf`` where ``b`` has too few rows.
    """
    if self_rule not in ("content", "identity"):
        raise CapkitError(f"self_rule must be 'content' or 'identity', got {self_rule!r}")
    drop_first = self_rule == "content" and a.shape == b.shape and np.array_equal(a, b)
    skip_diagonal = self_rule == "identity" and same
    take = k + 1 if drop_first else k
    n_a, n_b = len(a), len(b)
    out = np.full((n_a, take), np.inf)
    width = min(take, n_b)
    block = max(1, PAIR_BLOCK // max(n_b, 1))
    for start in range(0, n_a, block):
        stop = min(start + block, n_a)
        squared = np.zeros((stop - start, n_b))
        for j in range(a.shape[1]):  # column order, as the tree search adds them
            diff = a[start:stop, j, None] - b[None, :, j]
            squared += diff * diff if weights is None else weights[j] * (diff * diff)
        if skip_diagonal:
            rows = np.arange(start, stop)
            squared[rows - start, rows] = np.inf
        if width:
            part = np.partition(squared, width - 1, axis=1)[:, :width]
            out[start:stop, :width] = np.sqrt(np.sort(part, axis=1))
    return out[:, 1:] if drop_first else out


__all__ = ["PAIR_BLOCK", "SELF_RULES", "Encoded", "Weights", "euclidean_k_nearest",
           "joint_encode", "k_nearest", "legacy_state", "one_thread", "pair_distance"]
