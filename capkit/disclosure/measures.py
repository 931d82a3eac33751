"""synthpop's disclosure measures from aligned cells (spec sections 4.2-4.4).

Raab, Nowok & Dibben (2024, "Practical privacy metrics for synthetic data", Appendix) define
identity measures (UiO, UiS, UiOiS, repU) and attribute measures (Dorig, Dsyn, iS, DiS, DiSCO,
DiSDiO, and the CAP family baseCAPd, CAPd, CAPs, DCAP, TCAP) on the table d[t, q] of original
records by target level t and quasi-identifier q, and the table s[t, q] of synthetic records.
Where the synthpop 1.9-2 code and the paper's formulas differ, the code wins (spec 4.5): UiS is
over Ns, iS tests the synthetic column total, baseCAPd is 100 * sum_t (d_t. / Nd)^2 before
exclusions, and max_denom / mean_denom are the original counts of the DiSCO cells, mean_denom
averaging over cells.

Everything here works on the non-zero cells of a :class:`~capkit.counts.cells.CellTable`;
there is no loop over records, cells or key combinations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from capkit.counts.cells import CellTable
from capkit.errors import CapkitError

#: The eight cell tables, in synthpop's order (rows of Nexclusions).
TABLES = ("original", "synthetic", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO")
#: Exclusion reasons (columns of Nexclusions); note the double space, as in synthpop.
REASONS = ("excluded target", "missing target", "missing in  keys", "set to exclude",
           "over denom_lim", "remaining")
IDENT = ("UiO", "UiS", "UiOiS", "repU")
ATTRIB = ("Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO", "max_denom", "mean_denom")
ALLCAPS = ("baseCAPd", "CAPd", "CAPs", "DCAP", "TCAP")


@dataclass(frozen=True)
class Exclusions:
    """What to exclude from the tables (spec 4.3), already resolved to labels.

    ``keys_na_excluded[i]`` is True when missing values of key i (data order) are excluded
    (synthpop's ``usekeysNA[i] = FALSE``). ``triples`` holds (key index, key level, target
    level) for ``exclude.keys`` / ``exclude.keylevs`` / ``exclude.targetlevs``.
    """

    not_targetlev: str | None = None
    usetarget_na: bool = True
    keys_na_excluded: tuple[bool, ...] = ()
    triples: tuple[tuple[int, str, str], ...] = ()
    denom_lim: int | None = 5
    exclude_ov_denom_lim: bool = False
    missing_label: str = "Missing"


@dataclass
class SynthesisMeasures:
    """All measures of one synthesis, the excluded tables and the exclusion counts."""

    ident: dict[str, float]
    attrib: dict[str, float]
    allcaps: dict[str, float]
    nexclusions: pd.DataFrame
    tables: dict[str, np.ndarray] = field(repr=False)


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num), dtype=float)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


def cell_tables(cells: CellTable) -> dict[str, np.ndarray]:
    """The eight cell tables of spec 4.2, on the cells of ``cells``, before exclusions.

    Disclosiveness is decided here, on the unexcluded tables (quirk Q11).
    """
    n_cols = cells.shape[1]
    col, d, s = cells.col, cells.d, cells.s
    dq = np.bincount(col, weights=d, minlength=n_cols).astype(np.int64)
    sq = np.bincount(col, weights=s, minlength=n_cols).astype(np.int64)
    pd1 = (d == dq[col]) & (d > 0)
    ps1 = (s == sq[col]) & (s > 0)
    col_ps1 = np.bincount(col[ps1], minlength=n_cols) > 0
    return {
        "original": d,
        "synthetic": s,
        "Dorig": np.where(pd1, d, 0),
        "Dsyn": np.where(ps1, s, 0),
        "iS": np.where(sq[col] > 0, d, 0),
        "DiS": np.where(col_ps1[col], d, 0),
        "DiSCO": np.where(ps1, d, 0),
        "DiSDiO": np.where(ps1 & pd1, d, 0),
    }


def exclusion_masks(cells: CellTable, options: Exclusions) -> list[np.ndarray | None]:
    """Cell masks of the exclusion steps 1-4 of spec 4.3 (step 5 depends on each table)."""
    rows = np.asarray(cells.row_labels, dtype=object)
    row_label = rows[cells.row] if len(rows) else np.array([], dtype=object)
    masks: list[np.ndarray | None] = [None, None, None, None]
    if options.not_targetlev not in (None, ""):
        masks[0] = row_label == options.not_targetlev
    if not options.usetarget_na and cells.orig_target_missing:
        masks[1] = row_label == options.missing_label
    comps = [np.asarray(c, dtype=object) for c in cells.col_components]
    missing_cols = np.zeros(cells.shape[1], dtype=bool)
    for i, excluded in enumerate(options.keys_na_excluded):
        if excluded and i < len(comps):
            missing_cols |= comps[i] == options.missing_label
    if any(options.keys_na_excluded):
        masks[2] = missing_cols[cells.col]
    if options.triples:
        mask = np.zeros(len(cells.row), dtype=bool)
        for key_index, key_level, target_level in options.triples:  # one per excluded triple
            cols = comps[key_index] == key_level
            mask |= (row_label == target_level) & cols[cells.col]
        masks[3] = mask
    return masks


def apply_exclusions(tables: dict[str, np.ndarray], cells: CellTable, options: Exclusions
                     ) -> tuple[dict[str, np.ndarray], pd.DataFrame]:
    """Zero excluded cells of each table, counting what each step removed (spec 4.3).

    The steps run in synthpop's order (not.targetlev, missing target, missing keys, excluded
    triples, over denom_lim); a cell counts only for the first step that zeroes it.
    """
    masks = exclusion_masks(cells, options)
    excluded: dict[str, np.ndarray] = {}
    counts = np.zeros((len(TABLES), len(REASONS)), dtype=np.int64)
    for t, name in enumerate(TABLES):
        x = tables[name].copy()
        total = int(x.sum())
        for step, mask in enumerate(masks):
            if mask is not None:
                counts[t, step] = int(x[mask].sum())
                x[mask] = 0
        if options.exclude_ov_denom_lim and options.denom_lim is not None:
            over = x > options.denom_lim
            counts[t, 4] = int(x[over].sum())
            x[over] = 0
        counts[t, 5] = total - int(counts[t, :5].sum())
        excluded[name] = x
    frame = pd.DataFrame(counts, index=list(TABLES), columns=list(REASONS))
    return excluded, frame


def compute(cells: CellTable, options: Exclusions | None = None) -> SynthesisMeasures:
    """All measures of spec 4.4 for one synthesis.

    Parameters
    ----------
    cells
        Aligned cells (from :func:`capkit.counts.cells.build_cells` or any engine that
        produces the same counts).
    options
        Exclusions; default none.

    Returns
    -------
    SynthesisMeasures
        ``ident`` (UiO, UiS, UiOiS, repU), ``attrib`` (Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO,
        max_denom, mean_denom), ``allcaps`` (baseCAPd, CAPd, CAPs, DCAP, TCAP) in percent
        (except max_denom, mean_denom), unrounded; ``nexclusions`` (8 x 6) and the excluded
        cell tables.
    """
    options = options or Exclusions()
    if cells.n_orig <= 0 or cells.n_syn <= 0:
        raise CapkitError("original and synthetic data must each have at least one record")
    n_rows, n_cols = cells.shape
    nd, ns = float(cells.n_orig), float(cells.n_syn)
    col = cells.col
    tables = cell_tables(cells)
    ex, nexcl = apply_exclusions(tables, cells, options)
    d1, s1 = ex["original"], ex["synthetic"]
    dq = np.bincount(col, weights=d1, minlength=n_cols)
    sq = np.bincount(col, weights=s1, minlength=n_cols)
    uniq_o = dq == 1
    ident = {
        "UiO": 100 * float(uniq_o.sum()) / nd,
        "UiS": 100 * float((sq == 1).sum()) / ns,
        "UiOiS": 100 * float((uniq_o & cells.col_in_synthetic).sum()) / nd,
        "repU": 100 * float((uniq_o & (sq == 1)).sum()) / nd,
    }
    disco = ex["DiSCO"]
    positive = disco[disco > 0]
    attrib = {
        "Dorig": 100 * float(ex["Dorig"].sum()) / nd,
        "Dsyn": 100 * float(ex["Dsyn"].sum()) / ns,
        "iS": 100 * float(ex["iS"].sum()) / nd,
        "DiS": 100 * float(ex["DiS"].sum()) / nd,
        "DiSCO": 100 * float(disco.sum()) / nd,
        "DiSDiO": 100 * float(ex["DiSDiO"].sum()) / nd,
        "max_denom": float(positive.max()) if len(positive) else 0.0,
        "mean_denom": float(positive.mean()) if len(positive) else float("nan"),
    }
    row_tot = np.bincount(cells.row, weights=cells.d, minlength=n_rows)
    pd_ = _safe_div(d1.astype(float), dq[col])
    ps_ = _safe_div(s1.astype(float), sq[col])
    tcap_den = float(dq[sq > 0].sum())
    allcaps = {
        "baseCAPd": 100 * float(np.sum((row_tot / nd) ** 2)),
        "CAPd": 100 * float(np.sum(d1 * pd_)) / nd,
        "CAPs": 100 * float(np.sum(s1 * ps_)) / ns,
        "DCAP": 100 * float(np.sum(ps_ * d1)) / nd,
        "TCAP": (100 * float(disco.sum()) / tcap_den) if tcap_den > 0 else float("nan"),
    }
    return SynthesisMeasures(ident, attrib, allcaps, nexcl, ex)


def cap_v2(dcap: np.ndarray | pd.Series, i_s: np.ndarray | pd.Series) -> np.ndarray:
    """Baillargeon & Charest's average CAP version 2 (Definition 3), in percent, from synthpop's
    DCAP and iS of each synthesis: ``100 * DCAP / iS``.

    DCAP is the average CAP version 1 (Definition 2) in percent and iS the percentage of
    original records whose key occurs in the synthetic data, so their ratio averages the CAP
    over those records only. NaN where iS = 0 (no key in common: undefined).
    """
    dcap = np.asarray(dcap, dtype=float)
    i_s = np.asarray(i_s, dtype=float)
    return np.divide(100 * dcap, i_s, out=np.full(dcap.shape, np.nan), where=i_s > 0)
