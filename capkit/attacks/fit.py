"""Running an attacker: fit on one group of records, predict per key combination.

Hittmeir, Mayer & Ekelhart (2020), Section 3: the intruder's model is trained on the data it
holds (the synthetic data; the original data for the upper bound) and predicts the target of
records from their keys. Every attacker's prediction is a function of the keys alone, so
:func:`predict` returns one prediction per queried key combination of a
:class:`capkit.attacks.grid.Grid`; records take their combination's. This is exact (the same
predictions as record by record) and makes prediction cost independent of the number of records.

Predictions are target row codes of the grid (categorical target; -1 = no prediction) or values
(numeric target; NaN = no prediction).

Estimators are fitted and applied with one BLAS thread: the problems are small and dense, and
BLAS threads only add synchronisation (on a busy 2-core machine a logistic regression on 5,000
cells took 6 s with two threads and 0.2 s with one).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, SVR, NuSVC, NuSVR
from threadpoolctl import ThreadpoolController

from capkit.attacks import _mlp_regressor
from capkit.attacks._forest import fit as fast_forest
from capkit.attacks.attackers import NUMERIC, Attacker, resolve, seeded
from capkit.attacks.gcap import majority, nearest_pools, pool_means
from capkit.attacks.grid import Grid
from capkit.attacks.nearest_record import nearest_records
from capkit.distance import dcr
from capkit.distance.nearest import nearest as nearest_record
from capkit.errors import CapkitError


@functools.cache
def _controller() -> ThreadpoolController:
    """The process's BLAS and OpenMP libraries, looked up once: ``threadpool_limits`` reads
    them again on every call, which cost more than a small fit."""
    return ThreadpoolController()


def _training_cells(grid: Grid, train: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (target row, key column) cells of the training group with their counts,
    leaving out a numeric target's missing values."""
    coo = sparse.coo_array(grid.counts(train))
    coo.eliminate_zeros()
    rows, cols, counts = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
    order = np.lexsort((rows, cols))
    rows, cols, counts = rows[order], cols[order], counts[order].astype(np.float64)
    if grid.values is not None:
        keep = ~np.isnan(grid.values[rows])
        rows, cols, counts = rows[keep], cols[keep], counts[keep]
    if len(rows) == 0:
        raise CapkitError(f"the {train} data has no record with a known target "
                          f"{grid.target!r} to learn from")
    return rows, cols, counts


def _numeric_values(grid: Grid, column: int, combos: np.ndarray) -> np.ndarray:
    values = grid.key_values(column, combos).astype(np.float64)
    if np.isnan(values).any():
        raise CapkitError(
            f"numeric key {grid.keys[column]!r} has missing values; this attacker needs them "
            "imputed (or make the key categorical); 'cap' and 'gcap' treat missing as a level")
    return values


def features(spec: Attacker, grid: Grid, train_combos: np.ndarray, weights: np.ndarray,
             combos: np.ndarray) -> np.ndarray:
    """Encoded keys of the key combinations ``combos`` (rows), as ``spec`` says.

    Categorical keys (and numeric keys with ``numeric_as="category"``) are one-hot over the
    levels of the training combinations (an unseen level: all zeros) or ordinal codes; numeric
    keys are min-max scaled by the training records' range (``"scaled"``) or raw. One-hot
    columns come first, in key order, then numeric ones.
    """
    onehot, numeric, ordinal = [], [], []
    for c, is_num in enumerate(grid.numeric_keys):
        if is_num and spec.numeric_as != "category":
            values = _numeric_values(grid, c, combos)
            if spec.numeric_as == "scaled":
                seen = _numeric_values(grid, c, train_combos)
                low, span = seen.min(), seen.max() - seen.min()
                values = (values - low) / (span if span > 0 else 1.0)
            numeric.append(values)
            continue
        codes = grid.parts[combos, c]
        if spec.keys_as == "ordinal":
            ordinal.append(codes.astype(np.float64))
            continue
        seen = np.unique(grid.parts[train_combos[weights > 0], c])
        column = np.full(int(grid.parts[:, c].max()) + 1, -1, dtype=np.int64)
        column[seen] = np.arange(len(seen))
        block = np.zeros((len(combos), len(seen)))
        hit = column[codes] >= 0
        block[np.flatnonzero(hit), column[codes[hit]]] = 1.0
        onehot.append(block)
    blocks = onehot + [v[:, None] for v in ordinal + numeric]
    return np.hstack(blocks) if blocks else np.zeros((len(combos), 0))


