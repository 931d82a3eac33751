"""Figures for the synthpop paper's SD2011 and Adult results (Raab, Nowok & Dibben, Figure 1)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def attrib_summary(table: pd.DataFrame, title: str = "") -> Figure:
    """Dorig (original) and DiSCO (synthetic) per target, as in the paper's Figure 1.

    ``table`` is ``DisclosureSummary.attrib_table`` (columns ``attrib.orig``, ``attrib.syn``).
    """
    labels = list(table.index)
    y = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(6.5, 0.5 * len(labels) + 1.2))
    ax.barh(y - 0.2, table["attrib.orig"], height=0.4, label="original (Dorig)", color="#4c72b0")
    ax.barh(y + 0.2, table["attrib.syn"], height=0.4, label="synthetic (DiSCO)", color="#dd8452")
    ax.set_yticks(y, labels)
    ax.set_xlabel("% of original records")
    ax.legend(loc="lower right", frameon=False)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
