"""The baseline table of Hittmeir, Mayer & Ekelhart (2020): every attacker on every key set.

"A Baseline for Attribute Disclosure Risk in Synthetic Data" (ACM CODASPY 2020, 133-143,
doi 10.1145/3374664.3375722) runs each attacker over every combination of ``key_length``
quasi-identifiers drawn from a pool, for each target, and reports the mean and standard
deviation over the key combinations, next to two references: a **dummy** predictor (majority
class / mean, the lower bound) and the same attacker **trained on the original data** and scored
on the original records (the upper bound). A risk assessment should assume at least the strongest
of the synthetic-trained attackers.

capkit adds the membership control: with a holdout every attack is scored on the holdout records
too, and the members' rows carry the risk and advantage of :func:`capkit.control.compare_to_
control`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from tqdm import tqdm

from capkit.attacks.attackers import DEFAULT_ATTACKERS, REGISTRY, Attacker
from capkit.attacks.attribute import AttackResult, GroupScore, check_tolerance, run_attack
from capkit.attacks.grid import Grid, order_free, prepare
from capkit.counts.encode import as_list
from capkit.errors import CapkitError

#: Score columns of the table, in order.
SCORES = ("rate", "coverage", "accuracy", "macro_f1", "within_tolerance", "mae", "r2")


def _rows(result: AttackResult, trained_on: str, keys: str, synthesis: float
          ) -> list[dict[str, object]]:
    groups: list[tuple[str, GroupScore]] = [("members", result.members)]
    if result.control is not None:
        groups.append(("holdout", result.control))
    rows = []
    for scored_on, score in groups:
        row: dict[str, object] = {
            "synthesis": synthesis, "keys": keys, "target": result.target, "kind": result.kind,
            "attacker": result.attacker, "trained_on": trained_on, "scored_on": scored_on,
            "n": score.n, "correct": score.correct, "rate": score.rate,
            "coverage": score.coverage, **score.scores}
        if scored_on == "members" and result.control is not None:
            low, high = result.risk_ci
            row.update(risk=result.risk, risk_low=low, risk_high=high,
                       advantage=result.advantage)
        rows.append(row)
    return rows


def _key_sets(key_pool: Sequence[str], target: str, key_length: int) -> list[tuple[str, ...]]:
    pool = [k for k in key_pool if k != target]
    sets = list(itertools.combinations(pool, key_length))
    if not sets:
        raise CapkitError(
            f"no key combinations: key_length={key_length} but key_pool has only {len(pool)} "
            f"columns other than the target {target!r}")
    return sets


def baseline_table(
    original: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    key_pool: Sequence[str],
    targets: str | Sequence[str],
    *,
    key_length: int = 3,
    attackers: Sequence[str | BaseEstimator | Attacker] | None = None,
    dummy: bool = True,
    row_orders: Sequence[int] | None = None,
    holdout: pd.DataFrame | None = None,
    seed: int = 0,
    tolerance: float = 0.05,
    confidence: float = 0.95,
    progress: bool = True,
    check_overlap: bool = True,
    allow_disjoint_levels: bool = False,
    kinds: Mapping[str, str] | None = None,
    records: dict | None = None,
) -> pd.DataFrame:
    """Every attacker on every key combination: the paper's baseline, as a tidy table.

    Parameters
    ----------
    original
        The members (the records the synthetic data was made from). Not modified.
    synthetic
        The synthetic data, or a list of m syntheses of the same members (each attacked on its
        own; column ``synthesis`` numbers them 1..m). Not modified.
    key_pool
        Quasi-identifiers the intruder may know; every combination of ``key_length`` of them
        (the target left out) is one attack.
    targets
        One or more target columns (each categorical or numeric by its dtype).
    key_length
        Number of keys the intruder knows.
    attackers
        Names (see :mod:`capkit.attacks.attackers`), scikit-learn estimators or specifications;
        each is run trained on the synthetic data and trained on the original data. A name
        without a variant for a target's kind (``"nb"`` for a numeric target, ``"mlp"`` for a
        categorical one) is skipped for that target. Default:
        :data:`capkit.attacks.attackers.DEFAULT_ATTACKERS` of the target's kind. The dummy
        predictor is added unless ``dummy=False``.
    dummy
        Add the dummy predictor's rows (``trained_on="dummy"``, fitted on the synthetic data):
        the paper's lower bound. ``False`` leaves them out and does not fit it; every other row
        is the same.
    row_orders
        Attack the data with its rows reordered, once per seed in ``row_orders``: the original
        and every synthesis as ``frame.sample(frac=1.0, random_state=seed)`` (the holdout as
        given). The table then starts with a column ``row_order`` (the seed), and its rows for
        one seed are those of ``baseline_table`` on the reordered frames. Only attackers that
        break ties by row position (``"nn"``) can depend on it. Each grid is counted once and
        its record cells reordered per seed where the row order cannot change the codes
        (:func:`capkit.attacks.grid.order_free`), else counted again per seed.
    holdout
        Records not used for the synthesis: every attack is scored on them too.
    seed, tolerance, confidence
        As :func:`capkit.attacks.attribute.attribute_attack` (each row equals that call with
        the same arguments).
    progress
        A tqdm progress bar over (target, key combination, synthesis).
    check_overlap
        Warn (once) when the holdout shares more records with the original than chance
        predicts (:func:`capkit.data.overlap.check_holdout`).
    allow_disjoint_levels
        As :func:`capkit.attacks.attribute.attribute_attack`.
    kinds
        ``{target: "numeric" | "categorical"}`` for targets whose kind should not be the
        automatic one (``kind`` of :func:`capkit.attacks.attribute.attribute_attack`: a numeric
        target with at most 20 distinct values is a category).
    records
        A dict to keep the per-record outcomes in: each attack trained on the synthetic data
        puts its :attr:`~capkit.attacks.attribute.AttackResult.records` (members and holdout,
        by row position) under ``(synthesis number, keys, target, attacker name)``.

    Returns
    -------
    pandas.DataFrame
        One row per (synthesis, keys, target, attacker, trained_on in {synthetic, original,
        dummy}, scored_on in {members, holdout}) with ``n``, ``correct``, ``rate``, ``coverage`` and
        the kind's scores (``accuracy``, ``macro_f1``; ``within_tolerance``, ``mae``, ``r2``);
        the members' rows with a holdout also ``risk``, ``risk_low``, ``risk_high`` and
        ``advantage`` (no ``dummy`` rows with ``dummy=False``). ``keys`` joins the key names
        with ``" + "``. The upper bound (``trained_on="original"``) does not depend on the
        synthesis: its rows come once per key set, with ``synthesis`` NaN.

    Raises
    ------
    CapkitError
        No key combination (``key_length`` larger than the pool), a bad ``key_length``,
        ``dummy`` or ``row_orders`` (or ``row_orders`` with ``records``), and
        every error of :func:`capkit.attacks.attribute.attribute_attack`.
    """
    target_list = as_list(targets, "targets")
    pool = as_list(key_pool, "key_pool")
    if isinstance(key_length, bool) or not isinstance(key_length, int | np.integer) or \
            key_length < 1:
        raise CapkitError(f"key_length must be a positive integer, got {key_length!r}")
    if attackers is not None and not list(attackers):
        raise CapkitError("attackers is empty: give at least one attacker")
    if not isinstance(dummy, bool | np.bool_):
        raise CapkitError(f"dummy must be True or False, got {dummy!r}")
    orders = _check_row_orders(row_orders, records)
    tolerance = check_tolerance(tolerance)
    syntheses = [synthetic] if isinstance(synthetic, pd.DataFrame) else list(synthetic)
    if not syntheses:
        raise CapkitError("synthetic is an empty list: give at least one synthetic data set")
    plan = [(t, keys, j) for t in target_list for keys in _key_sets(pool, t, int(key_length))
            for j in range(len(syntheses))]
    rows: list[dict[str, object]] = []
    checked: list[set[str]] = [set() for _ in syntheses]  # keys checked against synthesis j
    for target, keys, j in tqdm(plan, desc="baseline attacks", disable=not progress):
        grid = prepare(original, syntheses[j], list(keys), target, holdout=holdout,
                       kind=(kinds or {}).get(target, "auto"),
                       check_overlap=check_overlap and not rows,  # warn once, on the first
                       allow_disjoint_levels=allow_disjoint_levels, checked=checked[j])
        if orders is None:
            rows += _grid_rows(grid, keys, j, attackers, dummy, seed, tolerance, confidence,
                               records)
            continue
        free = order_free([original, syntheses[j]], [*keys, target])
        for order in orders:
            positions = [_positions(len(f), order) for f in (original, syntheses[j])]
            shuffled = grid.reordered(*positions) if free else prepare(
                original.iloc[positions[0]], syntheses[j].iloc[positions[1]], list(keys), target,
                holdout=holdout, kind=grid.kind, check_overlap=False,
                allow_disjoint_levels=allow_disjoint_levels)
            rows += [{"row_order": order, **row} for row in _grid_rows(
                shuffled, keys, j, attackers, dummy, seed, tolerance, confidence, None)]
    table = pd.DataFrame(rows)
    extra = [c for c in ("risk", "risk_low", "risk_high", "advantage") if c in table.columns]
    order = ["row_order"] if orders is not None else []
    order += ["synthesis", "keys", "target", "kind", "attacker", "trained_on", "scored_on", "n",
              "correct", *[s for s in SCORES if s in table.columns], *extra]
    return table[order]


def _check_row_orders(row_orders: Sequence[int] | None, records: dict | None
                      ) -> list[int] | None:
    if row_orders is None:
        return None
    if isinstance(row_orders, str | bytes) or not hasattr(row_orders, "__iter__"):
        raise CapkitError(f"row_orders must be a list of seeds (integers >= 0), got "
                          f"{row_orders!r}")
    orders = list(row_orders)
    if not orders or any(isinstance(o, bool) or not isinstance(o, int | np.integer) or o < 0
                         for o in orders):
        raise CapkitError(f"row_orders must be a non-empty list of seeds (integers >= 0), got "
                          f"{row_orders!r}")
    if records is not None:
        raise CapkitError("records cannot be kept with row_orders (one attack per seed)")
    return [int(o) for o in orders]


def _positions(n: int, seed: int) -> np.ndarray:
    """The row positions ``frame.sample(frac=1.0, random_state=seed)`` takes from a frame of
    ``n`` rows (they depend on ``n`` and the seed alone)."""
    return pd.RangeIndex(n).to_series().sample(frac=1.0, random_state=seed).to_numpy()


def _grid_rows(grid: Grid, keys: tuple[str, ...], j: int,
               attackers: Sequence[str | BaseEstimator | Attacker] | None, dummy: bool,
               seed: int, tolerance: float, confidence: float, records: dict | None
               ) -> list[dict[str, object]]:
    """The table's rows of one grid (synthesis j + 1; the upper bound with the first)."""
    rows: list[dict[str, object]] = []
    target = grid.target
    label = " + ".join(keys)
    options = {"seed": seed, "tolerance": tolerance, "confidence": confidence,
               "cache": {}}
    chosen = DEFAULT_ATTACKERS[grid.kind] if attackers is None else [
        a for a in attackers if not isinstance(a, str) or a in REGISTRY[grid.kind]]
    for trained_on in ("synthetic", "original") if j == 0 else ("synthetic",):
        for attacker in chosen:
            result = run_attack(grid, attacker, trained_on=trained_on, **options,
                                keep_records=records is not None
                                and trained_on == "synthetic")
            if records is not None and trained_on == "synthetic":
                records[(j + 1, label, target, result.attacker)] = result.records
            rows += _rows(result, trained_on, label,
                          j + 1.0 if trained_on == "synthetic" else float("nan"))
    if dummy:
        rows += _rows(run_attack(grid, "dummy", **options, keep_records=False), "dummy",
                      label, j + 1.0)
    return rows


def baseline_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation over the key combinations (and syntheses), as the paper
    reports them.

    Parameters
    ----------
    table
        The result of :func:`baseline_table`.

    Returns
    -------
    pandas.DataFrame
        One row per (target, attacker, trained_on, scored_on), in the table's order; columns
        ``rows`` (key sets x syntheses averaged) and ``<score> mean`` / ``<score> std`` (sample
        standard deviation) for each score column present (risk and advantage included).
    """
    by = ["target", "attacker", "trained_on", "scored_on"]
    missing = [c for c in by if c not in table.columns]
    if missing:
        raise CapkitError(f"table lacks columns {missing}; pass the result of baseline_table")
    scores = [c for c in (*SCORES, "risk", "advantage") if c in table.columns]
    grouped = table.groupby(by, sort=False)[scores]
    means, stds = grouped.mean(), grouped.std()
    out = pd.DataFrame({"rows": table.groupby(by, sort=False).size()})
    for score in scores:
        out[f"{score} mean"] = means[score]
        out[f"{score} std"] = stds[score]
    return out.dropna(axis=1, how="all")


__all__ = ["SCORES", "baseline_summary", "baseline_table"]
