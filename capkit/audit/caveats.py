"""What the report says beside its numbers: an exact-match finding on files coded differently
(rule M1), a measure forced past the level guard, and the notes on how columns were measured."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from capkit.audit.findings import Finding, coding_caveat
from capkit.data.labels import CATEGORY_LEVELS, is_coded_category, is_numeric

__all__ = ["EXACT_MATCH", "caveat", "notes"]

#: Families whose measures match values exactly (a coding difference makes them find less).
EXACT_MATCH = ("identity", "attribute", "copies", "attack")


def _exact_columns(finding: Finding, keys: list[str], original: pd.DataFrame,
                   numeric_targets: Sequence[str] = ()) -> list[str]:
    """The columns a finding's measure depends on through exact matches: a column coded
    differently there makes it find less (rule M1). Near copies use the Gower distance, where a
    number is a distance (a shifted code moves a record a little) and only text is matched
    exactly. The k-NN attack measures numeric keys by distance (min-max scaled): a measurement
    (more than :data:`CATEGORY_LEVELS` values) written a little off the original's values
    misleads it little, a code (text, or at most :data:`CATEGORY_LEVELS` values) shifted or
    written off its grid puts records among the wrong neighbours; its target counts when it
    is attacked as a category (text, or a code, unless in ``numeric_targets``: a numeric
    target is scored within 5%)."""
    if finding.family == "identity":
        return list(keys)
    if finding.family == "attribute":
        return [*keys, finding.subject]
    if finding.family == "attack":
        t = finding.subject
        category = not is_numeric(original[t]) or (
            t not in numeric_targets and is_coded_category(original[t]))
        return [k for k in keys if not is_numeric(original[k]) or is_coded_category(original[k])
                ] + ([t] if category else [])
    if finding.measure == "near copies":
        return [c for c in original.columns if not is_numeric(original[c])]
    return list(original.columns)


def caveat(finding: Finding, differs: list, forced: bool, keys: list[str],
           original: pd.DataFrame, numeric_targets: Sequence[str] = ()) -> Finding:
    """An exact-match finding on a synthesis that codes one of the columns it matches exactly
    differently: said beside its numbers, and 'not measured' when it found no evidence (rule
    M1, :func:`capkit.audit.findings.coding_caveat`); so is a measure forced with
    allow_disjoint_levels."""
    if finding.family not in EXACT_MATCH:
        return finding
    used = set(_exact_columns(finding, keys, original, numeric_targets))
    return coding_caveat(finding, [m.column for m in differs if m.column in used], forced)


def notes(coded: list[str], gaps: list[str], wide: list[str], wide_tolerance: float
          ) -> list[str]:
    """The notes on targets attacked as categories (``coded``), numeric columns with missing
    values in the distance (``gaps``) and numeric targets whose 5% band is too wide (``wide``)."""
    found = []
    if coded:
        found.append(f"attribute attack: numeric target{'s' if len(coded) > 1 else ''} "
                     f"{', '.join(coded)} {'have' if len(coded) > 1 else 'has'} at most "
                     f"{CATEGORY_LEVELS} distinct values: attacked as categories stored as "
                     "numbers (exact match, the most frequent value as the dummy's guess); "
                     "--numeric-targets / numeric_targets= attack them as numbers")
    if gaps:
        found.append(f"distance to closest record: numeric column{'s' if len(gaps) > 1 else ''} "
                     f"{', '.join(gaps)} {'have' if len(gaps) > 1 else 'has'} missing values; a "
                     "missing value counts as 1 (the largest difference) from any number and 0 "
                     "from another missing value (capkit.distance, missing='level')")
    if wide:
        found.append(f"attribute attack: for {', '.join(wide)} the dummy is already "
                     f"within 5% of {wide_tolerance:.0%} or more of the members' values, so a "
                     "guess within 5% tells nothing (the band is too wide for values such as "
                     "years); judge them by DiSCO on their classes and by the distances")
    return found
