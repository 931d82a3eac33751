"""The synthetic side of exact copies: how many released records are a member's record.

The report's "exact copies" finding counts, on the members' side, the members who have an
identical synthetic record, against the holdout records who have one. A small release made of
member records (five rows, each a member) barely moves that share: five members out of
thousands. Counted on the synthetic side the same release is all copies. This finding counts the
synthetic records identical to a member (on every column) and compares them with the synthetic
records identical to a holdout record, the rate at which records that were not used for the
synthesis get matched by chance.

The chance rate needs the two files' sizes put right: a record type of population frequency p is
in a file of r records with probability f(r) = 1 - (1 - p)^r, so a larger members file is
matched more often without any leak. f is concave with f(0) = 0, so f(N) <= (N / M) f(M) for
N >= M members and holdout records: the holdout's rate times max(1, N / M) is at least the rate
at which the members would be matched if the synthesis had not seen them. The comparison is
therefore conservative (it can miss a leak, not invent one), and judged by rules C1-C3
(:mod:`capkit.audit.verdicts`) like every finding with a holdout.
"""

from __future__ import annotations

import pandas as pd

from capkit.audit.findings import Finding, from_comparison
from capkit.control import compare_to_control
from capkit.data.overlap import record_overlap

__all__ = ["synthetic_side"]


def synthetic_side(name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
                   holdout: pd.DataFrame, confidence: float) -> Finding:
    """The synthetic records identical to a member against those identical to a holdout
    record, the holdout's rate scaled by max(1, members / holdout) (module note)."""
    to_members = record_overlap(original, synthetic, other_name=name)
    to_holdout = record_overlap(holdout, synthetic, other_name=name)
    n_syn = to_members.n_other
    scale = max(1.0, len(original) / len(holdout))
    # the chance rate scale x shared / n_syn, with the uncertainty of n_syn / scale records
    # (scaling a count scales its error: fewer effective records, a wider interval)
    trials = n_syn / scale
    comparison = compare_to_control(to_members.shared, n_syn, min(trials, to_holdout.shared),
                                    trials, confidence=confidence, warn=False)
    return from_comparison(
        name, "copies", "synthetic records copying a member", "all columns", comparison, None,
        detail=f"{to_members.shared:,} of {n_syn:,} synthetic records are a member's record, "
               f"{to_holdout.shared:,} a holdout record's (x {scale:.2f}, members / holdout: "
               f"a larger file is matched more often by chance); counted on every record")
