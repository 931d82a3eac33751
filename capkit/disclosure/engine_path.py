"""``disclosure()`` on files, DuckDB relations and PySpark DataFrames: counts from an engine.

Raab, Nowok & Dibben's identity and attribute measures (synthpop 1.9-2's ``disclosure()``,
spec sections 4-6) depend on the data only through the aligned target x q tables d[t, q] and
s[t, q] (the original and synthetic record counts by target level t and key combination q).
So data larger than memory (DuckDB on Parquet/CSV files) or on a cluster (Spark) is measured
by counting those tables in the engine, and computing everything else from the small table:

1. :func:`capkit.counts.tables.crosstab` (``engine="duckdb"`` / ``"spark"``) counts original and
   synthetic records by (keys, target); only one row per distinct cell comes back;
2. the level values are given synthpop's labels (R's text of numbers, ``TRUE``/``FALSE``,
   ``"Missing"`` for a missing value; :mod:`capkit.data.labels`), and the target rows
   are put in the order of the pandas path (spec 3.6, 3.8: collation order when a side has
   missing values or levels of the other side, else the variable's own order);
3. :func:`capkit.counts.engines.disclosure_cells` turns the table into the cells of
   :func:`capkit.disclosure.measures.compute`; the exclusions, the measures and the 1-way /
   2-way checks are the same functions as on the pandas path, and the 2-way check's key totals
   (spec 6 step 7) are margins of the original counts.

What cannot be done from the counts needs per-record data or synthpop's label processing, and
raises :class:`~capkit.errors.CapkitError` naming the option: grouping of numeric variables
(``ngroups_target``, ``ngroups_keys``), special codes (``cont_na``) and ``synthpop_compat``.
``compare_synorig`` is honoured as far as it concerns the counts: a column must have the same
kind (numeric, text, date) in both inputs (else an error names it), integers and decimals are
compared by value, and missing values stay missing (as ``synorig.compare`` does with capkit's
default ``explicit_na_levels=False``).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from capkit.counts import engines
from capkit.counts.cells import CellTable, align_labels, cells_of_table
from capkit.counts.engines import duckdb as duck
from capkit.counts.table import KeyTargetTable
from capkit.counts.tables import crosstab
from capkit.data.labels import (
    MISSING,
    SortKey,
    collate_sorted,
    collation_order,
    r_format,
)
from capkit.disclosure import options as opt
from capkit.disclosure.checks import KeyMargins
from capkit.disclosure.measures import Exclusions
from capkit.disclosure.per_synthesis import measure_syntheses
from capkit.disclosure.result import DisclosureResult
from capkit.errors import CapkitError, DisjointLevelsError

#: The values ``engine`` may take (``None``: chosen from the inputs).
ENGINE_CHOICES = (None, *engines.ENGINES)


def _use_pandas(what: str) -> str:
    return (f"{what} is not available on the DuckDB/Spark engines (it needs per-record data); "
            "use engine='pandas' on data that fits in memory, or pre-group the variable into "
            "categories in the engine first")


# --------------------------------------------------------------------------------------------
# which path


def synthetic_sources(synthetic: object) -> list[object]:
    """The m syntheses: a list/tuple holds one input per synthesis, anything else is one.

    Each entry may be a DataFrame, a Parquet/CSV path or glob (all matching files form one
    synthesis), a DuckDB relation or a PySpark DataFrame.
    """
    if isinstance(synthetic, list | tuple):
        if not synthetic:
            raise CapkitError("synthetic is an empty list; give one input per synthesis")
        return list(synthetic)
    if synthetic is None:
        raise CapkitError("synthetic is required: a DataFrame, a path or a list of them")
    return [synthetic]


def check_engine(engine: object) -> None:
    """``engine`` must be None, "pandas", "duckdb" or "spark"."""
    if engine is not None and (not isinstance(engine, str) or engine not in engines.ENGINES):
        raise CapkitError(f"engine must be one of {list(engines.ENGINES)} (or None), got "
                          f"{engine!r}")


def uses_engine(synthetic: object, original: object, engine: object) -> bool:
    """Whether ``disclosure`` leaves its pandas path: not only DataFrames, or a big engine.

    Two DataFrames (or a DataFrame and a list of them) with ``engine`` None or "pandas" keep
    the pandas path, unchanged.
    """
    check_engine(engine)
    frames = isinstance(original, pd.DataFrame) and (
        isinstance(synthetic, pd.DataFrame)
        or (isinstance(synthetic, list | tuple) and len(synthetic) > 0
            and all(isinstance(x, pd.DataFrame) for x in synthetic)))
    return not (frames and engine in (None, "pandas"))


def check_inputs(sources: list[object], original: object) -> None:
    """Every input must be a DataFrame, existing Parquet/CSV files, a relation or a PySpark
    DataFrame; the message names the argument (and the synthesis)."""
    m = len(sources)
    named = [("original", "", original), *[
        ("synthetic", f" (synthesis {j + 1})" if m > 1 else "", s) for j, s in
        enumerate(sources)]]
    for role, which, obj in named:
        if not (isinstance(obj, pd.DataFrame) or engines.is_path(obj)
                or engines.is_spark_frame(obj) or engines.is_duckdb_relation(obj)):
            raise CapkitError(
                f"{role} must be a DataFrame, a Parquet/CSV path or glob, a DuckDB relation or "
                f"a PySpark DataFrame{' (a list: one per synthesis)' * (role == 'synthetic')}"
                f"; got {type(obj).__name__}{which}")
        if engines.is_path(obj):
            try:
                engines.expand_paths(obj, role)  # type: ignore[arg-type]
            except CapkitError as exc:
                raise CapkitError(f"{role} must be a DataFrame or name existing Parquet/CSV "
                                  f"files{which}: {exc}") from exc


def columns_of(source: object, role: str) -> list[str]:
    """Column names of an input, in its order, without reading its rows."""
    if isinstance(source, pd.DataFrame):
        return [str(c) for c in source.columns]
    if engines.is_spark_frame(source) or engines.is_duckdb_relation(source):
        return [str(c) for c in source.columns]  # type: ignore[attr-defined]
    if not engines.is_path(source):
        raise CapkitError(
            f"{role} must be a pandas DataFrame, a Parquet/CSV path or glob, a DuckDB relation "
            f"or a PySpark DataFrame; got {type(source).__name__}")
    con = duck.connect()
    try:
        return [str(c) for c in duck.relation(source, con, role).columns]
    finally:
        con.close()


def _frame_of(columns: list[str]) -> pd.DataFrame:
    """A 0-row frame with these columns (for :func:`opt.resolve_columns`)."""
    return pd.DataFrame(columns=pd.Index(columns, dtype=object))


def read_for_pandas(synthetic: object, original: object, names: Sequence[str] | None
                    ) -> tuple[list[pd.DataFrame], pd.DataFrame]:
    """``engine="pandas"`` on non-DataFrame inputs: read the needed columns into memory.

    ``names`` are the columns to read (all when None); each input keeps its own column order.
    """
    def load(source: object, role: str) -> pd.DataFrame:
        if isinstance(source, pd.DataFrame):
            return source
        cols = columns_of(source, role)
        wanted = cols if names is None else [c for c in cols if c in set(names)]
        return engines.to_pandas(source, wanted, role)

    sources = synthetic_sources(synthetic)
    check_inputs(sources, original)
    syn = [load(s, f"synthetic data set {j + 1}") for j, s in enumerate(sources)]
    return syn, load(original, "original")


def resolve_engine(sources: list[object], original: object, engine: str | None) -> str:
    """One engine for every synthesis (chosen from the first when ``engine`` is None)."""
    check_inputs(sources, original)
    chosen = engines.choose_engine(original, sources[0], engine)
    if chosen == "pandas":  # a DataFrame pair first, files or relations later: DuckDB
        chosen = "duckdb"
    for source in sources[1:]:
        engines.choose_engine(original, source, chosen)
    engines.require(chosen)
    return chosen


def reject_unsupported(*, cont_na: object = None, ngroups: Sequence[tuple[str, object]] = (),
                       synthpop_compat: bool = False, compare_synorig: object = True) -> None:
    """Raise for the options the engine path cannot honour, naming the option."""
    opt.check_flag(compare_synorig, "compare_synorig")
    if synthpop_compat:
        raise CapkitError(_use_pandas("synthpop_compat=True (synthpop's label quirks)"))
    if cont_na:
        raise CapkitError(_use_pandas("cont_na (special codes of grouped numeric variables)"))
    for name, value in ngroups:
        values = value if isinstance(value, list | tuple | np.ndarray) else [value]
        if any(v is not None and not (isinstance(v, numbers.Real) and v == 0) for v in values):
            raise CapkitError(_use_pandas(f"{name} (grouping of numeric variables)"))


# --------------------------------------------------------------------------------------------
# labels


def level_text(values: pd.Index) -> np.ndarray:
    """synthpop's label of each value (``None`` for a missing value), as object array.

    Numbers as R prints them (:func:`capkit.data.labels.r_format`: integers as digits,
    doubles with at most 15 significant digits), booleans ``TRUE``/``FALSE``, anything else as
    text -- the labels of :func:`capkit.data.labels.to_coded` (spec 3.5).
    """
    index = pd.Index(values)
    if isinstance(index.dtype, pd.CategoricalDtype):
        cats = level_text(pd.Index(index.categories))
        codes = np.asarray(index.codes)
        out = np.append(cats, None).astype(object)[np.where(codes < 0, len(cats), codes)]
        return out
    missing = np.asarray(pd.isna(index))
    out = np.full(len(index), None, dtype=object)
    ok = ~missing
    if pdt.is_bool_dtype(index.dtype):
        flags = np.asarray(index[ok].astype(bool))
        out[ok] = np.where(flags, "TRUE", "FALSE")
    elif pdt.is_numeric_dtype(index.dtype):
        numbers_ = index[ok].to_numpy(dtype=float)
        out[ok] = r_format(numbers_, pdt.is_integer_dtype(index.dtype))
    else:
        out[ok] = index[ok].astype(str).to_numpy(dtype=object)
    return out


def _check_unique(texts: np.ndarray, has_missing: bool, what: str) -> None:
    present = [t for t in texts if t is not None]
    clash = len(set(present)) != len(present) or (has_missing and MISSING in present)
    if clash:
        seen: dict[str, int] = {}
        for t in present:
            seen[t] = seen.get(t, 0) + 1
        label = next((t for t, n in seen.items() if n > 1), MISSING)
        raise CapkitError(
            f"{what}: two different values get the same synthpop label {label!r} (e.g. a "
            "missing value and the text 'Missing', or numbers equal to 15 digits); the pandas "
            "path merges them, the engine path cannot. Recode the column, or use "
            "engine='pandas'")


def labelled(table: KeyTargetTable, target: str) -> tuple[KeyTargetTable, list[np.ndarray]]:
    """The table with synthpop's labels as level values, and each key's level labels."""
    t_text = level_text(table.targets)
    _check_unique(t_text, any(t is None for t in t_text), f"target {target!r}")
    keys = table.keys
    levels, texts = [], []
    for k, name in enumerate(keys.names):
        text = level_text(keys.levels[k])
        _check_unique(text, bool((np.asarray(keys.codes[k]) < 0).any()), f"key {name!r}")
        texts.append(text)
        levels.append(pd.Index(text, dtype=object))
    new_keys = pd.MultiIndex(levels=levels, codes=keys.codes, names=keys.names,
                             verify_integrity=False)
    return (KeyTargetTable(table.original, table.synthetic,
                           pd.Index(t_text, dtype=object, name=table.targets.name), new_keys,
                           None, None), texts)


def _side_labels(labels: list[str], present: np.ndarray, kind: str, sort_key: SortKey
                 ) -> list[str]:
    """The labels one side of the pandas path has (spec 3.5-3.6), in its order."""
    seen = [lab for lab, p in zip(labels, present, strict=True) if p]
    if MISSING in seen:  # to_missing_level: observed labels, collation order
        return collate_sorted(list(dict.fromkeys(seen)), sort_key)
    if kind == "categorical":  # declared order (table order), every declared level
        return [lab for lab in labels if lab != MISSING]
    if kind == "numeric":
        return seen
    return collate_sorted(seen, sort_key)


def _aligned_order(labels: list[str], in_o: np.ndarray, in_s: np.ndarray, kind: str,
                   sort_key: SortKey) -> np.ndarray:
    """New position of each label: the pandas path's aligned order (spec 3.8, ``_axis``);
    labels neither side has (unused categories) go last."""
    aligned, _ = align_labels(_side_labels(labels, in_o, kind, sort_key),
                              _side_labels(labels, in_s, kind, sort_key), sort_key)
    taken = set(aligned)
    order = list(aligned) + [lab for lab in labels if lab not in taken]
    position = {lab: i for i, lab in enumerate(order)}  # one entry per level
    return np.array([position[lab] for lab in labels], dtype=np.int64)


def _text_order(labels: tuple[str, ...], sort_key: SortKey) -> np.ndarray:
    """New position of each pasted q label: collation order, as the pandas path's ``_q_axis``."""
    order = collation_order(np.asarray(labels, dtype=object), sort_key)
    rank = np.empty(len(labels), dtype=np.int64)
    rank[order] = np.arange(len(labels))
    return rank


