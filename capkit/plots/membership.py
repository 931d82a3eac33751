"""Figure of membership inference on one release: the ROC curve of every attack on log-log
axes, as Carlini et al. ("Membership Inference Attacks From First Principles", S&P 2022,
section III) recommend so that the low-FPR regime is visible, and the distribution of each
attack's scores on the members and on the holdout."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from capkit.errors import CapkitError
from capkit.membership_inference.metrics import roc_curve


def membership_roc(per_record: pd.DataFrame, *, title: str | None = None) -> Figure:
    """ROC curves (log-log) and score distributions of the attacks of one release.

    Parameters
    ----------
    per_record
        :func:`capkit.membership_inference.scores`' result: a boolean ``member`` column and one
        column per attack (columns that are all NaN are skipped; an attack scored on a sample,
        NaN outside it, is drawn from the sampled records).
    title
        Figure title.

    Returns
    -------
    Figure
        Left: TPR against FPR on log axes from 1 / (number of non-members) to 1, with the
        diagonal of a random guess. Right: one row per attack, the members' and the holdout's
        scores as histograms over the same bins (ranks scaled to [0, 1], so that attacks with
        different units share an axis).
    """
    if "member" not in per_record.columns:
        raise CapkitError("per_record needs a boolean 'member' column (scores' result)")
    attacks = [c for c in per_record.columns if c != "member" and per_record[c].notna().any()]
    if not attacks:
        raise CapkitError("per_record holds no attack with scores: nothing to draw")
    member = per_record["member"].to_numpy(dtype=bool)
    n_non = int((~member).sum())
    fig = plt.figure(figsize=(11, max(4.0, 0.55 * len(attacks) + 1.5)))
    grid = fig.add_gridspec(len(attacks), 2, width_ratios=(1.2, 1))
    ax = fig.add_subplot(grid[:, 0])
    floor = 1.0 / max(n_non, 1)
    colours = plt.get_cmap("tab10")
    # an attack scored on a sample (NaN outside it) is drawn from its sampled records
    scored = {a: per_record[a].notna().to_numpy() for a in attacks}
    for i, attack in enumerate(attacks):
        fpr, tpr, _ = roc_curve(per_record[attack][scored[attack]], member[scored[attack]])
        ax.step(np.maximum(fpr, floor), np.maximum(tpr, floor), where="post",
                label=attack, color=colours(i % 10), lw=1.2)
    line = np.array([floor, 1.0])
    ax.plot(line, line, color="grey", ls=":", lw=1, label="random guess")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(floor, 1)
    ax.set_ylim(floor, 1)
    ax.set_xlabel("false-positive rate (holdout flagged)")
    ax.set_ylabel("true-positive rate (members flagged)")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("ROC, log-log")
    bins = np.linspace(0, 1, 21)
    for i, attack in enumerate(attacks):
        sub = fig.add_subplot(grid[i, 1])
        values, flags = per_record[attack][scored[attack]], member[scored[attack]]
        ranks = ((values.rank(method="average") - 1) / max(len(values) - 1, 1)).to_numpy()
        sub.hist(ranks[flags], bins=bins, density=True, histtype="step", color=colours(i % 10),
                 label="members")
        sub.hist(ranks[~flags], bins=bins, density=True, histtype="stepfilled", alpha=0.3,
                 color="grey", label="holdout")
        sub.set_yticks([])
        sub.set_ylabel(attack, rotation=0, ha="right", va="center", fontsize=7)
        if i < len(attacks) - 1:
            sub.set_xticks([])
        else:
            sub.set_xlabel("score rank (0 = least, 1 = most member-like)")
        if i == 0:
            sub.legend(fontsize=6, loc="upper left")
            sub.set_title("score distributions")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


__all__ = ["membership_roc"]
