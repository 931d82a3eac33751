"""Counting query matches: how many records of a frame satisfy each conjunction of conditions.

A **query** is a conjunction of conditions ``(column, op, value)``, ``op`` one of
``== != >= <= > < is_null is_not_null`` (the value is ignored by the last two and may be
left out). This is the query language of anonymeter's singling-out attack (Giomi et al. 2022,
"A Unified Framework for Quantifying Privacy Risk in Synthetic Data", PoPETs 2023), with the
semantics of the polars expressions it evaluates: a comparison with a missing value is false
(also ``!=``), ``is_null`` matches missing values, and ``== None`` matches nothing. A query
*singles out* in a frame when it matches exactly one record.

Counting is vectorised: each distinct condition becomes one bit mask over the records, packed 64
records to a word; the masks of all values of one (column, operator) are built together by
sorting the values, setting one bit per record and a cumulative OR (no records x values
comparison); a query's count is the population count of the AND of its conditions' masks,
computed for blocks of queries at a time. Many queries on the same (at most three) columns are
counted at once instead, from one histogram of the records' cells over those columns
(:mod:`capkit.attacks._query_grid`). There is no loop over records.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.attacks._bitmasks import (
    conjunction_counts,
    copy_rows,
    last_word,
    pack,
)
from capkit.attacks._query_grid import blocks_by_columns, split_counts
from capkit.errors import CapkitError

__all__ = ["OPS", "ConditionTable", "FrameColumns", "column_kind", "match_counts", "query_text"]

#: The operators a condition may use.
OPS = ("==", "!=", ">=", "<=", ">", "<", "is_null", "is_not_null")
_ORDER_OPS = (">=", "<=", ">", "<")
#: Bytes of condition masks held at once when counting by bit masks: at most
#: :data:`_MASK_BYTES`, and at most :data:`_MASK_BYTES_PER_CELL` per record and column of the
#: frame unless that is below :data:`_MASK_FLOOR` (small frames: few large blocks, as each
#: block costs a pass over the records per column and operator); at least one query's masks.
_MASK_BYTES = 1 << 28
_MASK_BYTES_PER_CELL = 16
_MASK_FLOOR = 1 << 26


def column_kind(series: pd.Series) -> str:
    """``numeric`` (numbers, not bool), ``bool``, or ``text`` (text, categorical, other)."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if isinstance(dtype, pd.CategoricalDtype):
        return "text"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    return "text"


