"""`capkit disclosure` / `capkit cap`: input hardening, formats, type alignment, CAP values.

Each rejected input is checked for (1) its message, naming the file / column, (2) a non-zero
exit code, (3) nothing written: neither --output, --records nor --plot exists afterwards.
The CAP values of `capkit cap` are checked against a slow record-by-record reference.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.cli import main
from capkit.data import io
from capkit.errors import CapkitError


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "sex": rng.choice(["F", "M"], n),
        "age": rng.integers(20, 25, n),
        "region": rng.choice(["north", "south", "east"], n),
        "smoke": rng.choice(["yes", "no"], n, p=[0.3, 0.7]),
        "income": rng.choice([-8, 100, 200, 300], n).astype(float),
    })


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    orig, syn1, syn2 = _frame(200, 1), _frame(200, 2), _frame(180, 3)
    orig.loc[3, "smoke"] = None
    paths = {"orig": tmp_path / "orig.csv", "syn1": tmp_path / "syn1.csv",
             "syn2": tmp_path / "syn2.csv"}
    orig.to_csv(paths["orig"], index=False)
    syn1.to_csv(paths["syn1"], index=False)
    syn2.to_csv(paths["syn2"], index=False)
    return paths


def run(args: list[str]):  # noqa: ANN201
    return CliRunner().invoke(main, [str(a) for a in args])


def rejected(args: list[str], message: str, tmp_path: Path, command: str = "disclosure"
             ) -> None:
    """Run with --output (and --records / --plot); expect failure, message, nothing written."""
    out = tmp_path / "out" / "report.txt"
    out.parent.mkdir(exist_ok=True)
    extra = ["--output", out]
    if command == "cap":
        extra += ["--records", tmp_path / "out" / "records.csv"]
    result = run([command, *args, *extra])
    assert result.exit_code != 0
    assert message in result.output, result.output
    assert result.output.startswith("Error: ") or "\nError: " in result.output
    assert list((tmp_path / "out").iterdir()) == []


# ------------------------------------------------------------------------ hardening


def test_missing_original_file(files: dict[str, Path], tmp_path: Path) -> None:
    rejected([tmp_path / "nope.csv", files["syn1"], "--keys", "sex,age"],
             f"original file '{tmp_path / 'nope.csv'}' does not exist", tmp_path)


def test_missing_synthetic_file(files: dict[str, Path], tmp_path: Path) -> None:
    rejected([files["orig"], tmp_path / "gone.csv", "--keys", "sex,age"],
             f"synthetic file '{tmp_path / 'gone.csv'}' does not exist", tmp_path)


def test_unreadable_file_folder(files: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "adir.csv"
    folder.mkdir()
    rejected([folder, files["syn1"], "--keys", "sex,age"], "is a folder, not a data file",
             tmp_path)


def test_unreadable_file_corrupt_parquet(files: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_text("this is not parquet")
    rejected([files["orig"], bad, "--keys", "sex,age"], "cannot be read as Parquet", tmp_path)


def test_unreadable_file_corrupt_rda(files: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.rda"
    bad.write_bytes(b"\x00\x01 not an R file at all")
    rejected([bad, files["syn1"], "--keys", "sex,age"], "cannot be read as an R .rda file",
             tmp_path)


def test_unknown_extension(files: dict[str, Path], tmp_path: Path) -> None:
    odd = tmp_path / "data.xlsx"
    odd.write_text("x")
    rejected([files["orig"], odd, "--keys", "sex,age"], "cannot tell the format of 'data.xlsx'",
             tmp_path)


def test_key_absent_from_a_file(files: dict[str, Path], tmp_path: Path) -> None:
    rejected([files["orig"], files["syn1"], "--keys", "sex,agee"],
             "key column 'agee' is missing from original file 'orig.csv'", tmp_path)


def test_target_absent_from_synthetic(files: dict[str, Path], tmp_path: Path) -> None:
    syn = pd.read_csv(files["syn1"]).drop(columns="smoke")
    path = tmp_path / "nosmoke.csv"
    syn.to_csv(path, index=False)
    rejected([files["orig"], path, "--keys", "sex,age", "--targets", "smoke"],
             "target column 'smoke' is missing from synthetic file 'nosmoke.csv'", tmp_path)


def test_duplicated_column_names(files: dict[str, Path], tmp_path: Path) -> None:
    text = files["syn1"].read_text().splitlines()
    text[0] = text[0].replace("region", "sex")
    path = tmp_path / "dup.csv"
    path.write_text("\n".join(text) + "\n")
    rejected([files["orig"], path, "--keys", "sex,age"],
             "synthetic file 'dup.csv' has duplicated column names: ['sex']", tmp_path)


def test_all_na_key(files: dict[str, Path], tmp_path: Path) -> None:
    orig = pd.read_csv(files["orig"])
    orig["age"] = np.nan
    path = tmp_path / "nokey.csv"
    orig.to_csv(path, index=False)
    rejected([path, files["syn1"], "--keys", "sex,age"],
             "key column 'age' is missing (NA) in every record of original file 'nokey.csv'",
             tmp_path)


def test_target_with_one_level(files: dict[str, Path], tmp_path: Path) -> None:
    orig = pd.read_csv(files["orig"])
    orig["smoke"] = "no"
    path = tmp_path / "onelevel.csv"
    orig.to_csv(path, index=False)
    rejected([path, files["syn1"], "--keys", "sex,age", "--targets", "smoke"],
             "target column 'smoke' has a single level ('no') in the original file", tmp_path)


def test_target_with_one_level_skipped_when_not_asked(files: dict[str, Path],
                                                      tmp_path: Path) -> None:
    orig = pd.read_csv(files["orig"])
    orig["smoke"] = "no"
    path = tmp_path / "onelevel.csv"
    orig.to_csv(path, index=False)
    result = run(["disclosure", path, files["syn1"], "--keys", "sex,age", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "target column 'smoke' has a single level" in result.stderr
    targets = [t["index"] for s in json.loads(result.stdout)["sections"] for t in s["tables"]
               if t["title"] == "Identity measures"][0]
    assert "smoke" not in targets and "income" in targets


def test_synthetic_files_with_different_columns(files: dict[str, Path], tmp_path: Path) -> None:
    syn = pd.read_csv(files["syn2"]).rename(columns={"income": "wage"})
    path = tmp_path / "other.csv"
    syn.to_csv(path, index=False)
    rejected([files["orig"], files["syn1"], path, "--keys", "sex,age", "--targets", "smoke"],
             "synthetic file 'other.csv' has different columns from 'syn1.csv' (missing: "
             "['income'], extra: ['wage'])", tmp_path)


def test_empty_file(files: dict[str, Path], tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    rejected([files["orig"], empty, "--keys", "sex,age"], "is empty (0 bytes)", tmp_path)


def test_header_only_file(files: dict[str, Path], tmp_path: Path) -> None:
    header = tmp_path / "header.csv"
    header.write_text(files["orig"].read_text().splitlines()[0] + "\n")
    rejected([header, files["syn1"], "--keys", "sex,age"],
             "original file 'header.csv' is empty: it has a header but no rows", tmp_path)


def test_key_with_as_many_values_as_rows_warns(files: dict[str, Path], tmp_path: Path) -> None:
    orig, syn = pd.read_csv(files["orig"]), pd.read_csv(files["syn1"])
    orig["id"] = np.arange(len(orig))
    syn["id"] = np.arange(len(syn))
    po, ps = tmp_path / "o.csv", tmp_path / "s.csv"
    orig.to_csv(po, index=False)
    syn.to_csv(ps, index=False)
    out = tmp_path / "r.txt"
    result = run(["disclosure", po, ps, "--keys", "sex,id", "--targets", "smoke", "-o", out])
    assert result.exit_code == 0, result.output
    assert "key 'id' has 200 distinct values in the 200 original records: every record is " \
           "unique on it" in result.stderr
    report = " ".join(out.read_text().split())
    assert "100.00% of the 200 original records are unique on the keys" in report
    assert "key 'id' has 200 distinct values" in report  # the warning is in the report too


def test_cont_na_value_that_does_not_occur(files: dict[str, Path], tmp_path: Path) -> None:
    rejected([files["orig"], files["syn1"], "--keys", "sex,age", "--cont-na", "income=-9"],
             "--cont-na income=-9: value -9 does not occur in column 'income' of the original "
             "file", tmp_path)


def test_cont_na_value_that_occurs_is_accepted(files: dict[str, Path]) -> None:
    result = run(["disclosure", files["orig"], files["syn1"], "--keys", "sex,age",
                  "--cont-na", "income=-8", "--ngroups-targets", "3", "-q"])
    assert result.exit_code == 0, result.output


def test_target_that_is_a_key(files: dict[str, Path], tmp_path: Path) -> None:
    rejected([files["orig"], files["syn1"], "--keys", "sex,age", "--targets", "age"],
             "target column 'age' is also a key", tmp_path)


def test_cap_rejects_missing_key_and_writes_no_records(files: dict[str, Path],
                                                       tmp_path: Path) -> None:
    rejected([files["orig"], files["syn1"], "--keys", "sex,zzz", "--targets", "smoke"],
             "key column 'zzz' is missing from original file 'orig.csv'", tmp_path,
             command="cap")


def test_dates_against_numbers_cannot_be_aligned(files: dict[str, Path],
                                                 tmp_path: Path) -> None:
    orig, syn = pd.read_csv(files["orig"]), pd.read_csv(files["syn1"])
    orig["when"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(orig["age"], unit="D")
    syn["when"] = syn["age"]
    po, ps = tmp_path / "o.parquet", tmp_path / "s.parquet"
    orig.to_parquet(po)
    syn.to_parquet(ps)
    rejected([po, ps, "--keys", "sex,when", "--targets", "smoke"],
             "column 'when' holds dates/times in the original file but integers in the "
             "synthetic file; this cannot be aligned", tmp_path)


def test_too_large_for_memory_message(files: dict[str, Path], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise MemoryError

    monkeypatch.setattr(io, "_read_csv", boom)
    rejected([files["orig"], files["syn1"], "--keys", "sex,age", "--targets", "smoke"],
             "original file 'orig.csv' is too large for memory even reading only the 3 needed "
             "columns ['sex', 'age', 'smoke']", tmp_path)


# ------------------------------------------------------------------------ reading


def test_only_needed_columns_are_read(files: dict[str, Path], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """CSV: usecols; Parquet: column projection (the other columns are never decoded)."""
    wide = pd.read_csv(files["orig"])
    for k in range(30):
        wide[f"junk{k}"] = "x" * 50
    csv, pq_path = tmp_path / "wide.csv", tmp_path / "wide.parquet"
    wide.to_csv(csv, index=False)
    wide.to_parquet(pq_path)
    import pyarrow.parquet as pq

    asked: list[object] = []
    real = pq.read_table

    def spy(path, columns=None, **kw):  # noqa: ANN001, ANN003, ANN202
        asked.append(columns)
        return real(path, columns=columns, **kw)

    monkeypatch.setattr(pq, "read_table", spy)
    for path in (csv, pq_path):
        got = io.read_table(path, ["age", "sex"], role="original")
        assert list(got.frame.columns) == ["age", "sex"]
        assert len(got.columns) == 35
        pd.testing.assert_series_equal(got.frame["age"], wide["age"], check_dtype=False)
    assert asked == [["age", "sex"]]
    csv_read = []
    real_csv = pd.read_csv

    def spy_csv(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        csv_read.append(kw.get("usecols"))
        return real_csv(*a, **kw)

    monkeypatch.setattr(pd, "read_csv", spy_csv)
    io.read_table(csv, ["smoke"], role="original")
    assert ["smoke"] in csv_read


def test_rda_and_rds_are_read(tmp_path: Path) -> None:
    import pyreadr

    frame = _frame(20, 5)
    rds = tmp_path / "x.rds"
    pyreadr.write_rds(str(rds), frame)
    rda = tmp_path / "x.rda"
    pyreadr.write_rdata(str(rda), frame, df_name="orig")
    for path in (rds, rda):
        got = io.read_table(path, ["sex", "smoke"], role="synthetic")
        assert got.frame["smoke"].tolist() == frame["smoke"].tolist()


def test_na_values_default_and_override(tmp_path: Path) -> None:
    path = tmp_path / "na.csv"
    path.write_text("a,b\nNA,1\nNone,2\n,3\n")
    got = io.read_table(path, ["a"]).frame["a"]
    assert got.isna().tolist() == [True, False, True]
    got = io.read_table(path, ["a"], na_values=[""]).frame["a"]
    assert got.tolist()[:2] == ["NA", "None"]


def test_read_errors_are_capkit_errors(tmp_path: Path) -> None:
    with pytest.raises(CapkitError, match="data file 'x.csv' does not exist|does not exist"):
        io.read_table(tmp_path / "x.csv")


# ------------------------------------------------------------------------ alignment


def test_alignment_is_reported_and_gives_the_same_numbers(files: dict[str, Path],
                                                          tmp_path: Path) -> None:
    """Ages written as text ("21.0") and income as integers in the synthetic file: aligned,
    said so, and the measures equal those of the clean files."""
    syn = pd.read_csv(files["syn1"])
    first_age = int(syn.loc[0, "age"])
    syn["age"] = syn["age"].map(lambda v: f"{v}.0")
    syn.loc[0, "age"] = f" {first_age} "
    syn["income"] = syn["income"].astype(int)
    messy = tmp_path / "messy.parquet"
    syn.to_parquet(messy)
    args = ["--keys", "sex,age,region", "--targets", "smoke,income", "--format", "json"]
    clean = run(["disclosure", files["orig"], files["syn1"], *args])
    aligned = run(["disclosure", files["orig"], messy, *args])
    assert clean.exit_code == 0 and aligned.exit_code == 0, aligned.output
    assert "Aligned: 'age': numbers read as text in the synthetic file; converted to numbers" \
        in aligned.stderr

    def numbers(stdout: str) -> list:
        doc = json.loads(stdout)
        return [t["data"] for s in doc["sections"] for t in s["tables"]
                if t["title"] in ("Identity measures", "Attribute measures", "CAP family")]

    assert numbers(aligned.stdout) == numbers(clean.stdout)


def test_alignment_of_category_levels(tmp_path: Path) -> None:
    from capkit.data.align import align_frames

    orig = pd.DataFrame({"k": pd.Categorical(["a", "b", "a"]), "t": [1, 2, 3]})
    syn = pd.DataFrame({"k": pd.Categorical(["a", "c", "c"]), "t": [1.0, 2.5, 3.0]})
    before = (orig.copy(), syn.copy())
    out = align_frames(orig, [syn])
    assert list(out.original["k"].cat.categories) == ["a", "c", "b"]
    assert list(out.synthetics[0]["k"].cat.categories) == ["a", "c", "b"]
    assert out.original["t"].dtype == float
    assert any("categories differ" in c and "lacks ['b']" in c for c in out.changes)
    assert any("'t': integers in the original file" in c for c in out.changes)
    pd.testing.assert_frame_equal(orig, before[0])  # inputs untouched
    pd.testing.assert_frame_equal(syn, before[1])


# ------------------------------------------------------------------------ outputs


def _reference_cap(orig: pd.DataFrame, syn: pd.DataFrame, keys: list[str], target: str
                   ) -> tuple[float, float, list[float]]:
    """Slow record-by-record CAP (Definitions 1-3), missing values as a level."""
    def key(row: pd.Series) -> tuple:
        return tuple("<NA>" if pd.isna(row[k]) else row[k] for k in keys)

    def tval(row: pd.Series) -> object:
        return "<NA>" if pd.isna(row[target]) else row[target]

    groups: dict[tuple, list[object]] = {}
    for _, row in syn.iterrows():
        groups.setdefault(key(row), []).append(tval(row))
    caps, matched = [], []
    for _, row in orig.iterrows():
        same = groups.get(key(row))
        caps.append(0.0 if same is None else same.count(tval(row)) / len(same))
        if same is not None:
            matched.append(caps[-1])
    return float(np.mean(caps)), float(np.mean(matched)), caps


def test_cap_command_matches_record_by_record_reference(files: dict[str, Path],
                                                        tmp_path: Path) -> None:
    records = tmp_path / "records.csv"
    result = run(["cap", files["orig"], files["syn1"], "--keys", "sex,age,region",
                  "--targets", "smoke", "--format", "json", "--records", records])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    table = [t for s in doc["sections"] for t in s["tables"]
             if t["title"] == "Average CAP by target"][0]
    row = dict(zip(table["columns"], table["data"][0], strict=True))
    orig = pd.read_csv(files["orig"], keep_default_na=False, na_values=["", "NA"])
    syn = pd.read_csv(files["syn1"], keep_default_na=False, na_values=["", "NA"])
    v1, v2, caps = _reference_cap(orig, syn, ["sex", "age", "region"], "smoke")
    units = dict(zip(table["columns"], table["units"], strict=True))
    assert units["CAP v1"] == units["CAP v2"] == "%"
    assert row["CAP v1"] == pytest.approx(100 * v1, rel=1e-12)
    assert row["CAP v2"] == pytest.approx(100 * v2, rel=1e-12)
    written = pd.read_csv(records)
    assert written["record"].tolist() == list(range(1, 201))
    # a record whose key is absent from the synthetic data has no CAP (no guess), not 0
    np.testing.assert_allclose(written["cap_smoke_syn1"].fillna(0).to_numpy(), caps,
                               rtol=1e-12)
    assert written["cap_smoke_syn1"].mean() == pytest.approx(v2, rel=1e-12)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_formats(files: dict[str, Path], fmt: str) -> None:
    result = run(["disclosure", files["orig"], files["syn1"], files["syn2"], "--keys",
                  "sex,age", "--targets", "smoke,region", "--format", fmt, "-q"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "capkit disclosure " in out  # the exact command
    if fmt == "json":
        doc = json.loads(out)
        assert doc["versions"]["capkit"]
        assert doc["command"].endswith("--format json -q")
    elif fmt == "html":
        assert out.startswith("<!DOCTYPE html>") and out.count("<table>") >= 4
        assert "http://" not in out and "https://" not in out  # self-contained
    elif fmt == "markdown":
        assert "| attrib.orig (%) | attrib.syn (%) |" in out
        assert "|---|" in out or "|---:|" in out
    else:
        assert "Attribute disclosure measures (disclosure_summary)" in out


def test_quiet_prints_nothing_on_stderr(files: dict[str, Path], tmp_path: Path) -> None:
    syn = pd.read_csv(files["syn1"])
    syn["age"] = syn["age"].astype(str) + ".0"
    path = tmp_path / "s.parquet"
    syn.to_parquet(path)
    loud = run(["disclosure", files["orig"], path, "--keys", "sex,age"])
    quiet = run(["disclosure", files["orig"], path, "--keys", "sex,age", "--quiet"])
    assert loud.exit_code == 0 and quiet.exit_code == 0
    assert "Aligned:" in loud.stderr
    assert quiet.stderr == ""


def test_output_file_written_only_on_success(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    result = run(["disclosure", files["orig"], files["syn1"], "--keys", "sex,age",
                  "--format", "markdown", "-o", out, "-q"])
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text().startswith("# capkit disclosure report")


def test_same_inputs_same_bytes(files: dict[str, Path]) -> None:
    args = ["disclosure", files["orig"], files["syn1"], "--keys", "sex,age", "--format",
            "html", "-q"]
    assert run(args).stdout == run(args).stdout


# ------------------------------------------------------------------------ synthpop options
# The hand-worked example of the spec (../shared/spec/synthpop-disclosure.md, 10.1-10.4):
# 16 original and 15 synthetic records, keys sex and age, target smoke. The expected values are
# the spec's table 10.3 (worked by hand and checked by an independent script there).

SPEC_ORIG = """sex,age,smoke,nkids
F,20,NO,0
F,20,NO,1
F,20,YES,0
F,30,NO,2
F,30,NO,2
F,40,YES,1
F,,NO,0
M,20,YES,3
M,20,YES,3
M,30,NO,1
M,30,,0
M,40,NO,2
M,40,NO,2
M,40,NO,1
M,50,YES,0
F,50,NO,1
"""
SPEC_SYN = """sex,age,smoke,nkids
F,20,NO,0
F,20,NO,0
F,30,NO,2
F,30,YES,1
F,40,YES,1
M,20,YES,3
M,20,YES,3
F,50,YES,1
M,30,NO,1
M,40,NO,2
M,40,YES,1
M,50,YES,0
F,50,NO,1
M,30,,0
F,60,NO,2
"""
#            UiO    repU   Dorig  DiSCO DCAP   TCAP
SPEC_10_3 = {
    (): (25, 12.5, 68.75, 37.5, 62.5, 40),
    ("--no-target-na",): (31.25, 18.75, 68.75, 37.5, 62.5, 42.857142857142854),
    ("--no-keys-na",): (18.75, 12.5, 62.5, 37.5, 62.5, 40),
    ("--not-targetlev", "smoke=NO"): (25, 18.75, 25, 25, 31.25, 80),
    ("--denom-lim", "1", "--exclude-over-denom-lim"): (31.25, 12.5, 25, 12.5, 21.875, 40),
}


@pytest.fixture()
def spec_files(tmp_path: Path) -> tuple[Path, Path]:
    po, ps = tmp_path / "spec_orig.csv", tmp_path / "spec_syn.csv"
    po.write_text(SPEC_ORIG)
    ps.write_text(SPEC_SYN)
    return po, ps


def _json_table(stdout: str, title: str) -> dict[str, dict[str, object]]:
    doc = json.loads(stdout)
    table = [t for s in doc["sections"] for t in s["tables"] if t["title"] == title][0]
    return {i: dict(zip(table["columns"], row, strict=True))
            for i, row in zip(table["index"], table["data"], strict=True)}


@pytest.mark.parametrize("flags", list(SPEC_10_3))
def test_options_reproduce_the_spec_example(spec_files: tuple[Path, Path],
                                            flags: tuple[str, ...]) -> None:
    po, ps = spec_files
    result = run(["disclosure", po, ps, "--keys", "sex,age", "--targets", "smoke",
                  "--format", "json", "-q", *flags])
    assert result.exit_code == 0, result.output
    ident = _json_table(result.stdout, "Identity measures")["smoke"]
    attrib = _json_table(result.stdout, "Attribute measures")["smoke"]
    family = _json_table(result.stdout, "CAP family")["smoke"]
    got = (ident["UiO"], ident["repU"], attrib["Dorig"], attrib["DiSCO"],
           family["CAP v1 (DCAP)"], family["TCAP"])
    assert got == pytest.approx(SPEC_10_3[flags], rel=1e-12)


def test_thresholds_reproduce_the_spec_checks(spec_files: tuple[Path, Path]) -> None:
    """Spec 10.4: thresh_1way = (3, 60) flags level YES; thresh_2way = (1, 55) two pairs."""
    po, ps = spec_files
    result = run(["disclosure", po, ps, "--keys", "sex,age", "--targets", "smoke", "--format",
                  "json", "-q", "--thresh-1way", "3,60", "--thresh-2way", "1,55"])
    assert result.exit_code == 0, result.output
    summary = _json_table(result.stdout, "Attribute disclosure measures (disclosure_summary)")
    row = summary["1 smoke 1&2way checks"]
    assert row["check1"] == "Check  smoke  level  YES"
    assert row["check2"] == "2 pairs need checks" and row["Npairs"] == 2
    doc = json.loads(result.stdout)
    two = [t for s in doc["sections"] for t in s["tables"]
           if t["title"] == "2-way check, target smoke"][0]
    pairs = {(r[0], r[1]): r for r in two["data"]}
    assert set(pairs) == {("NO|F", "sex"), ("YES|20", "age")}
    cols = two["columns"]
    assert pairs[("NO|F", "sex")][cols.index("PctTargetKeyLevel")] == pytest.approx(75)
    assert pairs[("YES|20", "age")][cols.index("key_total")] == 5
    flags = " ".join(p for s in doc["sections"] for p in s["items"])
    assert "level 'YES' holds 66.7% of the records the synthetic data disclose (4 of 6)" in flags


def test_bad_option_values(spec_files: tuple[Path, Path], tmp_path: Path) -> None:
    po, ps = spec_files
    rejected([po, ps, "--keys", "sex,age", "--thresh-1way", "50"],
             "--thresh-1way takes COUNT,PERCENT", tmp_path)
    rejected([po, ps, "--keys", "sex,age", "--not-targetlev", "smoke"],
             "--not-targetlev takes column=value", tmp_path)
    rejected([po, ps, "--keys", "sex,age", "--not-targetlev", "nkidz=1"],
             "--not-targetlev names 'nkidz', which is not a target", tmp_path)
    rejected([po, ps, "--keys", "sex,age", "--plot", tmp_path / "plot.pdf"],
             "--plot must end in .png or .svg", tmp_path)
    rejected([po, ps, "--keys", "sex,,age"], "--keys must be a comma-separated list", tmp_path)


def test_plot_file_is_written(spec_files: tuple[Path, Path], tmp_path: Path) -> None:
    po, ps = spec_files
    plot = tmp_path / "summary.png"
    result = run(["disclosure", po, ps, "--keys", "sex,age", "--plot", plot, "-q"])
    assert result.exit_code == 0, result.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cap_duckdb_engine_gives_the_pandas_numbers(files: dict[str, Path],
                                                    tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    args = ["cap", files["orig"], files["syn1"], files["syn2"], "--keys", "sex,age,region",
            "--targets", "smoke,income", "--format", "json", "-q"]
    pandas_run, duck_run = run(args), run([*args, "--engine", "duckdb"])
    assert pandas_run.exit_code == 0 and duck_run.exit_code == 0, duck_run.output
    title = "Average CAP by target"
    assert _json_table(duck_run.stdout, title) == _json_table(pandas_run.stdout, title)
    rejected([files["orig"], files["syn1"], "--keys", "sex,age", "--targets", "smoke",
              "--engine", "duckdb"], "--records needs --engine pandas", tmp_path,
             command="cap")


def test_lazy_commands_list_their_own_help() -> None:
    """`capkit --help` lists each command from capkit.cli.main.COMMANDS without importing its
    module; each summary there is the start of the command's own help, and every command runs."""
    import importlib

    from capkit.cli.main import COMMANDS

    for name, (module, summary) in COMMANDS.items():
        command = getattr(importlib.import_module(module), name)
        assert command.name == name
        assert " ".join(command.help.split()).startswith(summary), name
    listing = CliRunner().invoke(main, ["--help"]).output
    for name in COMMANDS:
        assert f"  {name} " in listing
    assert CliRunner().invoke(main, ["nosuch"]).exit_code == 2


