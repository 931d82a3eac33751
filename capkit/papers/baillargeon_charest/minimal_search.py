"""Exhaustive check of Lemma 1 and Theorems 2-3 of Baillargeon & Charest (Sec. 3.2).

Every synthetic table with at most ``max_m`` records is evaluated against an original table in
exact integer arithmetic, vectorised over the stack of tables, and compared with the minimal
average CAP and the minimal tables of :mod:`~capkit.papers.baillargeon_charest.minimal_core`;
the first counterexample to each statement (and to the paper's loose ends) is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from capkit import cap
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import sampling
from capkit.papers.baillargeon_charest.minimal_core import (
    c_mask,
    check_size,
    check_version,
    d_mask,
    lemma1_dataset,
    minimal_average_cap,
    minimal_dataset,
    o_star_min,
    original_table,
)

# --- exact evaluation over a stack of synthetic tables ----------------------------------------


def exact_average_cap_stack(
    o: object, s_stack: np.ndarray, version: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Average CAP of O with each of a stack of synthetic tables, as exact fractions.

    The value of table k is ``numerators[k] / denominators[k]`` (int64, not reduced), with
    ``denominator = L * n`` (version 1) or ``L * (n - |A|)`` (version 2), where L is the least
    common multiple of the key totals m_j occurring in the stack, so that
    ``sum_j (sum_i o_ij s_ij) * L / m_j`` is an integer (Definitions 2 and 3). A version-2
    denominator is 0 where the value is undefined (|A| = n).

    Raises
    ------
    CapkitError
        For a stack of the wrong shape, negative counts, or tables so large that int64 would
        overflow (use :func:`capkit.cap.average_cap_stack` for floats then).
    """
    version = check_version(version)
    table = original_table(o)
    stack = cap.as_count_stack(s_stack, table.shape).astype(np.int64)
    m_j = stack.sum(axis=1)
    used = np.unique(m_j[m_j > 0])
    lcm = int(np.lcm.reduce(used)) if used.size else 1
    n = int(table.sum())
    if lcm * n * max(int(table.max()), 1) * table.shape[1] >= 2**62:
        raise CapkitError("tables too large for exact int64 evaluation; use cap.average_cap_stack")
    weights = np.where(m_j > 0, lcm // np.maximum(m_j, 1), 0)
    numerators = ((table[np.newaxis] * stack).sum(axis=1) * weights).sum(axis=1)
    if version == 1:
        denominators = np.full(len(stack), lcm * n, dtype=np.int64)
    else:
        denominators = lcm * ((m_j > 0) * table.sum(axis=0)[np.newaxis]).sum(axis=1)
    return numerators, denominators


# --- exhaustive search ------------------------------------------------------------------------


@dataclass(frozen=True)
class SyntheticFamily:
    """Every I x J synthetic table with 1..max_m records, and what the checks need of them."""

    tables: np.ndarray      # (N, I, J)
    key_totals: np.ndarray  # (N, J): m_j
    sizes: np.ndarray       # (N,): m
    n_keys: np.ndarray      # (N,): number of non-empty keys
    n_cells: np.ndarray     # (N,): number of non-empty cells
    group: np.ndarray       # (N,): index of the table's key-total vector (m_1..m_J)

    @property
    def shape(self) -> tuple[int, int]:
        """(I, J)."""
        return self.tables.shape[1], self.tables.shape[2]


def synthetic_family(shape: tuple[int, int], max_m: int) -> SyntheticFamily:
    """All synthetic tables of ``shape`` with 1 <= m <= ``max_m`` records (stars and bars).

    Enumerated by :func:`capkit.papers.baillargeon_charest.sampling.enumerate_tables`, in order of
    m, then of bar
    positions, so the order (and every "first" table found) is deterministic.
    """
    tables = all_originals(shape, max_m)  # every table of ``shape`` with 1..max_m records
    key_totals = tables.sum(axis=1)
    _, group = np.unique(key_totals, axis=0, return_inverse=True)
    return SyntheticFamily(
        tables=tables, key_totals=key_totals, sizes=key_totals.sum(axis=1),
        n_keys=(key_totals > 0).sum(axis=1), n_cells=(tables > 0).sum(axis=(1, 2)),
        group=np.asarray(group).ravel(),
    )


@dataclass(frozen=True)
class Counterexample:
    """An original table, a synthetic table (or None) and what goes wrong with them."""

    o: np.ndarray
    s: np.ndarray | None
    detail: str
    #: a second synthetic table the detail refers to (e.g. S_3 of Theorem 2's proof), or None
    other: np.ndarray | None = None

    def sort_key(self) -> tuple:
        """Smallest first: by n, then m, then number of cells, then the tables' entries."""
        s = () if self.s is None else tuple(self.s.ravel().tolist())
        m = 0 if self.s is None else int(self.s.sum())
        return (int(self.o.sum()), m, self.o.size, self.o.shape[0],
                tuple(self.o.ravel().tolist()), s)

    def __str__(self) -> str:
        o = self.o.tolist()
        s = "" if self.s is None else f", S = {self.s.tolist()}"
        return f"O = {o}{s}: {self.detail}"


#: The checks :func:`check_original` runs, with the statement each one tests.
CHECKS: dict[str, str] = {
    "thm2_minimum": "min over non-empty S of CAP_O(S) (version 1) equals o_min/n, exactly and "
                    "as the float of capkit.cap.average_cap_stack",
    "thm2_reached": "minimal_dataset(o, m, 1) reaches o_min/n for every m",
    "thm2_minimizers": "the version-1 minimal tables are exactly those with every record in B and "
                       "(o_min = 0 or a single non-empty key)",
    "thm2_single_key": "every version-1 minimal table has a single non-empty key (proof of "
                       "Theorem 2: 'all m individuals have the same key')",
    "thm2_single_cell": "every version-1 minimal table has a single non-empty cell",
    "thm2_empty_key_strict": "emptying a non-empty key of a C-table (records moved to another "
                             "non-empty key) strictly lowers CAP_O (proof of Theorem 2)",
    "c_table_value": "every table with all records in C has CAP_O = sum_{j in N} o^j_min / n "
                     "(proof of Theorem 2)",
    "lemma1_v1": "Lemma 1, version 1: among tables with the same key totals, S is minimal iff "
                 "all its records lie in C",
    "lemma1_v2": "Lemma 1, version 2: among tables with the same key totals, S is minimal iff "
                 "all its records lie in C",
    "lemma1_v2_defined": "Lemma 1, version 2, key totals for which CAP*_O is defined (some "
                         "non-empty synthetic key occurs in O)",
    "thm3_minimum": "min over S with defined CAP*_O of CAP*_O(S) equals o*_min (keys present in "
                    "O), exactly and as the float of capkit.cap.average_cap_stack",
    "thm3_reached": "minimal_dataset(o, m, 2) reaches o*_min for every m",
    "thm3_minimizers": "the version-2 minimal tables are exactly the defined ones whose records "
                       "on keys present in O all lie in D",
    "v2_defined": "CAP*_O(S) is defined for every non-empty S (Definition 3 'ignores' |A| = n)",
}


def _first(mask: np.ndarray) -> int:
    """Index of the smallest-m table in ``mask`` (a family is ordered by m)."""
    return int(np.flatnonzero(mask)[0])


def check_original(o: object, family: SyntheticFamily) -> dict[str, Counterexample | None]:
    """Run every check of :data:`CHECKS` for one original against every table of a family.

    Returns
    -------
    dict
        check name -> ``None`` when the check holds for this original, else the smallest
        counterexample (smallest m first) found for it.
    """
    table = original_table(o)
    if family.shape != table.shape:
        raise CapkitError(f"family shape {family.shape} differs from o's shape {table.shape}")
    tables = family.tables
    result: dict[str, Counterexample | None] = dict.fromkeys(CHECKS)

    def fail(name: str, index: int | None, detail: str, s: np.ndarray | None = None,
             other: np.ndarray | None = None) -> None:
        if s is None and index is not None:
            s = tables[index]
        result[name] = Counterexample(table.copy(), None if s is None else s.copy(), detail,
                                      other)

    n = int(table.sum())
    colmin = table.min(axis=0)
    col_tot = table.sum(axis=0)
    nonempty = tables > 0
    keys_used = family.key_totals > 0
    in_b = ~(nonempty & ~(table == table.min())[np.newaxis]).any(axis=(1, 2))
    in_c = ~(nonempty & ~c_mask(table)[np.newaxis]).any(axis=(1, 2))
    in_d_cells = d_mask(table)
    present = col_tot > 0
    in_d = ~(nonempty & ~in_d_cells[np.newaxis]
             & present[np.newaxis, np.newaxis, :]).any(axis=(1, 2))
    num, den1 = exact_average_cap_stack(table, tables, 1)
    _, den2 = exact_average_cap_stack(table, tables, 2)
    lcm = int(den1[0]) // n
    float1 = cap.average_cap_stack(table, tables, 1)
    float2 = cap.average_cap_stack(table, tables, 2)
    sizes = np.arange(1, int(family.sizes.max()) + 1)

    # Theorem 2 ------------------------------------------------------------------------------
    omin = int(table.min())
    target1 = minimal_average_cap(table, 1)
    minimal1 = num == lcm * omin  # value == o_min / n (same denominator L n)
    if (num < lcm * omin).any() or not minimal1.any() or float1.min() != target1:
        k = int(np.argmin(num))
        fail("thm2_minimum", k, f"min CAP_O = {Fraction(int(num[k]), int(den1[k]))}, "
                                f"o_min/n = {Fraction(omin, n)}, float min {float1.min()!r}")
    best1 = np.stack([minimal_dataset(table, int(m), 1) for m in sizes])
    num_b, den_b = exact_average_cap_stack(table, best1, 1)
    bad = num_b * n != den_b * omin
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        fail("thm2_reached", None, "minimal_dataset does not reach o_min/n", best1[k])
    predicted1 = in_b & ((omin == 0) | (family.n_keys == 1))
    if (predicted1 != minimal1).any():
        fail("thm2_minimizers", _first(predicted1 != minimal1),
             "minimal" if minimal1[_first(predicted1 != minimal1)] else "not minimal")
    multi = minimal1 & (family.n_keys > 1)
    if multi.any():
        fail("thm2_single_key", _first(multi),
             f"minimal (CAP_O = {Fraction(omin, n)}) with {family.n_keys[_first(multi)]} "
             "non-empty keys")
    multi_cell = minimal1 & (family.n_cells > 1)
    if multi_cell.any():
        fail("thm2_single_cell", _first(multi_cell),
             f"minimal (CAP_O = {Fraction(omin, n)}) with several non-empty cells")
    # value of C-tables: sum over non-empty keys of o^j_min, over n
    predicted_c = (keys_used * colmin[np.newaxis]).sum(axis=1) * lcm
    bad = in_c & (num != predicted_c)
    if bad.any():
        fail("c_table_value", _first(bad), "CAP_O differs from sum o^j_min / n")
    # emptying a key alpha with o^alpha_min = 0 of a C-table with >= 2 keys changes nothing
    zero_key = in_c & (family.n_keys >= 2) & (keys_used & (colmin == 0)[np.newaxis]).any(axis=1)
    if zero_key.any():
        k = _first(zero_key)
        totals = family.key_totals[k].copy()
        alpha = int(np.flatnonzero((totals > 0) & (colmin == 0))[0])
        beta = int(np.flatnonzero((totals > 0) & (np.arange(len(totals)) != alpha))[0])
        moved = totals.copy()
        moved[beta] += moved[alpha]
        moved[alpha] = 0
        s3 = lemma1_dataset(table, moved)
        before = Fraction(int(num[k]), int(den1[k]))
        num3, den3 = exact_average_cap_stack(table, s3[np.newaxis], 1)
        after = Fraction(int(num3[0]), int(den3[0]))
        if after >= before:
            fail("thm2_empty_key_strict", k,
                 f"emptying key {alpha + 1} (o^{alpha + 1}_min = 0) into key {beta + 1} gives "
                 f"S3 = {s3.tolist()} with the same CAP_O: {before} -> {after}", other=s3)

    # Lemma 1 --------------------------------------------------------------------------------
    n_groups = int(family.group.max()) + 1
    big = np.iinfo(np.int64).max
    gmin = np.full(n_groups, big, dtype=np.int64)
    np.minimum.at(gmin, family.group, num)
    minimal_in_group = num == gmin[family.group]  # same denominator within a group
    if (minimal_in_group != in_c).any():
        fail("lemma1_v1", _first(minimal_in_group != in_c), "Lemma 1 iff fails")
    defined = den2 > 0
    bad_v2 = defined & (minimal_in_group != in_c)
    if bad_v2.any():
        fail("lemma1_v2_defined", _first(bad_v2), "Lemma 1 iff fails (defined)")
    undefined_c = ~defined & in_c
    if bad_v2.any() or undefined_c.any():
        k = _first(bad_v2 | undefined_c)
        fail("lemma1_v2", k, "all records in C, but CAP*_O is undefined for every table with "
                             f"key totals {family.key_totals[k].tolist()} (|A| = n)")

    # Theorem 3 ------------------------------------------------------------------------------
    ostar = o_star_min(table)
    target2 = minimal_average_cap(table, 2)
    lhs = num * ostar.denominator
    rhs = den2 * ostar.numerator
    minimal2 = defined & (lhs == rhs)
    if (defined & (lhs < rhs)).any() or not minimal2.any() or np.nanmin(float2) != target2:
        k = _first(defined & (lhs < rhs)) if (defined & (lhs < rhs)).any() else None
        fail("thm3_minimum", k, f"o*_min = {ostar}, float min {np.nanmin(float2)!r}")
    best2 = np.stack([minimal_dataset(table, int(m), 2) for m in sizes])
    num_b, den_b = exact_average_cap_stack(table, best2, 2)
    bad = num_b * ostar.denominator != den_b * ostar.numerator
    if bad.any():
        fail("thm3_reached", None, "minimal_dataset does not reach o*_min",
             best2[int(np.flatnonzero(bad)[0])])
    predicted2 = defined & in_d
    if (predicted2 != minimal2).any():
        fail("thm3_minimizers", _first(predicted2 != minimal2), "characterisation fails")
    if (np.isnan(float2) != ~defined).any():
        raise AssertionError("capkit.cap.average_cap_stack and the exact evaluation disagree on "
                             "where version 2 is undefined")
    if (~defined).any():
        fail("v2_defined", _first(~defined),
             "every synthetic record is on a key absent from O: CAP*_O = 0/0")
    return result


@dataclass
class SearchReport:
    """Tallies of :func:`exhaustive_search`: per check, originals where it held / failed."""

    n_originals: int = 0
    n_pairs: int = 0
    n_v2_undefined_pairs: int = 0
    #: pairs whose synthetic table leaves some key empty (m_alpha = 0 for some alpha)
    n_pairs_with_empty_key: int = 0
    #: originals where some key has two or more targets with the minimal count (ties in C_j),
    #: and how many of them Lemma 1 (version 1) held for
    n_originals_with_ties: int = 0
    lemma1_held_with_ties: int = 0
    held: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHECKS, 0))
    failed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHECKS, 0))
    smallest: dict[str, Counterexample | None] = field(
        default_factory=lambda: dict.fromkeys(CHECKS))
    #: failures seen on originals with o_min > 0 (resp. with every key present in O)
    failed_positive_omin: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHECKS, 0))
    failed_all_keys_present: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(CHECKS, 0))
    #: smallest counterexamples among originals with o_min > 0 / with every key present in O
    smallest_positive_omin: dict[str, Counterexample | None] = field(
        default_factory=lambda: dict.fromkeys(CHECKS))
    smallest_all_keys_present: dict[str, Counterexample | None] = field(
        default_factory=lambda: dict.fromkeys(CHECKS))

    def add(self, o: np.ndarray, family: SyntheticFamily,
            outcome: dict[str, Counterexample | None]) -> None:
        """Add the outcome of :func:`check_original` for one original."""
        self.n_originals += 1
        self.n_pairs += len(family.tables)
        # version 2 is undefined (|A| = n) when no non-empty synthetic key occurs in O
        covered = ((family.key_totals > 0) & (o.sum(axis=0) > 0)[np.newaxis]).any(axis=1)
        self.n_v2_undefined_pairs += int((~covered).sum())
        self.n_pairs_with_empty_key += int((family.n_keys < family.shape[1]).sum())
        if (c_mask(o).sum(axis=0) >= 2).any():
            self.n_originals_with_ties += 1
            self.lemma1_held_with_ties += outcome["lemma1_v1"] is None
        for name, found in outcome.items():
            if found is None:
                self.held[name] += 1
                continue
            self.failed[name] += 1
            positive, all_present = bool(o.min() > 0), bool((o.sum(axis=0) > 0).all())
            self.failed_positive_omin[name] += positive
            self.failed_all_keys_present[name] += all_present
            for keep, store in ((True, self.smallest), (positive, self.smallest_positive_omin),
                                (all_present, self.smallest_all_keys_present)):
                best = store[name]
                if keep and (best is None or found.sort_key() < best.sort_key()):
                    store[name] = found

    def to_frame(self) -> pd.DataFrame:
        """One row per check: statement, originals held / failed, smallest counterexample."""
        rows = [
            {"check": name, "statement": statement, "originals held": self.held[name],
             "originals failed": self.failed[name],
             "failed with o_min > 0": self.failed_positive_omin[name],
             "failed with all keys in O": self.failed_all_keys_present[name],
             "smallest counterexample": _text(self.smallest[name]),
             "smallest with all keys in O": _text(self.smallest_all_keys_present[name]),
             "smallest with o_min > 0": _text(self.smallest_positive_omin[name])}
            for name, statement in CHECKS.items()
        ]
        return pd.DataFrame(rows)


