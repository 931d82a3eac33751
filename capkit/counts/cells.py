"""The count step of synthpop's ``disclosure()``: aligned target x q tables (spec 3.7-3.8).

One count pass per synthesis turns the coded target and keys of the original and of one
synthetic data set into a :class:`CellTable`: the non-zero cells of the aligned tables d
(original) and s (synthetic) as parallel arrays (row, column, d count, s count). Every measure of
:mod:`capkit.disclosure.measures` is computed from it, so a bigger engine (DuckDB, Spark) only
has to produce the same cells.

The key combinations are coded with :func:`capkit.counts.tables.factorize_pair` and
:func:`capkit.counts.tables.combine_codes`; labels are built for the distinct combinations only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from capkit.counts.encode import check_levels, combine_codes, factorize_pair
from capkit.counts.table import KeyTargetTable
from capkit.data.labels import MISSING, Coded, SortKey, collate_sorted, collation_order

#: Dense bincount up to this many cells (rows x columns); sparse counting (np.unique) above.
DENSE_LIMIT = 1 << 23

#: Separator of key labels in q (synthpop pastes keys with " | ").
Q_SEP = " | "


@dataclass(frozen=True)
class CellTable:
    """Aligned counts of one synthesis: the cells where d > 0 or s > 0.

    Attributes
    ----------
    row_labels, col_labels
        Labels of the aligned rows (target levels) and columns (q) of the original table d;
        outputs are labelled with these (spec 3.8).
    col_components
        For each key (data order), the key label of each column (what exclusions and
        check_2way read as "the k-th component of q").
    row, col, d, s
        Parallel int64 arrays over the non-zero cells: position and counts in d and s.
    col_in_synthetic
        For each column, whether its label is among the synthetic q labels before alignment
        (the ``Ks`` of UiOiS, spec 4.4).
    n_orig, n_syn
        Record counts Nd and Ns (never reduced).
    orig_target_missing
        Whether the original target has the level "Missing" (usetargetNA, spec 4.3 step 2).
    record_cell
        For each original record (row order), the position of its cell in ``row`` / ``col`` /
        ``d`` / ``s``; None when the cells were counted without the records (an engine).
    """

    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    col_components: tuple[tuple[str, ...], ...]
    row: np.ndarray
    col: np.ndarray
    d: np.ndarray
    s: np.ndarray
    col_in_synthetic: np.ndarray
    n_orig: int
    n_syn: int
    orig_target_missing: bool
    record_cell: np.ndarray | None = field(default=None, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the aligned tables."""
        return len(self.row_labels), len(self.col_labels)

    def dense(self) -> tuple[np.ndarray, np.ndarray]:
        """The aligned tables d and s as dense arrays (for small tables and tests)."""
        d = np.zeros(self.shape, dtype=np.int64)
        s = np.zeros(self.shape, dtype=np.int64)
        np.add.at(d, (self.row, self.col), self.d)
        np.add.at(s, (self.row, self.col), self.s)
        return d, s


def align_labels(orig: Sequence[str], syn: Sequence[str],
                 sort_key: SortKey = None) -> tuple[list[str], list[str]]:
    """synthpop's alignment of two label lists (spec 3.8, steps 1-4).

    The side lacking labels of the other gets them appended and is then re-sorted by collation;
    a side lacking nothing keeps its own order. Returns (aligned original, aligned synthetic):
    the same labels, possibly in different orders (quirk Q4).
    """
    set_o, set_s = set(orig), set(syn)
    syn_aligned = list(syn)
    if set_o - set_s:
        syn_aligned = collate_sorted(syn_aligned + [x for x in orig if x not in set_s], sort_key)
    orig_aligned = list(orig)
    if set_s - set_o:
        orig_aligned = collate_sorted(orig_aligned + [x for x in syn if x not in set_o],
                                      sort_key)
    return orig_aligned, syn_aligned


def _positions(labels: Sequence[str], aligned: Sequence[str]) -> np.ndarray:
    where = {lab: i for i, lab in enumerate(aligned)}
    return np.array([where[lab] for lab in labels], dtype=np.int64)


