"""What a treatment bought: the findings of a synthesis before and after a treatment, side by
side (docs/custodian-report.md, "Before and after a treatment").

A custodian who removes records of a synthetic file (synthpop's ``sdc()``,
:func:`capkit.synth.sdc.sdc`, ``capkit sdc``) or recodes it asks whether the disclosure the
report found went away and whether anything else got worse. :func:`before_after` pairs the
findings of the two files, judged in one :func:`capkit.audit.audit` run (so both have the same
keys, targets, holdout and rules), by family, measure and subject, and says for each

* whether it got **worse**: the members' value moved towards more disclosure (up for every
  measure but the median distance to the closest record, where down is worse);
* whether its verdict got **more severe**. The two differ: removing synthetic records that
  copy a member's rare keys also removes what they told about the holdout records sharing
  those keys, so the holdout's rate can fall more than the members' and the members-vs-holdout
  excess grow while the members' value falls (the tests show such a case).

Nothing is measured or judged again here.
"""

from __future__ import annotations

import math

import pandas as pd

from capkit.audit.run import Audit
from capkit.audit.verdicts import LEVELS, NOT_MEASURED
from capkit.errors import CapkitError

__all__ = ["COLUMNS", "DIGITS", "HIGHER_IS_SAFER", "before_after"]

#: Measures whose larger value means less disclosure (every other: more).
HIGHER_IS_SAFER = frozenset({"median distance to closest record"})

#: Decimals the before/after table shows; a change that rounds to 0 at this precision is no
#: change (never "worse": a reader sees 0.00).
DIGITS = 2

#: The columns of :func:`before_after`'s table.
COLUMNS = ["family", "measure", "subject", "unit", "before", "after", "change",
           "holdout before", "holdout after", "verdict before", "verdict after", "worse",
           "more severe"]


def _value(x: object) -> float:
    return math.nan if x is None else float(x)


def before_after(audit: Audit, before: str, after: str) -> pd.DataFrame:
    """The findings of synthesis ``before`` and of ``after`` (its treated version) side by side.

    Parameters
    ----------
    audit
        An audit that measured both (``audit(original, {before: syn, after: treated}, ...)``).
    before, after
        The two syntheses' names in the audit.

    Returns
    -------
    pandas.DataFrame
        One row per finding, in the audit's order: :data:`COLUMNS`. ``before`` and ``after``
        are the members' values (the unit says what), ``change`` = after - before, the
        holdout's values beside them (NaN without a holdout); ``worse`` is True when the value
        moved towards more disclosure by at least what the table shows (:data:`DIGITS`
        decimals: a change shown as 0.00 is none; :data:`HIGHER_IS_SAFER` gives the measures
        where down is worse), ``more severe`` when the verdict is. A finding of only one of
        the two (a family that failed on the other) has NaN on the other side and is neither.

    Raises
    ------
    CapkitError
        A name that is not a synthesis of the audit, or the same name twice.
    """
    for name, argument in ((before, "before"), (after, "after")):
        if name not in audit.syntheses:
            raise CapkitError(f"{argument} {name!r} is not a synthesis of the audit "
                              f"({audit.syntheses})")
    if before == after:
        raise CapkitError(f"before and after are the same synthesis {before!r}")
    sides = {side: {(f.family, f.measure, f.subject): f for f in audit.findings
                    if f.synthesis == name} for side, name in (("b", before), ("a", after))}
    order = list(dict.fromkeys([*sides["b"], *sides["a"]]))
    rows = []
    for key in order:
        fb, fa = sides["b"].get(key), sides["a"].get(key)
        vb = math.nan if fb is None else _value(fb.value)
        va = math.nan if fa is None else _value(fa.value)
        change = va - vb
        moved = -change if key[1] in HIGHER_IS_SAFER else change
        severer = fb is not None and fa is not None and NOT_MEASURED not in (
            fa.verdict, fb.verdict) and LEVELS.index(fa.verdict) < LEVELS.index(fb.verdict)
        rows.append({"family": key[0], "measure": key[1], "subject": key[2],
                     "unit": (fb or fa).unit, "before": vb, "after": va, "change": change,
                     "holdout before": math.nan if fb is None else _value(fb.holdout),
                     "holdout after": math.nan if fa is None else _value(fa.holdout),
                     "verdict before": None if fb is None else fb.verdict,
                     "verdict after": None if fa is None else fa.verdict,
                     "worse": bool(not math.isnan(moved) and round(moved, DIGITS) > 0),
                     "more severe": bool(severer)})
    return pd.DataFrame(rows, columns=COLUMNS)
