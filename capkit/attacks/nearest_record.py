"""The nearest synthetic record of each key combination under anonymeter's mixed-type distance.

anonymeter's inference attack (Giomi et al. 2022, "A Unified Framework for Quantifying Privacy
Risk in Synthetic Data", PoPETs 2023; its ``InferenceEvaluator``) guesses a target record's
secret as the secret of its single nearest synthetic record on the auxiliary columns. The
distance is anonymeter's (:mod:`capkit.distance.mixed_knn`, bit-identical): numeric columns
divided by their range over the synthetic and the attacked records, then differenced; other
columns 0/1; summed. The nearest record is a function of the keys alone, so it is found once per
**key combination** of a :class:`capkit.attacks.grid.Grid`: the candidates are the synthetic key
combinations, each represented by its first (lowest-position) record, so the lowest-position
rule among tied combinations picks the lowest-position record among all tied records.

Ties: anonymeter orders tied records by numba's quicksort, capkit takes the lowest position.
Besides the chosen record, :func:`nearest_records` returns the **pool** of every synthetic record
at the minimum distance (counts per target row), from which callers tell whether a tie decides
the guess, and the range of successes over all tie orders.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from capkit.attacks.grid import Grid
from capkit.distance.mixed_knn import encode, nearest

__all__ = ["NearestRecords", "nearest_records"]


@dataclass(frozen=True)
class NearestRecords:
    """Nearest training record of every queried key combination.

    Attributes
    ----------
    row
        Position of the chosen record in the training group (lowest position among the tied).
    target
        Its target row in the grid (the guess).
    distance
        anonymeter's distance to it.
    n_tied
        Training records at the minimum distance (1: no tie).
    pool
        (queries, target rows) sparse counts of the records at the minimum distance by target
        row; ``pool.sum(axis=1) == n_tied``.
    """

    row: np.ndarray
    target: np.ndarray
    distance: np.ndarray
    n_tied: np.ndarray
    pool: sparse.csr_array


def nearest_records(grid: Grid, train: str, query: np.ndarray, *, progress: bool = False
                    ) -> NearestRecords:
    """Nearest record of group ``train`` (with a known target) for the key combinations
    ``query``, by anonymeter's distance with the ranges over ``train`` and ``query``.

    Parameters
    ----------
    grid
        From :func:`capkit.attacks.grid.prepare`.
    train
        The group holding the guesses (``"synthetic"``).
    query
        Key combinations (grid columns) of the attacked records: the numeric ranges are taken
        over these and the training records, so pass one attacked group at a time to follow
        anonymeter.
    progress
        Show a progress bar.
    """
    positions = np.flatnonzero(grid.known(train))
    cells, combos, first = grid.candidates(train)
    data = encode(grid.key_frame(query), grid.key_frame(combos), list(grid.keys),
                  ("attacked records", train))
    band_q: list[np.ndarray] = []
    band_c: list[np.ndarray] = []

    def keep(rows: np.ndarray, cands: np.ndarray, _at: np.ndarray) -> None:
        band_q.append(rows)
        band_c.append(cands)

    near = nearest(data, 1, on_band=keep, progress=progress)
    best = near.index[:, 0]
    counts = sparse.csr_array(grid.counts(train)).astype(np.float64)
    if grid.values is not None:  # records without a target value hold no guess
        counts = sparse.diags_array((~np.isnan(grid.values)).astype(np.float64)) @ counts
    per_combo = sparse.csr_array(counts.T)[combos]  # (candidates, target rows)
    q, c = np.concatenate(band_q), np.concatenate(band_c)
    band = sparse.csr_array((np.ones(len(q)), (q, c)), shape=(len(query), len(combos)))
    pool = sparse.csr_array(band @ per_combo)
    n_tied = np.asarray(pool.sum(axis=1)).ravel().round().astype(np.int64)
    return NearestRecords(row=positions[first[best]], target=cells[first[best], 0],
                          distance=near.distance[:, 0], n_tied=n_tied, pool=pool)
