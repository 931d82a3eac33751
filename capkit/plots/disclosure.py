"""Figures of synthpop's disclosure measures (Raab, Nowok & Dibben; synthpop ``multi.disclosure``).

:func:`plot_summary` draws synthpop's ``attrib.plot`` (spec 9.5) from a ``disclosure_summary``
table: two points per target (the original and the synthetic attribute measure) joined by an
arrow pointing to the smaller value, targets ordered as in the table (rank 1 at the bottom).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from capkit.errors import CapkitError

_ORIGINAL_NAME = {"DiSCO": "Dorig", "DiSDiO": "Dorig", "DCAP": "CAPd"}


def plot_summary(attrib_table: pd.DataFrame, attrib_meas: str = "DiSCO") -> Figure:
    """synthpop's comparison plot of attribute disclosure measures.

    Parameters
    ----------
    attrib_table
        ``DisclosureSummary.attrib_table`` (columns ``attrib.orig``, ``attrib.syn``; row names
        such as "1 income", "5 workab 1&2way checks").
    attrib_meas
        The synthetic measure ("DiSCO", "DiSDiO" or "DCAP"), for the subtitle.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if attrib_meas not in _ORIGINAL_NAME:
        raise CapkitError(f"attrib_meas must be one of {list(_ORIGINAL_NAME)}, got "
                          f"{attrib_meas!r}")
    for column in ("attrib.orig", "attrib.syn"):
        if column not in attrib_table.columns:
            raise CapkitError(f"attrib_table lacks column {column!r}")
    rows = sorted(attrib_table.index.astype(str))  # R sorts the discrete axis: rank 1 at bottom
    y = {name: i for i, name in enumerate(rows)}
    long = pd.DataFrame({
        "row": np.repeat(attrib_table.index.astype(str).to_numpy(), 2),
        "measure": ["attrib.orig", "attrib.syn"] * len(attrib_table),
        "value": attrib_table[["attrib.orig", "attrib.syn"]].to_numpy().ravel(),
    })
    long["y"] = long["row"].map(y)
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(rows) + 1.8))
    for name, row in attrib_table.iterrows():  # one arrow per target (a handful of rows)
        a, b = float(row["attrib.orig"]), float(row["attrib.syn"])
        if np.isfinite(a) and np.isfinite(b):
            start, end = (a, b) if b <= a else (b, a)  # arrowhead at the smaller value
            ax.annotate("", xy=(end, y[str(name)]), xytext=(start, y[str(name)]),
                        arrowprops={"arrowstyle": "-|>", "color": "0.4", "lw": 1.0,
                                    "mutation_scale": 12})
    sns.scatterplot(data=long, x="value", y="y", hue="measure", style="measure", s=60,
                    palette="deep", ax=ax, zorder=3)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel("Disclosure measure")
    ax.set_ylabel("")
    ax.legend(title="measure", loc="lower right")
    ax.set_title("Comparison of attribute disclosure measures\n"
                 f"{attrib_meas} for synthetic data  to {_ORIGINAL_NAME[attrib_meas]} for "
                 "original data.", fontsize=10)
    fig.tight_layout()
    return fig
