"""Figure for Table 1 of the synthpop paper (Adult, exclusions): paper vs capkit."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def table1_comparison(paper: pd.DataFrame, reproduced: pd.DataFrame, band_low: pd.DataFrame,
                      band_high: pd.DataFrame, headings: dict[str, str]) -> Figure:
    """One panel per exclusion setting: Dorig and DiSCO per target, paper against capkit.

    Parameters
    ----------
    paper, reproduced
        Rows = targets, columns = (exclusion, side) with side "orig" / "syn" (percent):
        ``capkit.papers.raab_nowok_dibben.adult_table1.ADULT_TABLE1`` and ``ExclusionTable.values``.
    band_low, band_high
        Rows = targets, columns = exclusions: the range of capkit's DiSCO over seeds.
    headings
        Exclusion -> panel title (``capkit.papers.raab_nowok_dibben.adult_table1.EXCLUSIONS``).
    """
    targets = list(paper.index)
    y = np.arange(len(targets))
    fig, axes = plt.subplots(1, len(headings), figsize=(3.0 * len(headings), 4.2),
                             sharey=True)
    for ax, (name, title) in zip(np.atleast_1d(axes), headings.items(), strict=True):
        low = band_low.loc[targets, name].to_numpy()
        high = band_high.loc[targets, name].to_numpy()
        ax.hlines(y + 0.15, low, high, color="#dd8452", linewidth=4, alpha=0.6,
                  label="capkit DiSCO, range over seeds")
        ax.plot(reproduced.loc[targets, (name, "syn")], y + 0.15, "o", color="#dd8452",
                markersize=4, label="capkit DiSCO, this synthesis")
        ax.plot(paper.loc[targets, (name, "syn")], y + 0.15, "s", mfc="none", color="#c44e52",
                markersize=6, label="paper DiSCO")
        ax.plot(reproduced.loc[targets, (name, "orig")], y - 0.15, "x", color="#4c72b0",
                markersize=6, label="capkit Dorig")
        ax.plot(paper.loc[targets, (name, "orig")], y - 0.15, "o", mfc="none", color="#222222",
                markersize=6, label="paper Dorig")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("% of original records", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    first = np.atleast_1d(axes)[0]
    first.set_yticks(y, targets)
    first.invert_yaxis()
    handles, labels = first.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, frameon=False, fontsize=8)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig
