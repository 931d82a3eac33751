"""Several synthesis files of different kinds: each is judged, the worst is given; averaging
must not hide a disclosive bootstrap among safe files."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.audit.findings import over_syntheses
from capkit.disclosure import disclosure_summary
from capkit.report.disclosure import _control_section
from capkit.synth.baselines import independent_columns


def test_a_disclosive_file_is_not_averaged_away() -> None:
    # DiSCO: a bootstrap discloses 30% of members against the holdout's 2%; nine
    # independent-column files disclose 2% of each. The mean (4.8% vs 2%) is no longer
    # disclosive by rule C1 (an advantage under 5 points)
    members, holdout = [30.0] + [2.0] * 9, [2.0] * 10
    mean = over_syntheses("attribute", "DiSCO", "t", [4.8], 1000, [2.0], 1000)
    assert mean.verdict != "disclosive"  # what averaging alone said
    f = over_syntheses("attribute", "DiSCO", "t", members, 1000, holdout, 1000)
    assert f.verdict == "disclosive" and f.synthesis == "synthesis 1", f
    assert f.value == 30.0 and f.holdout == 2.0  # the file's own numbers, not the mean's
    assert "1 disclosive, 9 not flagged" in f.detail
    # four alike files: the mean's finding, the count said
    g = over_syntheses("attribute", "DiSCO", "t", [2.0] * 4, 1000, [2.0] * 4, 1000)
    assert g.synthesis == "mean of 4 syntheses" and g.verdict == "not flagged"


def _survey(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    return pd.DataFrame({"sex": sex, "region": rng.choice(list("abcdefghijklmnopqrst"), n),
                         "age": rng.integers(0, 10, n),
                         "job": rng.choice(list("abcdefgh"), n)})


def test_capkit_disclosure_control_gives_the_worst_file() -> None:
    data = _survey(3000, 4)
    members, holdout = data.iloc[:1500].reset_index(drop=True), data.iloc[1500:]
    files = [independent_columns(members, seed=s) for s in range(1, 10)]
    files.append(members.sample(frac=1, replace=True, random_state=0).reset_index(drop=True))
    keys = ["sex", "region", "age"]
    summary = disclosure_summary(files, members, keys, ["job"], holdout=holdout)
    section = _control_section(summary, keys, [])
    # the bootstrap's DCAP is disclosive on its own; the ten files' mean is not
    (line,) = [i for i in section.items if "DCAP" in i]
    assert ": disclosive (C1" in line and "(synthesis 10; the worst of 10" in line, line
