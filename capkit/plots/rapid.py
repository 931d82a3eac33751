"""Figure of RAPID's threshold curves (Templ, Thees & Müller 2026, Figure 4b): the share of
records at risk against the normalized-gain threshold tau, one line per dependency strength
kappa, capkit's mean -/+ 1 sd over replications beside the paper's printed points."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from capkit.errors import CapkitError


def threshold_curves(summary: pd.DataFrame, paper: dict | None = None, *,
                     title: str | None = None) -> Figure:
    """RAPID against tau per kappa.

    Parameters
    ----------
    summary
        Rows with ``kappa``, ``tau``, ``rapid_mean`` and ``rapid_sd`` (as
        :func:`capkit.papers.templ_thees_mueller.experiments.simulation_summary` gives them,
        one attacker).
    paper
        ``{kappa: {tau: (mean, sd)}}``: the paper's points, drawn as hollow markers with
        +-1 sd bars.
    title
        Figure title.
    """
    needed = ["kappa", "tau", "rapid_mean", "rapid_sd"]
    missing = [c for c in needed if c not in summary.columns]
    if missing:
        raise CapkitError(f"summary lacks columns {missing}; pass simulation_summary's result")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    colours = plt.get_cmap("viridis")
    kappas = sorted(summary["kappa"].unique())
    for i, kappa in enumerate(kappas):
        rows = summary[summary["kappa"] == kappa].sort_values("tau")
        colour = colours(i / max(len(kappas) - 1, 1))
        ax.plot(rows["tau"], rows["rapid_mean"], color=colour, label=f"kappa = {kappa:g}")
        ax.fill_between(rows["tau"], rows["rapid_mean"] - rows["rapid_sd"].fillna(0),
                        rows["rapid_mean"] + rows["rapid_sd"].fillna(0), color=colour,
                        alpha=0.2, linewidth=0)
        if paper and kappa in paper:
            taus = sorted(paper[kappa])
            ax.errorbar(taus, [paper[kappa][t][0] for t in taus],
                        yerr=[paper[kappa][t][1] for t in taus], fmt="o", mfc="none",
                        color=colour, capsize=3)
    ax.set_xlabel("normalized-gain threshold tau")
    ax.set_ylabel("RAPID (share of records at risk)")
    ax.set_ylim(0, 1)
    ax.legend(title="line: capkit; circles: paper", fontsize=8, title_fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


__all__ = ["threshold_curves"]
