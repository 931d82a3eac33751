"""Distances between records: Gower, distance to closest record (DCR), training vs holdout, and
the package's nearest-record searches.

* :mod:`~capkit.distance.gower`: the Gower distance's columns, weights and ranges, its matrix;
* :mod:`~capkit.distance.nearest`: the exact nearest-record search every DCR runs on;
* :mod:`~capkit.distance.dcr`: DCR and the synthetic-vs-training-vs-holdout check (Minieri,
  2022);
* :mod:`~capkit.distance.neighbours`: the k nearest distances SynthEval's measures take (Gower
  on jointly encoded tables, Euclidean), with its self rule;
  :mod:`~capkit.distance.neighbour_risk`: those measures (NNDR, NNAA, ...);
* :mod:`~capkit.distance.mixed_knn`: the k nearest under anonymeter's mixed-type distance,
  tie counts and band (linkability, inference);
* :mod:`~capkit.distance.grid_knn`: the k nearest under the Euclidean distance, exact on a
  grid (the k-NN attackers, PrivEval's Euclidean measures);
* :mod:`~capkit.distance.radius`: the records within a radius and the share of one set among
  the k nearest under Gower (membership inference's MC and DPI); :mod:`~capkit.distance.squared`:
  the same and the nearest under DOMIAS's squared Euclidean distance;
* :mod:`~capkit.distance.closeness`: PrivEval's closeness scores from arrays of distances.
"""

from capkit.distance.dcr import DCRResult, HoldoutComparison, closer_share, dcr, holdout_comparison
from capkit.distance.gower import GowerColumns, gower_columns, gower_matrix

__all__ = [
    "DCRResult",
    "GowerColumns",
    "HoldoutComparison",
    "closer_share",
    "dcr",
    "gower_columns",
    "gower_matrix",
    "holdout_comparison",
]
