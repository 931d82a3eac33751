"""The risk-utility map (Duncan, Keller-McNulty & Stokes, "Disclosure risk vs. data utility:
the R-U confidentiality map", 2001): releases as points with their intervals, the Pareto front
joined, the "not flagged and useful" region shaded. Takes
:func:`capkit.utility.release_map.risk_utility_table`'s table."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def risk_utility_map(table: pd.DataFrame, title: str = "") -> Figure:
    """Risk (x) against utility (y, better upwards) for every release of ``table``."""
    attrs = table.attrs
    better_up = bool(attrs.get("higher_utility_is_better", False))
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    x, y = table["risk"].to_numpy(float), table["utility"].to_numpy(float)
    xerr = np.vstack([x - table["risk_low"], table["risk_high"] - x]).astype(float)
    yerr = np.vstack([y - table["utility_low"], table["utility_high"] - y]).astype(float)
    xerr = None if np.isnan(xerr).all() else np.nan_to_num(xerr)
    yerr = None if np.isnan(yerr).all() else np.nan_to_num(yerr)
    on = table["pareto"].to_numpy(bool)
    ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="none", ecolor="#999999", lw=1, zorder=1)
    ax.scatter(x[~on], y[~on], c="#4c72b0", s=36, zorder=2, label="release")
    ax.scatter(x[on], y[on], c="#c44e52", s=48, zorder=3, label="Pareto front")
    order = np.argsort(x[on], kind="stable")
    ax.plot(x[on][order], y[on][order], c="#c44e52", lw=1, zorder=2)
    for name, xi, yi in zip(table.index, x, y, strict=True):
        ax.annotate(str(name), (xi, yi), textcoords="offset points", xytext=(5, 4), fontsize=8)
    limit_r, limit_u = attrs.get("risk_limit"), attrs.get("utility_limit")
    if limit_r is not None and limit_u is not None:
        x0, x1 = ax.get_xlim()
        y0, y1 = ax.get_ylim()
        ys = (limit_u, y1) if better_up else (y0, limit_u)
        ax.fill_between([x0, limit_r], *ys, color="#55a868", alpha=0.12, lw=0,
                        label="not flagged and useful")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
    if not better_up:
        ax.invert_yaxis()
    ax.set_xlabel(attrs.get("risk_name", "risk"))
    ax.set_ylabel(f"{attrs.get('utility_name', 'utility')} (better up)")
    ax.legend(loc="best", frameon=False, fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
