"""Before and after a treatment (capkit.audit.compare, ``capkit report --compare-treated``): on
data built here, removing the replicated uniques (synthpop's sdc()) makes repU 0 and leaves no
finding of the count and distance families worse; the reverse direction is called worse."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit import CapkitError
from capkit.audit import audit
from capkit.audit.compare import COLUMNS, before_after
from capkit.cli import main
from capkit.synth.baselines import bootstrap_with_noise
from capkit.synth.sdc import sdc

KEYS = ["sex", "region", "job", "band"]
TARGETS = ["smoke", "income"]
#: The families whose findings do not depend on a seed (counts and exact distances).
STEADY = ["synthpop measures", "distance"]


def _population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(list("abcdef"), n)
    return pd.DataFrame({
        "sex": sex, "region": region,
        "job": rng.choice(["clerk", "nurse", "driver", "cook", "teacher"], n),
        "band": rng.choice(["<30", "30-50", ">50"], n),
        "smoke": np.where((sex == "F") & (region == "a"), "no", rng.choice(["yes", "no"], n)),
        "income": np.round(np.exp(rng.normal(10, 0.5, n)) + 300 * (sex == "M"))})


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    data = _population(900, 5)
    members = data.iloc[:600].reset_index(drop=True)
    syn = bootstrap_with_noise(members, seed=1)
    treated = sdc(syn, members, KEYS, rm_replicated_uniques=True)
    return {"members": members, "holdout": data.iloc[600:].reset_index(drop=True),
            "syn": syn, "treated": treated.data, "removed": pd.Series(treated.removed)}


def _rep_u(members: pd.DataFrame, synthetic: pd.DataFrame) -> float:
    """synthpop's repU, record by record: the members unique on the keys whose keys are
    unique in the synthesis too, in percent."""
    orig = Counter(tuple(r) for r in members[KEYS].itertuples(index=False))
    syn = Counter(tuple(r) for r in synthetic[KEYS].itertuples(index=False))
    hits = sum(1 for r in members[KEYS].itertuples(index=False)
               if orig[tuple(r)] == 1 and syn.get(tuple(r)) == 1)
    return 100.0 * hits / len(members)


@pytest.mark.parametrize("with_holdout", [True, False])
def test_removing_replicated_uniques(frames, with_holdout: bool) -> None:
    members, syn, treated = frames["members"], frames["syn"], frames["treated"]
    assert len(frames["removed"]) > 0  # the bootstrap replicates uniques
    result = audit(members, {"before": syn, "after": treated}, keys=KEYS, targets=TARGETS,
                   holdout=frames["holdout"] if with_holdout else None, families=STEADY)
    table = before_after(result, "before", "after")
    assert list(table.columns) == COLUMNS
    rep = table[table["measure"] == "repU"].iloc[0]
    assert _rep_u(members, syn) > 0
    assert rep["before"] == pytest.approx(_rep_u(members, syn), abs=1e-12)
    assert rep["after"] == 0 == _rep_u(members, treated)
    worse = table[table["worse"]]
    # exact copies as a share of the synthetic records (without a holdout; with one, their
    # synthetic side): the same copies among fewer records is a larger share, the one value
    # that rises
    share = "synthetic records copying a member" if with_holdout else "exact copies"
    assert list(worse["measure"]) == [share]
    copies = worse.iloc[0]
    assert copies["before"] * len(syn) == pytest.approx(copies["after"] * len(treated))
    worse = worse.iloc[1:]
    assert worse.empty, worse
    # a verdict can get more severe while the members' value falls: the holdout's fell more
    for _, row in table[table["more severe"]].iterrows():
        assert row["change"] < 0
        assert row["holdout after"] - row["holdout before"] < row["change"]
    # the other way round (the treatment undone) is worse on repU
    back = before_after(result, "after", "before")
    assert back.loc[back["measure"] == "repU", "worse"].iloc[0]
    if not with_holdout:  # the median distance grows when records go: down is worse
        median = back[back["measure"] == "median distance to closest record"].iloc[0]
        # worse when the fall shows at the table's 2 decimals (a 0.00 change is none)
        assert median["change"] < 0
        assert median["worse"] == (round(-median["change"], 2) > 0)


def test_bad_names(frames) -> None:
    result = audit(frames["members"], {"a": frames["syn"]}, keys=KEYS, targets=TARGETS,
                   families=["synthpop measures"], sweep_size=None)
    with pytest.raises(CapkitError, match="'b' is not a synthesis"):
        before_after(result, "a", "b")
    with pytest.raises(CapkitError, match="same synthesis"):
        before_after(result, "a", "a")


@pytest.fixture(scope="module")
def files(frames, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("compare")
    out = {}
    for name in ("members", "holdout", "syn"):
        out[name] = tmp / f"{name}.csv"
        frames[name].to_csv(out[name], index=False)
    out["treated"] = tmp / "treated.csv"
    run = CliRunner().invoke(main, ["sdc", str(out["members"]), str(out["syn"]), "-o",
                                    str(out["treated"]), "--keys", ",".join(KEYS),
                                    "--rm-replicated-uniques"])
    assert run.exit_code == 0, run.output
    return out


def _report(files, *args: str) -> object:
    return CliRunner().invoke(main, [
        "report", str(files["members"]), str(files["syn"]), "--compare-treated",
        str(files["treated"]), "--holdout", str(files["holdout"]), "--keys", ",".join(KEYS),
        "--targets", ",".join(TARGETS), "--family", "synthpop measures", "--family",
        "distance", "-q", *args])


def test_command_in_every_format(files, frames) -> None:
    doc = json.loads(_report(files, "--format", "json").output)
    pair = doc["before_after"]
    assert pair["before"] == "before: syn.csv" and pair["after"] == "after: treated.csv"
    rep = next(f for f in pair["findings"] if f["measure"] == "repU")
    assert rep["after"] == 0 and rep["before"] == pytest.approx(
        _rep_u(frames["members"], frames["syn"]))
    # the one value that rises: the same exact copies as a share of fewer synthetic records
    assert [f["measure"] for f in pair["findings"] if f["worse"]] == [
        "synthetic records copying a member"]
    severe = [f for f in pair["findings"] if f["more severe"]]
    assert [(f["measure"], f["subject"]) for f in severe] == [("DiSCO", "smoke")]
    assert "Before and after the treatment" in [s["title"] for s in doc["sections"]]
    text = _report(files).output
    assert "Before and after the treatment" in text
    assert "worse after the treatment (the members' value): copies: synthetic records " \
        "copying a member" in text and "verdict more severe" in text
    assert "identity: repU (keys)" in text
    md = _report(files, "--format", "markdown").output
    assert "## Before and after the treatment" in md and "| finding |" in md
    html = _report(files, "--format", "html").output
    assert "<h2>Before and after the treatment</h2>" in html


def test_command_refuses_two_syntheses(files) -> None:
    run = CliRunner().invoke(main, [
        "report", str(files["members"]), str(files["syn"]), str(files["syn"]),
        "--compare-treated", str(files["treated"]), "-q"])
    assert run.exit_code == 1 and "--compare-treated compares one SYNTHETIC" in run.output
