"""``capkit membership``: the report in every format, the numbers it prints, its errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner
from test_membership_inference import small_case

from capkit.cli.main import main
from capkit.membership_inference import summary


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("membership")
    m, n, g, r = small_case()
    paths = {}
    for name, frame in (("members", m), ("holdout", n), ("synthetic", g), ("reference", r)):
        paths[name] = folder / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    return paths


def run(*args):
    return CliRunner().invoke(main, ["membership", *map(str, args)])


def test_json_numbers_are_summarys(files):
    result = run(files["members"], files["synthetic"], "--holdout", files["holdout"],
                 "--reference", files["reference"], "--format", "json", "--seed", "3", "-q")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    tables = [t for s in report["sections"] for t in s.get("tables", [])]
    per_attack = pd.DataFrame(tables[0]["data"], columns=tables[0]["columns"])
    frames = [pd.read_csv(files[k]) for k in ("members", "holdout", "synthetic", "reference")]
    expected = summary(*frames, seed=3)
    assert per_attack["attack"].tolist() == list(expected.index)
    for column in ("auc", "auc_low", "auc_high", "epsilon_lower"):
        assert per_attack[column].tolist() == pytest.approx(expected[column].tolist(),
                                                            rel=1e-12)
    assert per_attack["tpr_at_fpr_0.01"].tolist() == pytest.approx(
        (100 * expected["tpr_at_fpr_0.01"]).tolist(), rel=1e-12)
    exposed = pd.DataFrame(tables[2]["data"], columns=tables[2]["columns"])
    assert sorted(exposed["member"].iloc[:5]) == [0, 1, 2, 3, 4]  # the copied members


def test_text_and_html(files, tmp_path):
    result = run(files["members"], files["synthetic"], "--holdout", files["holdout"],
                 "--attacks", "dcr,mc,domias", "--top", "3", "-q")
    assert result.exit_code == 0, result.output
    assert "Members most exposed" in result.output and "dpi" not in result.output
    assert "Notes" in result.output  # the reference split off the holdout is noted
    out = tmp_path / "r.html"
    plot = tmp_path / "roc.svg"
    result = run(files["members"], files["synthetic"], "--holdout", files["holdout"],
                 "--attacks", "dcr,domias", "--format", "html", "-o", out, "--plot", plot, "-q")
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "data:image/svg+xml;base64" in page and "ROC curve" in page
    assert plot.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("args, message", [
    ((), "--holdout is required"),
    (("--holdout", "missing.csv"), "does not exist"),
    (("--holdout", "HOLDOUT", "--attacks", "dcr,logan"), "unknown attack 'logan'"),
    (("--holdout", "HOLDOUT", "--attacks", "dcr", "--exposed-by", "mc"), "not among"),
    (("--holdout", "HOLDOUT", "--columns", "height,weight"), "'weight'"),
    (("--holdout", "MEMBERS"), "identical to a member"),
    (("--holdout", "HOLDOUT", "--compat", "domias"), "numeric columns only"),
])
def test_errors(files, args, message):
    args = [str(files["holdout"]) if a == "HOLDOUT" else str(files["members"]) if a == "MEMBERS"
            else a for a in args]
    result = run(files["members"], files["synthetic"], *args, "-q")
    assert result.exit_code != 0
    assert message in result.output, result.output


def test_overlap_message_names_the_flag(files):
    """A holdout that is the members: the CLI's message names its flag, not the argument."""
    result = run(files["members"], files["synthetic"], "--holdout", str(files["members"]), "-q")
    assert result.exit_code != 0
    assert "--allow-overlap" in result.output and "overlap='allow'" not in result.output
    allowed = run(files["members"], files["synthetic"], "--holdout", str(files["members"]),
                  "--attacks", "dcr", "--allow-overlap", "-q")
    assert allowed.exit_code == 0, allowed.output


def test_size_infinite_and_contaminated_control(files, tmp_path):
    """A synthesis ten times the members' size gets the size note; inf cells are read as
    missing and said so; a synthesis copying holdout records (not members' twins) is refused:
    membership has no verdict without a clean holdout."""
    members, holdout = pd.read_csv(files["members"]), pd.read_csv(files["holdout"])
    synthetic = pd.read_csv(files["synthetic"])
    big = tmp_path / "big.csv"
    synthetic.sample(10 * len(members), replace=True, random_state=0).to_csv(big, index=False)
    result = run(files["members"], big, "--holdout", files["holdout"], "--attacks", "dcr")
    assert result.exit_code == 0, result.output
    assert "times the original's records" in result.output
    column = members.select_dtypes("number").columns[0]
    inf = tmp_path / "inf.csv"
    synthetic.assign(**{column: synthetic[column].astype(float).where(
        synthetic.index >= 5, float("inf"))}).to_csv(inf, index=False)
    result = run(files["members"], inf, "--holdout", files["holdout"], "--attacks", "dcr")
    assert result.exit_code == 0, result.output
    assert "infinite values (inf, -inf) are read as missing" in result.output
    half = len(members) // 2
    twins = tmp_path / "twins.csv"
    pd.concat([members.iloc[:half], holdout.iloc[:half]]).to_csv(twins, index=False)
    result = run(files["members"], twins, "--holdout", files["holdout"], "-q")
    assert result.exit_code == 1 and "CONTROL IS CONTAMINATED" in result.output, result.output
