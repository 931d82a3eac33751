"""Figures beyond the CAP: DCR histograms (Minieri), record-level CAP and k-NN errors (Hu)."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def dcr_histograms(
    distances: Mapping[str, np.ndarray], *, bins: int = 40, title: str | None = None
) -> Figure:
    """Overlaid histograms of distance-to-closest-record distributions.

    Parameters
    ----------
    distances
        ``{"synthetic to training": dcr, "synthetic to holdout": dcr, ...}``.
    bins
        Number of equal-width bins over the common range.
    """
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    values = [np.asarray(v, dtype=float) for v in distances.values()]
    high = max(float(v.max()) for v in values) or 1.0
    edges = np.linspace(0.0, high, bins + 1)
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (name, v) in enumerate(zip(distances, values, strict=True)):
        ax.hist(v, bins=edges, alpha=0.5, label=f"{name} (n = {len(v):,})",
                color=palette[k % len(palette)])
    ax.set_xlabel("Gower distance to closest record (DCR)")
    ax.set_ylabel("synthetic records")
    ax.legend(frameon=False)
    ax.set_title(title or "Distance to closest record")
    fig.tight_layout()
    return fig


def record_cap_scatter(caps: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Individual CAP of each original record under O (x) against under S (y), with y = x.

    ``caps`` is :func:`capkit.attacks.inference.record_cap_comparison`'s frame. Records sharing a
    (CAP under O, CAP under S) point are drawn once, with a marker area growing with their
    count.
    """
    points = caps.groupby(["CAP under O", "CAP under S"]).size().rename("records").reset_index()
    fig, ax = plt.subplots(figsize=(4.8, 4.6))
    size = 8 + 60 * np.sqrt(points["records"] / points["records"].max())
    ax.scatter(points["CAP under O"], points["CAP under S"], s=size, alpha=0.5,
               edgecolors="none")
    ax.plot([0, 1], [0, 1], color="black", linewidth=0.8, linestyle="--", label="y = x")
    above = float((caps["CAP under S"] > caps["CAP under O"]).mean())
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("individual CAP under the original data")
    ax.set_ylabel("individual CAP under the synthetic data")
    ax.set_title(title or f"Record-level CAP before/after synthesis\n"
                          f"{above:.1%} of records above the diagonal", fontsize=10)
    ax.legend(frameon=False, loc="upper left")
    fig.tight_layout()
    return fig


def prediction_error_scatter(records: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Record-level relative absolute errors: model trained on original (x) vs synthetic (y).

    ``records`` is :attr:`capkit.attacks.inference.AttributeRisk.records` of a numeric target.
    Points
    above the diagonal are predicted less accurately from the synthetic data.
    """
    data = records[["error (original)", "error (synthetic)"]].dropna()
    fig, ax = plt.subplots(figsize=(4.8, 4.6))
    ax.scatter(data["error (original)"], data["error (synthetic)"], s=6, alpha=0.35,
               edgecolors="none")
    high = float(np.nanquantile(data.to_numpy(), 0.99)) if len(data) else 1.0
    ax.plot([0, high], [0, high], color="black", linewidth=0.8, linestyle="--", label="y = x")
    ax.set_xlim(0, high)
    ax.set_ylim(0, high)
    ax.set_xlabel("relative absolute error, trained on original")
    ax.set_ylabel("relative absolute error, trained on synthetic")
    ax.set_title(title or "Record-level k-NN prediction errors", fontsize=10)
    ax.legend(frameon=False, loc="upper left")
    fig.tight_layout()
    return fig


def score_comparison(scores: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Grouped bars of scores per data set (rows) and metric (columns), values on the bars."""
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    scores.plot.bar(ax=ax, rot=0, width=0.8)
    for container in ax.containers:
        ax.bar_label(container, fmt="%.3f", fontsize=7)
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("score (1 - probability)")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    ax.set_title(title or "SDMetrics-compatible CAP scores", fontsize=10)
    fig.tight_layout()
    return fig


__all__ = ["dcr_histograms", "prediction_error_scatter", "record_cap_scatter",
           "score_comparison"]