def order_cells(cells: CellTable, target_kind: str, key_kind: str | None, sort_key: SortKey
                ) -> CellTable:
    """Rows, columns and cells in the order of the pandas path (spec 3.8).

    Measures do not depend on the order, but the floating-point sums do in their last bit, and
    check_1way reports the first of equally disclosive levels; with the pandas path's order
    both are identical. ``key_kind`` is the kind of a single key (None for several keys, whose
    pasted labels are sorted by collation).
    """
    n_rows, n_cols = cells.shape
    row_rank = _aligned_order(
        list(cells.row_labels), np.bincount(cells.row, weights=cells.d, minlength=n_rows) > 0,
        np.bincount(cells.row, weights=cells.s, minlength=n_rows) > 0, target_kind, sort_key)
    if key_kind is None:
        col_rank = _text_order(cells.col_labels, sort_key)
    else:
        col_rank = _aligned_order(
            list(cells.col_labels), np.bincount(cells.col, weights=cells.d, minlength=n_cols) > 0,
            np.bincount(cells.col, weights=cells.s, minlength=n_cols) > 0, key_kind, sort_key)
    row, col = row_rank[cells.row], col_rank[cells.col]
    order = np.lexsort((col, row))  # row-major, as count_cells

    def permuted(values: Sequence[object], rank: np.ndarray) -> tuple:
        out = np.empty(len(rank), dtype=object)
        out[rank] = np.asarray(values, dtype=object)
        return tuple(out)

    in_syn = np.empty(n_cols, dtype=bool)
    in_syn[col_rank] = cells.col_in_synthetic
    return replace(
        cells, row_labels=permuted(cells.row_labels, row_rank),
        col_labels=permuted(cells.col_labels, col_rank),
        col_components=tuple(permuted(c, col_rank) for c in cells.col_components),
        row=row[order], col=col[order], d=cells.d[order], s=cells.s[order],
        col_in_synthetic=in_syn)


