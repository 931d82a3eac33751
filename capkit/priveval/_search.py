"""The face's one Euclidean nearest-record call: capkit's exact k-NN search
(:func:`capkit.attacks.knn.exact_neighbours`, ties to the lowest position), with the distances
of the chosen records recomputed in float64 on the features as given."""

from __future__ import annotations

import numpy as np

from capkit.attacks.knn import exact_neighbours

__all__ = ["euclid"]


def euclid(train: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (n_query, k) and Euclidean distances of the k nearest ``train`` rows of each
    ``query`` row, nearest first."""
    index = exact_neighbours(train, query, k).index
    diff = query[:, None, :] - train[index]
    return index, np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
