"""Drawn nearest-record searches for the tests that hold one search path against another (the
brute force, the search level by level, the compiled kernel): few levels and rounded values, so
ties are everywhere, sometimes missing values, unequal weights and exclusions."""

from __future__ import annotations

import numpy as np


def drawn_search(rng: np.random.Generator, *, rows: int, cat_columns: tuple[int, ...],
                 caps: bool = False, self_share: float = 0.0, with_k: bool = False) -> dict:
    """The keyword arguments of one search between drawn records.

    ``rows``: at most this many records on each side; ``cat_columns``: the numbers of categorical
    columns to draw from (more than 16: no table of mismatch patterns); ``caps``: sometimes a
    cap on each numeric term (``numeric_cap``); ``self_share``: how often the records are
    searched against themselves with their own rows excluded; ``with_k``: add ``k`` (1 to 3).
    """
    n_s, n_r = int(rng.integers(1, rows)), int(rng.integers(1, rows))
    pc = int(rng.choice(cat_columns))
    pq = int(rng.integers(0, 4)) if pc else int(rng.integers(1, 4))
    card = int(rng.integers(1, 4))
    scale = float(rng.choice([2.0, 10.0, 1000.0]))
    num_s = np.round(rng.random((n_s, pq)) * scale, int(rng.integers(0, 3))) / 7
    num_r = np.round(rng.random((n_r, pq)) * scale, int(rng.integers(0, 3))) / 7
    if pq and rng.random() < 0.2:
        num_s[rng.random(num_s.shape) < 0.1] = np.nan
    weights = (np.full(pc, 0.3) if rng.random() < 0.5
               else rng.choice([0.1, 0.7, 1.3, 1e3], pc) * (rng.random(pc) + 0.5))
    cat_s = rng.integers(0, card, (n_s, pc))
    cat_r = rng.integers(0, card, (n_r, pc))
    exclude = None
    if rng.random() < self_share:
        cat_r, num_r, n_r = cat_s, num_s, n_s
        exclude = np.arange(n_s)[:, None]
    if rng.random() < 0.35:
        exclude = rng.integers(-1, n_r, (n_s, int(rng.integers(1, 3))))
    case = {"cat_s": cat_s, "cat_r": cat_r, "num_s": num_s, "num_r": num_r, "w_cat": weights,
            "exclude": exclude}
    if caps:
        case["numeric_cap"] = rng.random(pq) if rng.random() < 0.3 else None
    if with_k:
        case["k"] = int(rng.integers(1, 4))
    return case


def every_pair(x: np.ndarray, y: np.ndarray, metric: str = "squared") -> np.ndarray:
    """Record by record: each query's distance to every target, squared Euclidean or L1, the
    columns added in order (as the searches add them)."""
    d = np.zeros((len(x), len(y)))
    for c in range(x.shape[1]):
        diff = x[:, None, c] - y[None, :, c]
        d += diff * diff if metric == "squared" else np.abs(diff)
    return d


def share_among_nearest(d: np.ndarray, first: np.ndarray, k: int) -> np.ndarray:
    """Record by record: the share of ``first`` among each row's k nearest, ties at the k-th
    distance split in proportion."""
    out = []
    for row in d:
        kth = np.sort(row)[k - 1]
        less, tied = row < kth, row == kth
        value = float(np.sum(less & first))
        value += (k - int(less.sum())) * int(np.sum(tied & first)) / int(tied.sum())
        out.append(value / k)
    return np.array(out)


def rounded_pair(rng: np.random.Generator, n: int, m: int, p: int, *,
                 grids: tuple[float, ...], duplicated: float) -> tuple[np.ndarray, np.ndarray]:
    """Queries ``x`` (n x p) and targets ``y`` (m x p) rounded to a drawn grid from ``grids``, so
    distances tie: sometimes copies of queries among the targets (distance 0), duplicated
    targets (probability ``duplicated``), one column scaled to dominate (as fnlwgt on Adult)."""
    grid = float(rng.choice(list(grids)))
    x = np.round(rng.normal(size=(n, p)) * grid) / grid
    y = np.round(rng.normal(size=(m, p)) * grid) / grid
    if rng.random() < 0.5:  # copies of queries among the targets: distance 0, ties
        y[: m // 3] = x[rng.integers(0, n, m // 3)]
    if rng.random() < duplicated:  # duplicated targets: two nearest at one distance
        y[m // 2:] = y[: m - m // 2]
    if rng.random() < 0.3:  # one column dominates (as fnlwgt on Adult's raw columns)
        x[:, 0] *= 1e5
        y[:, 0] *= 1e5
    return x, y