def _text(found: Counterexample | None) -> str:
    return "" if found is None else str(found)


def exhaustive_search(originals: Iterable[object], max_m: int) -> SearchReport:
    """Check Lemma 1 and Theorems 2-3 for each original against all tables with m <= max_m.

    For every original O (any shapes; the synthetic family of each shape is enumerated once)
    and every synthetic table S with 1 <= m <= ``max_m`` records, the average CAP of both
    versions is evaluated exactly (:func:`exact_average_cap_stack`, vectorised over all S) and
    as floats (:func:`capkit.cap.average_cap_stack`), and every check of :data:`CHECKS` is run.

    Returns
    -------
    SearchReport
        Counts of (original, synthetic) pairs, of originals where each check held / failed, and
        the smallest counterexample of each failed check (smallest n, then m).
    """
    report = SearchReport()
    families: dict[tuple[int, int], SyntheticFamily] = {}
    for o in originals:
        table = original_table(o)
        shape = (int(table.shape[0]), int(table.shape[1]))
        if shape not in families:
            families[shape] = synthetic_family(shape, max_m)
        report.add(table, families[shape], check_original(table, families[shape]))
    return report


def all_originals(shape: tuple[int, int], max_n: int) -> np.ndarray:
    """Every original table of ``shape`` with 1 <= n <= ``max_n`` records, as (N, I, J)."""
    max_n = check_size(max_n)
    return np.concatenate([sampling.enumerate_tables(shape, n) for n in range(1, max_n + 1)])


