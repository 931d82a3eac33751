"""Minimal average CAP and the synthetic tables that reach it (Baillargeon & Charest, Sec. 3.2).

Notation of the paper (Section 3.2), on an original count table ``o`` (rows = targets T_i,
columns = keys K_j, n = sum(o)):

* ``o^j_min = min_i o_ij`` (the smallest cell of key K_j) and ``o_min = min_j o^j_min``;
* ``B = {(i, j) | o_ij = o_min}``, ``C_j = {(i, j) | o_ij = o^j_min}``, ``C = U_j C_j``;
* ``o*_min = min o_ij / o_.j`` and ``D = {(i, j) | o_ij / o_.j = o*_min}`` (Theorem 3), with
  ``o_.j = sum_i o_ij``. A key absent from O (``o_.j = 0``) has no defined ratio ``0 / 0``; capkit
  takes the minimum over the keys present in O (the only reading under which Theorem 3 holds,
  see the exhaustive search and ``docs/minimal-cap.md``).

Results implemented here:

* Lemma 1 -- for fixed key totals (m_1..m_J) a synthetic table has the smallest average CAP
  iff all its records lie in cells of C: :func:`lemma1_dataset`.
* Theorem 2 -- the smallest version-1 average CAP over non-empty synthetic tables is
  ``o_min / n``, reached by putting all m records in one cell of B.
* Theorem 3 -- the smallest version-2 average CAP is ``o*_min``, reached by putting all m
  records in one cell of D.

:mod:`~capkit.papers.baillargeon_charest.minimal_search` checks all three (and the paper's loose
ends) against every synthetic table with at most ``max_m`` records; :mod:`.minimal` names both.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from scipy import sparse

from capkit import cap
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import sampling

# --- inputs -----------------------------------------------------------------------------------


def original_table(o: object) -> np.ndarray:
    """The original table as a dense int64 array with at least one record (else CapkitError)."""
    table = cap.as_count_table(o, "o (original table)")
    if sparse.issparse(table):
        table = table.toarray()
    if table.size == 0 or int(table.sum()) == 0:
        raise CapkitError("o (original table) holds no records; n must be >= 1")
    return table


def check_version(version: object) -> int:
    if version not in (1, 2) or isinstance(version, bool):
        raise CapkitError(f"version must be 1 or 2 (Definitions 2 and 3), got {version!r}")
    return int(version)  # type: ignore[arg-type]


def check_size(m: object) -> int:
    return sampling._check_count(m, "m (synthetic data size)", 1)


# --- the paper's sets -------------------------------------------------------------------------


def column_minima(o: object) -> np.ndarray:
    """``o^j_min = min_i o_ij`` for every key K_j (Section 3.2), an int array of length J."""
    return original_table(o).min(axis=0)


def o_min(o: object) -> int:
    """``o_min = min_j o^j_min``, the smallest cell of O (Section 3.2)."""
    return int(original_table(o).min())


def o_star_min(o: object) -> Fraction:
    """``o*_min``, the smallest ``o_ij / o_.j`` over keys present in O (Theorem 3), exactly.

    Keys with ``o_.j = 0`` are left out: their ratio is ``0 / 0``. (With them read as 0, the
    minimum of version 2 would not be reached; see :func:`exhaustive_search`.)
    """
    table = original_table(o)
    totals = table.sum(axis=0)
    present = totals > 0
    minima, totals = table.min(axis=0)[present], totals[present]
    # Correctly rounded division is monotone, so the exact minimum is among the keys whose
    # float ratio is the smallest; those few are compared exactly by cross-multiplication.
    ratios = minima / totals
    candidates = np.flatnonzero(ratios == ratios.min())
    p = minima[candidates].astype(object)
    q = totals[candidates].astype(object)
    smallest = (p[:, np.newaxis] * q[np.newaxis, :] <= p[np.newaxis, :] * q[:, np.newaxis])
    best = int(candidates[np.flatnonzero(smallest.all(axis=1))[0]])
    return Fraction(int(minima[best]), int(totals[best]))


def _cells(mask: np.ndarray) -> np.ndarray:
    return np.argwhere(mask).astype(np.int64)


def set_b(o: object) -> np.ndarray:
    """Set B = {(i, j) | o_ij = o_min} (Theorem 2), as a (k, 2) array of (i, j), row-major."""
    table = original_table(o)
    return _cells(table == table.min())


def set_cj(o: object, j: int) -> np.ndarray:
    """Set C_j = {(i, j) | o_ij = o^j_min} for one key K_j (0-based ``j``), as (k, 2) (i, j)."""
    table = original_table(o)
    if not isinstance(j, numbers.Integral) or not 0 <= j < table.shape[1]:
        raise CapkitError(f"j must be a key index in 0..{table.shape[1] - 1}, got {j!r}")
    mask = np.zeros(table.shape, dtype=bool)
    mask[:, j] = table[:, j] == table[:, j].min()
    return _cells(mask)


def c_mask(table: np.ndarray) -> np.ndarray:
    return table == table.min(axis=0, keepdims=True)


def set_c(o: object) -> np.ndarray:
    """Set C = U_j C_j (Lemma 1), as a (k, 2) array of (i, j), row-major."""
    return _cells(c_mask(original_table(o)))


def d_mask(table: np.ndarray) -> np.ndarray:
    best = o_star_min(table)
    totals = table.sum(axis=0, keepdims=True)
    return (table * best.denominator == totals * best.numerator) & (totals > 0)


def set_d(o: object) -> np.ndarray:
    """Set D = {(i, j) | o_ij / o_.j = o*_min} (Theorem 3), keys present in O only, (k, 2)."""
    return _cells(d_mask(original_table(o)))


# --- minimal values and datasets --------------------------------------------------------------


def minimal_average_cap(o: object, version: int = 1, *, exact: bool = False) -> float | Fraction:
    """Smallest average CAP over all non-empty synthetic tables for ``o`` (Theorems 2 and 3).

    Parameters
    ----------
    o
        (I, J) original counts with at least one record.
    version
        1: ``o_min / n`` (Theorem 2, Definition 2). 2: ``o*_min`` (Theorem 3, Definition 3),
        over keys present in O.
    exact
        Return a :class:`fractions.Fraction` instead of a float.

    Returns
    -------
    float or Fraction
        The float is the correctly rounded quotient of two integers, e.g. exactly ``100 / 900``
        for O1 and version 1. The value does not depend on the synthetic size m.

    Raises
    ------
    CapkitError
        For a version other than 1 or 2, an empty original or a table that is not counts.
    """
    version = check_version(version)
    table = original_table(o)
    value = Fraction(int(table.min()), int(table.sum())) if version == 1 else o_star_min(table)
    return value if exact else float(value)


def minimal_dataset(o: object, m: int, version: int = 1) -> np.ndarray:
    """A synthetic table of ``m`` records with the smallest average CAP (Theorems 2 and 3).

    All m records go into one cell: the first cell of B (version 1) or of D (version 2) in
    row-major order. Among the minimal tables this one has the most empty keys, the tie-break
    the authors ask for in their margin note to Theorem 2's proof.

    Returns
    -------
    (I, J) int64 array summing to ``m``.

    Raises
    ------
    CapkitError
        For ``m < 1`` (or not an integer), a bad version or an empty original.
    """
    version = check_version(version)
    m = check_size(m)
    table = original_table(o)
    mask = (table == table.min()) if version == 1 else d_mask(table)
    i, j = np.argwhere(mask)[0]
    out = np.zeros(table.shape, dtype=np.int64)
    out[i, j] = m
    return out


def lemma1_dataset(o: object, key_totals: Sequence[int] | np.ndarray) -> np.ndarray:
    """The best synthetic table with given key totals m_1..m_J (Lemma 1).

    Each key's m_j records go into the first cell of C_j (the target with the fewest original
    records of that key). Every table whose records all lie in C has the same, smallest, average
    CAP of both versions among tables with these key totals (version 2: when it is defined).

    Raises
    ------
    CapkitError
        When ``key_totals`` is not J non-negative integers with a positive sum, or ``o`` is bad.
    """
    table = original_table(o)
    totals = np.asarray(key_totals)
    if totals.shape != (table.shape[1],):
        raise CapkitError(
            f"key_totals must hold one count per key ({table.shape[1]}), got shape {totals.shape}"
        )
    if not (np.issubdtype(totals.dtype, np.integer) or
            (np.issubdtype(totals.dtype, np.floating) and np.all(totals == np.round(totals)))):
        raise CapkitError("key_totals must be whole numbers")
    if (totals < 0).any():
        raise CapkitError("key_totals holds negative values; counts must be >= 0")
    if totals.sum() < 1:
        raise CapkitError("key_totals sums to 0; Lemma 1 is about non-empty synthetic data")
    out = np.zeros(table.shape, dtype=np.int64)
    out[table.argmin(axis=0), np.arange(table.shape[1])] = totals.astype(np.int64)
    return out