def _sparse_same(model: object) -> bool:
    """Whether ``model`` is a libsvm estimator that fits and predicts the same on a sparse
    matrix as on a dense array, and faster on one-hot keys.

    libsvm (Chang & Lin, "LIBSVM: a library for support vector machines", 2011) runs one
    solver on both representations; only its dot products differ: the dense one sums every
    feature (through BLAS), the sparse one the nonzero entries in feature order, which one-hot
    keys make few (a key combination has one 1 per categorical key). Terms of 0 add nothing, so
    the sums agree except where BLAS's vector blocks add a non-integer (scaled numeric) feature
    in another order (an encoding of 32 features with OpenBLAS's Haswell kernel: decision values
    then differ by about 1e-13, as the dense path's own differ between BLAS kernels). RBF kernel
    only, a number or ``"auto"`` as gamma (``"scale"`` takes the variance by another formula
    on sparse input), no probability estimates."""
    return (isinstance(model, SVC | SVR | NuSVC | NuSVR)
            and model.get_params()["kernel"] == "rbf"
            and model.get_params()["gamma"] != "scale"
            and model.get_params().get("probability") is not True)


def _fit_estimator(spec: Attacker, grid: Grid, train: str, query: np.ndarray, seed: int,
                   proba: bool = False) -> np.ndarray:
    """Fit ``spec``'s estimator on group ``train`` and predict the key combinations ``query``:
    target row codes or values, or with ``proba`` the (len(query), I) class probabilities over
    the grid's target rows (a class the estimator never saw has probability 0)."""
    rows, cols, counts = _training_cells(grid, train)
    model = seeded(spec, seed)
    if proba and not hasattr(model, "predict_proba"):
        raise CapkitError(f"attacker {spec.name!r} gives no class probabilities (no "
                          "predict_proba); use a classifier that does, e.g. 'ranger' or 'rf' "
                          "(an SVC needs probability=True)")
    if spec.compress:
        x_train = features(spec, grid, cols, counts, cols)
        y_rows, weight = rows, counts
    else:  # the records, in row order
        cells = grid.cells(train)
        cells = cells[grid.known(train)]
        combos, inverse = np.unique(cells[:, 1], return_inverse=True)
        x_train = features(spec, grid, cols, counts, combos)[inverse]
        y_rows, weight = cells[:, 0], None
    if spec.keys_as == "ordinal" and "min_categories" in model.get_params() and \
            model.get_params()["min_categories"] is None:
        model.set_params(min_categories=(grid.parts.max(axis=0) + 1).astype(int))
    if weight is not None and model.get_params().get("gamma", None) == "scale":
        # the records' variance (what gamma="scale" would see on the records)
        total = weight.sum() * x_train.shape[1]
        mean = (weight @ x_train).sum() / total
        variance = (weight @ (x_train**2)).sum() / total - mean**2
        model.set_params(gamma=1.0 / (x_train.shape[1] * variance) if variance > 0 else 1.0)
    y = grid.values[y_rows] if grid.kind == NUMERIC else y_rows
    centre, spread = 0.0, 1.0
    if grid.kind == NUMERIC and spec.scale_target:
        w = np.ones(len(y)) if weight is None else weight
        centre = float(np.average(y, weights=w))
        spread = float(np.sqrt(np.average((y - centre) ** 2, weights=w))) or 1.0
        y = (y - centre) / spread
    x_query = features(spec, grid, cols, counts, query)
    if spec.sparse or _sparse_same(model):
        x_train, x_query = sparse.csr_matrix(x_train), sparse.csr_matrix(x_query)
    with warnings.catch_warnings(), _controller().limit(limits=1, user_api="blas"):
        warnings.simplefilter("ignore", ConvergenceWarning)
        forest = fast_forest(model, x_train, y, weight)  # scikit-learn's trees, less overhead
        if forest is not None:
            model = forest
        elif _mlp_regressor.covered(model, x_train):  # the same fit, bit for bit
            model = _mlp_regressor.fit(model, x_train, y, weight)
        elif weight is None:
            model.fit(x_train, y)
        else:
            model.fit(x_train, y, sample_weight=weight)
        if proba:
            shares = np.asarray(model.predict_proba(x_query), dtype=np.float64)
            out = np.zeros((len(query), grid.counts(train).shape[0]))
            out[:, np.asarray(model.classes_, dtype=np.int64)] = shares
            return out
        predicted = np.asarray(model.predict(x_query))
    if grid.kind == NUMERIC:
        return predicted.astype(np.float64) * spread + centre
    return predicted.astype(np.int64)


