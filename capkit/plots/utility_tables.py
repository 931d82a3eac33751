"""Figures of synthpop's table utility (Raab, Nowok & Dibben, "Assessing, visualizing and
improving the utility of synthetic data", 2021, Figure 1): a two-way table's statistic for every
pair of variables, as ``utility.tables`` plots it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def twoway_heatmap(panels: dict[str, pd.DataFrame], stat: str = "S_pMSE",
                   max_scale: float | None = None) -> Figure:
    """One heat map per synthesis: ``panels`` maps a title to a ``tables(...)["plot_data"]``
    frame (X1, X2, val; both orders of each pair), all on one colour scale from 0 to
    ``max_scale`` (the largest value when None)."""
    titles = list(panels)
    top = max_scale if max_scale is not None else max(
        float(np.nanmax(p["val"])) for p in panels.values())
    fig, axes = plt.subplots(1, len(titles), figsize=(4.2 * len(titles) + 0.8, 4.4),
                             squeeze=False)
    image = None
    for ax, title in zip(axes[0], titles, strict=True):
        data = panels[title]
        names = sorted(set(data["X1"]) | set(data["X2"]))
        grid = data.pivot_table(index="X1", columns="X2", values="val", aggfunc="first")
        grid = grid.reindex(index=names, columns=names)
        image = ax.imshow(np.minimum(grid.to_numpy(dtype=float), top), cmap="Reds", vmin=0,
                          vmax=top, origin="lower")
        labels = [n.split(".", 1)[1] if "." in n else n for n in names]
        ax.set_xticks(range(len(names)), labels, rotation=90, fontsize=8)
        ax.set_yticks(range(len(names)), labels, fontsize=8)
        ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=list(axes[0]), shrink=0.8, label=stat)
    return fig
