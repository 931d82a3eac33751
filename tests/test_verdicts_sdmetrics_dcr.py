"""SDMetrics' DCROverfittingProtection scores a bootstrap of the members 1.0 when the copies
tie with holdout twins on the columns read: SDMetrics itself does the same, and the output of
``capkit attack --sdmetrics`` says that the metric cannot see such copies."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.cli import main
from capkit.sdmetrics import DCROverfittingProtection


def _files(tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(1)
    n = 2000
    data = pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                         "region": rng.choice(list("abcdef"), n),
                         "age": rng.integers(16, 91, n)})
    members, holdout = data.iloc[:1000].reset_index(drop=True), data.iloc[1000:]
    boot = members.sample(frac=1.0, replace=True, random_state=3).reset_index(drop=True)
    for name, frame in (("m", members), ("h", holdout), ("boot", boot)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return members, holdout.reset_index(drop=True), boot


def test_the_bootstrap_scores_as_sdmetrics_scores_it(tmp_path: Path) -> None:
    sdmetrics = pytest.importorskip("sdmetrics.single_table")
    members, holdout, boot = _files(tmp_path)
    meta = {"columns": {"sex": {"sdtype": "categorical"}, "region": {"sdtype": "categorical"},
                        "age": {"sdtype": "numerical"}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sdmetrics.DCROverfittingProtection.compute(members, boot, holdout, meta, None)
    ours = DCROverfittingProtection.compute(members, boot, holdout, meta)
    assert ours == theirs == 1.0  # every copy of a member ties with a holdout twin or beyond


def test_capkit_attack_says_the_metric_cannot_see_the_copies(tmp_path: Path) -> None:
    _files(tmp_path)
    result = CliRunner().invoke(main, ["attack", str(tmp_path / "m.csv"),
                                       str(tmp_path / "boot.csv"), "--keys", "sex,region",
                                       "--targets", "age", "--holdout", str(tmp_path / "h.csv"),
                                       "--sdmetrics", "--attackers", "cap", "-q"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "DCROverfittingProtection of synthesis 1: 1,000 of its 1,000 records copy a member" \
        in text
    assert "This metric cannot see copies of members that have a twin in the holdout" in text
