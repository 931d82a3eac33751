"""Figure of privacy risks side by side: anonymeter's three attacks (Giomi et al. 2022, PoPETs
2023) with the membership control, and SDMetrics' protection scores, for several syntheses of
the same members."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from capkit.errors import CapkitError

NEEDED = ("measure", "synthesis", "value", "low", "high")


def privacy_risks(table: pd.DataFrame, *, title: str | None = None) -> Figure:
    """One panel per measure, one bar per synthesis, with the interval as an error bar.

    Parameters
    ----------
    table
        Rows with ``measure`` (panel), ``synthesis`` (bar, in first-seen order), ``value``,
        ``low``, ``high`` (the interval; equal to ``value`` for a score without one).
    title
        Figure title.

    Returns
    -------
    Figure
    """
    missing = [c for c in NEEDED if c not in table.columns]
    if missing:
        raise CapkitError(f"table lacks columns {missing}")
    if table.empty:
        raise CapkitError("table is empty: nothing to draw")
    measures = list(pd.unique(table["measure"]))
    syntheses = list(pd.unique(table["synthesis"]))
    colours = plt.get_cmap("tab10")(np.arange(len(syntheses)) % 10)
    fig, axes = plt.subplots(1, len(measures), figsize=(2.6 * len(measures) + 0.6, 3.4),
                             squeeze=False)
    for ax, measure in zip(axes[0], measures, strict=True):
        rows = table[table["measure"] == measure].set_index("synthesis").reindex(syntheses)
        x = np.arange(len(syntheses))
        value = rows["value"].to_numpy(dtype=float)
        error = np.vstack([value - rows["low"].to_numpy(dtype=float),
                           rows["high"].to_numpy(dtype=float) - value])
        ax.bar(x, value, color=colours, yerr=np.clip(error, 0, None), capsize=3)
        ax.set_xticks(x, syntheses, rotation=30, ha="right", fontsize=8)
        ax.set_title(measure, fontsize=9)
        ax.set_ylim(0, max(1.0, float(np.nanmax(rows["high"].to_numpy(dtype=float)))) * 1.02)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("risk (attacks) / protection (SDMetrics)")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


__all__ = ["privacy_risks"]
