"""synthpop's ``utility.tables`` (every one-, two- or three-way table) and the utility part of
``compare`` (each variable alone).

Raab, Nowok & Dibben, "Assessing, visualizing and improving the utility of synthetic data"
(2021), section 4, and synthpop 1.9-2's ``utility.tables`` and ``compare``: the statistics of
:func:`capkit.utility.one_table` for every combination of the variables, averaged over the
syntheses; the ``nworst`` tables with the largest ``plot_stat``; each variable's mean
``plot_stat`` over the tables that contain it (``var_scores``). Each variable is grouped and
coded once and reused by every table it is in (its coding does not depend on the others).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.utility import inputs
from capkit.utility.frequencies import frequency_tables
from capkit.utility.one_table import TAB_STATS, code_variable, sparse_warning, tab_from_coded
from capkit.utility.result import UtilityResult

#: compare()'s "all" (utility.tab's statistics without dfG).
COMPARE_STATS = TAB_STATS[:-1]
_WAYS = {"oneway": 1, "twoway": 2, "threeway": 3}


def _stats(requested: Any, allowed: Sequence[str], argument: str, default: Sequence[str]
           ) -> list[str]:
    if requested is None:
        return list(default)
    names = [requested] if isinstance(requested, str) else list(requested)
    bad = [s for s in names if s not in (*allowed, "all")]
    if bad:
        raise CapkitError(f"{argument}: {bad} not among {list(allowed)} or 'all'")
    return list(allowed) if "all" in names else names


def _check_plot_stat(plot_stat: str, argument: str) -> None:
    if plot_stat not in TAB_STATS[:-2]:
        raise CapkitError(f"{argument} must be one of {list(TAB_STATS[:-2])}, got {plot_stat!r}")


def tables(synthetic: Any, original: pd.DataFrame, *, tables: str = "twoway",
           maxtables: int = 50_000, vars: Sequence[str] | None = None,
           third_var: str | None = None, useNA: bool = True, ngroups: int = 5,
           tab_stats: Any = ("pMSE", "S_pMSE", "df"), plot_stat: str = "S_pMSE",
           max_table: float = 1e7, max_scale: float | None = None, nworst: int = 5,
           k_syn: bool = False, cont_na: Mapping[str, Any] | None = None, seed: int = 0,
           compat: str | None = None) -> UtilityResult:
    """synthpop's ``utility.tables(synthetic, original, ...)``.

    Returns
    -------
    UtilityResult
        ``tabs`` (DataFrame: one row per table, indexed ``"sex:age"``, the ``tab_stats``
        columns, each the mean over the syntheses), ``worstn`` (Series: the ``nworst`` largest
        ``plot_stat`` values), ``worsttabs`` (their tables), ``var_scores`` (Series, decreasing),
        ``third_var``, ``plot_data`` (X1, X2, val as synthpop plots them, capped at
        ``max_scale``), ``row_names`` (synthpop's row names, ``"01.sex:02.age"``), ``warnings``.
    """
    inputs.check_compat(compat)
    if tables not in _WAYS:
        raise CapkitError(f"tables must be 'oneway', 'twoway' or 'threeway', got {tables!r}")
    stats = _stats(tab_stats, TAB_STATS, "tab_stats", ("pMSE", "S_pMSE", "df"))
    _check_plot_stat(plot_stat, "plot_stat")
    frames = inputs.syntheses(synthetic)
    original = inputs.original_frame(original)
    names = inputs.select_vars(frames, original, vars)
    position = {c: i for i, c in enumerate(frames[0].columns)}
    names = sorted(names, key=position.__getitem__)
    inputs.check_types(frames, original, names)
    codes = inputs.cont_na_codes(cont_na, original)
    ways = _WAYS[tables]
    if len(names) < ways:
        raise CapkitError(f"{tables} tables need at least {ways} variables, got {names}")
    width = len(str(max(position[c] + 1 for c in names)))
    label = {c: f"{position[c] + 1:0{width}d}.{c}" for c in names}
    combos = list(combinations(names, ways))
    if len(combos) > maxtables:
        pick = np.sort(np.random.default_rng(seed).choice(len(combos), maxtables, False))
        combos = [combos[i] for i in pick]
    coded = {v: code_variable(original, frames, v, ngroups=ngroups, codes=codes.get(v, ()),
                              useNA=useNA, compat=compat) for v in names}
    rows, vals, results = [], [], []
    warnings: list[str] = []
    for combo in combos:
        size = float(np.prod([len(coded[v].levels[0]) for v in combo], dtype=float))
        if size > max_table:
            raise CapkitError(f"the table of {list(combo)} has {size:.0f} cells, more than "
                              f"max_table = {max_table:.0f}")
        res = tab_from_coded([coded[v] for v in combo], list(combo), len(frames), k_syn,
                             keep_tables=False)
        rows.append([float(np.mean(res[s])) for s in stats])
        vals.append(float(np.mean(res[plot_stat])))
        results.append(res)
        warnings += sparse_warning(size, len(original))
    index = [":".join(c) for c in combos]
    tabs = pd.DataFrame(rows, index=pd.Index(index, name="table"), columns=stats)
    val = np.asarray(vals)
    order = np.argsort(-np.where(np.isnan(val), -np.inf, val), kind="stable")
    n_worst = min(len(combos), int(nworst))
    worst = order[:n_worst]
    worstn = pd.Series(val[worst], index=[index[i] for i in worst], name=plot_stat)
    worsttabs = {}
    for i in worst:
        full = tab_from_coded([coded[v] for v in combos[i]], list(combos[i]), len(frames),
                              k_syn, keep_tables=True)
        worsttabs[index[i]] = {"tab_obs": full["tab_obs"], "tab_syn": full["tab_syn"]}
    member = np.array([[v in c for c in combos] for v in names])
    scores = (member * val[None, :]).sum(axis=1) / member.sum(axis=1)
    var_order = np.argsort(-scores, kind="stable")
    var_scores = pd.Series(scores[var_order], index=[names[i] for i in var_order],
                           name=plot_stat)
    third = None
    if ways == 3:
        if third_var is None:
            third = var_scores.index[0]
        elif third_var not in names:
            raise CapkitError(f"third_var {third_var!r} is not among the variables {names}")
        else:
            third = third_var
    plot_data = _plot_data(combos, val, third, label)
    if max_scale is not None:
        plot_data["val"] = np.minimum(plot_data["val"], max_scale)
    return UtilityResult(
        tabs=tabs, plot_stat=plot_stat, tables=tables, third_var=third, var_scores=var_scores,
        worstn=worstn, worsttabs=worsttabs, nworst=n_worst, plot_data=plot_data,
        max_scale=max_scale if max_scale is not None else float(np.nanmax(plot_data["val"])),
        row_names=[":".join(label[v] for v in c) for c in combos], m=len(frames),
        warnings=sorted(set(warnings)))


def _plot_data(combos: list[tuple[str, ...]], val: np.ndarray, third: str | None,
               label: dict[str, str]) -> pd.DataFrame:
    """synthpop's ``toplot``: X1, X2 and the value (both orders for two-way tables; the tables
    with ``third`` for three-way ones, the other two variables as X1 and X2)."""
    if len(combos[0]) == 1:
        return pd.DataFrame({"X1": [label[c[0]] for c in combos], "X2": "", "val": val})
    if len(combos[0]) == 2:
        x1 = [label[c[0]] for c in combos]
        x2 = [label[c[1]] for c in combos]
        return pd.DataFrame({"X1": x1 + x2, "X2": x2 + x1, "val": np.r_[val, val]})
    keep = [i for i, c in enumerate(combos) if third in c]
    pairs = [[v for v in combos[i] if v != third] for i in keep]
    x1 = [label[p[0]] for p in pairs]
    x2 = [label[p[1]] for p in pairs]
    v = val[keep]
    return pd.DataFrame({"X1": x1 + x2, "X2": x2 + x1, "val": np.r_[v, v]})


def compare(synthetic: Any, original: pd.DataFrame, *, vars: Sequence[str] | None = None,
            ngroups: int = 5, utility_stats: Any = ("pMSE", "S_pMSE", "df"),
            utility_for_plot: str | None = "S_pMSE", stat: str = "percents",
            cont_na: Mapping[str, Any] | None = None, compat: str | None = None
            ) -> UtilityResult:
    """synthpop's ``compare(synthetic, original, ...)`` without its plots: ``utility.tab`` of
    each variable alone, and each variable's frequency table.

    Returns
    -------
    UtilityResult
        ``tab_utility`` (DataFrame indexed by variable; the ``utility_stats`` columns, then
        ``utility_for_plot`` when it is not among them; means over the syntheses), ``tables``
        ({variable: DataFrame}: rows observed / synthetic, columns the levels or histogram
        bins, see :mod:`capkit.utility.frequencies`), ``vars``, ``stat``.
    """
    inputs.check_compat(compat)
    stats = _stats(utility_stats, COMPARE_STATS, "utility_stats", ("pMSE", "S_pMSE", "df"))
    if utility_for_plot is not None:
        _check_plot_stat(utility_for_plot, "utility_for_plot")
        if utility_for_plot not in stats:
            stats.append(utility_for_plot)
    if stat not in ("percents", "counts"):
        raise CapkitError(f"stat must be 'percents' or 'counts', got {stat!r}")
    frames = inputs.syntheses(synthetic)
    original = inputs.original_frame(original)
    names = inputs.select_vars(frames, original, vars)
    inputs.check_types(frames, original, names)
    codes = inputs.cont_na_codes(cont_na, original)
    rows = []
    for v in names:
        c = code_variable(original, frames, v, ngroups=ngroups, codes=codes.get(v, ()),
                          useNA=True, compat=compat)
        res = tab_from_coded([c], [v], len(frames), False, keep_tables=False)
        rows.append([float(np.mean(res[s])) for s in stats])
    tab_utility = pd.DataFrame(rows, index=pd.Index(names, name="variable"), columns=stats)
    tabs = frequency_tables(original, frames, names, codes, stat)
    return UtilityResult(tab_utility=tab_utility, tables=tabs, vars=names, stat=stat,
                         m=len(frames))
