"""disclosure(), disclosure_summary() and ``capkit disclosure`` counted by DuckDB / Spark.

The engine path must give the same ident, attrib and allcaps (to 1e-12), the same checks and
the same exclusion counts as the pandas path on the same data (seeded frames written to
Parquet), and the measures must agree with a slow record-by-record reference (a Python dict
over the records, below). Options the engine path cannot honour raise CapkitError naming them.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.cli import main
from capkit.disclosure import disclosure, disclosure_summary
from capkit.errors import CapkitError

MEASURES = ("ident", "attrib", "allcaps")


def make_frame(seed: int, n: int) -> pd.DataFrame:
    """Seeded records: a numeric key with NaN, a text key with None, a boolean key, a big
    number key (R prints the double 100000 as "1e+05"), a text target with NA that the keys
    nearly determine for young ages (so the 1-way and 2-way checks fire), an integer target."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 6, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    sex = rng.choice(np.array(["f", "m", None], dtype=object), n, p=[0.48, 0.48, 0.04])
    region = rng.choice(np.array(["north", "south", "east", "west"], dtype=object), n)
    flag = rng.random(n) < 0.3
    big = rng.choice(np.array([7.0, 100000.0, 250000.0]), n)
    p_low = np.where(np.nan_to_num(age) < 3, 0.97, 0.5)
    income = np.where(rng.random(n) < p_low, "low", np.where(flag, "high", "mid")).astype(object)
    income[rng.random(n) < 0.03] = None
    kids = rng.integers(0, 3, n)
    return pd.DataFrame({"age": age, "sex": sex, "region": region, "flag": flag, "big": big,
                         "income": income, "kids": kids, "noise": rng.normal(size=n)})


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, object]:
    """Original and two syntheses as Parquet files, and the same data read back by pandas."""
    folder = tmp_path_factory.mktemp("engine_disclosure")
    paths, frames = {}, {}
    for name, seed, n in (("orig", 1, 700), ("syn1", 2, 650), ("syn2", 3, 700)):
        path = folder / f"{name}.parquet"
        make_frame(seed, n).to_parquet(path, index=False)
        paths[name] = str(path)
        frames[name] = pd.read_parquet(path)
    return {"paths": paths, "frames": frames, "folder": folder}


def assert_same(reference, got, *, checks: bool = True) -> None:
    for name in MEASURES:
        ref, new = getattr(reference, name), getattr(got, name)
        assert list(ref.columns) == list(new.columns)
        assert list(ref.index) == list(new.index)
        np.testing.assert_allclose(new.to_numpy(float), ref.to_numpy(float), rtol=1e-12,
                                   atol=1e-12, equal_nan=True, err_msg=name)
    for ref, new in zip(reference.nexclusions, got.nexclusions, strict=True):
        pd.testing.assert_frame_equal(ref, new)
    assert got.keys == reference.keys and got.n_orig == reference.n_orig
    assert got.m == reference.m
    for ref, new in zip(reference.cells, got.cells, strict=True):  # same cells, same order
        assert new.row_labels == ref.row_labels and new.col_labels == ref.col_labels
        assert new.col_components == ref.col_components
        for name in ("row", "col", "d", "s", "col_in_synthetic"):
            np.testing.assert_array_equal(getattr(new, name), getattr(ref, name), name)
    if checks:
        assert (got.check1, got.check2) == (reference.check1, reference.check2)
        for ref_list, new_list in ((reference.check_1way, got.check_1way),
                                   (reference.check_2way, got.check_2way)):
            for ref, new in zip(ref_list, new_list, strict=True):
                if ref is None:
                    assert new is None
                else:
                    pd.testing.assert_frame_equal(ref.reset_index(drop=True),
                                                  new.reset_index(drop=True))


CASES = [
    (["age", "sex", "region"], "income", {}),
    (["region", "age", "big"], "income", {}),
    (["sex", "age"], "income", {"usekeys_na": [False, True], "usetarget_na": False}),
    (["flag", "big"], "kids", {"not_targetlev": "1"}),
    (["age", "flag"], "kids", {"exclude_keys": ["flag"], "exclude_keylevs": ["TRUE"],
                               "exclude_targetlevs": ["2"]}),
    (["age", "sex", "region"], "income", {"exclude_ov_denom_lim": True, "denom_lim": 3}),
    (["big"], "region", {"exclude_keys": ["big"], "exclude_keylevs": ["1e+05"],
                         "exclude_targetlevs": ["east"]}),
    (["region", "flag"], "age", {"thresh_1way": (5, 30), "thresh_2way": (2, 40)}),
]


