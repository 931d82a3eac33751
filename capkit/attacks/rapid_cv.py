"""RAPID of a synthesiser by k-fold cross-validation: :func:`rapid_cv`.

Templ, Thees & Müller, "RAPID: Risk of Attribute Prediction-Induced Disclosure in Synthetic
Microdata" (arXiv 2602.09235, 2026), Section 2.5, "Evaluating Synthetic Data Generators": split
the original data into k folds (stratified by a categorical target), synthesise from k - 1 of
them, evaluate RAPID on the fold left out, and average over the folds (the authors'
``rapid_synthesizer_cv``). The mean estimates the expected RAPID of the generator; its interval
is mean -/+ z sd / sqrt(k), as theirs.

Each fold is one :func:`capkit.attacks.rapid.rapid` call with the k - 1 synthesised folds as
the members and the fold left out as the holdout, so every fold also reports the members'
RAPID and the members-vs-holdout comparison: a generator whose releases reveal more about the
records they were made from than about other people shows it here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.attacks.rapid import RapidResult, rapid
from capkit.control import two_sided_z
from capkit.counts.runs import concatenated_ranges
from capkit.errors import CapkitError
from capkit.synth import syn

Generator = Callable[[pd.DataFrame, int], pd.DataFrame]


def cart_generator(**options: object) -> Generator:
    """capkit's sequential CART (:func:`capkit.synth.syn`, synthpop's defaults) as a
    ``generator(frame, seed) -> frame``; ``options`` go to ``syn``."""

    def generate(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
        return syn(frame, seed=int(seed), progress=False, **options).syn[0]

    return generate


def folds(target: pd.Series, k: int, seed: int, stratified: bool = True) -> np.ndarray:
    """Fold number (0..k-1) of each record: a seeded random split into k near-equal folds; with
    ``stratified`` every class of ``target`` is dealt round the folds in random order (the
    authors' ``create_stratified_folds``), so each fold keeps the class shares."""
    n = len(target)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    fold = np.empty(n, dtype=np.int64)
    if not stratified:
        fold[order] = np.arange(n) % k
        return fold
    codes = pd.factorize(target, use_na_sentinel=False)[0]
    order = order[np.argsort(codes[order], kind="stable")]
    rank = concatenated_ranges(np.bincount(codes[order]))  # each record's rank in its class
    fold[order] = rank % k
    return fold


@dataclass(frozen=True)
class RapidCV:
    """RAPID of a generator over k folds.

    Attributes
    ----------
    table
        One row per fold: records synthesised from (``n_members``) and held out
        (``n_holdout``), ``rapid`` (the fold left out: the paper's value), ``members_rapid``,
        the members-vs-holdout ``advantage`` and ``risk``, and the attacker's ``accuracy``
        (categorical) or ``mae`` (continuous) on the fold left out.
    mean, sd, se, ci
        Mean, standard deviation (n - 1), standard error sd / sqrt(k) and the interval
        mean -/+ z se of the folds' RAPID.
    members_mean
        Mean of the members' RAPID over the folds.
    results
        The folds' :class:`capkit.attacks.rapid.RapidResult`.
    """

    table: pd.DataFrame
    mean: float
    sd: float
    se: float
    ci: tuple[float, float]
    members_mean: float
    results: tuple[RapidResult, ...]


def rapid_cv(original: pd.DataFrame, generator: Generator | None, keys: str | Sequence[str],
             target: str, *, k: int = 5, stratified: bool = True, seed: int = 0,
             confidence: float = 0.95, n_bootstrap: int = 0, n_permutations: int = 0,
             **options: object) -> RapidCV:
    """Expected RAPID of a synthesiser by k-fold cross-validation (Templ, Thees & Müller 2026,
    Section 2.5).

    Parameters
    ----------
    original
        The original data. Not modified.
    generator
        ``generator(frame, seed) -> frame``: synthesises a release from ``frame`` (with its
        columns); fold f (0-based) is synthesised with seed ``seed + f + 1``. None: capkit's
        CART (:func:`cart_generator`).
    keys, target
        Quasi-identifiers and sensitive attribute.
    k
        Number of folds, 2 <= k <= number of records.
    stratified
        Stratify the folds by a categorical target.
    seed
        Seeds the folds, the generator (``seed + f + 1``) and the attacker.
    confidence
        Level of the interval of the mean.
    n_bootstrap, n_permutations
        Passed to :func:`capkit.attacks.rapid.rapid` for every fold (default 0: not needed for
        the mean over folds).
    **options
        Further options of :func:`capkit.attacks.rapid.rapid` (attacker, tau, epsilon, ...).

    Returns
    -------
    RapidCV

    Raises
    ------
    CapkitError
        k outside [2, n], a generator that is not callable or returns no DataFrame, and the
        errors of :func:`capkit.attacks.rapid.rapid` (naming the argument).
    """
    if not isinstance(original, pd.DataFrame) or len(original) == 0:
        raise CapkitError("original data must be a non-empty pandas DataFrame")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 2 <= k <= len(original):
        raise CapkitError(f"k must be a whole number between 2 and the number of records "
                          f"({len(original)}), got {k!r}")
    if generator is None:
        generator = cart_generator()
    if not callable(generator):
        raise CapkitError("generator must be a function generator(frame, seed) -> frame")
    if target not in original.columns:
        raise CapkitError(f"target column {target!r} is missing from original data")
    categorical = options.get("kind", "auto") == "categorical" or not (
        pd.api.types.is_numeric_dtype(original[target])
        and not pd.api.types.is_bool_dtype(original[target]))
    assignment = folds(original[target], int(k), seed, stratified and categorical)
    rows, results = [], []
    for f in range(int(k)):
        members = original[assignment != f]
        holdout = original[assignment == f]
        release = generator(members, seed + f + 1)
        if not isinstance(release, pd.DataFrame):
            raise CapkitError(f"generator returned {type(release).__name__} for fold {f + 1}, "
                              "not a pandas DataFrame")
        result = rapid(members, release, keys, target, holdout=holdout, seed=seed,
                       confidence=confidence, n_bootstrap=n_bootstrap,
                       n_permutations=n_permutations, check_overlap=False, **options)
        results.append(result)
        held = result.control
        rows.append({"fold": f + 1, "n_members": result.n, "n_holdout": held.n,
                     "rapid": held.rapid, "members_rapid": result.rapid,
                     "advantage": result.comparison.advantage, "risk": result.comparison.risk,
                     **({"accuracy": held.scores["accuracy"]} if "accuracy" in held.scores
                        else {"mae": held.scores["mae"]})})
    table = pd.DataFrame(rows)
    values = table["rapid"].to_numpy(np.float64)
    mean, sd = float(values.mean()), float(values.std(ddof=1))
    se = sd / math.sqrt(len(values))
    z = two_sided_z(confidence)
    return RapidCV(table=table, mean=mean, sd=sd, se=se, ci=(mean - z * se, mean + z * se),
                   members_mean=float(table["members_rapid"].mean()), results=tuple(results))


__all__ = ["RapidCV", "cart_generator", "folds", "rapid_cv"]
