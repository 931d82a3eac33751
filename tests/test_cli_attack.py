"""`capkit attack`, and `--holdout` of `capkit cap` / `capkit disclosure`: the numbers of the
reports equal the library's on the same frames; bad input is one `Error:` line, nothing
written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit import attacks, cap
from capkit.cli import main
from capkit.counts.tables import crosstab
from capkit.disclosure import disclosure_summary


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(["north", "south", "east"], n)
    smoke = np.where((sex == "M") & (rng.random(n) < 0.6), "yes", rng.choice(["yes", "no"], n))
    return pd.DataFrame({"sex": sex, "age": rng.integers(20, 26, n), "region": region,
                         "smoke": smoke, "income": rng.normal(100, 20, n).round(1)})


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    frames = {"orig": _frame(160, 1), "syn": _frame(150, 2), "hold": _frame(140, 3)}
    paths = {}
    for name, frame in frames.items():
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    return paths


def run(args: list[object]):  # noqa: ANN201
    return CliRunner().invoke(main, [str(a) for a in args])


def _read(files: dict[str, Path]) -> dict[str, pd.DataFrame]:
    return {name: pd.read_csv(path) for name, path in files.items()}


def _table(report: dict, title: str) -> pd.DataFrame:
    for section in report["sections"]:
        for table in section["tables"]:
            if table["title"] == title:
                return pd.DataFrame(table["data"], columns=table["columns"],
                                    index=table["index"])
    raise AssertionError(f"no table {title!r}")


def test_attack_report_equals_library(files: dict[str, Path]) -> None:
    result = run(["attack", files["orig"], files["syn"], "--keys", "sex,age,region",
                  "--targets", "smoke,income", "--holdout", files["hold"], "--key-length", "2",
                  "--attackers", "cap,gcap,lr", "--format", "json", "-q"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    frames = _read(files)
    table = attacks.baseline_table(frames["orig"], frames["syn"], ["sex", "age", "region"],
                                   ["smoke", "income"], key_length=2,
                                   attackers=["cap", "gcap", "lr"], holdout=frames["hold"],
                                   progress=False)
    shown = _table(report, "Success rate by attacker").set_index(["target", "attacker"])
    members = table[(table["trained_on"] == "synthetic") & (table["scored_on"] == "members")]
    expected = members.groupby(["target", "attacker"])["rate"].mean()
    for (target, attacker), rate in expected.items():
        assert shown.loc[(target, attacker), "synthetic-trained, members"] == pytest.approx(
            100 * rate, rel=1e-12)
    single = attacks.attribute_attack(frames["orig"], frames["syn"], ["sex", "region"],
                                      "smoke", attacker="gcap", holdout=frames["hold"])
    sets = _table(report, "The strongest synthetic-trained attacker of each key set")
    assert len(sets) == 3 * 2  # key pairs x targets
    assert single.rate in set(table.query("keys == 'sex + region' and target == 'smoke' and "
                                          "trained_on == 'synthetic' and scored_on == "
                                          "'members'")["rate"])
    items = " ".join(report["sections"][0]["items"])
    assert "Target 'smoke'" in items and "On the holdout" in items and "dummy" in items


def test_attack_table_keeps_each_targets_attacker_order(files: dict[str, Path]) -> None:
    """A numeric target's own attacker (mlp) sits among its attackers, the dummy last, also
    after a categorical target that has no mlp."""
    result = run(["attack", files["orig"], files["syn"], "--keys", "sex,region", "--targets",
                  "smoke,income", "--attackers", "cap,svm,mlp", "--key-length", "1",
                  "--format", "json", "-q"])
    assert result.exit_code == 0, result.output
    shown = _table(json.loads(result.output), "Success rate by attacker")
    order = {t: shown.loc[shown["target"] == t, "attacker"].tolist() for t in ("smoke", "income")}
    assert order["income"] == ["cap", "svm", "mlp", "dummy"]
    assert order["smoke"][-1] == "dummy" and "mlp" not in order["smoke"]


def test_attack_html_and_plot(files: dict[str, Path], tmp_path: Path) -> None:
    out, plot = tmp_path / "r.html", tmp_path / "r.svg"
    result = run(["attack", files["orig"], files["syn"], "--keys", "sex,region", "--targets",
                  "smoke", "--attackers", "gcap,nb", "--format", "html", "-o", out,
                  "--plot", plot, "-q"])
    assert result.exit_code == 0, result.output
    assert "data:image/svg+xml;base64" in out.read_text()
    assert plot.read_text().startswith("<?xml")
    text = run(["attack", files["orig"], files["syn"], "--keys", "sex,region", "--targets",
                "smoke", "--attackers", "gcap", "-q"]).output
    assert "Without a holdout" in text


@pytest.mark.parametrize(("extra", "message"), [
    (["--attackers", "cap,oracle"], "--attackers: unknown attacker 'oracle'"),
    (["--key-length", "3"], "--key-length must be from 1 to the number of --keys (2)"),
    (["--holdout", "missing.csv"], "--holdout file 'missing.csv' does not exist"),
    (["--targets", "sex"], "target column 'sex' is also a key"),
])
def test_attack_bad_input(files: dict[str, Path], tmp_path: Path, extra: list[str],
                          message: str) -> None:
    out = tmp_path / "report.txt"
    args = ["attack", files["orig"], files["syn"], "--keys", "sex,region", "--targets", "smoke",
            *extra, "-o", out, "-q"]
    result = run(args)
    assert result.exit_code != 0
    assert message in result.output, result.output
    assert not out.exists()


def test_holdout_with_another_column_type(files: dict[str, Path], tmp_path: Path) -> None:
    holdout = pd.read_csv(files["hold"]).drop(columns="smoke")
    path = tmp_path / "bad_hold.csv"
    holdout.to_csv(path, index=False)
    result = run(["attack", files["orig"], files["syn"], "--keys", "sex", "--targets", "smoke",
                  "--holdout", path, "-q"])
    assert result.exit_code != 0 and "smoke" in result.output and "holdout" in result.output


def test_cap_holdout_equals_library(files: dict[str, Path]) -> None:
    result = run(["cap", files["orig"], files["syn"], "--keys", "sex,region", "--targets",
                  "smoke", "--holdout", files["hold"], "--format", "json", "-q"])
    assert result.exit_code == 0, result.output
    frames = _read(files)
    table = crosstab(frames["orig"], frames["syn"], ["sex", "region"], "smoke",
                     holdout=frames["hold"])
    control = cap.average_cap(table.original, table.synthetic, holdout=table.holdout)
    shown = _table(json.loads(result.output), "CAP v1 of original and holdout records")
    row = shown.iloc[0]
    assert row["CAP v1"] == pytest.approx(100 * control.members, rel=1e-12)
    assert row["holdout CAP v1"] == pytest.approx(100 * control.holdout, rel=1e-12)
    assert row["risk"] == pytest.approx(100 * control.comparison.risk, abs=1e-12)
    plain = run(["cap", files["orig"], files["syn"], "--keys", "sex,region", "--targets",
                 "smoke", "--format", "json", "-q"])
    assert _table(json.loads(plain.output), "Average CAP by target")["CAP v1"].iloc[0] == \
        row["CAP v1"]
    engine = run(["cap", files["orig"], files["syn"], "--keys", "sex", "--targets", "smoke",
                  "--holdout", files["hold"], "--engine", "duckdb", "-q"])
    assert engine.exit_code != 0 and "--holdout needs --engine pandas" in engine.output


def test_disclosure_holdout_equals_library(files: dict[str, Path]) -> None:
    result = run(["disclosure", files["orig"], files["syn"], "--keys", "sex,region",
                  "--targets", "smoke", "--holdout", files["hold"], "--format", "json", "-q"])
    assert result.exit_code == 0, result.output
    frames = _read(files)
    summary = disclosure_summary(frames["syn"], frames["orig"], ["sex", "region"], ["smoke"],
                                 compare_synorig=False, holdout=frames["hold"])
    shown = _table(json.loads(result.output), "Original records (members) against holdout")
    expected = summary.control
    np.testing.assert_allclose(shown["members"], expected["members"], rtol=1e-12)
    np.testing.assert_allclose(shown["holdout"], expected["holdout"], rtol=1e-12)
    assert list(shown["measure"]) == ["DiSCO", "DCAP", "baseCAPd"]


def test_attack_anonymeter_and_sdmetrics_sections_equal_library(files: dict[str, Path]) -> None:
    """--singling-out, --linkability and --sdmetrics: the report's numbers are the library's
    on the same frames, in every format."""
    from capkit.sdmetrics import DCROverfittingProtection, DisclosureProtection

    args = ["attack", files["orig"], files["syn"], "--keys", "sex,age,region", "--targets",
            "smoke", "--holdout", files["hold"], "--attackers", "cap", "--singling-out",
            "--linkability", "sex,age;region,income", "--sdmetrics", "--seed", "3", "-q"]
    result = run([*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    frames = _read(files)
    shown = _table(report, "anonymeter's attacks").set_index("attack")
    so = attacks.singling_out(frames["orig"], frames["syn"], control=frames["hold"], seed=3)
    lk = attacks.linkability(frames["orig"], frames["syn"], (["sex", "age"],
                                                             ["region", "income"]),
                             control=frames["hold"], seed=3)
    for name, expected in (("singling out (multivariate)", so), ("linkability", lk)):
        row = shown.loc[name]
        assert row["risk"] == pytest.approx(100 * expected.risk, abs=1e-12)
        assert row["members rate"] == pytest.approx(100 * expected.control.members.rate,
                                                    rel=1e-12)
        assert row["compared rate"] == pytest.approx(100 * expected.control.control.rate,
                                                     rel=1e-12)
    assert shown.loc["linkability", "tie range"] == f"{lk.links_range[0]}-{lk.links_range[1]}"
    scores = _table(report, "SDMetrics 0.32 protection scores (1 = safe)").set_index("metric")
    assert scores.loc["DisclosureProtection", "score"] == pytest.approx(
        DisclosureProtection.compute(frames["orig"], frames["syn"], ["sex", "age", "region"],
                                     ["smoke"], continuous_column_names=["age"]), rel=1e-12)
    meta = {"columns": {c: {"sdtype": "numerical" if c in ("age", "income") else
                            "categorical"} for c in frames["orig"].columns}}
    assert scores.loc["DCROverfittingProtection", "score"] == pytest.approx(
        DCROverfittingProtection.compute(frames["orig"], frames["syn"], frames["hold"], meta),
        rel=1e-12)
    for fmt in ("text", "markdown", "html"):
        out = run([*args, "--format", fmt])
        assert out.exit_code == 0 and "anonymeter" in out.output


@pytest.mark.parametrize("value, message", [
    ("sex,age", "two column lists"), ("sex;", "two column lists"),
    ("sex;nope", "'nope' is missing")])
def test_attack_bad_linkability_is_one_error_line(files: dict[str, Path], value: str,
                                                  message: str) -> None:
    result = run(["attack", files["orig"], files["syn"], "--keys", "sex,age", "--targets",
                  "smoke", "--linkability", value, "-q"])
    assert result.exit_code == 1
    assert result.output.startswith("Error:") and message in result.output
    assert "Traceback" not in result.output


def test_sdmetrics_warnings_are_notes_not_python_warnings(tmp_path: Path) -> None:
    """A holdout under half the members' size: SDMetrics' DCROverfittingProtection warns. The
    warning is one ``Warning:`` line (not Python's ``file.py:line: UserWarning``, once per
    synthetic file), a note of the report, and nothing on stderr with --quiet."""
    paths = {}
    for name, (n, seed) in {"orig": (200, 1), "syn1": (150, 2), "syn2": (150, 4),
                            "hold": (60, 3)}.items():
        paths[name] = tmp_path / f"{name}.csv"
        _frame(n, seed).to_csv(paths[name], index=False)
    args = ["attack", paths["orig"], paths["syn1"], paths["syn2"], "--keys", "sex,age,region",
            "--targets", "smoke", "--holdout", paths["hold"], "--attackers", "cap",
            "--sdmetrics"]
    loud = run(args)
    assert loud.exit_code == 0, loud.output
    assert "UserWarning" not in loud.stderr and ".py:" not in loud.stderr
    assert loud.stderr.count("Warning: DCROverfittingProtection: Your real_validation_data") == 1
    assert "DCROverfittingProtection: Your real_validation_data contains 60 rows" in " ".join(
        loud.stdout.split())
    quiet = run([*args, "-q"])
    assert quiet.exit_code == 0 and "validation" not in quiet.stderr
