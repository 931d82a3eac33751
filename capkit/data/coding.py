"""Do two files code a column the same way? Checked in both directions, column by column.

Exact-match measures (synthpop's repU and DiSCO, CAP, exact copies, the count attackers) find
a record's value in the other file or find nothing. A column coded differently in the two files
makes them find less, and report less risk, without an error: a key shifted by one (0-3 in the
synthetic file, 1-4 in the original) still lets 90% of the original records find their value;
minority levels lower-cased in a synthesis, a number written with a decimal (31.4) where the
original has seven codes. The level guard of :mod:`capkit.counts.encode` only refuses a column
when fewer than half of the original records find their value; this check looks the other way
too:

* the share of **synthetic** records whose value never occurs in the original: a synthesiser
  that learns from the original draws its categories from the original's levels, so more than
  :data:`NEW_VALUES` of them is a coding difference, not noise (a whole number inside the range
  of an original of whole-number codes is not counted: a synthesiser that treats the codes as
  numbers fills the gaps between them, as SDV's GaussianCopula does on sparse pixel counts,
  and the exact-match measures rightly find no member there);
* the share of original records whose value the synthesis lacks (reported beside it: a small
  synthesis lacks rare levels by chance, so it is not a rule on its own).

* for numeric codes, whether the synthesis's distribution of values matches the original's
  far better once shifted by one (0-16 written 1-17): a shift leaves most values inside the
  range, so the first share can stay small while exact-match measures find almost nothing.
  The rule: the total variation distance between the two distributions of values is at least
  :data:`SHIFT_MIN_DISTANCE` as they are, and at most :data:`SHIFT_RATIO` times that once the
  synthetic values are shifted by +1 or -1 (a faithful synthesis is closest unshifted; a
  smoothing synthesiser, SDV's GaussianCopula on digit pixels, came no closer than 0.37 times
  in the walk-through that set the ratio).

A numeric column with more than :data:`capkit.data.labels.CATEGORY_LEVELS` distinct values in
the original is continuous: new values are expected there, and the two shares are not checked.
Missing values are left out of both shares.

* **Every key, whatever its type**, is matched exactly on the combination of the keys, so a key
  shifted by one breaks those measures even when it is continuous (an age of 18-90 written
  19-91 in an exact copy) and its distribution of values barely moves (a smooth distribution
  shifted by one is nearly itself). For each numeric key the check counts the synthetic
  records whose **combination of keys** occurs in the original, as they are and with that key
  shifted by +1 or -1: the key is coded differently when at least :data:`SHIFT_MIN_DISTANCE` of
  the records find no combination as they are and a shift leaves at most :data:`SHIFT_RATIO`
  times as many without one (a faithful or smoothing synthesis finds its combinations best
  unshifted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.data.labels import is_coded_category, is_numeric

__all__ = ["NEW_VALUES", "SHIFT_MIN_DISTANCE", "SHIFT_RATIO", "Mismatch", "mismatches"]

#: Share of a synthesis's records holding values the original never has from which a column is
#: coded differently in the two files.
NEW_VALUES = 0.02

#: Total variation distance of the value distributions from which a shift by one is looked for.
SHIFT_MIN_DISTANCE = 0.1

#: A shift by one is a coding difference when it brings the distance down to this share of it.
SHIFT_RATIO = 0.25


@dataclass(frozen=True)
class Mismatch:
    """A column coded differently in the original and one synthesis.

    Attributes
    ----------
    column, name
        The column, and how messages name the synthesis.
    new_share
        Share of the synthesis's records (with a value) whose value never occurs in the
        original.
    lost_share
        Share of the original's records (with a value) whose value the synthesis lacks.
    examples
        A few of the synthesis's values the original never has.
    shift, distances
        For numeric codes shifted by one: the shift (+1 or -1) that brings the synthesis's
        values closest to the original's, and the total variation distances as they are and
        once shifted; 0 and () otherwise.
    """

    column: str
    name: str
    new_share: float
    lost_share: float
    examples: tuple[str, ...]
    shift: int = 0
    distances: tuple[float, ...] = ()
    #: what the distances compare: the distributions of the column's values, or the share of
    #: synthetic records whose combination of keys no original record has
    compared: str = "values"

    def text(self) -> str:
        """The mismatch in words, with what it does to the measures."""
        shown = ", ".join(self.examples)
        if self.shift and self.compared == "key combinations":
            return (f"key {self.column!r} is coded differently in {self.name}: the synthetic "
                    f"records' key combinations are the original's once it is shifted by "
                    f"{-self.shift:+d} ({100 * self.distances[1]:.1f}% of them found in no "
                    f"original record, against {100 * self.distances[0]:.1f}% as they are), "
                    "so every exact-match measure (repU, DiSCO, CAP, exact copies, the cap "
                    "attacker) finds less than is there; recode one file to the other's values")
        if self.shift:
            return (f"column {self.column!r} is coded differently in {self.name}: its values "
                    f"match the original's once shifted by {-self.shift:+d} (total variation "
                    f"distance {self.distances[1]:.2f}, against {self.distances[0]:.2f} as "
                    f"they are; {100 * self.lost_share:.1f}% of the original records hold "
                    "values it lacks), so every exact-match measure (repU, DiSCO, CAP, exact "
                    "copies, the cap attacker) finds less than is there; recode one file to the "
                    "other's values")
        return (f"column {self.column!r} is coded differently in {self.name}: "
                f"{100 * self.new_share:.1f}% of its records hold values the original never "
                f"has (e.g. {shown}) and {100 * self.lost_share:.1f}% of the original records "
                "hold values it lacks, so every exact-match measure (repU, DiSCO, CAP, exact "
                "copies, the cap attacker) finds less than is there; recode one file to the "
                "other's values")


def _shown(values: pd.Series) -> tuple[str, ...]:
    return tuple(repr(v) if isinstance(v, str) else f"{v:g}" if isinstance(v, float) else str(v)
                 for v in values.drop_duplicates().head(3))


def _inside_whole_range(original: pd.Series, synthetic: pd.Series) -> pd.Series:
    """Synthetic whole numbers within the range of an original of whole-number codes: values
    a synthesiser fills in between the codes it saw (0-13 where the original lacks 9), not a
    coding of its own (a shifted code leaves the range; 31.4 is not whole)."""
    inside = pd.Series(False, index=synthetic.index)
    if not (is_numeric(original) and is_numeric(synthetic)):
        return inside
    o = original.to_numpy(dtype=float)
    if not np.all(np.mod(o, 1) == 0):
        return inside
    v = synthetic.to_numpy(dtype=float)
    return pd.Series((np.mod(v, 1) == 0) & (v >= o.min()) & (v <= o.max()),
                     index=synthetic.index)


def _distance(original: pd.Series, synthetic: pd.Series) -> float:
    """Total variation distance of the two distributions of values."""
    p = original.value_counts(normalize=True)
    q = synthetic.value_counts(normalize=True)
    return 0.5 * float(p.sub(q, fill_value=0.0).abs().sum())


def _shifted(original: pd.Series, synthetic: pd.Series) -> tuple[int, tuple[float, ...]]:
    """The shift (+1 or -1) of the original's codes that the synthesis shows (its values are
    the original's plus it), by the module note's rule; (0, ()) when there is none."""
    o, s = original.astype(float), synthetic.astype(float)
    as_is = _distance(o, s)
    if as_is < SHIFT_MIN_DISTANCE:
        return 0, ()
    best = min((_distance(o, s - k), k) for k in (1, -1))
    if best[0] > SHIFT_RATIO * as_is:
        return 0, ()
    return best[1], (as_is, best[0])


def _unfound(original: pd.DataFrame, synthetic: pd.DataFrame) -> float:
    """Share of the synthetic records whose combination of values (missing = a value) no
    original record has; one grouping of both frames."""
    both = pd.concat([original, synthetic], ignore_index=True)
    both = both.astype({c: object for c in both.columns
                        if isinstance(both[c].dtype, pd.CategoricalDtype)})
    group = both.groupby(list(both.columns), dropna=False, sort=False).ngroup().to_numpy()
    seen = np.zeros(int(group.max()) + 1, dtype=bool)
    seen[group[:len(original)]] = True
    return float(1.0 - seen[group[len(original):]].mean())


def _key_shift(original: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
               column: str) -> tuple[int, tuple[float, ...]]:
    """The shift (+1 or -1) of a numeric key by which the synthesis's key combinations are
    the original's (the module note's rule for keys); (0, ()) when there is none."""
    o, s = original[keys], synthetic[keys]
    as_is = _unfound(o, s)
    if as_is < SHIFT_MIN_DISTANCE:
        return 0, ()
    values = s[column].astype(float)
    best = min((_unfound(o, s.assign(**{column: values - k})), k) for k in (1, -1))
    if best[0] > SHIFT_RATIO * as_is:
        return 0, ()
    return best[1], (as_is, best[0])


def mismatches(original: pd.DataFrame, synthetic: pd.DataFrame, columns: Sequence[str],
               name: str = "the synthetic data", keys: Sequence[str] = ()
               ) -> list[Mismatch]:
    """The columns of ``columns`` coded differently in ``original`` and ``synthetic`` (the
    module note's rule), in the order given; ``keys`` (those matched exactly on their
    combination) are checked for a shift by one whatever their type. Neither frame is
    modified."""
    found = []
    keys = [k for k in keys if k in original.columns and k in synthetic.columns]
    for column in columns:
        o, s = original[column].dropna(), synthetic[column].dropna()
        if o.empty or s.empty:
            continue
        if is_numeric(o) and not is_coded_category(o):
            if column in keys and is_numeric(s):  # continuous, but matched exactly as a key
                shift, distances = _key_shift(original, synthetic, keys, column)
                if shift:
                    found.append(Mismatch(str(column), name, 0.0,
                                          float((~o.isin(pd.unique(s))).mean()), (), shift,
                                          distances, "key combinations"))
            continue
        if isinstance(o.dtype, pd.CategoricalDtype) or isinstance(s.dtype, pd.CategoricalDtype):
            o, s = o.astype(object), s.astype(object)
        new = ~s.isin(pd.unique(o)) & ~_inside_whole_range(o, s)
        lost = ~o.isin(pd.unique(s))
        if new.mean() >= NEW_VALUES:
            found.append(Mismatch(str(column), name, float(new.mean()), float(lost.mean()),
                                  _shown(s[new])))
        elif is_numeric(o) and is_numeric(s):
            shift, distances = _shifted(o, s)
            if shift:
                found.append(Mismatch(str(column), name, float(new.mean()),
                                      float(lost.mean()), _shown(s[new]), shift, distances))
    return found
