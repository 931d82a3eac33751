"""Inputs (docs/own-data.md, "Two traps") on which `capkit disclosure` / `capkit cap` used to
give a wrong answer with exit status 0, and the small flaws of their reports.

The frames are a small Wage-like table made here (mixed types: integer age, text labels for
marital status, a continuous wage), with the syntheses a custodian meets: a copy coded
differently, a bootstrap with 1% noise on the continuous column.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.cli import main

MARITL = ["1. Never Married", "2. Married", "3. Widowed", "4. Divorced", "5. Separated"]


def wage_frame(n: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 30, n),
        "maritl": rng.choice(MARITL, n),
        "race": rng.choice(["White", "Black", "Asian"], n),
        "education": rng.choice(["HS", "College", "Advanced"], n),
        "wage": np.round(rng.lognormal(4.5, 0.4, n), 4),
    })


def run(args: list[object]):  # noqa: ANN201
    return CliRunner().invoke(main, [str(a) for a in args])


def write(frame: pd.DataFrame, path: Path, **options: object) -> Path:
    frame.to_csv(path, index=False, **options)
    return path


@pytest.fixture()
def orig(tmp_path: Path) -> Path:
    return write(wage_frame(), tmp_path / "orig.csv")


def flat(text: str) -> str:
    """The text with its line breaks undone (reports wrap at 96 characters)."""
    return " ".join(text.split())


def _table(stdout: str, title: str) -> dict:
    doc = json.loads(stdout)
    return [t for s in doc["sections"] for t in s["tables"] if t["title"] == title][0]


def _rows(table: dict) -> dict[str, dict[str, object]]:
    return {i: dict(zip(table["columns"], row, strict=True))
            for i, row in zip(table["index"], table["data"], strict=True)}


# ------------------------------------------------------------------ 1. disjoint coding


@pytest.mark.parametrize("command", ["disclosure", "cap"])
def test_key_coded_as_numbers_in_the_synthetic_file_is_an_error(orig: Path, tmp_path: Path,
                                                                 command: str) -> None:
    syn = wage_frame()
    syn["maritl"] = syn["maritl"].str[0].astype(int)  # "2. Married" -> 2
    path = write(syn, tmp_path / "syn.csv")
    out = tmp_path / "report.txt"
    result = run([command, orig, path, "--keys", "age,maritl", "--targets", "race", "-o", out])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") or "\nError: " in result.output
    assert "key column 'maritl'" in result.output
    assert "1. Never Married" in result.output and "'1'" in result.output  # both sides shown
    assert "--allow-disjoint-levels" in result.output
    assert not out.exists()
    allowed = run([command, orig, path, "--keys", "age,maritl", "--targets", "race", "-q",
                   "--allow-disjoint-levels"])
    assert allowed.exit_code == 0, allowed.output


def test_key_with_a_prefix_in_the_synthetic_file_is_an_error(orig: Path, tmp_path: Path
                                                              ) -> None:
    syn = wage_frame()
    syn["age"] = "age_" + syn["age"].astype(str)
    path = write(syn, tmp_path / "syn.csv")
    result = run(["disclosure", orig, path, "--keys", "age,maritl", "--targets", "race"])
    assert result.exit_code == 1, result.output
    assert "key column 'age'" in result.output and "age_2" in result.output


def test_target_coded_differently_is_an_error(orig: Path, tmp_path: Path) -> None:
    syn = wage_frame()
    syn["race"] = syn["race"].str.upper()
    path = write(syn, tmp_path / "syn.csv")
    for command in ("disclosure", "cap"):
        result = run([command, orig, path, "--keys", "age,maritl", "--targets", "race"])
        assert result.exit_code == 1, result.output
        assert "target column 'race'" in result.output and "'WHITE'" in result.output


def test_partial_overlap_below_half_is_an_error_above_half_is_fine(orig: Path, tmp_path: Path
                                                                   ) -> None:
    frame = wage_frame()
    low = frame.copy()  # only "1. Never Married" (about a fifth) keeps its label
    low["maritl"] = low["maritl"].where(low["maritl"] == MARITL[0], low["maritl"].str[3:])
    high = frame.copy()  # one level renamed, the rest kept: a synthetic-only level
    high["maritl"] = high["maritl"].replace(MARITL[4], "Separated")
    bad = run(["cap", orig, write(low, tmp_path / "low.csv"), "--keys", "age,maritl",
               "--targets", "race"])
    assert bad.exit_code == 1 and "key column 'maritl'" in bad.output, bad.output
    good = run(["cap", orig, write(high, tmp_path / "high.csv"), "--keys", "age,maritl",
                "--targets", "race", "-q"])
    assert good.exit_code == 0, good.output


# ------------------------------------------------------------------ 2. continuous target


def _bootstrap_with_noise(seed: int = 1) -> pd.DataFrame:
    frame = wage_frame()
    rng = np.random.default_rng(seed)
    boot = frame.sample(len(frame), replace=True, random_state=seed).reset_index(drop=True)
    boot["wage"] = np.round(boot["wage"] * (1 + rng.normal(0, 0.01, len(boot))), 4)
    return boot


@pytest.mark.parametrize("command", ["disclosure", "cap"])
def test_continuous_target_gets_a_loud_warning(orig: Path, tmp_path: Path, command: str
                                               ) -> None:
    path = write(_bootstrap_with_noise(), tmp_path / "boot.csv")
    result = run([command, orig, path, "--keys", "age,maritl", "--targets", "wage,race"])
    assert result.exit_code == 0, result.output
    assert "Warning: target 'wage'" in result.stderr
    assert "--ngroups-targets" in result.stderr
    assert "Warning: target 'race'" not in result.stderr
    # the report says which measures mean something for it
    assert "target 'wage'" in result.stdout
    assert "distance to closest record" in flat(result.stdout)
    quiet = run([command, orig, path, "--keys", "age,maritl", "--targets", "wage", "-q"])
    assert quiet.stderr == "" and "target 'wage'" in quiet.stdout


def test_grouped_continuous_target_gets_no_warning_and_numbers_stay_exact(
        orig: Path, tmp_path: Path) -> None:
    path = write(_bootstrap_with_noise(), tmp_path / "boot.csv")
    grouped = run(["disclosure", orig, path, "--keys", "age,maritl", "--targets", "wage",
                   "--ngroups-targets", "5"])
    assert grouped.exit_code == 0, grouped.output
    assert "Warning: target 'wage'" not in grouped.stderr
    exact = run(["disclosure", orig, path, "--keys", "age,maritl", "--targets", "wage",
                 "--format", "json", "-q"])
    row = _rows(_table(exact.stdout, "Attribute measures"))["wage"]
    assert row["DiSCO"] == 0  # exact matching, as synthpop: numbers are not changed


# ------------------------------------------------------------------ 3. reading and notes


def test_sep_option_and_sniffing(orig: Path, tmp_path: Path) -> None:
    semi = write(wage_frame(), tmp_path / "semi.csv", sep=";")
    result = run(["disclosure", orig, semi, "--keys", "age", "--targets", "race"])
    assert result.exit_code == 1
    assert "';'" in result.output and "--sep" in result.output, result.output
    tab = write(wage_frame(), tmp_path / "tab.csv", sep="\t")
    result = run(["disclosure", orig, tab, "--keys", "age", "--targets", "race"])
    assert result.exit_code == 1 and "tab" in result.output and "--sep" in result.output
    both = write(wage_frame(), tmp_path / "orig_semi.csv", sep=";")
    ok = run(["disclosure", both, semi, "--keys", "age", "--targets", "race", "--sep", ";",
              "-q"])
    assert ok.exit_code == 0, ok.output


def test_target_with_missing_values_gets_a_note_with_the_count(tmp_path: Path) -> None:
    frame = wage_frame()
    frame.loc[:6, "race"] = None
    o = write(frame, tmp_path / "o.csv")
    s = write(wage_frame(), tmp_path / "s.csv")
    for command in ("disclosure", "cap"):
        result = run([command, o, s, "--keys", "age", "--targets", "race"])
        assert result.exit_code == 0, result.output
        assert "target 'race' has 7 missing values in the original file" in result.stderr


def test_extra_synthetic_column_gets_a_note(orig: Path, tmp_path: Path) -> None:
    syn = wage_frame().assign(junk=1)
    result = run(["disclosure", orig, write(syn, tmp_path / "s.csv"), "--keys", "age"])
    assert result.exit_code == 0, result.output
    assert "'junk'" in result.stderr and "not in the original file" in result.stderr


def test_excluded_counts_are_printed(tmp_path: Path) -> None:
    frame = wage_frame()
    frame.loc[:6, "race"] = None
    o = write(frame, tmp_path / "o.csv")
    result = run(["disclosure", o, o, "--keys", "age", "--targets", "race", "--no-target-na",
                  "-q"])
    assert result.exit_code == 0, result.output
    assert "json output" not in result.stdout
    assert "7 original records with a missing target" in flat(result.stdout)


def test_one_pair_is_one_pair(tmp_path: Path) -> None:
    rows = [("F", "a")] * 10 + [("M", "a"), ("M", "b"), ("M", "c")] * 4
    frame = pd.DataFrame(rows, columns=["sex", "y"])
    o = write(frame, tmp_path / "o.csv")
    result = run(["disclosure", o, o, "--keys", "sex", "--targets", "y", "--format", "json",
                  "-q"])
    assert result.exit_code == 0, result.output
    assert "1 pair needs checks" in result.stdout and "1 pairs" not in result.stdout


def test_empty_synthetic_file_is_called_synthetic(orig: Path, tmp_path: Path) -> None:
    zero = tmp_path / "zero.csv"
    zero.write_text("")
    for engine in ("pandas", "duckdb"):
        result = run(["disclosure", orig, zero, "--keys", "age", "--engine", engine])
        assert result.exit_code == 1
        assert "synthetic file" in result.output and "empty" in result.output, result.output
    result = run(["cap", orig, zero, "--keys", "age", "--targets", "race"])
    assert "synthetic file" in result.output and "empty" in result.output, result.output


def test_all_missing_target_shows_nan(tmp_path: Path) -> None:
    frame = wage_frame().assign(race=np.nan)
    o = write(frame, tmp_path / "o.csv")
    result = run(["disclosure", o, write(wage_frame(), tmp_path / "s.csv"), "--keys", "age",
                  "--targets", "race"])
    assert result.exit_code == 1
    assert "np.float64" not in result.output and "nan" in result.output, result.output


# ------------------------------------------------------------------ 4. one unit per report


def test_cap_report_in_percent_like_the_disclosure_report(orig: Path, tmp_path: Path) -> None:
    syn = write(wage_frame(seed=5), tmp_path / "s.csv")
    cap = run(["cap", orig, syn, "--keys", "age,maritl", "--targets", "race", "--format",
               "json", "-q"])
    dis = run(["disclosure", orig, syn, "--keys", "age,maritl", "--targets", "race",
               "--format", "json", "-q"])
    assert cap.exit_code == 0 and dis.exit_code == 0, cap.output + dis.output
    cap_table = _table(cap.stdout, "Average CAP by target")
    family = _table(dis.stdout, "CAP family")
    assert cap_table["units"][cap_table["columns"].index("CAP v1")] == "%"
    assert family["units"][family["columns"].index("CAP v1 (DCAP)")] == "%"
    got, want = _rows(cap_table)["race"], _rows(family)["race"]
    assert got["CAP v1"] == pytest.approx(want["CAP v1 (DCAP)"], rel=1e-12)
    assert got["CAP v2"] == pytest.approx(want["CAP v2"], rel=1e-12)
    assert got["baseline"] == pytest.approx(want["baseline"], rel=1e-12)
    text = run(["cap", orig, syn, "--keys", "age,maritl", "--targets", "race", "-q"]).stdout
    assert "CAP v1 (%)" in text and "baseline (%)" in text
    text = run(["disclosure", orig, syn, "--keys", "age,maritl", "--targets", "race",
                "-q"]).stdout
    assert "DiSCO (%)" in text and "CAP v2 (%)" in text and "attrib.syn (%)" in text


# ------------------------------------------------------------------ 5. --records


def test_records_columns_say_what_they_are(orig: Path, tmp_path: Path) -> None:
    frame = wage_frame()
    syn = frame.iloc[: len(frame) // 2]  # the other half's keys may be absent
    s1 = write(syn, tmp_path / "s1.csv")
    s2 = write(frame, tmp_path / "s2.csv")
    records = tmp_path / "records.csv"
    result = run(["cap", orig, s1, s2, "--keys", "age,maritl", "--targets", "race",
                  "--records", records, "-q"])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(records)
    assert {"cap_race_syn1", "cap_race_syn2"} <= set(written.columns)
    keys = set(map(tuple, syn[["age", "maritl"]].to_numpy()))
    absent = ~pd.Series([tuple(r) in keys for r in frame[["age", "maritl"]].to_numpy()])
    assert absent.any()
    assert written.loc[absent, "cap_race_syn1"].isna().all()
    assert written.loc[~absent, "cap_race_syn1"].notna().all()
    assert written["cap_race_syn2"].notna().all()
