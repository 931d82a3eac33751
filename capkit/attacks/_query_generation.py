"""Singling-out queries drawn from the synthetic records: capkit's seeded, vectorised draws and
anonymeter 1.1's own draws (for ``anonymeter_compat``), the univariate candidates and the
random baseline queries (Giomi et al. 2022, PoPETs 2023, section on singling out).

Every function takes a ``numpy.random.Generator`` and returns condition ids into one
:class:`Vocabulary` (the conditions a synthetic value can give), so that counting stays in
:mod:`capkit.attacks.queries`.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
from tqdm import tqdm

from capkit.attacks.queries import ConditionTable, FrameColumns
from capkit.errors import CapkitError

#: Column sets enumerated when there are at most this many (else drawn at random per pass).
ENUMERATE_LIMIT = 200_000
#: Passes over the synthetic records when column sets are drawn at random.
RANDOM_PASSES = 50
#: Candidate queries counted at once: the first batch, and the bounds of later batches (sized
#: from the share of candidates that single out so far).
BATCH = 4096
MAX_BATCH = 65536
#: Candidate queries counted at once when every synthetic record is attacked (memory bound).
ALL_BATCH = 1 << 21
#: anonymeter's batch of attempts, and capkit's cap on its attempts in compatibility mode
#: (anonymeter's default max_attempts is 10,000,000).
COMPAT_BATCH = 1000
COMPAT_MAX_ATTEMPTS = 1_000_000


def escape_quotes(value: str) -> str:
    """anonymeter's escaping of quotes in text values (the literal then never matches)."""
    return value.replace('"', '\\"').replace("'", "\\'")


class Vocabulary:
    """Per synthetic column, the condition each value gives in a multivariate query.

    Missing -> ``is_null``; numbers -> ``>= v`` above the synthetic median, else ``<= v``;
    text, categories, booleans -> ``== v`` (text escaped when ``escape`` is True, as anonymeter).
    """

    def __init__(self, syn: pd.DataFrame, kinds: dict[str, str], escape: bool) -> None:
        self.columns = list(syn.columns)
        self.conditions: list[tuple[str, str, object]] = []
        codes, tables = [], []
        for column in self.columns:
            series = syn[column]
            column_codes, uniques = pd.factorize(series, use_na_sentinel=True)
            values = uniques.tolist()
            ids = [self._add((column, "is_null", None))]
            if kinds[column] == "numeric":
                median = series.astype(float).median()
                ids += [self._add((column, ">=" if v > median else "<=", v)) for v in values]
            elif kinds[column] == "text" and escape:
                ids += [self._add((column, "==", escape_quotes(v) if isinstance(v, str) else v))
                        for v in values]
            else:
                ids += [self._add((column, "==", v)) for v in values]
            codes.append(column_codes.astype(np.int32) if len(values) < (1 << 31) - 1
                         else column_codes)
            tables.append(np.asarray(ids, dtype=np.int64))
        self.offsets = np.cumsum([0] + [len(t) for t in tables[:-1]]).astype(np.int64)
        self.flat = np.concatenate(tables) if tables else np.zeros(0, np.int64)
        # each value's position in its column's table (0: missing), records x columns in the
        # narrowest integer type that holds them (int32 up to 2^31 distinct values)
        widest = max((len(t) for t in tables), default=1)
        kind = np.int16 if widest < (1 << 15) else np.int32 if widest < (1 << 31) else np.int64
        self.codes = np.zeros((len(syn), len(codes)), dtype=kind)
        for j, column_codes in enumerate(codes):
            self.codes[:, j] = column_codes + 1
        del codes
        order = sorted(range(len(self.columns)), key=lambda j: self.columns[j])
        self.rank = np.empty(len(self.columns), dtype=np.int64)
        self.rank[order] = np.arange(len(self.columns))

    def _add(self, condition: tuple[str, str, object]) -> int:
        self.conditions.append(condition)
        return len(self.conditions) - 1

    def ids(self, rows: np.ndarray, column_sets: np.ndarray) -> np.ndarray:
        """Condition ids (queries x columns, columns in name order) of records x column sets."""
        ordered = np.take_along_axis(column_sets, np.argsort(self.rank[column_sets], axis=1), 1)
        return self.flat[self.offsets[ordered] + self.codes[rows[:, None], ordered]]

    def counts(self, ids: np.ndarray, frame: FrameColumns) -> np.ndarray:
        return ConditionTable(self.conditions, ids).counts(frame)


