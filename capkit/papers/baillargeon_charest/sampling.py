"""Exact uniform sampling of I x J count tables with a fixed total (Baillargeon & Charest, Sec. 4).

Section 4 of Baillargeon & Charest (2020) draws synthetic data sets "among all the possible 3x3
datasets containing 900 records": uniformly over the set of I x J tables of non-negative
integers whose cells sum to ``total``. That set has

    C(total + I*J - 1, I*J - 1)

members (stars and bars), e.g. C(908, 8) ~ 1.06e19 tables for 3 x 3 with 900 records, so the
draw is done without enumerating it:

*Stars and bars.* Lay out ``total + K - 1`` positions (K = I*J cells) and choose ``K - 1`` of
them, uniformly among all such subsets, to hold bars; the ``total`` remaining positions are
stars. The number of stars before the first bar, between consecutive bars and after the last
bar are the K cell counts, read in row-major (C) order. This map from (K-1)-subsets to tables is
a bijection, so a uniform subset gives a uniform table.

The uniform subset is drawn with integer arithmetic only (no floating-point ties), vectorised
over the ``size`` draws, by one of two exact methods, whichever needs less work:

* Floyd's algorithm (Bentley & Floyd, 1987): for ``t = N-k, ..., N-1`` draw ``r`` uniform in
  ``0..t`` and add ``r`` to the subset, or ``t`` when ``r`` is already in it. One step per bar
  (``k = K - 1`` steps, each vectorised over the draws): cost ~ size * k^2 / 2.
* A uniform random permutation of the N positions per draw (``Generator.permuted``), keeping
  the first ``k``: cost ~ size * N.

Neither loops over records or over tables.
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from capkit.errors import CapkitError

#: Largest number of tables :func:`enumerate_tables` lists (the result is an (N, I, J) array).
ENUMERATION_LIMIT = 2_000_000


def _check_shape(shape: object) -> tuple[int, int]:
    try:
        dims = tuple(shape)  # type: ignore[arg-type]
    except TypeError as exc:
        raise CapkitError(
            f"shape must be a pair (I, J) of positive integers, got {shape!r}") from exc
    if len(dims) != 2 or not all(
        isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in dims
    ):
        raise CapkitError(f"shape must be a pair (I, J) of positive integers, got {shape!r}")
    if min(dims) < 1:
        raise CapkitError(
            f"shape must have positive dimensions (targets I >= 1, keys J >= 1), got {dims}"
        )
    return int(dims[0]), int(dims[1])


def _check_count(value: object, name: str, minimum: int) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise CapkitError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise CapkitError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def count_tables(shape: tuple[int, int], total: int) -> int:
    """Number of I x J tables of non-negative integers summing to ``total``.

    Stars and bars: ``C(total + I*J - 1, I*J - 1)``, an exact Python integer. For the 3 x 3
    tables of 900 records of Baillargeon & Charest (Sec. 4) this is C(908, 8).

    Raises
    ------
    CapkitError
        For a shape with a dimension < 1 or a negative / non-integer total.
    """
    rows, cols = _check_shape(shape)
    total = _check_count(total, "total", 0)
    cells = rows * cols
    return math.comb(total + cells - 1, cells - 1)


def _bars_to_tables(bars: np.ndarray, n_positions: int, shape: tuple[int, int]) -> np.ndarray:
    """Sorted bar positions (size, k) -> tables (size, I, J): gaps between consecutive bars."""
    size = bars.shape[0]
    edges = np.concatenate(
        [np.full((size, 1), -1, dtype=np.int64), bars,
         np.full((size, 1), n_positions, dtype=np.int64)], axis=1)
    return (np.diff(edges, axis=1) - 1).reshape(size, *shape)


def _floyd_subsets(rng: np.random.Generator, n_positions: int, k: int, size: int) -> np.ndarray:
    """Uniform k-subsets of 0..N-1, one per row, by Floyd's algorithm (unsorted)."""
    chosen = np.empty((size, k), dtype=np.int64)
    for step, top in enumerate(range(n_positions - k, n_positions)):
        pick = rng.integers(0, top + 1, size=size, dtype=np.int64)
        seen = (chosen[:, :step] == pick[:, np.newaxis]).any(axis=1)
        chosen[:, step] = np.where(seen, top, pick)
    return chosen