def _nearest(grid: Grid, train: str, query: np.ndarray) -> np.ndarray:
    """Target of the nearest training record (exact Gower distance on the keys, numeric ranges
    of the training records, a zero range taken as 1), lowest row index on ties.

    The reference is the distinct training key combinations ordered by their first record, so
    the search's lowest-index rule picks the combination holding the lowest record among the
    nearest, and that record's target is the prediction. The search is
    :func:`capkit.distance.dcr`'s (:func:`capkit.distance.nearest.nearest`), handed the grid's
    codes and values as :func:`capkit.distance.gower.encode` would encode the key frames
    (categorical keys by their level codes, which only compare for equality; numeric keys times
    1 / range), without building and re-coding the frames.
    """
    cells, combos, first = grid.candidates(train)
    if not len(combos) or not len(query):  # dcr's messages for an empty side
        return _nearest_by_frames(grid, cells, combos, first, query)
    numeric = np.flatnonzero(grid.numeric_keys)
    categorical = np.flatnonzero(~np.asarray(grid.numeric_keys, dtype=bool))
    num_r = np.zeros((len(combos), len(numeric)))
    num_q = np.zeros((len(query), len(numeric)))
    for k, c in enumerate(numeric):  # refuses a missing number, the reference's first
        num_r[:, k] = _numeric_values(grid, c, combos)
    for k, c in enumerate(numeric):
        num_q[:, k] = _numeric_values(grid, c, query)
    for k in range(len(numeric)):
        span = float(num_r[:, k].max() - num_r[:, k].min())
        scale = 1.0 / (span if span > 0 else 1.0)  # gower.encode's weight / range
        num_r[:, k] *= scale
        num_q[:, k] *= scale
    cat_r = np.ascontiguousarray(grid.parts[combos][:, categorical], dtype=np.int64)
    cat_q = np.ascontiguousarray(grid.parts[query][:, categorical], dtype=np.int64)
    _, nearest = nearest_record(cat_q, cat_r, num_q, num_r, np.ones(len(categorical)))
    target_rows = cells[first[nearest], 0]
    return grid.values[target_rows] if grid.kind == NUMERIC else target_rows


def _nearest_by_frames(grid: Grid, cells: np.ndarray, combos: np.ndarray, first: np.ndarray,
                       query: np.ndarray) -> np.ndarray:
    """:func:`_nearest` through :func:`capkit.distance.dcr` on the key frames."""

    def frame(which: np.ndarray) -> pd.DataFrame:
        for c in np.flatnonzero(grid.numeric_keys):
            _numeric_values(grid, c, which)  # refuses a missing number
        return grid.key_frame(which)

    reference = frame(combos)
    ranges = {}
    for c, name in enumerate(grid.keys):
        if grid.numeric_keys[c]:
            span = float(reference[name].max() - reference[name].min())
            ranges[name] = span if span > 0 else 1.0
    nearest = dcr(frame(query), reference, ranges=ranges).index
    target_rows = cells[first[nearest], 0]
    return grid.values[target_rows] if grid.kind == NUMERIC else target_rows


def best_constant(values: np.ndarray, weights: np.ndarray, tolerance: float) -> float:
    """The no-information guess of a numeric target: the value of the training data that is
    within ``tolerance`` (|guess - truth| <= tolerance |truth|) of the most training records.

    A dummy that guesses the mean (scikit-learn's ``DummyRegressor``, the least-squares
    constant) is no baseline for a band rule: on a target that is 0 for most records and large
    for a few, the mean is within 5% of nobody, and the baseline reads 0% where guessing 0 is
    right for most. Because y - t|y| and y + t|y| both increase with y (t < 1), the records a
    guess c covers are one run of the sorted values, found with two binary searches; every
    distinct value is tried (ties: the smallest). With ``tolerance >= 1`` the bands no longer
    order, and the weighted mean is used.
    """
    known = ~np.isnan(values) & (weights > 0)
    y, w = values[known], weights[known].astype(np.float64)
    if len(y) == 0:
        return float("nan")
    if tolerance >= 1:
        return float(np.average(y, weights=w))
    order = np.argsort(y, kind="stable")
    y, w = y[order], w[order]
    cum = np.concatenate([[0.0], np.cumsum(w)])
    lo, hi = y - tolerance * np.abs(y), y + tolerance * np.abs(y)
    last = np.searchsorted(lo, y, side="right")  # records with lo <= c
    first = np.searchsorted(hi, y, side="left")  # records with hi >= c
    covered = cum[last] - cum[first]
    return float(y[int(np.argmax(covered))])


def _pools(grid: Grid, train: str, query: np.ndarray, method: str, seed: int,
           tolerance: float) -> np.ndarray:
    counts = grid.counts(train)
    if grid.kind == NUMERIC:  # records without a target value are no training data: a pool
        known = (~np.isnan(grid.values)).astype(np.float64)  # (and the radius) ignores them
        counts = sparse.csc_array(sparse.diags_array(known) @ sparse.csc_array(counts))
    if method == "dummy":  # one pool: the whole training file
        totals = np.asarray(counts.sum(axis=1)).ravel()
        if grid.kind == NUMERIC:
            return np.full(len(query), best_constant(grid.values, totals, tolerance))
        pools = sparse.csc_array(totals[:, None].astype(np.float64))
        index = np.zeros(len(query), dtype=np.int64)
    else:
        pools = nearest_pools(counts, grid.parts, query, generalized=method == "gcap")
        index = np.arange(len(query))
    if grid.kind == NUMERIC:
        return pool_means(pools, grid.values)[index]
    return majority(pools, np.random.default_rng(seed))[index]


