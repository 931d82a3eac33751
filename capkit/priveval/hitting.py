"""PrivEval's hitting rate on its label frames (``Metrics/Hitting_rate.py``; Sajjadi et al.'s
hitting rate as SynthEval computes it): a real record is hit when a synthetic record equals it
on the "categorical" columns and lies within ``threshold`` x the real range on every other
column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.distance.neighbour_risk import hitting_rate
from capkit.distance.neighbours import joint_encode

__all__ = ["hitting_rate_labels"]


def hitting_rate_labels(labels_r: pd.DataFrame, labels_s: pd.DataFrame, threshold: float = 1 / 30
                        ) -> float:
    """PrivEval's hitting rate on the label frames: text, boolean and exactly-{0, 1} columns
    must be equal, the others within ``threshold`` x their real range."""
    cat = [c for c in labels_r.columns if not pd.api.types.is_numeric_dtype(labels_r[c])
           or labels_r[c].dtype == bool
           or (labels_r[c].nunique() == 2 and set(labels_r[c].unique()) <= {0, 1})]
    # a column of whole numbers whose tolerance is below 1 is matched by equality: the same
    # hits, far fewer record pairs to compare
    for c in labels_r.columns:
        if c in cat:
            continue
        values = np.concatenate([labels_r[c].to_numpy(np.float64),
                                 labels_s[c].to_numpy(np.float64)])
        tolerance = threshold * (labels_r[c].max() - labels_r[c].min())
        if tolerance < 1 and np.all(np.isfinite(values)) and np.all(values == np.round(values)):
            cat.append(c)
    num = [c for c in labels_r.columns if c not in cat]
    enc_r, enc_s = joint_encode([labels_r, labels_s], cat, num)
    return hitting_rate(enc_r, enc_s, threshold)