def random_originals(shape: tuple[int, int], max_n: int, per_n: int, seed: int) -> np.ndarray:
    """Seeded random originals of ``shape`` with 1..max_n records, some with an empty key.

    For each n, ``per_n`` tables drawn uniformly
    (:func:`capkit.papers.baillargeon_charest.sampling.uniform_tables`; at
    these sizes many have zero cells) and ``per_n`` tables of one key fewer with a zero column
    inserted at a random key (keys absent from O). Duplicates are removed; the order is sorted.
    """
    rows, cols = shape
    max_n, per_n = check_size(max_n), check_size(per_n)
    rng = np.random.default_rng(seed)
    parts = []
    for n in range(1, max_n + 1):
        parts.append(sampling.uniform_tables((rows, cols), n, per_n, int(rng.integers(2**31))))
        if cols > 1:
            narrow = sampling.uniform_tables((rows, cols - 1), n, per_n,
                                             int(rng.integers(2**31)))
            where = rng.integers(0, cols, size=per_n)
            wide = np.zeros((per_n, rows, cols), dtype=np.int64)
            keep = np.arange(cols)[np.newaxis, :] != where[:, np.newaxis]  # (per_n, cols)
            wide.transpose(0, 2, 1)[keep] = narrow.transpose(0, 2, 1).reshape(-1, rows)
            parts.append(wide)
    tables = np.concatenate(parts)
    flat = np.unique(tables.reshape(len(tables), -1), axis=0)
    order = np.lexsort(np.vstack([flat.T[::-1], flat.sum(axis=1)]))
    return flat[order].reshape(-1, rows, cols)


__all__ = [
    "CHECKS", "Counterexample", "SearchReport", "SyntheticFamily", "all_originals",
    "check_original", "exact_average_cap_stack", "exhaustive_search", "random_originals",
    "synthetic_family",
]