def _permutation_subsets(rng: np.random.Generator, n_positions: int, k: int,
                         size: int) -> np.ndarray:
    """Uniform k-subsets of 0..N-1: the first k entries of a uniform permutation per row."""
    positions = np.broadcast_to(np.arange(n_positions, dtype=np.int64), (size, n_positions))
    return rng.permuted(positions, axis=1)[:, :k]


def uniform_tables(
    shape: tuple[int, int], total: int, size: int, seed: int | np.random.Generator | None,
    *, method: str = "auto",
) -> np.ndarray:
    """Draw ``size`` tables uniformly from all I x J non-negative integer tables with sum ``total``.

    Every one of the :func:`count_tables` tables has probability 1 / count_tables(shape, total)
    at each draw, draws being independent: the sampling scheme of Baillargeon & Charest,
    Section 4 ("randomly select ... among all the possible 3x3 datasets containing 900
    records"). Method: stars and bars with an exactly uniform (K-1)-subset of the
    ``total + K - 1`` positions (K = I*J), see the module docstring.

    Parameters
    ----------
    shape
        (I, J): targets x keys, both >= 1.
    total
        Number of records in each table, >= 0.
    size
        Number of tables to draw, >= 1.
    seed
        Seed of ``numpy.random.default_rng`` (or a ``Generator``). Same seed, same tables.
    method
        ``"auto"`` (the cheaper of the two), ``"floyd"`` or ``"permutation"``; all exact.

    Returns
    -------
    (size, I, J) int64 array; ``out[t]`` is the t-th table, rows = targets, columns = keys.

    Raises
    ------
    CapkitError
        For a shape with a zero dimension, ``total < 0``, ``size < 1`` or an unknown method.
    """
    rows, cols = _check_shape(shape)
    total = _check_count(total, "total", 0)
    size = _check_count(size, "size", 1)
    if method not in ("auto", "floyd", "permutation"):
        raise CapkitError(f"method must be 'auto', 'floyd' or 'permutation', got {method!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    k = rows * cols - 1
    n_positions = total + k
    if k == 0:
        return np.full((size, rows, cols), total, dtype=np.int64)
    if method == "auto":
        method = "floyd" if k * k < 2 * n_positions else "permutation"
    if method == "floyd":
        bars = _floyd_subsets(rng, n_positions, k, size)
    else:
        bars = _permutation_subsets(rng, n_positions, k, size)
    return _bars_to_tables(np.sort(bars, axis=1), n_positions, (rows, cols))


def enumerate_tables(shape: tuple[int, int], total: int) -> np.ndarray:
    """All I x J non-negative integer tables summing to ``total``, for small cases.

    Tables come in lexicographic order of their bar positions (stars and bars), so the result
    is deterministic. Used to check :func:`uniform_tables` (every table, and only these, must
    be drawn, equally often).

    Returns
    -------
    (count_tables(shape, total), I, J) int64 array.

    Raises
    ------
    CapkitError
        For bad ``shape`` / ``total``, or more than :data:`ENUMERATION_LIMIT` tables.
    """
    rows, cols = _check_shape(shape)
    n_tables = count_tables((rows, cols), total)
    if n_tables > ENUMERATION_LIMIT:
        raise CapkitError(
            f"shape {(rows, cols)} with total {total} has {n_tables} tables; enumerate_tables "
            f"lists at most {ENUMERATION_LIMIT} (use uniform_tables to sample)"
        )
    k = rows * cols - 1
    n_positions = total + k
    if k == 0:
        return np.full((1, rows, cols), total, dtype=np.int64)
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(n_positions), k)),
        dtype=np.int64, count=n_tables * k,
    )
    return _bars_to_tables(flat.reshape(n_tables, k), n_positions, (rows, cols))
