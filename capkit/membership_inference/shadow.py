"""The audit of a generator by shadow modelling: how well can an attacker who knows the
generator and the population tell, from one synthetic data set, whether a target record was
in its training data?

One job: :func:`audit_generator`. A release can look safe by chance; a generator is judged
by many of its outputs (Stadler, Oprisanu & Troncoso 2022, Sec. 4-5; the TAPAS toolbox,
Houssiau et al. 2022). For each target record:

1. **Shadow training sets** of ``train_size`` records are drawn without replacement from the
   auxiliary data (the data without the targets); in half of the runs (a seeded, balanced
   choice) one record of the set, at a random position, is replaced by the target.
2. **One synthesis** per set: ``generator(training_set, seed)``.
3. **Features** of each synthetic set (:mod:`~capkit.membership_inference.shadow_features`:
   naive statistics, histograms, correlations, counts of synthetic records matching the target
   on random attribute subsets).
4. A **random-forest meta-classifier** (scikit-learn, seeded) learns "target in" from the
   features. Every run is scored out of fold (stratified ``folds``-fold cross-fitting: the
   forest that scores a run never saw it), and from those scores come the target's AUC, TPR at
   low FPR and epsilon lower bound (:func:`~capkit.membership_inference.metrics.metrics`).

Targets by default are the ``n_targets`` most outlying records (largest Gower distance to
their nearest other record, by :func:`capkit.distance.nearest.nearest`) and ``n_targets``
random others: Stadler et al. found outliers the most exposed.

Every random step draws from ``numpy.random.SeedSequence([seed, target, run])``, so the
result does not depend on ``n_jobs`` (joblib's processes) nor on the order runs finish; with
a ``checkpoint`` folder an interrupted audit resumes where it stopped
(:mod:`~capkit.membership_inference.shadow_checkpoint`).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from capkit.data.align import column_difference
from capkit.errors import CapkitError
from capkit.membership_inference.metrics import FPRS, _one, tpr_column
from capkit.membership_inference.outliers import outlier_distances
from capkit.membership_inference.shadow_checkpoint import (
    Checkpoint,
    data_digest,
    generator_name,
)
from capkit.membership_inference.shadow_features import (
    FEATURE_SETS,
    FeatureSpec,
    encode,
    feature_spec,
    features,
    query_masks,
)

Generator = Callable[[pd.DataFrame, int], pd.DataFrame]


@dataclass(frozen=True)
class GeneratorAudit:
    """The result of :func:`audit_generator`.

    Attributes
    ----------
    per_target
        One row per target, index its row label in ``data``: ``kind`` ("outlier", "random" or
        "given"), ``nn_distance`` (Gower distance to its nearest other record), ``auc``,
        ``advantage`` (TPR - FPR of the meta-classifier's guesses "in" when its probability
        is > 1/2, Stadler et al.'s advantage; negative by chance at times), ``privacy_gain``
        (1 - advantage, as TAPAS reports it), ``max_advantage`` (max over thresholds of
        TPR - FPR: optimistic, chosen on the same runs), the TPRs at FPR 0, 0.001, 0.01, 0.1
        and ``epsilon_lower``.
    runs
        One row per shadow run: ``target`` (row label), ``run``, ``seed`` (passed to the
        generator), ``member`` (target in the training set) and ``score`` (the out-of-fold
        probability "in").
    targets
        The target records (rows of ``data``).
    """

    per_target: pd.DataFrame
    runs: pd.DataFrame
    targets: pd.DataFrame

    def summary(self) -> pd.DataFrame:
        """Mean of the per-target numbers by kind of target (outlier, random, given)."""
        numbers = self.per_target.drop(columns=["kind"])
        return numbers.groupby(self.per_target["kind"], sort=False).mean()


def cart_generator(quiet: bool = True, **options: object) -> Callable[[pd.DataFrame, int],
                                                                      pd.DataFrame]:
    """capkit's sequential CART (:func:`capkit.synth.syn`) as a ``(frame, seed) -> frame``
    generator; ``options`` go to ``syn`` (``minbucket``, ``smoothing``, ...).

    ``quiet`` silences the warnings ``syn`` gives for each synthesis (e.g. a factor with too
    many levels for rpart's exhaustive search), which would otherwise repeat once per run.
    """
    return _Cart(quiet, dict(options))


class _Cart:
    """A picklable CART generator (joblib's processes receive it)."""

    def __init__(self, quiet: bool, options: dict) -> None:
        self.quiet, self.options = quiet, options

    def __call__(self, frame: pd.DataFrame, seed: int) -> pd.DataFrame:
        from capkit.synth import syn

        with warnings.catch_warnings():
            if self.quiet:
                warnings.simplefilter("ignore")
            return syn(frame, seed=seed, progress=False, **self.options).syn[0]


@dataclass(frozen=True)
class _Plan:
    """Everything a worker needs, fixed in the calling process."""

    data: pd.DataFrame
    auxiliary: np.ndarray  # positions in data
    target_positions: np.ndarray
    target_labels: list
    spec: FeatureSpec
    coded_targets: np.ndarray  # (targets, p)
    masks: list[np.ndarray]
    labels: list[np.ndarray]  # per target: member flag of each run
    train_size: int
    seed: int


#: The ``run`` entries of the random streams that are not shadow runs.
_TARGET_STREAM, _FOREST_STREAM, _CHOICE_STREAM = 2**32 - 1, 2**32 - 2, 2**32 - 3


def _stream(seed: int, target: int, run: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, target, run]))


def _run(generator: Generator, plan: _Plan, target: int, run: int
         ) -> tuple[int, np.ndarray]:
    """One shadow run: training set, synthesis, checks; its generator seed and features."""
    rng = _stream(plan.seed, target, run)
    rows = plan.auxiliary[rng.permutation(len(plan.auxiliary))[: plan.train_size]]
    at = int(rng.integers(plan.train_size))
    gen_seed = int(rng.integers(2**31 - 1))
    member = bool(plan.labels[target][run])
    if member:
        rows = rows.copy()
        rows[at] = plan.target_positions[target]
    training = plan.data.iloc[rows].reset_index(drop=True)
    where = (f"shadow run {run} of target {plan.target_labels[target]!r} (target "
             f"{'in' if member else 'out'}, generator seed {gen_seed})")
    try:
        synthetic = generator(training, gen_seed)
    except Exception as err:  # the user's generator: any failure is reported with its run
        raise CapkitError(f"{where}: the generator raised {type(err).__name__}: {err}") from err
    synthetic = _check_output(synthetic, plan.spec, where)
    return gen_seed, features(plan.spec, synthetic, plan.coded_targets[target],
                              plan.masks[target])


def _check_output(synthetic: object, spec: FeatureSpec, where: str) -> pd.DataFrame:
    if not isinstance(synthetic, pd.DataFrame):
        raise CapkitError(f"{where}: the generator returned {type(synthetic).__name__}, not a "
                          "pandas DataFrame")
    missing, extra = column_difference(spec.columns, synthetic)
    if missing or extra:
        raise CapkitError(f"{where}: the generator returned other columns than the data's: "
                          f"missing {missing}, extra {extra}")
    if len(synthetic) == 0:
        raise CapkitError(f"{where}: the generator returned no records")
    return synthetic


def _run_chunk(generator: Generator, plan: _Plan, jobs: list[tuple[int, int]]
               ) -> list[tuple[int, np.ndarray]]:
    # one BLAS thread per run: the runs are the parallel unit (small matrix products on many
    # threads of a busy machine are several times slower)
    with threadpool_limits(limits=1):
        return [_run(generator, plan, t, r) for t, r in jobs]


def _choose_targets(data: pd.DataFrame, targets: Sequence | None, n_targets: int, seed: int
                    ) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Positions, kinds and nearest-other distances of the targets."""
    if targets is not None:
        labels = list(targets)
        if len(labels) == 0:
            raise CapkitError("targets is empty: give row labels of data, or None")
        if len(set(labels)) != len(labels):
            raise CapkitError("targets holds a row label twice")
        absent = [t for t in labels if t not in data.index]
        if absent:
            raise CapkitError(f"targets name rows that are not in data's index: {absent[:5]}")
        if not data.index.is_unique:
            raise CapkitError("data's index has repeated labels: targets cannot name rows")
        positions = data.index.get_indexer(labels)
        return positions, ["given"] * len(labels), outlier_distances(data, positions)
    if isinstance(n_targets, bool) or not isinstance(n_targets, int | np.integer) \
            or n_targets < 1:
        raise CapkitError(f"n_targets must be a positive integer, got {n_targets!r}")
    if 2 * n_targets >= len(data):
        raise CapkitError(f"data has {len(data)} records: too few for {n_targets} outlier and "
                          f"{n_targets} random targets and a training set")
    distance = outlier_distances(data)
    # largest distance first; equal distances in row order
    order = np.lexsort((np.arange(len(data)), -distance))
    outliers = order[:n_targets]
    rest = np.setdiff1d(np.arange(len(data)), outliers)
    random = np.sort(_stream(seed, 0, _CHOICE_STREAM).choice(rest, n_targets, replace=False))
    positions = np.concatenate([outliers, random])
    return positions, ["outlier"] * n_targets + ["random"] * n_targets, distance[positions]


def _check_counts(n_shadows: int, folds: int, train_size: int, n_aux: int) -> None:
    for name, value in (("n_shadows", n_shadows), ("folds", folds), ("train_size", train_size)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise CapkitError(f"{name} must be a positive integer, got {value!r}")
    if folds < 2:
        raise CapkitError(f"folds must be >= 2 (out-of-fold scores), got {folds}")
    if n_shadows < 2 * folds:
        raise CapkitError(f"n_shadows must be >= 2 x folds = {2 * folds} (each fold needs a "
                          f"run with and one without the target), got {n_shadows}")
    if train_size > n_aux:
        raise CapkitError(f"train_size {train_size} is larger than the auxiliary data "
                          f"({n_aux} records once the targets are set aside)")


def _meta_scores(x: np.ndarray, y: np.ndarray, folds: int, n_estimators: int,
                 seed: int, target: int) -> np.ndarray:
    """Out-of-fold probabilities "in" of a seeded random forest, stratified folds."""
    rng = _stream(seed, target, _FOREST_STREAM)
    split_seed, forest_seed = (int(v) for v in rng.integers(2**31 - 1, size=2))
    scores = np.empty(len(y))
    for k, (fit, held) in enumerate(StratifiedKFold(folds, shuffle=True,
                                                    random_state=split_seed).split(x, y)):
        forest = RandomForestClassifier(n_estimators=n_estimators, random_state=forest_seed + k,
                                        n_jobs=1)
        forest.fit(x[fit], y[fit])
        scores[held] = forest.predict_proba(x[held])[:, list(forest.classes_).index(1)]
    return scores


def audit_generator(
    generator: Generator,
    data: pd.DataFrame,
    *,
    targets: Sequence | None = None,
    n_targets: int = 5,
    n_shadows: int = 200,
    train_size: int = 1000,
    features: Sequence[str] = FEATURE_SETS,
    n_queries: int = 100,
    folds: int = 5,
    n_estimators: int = 100,
    seed: int = 0,
    n_jobs: int = 1,
    progress: bool = True,
    checkpoint: str | os.PathLike | None = None,
) -> GeneratorAudit:
    """Audit a generator by shadow modelling (Stadler et al. 2022; TAPAS, Houssiau et al. 2022).

    Parameters
    ----------
    generator
        Any callable ``(frame, seed) -> frame`` returning synthetic records with the
        training set's columns (e.g. :func:`cart_generator`, ``lambda f, s:
        capkit.synth.baselines.independent_columns(f, seed=s)``, or a wrapper of SDV). With
        ``n_jobs > 1`` it is sent to joblib's processes (cloudpickle: lambdas work).
    data
        The population the attacker knows. Targets are taken from it; the auxiliary data the
        shadow training sets are drawn from is ``data`` without the targets. Not modified.
    targets
        Row labels of ``data`` to audit. Default: the ``n_targets`` most outlying records and
        ``n_targets`` random others.
    n_targets
        k of the default targets (k outliers + k random).
    n_shadows
        Shadow runs (syntheses) per target, half of them with the target (>= 2 x folds).
    train_size
        Records of each shadow training set.
    features
        Feature sets of :mod:`~capkit.membership_inference.shadow_features` (default all).
    n_queries
        Random attribute subsets of the ``"queries"`` features, per target.
    folds
        Folds of the cross-fitted meta-classifier.
    n_estimators
        Trees of the random forest.
    seed
        Seed of every random step (targets, training sets, generator seeds, folds, forests).
    n_jobs
        Processes for the shadow runs (joblib; -1 = all cores). The result is the same for
        every value.
    progress
        tqdm progress bar over the shadow runs.
    checkpoint
        A folder keeping the finished runs: a rerun of the same audit (same data, targets,
        seed, sizes, features and generator name) synthesises only the missing runs
        (:mod:`~capkit.membership_inference.shadow_checkpoint`). Default: none.

    Returns
    -------
    GeneratorAudit

    Raises
    ------
    CapkitError
        Bad arguments (naming them); a generator that raises or returns other columns, not a
        DataFrame or no records (naming the shadow run, its target and its generator seed).

    Notes
    -----
    Total syntheses: ``n_shadows x number of targets``. Numeric columns with missing values
    are handled as :mod:`~capkit.membership_inference.shadow_features` and
    :func:`~capkit.membership_inference.outliers.outlier_distances` say.
    """
    if not isinstance(data, pd.DataFrame) or len(data) == 0 or data.shape[1] == 0:
        raise CapkitError("data must be a non-empty pandas DataFrame")
    if not callable(generator):
        raise CapkitError(f"generator must be callable (frame, seed) -> frame, got "
                          f"{type(generator).__name__}")
    if isinstance(n_queries, bool) or not isinstance(n_queries, int | np.integer) \
            or n_queries < 0:
        raise CapkitError(f"n_queries must be an integer >= 0, got {n_queries!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise CapkitError(f"n_jobs must be a non-zero integer (-1: all cores), got {n_jobs!r}")
    positions, kinds, distance = _choose_targets(data, targets, n_targets, seed)
    auxiliary = np.setdiff1d(np.arange(len(data)), positions)
    _check_counts(n_shadows, folds, train_size, len(auxiliary))
    spec = feature_spec(data, features)
    p = len(spec.columns)
    labels = []
    masks = []
    for t in range(len(positions)):
        rng = _stream(seed, t, _TARGET_STREAM)
        flags = np.zeros(n_shadows, dtype=bool)
        flags[rng.permutation(n_shadows)[: n_shadows // 2]] = True
        labels.append(flags)
        masks.append(query_masks(p, n_queries, rng))
    plan = _Plan(data, auxiliary, positions, list(data.index[positions]), spec,
                 encode(spec, data.iloc[positions]), masks, labels, train_size, seed)
    jobs = [(t, r) for t in range(len(positions)) for r in range(n_shadows)]
    store = None
    if checkpoint is not None:
        store = Checkpoint(checkpoint, {
            "data": data_digest(data), "targets": [int(v) for v in positions], "seed": seed,
            "n_shadows": n_shadows, "train_size": train_size, "features": list(spec.sets),
            "n_queries": n_queries, "generator": generator_name(generator)})
    done = _execute(generator, plan, jobs, n_jobs, progress, store)

    matrix = np.vstack([vector for _, vector in done])
    blocks = [(matrix[t * n_shadows:(t + 1) * n_shadows], labels[t].astype(int))
              for t in range(len(positions))]
    if n_jobs == 1:
        scores = [_meta_scores(x, y, folds, n_estimators, seed, t)
                  for t, (x, y) in enumerate(blocks)]
    else:
        scores = Parallel(n_jobs=n_jobs)(delayed(_meta_scores)(x, y, folds, n_estimators, seed, t)
                                         for t, (x, y) in enumerate(blocks))
    rows, run_rows = {}, []
    for t, label in enumerate(plan.target_labels):
        score, flags = scores[t], labels[t]
        m = _one(score, flags, FPRS, 0.95, 0.0, seed)
        guess = score > 0.5
        advantage = float(guess[flags].mean() - guess[~flags].mean())
        rows[label] = {"kind": kinds[t], "nn_distance": float(distance[t]), "auc": m.auc,
                       "advantage": advantage, "privacy_gain": 1.0 - advantage,
                       "max_advantage": m.advantage,
                       **{tpr_column(f): v for f, v in m.tpr_at_fpr.items()},
                       "epsilon_lower": m.epsilon_lower}
        gen_seeds = [gen_seed for gen_seed, _ in done[t * n_shadows:(t + 1) * n_shadows]]
        run_rows.append(pd.DataFrame({"target": [label] * n_shadows, "run": range(n_shadows),
                                      "seed": gen_seeds, "member": flags, "score": score}))
    per_target = pd.DataFrame.from_dict(rows, orient="index")
    per_target.index.name = "target"
    return GeneratorAudit(per_target, pd.concat(run_rows, ignore_index=True),
                          data.iloc[positions].copy())


#: Runs between two checkpoint files when running in this process.
SAVE_EVERY = 20


def _execute(generator: Generator, plan: _Plan, jobs: list[tuple[int, int]], n_jobs: int,
             progress: bool, store: Checkpoint | None) -> list[tuple[int, np.ndarray]]:
    """Generator seed and feature vector of every run, in job order, in this process or
    joblib's; runs found in ``store`` are not run again, finished ones are stored."""
    results = store.load() if store is not None else {}
    pending = [job for job in jobs if job not in results]
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(pending), desc="shadow runs",
               unit="run", disable=not progress)

    def keep(chunk: list[tuple[int, int]], part: list[tuple[int, np.ndarray]]) -> None:
        results.update(zip(chunk, part, strict=True))
        if store is not None:
            store.save(chunk, part)

    try:
        if n_jobs == 1:
            for i in range(0, len(pending), SAVE_EVERY):
                chunk, part = pending[i:i + SAVE_EVERY], []
                try:
                    for job in chunk:
                        part.extend(_run_chunk(generator, plan, [job]))
                        bar.update(1)
                finally:  # an error keeps the runs finished before it
                    keep(chunk[:len(part)], part)
        else:
            workers = n_jobs if n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + n_jobs)
            size = max(1, math.ceil(len(pending) / (8 * workers)))
            chunks = [pending[i:i + size] for i in range(0, len(pending), size)]
            parts = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_run_chunk)(generator, plan, chunk) for chunk in chunks)
            for chunk, part in zip(chunks, parts, strict=True):
                keep(chunk, part)
                bar.update(len(part))
    finally:
        bar.close()
    return [results[job] for job in jobs]
