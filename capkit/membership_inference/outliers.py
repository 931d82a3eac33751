"""How far each record lies from its nearest *other* record: the outlier ranking of the
generator audit.

One job: :func:`outlier_distances`, the Gower distance (:mod:`capkit.distance.gower`) from
every record to the closest other record of the same data, computed exactly with the
project's nearest-record search (:func:`capkit.distance.nearest.nearest`). Stadler, Oprisanu
& Troncoso (2022, Sec. 5.2) pick as targets the records farthest from the rest, since a
generator that memorises exposes them most.

The search answers "nearest reference record" and would find each record itself. To exclude
it, the rows are halved recursively: each half is searched against the other half, then each
half within itself; a small block (:data:`LEAF` rows) is finished by the bits of the
positions (any two different positions differ in some bit b, so the nearest other record of
i is the closest, over the bits b, among the rows whose bit b differs from i's). Every pair of
different records is thus compared in some search, no record with itself, about n^2 pairs in
all, and no distance is computed outside the shared search.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.data.labels import is_numeric
from capkit.distance.gower import encode, gower_columns
from capkit.distance.nearest import nearest
from capkit.errors import CapkitError

#: Blocks of at most this many records are finished by the bits of their positions.
LEAF = 2048


def outlier_distances(data: pd.DataFrame, rows: np.ndarray | None = None) -> np.ndarray:
    """Gower distance from each record to its nearest other record (0 for a duplicate).

    Parameters
    ----------
    data
        The records (numeric and categorical columns). Not modified. Missing numeric values
        are scored as the Gower distance's ``missing="level"`` does (0 from another missing
        value, 1 from any number); a constant numeric column counts 0 for every pair (its
        range is set to 1).
    rows
        Positions of the records to compute it for (default: all). For a few rows each is
        searched against every other record by the bits of the positions only.

    Returns
    -------
    numpy.ndarray
        Distances in [0, 1], one per record (or per position of ``rows``), in that order; NaN
        for a single record.
    """
    if not isinstance(data, pd.DataFrame) or len(data) == 0 or data.shape[1] == 0:
        raise CapkitError("data must be a non-empty pandas DataFrame")
    n = len(data)
    if n == 1:
        return np.full(1 if rows is None else len(rows), np.nan)
    constant = {c: 1.0 for c in data.columns
                if is_numeric(data[c]) and not (data[c].max() > data[c].min())}
    spec = gower_columns({"data": data}, ranges=constant, missing="level")
    cat, _, num, _, w_cat = encode(spec, data, data.iloc[:0])
    best = np.full(n, np.inf)
    if rows is None:
        _halve(np.arange(n), cat, num, w_cat, best)
        return best / spec.total_weight
    rows = np.asarray(rows, dtype=np.int64)
    ids = np.arange(n)
    for bit in range(int(np.ceil(np.log2(n)))):
        side = (ids >> bit) & 1 == 1
        for query_side in (True, False):
            query = rows[side[rows] == query_side]
            if len(query):
                _search(query, ids[side != query_side], cat, num, w_cat, best)
    return best[rows] / spec.total_weight


def _search(query: np.ndarray, reference: np.ndarray, cat: np.ndarray, num: np.ndarray,
            w_cat: np.ndarray, best: np.ndarray) -> None:
    found, _ = nearest(cat[query], cat[reference], num[query], num[reference], w_cat)
    best[query] = np.minimum(best[query], found)


def _halve(rows: np.ndarray, cat: np.ndarray, num: np.ndarray, w_cat: np.ndarray,
           best: np.ndarray) -> None:
    """Nearest other record within ``rows``: each half against the other, then each half
    within itself; a block of at most :data:`LEAF` rows by the bits of its positions."""
    if len(rows) <= LEAF:
        ids = np.arange(len(rows))
        for bit in range(int(np.ceil(np.log2(max(len(rows), 2))))):
            side = (ids >> bit) & 1 == 1
            if side.any() and not side.all():
                _search(rows[side], rows[~side], cat, num, w_cat, best)
                _search(rows[~side], rows[side], cat, num, w_cat, best)
        return
    first, second = rows[: len(rows) // 2], rows[len(rows) // 2:]
    _search(first, second, cat, num, w_cat, best)
    _search(second, first, cat, num, w_cat, best)
    _halve(first, cat, num, w_cat, best)
    _halve(second, cat, num, w_cat, best)
