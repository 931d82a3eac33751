"""What the report says beside its numbers: an exact-match finding on files coded differently
(rule M1), a measure forced past the level guard, and the notes on how columns were measured."""

from __future__ import annotations

from dataclasses import replace

from capkit.audit import verdicts
from capkit.audit.findings import Finding
from capkit.data.labels import CATEGORY_LEVELS

__all__ = ["EXACT_MATCH", "caveat", "notes"]

#: Families whose measures match values exactly (a coding difference makes them find less).
EXACT_MATCH = ("identity", "attribute", "copies", "attack")


def caveat(finding: Finding, differs: list, forced: bool) -> Finding:
    """An exact-match finding on a synthesis whose coding differs: said beside its numbers, and
    never 'not flagged' (rule M1); so is a measure forced with allow_disjoint_levels."""
    if finding.family not in EXACT_MATCH or not (differs or forced):
        return finding
    said = [f"coded differently: {', '.join(m.column for m in differs)}"] if differs else []
    said += ["forced with --allow-disjoint-levels / allow_disjoint_levels=True"] if forced else []
    detail = "; ".join([finding.detail, *said] if finding.detail else said)
    if differs and finding.verdict == "not flagged":
        judged = verdicts.coding_differs(finding.family)
        return replace(finding, detail=detail, verdict=judged.level, rule=judged.rule_text,
                       action=judged.action)
    return replace(finding, detail=detail)


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
