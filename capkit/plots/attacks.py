"""Figure of the attribute-attack baseline (Hittmeir, Mayer & Ekelhart 2020) with the membership
control: the success rate of each attacker trained on the synthetic data and on the original
data, on the members and on the holdout, against the dummy predictor."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from capkit.control import compare_to_control
from capkit.errors import CapkitError

#: (trained_on, scored_on) series drawn per attacker: colour by training data, filled marker for
#: the members, hollow for the holdout.
SERIES = (("synthetic", "members"), ("synthetic", "holdout"), ("original", "members"),
          ("original", "holdout"))


def _interval(rows: pd.DataFrame) -> tuple[float, float, float]:
    """Mean rate and its error bar: +-1 sd over key sets, or the Wilson interval of one attack."""
    if len(rows) > 1:
        mean, sd = float(rows["rate"].mean()), float(rows["rate"].std())
        return mean, sd, sd
    row = rows.iloc[0]
    rate = compare_to_control(int(row["correct"]), int(row["n"])).members
    return rate.rate, rate.rate - rate.ci[0], rate.ci[1] - rate.rate


def attack_rates(table: pd.DataFrame, targets: Sequence[str] | None = None, *,
                 title: str | None = None) -> Figure:
    """Success rate per attacker: synthetic- vs original-trained, members vs holdout, and dummy.

    Parameters
    ----------
    table
        :func:`capkit.attacks.baseline.baseline_table`'s rows (or any frame with its columns
        ``target``, ``attacker``, ``trained_on``, ``scored_on``, ``n``, ``correct``, ``rate``).
    targets
        The targets to draw, one panel each (default: all, in table order).
    title
        Figure title.

    Returns
    -------
    Figure
        Points are the mean rate over the key sets with +-1 standard deviation (a single key
        set: the Wilson 95% interval); the dashed line is the dummy's rate on the members, the
        dotted line on the holdout. Numeric targets show the within-tolerance rate.
    """
    needed = ["target", "attacker", "trained_on", "scored_on", "n", "correct", "rate"]
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise CapkitError(f"table lacks columns {missing}; pass baseline_table's result")
    targets = list(pd.unique(table["target"])) if targets is None else list(targets)
    if not targets:
        raise CapkitError("targets is empty: nothing to draw")
    fig, axes = plt.subplots(1, len(targets), figsize=(4.2 + 3.4 * len(targets), 3.9),
                             squeeze=False, sharey=True)
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {"synthetic": palette[0], "original": palette[1]}
    for ax, target in zip(axes[0], targets, strict=True):
        rows = table[table["target"] == target]
        if rows.empty:
            raise CapkitError(f"target {target!r} is not in the table")
        attackers = [a for a in pd.unique(rows["attacker"]) if a != "dummy"]
        x = np.arange(len(attackers))
        for k, (trained, scored) in enumerate(SERIES):
            points = [rows[(rows["attacker"] == a) & (rows["trained_on"] == trained)
                           & (rows["scored_on"] == scored)] for a in attackers]
            shown = [(i, _interval(p)) for i, p in enumerate(points) if len(p)]
            if not shown:
                continue
            xs = x[[i for i, _ in shown]] + (k - 1.5) * 0.17
            means = np.array([v[0] for _, v in shown])
            errors = np.array([[v[1] for _, v in shown], [v[2] for _, v in shown]])
            filled = scored == "members"
            ax.errorbar(xs, means, yerr=errors, fmt="o", color=colour[trained],
                         markerfacecolor=colour[trained] if filled else "white", markersize=5,
                         capsize=2, linewidth=1, label=f"trained on {trained}, {scored}")
        for scored, style in (("members", "--"), ("holdout", ":")):
            dummy = rows[(rows["attacker"] == "dummy") & (rows["scored_on"] == scored)]
            if len(dummy):
                ax.axhline(float(dummy["rate"].mean()), color="grey", linestyle=style,
                           linewidth=1, label=f"dummy, {scored}")
        kind = rows["kind"].iloc[0] if "kind" in rows.columns else "categorical"
        ax.set_xticks(x, attackers, rotation=45, ha="right")
        ax.set_title(f"target {target}" + (" (within tolerance)" if kind == "numeric" else ""),
                     fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("share of records predicted correctly")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize=8,
               bbox_to_anchor=(0.5, -0.02))
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig


__all__ = ["attack_rates"]