class FrameColumns:
    """A frame's columns prepared once for mask building (numbers as float, others as codes)."""

    def __init__(self, frame: pd.DataFrame, argument: str = "frame") -> None:
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{argument} must be a pandas DataFrame, got {type(frame).__name__}")
        if frame.columns.has_duplicates:
            duplicated = frame.columns[frame.columns.duplicated()].tolist()
            raise CapkitError(f"{argument} has duplicated column names {duplicated}")
        self.frame = frame
        self.argument = argument
        self.n = len(frame)
        self.words = max(1, -(-self.n // 64))
        self.cells = self.n * frame.shape[1]
        self._cache: dict[str, tuple] = {}

    def kind(self, column: str) -> str:
        return self._prepared(column)[0]

    def _prepared(self, column: str) -> tuple:
        """(kind, each record's position in the sorted distinct values (-1 missing; the
        narrowest signed integer type that holds them), sorted distinct values as floats,
        lookup label -> code for non-numeric columns).

        Only this is kept per column (1 to 4 bytes a record for up to 2^31 distinct
        values): the missing values' mask and the valid records are derived per call."""
        if column not in self._cache:
            if column not in self.frame.columns:
                raise CapkitError(f"column {column!r} is missing from {self.argument}")
            series = self.frame[column]
            kind = column_kind(series)
            if kind == "numeric":
                values = series.to_numpy(dtype=float, na_value=np.nan)
                null = np.isnan(values)
                distinct, position = np.unique(values[~null], return_inverse=True)
                codes = np.full(self.n, -1, dtype=_code_type(len(distinct)))
                codes[~null] = position
                del values, position
                lookup = None
            else:
                codes, uniques = pd.factorize(series, use_na_sentinel=True)
                codes = codes.astype(_code_type(len(uniques)), copy=False)
                distinct = np.arange(len(uniques), dtype=float)
                lookup = {value: code for code, value in enumerate(uniques.tolist())}
            self._cache[column] = (kind, codes, distinct, lookup)
        return self._cache[column]

    def _assign(self, column: str, op: str, values: Sequence[object]) -> _Assignment:
        """Sorted distinct targets of ``column op value`` and, per record, the row of the
        first (``<``, ``<=``) or last (``>``, ``>=``) target it satisfies, or of the target it
        equals (m: none, and every missing value). Missing targets (None) match nothing. The
        search runs over the column's distinct values, then one gather maps every record."""
        kind, codes, domain, lookup = self._prepared(column)
        if kind == "numeric":
            targets = np.array([_numeric_value(v, column) for v in values], dtype=float)
        else:
            if op in _ORDER_OPS:
                raise CapkitError(f"operator {op!r} needs a numeric column; column {column!r} "
                                  f"of {self.argument} is {kind}")
            targets = np.array([_code_value(v, column, kind, lookup) for v in values], float)
            targets[targets == -1] = np.nan
        known = ~np.isnan(targets)
        distinct, inverse = np.unique(targets[known], return_inverse=True)
        m = len(distinct)
        if op in ("==", "!="):
            row = np.searchsorted(distinct, domain, side="left")
            if m:
                row[(row < m) & (distinct[np.minimum(row, m - 1)] != domain)] = m
        elif op in ("<=", "<"):
            row = np.searchsorted(distinct, domain, side="left" if op == "<=" else "right")
        else:  # x >= t_k iff k <= right - 1; x > t_k iff k <= left - 1
            row = np.searchsorted(distinct, domain, side="right" if op == ">=" else "left") - 1
            row[row < 0] = m
        # a missing value (code -1) takes the last entry: row m, no target
        row = np.append(row, m).astype(_code_type(m + 1), copy=False)
        return _Assignment(op, m, known, inverse, row[codes])

    def _null(self, column: str) -> np.ndarray:
        return self._prepared(column)[1] < 0

    def domain(self, column: str) -> np.ndarray:
        """The column's sorted distinct values as floats (codes for non-numeric columns)."""
        return self._prepared(column)[2]

    def codes(self, column: str) -> np.ndarray:
        """Each record's position in :meth:`domain` (-1 missing), in the narrowest signed
        integer type holding them (read only: the cached array itself)."""
        return self._prepared(column)[1]

    def target(self, column: str, op: str, value: object) -> float:
        """``value`` of ``column op value`` as a float of :meth:`domain`'s scale (NaN:
        matches nothing); checks it as :meth:`masks` does."""
        kind, _, _, lookup = self._prepared(column)
        if kind == "numeric":
            return _numeric_value(value, column)
        if op in _ORDER_OPS:
            raise CapkitError(f"operator {op!r} needs a numeric column; column {column!r} "
                              f"of {self.argument} is {kind}")
        code = _code_value(value, column, kind, lookup)
        return np.nan if code == -1 else float(code)

    def masks(self, column: str, op: str, values: Sequence[object]) -> np.ndarray:
        """Packed masks (len(values) x words, uint64) of ``column op value`` for each value."""
        compact, known, inverse = self.distinct_masks(column, op, values)
        out = np.zeros((len(values), self.words), dtype=np.uint64)
        copy_rows(out, np.flatnonzero(known), compact, inverse)
        return out

    def distinct_masks(self, column: str, op: str, values: Sequence[object]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Packed masks of the distinct targets of ``column op value`` (m x words, uint64),
        which values have a target (a missing or absent one matches nothing: no mask), and
        each such value's row in the masks.

        Each record sets one bit, in its row (:meth:`_assign`), and a cumulative OR along
        the sorted targets fills in the rest, in place: O(n log m + m words), no m x n
        comparison, one m x words array.
        """
        if op in ("is_null", "is_not_null"):
            null = self._null(column)
            compact = pack((null if op == "is_null" else ~null)[None, :])
            return compact, np.ones(len(values), bool), np.zeros(len(values), np.int64)
        a = self._assign(column, op, values)
        row, inverse = a.row, a.inverse
        if op in (">=", ">"):  # rows reversed, so that the OR accumulates forwards in place
            flip = np.append(np.arange(a.m - 1, -1, -1), a.m).astype(row.dtype)
            row, inverse = flip[row], a.m - 1 - inverse
        out = np.zeros((a.m + 1, self.words), dtype=np.uint64)
        # records by row (a stable sort: ascending within a row), then one OR per 64-bit word
        record = np.argsort(row, kind="stable")
        at = row[record].astype(np.int64)
        at *= self.words
        at += record >> 6
        starts = np.flatnonzero(np.diff(at, prepend=-1))
        bits = np.left_shift(np.uint64(1), (record & 63).astype(np.uint64))
        del record
        out.ravel()[at[starts]] = np.bitwise_or.reduceat(bits, starts) if len(bits) else 0
        del at, bits, starts
        out = out[:a.m]
        if op in ("<=", "<", ">=", ">"):
            np.bitwise_or.accumulate(out, axis=0, out=out)
        elif op == "!=":
            np.invert(out, out=out)
            out &= pack(~self._null(column)[None, :])
        return out, a.known, inverse

    def counts(self, column: str, op: str, values: Sequence[object]
               ) -> tuple[np.ndarray, np.ndarray]:
        """Matches of ``column op value`` for each value, and the first matching record (-1),
        without masks: per-row counts and first records, cumulated along the sorted targets."""
        if op in ("is_null", "is_not_null"):
            null = self._null(column)
            hit = null if op == "is_null" else ~null
            first = int(np.argmax(hit)) if hit.any() else -1
            return np.full(len(values), hit.sum()), np.full(len(values), first)
        a = self._assign(column, op, values)
        per_row = np.bincount(a.row, minlength=a.m + 1)
        first_row = np.full(a.m + 1, self.n, dtype=np.int64)
        rows, at = np.unique(a.row, return_index=True)  # the first record of each row
        first_row[rows] = at
        count, first = per_row[:a.m], first_row[:a.m]
        if op in ("<=", "<"):
            count, first = np.cumsum(count), np.minimum.accumulate(first)
        elif op in (">=", ">"):
            count = np.cumsum(count[::-1])[::-1]
            first = np.minimum.accumulate(first[::-1])[::-1]
        elif op == "!=":
            valid = ~self._null(column)
            count = int(valid.sum()) - count
            # the first valid record not in row k: the very first, or the first of another row
            r0 = int(np.argmax(valid)) if valid.any() else self.n
            row0 = a.row[r0] if r0 < self.n else -1
            other = valid & (a.row != row0)
            r1 = int(np.argmax(other)) if other.any() else self.n
            first = np.where(np.arange(a.m) == row0, r1, r0)
        first = np.where(first >= self.n, -1, first)
        out_count = np.zeros(len(values), dtype=np.int64)
        out_first = np.full(len(values), -1, dtype=np.int64)
        out_count[a.known], out_first[a.known] = count[a.inverse], first[a.inverse]
        return out_count, out_first


@dataclass
class _Assignment:
    """Targets of one (column, operator): m distinct targets, which values have one and their
    row among them, and each record's row (m: none; missing values included)."""

    op: str
    m: int
    known: np.ndarray
    inverse: np.ndarray
    row: np.ndarray


def _code_type(size: int) -> type:
    """The narrowest signed integer type holding -1 .. size."""
    for kind in (np.int8, np.int16, np.int32):
        if size < np.iinfo(kind).max:
            return kind
    return np.int64


def _numeric_value(value: object, column: str) -> float:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return np.nan
    if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
        return float(value)
    raise CapkitError(f"condition value {value!r} on column {column!r}: the column is numeric, "
                      "the value is not a number (is the column coded differently?)")


def _code_value(value: object, column: str, kind: str, lookup: dict) -> int:
    """Code of ``value`` in the column, -2 when absent (matches nothing), -1 for None."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return -1
    if kind == "bool":
        if not isinstance(value, bool | np.bool_):
            raise CapkitError(f"condition value {value!r} on column {column!r}: the column is "
                              "boolean, the value is not True/False")
        value = bool(value)
    elif lookup:
        sample = next(iter(lookup))
        if isinstance(sample, str) != isinstance(value, str):
            raise CapkitError(
                f"condition value {value!r} on column {column!r}: the column holds "
                f"{type(sample).__name__} values, the value is {type(value).__name__} "
                "(is the column coded differently?)")
    return lookup.get(value, -2)


@dataclass
class ConditionTable:
    """Distinct conditions and, per query, the ids of its conditions (-1 pads short queries)."""

    conditions: list[tuple[str, str, object]]
    index: np.ndarray

    @classmethod
    def from_queries(cls, queries: Iterable[Sequence[Sequence[object]]]) -> ConditionTable:
        ids: dict[tuple, int] = {}
        conditions: list[tuple[str, str, object]] = []
        rows: list[list[int]] = []
        for number, query in enumerate(queries):
            if isinstance(query, str | bytes) or not isinstance(query, Sequence | Iterable):
                raise CapkitError(f"query {number} must be a list of (column, op, value) "
                                  f"conditions, got {query!r}")
            row = []
            for condition in query:
                column, op, value = _condition(condition, number)
                key = (column, op, _key(value))
                if key not in ids:
                    ids[key] = len(conditions)
                    conditions.append((column, op, value))
                row.append(ids[key])
            rows.append(row)
        width = max((len(r) for r in rows), default=0)
        index = np.full((len(rows), max(width, 1)), -1, dtype=np.int64)
        for number, row in enumerate(rows):
            index[number, :len(row)] = row
        return cls(conditions, index)

    def masks(self, columns: FrameColumns, only: np.ndarray | None = None,
              out: np.ndarray | None = None) -> np.ndarray:
        """Packed masks of the conditions (all, or the ids in ``only``) on ``columns``, written
        into ``out`` (len x words, uint64) when given: each (column, operator)'s distinct
        masks are built once and copied into place (no other array of the whole size)."""
        wanted = np.arange(len(self.conditions)) if only is None else only
        if out is None:
            out = np.empty((len(wanted), columns.words), dtype=np.uint64)
        groups: dict[tuple[str, str], list[int]] = {}
        for position, cid in enumerate(wanted.tolist()):
            column, op, _ = self.conditions[cid]
            groups.setdefault((column, op), []).append(position)
        for (column, op), positions in groups.items():
            values = [self.conditions[wanted[p]][2] for p in positions]
            compact, known, inverse = columns.distinct_masks(column, op, values)
            at = np.asarray(positions, dtype=np.int64)
            out[at[~known]] = 0
            copy_rows(out, at[known], compact, inverse)
            del compact
        return out

    def packed(self, columns: FrameColumns, rows: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Masks of the conditions used by the queries (or those in ``rows``), plus an all-rows
        mask for padding, and the queries' index into them."""
        index = self.index if rows is None else self.index[rows]
        used, inverse = np.unique(index, return_inverse=True)
        inverse = inverse.reshape(index.shape)
        real = used >= 0
        masks = np.empty((len(used), columns.words), dtype=np.uint64)
        # np.unique sorts: the padding (-1) is first, the real conditions after it
        start = len(used) - int(real.sum())
        self.masks(columns, used[real], out=masks[start:])
        masks[:start] = ~np.uint64(0)
        masks[:start, -1] &= last_word(columns.n)
        return masks, inverse

    def counts(self, columns: FrameColumns, rows: np.ndarray | None = None, *,
               first: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Matches of each query (or of the queries in ``rows``) in the frame of ``columns``;
        with ``first=True`` also the position of the matching record of each query matching
        exactly one (-1 otherwise).

        Queries on at most three distinct columns are counted together per set of columns,
        from one histogram of the records' cells (:mod:`capkit.attacks._query_grid`): O(s (n k +
        G) + q 2^k) for s sets of k columns, n records, G <= 2^22 cells, q queries; the others
        (and sets with few queries, where it is cheaper) by AND-ing bit masks, O(q k n / 64).

        Memory: O(n + q k + G) above the coded columns, with the masks of a block of queries
        bounded by :data:`_MASK_BYTES_PER_CELL` bytes per record and column of the frame (or
        :data:`_MASK_FLOOR`) and by :data:`_MASK_BYTES`: written in place into one array, a
        (column, operator)'s distinct masks built once and copied in bounded blocks."""
        index = self.index if rows is None else self.index[rows]
        if index.shape[1] == 1 and (index >= 0).all():
            counts, firsts = self._single_counts(columns, index[:, 0], True)
        else:
            counts, firsts, served = split_counts(columns, self.conditions, index, first)
            rest = np.flatnonzero(~served)
            ids = rest if rows is None else rows[rest]
            # bit masks in blocks of queries on the same columns (bounded memory)
            budget = min(_MASK_BYTES, max(_MASK_FLOOR, _MASK_BYTES_PER_CELL * columns.cells))
            step = max(1, budget // (8 * columns.words * index.shape[1]))
            for part in blocks_by_columns(self.conditions, self.index[ids], step):
                masks, inverse = self.packed(columns, ids[part])
                counts[rest[part]], firsts[rest[part]] = conjunction_counts(masks, inverse,
                                                                            first=True)
        return (counts, np.where(counts == 1, firsts, -1)) if first else counts

    def _single_counts(self, columns: FrameColumns, ids: np.ndarray, first: bool
                       ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Counts of one-condition queries, straight from the column (no masks)."""
        used, inverse = np.unique(ids, return_inverse=True)
        counts = np.empty(len(used), dtype=np.int64)
        firsts = np.empty(len(used), dtype=np.int64)
        groups: dict[tuple[str, str], list[int]] = {}
        for position, cid in enumerate(used.tolist()):
            column, op, _ = self.conditions[cid]
            groups.setdefault((column, op), []).append(position)
        for (column, op), positions in groups.items():
            values = [self.conditions[used[p]][2] for p in positions]
            counts[positions], firsts[positions] = columns.counts(column, op, values)
        counts, firsts = counts[inverse], firsts[inverse]
        return (counts, firsts) if first else counts


def _condition(condition: object, number: int) -> tuple[str, str, object]:
    if isinstance(condition, str) or not isinstance(condition, Sequence) or not (
        2 <= len(condition) <= 3
    ):
        raise CapkitError(f"query {number}: a condition is (column, op, value), got "
                          f"{condition!r}")
    column, op = condition[0], condition[1]
    value = condition[2] if len(condition) == 3 else None
    if op not in OPS:
        raise CapkitError(f"query {number}: operator {op!r} is not one of {OPS}")
    if op in ("is_null", "is_not_null"):
        value = None
    elif len(condition) == 2:
        raise CapkitError(f"query {number}: operator {op!r} needs a value")
    if isinstance(value, np.generic):
        value = value.item()
    return column, op, value


def _key(value: object) -> object:
    """A hashable key that tells 1 from 1.0 from True (distinct conditions for polars)."""
    if isinstance(value, float) and np.isnan(value):
        return ("nan",)
    return (type(value).__name__, value)


def match_counts(queries: Iterable[Sequence[Sequence[object]]], frame: pd.DataFrame
                 ) -> np.ndarray:
    """Number of records of ``frame`` that each query matches.

    Parameters
    ----------
    queries
        Each query a list of conditions ``(column, op, value)`` (a conjunction), ``op`` one of
        :data:`OPS`; ``is_null`` / ``is_not_null`` take no value (a 2-tuple is accepted). An
        empty query matches every record.
    frame
        The records. Numeric columns compare numerically; text, categorical (``category``,
        with or without missing values) and boolean columns by equality only.

    Returns
    -------
    numpy.ndarray
        int64 counts, one per query. A query singles out when its count is 1.

    Raises
    ------
    CapkitError
        A malformed query, an unknown operator, a column missing from ``frame``, an ordering
        operator on a non-numeric column, or a value of another type than its column (a number
        for a text column, text for a numeric one) -- the message names the column.

    Notes
    -----
    Semantics of anonymeter's polars queries (Giomi et al. 2022): comparisons with a missing
    value are false, ``== None`` matches nothing, ``is_null`` matches missing values. anonymeter
    counts on deduplicated frames; pass ``frame.drop_duplicates()`` to do the same.

    Examples
    --------
    >>> frame = pd.DataFrame({"age": [17, 33, 43], "sex": ["F", "M", "M"]})
    >>> match_counts([[("age", ">=", 30), ("sex", "==", "M")], [("age", "<=", 17)]], frame)
    array([2, 1])
    """
    table = ConditionTable.from_queries(queries)
    columns = FrameColumns(frame)
    if len(table.index) == 0:
        return np.zeros(0, dtype=np.int64)
    return table.counts(columns)


def query_text(conditions: Sequence[Sequence[object]]) -> str:
    """A readable form of a query: ``age <= 24 & race == 'Black' & workclass is null``."""
    parts = []
    for condition in conditions:
        column, op = condition[0], condition[1]
        if op in ("is_null", "is_not_null"):
            parts.append(f"{column} {op.replace('_', ' ')}")
        else:
            parts.append(f"{column} {op} {condition[2]!r}")
    return " & ".join(parts) if parts else "(all records)"
