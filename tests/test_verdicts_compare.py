"""``--compare-treated``: a change the table shows as 0.00 is no change, never WORSE."""

from __future__ import annotations

import pandas as pd

from capkit.audit.compare import before_after
from capkit.audit.findings import uncompared
from capkit.audit.run import Audit
from capkit.audit.verdicts import not_judged


def _audit(before: float, after: float) -> Audit:
    found = [uncompared(name, "attribute", "DiSCO", "income", value, "%",
                        not_judged("attribute"))
             for name, value in (("before", before), ("after", after))]
    return Audit(found, pd.DataFrame(), ["k"], ["income"], ["before", "after"], 100, None)


def test_a_change_shown_as_zero_is_not_worse() -> None:
    # 12.3440 -> 12.3470: +0.003 points, printed "0.00" at the table's 2 decimals
    table = before_after(_audit(12.344, 12.347), "before", "after")
    assert not table["worse"].iloc[0], table
    # a visible change still is: +0.02 points
    table = before_after(_audit(12.344, 12.364), "before", "after")
    assert table["worse"].iloc[0], table