def vote(predictions: list[np.ndarray]) -> np.ndarray:
    """Hard majority vote of categorical predictions (-1 = no prediction, not a vote).

    A tie goes to the value that first reached the winning count scanning the attackers in
    order (SDMetrics' CategoricalEnsemble rule); no vote at all gives -1.
    """
    votes = np.column_stack(predictions)
    n_rows, n_voters = votes.shape
    running = np.zeros(votes.shape, dtype=np.int64)  # count of this value up to this voter
    for k in range(n_voters):
        running[:, k] = (votes[:, : k + 1] == votes[:, [k]]).sum(axis=1)
    running[votes < 0] = 0
    best = running.max(axis=1)
    reached = (running == best[:, None]) & (best[:, None] > 0)
    first = np.argmax(reached, axis=1)
    return np.where(best > 0, votes[np.arange(n_rows), first], -1)


def predict(attacker: str | Attacker | object, grid: Grid, train: str, query: np.ndarray,
            seed: int = 0, cache: dict | None = None, tolerance: float = 0.05) -> np.ndarray:
    """Predictions of ``attacker`` trained on group ``train`` for the key combinations
    ``query`` of ``grid``.

    ``tolerance`` is the numeric band the guesses are scored with; the dummy of a numeric
    target guesses the constant right for most training records under it
    (:func:`best_constant`).

    ``cache`` (a dict) keeps each member's predictions so an ensemble reuses them (keyed by
    attacker name and training group; pass a fresh dict per grid and query).
    """
    spec = resolve(attacker, grid.kind)
    key = (spec.name, train)
    if cache is not None and key in cache:
        return cache[key]
    if spec.method in ("cap", "gcap", "dummy"):
        out = _pools(grid, train, query, spec.method, seed, tolerance)
    elif spec.method == "nn" and spec.distance == "anonymeter":
        target = nearest_records(grid, train, query).target
        out = grid.values[target] if grid.kind == NUMERIC else target
    elif spec.method == "nn":
        out = _nearest(grid, train, query)
    elif spec.method == "estimator":
        out = _fit_estimator(spec, grid, train, query, seed)
    else:
        parts = [predict(m, grid, train, query, seed, cache, tolerance) for m in spec.members]
        out = np.mean(np.column_stack(parts), axis=1) if grid.kind == NUMERIC else vote(parts)
    if cache is not None:
        cache[key] = out
    return out


def probabilities(attacker: str | Attacker | object, grid: Grid, train: str, query: np.ndarray,
                  seed: int = 0, cache: dict | None = None) -> np.ndarray:
    """Class probabilities of a categorical target: ``attacker`` trained on group ``train``, for
    the key combinations ``query`` of ``grid``; (len(query), I) over the grid's target rows.

    An estimator gives its ``predict_proba`` (a class it never saw: 0); ``"cap"``, ``"gcap"``
    and ``"dummy"`` the target shares of their pool of training records (``"cap"`` without a
    matching key: all 0); ``"nn"`` probability 1 for the nearest record's target; an ensemble the
    mean of its members' probabilities (a soft vote). ``cache`` as in :func:`predict`.
    """
    spec = resolve(attacker, grid.kind)
    if grid.kind == NUMERIC:
        raise CapkitError(f"class probabilities need a categorical target; {grid.target!r} is "
                          "numeric")
    key = ("probabilities", spec.name, train)
    if cache is not None and key in cache:
        return cache[key]
    n_targets = grid.counts(train).shape[0]
    if spec.method == "estimator":
        out = _fit_estimator(spec, grid, train, query, seed, proba=True)
    elif spec.method in ("cap", "gcap", "dummy"):
        counts = grid.counts(train)
        if spec.method == "dummy":
            totals = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
            pools = np.repeat(totals[None, :], len(query), axis=0)
        else:
            pools = nearest_pools(counts, grid.parts, query, generalized=spec.method == "gcap")
            pools = np.asarray(sparse.csc_array(pools).toarray()).T
        sizes = pools.sum(axis=1, keepdims=True)
        out = np.divide(pools, sizes, out=np.zeros_like(pools), where=sizes > 0)
    elif spec.method == "nn":
        rows = predict(spec, grid, train, query, seed)
        out = np.zeros((len(query), n_targets))
        out[np.arange(len(query)), rows] = 1.0
    else:
        parts = [probabilities(m, grid, train, query, seed, cache) for m in spec.members]
        out = np.mean(parts, axis=0)
    if cache is not None:
        cache[key] = out
    return out


__all__ = ["best_constant", "features", "predict", "probabilities", "vote"]