@pytest.mark.parametrize("keys,target,options", CASES)
def test_duckdb_on_parquet_equals_pandas(files, keys, target, options):
    p, f = files["paths"], files["frames"]
    reference = disclosure([f["syn1"], f["syn2"]], f["orig"], keys, target, **options)
    got = disclosure([p["syn1"], p["syn2"]], p["orig"], keys, target, engine="duckdb",
                     **options)
    assert_same(reference, got)
    # without engine=, paths choose DuckDB; engine="pandas" reads the files into memory
    assert_same(reference, disclosure([p["syn1"], p["syn2"]], p["orig"], keys, target,
                                      **options))
    assert_same(reference, disclosure([p["syn1"], p["syn2"]], p["orig"], keys, target,
                                      engine="pandas", **options))


def test_checks_and_exclusions_are_exercised(files):
    """The cases above are not vacuous: checks fire, options exclude records."""
    p = files["paths"]
    r = disclosure(p["syn1"], p["orig"], ["age", "sex", "region"], "income", engine="duckdb")
    assert r.check1 == "Check  income  level  low" and r.check2.endswith("pairs need checks")
    assert r.attrib["DiSCO"].iloc[0] > 10
    for keys, target, options in CASES[2:7]:
        r = disclosure(p["syn1"], p["orig"], keys, target, engine="duckdb", **options)
        assert r.any_excluded, options


def reference_measures(original: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                       target: str) -> dict[str, float]:
    """Slow reference: loop over the records, count by (q, t) in dicts (spec 4.4, no
    exclusions): UiO, repU, Dorig, DiSCO, DCAP (CAP version 1) and TCAP."""
    def norm(v: object) -> object:
        return "<NA>" if pd.isna(v) else v

    d: dict[tuple, Counter] = defaultdict(Counter)
    s: dict[tuple, Counter] = defaultdict(Counter)
    for frame, table in ((original, d), (synthetic, s)):
        for record in frame[keys + [target]].itertuples(index=False):
            values = [norm(v) for v in record]
            table[tuple(values[:-1])][values[-1]] += 1
    nd = len(original)
    uio = repu = dorig = disco = 0
    dcap = 0.0
    tcap_den = 0
    for q, counts in d.items():
        dq = sum(counts.values())
        sq = sum(s[q].values()) if q in s else 0
        uio += dq == 1
        repu += dq == 1 and sq == 1
        for t, n in counts.items():
            dorig += n if n == dq else 0
            if sq > 0:
                disco += n if s[q][t] == sq else 0
                dcap += n * s[q][t] / sq
        tcap_den += dq if sq > 0 else 0
    return {"UiO": 100 * uio / nd, "repU": 100 * repu / nd, "Dorig": 100 * dorig / nd,
            "DiSCO": 100 * disco / nd, "DCAP": 100 * dcap / nd,
            "TCAP": 100 * disco / tcap_den}


@pytest.mark.parametrize("keys,target", [(["age", "sex", "region"], "income"),
                                         (["flag", "big", "sex"], "kids")])
def test_engine_measures_equal_record_by_record_reference(files, keys, target):
    p, f = files["paths"], files["frames"]
    expected = reference_measures(f["orig"], f["syn1"], keys, target)
    got = disclosure(p["syn1"], p["orig"], keys, target, engine="duckdb")
    row = pd.concat([got.ident, got.attrib, got.allcaps], axis=1).iloc[0]
    for name, value in expected.items():
        assert row[name] == pytest.approx(value, rel=1e-12), name


def test_relations_and_frames_on_duckdb(files):
    import duckdb

    f = files["frames"]
    keys, target = ["age", "sex"], "income"
    reference = disclosure(f["syn1"], f["orig"], keys, target)
    before = f["syn1"].copy()
    assert_same(reference, disclosure(f["syn1"], f["orig"], keys, target, engine="duckdb"))
    pd.testing.assert_frame_equal(f["syn1"], before)  # inputs never modified
    con = duckdb.connect()
    relation = con.read_parquet(files["paths"]["syn1"])
    assert_same(reference, disclosure(relation, con.read_parquet(files["paths"]["orig"]),
                                      keys, target))
    # one synthesis = a glob over several files
    folder = files["folder"] / "parts"
    folder.mkdir(exist_ok=True)
    f["syn1"].iloc[:300].to_parquet(folder / "a.parquet", index=False)
    f["syn1"].iloc[300:].to_parquet(folder / "b.parquet", index=False)
    assert_same(reference, disclosure(str(folder / "*.parquet"), files["paths"]["orig"], keys,
                                      target, engine="duckdb"))
    # keys given by column number, and in another order than the data
    assert_same(disclosure(f["syn1"], f["orig"], [2, 1], 6),
                disclosure(files["paths"]["syn1"], files["paths"]["orig"], [2, 1], 6,
                           engine="duckdb"))