def multivariate(vocab: Vocabulary, syn: FrameColumns, n_cols: int, n_attacks: int | None,
                 rng: np.random.Generator, progress: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
    """capkit's draws: (source rows, condition ids) of queries singling out in ``syn``.

    The synthetic records are visited in a seeded random order, each with a seeded random set
    of ``n_cols`` columns (pass 1). ``n_attacks=None`` keeps every query of pass 1 that singles
    out (one attempt per synthetic record). Otherwise passes repeat, each record moving to a
    column set it has not used, until ``n_attacks`` queries are found; when every (record,
    column set) pair has been tried the request is impossible and a CapkitError says how many
    exist. A query singles out only its own record, so the kept queries are distinct.
    """
    n, p = syn.n, len(vocab.columns)
    n_sets = math.comb(p, n_cols)
    if n_attacks is not None and n_attacks > n * n_sets:
        raise CapkitError(f"n_attacks={n_attacks} is larger than the number of candidate "
                          f"queries ({n} synthetic records x {n_sets} column sets)")
    order = rng.permutation(n)
    if n_sets <= ENUMERATE_LIMIT:
        sets = np.array(list(combinations(range(p), n_cols)), dtype=np.int64)
        shuffle, offsets, passes = rng.permutation(n_sets), rng.integers(0, n_sets, n), n_sets
    else:
        sets, passes = None, RANDOM_PASSES
    if n_attacks is None:
        passes = 1
    kept_rows, kept_ids, found, tried = [], [], 0, 0
    bar = tqdm(total=passes * n, desc="singling out: records tried", unit="record",
               disable=not (progress and (passes > 1 or n > BATCH)))
    for step in range(passes):
        start = 0
        while start < n:
            # every record of pass 1 is tried when n_attacks is None: one batch (the draws do
            # not depend on the batches' sizes)
            size = ALL_BATCH if n_attacks is None else BATCH if not found else int(min(
                MAX_BATCH, max(BATCH, 1.2 * (n_attacks - found) * tried / found)))
            rows = order[start:start + size]
            start += size
            tried += len(rows)
            if sets is not None:
                chosen = sets[shuffle[(offsets[rows] + step) % n_sets]]
            else:
                chosen = rng.random((len(rows), p)).argsort(axis=1)[:, :n_cols]
            ids = vocab.ids(rows, chosen)
            single = np.flatnonzero(vocab.counts(ids, syn) == 1)
            bar.update(len(rows))
            if n_attacks is not None:
                single = single[:n_attacks - found]
            kept_rows.append(rows[single])
            kept_ids.append(ids[single])
            found += len(single)
            if n_attacks is not None and found >= n_attacks:
                bar.close()
                return np.concatenate(kept_rows), np.concatenate(kept_ids)
    bar.close()
    if n_attacks is not None:
        tried = "every (record, column set) pair" if sets is not None else (
            f"{passes} passes with random column sets")
        raise CapkitError(f"n_attacks={n_attacks} is larger than possible: {found} distinct "
                          f"queries of {n_cols} columns single out a synthetic record after "
                          f"trying {tried}; ask for at most {found} or n_attacks=None")
    return np.concatenate(kept_rows), np.concatenate(kept_ids).reshape(-1, n_cols)


def multivariate_anonymeter(vocab: Vocabulary, syn: FrameColumns, n_cols: int, n_attacks: int,
                            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """anonymeter 1.1's draws, reproduced: batches of 1000 attempts, each batch one
    ``rng.integers(0, n, 1000)`` for the records and then one ``rng.choice(columns, n_cols,
    replace=False)`` per attempt; queries kept in attempt order when they single out and are
    new. Same seed and deduplicated synthetic frame -> the same queries as anonymeter.
    Stops after :data:`COMPAT_MAX_ATTEMPTS` attempts (anonymeter: 10,000,000).

    Returns (source rows, condition ids, attempts made).
    """
    n, p = syn.n, len(vocab.columns)
    seen: set[tuple[int, ...]] = set()
    kept_rows, kept_ids, attempts = [], [], 0
    while len(kept_rows) < n_attacks and attempts < COMPAT_MAX_ATTEMPTS:
        rows = rng.integers(0, n, size=COMPAT_BATCH)
        chosen = np.array([rng.choice(p, size=n_cols, replace=False)
                           for _ in range(COMPAT_BATCH)], dtype=np.int64)
        ids = vocab.ids(rows, chosen)
        attempts += COMPAT_BATCH
        for i in np.flatnonzero(vocab.counts(ids, syn) == 1):
            key = tuple(ids[i].tolist())
            if key not in seen:
                seen.add(key)
                kept_rows.append(rows[i])
                kept_ids.append(ids[i])
                if len(kept_rows) >= n_attacks:
                    break
    ids = np.array(kept_ids, dtype=np.int64).reshape(-1, n_cols)
    return np.array(kept_rows, dtype=np.int64), ids, attempts


def univariate(syn: pd.DataFrame, kinds: dict[str, str], frame: FrameColumns,
               rng: np.random.Generator) -> ConditionTable:
    """One-condition queries singling out in ``syn``, in a seeded random order.

    Candidates per column (anonymeter's): ``is_null`` when exactly one value is missing,
    ``<= min`` and ``>= max`` of a numeric column, ``== v`` for every value occurring once.
    """
    candidates: list[tuple[str, str, object]] = []
    for column in syn.columns:
        codes, uniques = pd.factorize(syn[column], use_na_sentinel=True)
        values = uniques.tolist()
        if (codes < 0).sum() == 1:
            candidates.append((column, "is_null", None))
        if kinds[column] == "numeric" and len(values):
            candidates += [(column, "<=", min(values)), (column, ">=", max(values))]
        once = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(values)) == 1)
        candidates += [(column, "==", values[j]) for j in once]
    table = ConditionTable.from_queries([[c] for c in candidates])
    counts = table.counts(frame)
    keep = np.flatnonzero(counts == 1)
    _, first = np.unique(table.index[keep, 0], return_index=True)
    keep = keep[np.sort(first)]
    return ConditionTable(table.conditions, table.index[rng.permutation(keep)])


