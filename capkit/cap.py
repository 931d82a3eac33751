"""The CAP risk measure of Baillargeon & Charest (2020) on aligned count tables.

Notation of the paper (Section 2.1): ``o[i, j]`` counts original records with target T_i and
key K_j, ``s[i, j]`` the same for the synthetic data set S; n = sum(o), m = sum(s),
m_j = sum_i s[i, j]. Rows are targets, columns are keys. Every function takes dense numpy arrays
or ``scipy.sparse`` matrices (as produced by :func:`capkit.counts.tables.crosstab` for large
tables).

Membership control: :func:`average_cap` and :func:`record_cap` take an optional ``holdout``
(original records that were *not* used to make S). The holdout's CAP against the same S is the
level an intruder reaches by inference about the population; the members' CAP above it is what
the synthesis disclosed about its own records (compared by
:func:`capkit.control.compare_to_control`). Without a holdout every number is as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from capkit.control import ControlComparison, compare_to_control
from capkit.counts.tables import Table, crosstab
from capkit.errors import CapkitError


def as_count_table(table: object, name: str) -> Table:
    """Validate a count table: 2-D, finite, non-negative, integer-valued.

    Returns an int64 numpy array, or a CSR sparse array for sparse input. Raises
    :class:`CapkitError` naming ``name`` otherwise. The input is never modified.
    """
    if sparse.issparse(table):
        matrix = sparse.csr_array(table)
        values = matrix.data
    else:
        try:
            matrix = np.asarray(table)
        except (TypeError, ValueError) as exc:
            raise CapkitError(f"{name} must be a 2-D table of counts") from exc
        values = matrix
    if matrix.ndim != 2:
        raise CapkitError(f"{name} must be a 2-D table (targets x keys), got {matrix.ndim} dims")
    if not (np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)
            or values.dtype == np.bool_):
        raise CapkitError(f"{name} must hold numbers (counts), got dtype {values.dtype}")
    if values.size:
        if np.issubdtype(values.dtype, np.floating):
            if not np.isfinite(values).all():
                raise CapkitError(f"{name} holds NaN or infinite values; counts must be finite")
            if (values != np.round(values)).any():
                raise CapkitError(f"{name} holds non-integer values; counts must be whole numbers")
        if (values < 0).any():
            raise CapkitError(f"{name} holds negative values; counts must be >= 0")
    if sparse.issparse(matrix):
        return sparse.csr_array(
            (values.astype(np.int64), matrix.indices, matrix.indptr), shape=matrix.shape
        )
    return matrix.astype(np.int64)


def _read_only(table: object, name: str) -> Table:
    """:func:`as_count_table` for a table that is only read: a dense int64 numpy table is
    checked (one pass: its minimum) and returned as it is, without a copy."""
    if type(table) is np.ndarray and table.dtype == np.int64 and table.ndim == 2:
        if table.size and table.min() < 0:
            raise CapkitError(f"{name} holds negative values; counts must be >= 0")
        return table
    return as_count_table(table, name)


def _pair_totals(o: object, s: object) -> tuple[Table, Table, int, np.ndarray]:
    """The two tables (validated, read only), n = sum(o) and the key totals m_j of s."""
    o_t = _read_only(o, "o (original table)")
    s_t = _read_only(s, "s (synthetic table)")
    if o_t.shape != s_t.shape:
        raise CapkitError(
            f"o and s must have the same shape (targets x keys), got {o_t.shape} and {s_t.shape}"
        )
    n = int(o_t.sum())
    if n == 0:
        raise CapkitError("o (original table) holds no records")
    m_j = _column_sums(s_t)
    if int(m_j.sum()) == 0:
        raise CapkitError("s (synthetic table) holds no records; the CAP needs a non-empty S")
    if sparse.issparse(o_t) != sparse.issparse(s_t):
        o_t, s_t = sparse.csr_array(o_t), sparse.csr_array(s_t)
    return o_t, s_t, n, m_j


def _pair(o: object, s: object) -> tuple[Table, Table]:
    return _pair_totals(o, s)[:2]


def _column_sums(table: Table) -> np.ndarray:
    return np.asarray(table.sum(axis=0)).ravel()


def _individual(s: Table) -> Table:
    m_j = _column_sums(s)
    if sparse.issparse(s):
        scale = np.divide(1.0, m_j, out=np.zeros(len(m_j)), where=m_j > 0)
        return sparse.csr_array(s.multiply(scale[np.newaxis, :]))
    return np.divide(s, m_j, out=np.zeros(s.shape), where=m_j > 0)


def individual_cap(o: object, s: object) -> Table:
    """Individual CAP of a record in each cell (Definition 1).

    ``CAP[i, j] = s[i, j] / m_j``: the share of synthetic records with key K_j that have target
    T_i, and 0 where key K_j is absent from S (m_j = 0). Every original record in cell (i, j)
    has this CAP. ``o`` is only checked for shape.

    Returns
    -------
    (I, J) float array (sparse when the input is sparse).
    """
    _, s_t = _pair(o, s)
    return _individual(s_t)


def _attributed(o: Table, s: Table, m_j: np.ndarray) -> float:
    """Sum over records of their CAP, given the key totals m_j of s."""
    if sparse.issparse(o):
        numerators = _column_sums(sparse.csr_array(o.multiply(s)))
    else:  # sum_i o_ij s_ij: exact integers, without an (I, J) product
        numerators = np.einsum("ij,ij->j", o, s)
    present = m_j > 0
    return float((numerators[present] / m_j[present]).sum())


@dataclass(frozen=True)
class CapControl:
    """Average CAP of the members and of a holdout against the same synthetic data.

    Attributes
    ----------
    version
        1 (Definition 2) or 2 (Definition 3).
    members, holdout
        Average CAP of the members (the number :func:`average_cap` returns without a holdout)
        and of the holdout records.
    difference
        ``members - holdout``: what the synthetic data tells about its own records beyond what
        it tells about other records of the population.
    baseline_members, baseline_holdout
        The no-information level of each group, sum_i p_i^2 of its target shares
        (:func:`baseline_cap`).
    n_members, n_holdout
        Records averaged over (version 2: those whose key appears in S).
    comparison
        The shared membership control (:func:`capkit.control.compare_to_control`) on the
        expected numbers of correct attributions ``CAP * n`` of each group: rates with Wilson
        intervals, the risk ``(members - holdout) / (1 - holdout)`` with its interval, and the
        advantage (= ``difference``).
    """

    version: int
    members: float
    holdout: float
    difference: float
    baseline_members: float
    baseline_holdout: float
    n_members: int
    n_holdout: int
    comparison: ControlComparison


def _average(o: object, s: object, version: int, name: str) -> tuple[float, int]:
    """Average CAP and the number of records it averages over."""
    o_t, s_t, n, m_j = _pair_totals(o, s)
    total = _attributed(o_t, s_t, m_j)
    if version == 1:
        return total / n, n
    covered = int(_column_sums(o_t)[m_j > 0].sum())
    if covered == 0:
        raise CapkitError(
            f"average CAP version 2 is undefined for the {name}: no key of them appears in the "
            "synthetic data (|A| = n, Definition 3)"
        )
    return total / covered, covered


def average_cap(o: object, s: object, version: int = 1, *, holdout: object = None,
                confidence: float = 0.95) -> float | CapControl:
    """Average CAP of original data O with synthetic data S.

    Version 1 (Definition 2) averages the individual CAPs of all n original records, a record
    whose key is absent from S counting 0. Version 2 (Definition 3) averages over the n - |A|
    records whose key appears in S.

    Parameters
    ----------
    o, s
        (I, J) count tables, rows = targets, columns = keys.
    version
        1 or 2.
    holdout
        Optional (I, J) counts of holdout records (not used to make S) on the same grid, e.g.
        ``crosstab(original, synthetic, keys, target, holdout=frame).holdout``. Then the result
        is a :class:`CapControl` whose ``members`` is the number returned without a holdout.
    confidence
        Confidence level of the control's intervals.

    Returns
    -------
    float, or :class:`CapControl` with a holdout.

    Raises
    ------
    CapkitError
        For a version other than 1 or 2, bad tables, or version 2 when no key of the original
        appears in S (|A| = n: undefined, Definition 3).
    """
    if version not in (1, 2):
        raise CapkitError(f"version must be 1 or 2 (Definitions 2 and 3), got {version!r}")
    members, n_members = _average(o, s, version, "original records")
    if holdout is None:
        return members
    h_t = as_count_table(holdout, "holdout (holdout table)")
    shape = as_count_table(s, "s (synthetic table)").shape
    if h_t.shape != shape:
        raise CapkitError(
            f"holdout must have the shape of o and s (targets x keys, the same grid), got "
            f"{h_t.shape} and {shape}; build all three with crosstab(..., holdout=...)"
        )
    if h_t.sum() == 0:
        raise CapkitError("holdout (holdout table) holds no records")
    held, n_held = _average(h_t, s, version, "holdout records")
    comparison = compare_to_control(members * n_members, n_members, held * n_held, n_held,
                                    confidence=confidence)
    return CapControl(version, members, held, members - held, baseline_cap(o),
                      baseline_cap(h_t), n_members, n_held, comparison)


def correct_predictions(o: object, s: object) -> float:
    """Expected number of original records an intruder predicts right (Section 4).

    The intruder predicts, for each record, the most frequent synthetic target of the record's
    key. When several targets tie for the maximum the prediction is taken uniformly among them
    (so the expected count averages o over the tied targets); a key absent from S gets no
    prediction and contributes 0.
    """
    o_t, s_t, _, m_j = _pair_totals(o, s)
    if sparse.issparse(s_t):
        coo = sparse.coo_array(s_t)
        coo.eliminate_zeros()
        column_max = np.asarray(s_t.max(axis=0).toarray()).ravel()
        tied = coo.data == column_max[coo.col]
        rows, cols = coo.row[tied], coo.col[tied]
        n_tied = np.bincount(cols, minlength=s_t.shape[1])
        hits = np.bincount(cols, weights=o_t[rows, cols], minlength=s_t.shape[1])
    else:
        tied = (s_t == s_t.max(axis=0)) & (m_j > 0)
        n_tied = tied.sum(axis=0)
        hits = (o_t * tied).sum(axis=0)
    present = n_tied > 0
    return float((hits[present] / n_tied[present]).sum())


def baseline_cap(o: object) -> float:
    """Baseline CAP from the univariate target distribution of the original data.

    An intruder who knows only the target's marginal distribution attributes target T_i with
    probability p_i = o_i. / n; averaged over the n records this is sum_i p_i^2 (the baseline
    Baillargeon & Charest mention in Section 5, after Taub et al.; synthpop's baseCAPd / 100).
    """
    o_t = as_count_table(o, "o (original table)")
    n = int(o_t.sum())
    if n == 0:
        raise CapkitError("o (original table) holds no records")
    p = np.asarray(o_t.sum(axis=1)).ravel() / n
    return float((p**2).sum())


def record_cap(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str | Sequence[str],
    *,
    dropna: bool = False,
    holdout: pd.DataFrame | None = None,
    allow_disjoint_levels: bool = False,
) -> pd.Series:
    """Individual CAP (Definition 1) of every original record, indexed like ``original``.

    Counts come from one :func:`capkit.counts.tables.crosstab` pass; each record takes its cell's
    CAP.
    Records dropped with ``dropna=True`` get NaN. ``record_cap(...).mean()`` is the average CAP,
    version 1. A key or target coded differently in the two frames is an error unless
    ``allow_disjoint_levels`` (as in :func:`~capkit.counts.tables.crosstab`).

    With a ``holdout`` (records not used to make the synthetic data) the holdout records get
    their CAP against the same synthetic data too, and the Series has a two-level index
    ``(group, record)``: ``.loc["member"]`` is the Series returned without a holdout,
    ``.loc["holdout"]`` is indexed like ``holdout``; ``.groupby(level="group").mean()`` gives
    both average CAPs (version 1).
    """
    table = crosstab(original, synthetic, keys, target, dropna=dropna, holdout=holdout,
                     allow_disjoint_levels=allow_disjoint_levels)
    cap = _individual(table.synthetic)  # crosstab counts are int64 already

    def values(cells: np.ndarray) -> np.ndarray:
        i, j = cells[:, 0], cells[:, 1]
        kept = i >= 0
        out = np.full(len(i), np.nan)
        if sparse.issparse(cap):
            out[kept] = np.asarray(cap[i[kept], j[kept]]).ravel()
        else:
            out[kept] = cap[i[kept], j[kept]]
        return out

    members = pd.Series(values(table.record_cell), index=original.index, name="CAP")
    if holdout is None:
        return members
    held = pd.Series(values(table.holdout_record_cell), index=holdout.index, name="CAP")
    return pd.concat({"member": members, "holdout": held}, names=["group", "record"])


def as_count_stack(s_stack: object, shape: tuple[int, int]) -> np.ndarray:
    """Validate a stack of synthetic count tables: an (N, I, J) array of non-negative integers
    whose tables have the original's ``shape``. Raises :class:`CapkitError` otherwise."""
    stack = np.asarray(s_stack)
    if stack.ndim != 3 or stack.shape[1:] != tuple(shape):
        raise CapkitError(
            f"s_stack must have shape (N, {shape[0]}, {shape[1]}), got {stack.shape}")
    if not np.issubdtype(stack.dtype, np.integer):
        raise CapkitError(f"s_stack must hold integer counts, got dtype {stack.dtype}")
    if (stack < 0).any():
        raise CapkitError("s_stack holds negative values; counts must be >= 0")
    return stack


def _dense_original(o: object) -> np.ndarray:
    o_t = as_count_table(o, "o (original table)")
    if sparse.issparse(o_t):
        o_t = o_t.toarray()
    if o_t.sum() == 0:
        raise CapkitError("o (original table) holds no records")
    return o_t


def individual_cap_stack(o: object, s_stack: object) -> np.ndarray:
    """Individual CAP (Definition 1) of every cell, for each synthetic table of a stack.

    Returns
    -------
    (N, I, J) float array: ``s[t, i, j] / m_j`` of table t, 0 where key j is absent from it.
    """
    stack = as_count_stack(s_stack, _dense_original(o).shape)
    m_j = stack.sum(axis=1, keepdims=True)
    return np.divide(stack, m_j, out=np.zeros(stack.shape), where=m_j > 0)


def correct_predictions_stack(o: object, s_stack: object) -> np.ndarray:
    """:func:`correct_predictions` for each table of a stack, vectorised.

    The intruder predicts, for each original record, the most frequent synthetic target of its
    key (Baillargeon & Charest, Section 4); ties are split evenly among the tied targets and a
    key absent from the synthetic table gets no prediction.

    Returns
    -------
    (N,) float array: expected number of original records predicted right.
    """
    o_t = _dense_original(o)
    stack = as_count_stack(s_stack, o_t.shape)
    present = stack.sum(axis=1) > 0
    tied = (stack == stack.max(axis=1, keepdims=True)) & present[:, np.newaxis, :]
    n_tied = tied.sum(axis=1)
    hits = (o_t[np.newaxis] * tied).sum(axis=1)
    return np.divide(hits, n_tied, out=np.zeros(hits.shape), where=n_tied > 0).sum(axis=1)


def average_cap_stack(o: object, s_stack: np.ndarray, version: int = 1) -> np.ndarray:
    """Average CAP of O with each of a stack of synthetic tables, vectorised.

    Parameters
    ----------
    o
        (I, J) original counts.
    s_stack
        (N, I, J) synthetic counts (e.g. from
        :func:`capkit.papers.baillargeon_charest.sampling.uniform_tables`).
    version
        1 (Definition 2) or 2 (Definition 3).

    Returns
    -------
    (N,) float array. For version 2 an entry is NaN where the synthetic table covers no key of
    the original (undefined, Definition 3); an empty synthetic table gives 0 for version 1.
    """
    if version not in (1, 2):
        raise CapkitError(f"version must be 1 or 2 (Definitions 2 and 3), got {version!r}")
    o_t = _dense_original(o)
    stack = as_count_stack(s_stack, o_t.shape)
    n = o_t.sum()
    m_j = stack.sum(axis=1)
    numerators = (o_t[np.newaxis] * stack).sum(axis=1)
    totals = np.divide(numerators, m_j, out=np.zeros(m_j.shape), where=m_j > 0).sum(axis=1)
    if version == 1:
        return totals / n
    covered = ((m_j > 0) * o_t.sum(axis=0)[np.newaxis]).sum(axis=1)
    return np.divide(totals, covered, out=np.full(len(totals), np.nan), where=covered > 0)