def test_summary_on_duckdb_equals_pandas(files):
    p, f = files["paths"], files["frames"]
    keys = ["age", "sex", "region"]
    options = {"not_targetslev": ["", "low"], "usetargets_na": [True, False]}
    reference = disclosure_summary([f["syn1"], f["syn2"]], f["orig"], keys,
                                   ["kids", "income"], **options)
    got = disclosure_summary([p["syn1"], p["syn2"]], p["orig"], keys, ["kids", "income"],
                             engine="duckdb", **options)
    pd.testing.assert_frame_equal(reference.attrib_table, got.attrib_table, rtol=1e-12)
    pd.testing.assert_series_equal(reference.ident_orig, got.ident_orig, rtol=1e-12)
    pd.testing.assert_series_equal(reference.ident_syn, got.ident_syn, rtol=1e-12)
    assert got.to_string() == reference.to_string()
    # default targets: every synthetic column that is not a key
    default = disclosure_summary(p["syn1"], p["orig"], keys)
    assert default.targets == ["flag", "big", "income", "kids", "noise"]
    assert (got.attrib_table["attrib.syn"] > 0).all()


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize("options,named", [
    ({"ngroups_target": 3}, "ngroups_target"),
    ({"ngroups_keys": [0, 4]}, "ngroups_keys"),
    ({"cont_na": {"age": [-8]}}, "cont_na"),
    ({"synthpop_compat": True}, "synthpop_compat"),
])
def test_unsupported_options_name_the_option(files, options, named):
    p = files["paths"]
    with pytest.raises(CapkitError, match=rf"{named}.*engine='pandas'"):
        disclosure(p["syn1"], p["orig"], ["age", "sex"], "income", **options)
    # the same options work on the pandas engine (no error about the engine)
    if named != "cont_na":
        disclosure(p["syn1"], p["orig"], ["age", "sex"], "kids", engine="pandas", **options)


def test_summary_unsupported_option(files):
    p = files["paths"]
    with pytest.raises(CapkitError, match=r"ngroups_targets.*engine='pandas'"):
        disclosure_summary(p["syn1"], p["orig"], ["age"], ["kids"], ngroups_targets=3)


def test_bad_input_names_column_and_argument(files):
    p, f = files["paths"], files["frames"]
    with pytest.raises(CapkitError, match="'zip' is not in original"):
        disclosure(p["syn1"], p["orig"], ["age", "zip"], "income")
    f_missing = files["folder"] / "no_sex.parquet"
    f["syn1"].drop(columns="sex").to_parquet(f_missing)
    with pytest.raises(CapkitError, match="'sex' is not in synthetic data set 2"):
        disclosure([p["syn1"], str(f_missing)], p["orig"], ["age", "sex"], "income")
    with pytest.raises(CapkitError, match="'zip' is not in original"):
        disclosure_summary(p["syn1"], p["orig"], ["age"], ["zip"], engine="duckdb")
    with pytest.raises(CapkitError, match="engine must be one of"):
        disclosure(p["syn1"], p["orig"], ["age"], "income", engine="polars")
    with pytest.raises(CapkitError, match="synthetic must be a DataFrame or name existing"):
        disclosure(str(files["folder"] / "nothing*.parquet"), p["orig"], ["age"], "income")
    with pytest.raises(CapkitError, match="original must be a DataFrame"):
        disclosure(p["syn1"], {"age": [1]}, ["age"], "income")
    with pytest.raises(CapkitError, match="target 'age' is also one of the keys"):
        disclosure(p["syn1"], p["orig"], ["age"], "age", engine="duckdb")
    with pytest.raises(CapkitError, match="exclude_keylevs position 1 .'9'. must be one of"):
        disclosure(p["syn1"], p["orig"], ["age"], "income", exclude_keys=["age"],
                   exclude_keylevs=["9"], exclude_targetlevs=["low"])
    with pytest.raises(CapkitError, match="key column 'sex' is text in original data but "
                                          "numeric in synthetic"):
        disclosure(f["syn1"].assign(sex=1), f["orig"], ["sex"], "income", engine="duckdb")
    # a missing value and the text "Missing" are one synthpop label: refused, not merged
    clash = f["orig"].assign(income=f["orig"]["income"].fillna("Missing").where(
        f["orig"].index % 50 != 0, None))
    with pytest.raises(CapkitError, match="target 'income'.*same synthpop label 'Missing'"):
        disclosure(f["syn1"], clash, ["age"], "income", engine="duckdb")


