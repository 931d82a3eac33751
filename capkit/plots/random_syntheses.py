"""Figures 1 and 2 of Baillargeon & Charest (2020, Section 4) and the extra scatter.

Each function takes results from :mod:`capkit.papers.baillargeon_charest.random_syntheses` and
returns a matplotlib
``Figure``; the notebook saves it with :func:`capkit.plots.save`: :func:`individual_cap_boxplots`
(Figure 1), :func:`average_cap_distributions` (Figure 2), :func:`predictions_scatter`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest.random_syntheses import BoxPanel

#: Colours of the paper's figures: red dots (average CAP), blue line (CAP_O(O)).
AVERAGE_COLOUR = "red"
REFERENCE_COLOUR = "blue"
HIGHLIGHT_COLOUR = "#f4a261"


# --- figures -----------------------------------------------------------------------------------

def _grid(n_panels: int, ncols: int, panel_size: tuple[float, float],
          **subplots) -> tuple[Figure, np.ndarray]:
    """A figure of ``n_panels`` axes on rows of at most ``ncols``; unused axes are hidden."""
    ncols = min(ncols, n_panels)
    nrows = -(-n_panels // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size[0] * ncols,
                                                    panel_size[1] * nrows),
                             squeeze=False, **subplots)
    for ax in axes.flat[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def _draw_panel(ax: plt.Axes, panel: BoxPanel) -> None:
    positions = np.arange(1, len(panel.labels) + 1)
    boxes = ax.boxplot(
        list(panel.values), positions=positions, widths=0.6, patch_artist=True,
        medianprops={"color": "black"}, flierprops={"marker": "o", "markersize": 3},
    )
    for label, patch in zip(panel.labels, boxes["boxes"], strict=True):
        patch.set_facecolor(HIGHLIGHT_COLOUR if label in panel.highlight else "#d9d9d9")
    ax.plot(positions, panel.averages, "o", color=AVERAGE_COLOUR, markersize=5,
            label="average CAP (v1)", zorder=3)
    ax.axhline(panel.reference, color=REFERENCE_COLOUR, linewidth=1.2,
               label=r"$\overline{\mathrm{CAP}}_O(O)$")
    ax.set_xticks(positions, panel.labels)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(panel.title)
    ax.set_xlabel("synthetic data set")
    ax.set_ylabel("individual CAP")


def individual_cap_boxplots(panels: Sequence[BoxPanel], *, ncols: int = 2,
                            title: str | None = None) -> Figure:
    """Figure 1: boxplots of the individual CAP of the original records per synthetic table.

    One panel per original data set; boxes ordered by average CAP version 1 (red dots), the
    blue line at the average CAP of the original with itself.
    """
    if not panels:
        raise CapkitError("panels is empty: give at least one BoxPanel")
    width = max(4.0, 0.33 * max(len(p.labels) for p in panels) + 1.5)
    fig, axes = _grid(len(panels), ncols, (width, 3.6))
    for ax, panel in zip(axes.flat, panels, strict=False):
        _draw_panel(ax, panel)
    axes.flat[0].legend(loc="upper left", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def average_cap_distributions(
    averages: Mapping[str, Mapping[str, np.ndarray]], references: Mapping[str, float],
    *, ncols: int = 4,
) -> Figure:
    """Figure 2: distribution of the average CAP (both versions) of random synthetic tables.

    Parameters
    ----------
    averages
        ``{"O1": {"version 1": (N,) array, "version 2": (N,) array}, ...}``; NaN (version 2
        undefined) is left out of the boxes.
    references
        ``{"O1": CAP_O1(O1), ...}``: the blue lines.
    """
    if not averages:
        raise CapkitError("averages is empty")
    names = list(averages)
    fig, axes = _grid(len(names), ncols, (2.6, 3.6), sharey=True)
    for ax, name in zip(axes.flat, names, strict=False):
        versions = averages[name]
        data = [v[~np.isnan(v)] for v in (np.asarray(v, dtype=float) for v in versions.values())]
        boxes = ax.boxplot(data, widths=0.6, patch_artist=True,
                           medianprops={"color": "black"},
                           flierprops={"marker": "o", "markersize": 2})
        for patch in boxes["boxes"]:
            patch.set_facecolor("#d9d9d9")
        ax.axhline(references[name], color=REFERENCE_COLOUR, linewidth=1.2, zorder=1,
                   label=r"$\overline{\mathrm{CAP}}_O(O)$")
        ax.set_xticks(np.arange(1, len(data) + 1), list(versions))
        ax.set_title(f"{name} ({len(data[0])} tables)")
        ax.set_ylim(-0.02, 1.02)
    axes.flat[0].set_ylabel("average CAP")
    axes.flat[0].legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def predictions_scatter(
    averages: Mapping[str, np.ndarray], predictions: Mapping[str, np.ndarray],
    correlations: Mapping[str, float], *, ncols: int = 4,
) -> Figure:
    """Correct predictions (most-frequent-target intruder) against average CAP v1, per original.

    ``correlations`` holds the rank correlation shown in each panel's title.
    """
    if not averages:
        raise CapkitError("averages is empty")
    names = list(averages)
    fig, axes = _grid(len(names), ncols, (3.0, 3.0))
    for ax, name in zip(axes.flat, names, strict=False):
        ax.scatter(averages[name], predictions[name], s=4, alpha=0.4, color="black",
                   linewidths=0)
        ax.set_title(f"{name}: Spearman rho = {correlations[name]:.3f}", fontsize=9)
        ax.set_xlabel("average CAP (v1)")
    axes.flat[0].set_ylabel("records predicted right")
    fig.tight_layout()
    return fig