def baseline(syn: pd.DataFrame, kinds: dict[str, str], n_queries: int, n_cols: int,
             rng: np.random.Generator, anonymeter_bool: bool) -> list[list[tuple]]:
    """Random queries (the baseline attacker): ``n_cols`` distinct random columns, per column a
    value drawn uniformly from the synthetic column's distinct values (missing included) and an
    operator drawn uniformly (``== !=``; numbers also ``> < >= <=``). A missing value gives
    ``is_null`` for ``==``, ``is_not_null`` otherwise. With ``anonymeter_bool`` a boolean column
    ignores the drawn value (``==`` -> is true, ``!=`` -> is false), as anonymeter does.
    Not filtered on the synthetic data.
    """
    columns = list(syn.columns)
    distinct = []
    for column in columns:
        codes, uniques = pd.factorize(syn[column], use_na_sentinel=True)
        distinct.append(uniques.tolist() + ([None] if (codes < 0).any() else []))
    n_values = np.array([len(d) for d in distinct])
    n_ops = np.array([6 if kinds[c] == "numeric" else 2 for c in columns])
    chosen = rng.random((n_queries, len(columns))).argsort(axis=1)[:, :n_cols]
    chosen = np.take_along_axis(chosen, np.argsort(np.array(columns, dtype=object)[chosen],
                                                   axis=1), axis=1)
    value_at = (rng.random(chosen.shape) * n_values[chosen]).astype(np.int64)
    op_at = (rng.random(chosen.shape) * n_ops[chosen]).astype(np.int64)
    ops = ("==", "!=", ">", "<", ">=", "<=")
    queries = []
    for row_columns, row_values, row_ops in zip(chosen.tolist(), value_at.tolist(),
                                                op_at.tolist(), strict=True):
        query = []
        for j, v, o in zip(row_columns, row_values, row_ops, strict=True):
            column, value, op = columns[j], distinct[j][v], ops[o]
            if value is None:
                query.append((column, "is_null" if op == "==" else "is_not_null", None))
            elif kinds[column] == "bool" and anonymeter_bool:
                query.append((column, "==", op == "=="))
            else:
                query.append((column, op, value))
        queries.append(query)
    return queries