def test_engine_not_installed_names_the_package(files, monkeypatch):
    p, f = files["paths"], files["frames"]
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark -> ImportError
    with pytest.raises(CapkitError, match=r"'pyspark'.*pip install"):
        disclosure(f["syn1"], f["orig"], ["age"], "income", engine="spark")
    with pytest.raises(CapkitError, match=r"'pyspark'.*pip install"):
        disclosure_summary(p["syn1"], p["orig"], ["age"], ["income"], engine="spark")
    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(CapkitError, match=r"'duckdb'.*pip install duckdb"):
        disclosure(p["syn1"], p["orig"], ["age"], "income")


# ------------------------------------------------------------------------------ CLI


def _json_report(args: list[str]) -> dict:
    result = CliRunner().invoke(main, ["disclosure", *args, "--format", "json", "--quiet"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    report.pop("command", None)
    return report


def test_cli_engines_give_identical_reports(files):
    p = files["paths"]
    args = [p["orig"], p["syn1"], p["syn2"], "--keys", "age,sex,region",
            "--targets", "income,kids", "--not-targetlev", "kids=1", "--no-keys-na"]
    pandas_report = _json_report([*args, "--engine", "pandas"])
    duck_report = _json_report([*args, "--engine", "duckdb"])
    assert duck_report == pandas_report
    assert _json_report(args) == pandas_report  # auto: small files -> pandas
    text = json.dumps(pandas_report)
    assert "income" in text and "Check" in text  # not an empty report
    # default targets and the unique-key warning come out the same too
    wide = [p["orig"], p["syn1"], "--keys", "noise,sex", "--allow-disjoint-levels"]
    assert _json_report([*wide, "--engine", "duckdb"]) == _json_report([*wide, "--engine",
                                                                        "pandas"])


def test_cli_globs(files):
    folder = files["folder"] / "cli_parts"
    folder.mkdir(exist_ok=True)
    f = files["frames"]
    f["syn1"].iloc[:200].to_parquet(folder / "p1.parquet", index=False)
    f["syn1"].iloc[200:].to_parquet(folder / "p2.parquet", index=False)
    args = [files["paths"]["orig"], str(folder / "*.parquet"), "--keys", "age,sex",
            "--targets", "income"]
    whole = _json_report([files["paths"]["orig"], files["paths"]["syn1"], "--keys",
                          "age,sex", "--targets", "income"])
    for engine in ("pandas", "duckdb"):
        report = _json_report([*args, "--engine", engine])
        assert report["sections"] == whole["sections"], engine


def test_cli_engine_errors(files):
    p = files["paths"]
    runner = CliRunner()
    for extra, option in ((["--ngroups-keys", "3"], "--ngroups-keys"),
                          (["--cont-na", "kids=1"], "--cont-na")):
        result = runner.invoke(main, ["disclosure", p["orig"], p["syn1"], "--keys", "age",
                                      "--targets", "kids", "--engine", "duckdb", *extra])
        assert result.exit_code != 0
        assert f"{option} needs --engine pandas" in result.output
    result = runner.invoke(main, ["disclosure", p["orig"], p["syn1"], "--keys", "age,zip",
                                  "--engine", "duckdb"])
    assert result.exit_code != 0
    assert "key column 'zip' is missing from original file 'orig.parquet'" in result.output


# ------------------------------------------------------------------------------ Spark


def test_spark_equals_pandas(spark, files):
    p, f = files["paths"], files["frames"]
    keys, target, options = CASES[2]
    reference = disclosure([f["syn1"], f["syn2"]], f["orig"], keys, target, **options)
    got = disclosure([p["syn1"], p["syn2"]], p["orig"], keys, target, engine="spark",
                     **options)
    assert_same(reference, got)
    frames = [spark.read.parquet(p[name]) for name in ("syn1", "syn2", "orig")]
    assert_same(reference, disclosure(frames[:2], frames[2], keys, target, **options))