def key_margins(cells: CellTable, table: KeyTargetTable, key_texts: list[np.ndarray]
                ) -> KeyMargins:
    """Original counts by (target label, key label), one table per key (spec 6 step 7).

    The margins of d over the other keys: the same numbers as a count over the original
    records.
    """
    n_t = len(cells.row_labels)
    labels, counts = [], []
    for k, text in enumerate(key_texts):
        names = [str(t) for t in text]
        if MISSING not in names:
            names.append(MISSING)
        missing_at = names.index(MISSING)
        codes = np.asarray(table.keys.codes[k]).astype(np.int64)
        codes = np.where(codes < 0, missing_at, codes)
        n_k = len(names)
        flat = np.bincount(cells.row * n_k + codes[cells.col], weights=cells.d,
                           minlength=n_t * n_k)
        labels.append(tuple(names))
        counts.append(np.rint(flat).astype(np.int64).reshape(n_t, n_k))
    return KeyMargins(tuple(cells.row_labels), tuple(labels), tuple(counts))


def _kind(values: pd.Index, original: object, column: str) -> str:
    """How the pandas path orders a variable's labels: declared, numeric or text order."""
    if isinstance(original, pd.DataFrame) and isinstance(original[column].dtype,
                                                         pd.CategoricalDtype):
        return "categorical"
    dtype = values.dtype
    if pdt.is_numeric_dtype(dtype) and not pdt.is_bool_dtype(dtype):
        return "numeric"
    return "text"


