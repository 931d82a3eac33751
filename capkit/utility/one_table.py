"""synthpop's ``utility.tab``: how well the synthetic data reproduce one table of the original.

Raab, Nowok & Dibben, "Assessing, visualizing and improving the utility of synthetic data"
(2021, arXiv:2109.12717), section 3, and synthpop 1.9-2's ``utility.tab``: the original and
each synthesis are cross-tabulated on ``vars`` (numeric variables grouped by
:func:`capkit.utility.grouping.group_num`, missing values a level when ``useNA``); cells empty
in both are dropped (``nempty``); with o and s the counts of the k cells left, N = sum(o + s),
c = sum(s) / N:

* ``VW = sum((s - o c/(1-c))^2 / ((o + s) c))`` (Voas-Williamson), ``df = k - 1`` (k with
  ``k_syn``), ``S_VW = S_pMSE = VW / df``, ``pMSE = VW c (1-c)^2 / N``;
* ``FT = 4 sum((sqrt(s) - sqrt(o c/(1-c)))^2)`` (Freeman-Tukey), ``S_FT = FT / df``;
* ``JSD``: Jensen-Shannon divergence (log 2) of the two cell distributions,
  ``S_JSD = JSD 2 N / df / log 2``;
* ``G = 2 sum(s log((s/sum s)/(o/sum o)))`` over cells with both counts, ``dfG``, ``S_G``;
* ``SPECKS`` and ``U``: Kolmogorov-Smirnov D and Wilcoxon W of the cell score s/(s+o) weighted
  by s against weighted by o; ``PO50``, ``MabsDD``, ``WMabsDD`` (``S_WMabsDD``), ``dBhatt``;
* ``tab_zdiff = (s - o c/(1-c)) / sqrt((s + o) c)`` per cell.

The cell counts come from the counting layer (:func:`capkit.counts.cells.count_cells`); no
Python loop over records or cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from capkit.counts.cells import count_cells
from capkit.errors import CapkitError
from capkit.utility import inputs
from capkit.utility.grouping import group_num
from capkit.utility.ranks import ks_statistic, wilcoxon_w
from capkit.utility.result import UtilityResult

#: Every statistic utility.tab returns, in synthpop's order.
TAB_STATS = ("VW", "FT", "JSD", "SPECKS", "WMabsDD", "U", "G", "pMSE", "PO50", "MabsDD",
             "dBhatt", "S_VW", "S_FT", "S_JSD", "S_WMabsDD", "S_G", "S_pMSE", "df", "dfG")


@dataclass
class Coded:
    """One variable coded for tables: codes (-1 = left out) of the original and of each
    synthesis, and the level labels (synthpop's factor levels, NA last when it is a level)."""

    original: np.ndarray
    syntheses: list[np.ndarray]
    levels: list[list[str]]        # per synthesis (grouped numbers may differ between them)


def _cat_codes(orig: pd.Series, syns: list[pd.Series], name: str, compat: str | None
               ) -> tuple[np.ndarray, list[np.ndarray], list[str]]:
    o = inputs.as_categorical(orig)
    cats = list(o.categories)
    for j, s in enumerate(syns):
        sc = inputs.as_categorical(s)
        extra = [c for c in sc.categories if c not in cats]
        if extra:
            if compat == "synthpop" or not isinstance(s.dtype, pd.CategoricalDtype):
                raise CapkitError(
                    f"column {name!r}: synthetic[{j}] has levels {extra[:5]} that the original "
                    "has not (synthpop stops: the tables' dimensions do not match)")
            cats = cats + extra
    codes_o = pd.Categorical(o, categories=cats).codes.astype(np.int64)
    codes_s = [pd.Categorical(inputs.as_categorical(s), categories=cats).codes.astype(np.int64)
               for s in syns]
    return codes_o, codes_s, [str(c) for c in cats]


def code_variable(original: pd.DataFrame, frames: list[pd.DataFrame], name: str, *,
                  ngroups: int, codes: tuple[float, ...], useNA: bool,
                  compat: str | None) -> Coded:
    """A variable of the table: grouped if numeric (per synthesis, as synthpop does), a
    missing-value level appended when ``useNA`` and the original has missing values."""
    orig = original[name]
    syns = [f[name] for f in frames]
    if inputs.is_numeric(orig):
        allsyn = np.concatenate([s.to_numpy(dtype=float) for s in syns])
        o_codes, s_codes, levels = None, [], []
        for s in syns:
            x1, x2 = group_num(orig.to_numpy(dtype=float), s.to_numpy(dtype=float), allsyn,
                               ngroups, codes=codes)
            if len(x1.categories) < 3:
                x1, x2 = group_num(orig.to_numpy(dtype=float), s.to_numpy(dtype=float),
                                   allsyn, ngroups, style="equal", codes=codes)
            o_codes = x1.codes.astype(np.int64) if o_codes is None else o_codes
            s_codes.append(x2.codes.astype(np.int64))
            levels.append([str(c) for c in x1.categories])
    else:
        o_codes, s_codes, cats = _cat_codes(orig, syns, name, compat)
        levels = [cats for _ in syns]
    na_o = bool((o_codes < 0).any())
    na_s = [bool((c < 0).any()) for c in s_codes]
    if useNA:
        if not na_o and any(na_s):
            j = na_s.index(True)
            if compat == "synthpop":
                raise CapkitError(
                    f"column {name!r}: synthetic[{j}] has missing values and the original has "
                    "none (synthpop stops: the tables' dimensions do not match)")
        if na_o or any(na_s):
            nlev = [len(lv) for lv in levels]
            o_codes = np.where(o_codes < 0, nlev[0], o_codes)
            s_codes = [np.where(c < 0, n, c) for c, n in zip(s_codes, nlev, strict=False)]
            levels = [lv + ["NA"] for lv in levels]
    return Coded(o_codes, s_codes, levels)


def table_stats(td: np.ndarray, ts: np.ndarray, k_syn: bool = False) -> dict[str, float]:
    """Every statistic of one pair of tables from the counts of the non-empty cells."""
    td = td.astype(float)
    ts = ts.astype(float)
    k = len(td)
    df = float(k if k_syn else k - 1)
    N = ts.sum() + td.sum()
    cc = ts.sum() / N
    expect = (ts + td) * cc
    diff = ts - td * cc / (1 - cc)
    with np.errstate(divide="ignore", invalid="ignore"):
        VW = float(np.sum(diff ** 2 / expect))
        FT = float(4 * np.sum((ts ** 0.5 - (cc / (1 - cc) * td) ** 0.5) ** 2))
        pd_ = td / td.sum()
        ps = ts / ts.sum()
        half = (pd_ + ps) * 0.5
        jsd = (np.sum((pd_ * np.log2(pd_ / half))[pd_ > 0]) / 2
               + np.sum((ps * np.log2(ps / half))[ps > 0]) / 2)
        both = (ts > 1e-8) & (td > 1e-8)
        sok, dok = ts[both], td[both]
        G = float(2 * np.sum(sok * np.log(sok / sok.sum() / dok * dok.sum())))
        dfG = float(len(dok) if k_syn else len(dok) - 1)
        score = ts / (ts + td)
        predsyn = ps > pd_
        out = {
            "VW": VW, "FT": FT, "JSD": float(jsd),
            "SPECKS": ks_statistic(score, ts, td), "WMabsDD": float(
                np.sum(np.abs(diff) / np.sqrt(expect)) / np.sqrt(2 / np.pi)),
            "U": wilcoxon_w(score, ts, td), "G": G,
            "pMSE": VW * cc * (1 - cc) ** 2 / N,
            "PO50": float((ts[predsyn].sum() + td[~predsyn].sum()) / (ts.sum() + td.sum())
                          * 100 - 50),
            "MabsDD": float(np.sum(np.abs(diff)) / ts.sum()),
            "dBhatt": float(np.sqrt(1 - np.sum(np.sqrt(pd_ * ps)))),
            "S_VW": VW / df, "S_FT": FT / df, "S_JSD": float(jsd * 2 * N / df / np.log(2)),
            "S_G": G / dfG, "S_pMSE": VW / df, "df": df, "dfG": dfG,
        }
        out["S_WMabsDD"] = out["WMabsDD"] / df
    return out


def _cells(coded: Sequence[Coded], i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Flat cell codes of the non-empty cells, their original and synthetic counts (synthesis
    i) and the number of cells of the full table."""
    n_o = len(coded[0].original)
    sizes = [len(c.levels[i]) for c in coded]
    flat_o = np.zeros(n_o, dtype=np.int64)
    flat_s = np.zeros(len(coded[0].syntheses[i]), dtype=np.int64)
    keep_o = np.ones(n_o, dtype=bool)
    keep_s = np.ones(len(flat_s), dtype=bool)
    # R's table: the first variable varies fastest
    for c, size in zip(reversed(coded), reversed(sizes), strict=True):
        keep_o &= c.original >= 0
        keep_s &= c.syntheses[i] >= 0
        flat_o = flat_o * size + np.maximum(c.original, 0)
        flat_s = flat_s * size + np.maximum(c.syntheses[i], 0)
    total = int(np.prod(sizes, dtype=np.int64))
    _, cell, d, s = count_cells(np.zeros(int(keep_o.sum()), dtype=np.int64), flat_o[keep_o],
                                np.zeros(int(keep_s.sum()), dtype=np.int64), flat_s[keep_s],
                                (1, total))
    return cell, d, s, total


def _long(coded: Sequence[Coded], names: list[str], i: int, cell: np.ndarray,
          values: dict[str, np.ndarray]) -> pd.DataFrame:
    sizes = [len(c.levels[i]) for c in coded]
    out: dict[str, Any] = {}
    rest = cell.copy()
    parts = []
    for size in sizes:
        rest, code = np.divmod(rest, size)
        parts.append(code)
    for c, name, code in zip(coded, names, parts, strict=False):
        out[name] = pd.Categorical.from_codes(code, categories=c.levels[i])
    out.update(values)
    return pd.DataFrame(out)


def tab_from_coded(coded: Sequence[Coded], names: list[str], m: int, k_syn: bool,
                   keep_tables: bool = True) -> UtilityResult:
    """utility.tab's result from variables coded by :func:`code_variable`."""
    per: dict[str, list[float]] = {s: [] for s in TAB_STATS}
    nempty = []
    tab_syn, tab_zdiff = [], []
    tab_obs = None
    for i in range(m):
        cell, d, s, total = _cells(coded, i)
        nempty.append(total - len(cell))
        stats = table_stats(d, s, k_syn)
        for key in TAB_STATS:
            per[key].append(stats[key])
        if keep_tables:
            cc = s.sum() / (s.sum() + d.sum())
            z = (s - d * cc / (1 - cc)) / np.sqrt((s + d) * cc)
            if tab_obs is None:
                tab_obs = _long(coded, names, i, cell, {"Freq": d})
            tab_syn.append(_long(coded, names, i, cell, {"Freq": s}))
            tab_zdiff.append(_long(coded, names, i, cell, {"zdiff": z}))
    res = UtilityResult({key: np.array(v, dtype=float) for key, v in per.items()})
    res["nempty"] = np.array(nempty, dtype=np.int64)
    res.update(m=m, k_syn=k_syn, vars=list(names))
    if keep_tables:
        res.update(tab_obs=tab_obs, tab_syn=tab_syn, tab_zdiff=tab_zdiff)
    return res


def tab(synthetic: Any, original: pd.DataFrame, vars: str | Sequence[str], *,
        cont_na: Mapping[str, Any] | None = None, ngroups: int = 5, useNA: bool = True,
        max_table: float = 1e6, k_syn: bool = False, compat: str | None = None
        ) -> UtilityResult:
    """synthpop's ``utility.tab(synthetic, original, vars, ...)``.

    Parameters
    ----------
    synthetic
        A DataFrame or a list of m DataFrames (m syntheses).
    original
        The original data.
    vars
        The table's variables (names, or 1-based positions).
    cont_na
        {column: [codes]}: values of a numeric column that stand for missing (kept as levels of
        their own when the column is grouped).
    ngroups
        Groups of each numeric variable (classInt quantile breaks; equal breaks when fewer than
        3 groups result, as synthpop does).
    useNA
        Missing values a level of their own (True, synthpop's default) or records with a
        missing value left out of both tables.
    max_table
        Largest number of cells of the table (synthpop's ``max.table``).
    k_syn
        Whether the synthesis had k = n records drawn so that the share c is fixed: one more df.
    compat
        None (capkit: a synthesis with missing values or levels the original has not gets a
        level for them) or ``"synthpop"`` (stop there, as synthpop does).

    Returns
    -------
    UtilityResult
        ``VW FT JSD SPECKS WMabsDD U G pMSE PO50 MabsDD dBhatt S_VW S_FT S_JSD S_WMabsDD S_G
        S_pMSE df dfG nempty`` (one value per synthesis), ``tab_obs``, ``tab_syn``,
        ``tab_zdiff`` (the non-empty cells, long), ``m``, ``warnings``.
    """
    inputs.check_compat(compat)
    frames = inputs.syntheses(synthetic)
    original = inputs.original_frame(original)
    names = inputs.select_vars(frames, original, vars, required=True)
    inputs.check_types(frames, original, names)
    codes = inputs.cont_na_codes(cont_na, original)
    coded = [code_variable(original, frames, v, ngroups=ngroups, codes=codes.get(v, ()),
                           useNA=useNA, compat=compat) for v in names]
    size = float(np.prod([len(c.levels[0]) for c in coded], dtype=float))
    if size > max_table:
        raise CapkitError(f"the table of {names} has {size:.0f} cells, more than max_table = "
                          f"{max_table:.0f} (synthpop stops here); group numbers with ngroups")
    res = tab_from_coded(coded, names, len(frames), k_syn)
    res["warnings"] = sparse_warning(size, len(original))
    return res


def sparse_warning(size: float, n: int) -> list[str]:
    """synthpop's warning for a table with more cells than half the records."""
    if size > n / 2:
        return [f"tables with {size:.0f} cells from {n} observations: results from sparse "
                "tables may be unreliable"]
    return []
