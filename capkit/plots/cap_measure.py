"""Figures of the CAP measure itself (Baillargeon & Charest, Section 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure


def individual_cap_bars(caps: dict[str, np.ndarray], targets, keys) -> Figure:
    """Bar chart of the individual CAP of each cell (Definition 1) under several data sets.

    Parameters
    ----------
    caps
        ``{"under O": (I, J) array, "under S": (I, J) array, ...}``.
    targets, keys
        Labels of rows and columns.
    """
    rows = [
        {"data set": name, "target": str(t), "key": str(k), "CAP": float(value[i, j])}
        for name, value in caps.items()
        for i, t in enumerate(targets)
        for j, k in enumerate(keys)
    ]
    frame = pd.DataFrame(rows)
    grid = sns.catplot(data=frame, x="target", y="CAP", hue="data set", col="key", kind="bar",
                       height=3, aspect=1.0, palette="deep")
    grid.set(ylim=(0, 1))
    for ax in grid.axes.flat:
        for container in ax.containers:
            ax.bar_label(container, fmt="%.4f", fontsize=7)
    grid.figure.suptitle("Individual CAP of a record in each cell", y=1.04)
    return grid.figure
