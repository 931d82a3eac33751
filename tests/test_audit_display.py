"""capkit.audit's small outputs: the near-copy threshold printed with its digits, and an Audit
that shows itself in a line (repr), a few lines (summary) and a small table (notebooks)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from capkit.audit import audit


def _frames(seed: int = 0):
    rng = np.random.default_rng(seed)

    def frame(n):
        return pd.DataFrame({"sex": rng.choice(["F", "M"], n), "region": rng.choice(list("abc"), n),
                             "income": rng.integers(0, 1_000_000, n).astype(float)})

    members, holdout = frame(300), frame(300)
    synthetic = members.sample(300, replace=True, random_state=1).reset_index(drop=True)
    synthetic["income"] += 1.0  # near copies: 1 in a range of a million
    return members, synthetic, holdout


def test_near_copy_threshold_has_its_digits():
    """The holdout's 5% quantile of the distance is tiny here (about 1e-6 x 100): printed
    with four significant digits, never as 0.0000."""
    members, synthetic, holdout = _frames()
    run = audit(members, synthetic, holdout=holdout, keys=["sex", "region"],
                families=("distance",))
    near = next(f for f in run.findings if f.measure == "near copies")
    cut = float(re.search(r"<= (\S+),", near.detail).group(1))
    assert cut > 0 and "0.0000," not in near.detail
    assert re.search(r"<= \d\.\d{3}e-\d\d|<= 0\.0+[1-9]\d{3}", near.detail), near.detail


def test_audit_repr_is_short_and_the_summary_counts_verdicts():
    members, synthetic, holdout = _frames(1)
    run = audit(members, {"bootstrap": synthetic, "copy": members.copy()}, holdout=holdout,
                keys=["sex", "region"], families=("distance",))
    line = repr(run)
    assert "\n" not in line and len(line) < 300 and line.startswith("<Audit: 2 syntheses")
    counts = run.verdicts()
    assert f"{int(counts.to_numpy().sum())} findings" in line
    text = run.summary()
    for name, row in counts.iterrows():
        assert f"{name}: {row['disclosive']} disclosive, {row['review']} review, " \
               f"{row['not flagged']} not flagged" in text
    page = run._repr_html_()
    assert page.count("<tr>") == 3 and len(page) < 2000
