"""Default keys and targets of the custodian's report, and which numeric targets to group.

The rules, stated in every report that uses them:

* **keys**: the columns with 2 to :data:`MAX_KEY_LEVELS` levels in the original data,
  categorical (text, category or boolean) or numeric (survey files code sex, region or marital
  status as 1, 2, 3), demographic-looking names first (:func:`looks_demographic`: what an
  intruder knows of a person), then in column order, at most :data:`MAX_KEYS` of them,
  leaving out a column that adds no split to the keys before it (a numeric code of a column
  already taken), and passing over a column missing for more than :data:`MAX_KEY_MISSING` of
  the records unless the others do not make up the keys: the columns an intruder is likely to
  know without making every record unique. When the keys (chosen or given) leave no record
  unique in the original, or fewer than :data:`FEW_UNIQUE` of them, a warning says that they
  single out (almost) nobody, so the identity measures have little to find;
* **targets**: every other column with at least two levels, the first :data:`MAX_TARGETS` of
  them (a note names the rest, which ``targets=`` / ``--targets`` can measure);
* **identifiers** are left out of every measure unless named as keys or targets: a text,
  categorical or integer column with a different value on every original record, the integers
  consecutive (a row number, a person's code, a name). Such a column is no key an intruder
  would match on, no target, and it would dominate every distance; a released file should not
  carry it. A float column is never taken for one (a measurement can be unique per record);
* a column with a single value in the original (missing counted as a value) tells nothing
  about anyone and is left out of every measure unless named;
* a numeric target with more than :data:`MAX_KEY_LEVELS` distinct values is grouped into
  :data:`TARGET_GROUPS` classes for synthpop's measures (DiSCO, DCAP, ...), which otherwise
  match it by exact value and score a near-copy 0 (docs/custodian-report.md); the attacks,
  distances, singling out and linkability use its values. A text target with more than
  :data:`~capkit.counts.encode.CONTINUOUS_TARGET_LEVELS` levels gets a note, which says so when
  its values read as dates or numbers (a near value then counts as a wrong guess).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from capkit.counts.encode import CONTINUOUS_TARGET_LEVELS, reads_as_dates
from capkit.data.labels import is_numeric
from capkit.errors import CapkitError

#: Most levels a default key may have (and most distinct values of an ungrouped target).
MAX_KEY_LEVELS = 20
#: Most default keys.
MAX_KEYS = 4
#: Most default targets (a wide file would otherwise give a report of thousands of lines).
MAX_TARGETS = 20
#: Share of missing values above which a column is a default key only when the others do not
#: make up :data:`MAX_KEYS` keys (an intruder rarely knows what a file often lacks).
MAX_KEY_MISSING = 0.2

#: Share of the original's records unique on the keys under which a warning says the keys
#: single out almost nobody.
FEW_UNIQUE = 0.01

#: Classes of a grouped numeric target (synthpop's ngroups_targets).
TARGET_GROUPS = 5


@dataclass(frozen=True)
class Choice:
    """Keys, targets, ``groups`` (target -> classes for synthpop's measures) and notes."""

    keys: list[str]
    targets: list[str]
    groups: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: identifier columns left out of every measure
    identifiers: list[str] = field(default_factory=list)
    #: columns with a single value in the original (no information), left out of every measure
    constants: list[str] = field(default_factory=list)
    #: what makes the keys or targets measure less than a reader would think
    warnings: list[str] = field(default_factory=list)


def is_identifier(series: pd.Series) -> bool:
    """A different value on every record, no missing value, and text/categorical or consecutive
    integers (see the module docstring); a float column never is one."""
    n = len(series)
    if n < 2 or series.isna().any() or series.nunique() != n:
        return False
    if pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_float_dtype(series.dtype):
        return False
    if pd.api.types.is_integer_dtype(series.dtype):
        return int(series.max()) - int(series.min()) + 1 == n
    return True


def _names(value: Sequence[str] | None, argument: str, columns: list[str]) -> list[str] | None:
    if value is None:
        return None
    names = [value] if isinstance(value, str) else list(value)
    missing = [c for c in names if c not in columns]
    if not names or missing:
        raise CapkitError(f"{argument} must name columns of the original data; not found: "
                          f"{missing or '(none given)'}")
    return names


def choose(original: pd.DataFrame, keys: Sequence[str] | None = None,
           targets: Sequence[str] | None = None) -> Choice:
    """The keys and targets of a report (the given ones, else the defaults above).

    Raises
    ------
    CapkitError
        A named column that is not in ``original``; a target that is also a key; no default
        key (no categorical column with 2 to 20 levels: give keys); no target left.
    """
    key_list = _names(keys, "keys", list(original.columns))
    target_list = _names(targets, "targets", list(original.columns))
    named = (key_list or []) + (target_list or [])
    identifiers = [c for c in original.columns if c not in named and is_identifier(original[c])]
    constants = [c for c in original.columns
                 if c not in named and original[c].nunique(dropna=False) <= 1]
    columns = [c for c in original.columns if c not in identifiers + constants]
    notes = []
    if identifiers:
        many = len(identifiers) > 1
        notes.append(f"column{'s' if many else ''} {', '.join(identifiers)} "
                     f"{'have' if many else 'has'} a different value on every record (a row "
                     "number, a code or a name: an identifier) and "
                     f"{'are' if many else 'is'} left out of every measure; a released file "
                     "should not carry identifiers (name one in the keys or targets to measure "
                     "it anyway)")
    if constants:
        many = len(constants) > 1
        notes.append(f"column{'s' if many else ''} {', '.join(constants)} "
                     f"{'have' if many else 'has'} a single value in the original data (no "
                     f"information about anyone) and {'are' if many else 'is'} left out of "
                     "every measure")
    levels = {c: int(original[c].nunique(dropna=True)) for c in columns}
    if key_list is None:
        candidates = [c for c in columns if 2 <= levels[c] <= MAX_KEY_LEVELS
                      and c not in (target_list or [])]
        # what an intruder knows of a person: demographic-looking columns first (sex, age
        # group, region, marital status, education, ...), then the others, each in file order
        known = [c for c in candidates if looks_demographic(c)]
        candidates = known + [c for c in candidates if c not in known]
        # an intruder knows what a register holds for everyone: a column missing for many
        # records is a poor key, taken only when the others do not make up the keys
        missing = {c: float(original[c].isna().mean()) for c in candidates}
        sparse = [c for c in candidates if missing[c] > MAX_KEY_MISSING]
        key_list = _informative(original, [c for c in candidates if c not in sparse])
        if len(key_list) < MAX_KEYS and sparse:
            key_list = _informative(original, [c for c in candidates
                                               if c in key_list or c in sparse])
        if not key_list:
            raise CapkitError(f"no default key: no column has 2 to {MAX_KEY_LEVELS} distinct "
                              "values; give the keys")
        unique = int((original.groupby(key_list, dropna=False, sort=False, observed=True)
                      .size() == 1).sum())
        passed = [c for c in _informative(original, candidates) if c not in key_list]
        notes.append(f"keys (default): {', '.join(key_list)}: the first {MAX_KEYS} columns "
                     f"with 2 to {MAX_KEY_LEVELS} distinct values (numbers with few values "
                     "count: they are codes), demographic-looking names first (what an intruder "
                     "knows of a person: sex, age, region, marital status, education, ...), "
                     "each adding splits to the ones before"
                     + (f"; passed over for missing values (more than "
                        f"{MAX_KEY_MISSING:.0%} of records): {', '.join(passed)}"
                        if passed else "")
                     + f"; they make {100 * unique / len(original):.2f}% of the original's "
                       "records unique (--keys / keys= chooses others)")
    clash = [t for t in target_list or [] if t in key_list]
    if clash:
        raise CapkitError(f"target column {clash[0]!r} is also a key; a target cannot be a key")
    if target_list is None:
        target_list = [c for c in columns if c not in key_list and levels[c] >= 2]
        if not target_list:
            raise CapkitError("no target: every column besides the keys has a single level")
        left = target_list[MAX_TARGETS:]
        target_list = target_list[:MAX_TARGETS]
        notes.append("targets (default): every other column with at least two levels"
                     + (f", the first {MAX_TARGETS}; not measured as targets: "
                        f"{', '.join(map(str, left))} (name them with targets= / --targets)"
                        if left else ""))
    warnings = _unique_warning(original, key_list)
    groups = {t: TARGET_GROUPS for t in target_list
              if is_numeric(original[t]) and levels[t] > MAX_KEY_LEVELS}
    if groups:
        notes.append(f"numeric targets {', '.join(groups)} have more than {MAX_KEY_LEVELS} "
                     f"distinct values: synthpop's measures group each into {TARGET_GROUPS} "
                     "classes (as --ngroups-targets would), else an exact-value match scores "
                     "a near-copy 0; the attacks and distances use the values")
    for t in target_list:
        if not is_numeric(original[t]) and levels[t] > CONTINUOUS_TARGET_LEVELS:
            notes.append(_many_levels_note(t, original[t], levels[t]))
    return Choice(key_list, target_list, groups, notes, identifiers, constants, warnings)


#: Name parts of the columns an intruder is likely to know of a person (census and survey
#: names: sex, age group, race, marital status, region, education, occupation, household).
DEMOGRAPHIC = ("sex", "gender", "age", "race", "ethnic", "marital", "marst", "married",
               "region", "state", "county", "district", "province", "country", "nation",
               "citizen", "born", "birth", "educ", "school", "degree", "occup", "job", "profes",
               "relig", "hisp", "kids", "child", "household", "hhsize", "placesize", "urban",
               "rural")


def looks_demographic(name: object) -> bool:
    """Whether a column's name reads as a demographic attribute (:data:`DEMOGRAPHIC`, a part of
    the lower-cased name: ``agegr``, ``marital.status``, ``RACE``; ``age`` within a word such as
    ``wage`` or ``usage`` does not count)."""
    text = str(name).lower()
    words = re.split(r"[^a-z]+", text)
    return any(w.startswith(p) for w in words if w for p in DEMOGRAPHIC)


def _informative(original: pd.DataFrame, candidates: list[str]) -> list[str]:
    """The first :data:`MAX_KEYS` candidates in column order, leaving out one that adds no split
    to the keys before it (a code of a column already taken, such as Adult's education.num
    beside education): it would tell an intruder nothing more."""
    keys: list[str] = []
    combos = 1
    for c in candidates:
        n = int(original.groupby([*keys, c], dropna=False, sort=False, observed=True).ngroups)
        if n > combos:
            keys.append(c)
            combos = n
        if len(keys) == MAX_KEYS:
            break
    return keys


def _unique_warning(original: pd.DataFrame, keys: list[str]) -> list[str]:
    """A warning when no record of the original is unique on the keys, or almost none (under
    :data:`FEW_UNIQUE` of them; one GROUP BY)."""
    sizes = original.groupby(keys, dropna=False, sort=False, observed=True).size()
    unique = int((sizes == 1).sum())
    if unique and unique >= FEW_UNIQUE * len(original):
        return []
    if unique:
        return [f"these keys ({', '.join(keys)}) make {100 * unique / len(original):.2f}% of "
                f"the original's records unique ({unique:,} of {len(original):,}): the "
                "identity and attribute families have little to find, and 'not flagged' says "
                "little; give keys an intruder would know that narrow people down (keys= / "
                "--keys)"]
    return [f"no record of the original is unique on the keys ({', '.join(keys)}: "
            f"{len(sizes):,} combinations, the smallest shared by {int(sizes.min()):,} records):"
            " the keys cannot single anyone out, so the identity measures (repU, singling out) "
            "will find nothing and the attribute measures see only large groups; give keys an "
            "intruder would know that narrow people down (keys= / --keys)"]


def _many_levels_note(column: str, series: pd.Series, levels: int) -> str:
    """What a text target with many levels means for exact-match measures; if its values read
    as dates or numbers, that a near value (a day off) counts as a wrong guess."""
    values = series.dropna().astype(str).unique()
    as_number = bool(pd.to_numeric(pd.Series(values), errors="coerce").notna().all())
    as_date = not as_number and reads_as_dates(values)
    reads = " (its values read as numbers)" if as_number else (
        " (its values read as dates)" if as_date else "")
    text = (f"target {column} is text with {levels} distinct values{reads}: the attribute "
            "measures and the attack's accuracy count exact values only")
    if as_number or as_date:
        text += (", so a near value (a day or a unit off) counts as a wrong guess: convert it "
                 "to numbers (days since a date, say) so that the report groups it and the "
                 "distance and the attacks measure how near a guess is")
    return text


__all__ = ["DEMOGRAPHIC", "FEW_UNIQUE", "MAX_KEYS", "MAX_KEY_LEVELS", "MAX_KEY_MISSING",
           "MAX_TARGETS", "TARGET_GROUPS", "Choice", "choose", "is_identifier", "looks_demographic"]
