"""Figure for Table 1 of the synthpop paper (Adult, exclusions): the paper against bands."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

#: Colours of the bands, in the order given.
BAND_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#8172b3")


def table1_comparison(paper: pd.DataFrame, reproduced: pd.DataFrame,
                      bands: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
                      headings: dict[str, str]) -> Figure:
    """One panel per exclusion setting: Dorig and DiSCO per target, the paper against bands.

    Parameters
    ----------
    paper, reproduced
        Rows = targets, columns = (exclusion, side) with side "orig" / "syn" (percent):
        ``capkit.papers.raab_nowok_dibben.adult_table1.ADULT_TABLE1`` and an
        ``ExclusionTable.values`` (only its "orig" side is drawn: Dorig depends on the data only).
    bands
        Label -> (low, high), each rows = targets, columns = exclusions: ranges of DiSCO over
        seeds (e.g. synthpop's own syntheses and capkit's, in one measuring mode), drawn as
        bars one under the other.
    headings
        Exclusion -> panel title (``capkit.papers.raab_nowok_dibben.adult_table1.EXCLUSIONS``).
    """
    targets = list(paper.index)
    y = np.arange(len(targets))
    fig, axes = plt.subplots(1, len(headings), figsize=(3.0 * len(headings), 4.6),
                             sharey=True)
    offsets = np.linspace(-0.1, 0.3, len(bands)) if len(bands) > 1 else np.array([0.1])
    for ax, (name, title) in zip(np.atleast_1d(axes), headings.items(), strict=True):
        for (label, (low, high)), offset, colour in zip(bands.items(), offsets, BAND_COLOURS,
                                                        strict=False):
            ax.hlines(y + offset, low.loc[targets, name].to_numpy(),
                      high.loc[targets, name].to_numpy(), color=colour, linewidth=3.5,
                      alpha=0.7, label=label)
        ax.plot(paper.loc[targets, (name, "syn")], y + 0.1, "s", mfc="none", color="#c44e52",
                markersize=6, label="paper DiSCO")
        ax.plot(reproduced.loc[targets, (name, "orig")], y - 0.3, "x", color="#222222",
                markersize=6, label="capkit Dorig")
        ax.plot(paper.loc[targets, (name, "orig")], y - 0.3, "o", mfc="none", color="#222222",
                markersize=6, label="paper Dorig")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("% of original records", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    first = np.atleast_1d(axes)[0]
    first.set_yticks(y, targets)
    first.invert_yaxis()
    handles, labels = first.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize=8)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig
