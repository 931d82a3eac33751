"""The inputs of an attribute attack, checked and counted once on one aligned grid.

An attack of Hittmeir, Mayer & Ekelhart (2020) trains on one group of records (the synthetic
data, or the original data for the upper bound) and predicts another (the members, and the
holdout of the membership control). Every attacker's prediction depends on a record's keys only,
so all of them are computed once per **key combination**, never per record: one
:func:`capkit.counts.tables.crosstab` of members, synthetic data and holdout gives the key
combinations (columns), target levels (rows), the counts of each group and each record's cell.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.attacks.gcap import key_parts
from capkit.counts.encode import (
    as_list,
    check_levels,
    factorize_pair,
    kind_of_series,
    validate_frames,
)
from capkit.counts.tables import KeyTargetTable, Table, crosstab
from capkit.data.align import column_difference
from capkit.data.labels import is_coded_category, is_numeric
from capkit.data.overlap import record_overlap
from capkit.errors import CapkitError, CapkitWarning, ContinuousTargetWarning

#: Groups of records an attack trains on or scores.
GROUPS = ("synthetic", "members", "holdout")
KINDS = ("auto", "categorical", "numeric")


@dataclass(frozen=True)
class Grid:
    """Members, synthetic data and holdout counted on one target x key-combination grid.

    Attributes
    ----------
    table
        The crosstab (``original`` = members, ``synthetic``, ``holdout`` or None).
    keys, target
        Column names.
    kind
        ``"categorical"`` or ``"numeric"`` (the target's).
    numeric_keys
        Per key column, whether it is numeric.
    parts
        (J, p) per-column level codes of the key combinations (missing = a level).
    values
        For a numeric target, the value of each target row (NaN for the missing level); else
        None.
    """

    table: KeyTargetTable
    keys: tuple[str, ...]
    target: str
    kind: str
    numeric_keys: tuple[bool, ...]
    parts: np.ndarray
    values: np.ndarray | None

    @property
    def has_holdout(self) -> bool:
        """Whether a holdout (the membership control) was given."""
        return self.table.holdout is not None

    def counts(self, group: str) -> Table:
        """(I, J) counts of ``group`` ("synthetic", "members" or "holdout")."""
        return {"synthetic": self.table.synthetic, "members": self.table.original,
                "holdout": self.table.holdout}[group]

    def cells(self, group: str) -> np.ndarray:
        """(n, 2) target row and key column of each record of ``group``, in row order."""
        return {"synthetic": self.table.synthetic_record_cell,
                "members": self.table.record_cell,
                "holdout": self.table.holdout_record_cell}[group]

    @property
    def target_labels(self) -> np.ndarray:
        """What each target row stands for: its number (numeric target) or its label."""
        if self.values is not None:
            return self.values
        return np.asarray(self.table.targets.to_flat_index(), dtype=object)

    def key_values(self, column: int, combos: np.ndarray) -> np.ndarray:
        """Values of key ``column`` for the key combinations ``combos`` (NaN where missing)."""
        return np.asarray(self.table.keys.get_level_values(column)[combos])

    def candidates(self, group: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The cells of ``group``'s records with a known target, its distinct key combinations
        in the order of their first such record, and that record's position among them (so a
        lowest-position rule over combinations picks the lowest record)."""
        cells = self.cells(group)[self.known(group)]
        combos, first = np.unique(cells[:, 1], return_index=True)
        order = np.argsort(first, kind="stable")
        return cells, combos[order], first[order]

    def key_frame(self, combos: np.ndarray) -> pd.DataFrame:
        """The key values of the key combinations ``combos``: numbers as floats (NaN where
        missing), other keys as categorical codes (a missing value is a level of its own)."""
        return pd.DataFrame({
            name: (self.key_values(c, combos).astype(np.float64) if self.numeric_keys[c]
                   else pd.Categorical(self.parts[combos, c]))
            for c, name in enumerate(self.keys)})

    def reordered(self, members: np.ndarray, synthetic: np.ndarray) -> Grid:
        """The grid of the same frames with their rows taken in the orders ``members`` and
        ``synthetic`` (positions, as ``frame.iloc[order]``): the record cells reordered, every
        count, level and key combination kept. That is :func:`prepare`'s grid of the reordered
        frames when :func:`order_free` holds for them (the caller checks)."""
        t = self.table
        table = KeyTargetTable(t.original, t.synthetic, t.targets, t.keys,
                               t.record_cell[members], t.synthetic_record_cell[synthetic],
                               t.holdout, t.holdout_record_cell)
        return dataclasses.replace(self, table=table)

    def known(self, group: str) -> np.ndarray:
        """Boolean mask of the records of ``group`` whose target can be scored or learned
        from: all of them for a categorical target (missing is a level), those with a value for
        a numeric one."""
        rows = self.cells(group)[:, 0]
        if self.values is None:
            return np.ones(len(rows), dtype=bool)
        return ~np.isnan(self.values[rows])


def order_free(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> bool:
    """Whether :func:`prepare` codes ``columns`` of ``frames`` the same for any order of each
    frame's rows, so that reordering rows only reorders the record cells (:meth:`Grid.reordered`).

    True when each column is, in every frame, of a categorical dtype (its levels are the
    declared categories), or of a numpy number or boolean dtype, or text (its levels are the
    sorted values, missing last): :func:`capkit.counts.encode.factorize_many`. Key
    combinations are then lexicographic in the level codes
    (:func:`capkit.counts.encode.combine_codes`), whatever the row order. Other columns (e.g.
    mixed values that cannot be sorted, coded in order of appearance) give False.
    """
    for column in columns:
        series = [frame[column] for frame in frames]
        if all(isinstance(x.dtype, pd.CategoricalDtype) for x in series):
            continue
        if all(isinstance(x.dtype, np.dtype) and x.dtype.kind in "biuf" for x in series):
            continue
        if all(pd.api.types.infer_dtype(x, skipna=True) in ("string", "empty")
               and not isinstance(x.dtype, pd.CategoricalDtype) for x in series):
            continue
        return False
    return True


def _check_holdout(original: pd.DataFrame, holdout: object, columns: list[str],
                   check_overlap: bool) -> None:
    if not isinstance(holdout, pd.DataFrame):
        raise CapkitError(f"holdout must be a pandas DataFrame, got {type(holdout).__name__}")
    missing, extra = column_difference(original, holdout)
    if missing or extra:
        raise CapkitError(
            "holdout must have the columns of the original data (records of the same data set "
            f"that were not used for the synthesis): missing from holdout {missing}, only in "
            f"holdout {extra}")
    for column in columns:
        if kind_of_series(original[column]) != kind_of_series(holdout[column]) or (
                is_numeric(original[column]) != is_numeric(holdout[column])):
            raise CapkitError(
                f"holdout column {column!r} has type {holdout[column].dtype} but the original "
                f"data has {original[column].dtype}; convert one of them first")
    if check_overlap:  # the one test every command uses (capkit.data.overlap)
        overlap = record_overlap(original, holdout, other_name="holdout")
        if overlap.excess:
            warnings.warn(
                f"{overlap.holds_members_text('the holdout')}. Here the holdout is used as "
                "given; capkit.data.overlap.check_holdout(original, holdout).holdout is the "
                "part that is a real holdout (the commands and capkit.audit use it), and "
                "check_overlap=False silences this warning", CapkitWarning, stacklevel=4)


def _check_coding(original: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                  target: str, allow_disjoint_levels: bool,
                  checked: set[str] | None = None) -> None:
    """The level rule of :func:`capkit.counts.encode.check_levels` for the categorical keys and
    target: a column coded differently in the two frames would make every attacker miss and
    report no risk. Numeric columns are exempt: the attacks compare numeric keys by distance
    and score a numeric target with a tolerance, so their values need not match exactly."""
    for column, role in [*((k, "key") for k in keys), (target, "target")]:
        if is_numeric(original[column]) or (role == "key" and checked is not None
                                            and column in checked):
            continue
        codes_o, codes_s, levels = factorize_pair(original[column], synthetic[column])
        size = len(levels)
        check_levels(column, role, levels, np.bincount(codes_o, minlength=size),
                     [np.bincount(codes_s, minlength=size)], missing=np.asarray(pd.isna(levels)),
                     allow_disjoint_levels=allow_disjoint_levels)
        if role == "key" and checked is not None:  # a key's check neither warns nor changes
            checked.add(column)


def prepare(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: str | Sequence[str],
    target: str,
    *,
    holdout: pd.DataFrame | None = None,
    kind: str = "auto",
    check_overlap: bool = True,
    allow_disjoint_levels: bool = False,
    checked: set[str] | None = None,
) -> Grid:
    """Check the inputs of an attack and count them on one grid.

    Parameters
    ----------
    original
        The members: the records the synthetic data was made from. Not modified.
    synthetic
        The synthetic data. Not modified.
    keys
        The columns the intruder knows.
    target
        The one column the intruder predicts.
    holdout
        Records of the same population that were not used for the synthesis (the membership
        control), with the original's columns; a warning when some of its rows also occur
        among the original records.
    kind
        ``"auto"`` (a numeric, non-boolean target with more than
        :data:`capkit.data.labels.CATEGORY_LEVELS` distinct values in the original is numeric;
        one with fewer is a category stored as numbers), ``"categorical"`` or
        ``"numeric"``.
    check_overlap
        Warn when the holdout shares records with the original beyond chance
        (:func:`capkit.data.overlap.check_holdout`).
    allow_disjoint_levels
        Attack even when a categorical key or target barely shares levels between original and
        synthetic data (by default a :class:`capkit.errors.DisjointLevelsError`: the two are
        probably coded differently, and every attacker would miss).
    checked
        Key columns whose levels were already checked against this same pair of original and
        synthetic frames (skipped); the keys checked here are added. Several grids on one pair
        (:func:`capkit.attacks.baseline.baseline_table`) check each key once.

    Raises
    ------
    CapkitError
        Naming the argument: empty or duplicated keys, a target that is a key or not a single
        column, missing columns, a column numeric in one frame and text in another, a holdout
        with other columns or types, an unknown ``kind``, a numeric kind for a text target.
    """
    key_cols = as_list(keys, "keys")
    if not isinstance(target, str):
        raise CapkitError(f"target must be one column name, got {target!r}")
    if target in key_cols:
        raise CapkitError(f"target {target!r} is also among the keys; a target cannot be a key")
    if kind not in KINDS:
        raise CapkitError(f"kind must be one of {KINDS}, got {kind!r}")
    validate_frames(original, synthetic, key_cols, [target])
    if holdout is not None:
        _check_holdout(original, holdout, [*key_cols, target], check_overlap)
        validate_frames(original, holdout, key_cols, [target], ("original", "holdout"))
    if kind == "auto":  # a few numeric codes are a category (capkit.data.labels)
        kind = "numeric" if is_numeric(original[target]) and not is_coded_category(
            original[target]) else "categorical"
    if kind == "numeric" and not is_numeric(original[target]):
        raise CapkitError(f"target {target!r} is not numeric; use kind='categorical'")
    _check_coding(original, synthetic, key_cols, target, allow_disjoint_levels, checked)
    with warnings.catch_warnings():  # checked above, column by column
        warnings.simplefilter("ignore", ContinuousTargetWarning)
        table = crosstab(original, synthetic, key_cols, target, holdout=holdout,
                         allow_disjoint_levels=True)
    values = None
    if kind == "numeric":
        values = pd.to_numeric(pd.Series(table.targets), errors="coerce").to_numpy(np.float64)
    numeric_keys = tuple(is_numeric(original[c]) for c in key_cols)
    return Grid(table, tuple(key_cols), target, kind, numeric_keys, key_parts(table.keys),
                values)


__all__ = ["GROUPS", "Grid", "order_free", "prepare"]
