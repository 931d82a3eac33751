"""The risk-utility map (Duncan, Keller-McNulty & Stokes, "Disclosure risk vs. data utility:
the R-U confidentiality map", 2001): releases as points with their intervals on both axes, the
Pareto front joined, the "not flagged and useful" region shaded. Takes
:func:`capkit.utility.release_map.risk_utility_table`'s table (or
:func:`capkit.audit.utility_family.release_map`'s)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from capkit.audit.verdicts import NOT_MEASURED
from capkit.plots.custodian import MARKERS, VERDICT_COLOURS

#: The shade of the "not flagged and useful" region, and of its points.
REGION_COLOUR = "#55a868"


def _errors(values: np.ndarray, low: pd.Series, high: pd.Series) -> np.ndarray | None:
    err = np.vstack([values - low.to_numpy(float), high.to_numpy(float) - values])
    return None if np.isnan(err).all() else np.nan_to_num(err)


def risk_utility_map(table: pd.DataFrame, title: str = "") -> Figure:
    """Risk (x) against utility (y, better upwards) for every release of ``table``, each point
    with its interval on both axes (``risk_low``/``risk_high``, ``utility_low``/
    ``utility_high``; none drawn where they are NaN).

    The region "not flagged and useful" is shaded: with a risk limit (``attrs["risk_limit"]``)
    and a utility limit, the rectangle left of the one and on the useful side of the other;
    when the releases are flagged one by one (a ``flagged`` column and no risk limit, as the
    report's verdicts decide it), flagging is no line on the risk axis, so the useful band is
    shaded and the releases in the region drawn in its colour. A release whose ``verdict`` is
    "not measured" is drawn apart (a grey cross, "not measured"): neither flagged nor not
    flagged (:func:`capkit.audit.verdicts.flag`); one without a risk has no point.
    """
    attrs = table.attrs
    better_up = bool(attrs.get("higher_utility_is_better", False))
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    x, y = table["risk"].to_numpy(float), table["utility"].to_numpy(float)
    ax.errorbar(x, y, xerr=_errors(x, table["risk_low"], table["risk_high"]),
                yerr=_errors(y, table["utility_low"], table["utility_high"]), fmt="none",
                ecolor="#999999", elinewidth=1, capsize=3, zorder=1)
    on = table["pareto"].to_numpy(bool)
    good = (table["region"] == "not flagged and useful").to_numpy(bool) \
        if "region" in table.columns else np.zeros(len(table), dtype=bool)
    unmeasured = (table["verdict"] == NOT_MEASURED).to_numpy(bool) \
        if "verdict" in table.columns else np.zeros(len(table), dtype=bool)
    plain = ~on & ~unmeasured
    ax.scatter(x[plain], y[plain], c="#4c72b0", s=36, zorder=2, label="release")
    ax.scatter(x[on], y[on], c="#c44e52", s=48, zorder=3, label="Pareto front")
    if unmeasured.any():
        ax.scatter(x[unmeasured], y[unmeasured], c=VERDICT_COLOURS[NOT_MEASURED],
                   marker=MARKERS[NOT_MEASURED], s=48, zorder=3, label=NOT_MEASURED)
    order = np.argsort(x[on], kind="stable")
    ax.plot(x[on][order], y[on][order], c="#c44e52", lw=1, zorder=2)
    for name, xi, yi in zip(table.index, x, y, strict=True):
        ax.annotate(str(name), (xi, yi), textcoords="offset points", xytext=(5, 4), fontsize=8)
    limit_r, limit_u = attrs.get("risk_limit"), attrs.get("utility_limit")
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    if limit_u is not None:  # the region's edges in view
        pad = 0.03 * (y1 - y0)
        y0, y1 = min(y0, limit_u - pad), max(y1, limit_u + pad)
        if limit_r is not None:
            pad = 0.03 * (x1 - x0)
            x0, x1 = min(x0, limit_r - pad), max(x1, limit_r + pad)
        ys = (limit_u, max(y1, limit_u)) if better_up else (min(y0, limit_u), limit_u)
        if limit_r is not None:
            ax.fill_between([min(x0, limit_r), limit_r], *ys, color=REGION_COLOUR, alpha=0.15,
                            lw=0, zorder=0, label="not flagged and useful")
            ax.axvline(limit_r, color=REGION_COLOUR, lw=0.8, ls="--", zorder=0)
        elif "flagged" in table.columns:
            ax.fill_between([x0, x1], *ys, color=REGION_COLOUR, alpha=0.10, lw=0, zorder=0,
                            label="useful")
            ax.scatter(x[good], y[good], s=110, facecolors="none", edgecolors=REGION_COLOUR,
                       linewidths=1.5, zorder=4, label="not flagged and useful")
        ax.axhline(limit_u, color=REGION_COLOUR, lw=0.8, ls="--", zorder=0)
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