def engine_cells(original: object, synthetic: object, keys: list[str], target: str,
                 engine: str, sort_key: SortKey = None, *, allow_disjoint_levels: bool = False
                 ) -> tuple[CellTable, KeyMargins]:
    """Cells of one synthesis counted by ``engine`` and its 2-way margins."""
    table = crosstab(original, synthetic, keys, target, engine=engine,
                     allow_disjoint_levels=allow_disjoint_levels)
    target_kind = _kind(table.targets, original, target)
    key_kind = _kind(table.keys.levels[0], original, keys[0]) if len(keys) == 1 else None
    named, key_texts = labelled(table, target)
    cells = cells_of_table(named)
    margins = key_margins(cells, named, key_texts)  # on the table's own column numbers
    return order_cells(cells, target_kind, key_kind, sort_key), margins


# --------------------------------------------------------------------------------------------
# disclosure() on an engine


def engine_disclosure(
    synthetic: object,
    original: object,
    keys: str | int | Sequence[str | int],
    target: str | int,
    *,
    engine: str | None,
    denom_lim: int | None,
    exclude_ov_denom_lim: bool,
    not_targetlev: str | None,
    usetarget_na: bool,
    usekeys_na: bool | Sequence[bool],
    exclude_keys: Sequence[str] | None,
    exclude_keylevs: Sequence[str] | None,
    exclude_targetlevs: Sequence[str] | None,
    thresh_1way: Sequence[float],
    thresh_2way: Sequence[float],
    digits: int,
    collation: Callable[[str], object] | None,
    allow_disjoint_levels: bool = False,
) -> DisclosureResult:
    """:func:`capkit.disclosure.disclosure` with the counting done by DuckDB or Spark.

    Arguments as in ``disclosure``; the options of :func:`reject_unsupported` must have been
    checked. Returns a :class:`~capkit.disclosure.result.DisclosureResult` whose ident, attrib
    and allcaps equal those of the pandas path on the same data.
    """
    sources = synthetic_sources(synthetic)
    engine = resolve_engine(sources, original, engine)
    orig_cols = columns_of(original, "original")
    dup = sorted({c for c in orig_cols if orig_cols.count(c) > 1})
    if dup:
        raise CapkitError(f"original has duplicated column names: {dup}")
    frame0 = _frame_of(orig_cols)
    user_keys = opt.resolve_columns(keys, frame0, "keys")
    target_list = opt.resolve_columns(target, frame0, "target")
    if len(target_list) != 1:
        raise CapkitError(f"target must be a single column, got {target_list}")
    target_name = target_list[0]
    syn_cols = [columns_of(s, f"synthetic data set {j + 1}") for j, s in enumerate(sources)]
    opt.check_in_columns(
        [*user_keys, target_name],
        [("original", orig_cols),
         *[(f"synthetic data set {j + 1}", c) for j, c in enumerate(syn_cols)]])
    opt.check_keys_target(user_keys, target_name)
    use_t_na = opt.check_flag(usetarget_na, "usetarget_na")
    flags = opt.check_flags(usekeys_na, len(user_keys), "usekeys_na")
    data_keys = sorted(user_keys, key=orig_cols.index)
    flags = [flags[user_keys.index(k)] for k in data_keys]
    ex_k, ex_kl, ex_tl = opt.check_excludes(exclude_keys, exclude_keylevs, exclude_targetlevs,
                                            user_keys)
    lim = opt.check_denom_lim(denom_lim)
    t1 = opt.check_thresholds(thresh_1way, "thresh_1way")
    t2 = opt.check_thresholds(thresh_2way, "thresh_2way")
    excl_flag = opt.check_flag(exclude_ov_denom_lim, "exclude_ov_denom_lim")
    opt.check_not_targetlev(not_targetlev)

    def first_exclusions(cells: CellTable, margins: KeyMargins) -> Exclusions:
        # level checks against the original's labels (spec 2 item 8)
        return _exclusions(cells, margins, data_keys, target_name, ex_k, ex_kl, ex_tl,
                           not_targetlev, use_t_na, flags, lim, excl_flag)

    allow = opt.check_flag(allow_disjoint_levels, "allow_disjoint_levels")

    def cells_of(j: int, source: object) -> tuple[CellTable, KeyMargins]:
        try:
            return engine_cells(original, source, data_keys, target_name, engine, collation,
                                allow_disjoint_levels=allow)
        except DisjointLevelsError as exc:
            if len(sources) == 1:
                raise
            raise DisjointLevelsError(f"synthetic data set {j}: {exc}") from exc

    per_synthesis = (cells_of(j, source) for j, source in enumerate(sources, start=1))
    return measure_syntheses(per_synthesis, first_exclusions, keys=list(data_keys),
                             target=target_name, thresh_1way=t1, thresh_2way=t2,
                             parse_labels=False, sort_key=collation, digits=digits, messages=[])


