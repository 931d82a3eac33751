"""Figures of the custodian's report (:func:`capkit.audit.audit`): every finding's risk with its
interval (a forest plot), the worst verdict per synthesis and family (the verdict grid), the
distances to closest record of members and holdout with the near-copy threshold, and the
records at risk (the most exposed members and the measures flagging each).

They draw results the audit already holds (its findings, :attr:`capkit.audit.Audit.distances`);
nothing is measured again. Verdicts are coloured (Okabe & Ito's colour-blind-safe palette) and
readable without colour: each verdict has its own marker shape in the forest plot and is written
out in the grid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from capkit.audit.at_risk import FLAGS, WEIGHTS, Distances
from capkit.audit.findings import Finding
from capkit.audit.verdicts import LEVELS
from capkit.errors import CapkitError
from capkit.plots.save import svg_bytes
from capkit.plots.sweep import key_target_heatmap

__all__ = ["FLAG_COLOURS", "FLAG_LABELS", "MARKERS", "VERDICT_COLOURS",
           "distance_distributions", "findings_forest", "page_svg", "records_at_risk_grid",
           "verdict_grid"]

#: Verdict -> colour (Okabe & Ito: vermillion, orange, blue; grey for not measured, rule M1).
VERDICT_COLOURS = {"disclosive": "#D55E00", "review": "#E69F00", "not flagged": "#0072B2",
                   "not measured": "#999999"}
#: Verdict -> marker of the forest plot (square, triangle, circle, cross): readable in grey.
MARKERS = {"disclosive": "s", "review": "^", "not flagged": "o", "not measured": "x"}

#: Weight of a flag in the score -> the colour of its cell (Okabe & Ito: the heaviest
#: vermillion, then orange, sky blue, grey).
FLAG_COLOURS = {5.0: "#D55E00", 3.0: "#E69F00", 2.0: "#56B4E9", 1.0: "#BBBBBB"}
#: The word written in a flagged cell (so the grid reads without colour).
FLAG_LABELS = {"exact copy": "copy", "near copy": "near", "replicated unique": "repU",
               "DiSCO": "DiSCO", "attack": "attack", "singled out": "single",
               "sample unique": "unique"}

_NEEDED = ["synthesis", "family", "measure", "subject", "risk", "risk_low", "risk_high",
           "verdict"]


def _frame(findings: Sequence[Finding] | pd.DataFrame) -> pd.DataFrame:
    """The findings as a frame (``Audit.findings`` or ``Audit.to_frame()``), checked."""
    if isinstance(findings, pd.DataFrame):
        frame = findings
    elif isinstance(findings, Sequence) and all(isinstance(f, Finding) for f in findings):
        frame = pd.DataFrame([f.to_dict() for f in findings], columns=_NEEDED)
    else:
        raise CapkitError("findings must be Audit.findings (a list of Finding) or "
                          "Audit.to_frame()")
    missing = [c for c in _NEEDED if c not in frame.columns]
    if missing:
        raise CapkitError(f"findings lacks columns {missing}; pass Audit.to_frame()")
    if frame.empty:
        raise CapkitError("findings is empty: nothing to draw")
    unknown = sorted(set(frame["verdict"]) - set(LEVELS))
    if unknown:
        raise CapkitError(f"findings has verdicts {unknown}; a verdict is one of {LEVELS}")
    return frame


def findings_forest(findings: Sequence[Finding] | pd.DataFrame, *,
                    title: str | None = None) -> Figure:
    """Every finding's risk with its 95% interval, grouped: a row per family and synthesis.

    Parameters
    ----------
    findings
        ``Audit.findings`` or ``Audit.to_frame()``. The risk is anonymeter's
        (m - c) / (1 - c) in percent (Giomi et al. 2022), against the holdout (else the
        no-information baseline); findings without a risk (counts, or no control) are left out
        and counted in the x label.
    title
        Figure title.

    Returns
    -------
    Figure
        One panel per synthesis (in the findings' order), each with its own risk axis (the
        axis repeated, so that a long report reads without scrolling to the bottom); in a
        panel one row per measure family, labelled ``family (k findings)``, the family's
        findings as points with their intervals spread across the row; the marker's colour and
        shape give each finding's verdict, the word at the right the row's worst; the dotted
        line is a risk of 0. A report of hundreds of findings stays a few rows per synthesis.
    """
    frame = _frame(findings)
    risk = pd.to_numeric(frame["risk"], errors="coerce")
    rows = frame[risk.notna()].reset_index(drop=True)
    if rows.empty:
        raise CapkitError("no finding has a risk (no holdout and no baseline): nothing to draw")
    value = pd.to_numeric(rows["risk"], errors="coerce").to_numpy(dtype=float)
    low = pd.to_numeric(rows["risk_low"], errors="coerce").to_numpy(dtype=float)
    high = pd.to_numeric(rows["risk_high"], errors="coerce").to_numpy(dtype=float)
    low, high = np.where(np.isnan(low), value, low), np.where(np.isnan(high), value, high)
    names = list(pd.unique(rows["synthesis"]))
    families = {s: list(pd.unique(rows.loc[rows["synthesis"] == s, "family"])) for s in names}
    heights = [0.55 + 0.42 * len(families[s]) for s in names]
    fig, axes = plt.subplots(len(names), 1, figsize=(8.0, 0.6 + sum(heights)), sharex=True,
                             squeeze=False, gridspec_kw={"height_ratios": heights})
    lo = float(np.nanmin(low))
    hi = float(np.nanmax(high))
    pad = 0.04 * max(hi - lo, 1.0)
    skipped = len(frame) - len(rows)
    for ax, name in zip(axes[:, 0], names, strict=True):
        fams = families[name]
        y_of = {f: len(fams) - 1 - j for j, f in enumerate(fams)}
        mine = (rows["synthesis"] == name).to_numpy()
        fam = rows["family"].to_numpy()
        # each finding's place in its row: spread evenly across the band, in findings' order
        y = np.zeros(len(rows))
        for f in fams:  # a handful of families per synthesis
            at = np.flatnonzero(mine & (fam == f))
            y[at] = y_of[f] + (np.linspace(-0.3, 0.3, len(at)) if len(at) > 1 else 0.0)
        for level in LEVELS:
            on = mine & (rows["verdict"] == level).to_numpy()
            if not on.any():
                continue
            ax.errorbar(value[on], y[on], xerr=[value[on] - low[on], high[on] - value[on]],
                        fmt=MARKERS[level], color=VERDICT_COLOURS[level],
                        ecolor=VERDICT_COLOURS[level], markersize=5, capsize=1.5,
                        linewidth=0.9, label=level)
        ax.axvline(0.0, color="#555555", linestyle=":", linewidth=1)
        counts = {f: int((mine & (fam == f)).sum()) for f in fams}
        ax.set_yticks([y_of[f] for f in fams],
                      [f"{f} ({counts[f]})" for f in fams], fontsize=7)
        ax.set_ylim(-0.6, len(fams) - 0.4)
        for f in fams:
            worst_level = next(lv for lv in LEVELS if ((rows["verdict"] == lv).to_numpy()
                                                       & mine & (fam == f)).any())
            ax.annotate(worst_level, (1.01, y_of[f]), xycoords=("axes fraction", "data"),
                        fontsize=7, va="center", color="#222222")
        ax.set_title(str(name), fontsize=8, loc="left")
        ax.set_xlim(lo - pad, hi + pad)
        ax.tick_params(axis="x", labelbottom=True, labelsize=7)  # the axis on every panel
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    axes[-1, 0].set_xlabel("risk (m - c) / (1 - c), % with 95% interval"
                           + (f"; {skipped} finding(s) without a risk not drawn"
                              if skipped else ""))
    handles: dict[str, object] = {}
    for ax in axes[:, 0]:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    ordered = [lv for lv in LEVELS if lv in handles]
    axes[0, 0].legend([handles[lv] for lv in ordered], ordered, loc="lower center",
                      bbox_to_anchor=(0.5, 1.15), ncol=3, fontsize=8, frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def verdict_grid(findings: Sequence[Finding] | pd.DataFrame,
                 syntheses: Sequence[str] | None = None, *, title: str | None = None) -> Figure:
    """The worst verdict of each synthesis (rows) and measure family (columns).

    Parameters
    ----------
    findings
        ``Audit.findings`` or ``Audit.to_frame()``.
    syntheses
        Row order (default: as they first occur in the findings).
    title
        Figure title.

    Returns
    -------
    Figure
        Each cell coloured by the worst verdict of its findings and the verdict written in it;
        a family not measured on a synthesis shows "not measured" on white.
    """
    frame = _frame(findings)
    names = list(pd.unique(frame["synthesis"])) if syntheses is None else list(syntheses)
    if not names:
        raise CapkitError("syntheses is empty: nothing to draw")
    unknown = sorted(set(names) - set(frame["synthesis"]))
    if unknown:
        raise CapkitError(f"syntheses names {unknown}, which have no finding")
    families = list(pd.unique(frame["family"]))
    rank = frame["verdict"].map({v: j for j, v in enumerate(LEVELS)})
    worst = rank.groupby([frame["synthesis"], frame["family"]]).min()
    fig, ax = plt.subplots(figsize=(max(4.0, 1.25 * len(families) + 2.2),
                                    0.9 + 0.45 * len(names)))
    for i, name in enumerate(names):
        for j, family in enumerate(families):
            level = LEVELS[int(worst[(name, family)])] if (name, family) in worst.index else None
            colour = VERDICT_COLOURS[level] if level else "#ffffff"
            ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor=colour, edgecolor="#ffffff",
                                       linewidth=2))
            ax.text(j + 0.5, i + 0.5, level or "not measured", ha="center", va="center",
                    fontsize=8, color="#000000" if level in (None, "review") else "#ffffff",
                    fontweight="bold" if level == "disclosive" else "normal")
    ax.set_xlim(0, len(families))
    _cell_grid(ax, families, names, 8, title)
    fig.tight_layout()
    return fig


def _cell_grid(ax: plt.Axes, columns: list[str], rows: list[str], fontsize: int,
               title: str | None) -> None:
    """Axes of a grid of cells: a column label above each (slanted) and a row label beside
    each, no ticks, no frame."""
    ax.set_ylim(len(rows), 0)
    ax.set_xticks(np.arange(len(columns)) + 0.5, columns, fontsize=fontsize, rotation=20,
                  ha="right")
    ax.set_yticks(np.arange(len(rows)) + 0.5, rows, fontsize=fontsize)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title:
        ax.set_title(title)


def distance_distributions(distances: Mapping[str, Distances], *, bins: int = 40,
                           title: str | None = None) -> Figure:
    """The distances to closest record of members and holdout, one panel per synthesis.

    Parameters
    ----------
    distances
        Synthesis -> :class:`capkit.audit.at_risk.Distances` (``Audit.distances``): each
        record's Gower distance (0-1) to the closest synthetic record (Minieri 2022,
        :func:`capkit.distance.dcr`) and the near-copy threshold.
    bins
        Equal-width bins from 0 to the largest distance drawn (the same for both groups).
    title
        Figure title.

    Returns
    -------
    Figure
        Share of each group's records per bin (%): members as a filled, hatched histogram,
        the holdout as a dashed outline; the vertical line is the near-copy threshold (the
        holdout's 5% quantile). A synthesis that copies its members piles them up left of the
        line while the holdout stays right of it.
    """
    if not isinstance(distances, Mapping) or not distances:
        raise CapkitError("distances must be a non-empty mapping synthesis -> Distances "
                          "(Audit.distances)")
    if not isinstance(bins, int | np.integer) or bins < 1:
        raise CapkitError(f"bins must be a positive integer, got {bins!r}")
    groups = {}
    for name, d in distances.items():
        if not isinstance(d, Distances):
            raise CapkitError(f"distances[{name!r}] must be a Distances, got "
                              f"{type(d).__name__}")
        arrays = [np.asarray(a, dtype=float) for a in (d.members, d.holdout) if a is not None]
        for a in arrays:
            if a.ndim != 1 or not len(a) or not np.isfinite(a).all() or (a < 0).any():
                raise CapkitError(f"distances[{name!r}]: distances must be a non-empty 1-d "
                                  "array of finite values >= 0")
        groups[name] = arrays
    top = max(float(a.max()) for arrays in groups.values() for a in arrays)
    edges = np.linspace(0.0, top if top > 0 else 1.0, bins + 1)
    fig, axes = plt.subplots(len(groups), 1, figsize=(8.0, 0.6 + 2.0 * len(groups)),
                             squeeze=False, sharex=True)
    for ax, (name, arrays) in zip(axes[:, 0], groups.items(), strict=True):
        d = distances[name]
        members = arrays[0]
        ax.hist(members, bins=edges, weights=np.full(len(members), 100.0 / len(members)),
                color="#0072B2", alpha=0.55, hatch="//", edgecolor="#0072B2",
                label=f"members ({len(members):,})")
        if d.holdout is not None:
            holdout = arrays[1]
            ax.hist(holdout, bins=edges, weights=np.full(len(holdout), 100.0 / len(holdout)),
                    histtype="step", color="#D55E00", linestyle="--", linewidth=1.5,
                    label=f"holdout ({len(holdout):,})")
        if d.near_cut is not None:
            ax.axvline(d.near_cut, color="#000000", linestyle=":", linewidth=1.2,
                       label=f"near-copy threshold {d.near_cut:.3g}")
        ax.set_title(name, fontsize=9, loc="left")
        ax.set_ylabel("% of records", fontsize=8)
        ax.legend(fontsize=7, frameon=False, loc="upper right")
    axes[-1, 0].set_xlabel("Gower distance to the closest synthetic record (0-1)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def records_at_risk_grid(table: pd.DataFrame, n: int = 10, *, title: str | None = None
                         ) -> Figure:
    """The ``n`` most exposed members of each synthesis and the measures flagging each.

    Parameters
    ----------
    table
        ``Audit.records_at_risk`` (:func:`capkit.audit.at_risk.records_at_risk`): one row per
        member and synthesis with the flags, ``score`` and ``rank``.
    n
        Members shown per synthesis (those with a score above 0, by rank).
    title
        Figure title.

    Returns
    -------
    Figure
        One row per member (``synthesis | row r``, rank 1 first), one column per flag: a
        flagged cell is coloured by the flag's weight in the score (:data:`FLAG_COLOURS`) and
        says which flag in words (:data:`FLAG_LABELS`), so the grid reads in grey; the score is
        written at the right. No key or target value is shown.
    """
    needed = ["synthesis", "row", "score", "rank", *FLAGS]
    if not isinstance(table, pd.DataFrame) or any(c not in table.columns for c in needed):
        raise CapkitError("table must be Audit.records_at_risk (columns synthesis, row, score, "
                          "rank and the flags)")
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 1:
        raise CapkitError(f"n must be a positive integer, got {n!r}")
    order = {v: j for j, v in enumerate(pd.unique(table["synthesis"]))}
    chosen = table[(table["score"] > 0) & (table["rank"] <= n)]
    if chosen.empty:
        raise CapkitError("no member is flagged by any measure: nothing to draw")
    chosen = chosen.iloc[np.lexsort((chosen["rank"].to_numpy(),
                                     chosen["synthesis"].map(order).to_numpy()))]
    flags = chosen[list(FLAGS)].to_numpy(dtype=bool)
    labels = [f"{s} | row {r}" for s, r in zip(chosen["synthesis"], chosen["row"], strict=True)]
    n_rows = len(chosen)
    fig, ax = plt.subplots(figsize=(8.0, 1.1 + 0.24 * n_rows))
    for j, flag in enumerate(FLAGS):  # one patch per cell of a small grid
        for i in np.flatnonzero(flags[:, j]):
            ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor=FLAG_COLOURS[WEIGHTS[flag]],
                                       edgecolor="#ffffff", linewidth=1.5))
            ax.text(j + 0.5, i + 0.5, FLAG_LABELS[flag], ha="center", va="center", fontsize=7,
                    color="#ffffff" if WEIGHTS[flag] >= 5 else "#000000")
    for i, score in enumerate(chosen["score"].to_numpy(dtype=float)):
        ax.text(len(FLAGS) + 0.15, i + 0.5, f"{score:g}", ha="left", va="center", fontsize=7)
    ax.text(len(FLAGS) + 0.15, -0.3, "score", ha="left", va="bottom", fontsize=7)
    ax.set_xlim(0, len(FLAGS) + 0.9)
    _cell_grid(ax, list(FLAGS), labels, 7, title)
    ax.set_xticks(np.arange(len(FLAGS) + 1), minor=True)
    ax.set_yticks(np.arange(n_rows + 1), minor=True)
    ax.grid(which="minor", color="#dddddd", linewidth=0.5)
    fig.tight_layout()
    return fig


def page_svg(kind: str, args: tuple, options: dict) -> bytes:
    """One picture of the report's html page as SVG bytes (:func:`capkit.plots.svg_bytes`):
    ``kind`` is "forest", "grid", "distances", "records" or "heatmap" (the key x target
    heatmap of :mod:`capkit.plots.sweep`), drawn from ``args`` and ``options``. The command
    draws some of them in the audit's second process (:mod:`capkit.processes`), which imports
    this module and not the command's."""
    draw = {"forest": findings_forest, "grid": verdict_grid,
            "distances": distance_distributions, "records": records_at_risk_grid,
            "heatmap": key_target_heatmap}
    fig = draw[kind](*args, **options)
    try:
        return svg_bytes(fig)
    finally:
        plt.close(fig)