def _axis(orig: Coded, syn: Coded, by_position: bool, sort_key: SortKey
          ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Aligned labels (original side) and the aligned position of every record's label."""
    aligned_o, aligned_s = align_labels(orig.labels, syn.labels, sort_key)
    pos_o = _positions(orig.labels, aligned_o)[orig.codes]
    pos_s = _positions(syn.labels, aligned_s if by_position else aligned_o)[syn.codes]
    return aligned_o, pos_o, pos_s


def _as_categorical(coded: Coded) -> pd.Series:
    return pd.Series(pd.Categorical.from_codes(coded.codes, categories=list(coded.labels)))


#: The last q axis built, with what it was built from (:func:`_q_axis`): a summary over many
#: targets measures every target with the same keys, so their combinations are coded once.
_LAST_Q: list[tuple[tuple, tuple]] = []


def _same_keys(a: tuple, b: tuple) -> bool:
    """Whether two (flags, codes) signatures of :func:`_q_axis` are equal, value by value."""
    (flags_a, *coded_a), (flags_b, *coded_b) = a, b
    return (flags_a[0] == flags_b[0] and flags_a[1] is flags_b[1] and flags_a[2:] == flags_b[2:]
            and len(coded_a) == len(coded_b)
            and all(x.labels == y.labels and x.codes.shape == y.codes.shape
                    and np.array_equal(x.codes, y.codes)
                    for x, y in zip(coded_a, coded_b, strict=True)))


def _q_axis(keys_o: Sequence[Coded], keys_s: Sequence[Coded], by_position: bool,
            sort_key: SortKey, split_labels: bool
            ) -> tuple[list[str], list[tuple[str, ...]], np.ndarray, np.ndarray, np.ndarray]:
    """Columns q: labels, per-key components, record positions and the ``Ks`` membership.

    The answer for the keys of the last call is kept (compared value by value, read-only
    arrays) and given again."""
    signature = ((by_position, sort_key, split_labels, len(keys_o)), *keys_o, *keys_s)
    if _LAST_Q and _same_keys(_LAST_Q[0][0], signature):
        labels, comps, *arrays = _LAST_Q[0][1]
        return list(labels), list(comps), *arrays
    answer = _q_axis_built(keys_o, keys_s, by_position, sort_key, split_labels)
    for array in answer[2:]:
        array.setflags(write=False)
    kept = (signature[0], *(Coded(c.labels, c.codes.copy()) for c in signature[1:]))
    _LAST_Q[:] = [(kept, answer)]
    return list(answer[0]), list(answer[1]), *answer[2:]


def _q_axis_built(keys_o: Sequence[Coded], keys_s: Sequence[Coded], by_position: bool,
                  sort_key: SortKey, split_labels: bool
                  ) -> tuple[list[str], list[tuple[str, ...]], np.ndarray, np.ndarray,
                             np.ndarray]:
    """:func:`_q_axis`, built."""
    if len(keys_o) == 1:
        ko, ks = keys_o[0], keys_s[0]
        labels, pos_o, pos_s = _axis(ko, ks, by_position, sort_key)
        in_syn = np.isin(np.array(labels, dtype=object), np.array(ks.labels, dtype=object))
        return labels, [tuple(labels)], pos_o, pos_s, in_syn
    pairs = [factorize_pair(_as_categorical(o), _as_categorical(s))
             for o, s in zip(keys_o, keys_s, strict=True)]
    levels = [p[2] for p in pairs]
    comb_o, comb_s, components = combine_codes(
        [p[0] for p in pairs], [p[1] for p in pairs], [len(lv) for lv in levels])
    parts = [np.asarray(lv.astype(str), dtype=object)[c] for lv, c in zip(levels, components,
                                                                          strict=True)]
    text = parts[0].copy()
    for more in parts[1:]:
        text = text + Q_SEP + more
    k = len(text)
    seen_s = np.bincount(comb_s, minlength=k) > 0
    if by_position:
        # synthpop: q is the pasted text; combinations with the same text are one q (Q19)
        uniq, inverse = np.unique(text.astype(str), return_inverse=True)
        if sort_key is not None:
            order = collation_order(uniq, sort_key)
            rank = np.empty(len(uniq), dtype=np.int64)
            rank[order] = np.arange(len(uniq))
            uniq, inverse = uniq[order], rank[inverse]
        col_of_comb = inverse.astype(np.int64)
        labels = [str(u) for u in uniq]
        comps = [tuple(lab.split(Q_SEP)) for lab in labels] if split_labels else None
        n_keys = len(keys_o)
        if comps is not None:
            component_cols = [tuple(c[i] if i < len(c) else "" for c in comps)
                              for i in range(n_keys)]
        else:
            first = np.zeros(len(uniq), dtype=np.int64)
            first[inverse[::-1]] = np.arange(k)[::-1]
            component_cols = [tuple(str(x) for x in p[first]) for p in parts]
    else:
        order = collation_order(text, sort_key)
        col_of_comb = np.empty(k, dtype=np.int64)
        col_of_comb[order] = np.arange(k)
        labels = [str(t) for t in text[order]]
        component_cols = [tuple(str(x) for x in p[order]) for p in parts]
    n_cols = len(labels)
    in_syn = np.zeros(n_cols, dtype=bool)
    in_syn[col_of_comb[seen_s]] = True
    return labels, component_cols, col_of_comb[comb_o], col_of_comb[comb_s], in_syn


def check_coded_levels(column: str, role: str, original: Coded, syntheses: Sequence[Coded],
                       *, numeric: bool, allow_disjoint_levels: bool = False) -> None:
    """:func:`capkit.counts.encode.check_levels` on coded variables (the count step of
    ``disclosure``): labels matched by text, ``"Missing"`` left out of the rule, one check per
    variable for all syntheses."""
    grid = pd.Index(np.asarray(original.labels, dtype=object))
    for coded in syntheses:
        more = pd.Index(np.asarray(coded.labels, dtype=object)).difference(grid, sort=False)
        grid = grid.append(more)

    def counts(coded: Coded) -> np.ndarray:
        codes = coded.codes[coded.codes >= 0]
        per_label = np.bincount(codes, minlength=len(coded.labels))
        on_grid = np.zeros(len(grid), dtype=np.int64)
        on_grid[grid.get_indexer(np.asarray(coded.labels, dtype=object))] = per_label
        return on_grid

    labels = grid.to_numpy(dtype=object)
    check_levels(column, role, labels, counts(original), [counts(c) for c in syntheses],
                 missing=labels == MISSING, numeric=numeric,
                 allow_disjoint_levels=allow_disjoint_levels)


def count_cells(rows_o: np.ndarray, cols_o: np.ndarray, rows_s: np.ndarray, cols_s: np.ndarray,
                shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One count pass: the non-zero cells of d and s from per-record (row, column) positions.

    Returns parallel arrays (row, col, d, s) in row-major cell order.
    """
    n_rows, n_cols = shape
    flat_o = rows_o * n_cols + cols_o
    flat_s = rows_s * n_cols + cols_s
    size = n_rows * n_cols
    if size <= DENSE_LIMIT:
        d = np.bincount(flat_o, minlength=size)
        s = np.bincount(flat_s, minlength=size)
        cells = np.flatnonzero((d > 0) | (s > 0))
        d, s = d[cells], s[cells]
    else:
        both = np.concatenate([flat_o, flat_s])
        cells, inverse = np.unique(both, return_inverse=True)
        inverse = inverse.ravel()
        d = np.bincount(inverse[: len(flat_o)], minlength=len(cells))
        s = np.bincount(inverse[len(flat_o):], minlength=len(cells))
    row, col = np.divmod(cells, n_cols)
    return (row.astype(np.int64), col.astype(np.int64), d.astype(np.int64),
            s.astype(np.int64))


def build_cells(target_o: Coded, target_s: Coded, keys_o: Sequence[Coded],
                keys_s: Sequence[Coded], *, by_position: bool = False,
                sort_key: SortKey = None, split_labels: bool = False,
                unused_levels_in_ks: bool = False) -> CellTable:
    """Aligned target x q cells of one synthesis (spec 3.7-3.8).

    Parameters
    ----------
    target_o, target_s
        The target of the original and of the synthetic data, after "Missing" conversion.
    keys_o, keys_s
        The keys (data order), likewise.
    by_position
        synthpop's pairing of d and s by position after a one-sided re-sort (quirk Q4);
        ``False`` pairs cells by label.
    sort_key
        Collation (``None``: code-point order).
    split_labels
        Read q components by splitting the pasted label at " | " (synthpop, quirk Q19) instead
        of from the keys themselves.
    unused_levels_in_ks
        With a single categorical key, count its unused synthetic levels as "in the synthetic
        data" for UiOiS, as synthpop does (quirk Q10). ``False``: only observed labels.
    """
    row_labels, row_o, row_s = _axis(target_o, target_s, by_position, sort_key)
    col_labels, comps, col_o, col_s, in_syn = _q_axis(keys_o, keys_s, by_position, sort_key,
                                                      split_labels)
    shape = (len(row_labels), len(col_labels))
    row, col, d, s = count_cells(row_o, col_o, row_s, col_s, shape)
    # the cells are in row-major order, so each record finds its cell by a binary search
    record_cell = np.searchsorted(row * shape[1] + col, row_o * shape[1] + col_o)
    if not (unused_levels_in_ks and len(keys_o) == 1):
        in_syn = np.bincount(col[s > 0], minlength=shape[1]) > 0
    return CellTable(
        row_labels=tuple(row_labels),
        col_labels=tuple(col_labels),
        col_components=tuple(comps),
        row=row, col=col, d=d, s=s,
        col_in_synthetic=in_syn,
        n_orig=len(target_o.codes),
        n_syn=len(target_s.codes),
        orig_target_missing="Missing" in target_o.labels,
        record_cell=record_cell,
    )


def _label_text(values: pd.Index, missing: str) -> np.ndarray:
    text = np.asarray(values.astype(str), dtype=object)
    text[np.asarray(pd.isna(values))] = missing
    return text


def _level_text(labels: pd.MultiIndex, k: int, missing: str) -> np.ndarray:
    """Text of level k of every entry, sharing one string object per distinct level."""
    level = _label_text(labels.levels[k], missing)
    codes = np.asarray(labels.codes[k])
    return np.append(level, missing)[np.where(codes < 0, len(level), codes)]


def _pasted(parts: list[np.ndarray]) -> tuple[str, ...]:
    if len(parts) == 1:
        return tuple(parts[0])
    return tuple(Q_SEP.join(p) for p in zip(*parts, strict=True))


def _union_cells(o: object, s: object, n_cols: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat row-major positions of the cells where o > 0 or s > 0, and both counts there."""
    if not (sparse.issparse(o) or sparse.issparse(s)):
        do, ds = np.asarray(o).ravel(), np.asarray(s).ravel()
        cells = np.flatnonzero((do > 0) | (ds > 0))
        return cells, do[cells], ds[cells]
    co, cs = sparse.csr_array(o).astype(np.int64), sparse.csr_array(s).astype(np.int64)
    big = int(co.max()) + 1 if co.nnz else 1
    top = int(cs.max()) if cs.nnz else 0
    if top < 2**62 // big:  # both counts packed in one sparse sum: O(nnz), no sort of cells
        both = sparse.coo_array(co + cs * big)
        cells = both.row.astype(np.int64) * n_cols + both.col
        order = np.argsort(cells, kind="stable")
        packed = both.data[order]
        return cells[order], packed % big, packed // big
    oo, so = co.tocoo(), cs.tocoo()
    flat = np.concatenate([oo.row.astype(np.int64) * n_cols + oo.col,
                           so.row.astype(np.int64) * n_cols + so.col])
    cells, inverse = np.unique(flat, return_inverse=True)
    d = np.bincount(inverse.ravel(), weights=np.concatenate([oo.data, np.zeros(so.nnz)]),
                    minlength=len(cells))
    s_ = np.bincount(inverse.ravel(), weights=np.concatenate([np.zeros(oo.nnz), so.data]),
                     minlength=len(cells))
    keep = (d > 0) | (s_ > 0)
    return cells[keep], d[keep], s_[keep]


def cells_of_table(table: KeyTargetTable) -> CellTable:
    """A :func:`capkit.counts.tables.crosstab` table as the cells synthpop's measures are computed
    on.

    This lets :func:`capkit.disclosure.compute` (Raab, Nowok & Dibben's identity and attribute
    measures, pairing cells by label) run on counts from any engine. Labels are the text of the
    values with a missing value written ``"Missing"`` (synthpop's label); key combinations
    are pasted with ``" | "``. Only the measures' inputs are reproduced: synthpop's own label
    processing (grouping of numeric variables, ``synorig.compare``) is not applied here.
    """
    n_rows, n_cols = table.shape
    cells, d, s_ = _union_cells(table.original, table.synthetic, n_cols)
    row, col = np.divmod(cells, n_cols)
    d, s_ = np.rint(d).astype(np.int64), np.rint(s_).astype(np.int64)
    targets = table.targets
    if isinstance(targets, pd.MultiIndex):
        row_text = np.array(_pasted([_level_text(targets, k, MISSING)
                                     for k in range(targets.nlevels)]), dtype=object)
    else:
        row_text = _label_text(targets, MISSING)
    comps = [_level_text(table.keys, k, MISSING) for k in range(table.keys.nlevels)]
    in_syn = np.bincount(col[s_ > 0], minlength=n_cols) > 0
    orig_rows = np.bincount(row[d > 0], minlength=n_rows) > 0
    return CellTable(
        row_labels=tuple(row_text),
        col_labels=_pasted(comps),
        col_components=tuple(tuple(c) for c in comps),
        row=row.astype(np.int64), col=col.astype(np.int64), d=d, s=s_,
        col_in_synthetic=in_syn,
        n_orig=int(d.sum()),
        n_syn=int(s_.sum()),
        orig_target_missing=bool(orig_rows[row_text == MISSING].any()),
    )
