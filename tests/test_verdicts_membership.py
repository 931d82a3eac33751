"""``capkit membership``: an attack that cannot run on the data (DOMIAS's Gaussian density on a
synthesis with collinear columns: a singular covariance) is skipped and named, with --attacks,
and the other attacks are reported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit import CapkitError
from capkit.cli import main
from capkit.membership_inference import scores, summary


def _frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    n = 400
    data = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n),
                         "g": rng.choice(list("ab"), n)})
    members, holdout = data.iloc[:200].reset_index(drop=True), data.iloc[200:]
    synthetic = members.sample(200, replace=True, random_state=1).reset_index(drop=True)
    return members, holdout.reset_index(drop=True), synthetic.assign(y=2 * synthetic["x"])


def test_one_attack_that_cannot_run_does_not_stop_the_others() -> None:
    members, holdout, synthetic = _frames()
    with pytest.raises(CapkitError, match="singular"):  # DOMIAS alone cannot run here
        scores(members, holdout, synthetic, attacks=["domias"])
    table = summary(members, holdout, synthetic, attacks=["dcr", "mc", "domias"])
    assert list(table.index) == ["dcr", "mc"]
    (note,) = [n for n in table.attrs["notes"] if n.startswith("domias: could not run")]
    assert "singular" in note and "--attacks" in note
    with pytest.raises(CapkitError, match="singular"):  # nothing else to report: the error
        summary(members, holdout, synthetic, attacks=["domias"])


def test_capkit_membership_reports_the_others(tmp_path: Path) -> None:
    members, holdout, synthetic = _frames()
    for name, frame in (("m", members), ("h", holdout), ("s", synthetic)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    result = CliRunner().invoke(main, ["membership", str(tmp_path / "m.csv"),
                                       str(tmp_path / "s.csv"), "--holdout",
                                       str(tmp_path / "h.csv"), "--attacks", "dcr,mc,domias"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "domias: could not run" in text and "--attacks" in text
