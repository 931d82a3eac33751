"""Which known columns disclose most: DiSCO over every combination of k keys from a pool.

Raab, Nowok & Dibben ("Practical privacy metrics for synthetic data", 2024, Section 2 and
Appendix) define DiSCO, the percentage of original records whose target an intruder who knows
the keys reads correctly from the synthetic data (the keys' synthetic records all share one
target value, and it is the record's own), and Dorig, the same reading from the original data
itself (the record's key has one target value in the original). NIST's SDNist (``sdnist/metrics/
disco.py``, ``KDiscoEvaluator.compute_k_disco``) turns them into a worst-case view over what an
intruder may know: for each target, every combination of k other columns as keys, DiSCO - DiO
(DiO = Dorig); its heatmap averages, for each key column and target, DiSCO - DiO over the
combinations that contain the key.

:func:`sweep` computes that view on capkit's counting layer: each column is coded once
(:mod:`capkit.counts.combinations`), each key combination once, and each (combination, target)
pair is two ``ufunc.at`` passes per frame. DiSCO and Dorig use the rule of synthpop's cell
tables (:func:`capkit.disclosure.measures.cell_tables`: a cell (t, q) is disclosive when the
key q's records all have target t), read per key rather than per cell, and equal
``disclosure(synthetic, original, keys, target)``'s with its default options (tested). With a
holdout (records not used for the synthesis) the holdout's DiSCO is computed on the same
synthetic cells and compared with the members' (:func:`capkit.control.compare_to_control`).

Differences from SDNist (see ``docs/sweep-and-sdc.md``): numbers are in percent (SDNist: a
fraction); a missing value is a level of its own (SDNist's ``nunique`` ignores it, so a key whose
synthetic records are {a, missing} counts as disclosing a); combinations are coded exactly (SDNist
joins the values' text with ``-``, so ``("a-b", "c")`` and ``("a", "b-c")`` are one key); the
pool of keys and the targets are given (SDNist: every column but the stable identifiers is a
target and a key).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from capkit.control import compare_to_control
from capkit.counts.combinations import CodedFrames, code_frames
from capkit.errors import CapkitError, CapkitWarning

__all__ = ["MAX_PAIRS", "SweepResult", "sweep"]

#: More (combination, target) pairs than this is refused (``max_pairs``): say so rather than
#: count for minutes (Adult's 8 keys x 10 targets at k = 2, 3 is about 500 pairs).
MAX_PAIRS = 20_000

#: Joins the names of a combination's keys in tables and plots.
KEY_SEP = " + "


@dataclass
class SweepResult:
    """DiSCO, Dorig and the holdout's DiSCO of every (key combination, target).

    Attributes
    ----------
    table
        One row per (target, combination): ``target``, ``keys`` (the key names joined by
        ``" + "``), ``k`` (number of keys, fixed ones included), ``DiSCO``, ``Dorig`` and
        ``excess`` = DiSCO -
        Dorig (percent of the original records, as synthpop prints them), ``identifying``
        (every original record is alone on these keys); with a holdout also
        ``holdout DiSCO``, ``advantage`` (DiSCO - holdout DiSCO, points), ``risk``,
        ``risk low``, ``risk high`` (percent: the members-vs-holdout risk and its interval).
    pool, targets, sizes
        What was swept (``pool`` starts with the fixed keys, if any; ``sizes`` count the keys
        chosen from the pool).
    n_original, n_holdout
        Records of the original and of the holdout (None without one).
    identifying
        The combinations (key tuples) on which every original record is unique.
    """

    table: pd.DataFrame
    pool: list[str]
    targets: list[str]
    sizes: list[int]
    n_original: int
    n_holdout: int | None = None
    identifying: list[tuple[str, ...]] = field(default_factory=list)

    def worst(self, n: int = 10, by: str = "excess") -> pd.DataFrame:
        """The ``n`` rows with the largest ``by`` (``"excess"``, ``"DiSCO"``, ``"risk"`` ...),
        ties broken by target, then keys (alphabetically), so the order never depends on the
        machine."""
        if by not in self.table.columns:
            raise CapkitError(f"by must be one of {list(self.table.columns[3:])}, got {by!r}")
        ordered = self.table.sort_values([by, "target", "keys"], ascending=[False, True, True],
                                         kind="mergesort", na_position="last")
        return ordered.head(n).reset_index(drop=True)

    def worst_per_target(self, by: str = "excess") -> pd.DataFrame:
        """For each target its worst combination (the first of :meth:`worst` per target)."""
        ordered = self.worst(len(self.table), by)
        return ordered.drop_duplicates("target").reset_index(drop=True)

    def describe(self, n: int = 3, by: str = "excess") -> list[str]:
        """The ``n`` worst combinations in words, one sentence each (what a report prints)."""
        sentences = []
        for row in self.worst(n, by).to_dict("records"):
            text = (f"knowing {row['keys']}, an intruder reads {row['target']} correctly from "
                    f"the synthetic data for {row['DiSCO']:.2f}% of the original records "
                    f"(DiSCO), {row['excess']:+.2f} points against the {row['Dorig']:.2f}% the "
                    "original itself discloses on these keys (Dorig)")
            if "holdout DiSCO" in row:
                text += (f"; {row['holdout DiSCO']:.2f}% of the holdout's records (risk "
                         f"{row['risk']:.1f}%, {row['risk low']:.1f}-{row['risk high']:.1f}%)")
            sentences.append(text)
        return sentences

    def key_target(self, value: str = "excess", aggregate: str = "mean") -> pd.DataFrame:
        """Key x target matrix: for each key of the pool and each target, ``aggregate``
        (``"mean"``: SDNist's heatmap; ``"max"``: the worst case) of ``value`` over the
        combinations that contain the key. NaN where the key is the target."""
        if aggregate not in ("mean", "max"):
            raise CapkitError(f"aggregate must be 'mean' or 'max', got {aggregate!r}")
        if value not in self.table.columns:
            raise CapkitError(f"value must be a column of the table, got {value!r}")
        parts = self.table["keys"].str.split(KEY_SEP, regex=False)
        long = self.table[["target", value]].assign(key=parts).explode("key")
        grouped = long.groupby(["key", "target"], sort=False)[value]
        matrix = (grouped.mean() if aggregate == "mean" else grouped.max()).unstack("target")
        return matrix.reindex(index=self.pool, columns=self.targets).astype(float)


def _check_names(names: Sequence[str], argument: str) -> list[str]:
    if isinstance(names, str):
        names = [names]
    out = list(names)
    if not out:
        raise CapkitError(f"{argument} is empty: give at least one column name")
    if len(set(out)) != len(out):
        raise CapkitError(f"{argument} names a column twice: {out}")
    return out


def _check_sizes(sizes: int | Sequence[int], pool: list[str]) -> list[int]:
    """The distinct sizes, sorted; sizes larger than the pool are left out (an error when none
    is left)."""
    values = [sizes] if isinstance(sizes, int) else list(sizes)
    if not values:
        raise CapkitError("sizes is empty: give the numbers of keys, e.g. (2, 3)")
    for k in values:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise CapkitError(f"sizes must be positive whole numbers, got {k!r}")
    kept = sorted({int(k) for k in values if k <= len(pool)})
    if not kept:
        raise CapkitError(f"sizes {sorted(values)}: so many keys cannot be chosen from a pool "
                          f"of {len(pool)} columns {pool}")
    return kept


def _check_identifiers(coded: CodedFrames, pool: list[str], n: int) -> None:
    """A pool column with a different value on every original record is an identifier."""
    if n < 2:
        return
    ids = [c for c in pool if coded.distinct(c) == n]
    if ids:
        raise CapkitError(
            f"key column(s) {ids} take a different value on every one of the {n} original "
            "records: each is an identifier, so every combination containing it makes every "
            "record unique and its DiSCO is only a matter of the synthetic data copying it. "
            "Leave identifiers out of the pool (or group the column first)")


def _pairs(pool: list[str], targets: list[str], sizes: list[int], fixed: list[str]
           ) -> list[tuple[tuple[str, ...], list[str]]]:
    """Each combination once (the fixed keys, then k of the pool), with the targets it is
    measured for (a key is never the target)."""
    out = []
    for k in sizes:
        for chosen in itertools.combinations(pool, k):
            combo = (*fixed, *chosen)
            measured = [t for t in targets if t not in combo]
            if measured:
                out.append((combo, measured))
    return out


def sweep(
    synthetic: pd.DataFrame,
    original: pd.DataFrame,
    pool: Sequence[str],
    targets: Sequence[str] | None = None,
    *,
    sizes: int | Sequence[int] = (2, 3),
    holdout: pd.DataFrame | None = None,
    fixed: Sequence[str] = (),
    confidence: float = 0.95,
    allow_disjoint_levels: bool = False,
    max_pairs: int = MAX_PAIRS,
) -> SweepResult:
    """DiSCO - Dorig for every combination of k keys from ``pool`` and every target.

    Parameters
    ----------
    synthetic, original
        The synthetic data and the original it was made from (pandas DataFrames; neither is
        modified).
    pool
        The columns an intruder may know (the quasi-identifiers).
    targets
        The columns whose disclosure is measured; default every column of ``original``. A
        target in the pool is measured with the combinations that leave it out.
    sizes
        Numbers of keys per combination (default 2 and 3); sizes larger than the pool are left
        out.
    holdout
        Records of the same population not used for the synthesis: their DiSCO on the same
        synthetic data is the control (:func:`capkit.control.compare_to_control`).
    fixed
        Keys known in every combination (SDNist's "stable identifiers"), added to the k keys
        chosen from the pool; a fixed key is not a target.
    confidence
        Confidence level of the risk's interval.
    allow_disjoint_levels
        As in :func:`capkit.disclosure.disclosure`.
    max_pairs
        Refuse a sweep of more (combination, target) pairs than this.

    Returns
    -------
    SweepResult
        ``DiSCO`` and ``Dorig`` of a row equal ``disclosure(synthetic, original, keys,
        target)``'s (default options: no exclusion, no grouping; a missing value is a level).

    Raises
    ------
    CapkitError
        A pool column that is an identifier (a different value on every original record), a
        sweep larger than ``max_pairs``, sizes larger than the pool, a missing column, a column
        whose levels barely overlap (see ``allow_disjoint_levels``).

    Warns
    -----
    CapkitWarning
        Combinations on which every original record is unique (listed in ``identifying``).
    ContinuousTargetWarning
        Once per numeric target with many values (matched by exact value, as in
        ``disclosure``).
    """
    pool = _check_names(pool, "pool")
    fixed = [] if isinstance(fixed, tuple | list) and not fixed else _check_names(fixed, "fixed")
    both = [c for c in fixed if c in pool]
    if both:
        raise CapkitError(f"column(s) {both} are both fixed and in the pool; a fixed key is in "
                          "every combination already")
    if targets is None:
        if not isinstance(original, pd.DataFrame):
            raise CapkitError(f"original data must be a pandas DataFrame, got "
                              f"{type(original).__name__}")
        targets = [str(c) for c in original.columns if c not in fixed]
    targets = _check_names(targets, "targets")
    ks = _check_sizes(sizes, pool)
    pairs = _pairs(pool, targets, ks, fixed)
    n_pairs = sum(len(measured) for _, measured in pairs)
    if n_pairs == 0:
        raise CapkitError("nothing to sweep: every target is in every combination")
    if n_pairs > max_pairs:
        n_combos = sum(math.comb(len(pool), k) for k in ks)
        raise CapkitError(
            f"the sweep has {n_pairs} (combination, target) pairs ({n_combos} combinations of "
            f"{ks} keys from {len(pool)} columns, {len(targets)} targets), more than max_pairs="
            f"{max_pairs}: give a smaller pool, fewer targets or smaller sizes, or raise "
            "max_pairs")
    frames = [original, synthetic] + ([holdout] if holdout is not None else [])
    if holdout is not None and isinstance(holdout, pd.DataFrame) and isinstance(
            original, pd.DataFrame):
        missing = [c for c in dict.fromkeys(fixed + pool + targets)
                   if c not in holdout.columns]
        if missing:
            raise CapkitError(f"holdout data lacks column(s) {missing} of the sweep")
    roles = {c: "key" for c in fixed + pool}
    roles.update({t: "target" for t in targets if t not in roles})
    coded = code_frames(frames, roles, allow_disjoint_levels=allow_disjoint_levels)
    for t in targets:  # a pool column that is also a target is checked as a target too
        if t in pool:
            code_frames(frames, {t: "target"}, allow_disjoint_levels=True)
    n_orig = coded.sizes[0]
    _check_identifiers(coded, fixed + pool, n_orig)
    n_hold = coded.sizes[2] if holdout is not None else None

    rows: list[dict[str, object]] = []
    identifying: list[tuple[str, ...]] = []
    for combo, measured in pairs:
        key_codes, n_comb = coded.combination(combo)
        per_key = np.bincount(key_codes[0], minlength=n_comb)
        is_identifying = n_orig > 1 and int(np.count_nonzero(per_key == 1)) == n_orig
        if is_identifying:
            identifying.append(combo)
        for target in measured:
            # synthpop's DiSCO cells (measures.cell_tables: s_tq = s_.q > 0) read per key: the
            # synthetic records of key q all have target t; DiSCO counts the original records
            # of such a key with that target, Dorig the records whose key has one target in the
            # original itself (d_tq = d_.q > 0).
            disclosive = coded.single_target(key_codes, n_comb, target, 1)
            disco = coded.agreeing(key_codes, disclosive, target, 0)
            dorig = coded.agreeing(key_codes, coded.single_target(key_codes, n_comb, target, 0),
                                   target, 0)
            row: dict[str, object] = {
                "target": target, "keys": KEY_SEP.join(combo), "k": len(combo),
                "DiSCO": 100 * disco / n_orig, "Dorig": 100 * dorig / n_orig,
                "excess": 100 * (disco - dorig) / n_orig, "identifying": is_identifying,
            }
            if n_hold is not None:
                k_hold = coded.agreeing(key_codes, disclosive, target, 2)
                comparison = compare_to_control(disco, n_orig, k_hold, n_hold,
                                                confidence=confidence, warn=False)
                low, high = comparison.risk_ci
                row.update({"holdout DiSCO": 100 * k_hold / n_hold,
                            "advantage": 100 * comparison.advantage,
                            "risk": 100 * comparison.risk, "risk low": 100 * low,
                            "risk high": 100 * high})
            rows.append(row)
    if identifying:
        shown = ", ".join(KEY_SEP.join(c) for c in identifying[:5])
        more = f" and {len(identifying) - 5} more" if len(identifying) > 5 else ""
        warnings.warn(CapkitWarning(
            f"{len(identifying)} key combination(s) make every original record unique ({shown}"
            f"{more}): on them the keys act as an identifier (column 'identifying')"),
            stacklevel=2)
    return SweepResult(pd.DataFrame(rows), fixed + pool, targets, ks, n_orig, n_hold,
                       identifying)
