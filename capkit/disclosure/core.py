"""``disclosure()``: synthpop 1.9-2's disclosure measures for one target (spec sections 1-7).

Raab, Nowok & Dibben, "Practical privacy metrics for synthetic data" (the paper behind
synthpop's ``disclosure()``), Section 2 and Appendix: identity disclosure (UiO, UiS, UiOiS,
repU) and attribute disclosure (Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, max_denom, mean_denom, and
the CAP measures baseCAPd, CAPd, CAPs, DCAP, TCAP) of a target given quasi-identifying keys.

Pipeline: validate (spec 2) -> optional ``synorig.compare`` (1.3) -> special-value check (3.3) ->
grouping of numeric variables (3.4) -> labels (3.5) -> "Missing" (3.6) -> per synthesis, one
count pass into aligned cells (3.7-3.8) -> exclusions and measures (4) -> checks (5-6).

``synthpop_compat=True`` reproduces synthpop's quirks (spec 11) bit for bit; the default fixes
the ones where synthpop is plainly wrong (see ``docs/synthpop-differences.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from capkit.counts.cells import build_cells, check_coded_levels
from capkit.data.labels import (
    MISSING,
    Coded,
    SortKey,
    group_num,
    is_integer,
    is_numeric,
    to_coded,
    to_missing_level,
)
from capkit.data.synorig import synorig_compare
from capkit.disclosure import engine_path
from capkit.disclosure import options as opt
from capkit.disclosure.checks import KeyMargins
from capkit.disclosure.control import (
    breaks_reference,
    check_holdout,
    control_table,
    holdout_run,
)
from capkit.disclosure.measures import Exclusions
from capkit.disclosure.per_synthesis import measure_syntheses
from capkit.disclosure.result import DisclosureResult
from capkit.errors import CapkitError


def _permute_flags(flags: list[bool], user_keys: list[str], data_keys: list[str],
                   compat: bool) -> list[bool]:
    if compat:  # R: usekeysNA[match(oldkeys, keys)] (quirk Q1)
        pos = [data_keys.index(k) for k in user_keys]
        return [flags[p] for p in pos]
    return [flags[user_keys.index(k)] for k in data_keys]


def _special_check(columns: list[str], original: pd.DataFrame,
                   cont_na: dict[str, list[float]], compat: bool, messages: list[str]) -> None:
    """Spec 3.3: declared special codes must occur in the original data."""
    for name in columns:
        codes = cont_na.get(name, [])
        if not codes:
            continue
        checked = codes[-1:] if compat else codes  # synthpop checks only the last (Q3)
        values = pd.to_numeric(original[name], errors="coerce") if is_numeric(
            original[name]) else None
        for code in checked:
            count = int((values == code).sum()) if values is not None else 0
            if count == 0:
                raise CapkitError(
                    f"value {code:g} identified as denoting a special or missing in cont_na "
                    f"for {name!r} is not in original")
            if count < 10:
                messages.append(f"value {code:g} for {name!r} occurs only {count} times")


def _prepare_variable(name: str, original: pd.DataFrame, syntheses: list[pd.DataFrame],
                      ngroups: int, special: list[float], sort_key: SortKey,
                      compat: bool, compare: bool, explicit_na: set[str], role: str,
                      messages: list[str]) -> tuple[Coded, list[Coded]]:
    """One variable, original and every synthesis, as R factors with "Missing" (3.4-3.6)."""
    col_o = original[name]
    if compat and not compare:
        for frame in [original, *syntheses]:
            series = frame[name]
            if not isinstance(series.dtype, pd.CategoricalDtype) and not is_numeric(series) \
                    and bool(series.isna().any()):
                raise CapkitError(
                    f"{role} column {name!r} is text with missing values; synthpop stops with "
                    "'x must be a factor' here (quirk Q20); make it categorical first")
    if ngroups > 0 and is_numeric(col_o):
        # the breaks depend on the original and the pool of all syntheses only: group once,
        # assigning the pooled values, then split the pool's codes per synthesis
        pool = np.concatenate([s[name].to_numpy(dtype=float, na_value=np.nan)
                               for s in syntheses])
        values_o = col_o.to_numpy(dtype=float, na_value=np.nan)
        members = breaks_reference(name)  # the holdout's run: the members' breaks
        ref = None if members is None or not is_numeric(members) else \
            members.to_numpy(dtype=float, na_value=np.nan)
        coded_o, coded_pool = group_num(values_o, pool, pool, ngroups, special,
                                        integer=is_integer(col_o), reference=ref)
        if len(coded_o.labels) < 3:
            coded_o, coded_pool = group_num(values_o, pool, pool, ngroups, special,
                                            style="equal", integer=is_integer(col_o),
                                            reference=ref)
            messages += [f"grouping of {name!r} redone with style 'equal'"] * len(syntheses)
        bounds = np.cumsum([len(s) for s in syntheses])[:-1]
        coded_s = [Coded(coded_pool.labels, codes)
                   for codes in np.split(coded_pool.codes, bounds)]
        messages.append(f"numeric values of {role} {name!r} grouped into {ngroups} groups")
    else:
        if ngroups > 0:
            messages.append(f"{role} {name!r} is not numeric: no grouping done")
        coded_o = to_coded(col_o, sort_key)
        coded_s = [to_coded(s[name], sort_key) for s in syntheses]
    if compat and role == "target" and name in explicit_na:
        raise CapkitError(
            f"target {name!r} has missing values in only one of original and synthetic data; "
            "synorig.compare gives it an explicit NA level and synthpop stops with 'the "
            "condition has length > 1' (quirk Q14). Use synthpop_compat=False or "
            "compare_synorig=False")
    coded_o = to_missing_level(coded_o, sort_key)
    coded_s = [to_missing_level(c, sort_key) for c in coded_s]
    return coded_o, coded_s


def _front_end(syntheses: list[pd.DataFrame], original: pd.DataFrame, compare: bool,
               compat: bool, messages: list[str]
               ) -> tuple[list[pd.DataFrame], pd.DataFrame, set[str], bool]:
    """Spec 1.3 step 2: synorig.compare (compat: on the first set; a change keeps only it)."""
    if not compare:
        return syntheses, original, set(), False
    if compat:
        result = synorig_compare(syntheses[0], original, explicit_na_levels=True)
        if not result.changed:
            return syntheses, original, set(), False
        messages.append("Synthetic data or original or both adjusted with synorig.compare to "
                        "try to make them comparable")
        if len(syntheses) > 1:
            messages.append("only first element of the list has been adjusted and will be "
                            "used here")
        return [result.synthetic], result.original, result.explicit_na, True
    adjusted, changed = [], False
    orig = original
    for syn in syntheses:
        result = synorig_compare(syn, orig, explicit_na_levels=False)
        adjusted.append(result.synthetic)
        orig = result.original
        changed |= result.changed
    if changed:
        messages.append("synthetic and original data adjusted with synorig.compare to make "
                        "them comparable")
    return adjusted, orig, set(), changed


def disclosure(
    synthetic: pd.DataFrame | Sequence[pd.DataFrame] | object,
    original: pd.DataFrame | object,
    keys: str | int | Sequence[str | int],
    target: str | int,
    *,
    cont_na: dict[str, object] | None = None,
    denom_lim: int | None = 5,
    exclude_ov_denom_lim: bool = False,
    not_targetlev: str | None = None,
    usetarget_na: bool = True,
    usekeys_na: bool | Sequence[bool] = True,
    exclude_keys: Sequence[str] | None = None,
    exclude_keylevs: Sequence[str] | None = None,
    exclude_targetlevs: Sequence[str] | None = None,
    ngroups_target: int | None = None,
    ngroups_keys: int | Sequence[int] | None = None,
    thresh_1way: Sequence[float] = (50, 90),
    thresh_2way: Sequence[float] = (4, 80),
    digits: int = 2,
    compare_synorig: bool = True,
    synthpop_compat: bool = False,
    collation: Callable[[str], object] | None = None,
    engine: str | None = None,
    allow_disjoint_levels: bool = False,
    holdout: pd.DataFrame | object | None = None,
) -> DisclosureResult:
    """Identity and attribute disclosure measures of synthetic data (synthpop ``disclosure``).

    Parameters
    ----------
    synthetic
        One synthetic DataFrame, or a list of m of them (m syntheses of the same original).
        With ``engine`` (or on its own) each synthesis may also be a Parquet/CSV path or glob
        (all matching files are one synthesis), a DuckDB relation or a PySpark DataFrame.
    original
        The original data (a DataFrame, or any input ``synthetic`` accepts; a list of paths is
        one data set). Neither input is modified.
    keys
        Quasi-identifier columns (names, or 1-based column numbers of ``original``).
    target
        The column whose disclosure is measured.
    cont_na
        Special or missing codes of numeric variables, e.g. ``{"income": [-8]}`` (as given to
        synthpop's ``syn``); they get their own group when the variable is grouped.
    denom_lim, exclude_ov_denom_lim
        With ``exclude_ov_denom_lim=True``, cells with more than ``denom_lim`` records are
        excluded from every table (``denom_lim`` alone has no effect, as in synthpop).
    not_targetlev
        A target level whose records are excluded.
    usetarget_na, usekeys_na
        ``False`` excludes records whose target (or key; one flag or one per key) is missing.
    exclude_keys, exclude_keylevs, exclude_targetlevs
        Parallel lists of (key, key level, target level) cells to exclude.
    ngroups_target, ngroups_keys
        Group a numeric target / numeric keys into about this many classes (0 = no grouping).
    thresh_1way, thresh_2way
        Thresholds (count, percent) of the disproportionate-disclosure checks.
    digits
        Rounding of the printed form only.
    compare_synorig
        Run synthpop's ``synorig.compare`` first (synthpop does for data-frame input). An
        oracle case made from a ``synds`` object corresponds to ``compare_synorig=False``.
    synthpop_compat
        Reproduce synthpop 1.9-2 exactly, quirks included (spec section 11). The default fixes
        Q1, Q3, Q4, Q10, Q14, Q15, Q18, Q19, Q20 (see ``docs/synthpop-differences.md``).
    collation
        Sort key for label ordering; ``None`` = code-point order (what the oracle's R used).
    engine
        Who counts the target x key tables: ``None`` (default: pandas for DataFrames, else
        chosen by :func:`capkit.counts.engines.choose_engine`), ``"pandas"`` (files are read into
        memory, then the pandas path), ``"duckdb"`` or ``"spark"`` (only the counts come back;
        see :mod:`capkit.disclosure.engine_path`). The big engines give the same ident, attrib
        and allcaps as pandas; options that need per-record data (``ngroups_target``,
        ``ngroups_keys``, ``cont_na``, ``synthpop_compat=True``) raise on them.
    allow_disjoint_levels
        By default the target or a key whose levels barely overlap between the original and a
        synthesis (fewer than half of the original records with a value of it have a value
        that occurs in the synthetic data, missing values aside; after grouping and
        ``synorig.compare``) is an error: the data sets almost surely code it differently.
        ``True`` measures anyway (:func:`capkit.counts.encode.check_levels`).
    holdout
        Records of the same population that were not used to make the synthetic data (any
        input ``original`` accepts). The measures are computed once more with the holdout as
        the original data and the same options, and the result carries them as ``.holdout``
        and the membership control of DiSCO and DCAP as ``.control``
        (:mod:`capkit.disclosure.control`). Every other number is unchanged.

    Returns
    -------
    DisclosureResult

    Raises
    ------
    CapkitError
        For every error condition of synthpop's argument checks (spec 2), naming the argument,
        and for a target or key coded differently in the two data sets (see
        ``allow_disjoint_levels``).

    Warns
    -----
    ContinuousTargetWarning
        For a numeric target with more than
        :data:`capkit.counts.encode.CONTINUOUS_TARGET_LEVELS` distinct values that is not
        grouped (``ngroups_target``): it is matched by exact value, as synthpop does.
    """
    if holdout is not None:
        options = {k: v for k, v in locals().items()
                   if k not in ("synthetic", "original", "keys", "target", "holdout")}
        check_holdout(original, holdout)
        result = disclosure(synthetic, original, keys, target, **options)
        with holdout_run(original):
            result.holdout = disclosure(synthetic, holdout, keys, target, **options)
        result.control = control_table(result, result.holdout)
        return result
    if engine_path.uses_engine(synthetic, original, engine):
        passed = {
            "denom_lim": denom_lim, "exclude_ov_denom_lim": exclude_ov_denom_lim,
            "not_targetlev": not_targetlev, "usetarget_na": usetarget_na,
            "usekeys_na": usekeys_na, "exclude_keys": exclude_keys,
            "exclude_keylevs": exclude_keylevs, "exclude_targetlevs": exclude_targetlevs,
            "thresh_1way": thresh_1way, "thresh_2way": thresh_2way, "digits": digits,
            "collation": collation, "allow_disjoint_levels": allow_disjoint_levels}
        if engine == "pandas":  # read the needed columns, then the pandas path below
            names = None
            if all(isinstance(x, str) for x in [target, *(
                    [keys] if isinstance(keys, str | int) else keys)]):
                names = [*([keys] if isinstance(keys, str) else keys), target]
            frames, orig_frame = engine_path.read_for_pandas(synthetic, original, names)
            return disclosure(frames, orig_frame, keys, target, cont_na=cont_na,
                              ngroups_target=ngroups_target, ngroups_keys=ngroups_keys,
                              compare_synorig=compare_synorig,
                              synthpop_compat=synthpop_compat, **passed)
        engine_path.reject_unsupported(
            cont_na=cont_na, ngroups=[("ngroups_target", ngroups_target),
                                      ("ngroups_keys", ngroups_keys)],
            synthpop_compat=synthpop_compat, compare_synorig=compare_synorig)
        return engine_path.engine_disclosure(synthetic, original, keys, target, engine=engine,
                                             **passed)
    compat = bool(synthpop_compat)
    messages: list[str] = []
    syntheses = opt.as_frames(synthetic)
    original = opt.check_original(original)
    for j, frame in enumerate(syntheses):
        if len(frame) == 0:
            raise CapkitError(f"synthetic data set {j + 1} has no rows")
    cont = opt.normalise_cont_na(cont_na, original)
    compare = opt.check_flag(compare_synorig, "compare_synorig")
    opt.check_in_columns(
        [*opt.resolve_columns(keys, original, "keys"),
         *opt.resolve_columns(target, original, "target")],
        [("original", original.columns),
         *[(f"synthetic data set {j + 1}", f.columns) for j, f in enumerate(syntheses)]])
    syntheses, original, explicit_na, _ = _front_end(syntheses, original, compare, compat,
                                                     messages)
    if compat:
        names = opt.make_names(original.columns)
        if names != [str(c) for c in original.columns]:
            original = original.set_axis(names, axis=1)
    user_keys = opt.resolve_columns(keys, original, "keys")
    target_list = opt.resolve_columns(target, original, "target")
    if len(target_list) != 1:
        raise CapkitError(f"target must be a single column, got {target_list}")
    target_name = target_list[0]
    checked_sets = syntheses[:1] if compat else syntheses
    opt.check_in_columns(
        [*user_keys, target_name],
        [("original", original.columns),
         *[(f"synthetic data set {j + 1}", f.columns) for j, f in enumerate(checked_sets)]])
    opt.check_keys_target(user_keys, target_name)
    if compat and "target" in original.columns:
        raise CapkitError("original has a column called 'target'; synthpop cannot handle it "
                          "(rename it, or use synthpop_compat=False)")
    use_t_na = opt.check_flag(usetarget_na, "usetarget_na")
    flags = opt.check_flags(usekeys_na, len(user_keys), "usekeys_na")
    position = {c: i for i, c in enumerate(original.columns)}
    data_keys = sorted(user_keys, key=lambda k: position[k])
    flags = _permute_flags(flags, user_keys, data_keys, compat)
    ex_k, ex_kl, ex_tl = opt.check_excludes(exclude_keys, exclude_keylevs, exclude_targetlevs,
                                            user_keys)
    lim = opt.check_denom_lim(denom_lim)
    ng_target = opt.check_ngroups_target(ngroups_target)
    ng_keys = opt.check_ngroups_keys(ngroups_keys, len(user_keys))
    if not compat:  # synthpop applies ngroups_keys in data order, whatever the keys' order
        ng_keys = [ng_keys[user_keys.index(k)] for k in data_keys]
    t1 = opt.check_thresholds(thresh_1way, "thresh_1way")
    t2 = opt.check_thresholds(thresh_2way, "thresh_2way")
    excl_flag = opt.check_flag(exclude_ov_denom_lim, "exclude_ov_denom_lim")
    opt.check_not_targetlev(not_targetlev)
    _special_check([target_name, *data_keys], original, cont, compat, messages)

    sort_key = collation
    target_o, target_s = _prepare_variable(
        target_name, original, syntheses, ng_target, cont.get(target_name, []), sort_key,
        compat, compare, explicit_na, "target", messages)
    allow = opt.check_flag(allow_disjoint_levels, "allow_disjoint_levels")
    check_coded_levels(target_name, "target", target_o, target_s, allow_disjoint_levels=allow,
                       numeric=ng_target <= 0 and is_numeric(original[target_name]))
    keys_o, keys_s = [], []
    for name, ng in zip(data_keys, ng_keys, strict=True):
        ko, ks = _prepare_variable(name, original, syntheses, ng, cont.get(name, []),
                                   sort_key, compat, compare, explicit_na, "key", messages)
        check_coded_levels(name, "key", ko, ks, allow_disjoint_levels=allow,
                           numeric=ng <= 0 and is_numeric(original[name]))
        keys_o.append(ko)
        keys_s.append(ks)

    triples = opt.exclusion_triples(ex_k, ex_kl, ex_tl, data_keys, target_name,
                                    list(target_o.labels),
                                    {i: keys_o[i].labels for i in range(len(data_keys))})
    exclusions = Exclusions(
        not_targetlev=not_targetlev, usetarget_na=use_t_na,
        keys_na_excluded=tuple(not f for f in flags), triples=tuple(triples), denom_lim=lim,
        exclude_ov_denom_lim=excl_flag, missing_label=MISSING)
    margins = KeyMargins.from_coded(target_o, keys_o)

    per_synthesis = (
        (build_cells(target_o, target_s[j], keys_o, [k[j] for k in keys_s], by_position=compat,
                     sort_key=sort_key, split_labels=compat, unused_levels_in_ks=compat),
         margins)
        for j in range(len(syntheses)))
    return measure_syntheses(per_synthesis, exclusions, keys=data_keys, target=target_name,
                             thresh_1way=t1, thresh_2way=t2, parse_labels=compat,
                             sort_key=sort_key, digits=digits, messages=messages, compat=compat)