def test_help_does_not_import_the_commands() -> None:
    """`capkit --help` imports no command and none of the numeric libraries (a bound on its
    start-up that does not depend on the machine: with them it takes seconds, not 0.1 s)."""
    import ast
    import subprocess
    import sys

    code = ("import sys; from click.testing import CliRunner; from capkit.cli import main; "
            "CliRunner().invoke(main, ['--help']); heavy = ('capkit.cli.', 'sklearn', 'scipy', "
            "'numpy', 'pandas', 'numba', 'pyarrow', 'matplotlib', 'duckdb', 'lightgbm'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy "
            "or m.startswith(heavy)))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert ast.literal_eval(loaded.stdout) == ["capkit.cli.main"]


def test_command_help_imports_none_of_the_work() -> None:
    """`capkit <command> --help` imports the command's module and none of the numeric
    libraries, nor capkit's measures, readers or reports (their imports are in the commands'
    bodies)."""
    import ast
    import subprocess
    import sys

    from capkit.cli.main import COMMANDS

    code = ("import sys; from click.testing import CliRunner; from capkit.cli import main; "
            f"names = {sorted(COMMANDS)!r}; "
            "codes = [CliRunner().invoke(main, [n, '--help']).exit_code for n in names]; "
            "heavy = ('sklearn', 'scipy', 'numpy', 'pandas', 'numba', 'pyarrow', 'matplotlib', "
            "'duckdb', 'lightgbm', 'tqdm'); "
            "print(repr((codes, sorted(m for m in sys.modules if m.split('.')[0] in heavy "
            "or (m.startswith('capkit.') and m.split('.')[1] not in ('cli', 'errors', "
            "'_short_names', 'processes'))))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    codes, modules = ast.literal_eval(loaded.stdout)
    assert codes == [0] * len(COMMANDS)
    assert modules == []


def test_option_values_written_out_are_the_measures() -> None:
    """capkit.cli.choices holds the options' values so that --help imports no measure: they
    are the measures' own."""
    from capkit.audit import FAMILIES
    from capkit.audit.utility_family import NPERMS, UTILITY_AXES
    from capkit.cli import choices
    from capkit.membership_inference import ATTACKS

    assert choices.FAMILIES == FAMILIES
    assert choices.NPERMS == NPERMS
    assert choices.UTILITY_AXES == UTILITY_AXES
    assert choices.ATTACKS == ATTACKS


def test_holdout_run_does_not_repeat_the_members_warning() -> None:
    """The measures run a second time with the holdout as the original; its own counts must not
    repeat the members' warning about a continuous target (one warning per target, whatever the
    digits in the column names)."""
    import warnings

    from capkit.disclosure import disclosure_summary
    from capkit.errors import ContinuousTargetWarning

    rng = np.random.default_rng(0)

    def frame(n: int) -> pd.DataFrame:
        return pd.DataFrame({"k": rng.choice(["a", "b"], n), "q1": rng.normal(size=n).round(3),
                             "q2": rng.normal(size=n).round(3)})

    original, synthetic, holdout = frame(300), frame(300), frame(200)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        disclosure_summary(synthetic, original, ["k"], ["q1", "q2"], holdout=holdout)
    shown = [str(w.message) for w in caught if issubclass(w.category, ContinuousTargetWarning)]
    assert [m.split(" is ")[0] for m in shown] == ["target 'q1'", "target 'q2'"]