def _exclusions(cells: CellTable, margins: KeyMargins, data_keys: list[str], target: str,
                ex_k: list[str], ex_kl: list[str], ex_tl: list[str],
                not_targetlev: str | None, use_t_na: bool, flags: list[bool],
                lim: int | None, excl_flag: bool) -> Exclusions:
    """The exclusions, with excluded levels checked against the original's labels."""
    t_total = np.bincount(cells.row, weights=cells.d, minlength=len(cells.row_labels))
    target_labels = [lab for lab, n in zip(cells.row_labels, t_total, strict=True) if n > 0]
    key_labels = []
    for index in sorted({data_keys.index(k) for k in ex_k}):  # only the keys named
        key_total = margins.counts[index].sum(axis=0)
        key_labels.append((index, {lab for lab, n in zip(margins.key_labels[index], key_total,
                                                           strict=True) if n > 0}))
    triples = opt.exclusion_triples(ex_k, ex_kl, ex_tl, data_keys, target, target_labels,
                                    dict(key_labels))
    return Exclusions(
        not_targetlev=not_targetlev, usetarget_na=use_t_na,
        keys_na_excluded=tuple(not f for f in flags), triples=tuple(triples), denom_lim=lim,
        exclude_ov_denom_lim=excl_flag, missing_label=MISSING)
