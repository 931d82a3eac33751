"""``disclosure_summary()``: synthpop 1.9-2's ``multi.disclosure()`` (spec section 9).

The paper's ``disclosure.summary()`` (Raab, Nowok & Dibben, Section 3 and Table 1): run
:func:`~capkit.disclosure.core.disclosure` for every target with the same keys and collect, per
target, the original and synthetic attribute measure (Dorig and DiSCO by default), the check
messages, and the identity measures (UiO and repU), in a table ordered by the synthetic measure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from capkit.data.synorig import synorig_compare
from capkit.disclosure import engine_path
from capkit.disclosure import options as opt
from capkit.disclosure.control import check_holdout, holdout_run, summary_control
from capkit.disclosure.core import disclosure
from capkit.disclosure.result import DisclosureResult, DisclosureSummary
from capkit.errors import CapkitError

IDENT_MEASURES = ("repU", "UiSiO", "baseCAPd")
ATTRIB_MEASURES = ("DiSCO", "DiSDiO", "DCAP")
TABLE_COLUMNS = ["attrib.orig", "attrib.syn", "check1", "Npairs", "check2"]


def _per_target(value: object, n: int, argument: str) -> list[object]:
    if value is None:
        return [None] * n
    if not isinstance(value, (list, tuple)):
        raise CapkitError(f"{argument} must be a list with one entry per target ({n})")
    if len(value) != n:
        raise CapkitError(f"{argument} must have one entry per target ({n}), got {len(value)}")
    return list(value)


def _target_options(n: int, not_targetslev: object, usetargets_na: object, exclude_keys: object,
                    exclude_keylevs: object, exclude_targetlevs: object
                    ) -> tuple[list[object], ...]:
    """The per-target options of ``disclosure.summary``, one entry per target (spec 8)."""
    not_lev = [None] * n if not_targetslev is None else opt.recycle(
        not_targetslev, n, "not_targetslev", "target")
    for v in not_lev:
        if v is not None and not isinstance(v, str):
            raise CapkitError(f"not_targetslev entries must be strings, got {v!r}")
    return (not_lev, opt.recycle(usetargets_na, n, "usetargets_na", "target"),
            _per_target(exclude_keys, n, "exclude_keys"),
            _per_target(exclude_keylevs, n, "exclude_keylevs"),
            _per_target(exclude_targetlevs, n, "exclude_targetlevs"))


def _keys_and_targets(keys: object, targets: object, original: pd.DataFrame,
                      syn_columns: Sequence[object], compat: bool) -> tuple[list[str], list[str]]:
    """Resolved keys and targets (default: the synthetic columns that are not keys), checked to
    be columns of both sides and not to overlap. ``original`` may be a 0-row frame."""
    user_keys = opt.resolve_columns(keys, original, "keys")
    if targets is None:
        targets = [c for c in syn_columns if c not in user_keys and (
            c in original.columns or compat)]
    target_list = opt.resolve_columns(targets, original, "targets")
    opt.check_in_columns([*user_keys, *target_list],
                         [("original", original.columns), ("synthetic", syn_columns)],
                         "keys and targets")
    clash = [t for t in target_list if t in user_keys]
    if clash:
        raise CapkitError(f"targets {clash} are also keys")
    return user_keys, target_list


def _each_target(target_list: list[str], progress: bool) -> Iterator[tuple[int, str]]:
    """(position, name) of each target, behind a progress bar on stderr (after a second)."""
    bar = tqdm(target_list, disable=not progress, delay=1.0, unit="target", file=sys.stderr,
               desc="disclosure")
    for i, name in enumerate(bar):
        bar.set_postfix_str(name, refresh=False)
        yield i, name


def _row_names(table: pd.DataFrame) -> list[str]:
    width = len(str(len(table)))
    names = []
    for rank, (target, row) in enumerate(table.iterrows(), start=1):  # one per target
        name = f"{rank:0{width}d} {target}"
        c1, c2 = row["check1"] != "", row["check2"] != ""
        if c1 and c2:
            name += " 1&2way checks"
        elif c2:
            name += " 2way checks"
        elif c1:
            name += " 1way checks"
        names.append(name)
    return names


def disclosure_summary(
    synthetic: pd.DataFrame | Sequence[pd.DataFrame] | object,
    original: pd.DataFrame | object,
    keys: str | Sequence[str],
    targets: Sequence[str] | None = None,
    *,
    not_targetslev: Sequence[str] | None = None,
    usetargets_na: bool | Sequence[bool] = True,
    usekeys_na: bool | Sequence[bool] = True,
    ngroups_targets: int | Sequence[int] | None = None,
    ngroups_keys: int | Sequence[int] | None = None,
    exclude_keys: Sequence[Sequence[str] | None] | None = None,
    exclude_keylevs: Sequence[Sequence[str] | None] | None = None,
    exclude_targetlevs: Sequence[Sequence[str] | None] | None = None,
    ident_meas: str = "repU",
    attrib_meas: str = "DiSCO",
    denom_lim: int | None = 5,
    exclude_ov_denom_lim: bool = False,
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    cont_na: dict[str, object] | None = None,
    digits: int = 2,
    compare_synorig: bool = True,
    synthpop_compat: bool = False,
    collation: Callable[[str], object] | None = None,
    progress: bool = False,
    engine: str | None = None,
    allow_disjoint_levels: bool = False,
    holdout: pd.DataFrame | object | None = None,
) -> DisclosureSummary:
    """Disclosure measures for many targets with the same keys (synthpop ``multi.disclosure``).

    Parameters
    ----------
    synthetic, original, keys
        As for :func:`~capkit.disclosure.core.disclosure`.
    targets
        Target columns; default every synthetic column that is not a key, in synthetic order.
    not_targetslev, usetargets_na, ngroups_targets
        Per-target versions of ``not_targetlev``, ``usetarget_na``, ``ngroups_target``
        ("" or None = no level excluded; a single value is recycled).
    exclude_keys, exclude_keylevs, exclude_targetlevs
        Lists with one entry (a list, or None) per target.
    ident_meas
        "repU" (default), "UiSiO" or "baseCAPd": the synthetic identity measure.
    attrib_meas
        "DiSCO" (default; original measure Dorig), "DiSDiO" or "DCAP" (original CAPd).
    synthpop_compat
        Reproduce synthpop's quirks Q5-Q9, Q10b and Q21 (spec 9.2). By default a list of data
        frames is m syntheses, exclusions are passed on correctly, ``usekeys_na`` follows the
        keys as given, ident.syn is averaged over syntheses and Npairs counts pairs.
    progress
        Show a progress bar over the targets (on stderr, only when the work takes over a
        second).
    engine
        As for :func:`~capkit.disclosure.core.disclosure`: ``None``/``"pandas"`` on DataFrames
        is the pandas path; files, DuckDB relations, PySpark DataFrames or ``"duckdb"`` /
        ``"spark"`` count in that engine, one target at a time (``ngroups_targets``,
        ``ngroups_keys``, ``cont_na`` and ``synthpop_compat=True`` need the pandas engine).
    allow_disjoint_levels
        As for :func:`~capkit.disclosure.core.disclosure`: measure even a key or target whose
        levels barely overlap between the original and the synthetic data (an error by
        default).
    holdout
        Records not used to make the synthetic data: the summary is computed once more with
        them as the original data, kept as ``.holdout``, and ``.control`` compares DiSCO and
        DCAP of members and holdout per target (:mod:`capkit.disclosure.control`). Every
        other number is unchanged.

    Returns
    -------
    DisclosureSummary

    Notes
    -----
    The other arguments are passed to :func:`~capkit.disclosure.core.disclosure`.
    """
    if holdout is not None:
        options = {k: v for k, v in locals().items()
                   if k not in ("synthetic", "original", "keys", "targets", "holdout")}
        check_holdout(original, holdout)
        summary = disclosure_summary(synthetic, original, keys, targets, **options)
        with holdout_run(original):
            summary.holdout = disclosure_summary(synthetic, holdout, keys, summary.targets,
                                                 **options)
        summary.control = summary_control(summary, summary.holdout)
        return summary
    compat = bool(synthpop_compat)
    if ident_meas not in IDENT_MEASURES:
        raise CapkitError(f"ident_meas must be one of {IDENT_MEASURES}, got {ident_meas!r}")
    if attrib_meas not in ATTRIB_MEASURES:
        raise CapkitError(f"attrib_meas must be one of {ATTRIB_MEASURES}, got {attrib_meas!r}")
    if engine_path.uses_engine(synthetic, original, engine):
        if engine == "pandas":  # read into memory, then the pandas path
            synthetic, original = engine_path.read_for_pandas(synthetic, original, None)
            engine = None
        else:
            return _engine_summary(
                synthetic, original, keys, targets, engine=engine,
                not_targetslev=not_targetslev, usetargets_na=usetargets_na,
                usekeys_na=usekeys_na, ngroups_targets=ngroups_targets,
                ngroups_keys=ngroups_keys, exclude_keys=exclude_keys,
                exclude_keylevs=exclude_keylevs, exclude_targetlevs=exclude_targetlevs,
                ident_meas=ident_meas, attrib_meas=attrib_meas, denom_lim=denom_lim,
                exclude_ov_denom_lim=exclude_ov_denom_lim, thresh_1way=thresh_1way,
                thresh_2way=thresh_2way, cont_na=cont_na, digits=digits,
                compare_synorig=compare_synorig, synthpop_compat=synthpop_compat,
                collation=collation, progress=progress,
                allow_disjoint_levels=allow_disjoint_levels)
    syntheses = opt.as_frames(synthetic)
    original = opt.check_original(original)
    compare = opt.check_flag(compare_synorig, "compare_synorig")
    explicit_na: set[str] = set()
    pass_compare = compare
    if compat and compare:
        adjusted = synorig_compare(syntheses[0], original, explicit_na_levels=True)
        if adjusted.changed:
            syntheses, original = [adjusted.synthetic], adjusted.original
            explicit_na = adjusted.explicit_na
        elif len(syntheses) > 1:
            raise CapkitError(
                "keys and targets must be variables in data and synthetic data: synthpop's "
                "multi.disclosure fails for a list of data frames (quirk Q5); use "
                "synthpop_compat=False to treat the list as m syntheses")
        pass_compare = False
    user_keys, target_list = _keys_and_targets(keys, targets, original, syntheses[0].columns,
                                               compat)
    if compat and "target" in original.columns:
        raise CapkitError("original has a column called 'target'; synthpop cannot handle it")
    n = len(target_list)
    not_lev, use_t, ex_k, ex_kl, ex_tl = _target_options(
        n, not_targetslev, usetargets_na, exclude_keys, exclude_keylevs, exclude_targetlevs)
    ng_t = opt.recycle(ngroups_targets, n, "ngroups_targets", "target")
    position = {c: i for i, c in enumerate(original.columns)}
    if compat:  # keys in data order, flags applied by position without permuting (Q6)
        call_keys = sorted(user_keys, key=lambda k: position[k])
        flags = opt.check_flags(usekeys_na, len(user_keys), "usekeys_na")
    else:
        call_keys = list(user_keys)
        flags = usekeys_na

    results: dict[str, DisclosureResult] = {}
    for i, name in _each_target(target_list, progress):
        if compat and name in explicit_na:
            raise CapkitError(
                f"target {name!r} has missing values in only one of original and synthetic "
                "data; synthpop stops with 'the condition has length > 1' (quirk Q14)")
        if compat and compare:  # data-frame path: exclude.* silently dropped (Q21)
            k_, kl_, tl_ = None, None, None
        elif compat:  # synds path: exclude.targetlevs passed as exclude.keylevs (Q7)
            k_, kl_, tl_ = ex_k[i], ex_tl[i], ex_tl[i]
        else:
            k_, kl_, tl_ = ex_k[i], ex_kl[i], ex_tl[i]
        results[name] = disclosure(
            syntheses, original, call_keys, name, cont_na=cont_na, denom_lim=denom_lim,
            exclude_ov_denom_lim=exclude_ov_denom_lim,
            not_targetlev=None if not_lev[i] in (None, "") else not_lev[i],
            usetarget_na=use_t[i], usekeys_na=flags, exclude_keys=k_, exclude_keylevs=kl_,
            exclude_targetlevs=tl_, ngroups_target=ng_t[i], ngroups_keys=ngroups_keys,
            thresh_1way=thresh_1way, thresh_2way=thresh_2way, digits=digits,
            compare_synorig=pass_compare, synthpop_compat=compat, collation=collation,
            allow_disjoint_levels=allow_disjoint_levels)

    return _assemble(results, target_list, ident_meas, attrib_meas, compat, digits)


def _assemble(results: dict[str, DisclosureResult], target_list: list[str], ident_meas: str,
              attrib_meas: str, compat: bool, digits: int) -> DisclosureSummary:
    """The summary table of the per-target results (spec 9.3)."""
    first = results[target_list[0]]
    ident_orig = pd.Series({t: float(r.ident["UiO"].mean()) for t, r in results.items()},
                           name="ident.orig")
    if ident_meas == "repU":
        syn_vals = {t: float(r.ident["repU"].iloc[0]) if compat else float(r.ident["repU"].mean())
                    for t, r in results.items()}
    elif compat:  # synthpop looks up a column that does not exist (Q9)
        syn_vals = {t: float("nan") for t in results}
    else:
        column = ("ident", "UiOiS") if ident_meas == "UiSiO" else ("allcaps", "baseCAPd")
        syn_vals = {t: float(getattr(r, column[0])[column[1]].mean()) for t, r in
                    results.items()}
    ident_syn = pd.Series(syn_vals, name="ident.syn")
    rows = []
    for t, r in results.items():
        if attrib_meas == "DiSCO":
            orig_v, syn_v = r.attrib["Dorig"].mean(), r.attrib["DiSCO"].mean()
        elif attrib_meas == "DCAP":
            orig_v, syn_v = r.allcaps["CAPd"].mean(), r.allcaps["DCAP"].mean()
        else:
            orig_v = float("nan") if compat else r.attrib["Dorig"].mean()
            syn_v = r.attrib["DiSDiO"].mean()
        if compat:
            npairs = 0 if r.check2 == "" else 1  # Q10b
        else:
            flagged = [c for c in r.check_2way if c is not None]
            npairs = len(flagged[-1]) if flagged else 0
        rows.append({"target": t, "attrib.orig": float(orig_v), "attrib.syn": float(syn_v),
                     "check1": r.check1, "Npairs": npairs, "check2": r.check2})
    table = pd.DataFrame(rows).set_index("target")
    order = np.argsort(np.where(np.isnan(table["attrib.syn"]), np.inf, table["attrib.syn"]),
                       kind="stable")
    table = table.iloc[order]
    table.index = pd.Index(_row_names(table))
    return DisclosureSummary(
        attrib_table=table[TABLE_COLUMNS], ident_orig=ident_orig, ident_syn=ident_syn,
        keys=first.keys, targets=target_list, n_orig=first.n_orig, m=first.m,
        ident_meas=ident_meas, attrib_meas=attrib_meas, per_target=results, digits=digits)


def _engine_summary(synthetic: object, original: object, keys: str | Sequence[str],
                    targets: Sequence[str] | None, *, engine: str | None,
                    not_targetslev: Sequence[str] | None,
                    usetargets_na: bool | Sequence[bool], usekeys_na: bool | Sequence[bool],
                    ngroups_targets: object, ngroups_keys: object,
                    exclude_keys: object, exclude_keylevs: object, exclude_targetlevs: object,
                    ident_meas: str, attrib_meas: str, denom_lim: int | None,
                    exclude_ov_denom_lim: bool, thresh_1way: Sequence[float],
                    thresh_2way: Sequence[float], cont_na: object, digits: int,
                    compare_synorig: bool, synthpop_compat: bool,
                    collation: Callable[[str], object] | None,
                    progress: bool, allow_disjoint_levels: bool) -> DisclosureSummary:
    """``disclosure_summary`` with the counting done by DuckDB or Spark, one target at a time.

    Same arguments and result as the pandas path (without synthpop_compat's quirks).
    """
    engine_path.reject_unsupported(
        cont_na=cont_na, ngroups=[("ngroups_targets", ngroups_targets),
                                  ("ngroups_keys", ngroups_keys)],
        synthpop_compat=synthpop_compat, compare_synorig=compare_synorig)
    sources = engine_path.synthetic_sources(synthetic)
    engine = engine_path.resolve_engine(sources, original, engine)
    orig_cols = engine_path.columns_of(original, "original")
    syn_cols = engine_path.columns_of(sources[0], "synthetic")
    user_keys, target_list = _keys_and_targets(keys, targets, engine_path._frame_of(orig_cols),
                                               syn_cols, False)
    n = len(target_list)
    not_lev, use_t, ex_k, ex_kl, ex_tl = _target_options(
        n, not_targetslev, usetargets_na, exclude_keys, exclude_keylevs, exclude_targetlevs)
    results: dict[str, DisclosureResult] = {}
    for i, name in _each_target(target_list, progress):
        results[name] = disclosure(
            sources, original, user_keys, name, denom_lim=denom_lim,
            exclude_ov_denom_lim=exclude_ov_denom_lim,
            not_targetlev=None if not_lev[i] in (None, "") else not_lev[i],
            usetarget_na=use_t[i], usekeys_na=usekeys_na, exclude_keys=ex_k[i],
            exclude_keylevs=ex_kl[i], exclude_targetlevs=ex_tl[i], thresh_1way=thresh_1way,
            thresh_2way=thresh_2way, digits=digits, compare_synorig=compare_synorig,
            collation=collation, engine=engine, allow_disjoint_levels=allow_disjoint_levels)
    return _assemble(results, target_list, ident_meas, attrib_meas, False, digits)
