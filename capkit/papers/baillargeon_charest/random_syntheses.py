"""Random 3 x 3 syntheses (Baillargeon & Charest 2020, Section 4): the results behind Figures 1
and 2, as pure functions of count tables, vectorised over a stack of synthetic tables.

Every original record takes the individual CAP of its cell (Definition 1), so the distribution
of individual CAPs over the n original records is the distribution of the I*J cell CAPs
weighted by the original counts ``o`` (``np.repeat`` of the cell values by ``o``). The stacked
measures themselves (:func:`capkit.cap.average_cap_stack`, :func:`capkit.cap.individual_cap_stack`,
:func:`capkit.cap.correct_predictions_stack`) live in :mod:`capkit.cap`; the figures in
:mod:`capkit.plots.random_syntheses`.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy
from scipy import stats

from capkit import cap
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import symbolic


def table_labels(n: int) -> tuple[str, ...]:
    """Labels of n random tables in drawing order: a, b, ... (a-t for the paper's 20 draws),
    then a1, b1, ... beyond 26."""
    if not isinstance(n, int) or n < 1:
        raise CapkitError(f"n must be a positive integer, got {n!r}")
    letters = string.ascii_lowercase
    return tuple(letters[k % 26] + (str(k // 26) if k >= 26 else "") for k in range(n))


#: Labels of the 20 random synthetic tables of Figure 1 (a-t, in order of drawing).
LABELS: tuple[str, ...] = table_labels(20)


def record_caps(o: object, s: object) -> np.ndarray:
    """Individual CAP of each of the n original records (Definition 1), cell by cell.

    A record in cell (i, j) takes ``CAP[i, j]``; the values are the cell CAPs repeated
    ``o[i, j]`` times (row-major cell order), so any summary of them is weighted by ``o``.
    Their mean is the average CAP, version 1 (Definition 2).

    Returns
    -------
    (n,) float array.
    """
    o_t = cap._dense_original(o)
    caps = cap.individual_cap(o_t, s)
    return np.repeat(np.asarray(caps).ravel(), o_t.ravel())


def max_record_cap_stack(o: object, s_stack: object) -> np.ndarray:
    """Largest individual CAP of an original record (cells with ``o > 0``), per table.

    Returns
    -------
    (N,) float array.
    """
    o_t = cap._dense_original(o)
    caps = cap.individual_cap_stack(o_t, s_stack)
    return np.where(o_t[np.newaxis] > 0, caps, -np.inf).max(axis=(1, 2))


def records_above(o: object, s_stack: object, threshold: float | np.ndarray) -> np.ndarray:
    """Number of original records whose individual CAP is strictly above ``threshold``.

    ``threshold`` is a number, or an (I, J) array of per-cell thresholds (e.g. the CAPs of the
    same records under another synthetic table). Returns an (N,) int array.
    """
    o_t = cap._dense_original(o)
    caps = cap.individual_cap_stack(o_t, s_stack)
    above = caps > np.asarray(threshold, dtype=float)
    return (above * o_t[np.newaxis]).sum(axis=(1, 2))


@dataclass(frozen=True)
class BoxPanel:
    """One panel of Figure 1: per synthetic table, the individual CAPs of the original records.

    Attributes
    ----------
    title
        Panel title (e.g. ``"O3"``).
    labels
        Table labels, in plotting order (ascending average CAP, version 1).
    values
        For each table (same order), the (n,) individual CAPs of the original records.
    averages
        Average CAP version 1 of each table (Definition 2): the red dots.
    reference
        Average CAP of the original with itself, CAP_O(O): the blue line.
    highlight
        Labels drawn in another colour (e.g. the paper's S_b and S_g added to the sample).
    """

    title: str
    labels: tuple[str, ...]
    values: tuple[np.ndarray, ...]
    averages: np.ndarray
    reference: float
    highlight: frozenset[str] = frozenset()


def box_panel(
    o: object,
    s_stack: object,
    labels: Sequence[str],
    title: str,
    *,
    highlight: Sequence[str] = (),
) -> BoxPanel:
    """Results for one panel of Figure 1, ordered by average CAP version 1.

    Ties in the average keep the drawing order (stable sort), so the order is deterministic.
    """
    o_t = cap._dense_original(o)
    stack = cap.as_count_stack(s_stack, o_t.shape)
    if len(labels) != len(stack):
        raise CapkitError(f"labels must name each of the {len(stack)} tables, got {len(labels)}")
    averages = cap.average_cap_stack(o_t, stack, 1)
    order = np.argsort(averages, kind="stable")
    return BoxPanel(
        title=title,
        labels=tuple(str(labels[t]) for t in order),
        values=tuple(record_caps(o_t, stack[t]) for t in order),
        averages=averages[order],
        reference=cap.average_cap(o_t, o_t, 1),
        highlight=frozenset(str(h) for h in highlight),
    )


def similar_average_different_max(
    averages: np.ndarray, max_caps: np.ndarray, tol: float = 0.001
) -> tuple[int, int]:
    """Pair of tables with (nearly) the same average CAP and the most different maximum CAP.

    Among all pairs (t, u), t < u, whose average CAPs differ by at most ``tol``, the one whose
    maximum individual CAPs differ most (first such pair in row-major order on ties). Pairs are
    compared all at once (O(N^2) memory: 2000 tables take 32 MB).

    Returns
    -------
    (t, u): indices into ``averages``.
    """
    averages = np.asarray(averages, dtype=float)
    max_caps = np.asarray(max_caps, dtype=float)
    if averages.ndim != 1 or averages.shape != max_caps.shape or len(averages) < 2:
        raise CapkitError("averages and max_caps must be 1-D arrays of the same length >= 2")
    if tol < 0:
        raise CapkitError(f"tol must be >= 0, got {tol}")
    close = np.abs(averages[:, np.newaxis] - averages[np.newaxis, :]) <= tol
    close &= np.triu(np.ones(close.shape, dtype=bool), k=1)
    spread = np.where(close, np.abs(max_caps[:, np.newaxis] - max_caps[np.newaxis, :]), -1.0)
    t, u = np.unravel_index(int(np.argmax(spread)), spread.shape)
    if spread[t, u] < 0:
        raise CapkitError(f"no two tables have average CAPs within tol={tol}")
    return int(t), int(u)


def rank_correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation of ``x`` and ``y``; NaN (no warning) when either is constant.

    For O1 every synthetic table with all keys present has average CAP exactly 1/3, so the
    averages are constant and no rank correlation exists.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise CapkitError(
            f"x and y must be 1-D arrays of the same length, got {x.shape} and {y.shape}")
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(stats.spearmanr(x, y).statistic)


def symbolic_average_cap(o: object, version: int = 1,
                         present: Sequence[bool] | None = None) -> sympy.Expr:
    """Average CAP of ``o`` with a symbolic synthetic table, simplified by sympy.

    The synthetic counts are positive symbols ``s_ij`` in the columns (keys) marked
    ``present`` and 0 in the others; the result is Definition 2 (version 1) or Definition 3
    (version 2), built by :func:`capkit.papers.baillargeon_charest.symbolic.average_cap_expr` and
    simplified. For
    Baillargeon & Charest's O1 (100 records per cell) it is exactly 1/3 whenever all keys are
    present (version 1), and 1/3 for any non-empty set of present keys (version 2): the
    average CAP cannot tell those tables apart.
    """
    if version not in (1, 2):
        raise CapkitError(f"version must be 1 or 2 (Definitions 2 and 3), got {version!r}")
    o_t = cap._dense_original(o)
    rows, cols = o_t.shape
    keep = [True] * cols if present is None else [bool(p) for p in present]
    if len(keep) != cols or not any(keep):
        raise CapkitError(f"present must mark each of the {cols} keys, at least one True")
    if version == 2 and o_t[:, keep].sum() == 0:
        raise CapkitError("average CAP version 2 is undefined: no original record has a "
                          "present key (Definition 3)")
    s = symbolic.symbol_table("s", rows, cols, positive=True)
    for j in range(cols):
        if not keep[j]:
            s[:, j] = sympy.zeros(rows, 1)
    expr = symbolic.average_cap_expr(sympy.Matrix(o_t.tolist()), s, version)
    return sympy.simplify(expr)
