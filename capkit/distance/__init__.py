"""Distances between records: Gower, distance to closest record (DCR), training vs holdout.

* :mod:`~capkit.distance.gower`: the Gower distance's columns, weights and ranges, its matrix;
* :mod:`~capkit.distance.nearest`: the exact nearest-record search every DCR runs on;
* :mod:`~capkit.distance.dcr`: DCR and the synthetic-vs-training-vs-holdout check (Minieri,
  2022).
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
