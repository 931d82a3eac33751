"""The key x target heatmap of a k-key sweep (:func:`capkit.disclosure.sweep.sweep`).

NIST SDNist's k-DiSCO heatmap (``sdnist/metrics/disco.py``,
``plot_disco_minus_dio_heatmap``): one cell per (known column, target), the average of DiSCO -
Dorig over the key combinations that contain the column. Here the matrix comes from
:meth:`capkit.disclosure.sweep.SweepResult.key_target` (mean, as SDNist, or max, the worst
case), in percentage points; the colour scale is symmetric around 0 (blue: the synthetic data
discloses less than the original itself, red: more) and each cell is written in numbers, so the
figure reads without colour.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from capkit.errors import CapkitError

__all__ = ["key_target_heatmap"]


def key_target_heatmap(matrix: pd.DataFrame, *, title: str | None = None,
                       label: str = "DiSCO - Dorig (percentage points)",
                       bound: float | None = None) -> Figure:
    """Heatmap of a key x target matrix (rows: known columns, columns: targets).

    Parameters
    ----------
    matrix
        ``SweepResult.key_target(...)``: numbers, NaN where a key is the target (drawn grey,
        written "-").
    title
        Figure title; default none.
    label
        Colour bar label.
    bound
        The colour scale's half-width (percentage points): give the same to the heatmaps of
        several syntheses so that one colour means one value in all of them; default the
        largest absolute value of this matrix.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(matrix, pd.DataFrame) or matrix.empty:
        raise CapkitError("matrix must be a non-empty DataFrame (SweepResult.key_target())")
    values = matrix.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    if bound is None:
        bound = float(np.max(np.abs(finite))) if finite.size else 1.0
    bound = float(bound) if bound > 0 else 1.0
    n_rows, n_cols = values.shape
    fig, ax = plt.subplots(figsize=(max(4.5, 1.0 + 0.75 * n_cols), max(2.5, 1.2 + 0.45 * n_rows)))
    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="0.85")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-bound, vmax=bound,
                      aspect="auto")
    for (i, j), v in np.ndenumerate(values):  # one label per cell of a small matrix
        text = "-" if not np.isfinite(v) else f"{v:.1f}"
        shade = "white" if np.isfinite(v) and abs(v) > 0.6 * bound else "black"
        ax.text(j, i, text, ha="center", va="center", fontsize=8, color=shade)
    ax.set_xticks(range(n_cols), [str(c) for c in matrix.columns], rotation=45, ha="right")
    ax.set_yticks(range(n_rows), [str(r) for r in matrix.index])
    ax.set_xlabel("target")
    ax.set_ylabel("known column (key)")
    if title:
        ax.set_title(title)
    fig.colorbar(image, ax=ax, label=label, shrink=0.8)
    fig.tight_layout()
    return fig
