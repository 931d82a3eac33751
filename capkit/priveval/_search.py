"""The face's one Euclidean nearest-record call: capkit's exact k-NN search
(:func:`capkit.distance.grid_knn.exact_neighbours`, ties to the lowest position), with the distances
of the chosen records recomputed in float64 on the features as given."""

from __future__ import annotations

import numpy as np

from capkit.distance.grid_knn import exact_neighbours

__all__ = ["Searches", "euclid"]


def euclid(train: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (n_query, k) and Euclidean distances of the k nearest ``train`` rows of each
    ``query`` row, nearest first."""
    index = exact_neighbours(train, query, k).index
    diff = query[:, None, :] - train[index]
    return index, np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))


class Searches:
    """The searches of one :func:`capkit.priveval.metrics` call, each done once: a search of
    ``query`` against ``train`` under feature set ``name`` is kept with its largest k, and a
    later call with a smaller k takes the first k columns (the k nearest are a prefix of the
    k' nearest under the same tie rule)."""

    def __init__(self) -> None:
        self._done: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, name: str, train: np.ndarray, query: np.ndarray, k: int,
                 direction: str) -> tuple[np.ndarray, np.ndarray]:
        """``direction``: a label of (train, query), e.g. ``"rs"`` for real records' nearest
        synthetic records."""
        key = (name, direction)
        have = self._done.get(key)
        if have is None or have[0].shape[1] < k:
            have = euclid(train, query, k)
            self._done[key] = have
        return have[0][:, :k], have[1][:, :k]
