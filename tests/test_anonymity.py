"""capkit.anonymity's levels against pycanon 1.3.6 (reference/pycanon: every call of the
oracle's Adult cases and its 24 edge cases) and against a slow record-by-record reference of
the definitions written here."""

from __future__ import annotations

import functools
import math
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from pycanon_data import SHARED_ORACLE, adult_table, have_adult, matches, results

from capkit import anonymity as an
from capkit.errors import CapkitError

NINE = ["k_anonymity", "alpha_k_anonymity", "l_diversity", "entropy_l_diversity",
        "recursive_c_l_diversity", "basic_beta_likeness", "enhanced_beta_likeness",
        "delta_disclosure", "t_closeness"]
needs_adult = pytest.mark.skipif(not have_adult(), reason="Adult (AdultUCI.rda) is not available "
                                 "without a download: set CAPKIT_DATA")


def _calls(case: dict) -> list[tuple[str, str, dict]]:
    return [(name, name.split("__")[0], call) for name, call in case["calls"].items()
            if name.split("__")[0] in NINE]


def _run(function: str, name: str, data: pd.DataFrame, qi: list[str], **options):
    fn = getattr(an, function)
    if function == "k_anonymity":
        return fn(data, qi, **options)
    parts = name.split("__")
    return fn(data, qi, parts[1].split("+"), gen=not name.endswith("__nogen"), **options)


# ------------------------------------------------------------------------------------------
# the oracle's Adult cases


@needs_adult
@pytest.mark.skipif(not SHARED_ORACLE.joinpath("pycanon").is_dir(),
                    reason="the full oracle (../shared/oracle/pycanon) is not beside")
@pytest.mark.parametrize("table", ["adult", "adult_g2_k5", "adult_g3_k10"])
def test_rebuilt_tables_are_the_ones_pycanon_read(table: str) -> None:
    info = results()["inputs"]["tables"][table]
    read = pd.read_csv(SHARED_ORACLE / "pycanon" / info["file"], keep_default_na=False,
                       na_values=[""])
    read = read.astype({c: "int64" if s == "int64" else object
                        for c, s in info["schema"].items()})
    pd.testing.assert_frame_equal(adult_table(table), read)


@needs_adult
@pytest.mark.parametrize("case", sorted(results()["cases"]))
def test_pycanon_numbers_on_the_oracle_cases(case: str) -> None:
    """Every call of the nine functions: integers exact, floats to 1e-9 (relative); where
    pycanon raised, capkit refuses with a CapkitError."""
    spec = results()["cases"][case]
    data = adult_table(spec["table"])
    before = data.copy()
    checked = 0
    for name, function, call in _calls(spec):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", an.PycanonDifferenceWarning)
            if call["error"] is not None:
                with pytest.raises(CapkitError):
                    _run(function, name, data, spec["qi"], pycanon=True)
                continue
            got = _run(function, name, data, spec["qi"], pycanon=True)
        assert matches(got, call["result"]), (name, got, call["result"])
        checked += 1
    assert checked >= 9
    pd.testing.assert_frame_equal(data, before)


@needs_adult
@pytest.mark.parametrize("case", ["g2_suppressed_k5"])
def test_default_agrees_with_pycanon_where_pycanon_is_right(case: str) -> None:
    """No missing value, a 0..n-1 index: the default gives pycanon's k, alpha, l, beta, delta
    and t; entropy l and c differ only as the quirks say (checked against the reference)."""
    spec = results()["cases"][case]
    data = adult_table(spec["table"])
    same = {"k_anonymity", "alpha_k_anonymity", "l_diversity", "basic_beta_likeness",
            "enhanced_beta_likeness", "delta_disclosure", "t_closeness"}
    for name, function, call in _calls(spec):
        if function in same and call["error"] is None:
            assert matches(_run(function, name, data, spec["qi"]), call["result"]), name


def test_anonymity_levels_is_the_nine_calls() -> None:
    data = _random_frame(np.random.default_rng(3), 300)
    for gen in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            levels = an.anonymity_levels(data, ["a", "b"], ["s", "u"], gen=gen)
            c, l_c = an.recursive_c_l_diversity(data, ["a", "b"], ["s", "u"], gen=gen)
            assert levels.k == an.k_anonymity(data, ["a", "b"])
            assert levels.alpha == an.alpha_k_anonymity(data, ["a", "b"], ["s", "u"], gen)[0]
            assert levels.l_diversity == an.l_diversity(data, ["a", "b"], ["s", "u"], gen)
            assert levels.entropy_l == an.entropy_l_diversity(data, ["a", "b"], ["s", "u"], gen)
            assert (levels.c, levels.l_c) == (c, l_c) or (math.isnan(c) and math.isnan(levels.c))
            assert levels.t == an.t_closeness(data, ["a", "b"], ["s", "u"], gen)
            assert levels.delta == an.delta_disclosure(data, ["a", "b"], ["s", "u"], gen)


# ------------------------------------------------------------------------------------------
# the oracle's edge cases


def _report_values(df, qi, sa, gen=True, **options):
    """pycanon's get_report_values: (c, l) always with gen=True (its positional-argument bug)."""
    levels = an.anonymity_levels(df, qi, sa, gen, **options)
    return (levels.k, (levels.alpha, levels.k), levels.l_diversity, levels.entropy_l,
            (levels.c, levels.l_c),
            levels.beta_basic, levels.beta_enhanced, levels.delta, levels.t)


def _namespace(**options) -> dict:
    names = {f: functools.partial(getattr(an, f), **options) for f in NINE}
    names["get_report_values"] = functools.partial(_report_values, **options)
    return names


EDGE = results()["edge_cases"]
#: Cases that call pycanon functions outside this module (utility metrics).
NOT_HERE = {"classification_metric_ties"}


@pytest.mark.parametrize("name", sorted(set(EDGE) - NOT_HERE))
def test_pycanon_true_reproduces_the_edge_cases(name: str) -> None:
    case = EDGE[name]
    call = case["call"].replace(", sizes_ec(df, ['q'])", "")
    want = case["result"][:2] if name == "nan_in_qi_dropped" else case["result"]
    scope = _namespace(pycanon=True) | {"df": pd.DataFrame(case["data"])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", an.PycanonDifferenceWarning)
        if case["error"] is not None:
            with pytest.raises(CapkitError):
                eval(call, scope)  # noqa: S307 - the oracle's own call text
            return
        got = eval(call, scope)  # noqa: S307
    assert matches(list(got) if isinstance(got, tuple) else got, want), (got, want)


#: What capkit's default gives on the edge cases where pycanon errs (worked by hand).
DEFAULTS = {
    "entropy_two_equal": 2,  # two equally frequent values: H = ln 2, entropy 2-diverse
    "entropy_three_equal": 3,
    "entropy_four_equal": 4,
    # counts (5, 1, 1) and (2, 2), l = 2: 5 < c (1 + 1) needs c = 3; 2 < c 2 needs 2
    "recursive_cl_ascending": (3, 2),
    # gen=False: classes over q + t hold one value of s, so l = 1 and c cannot be computed
    "recursive_cl_nogen_fewer_values": ("nan", 1),
    # the missing value is a class of its own (size 1, one value)
    "nan_in_qi_dropped": (1, 1),
    # the missing value is a value: {x, NA} and {x, y}
    "nan_in_sa_str": 2,
    # p = (x .5, y .25, NA .25); both classes are at total variation .25
    "nan_in_sa_t": 0.25,
    # one value: every class has the table's distribution
    "t_numeric_constant": 0.0,
    # the rows' own values: both classes hold x and y
    "non_range_index_out_of_bounds": 2,
    "non_range_index_permuted": (2, 2),
}


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_default_is_right_where_pycanon_errs_and_says_so(name: str) -> None:
    case = EDGE[name]
    call = case["call"].replace(", sizes_ec(df, ['q'])", "")
    scope = _namespace() | {"df": pd.DataFrame(case["data"])}
    with pytest.warns(an.PycanonDifferenceWarning):
        got = eval(call, scope)  # noqa: S307
    want = DEFAULTS[name]
    assert matches(list(got) if isinstance(got, tuple) else got,
                   list(want) if isinstance(want, tuple) else want), (got, want)


def test_unknown_column_is_named() -> None:
    df = pd.DataFrame({"q": ["a", "b"], "s": ["x", "y"]})
    with pytest.raises(CapkitError, match="nope"):
        an.k_anonymity(df, ["nope"])
    with pytest.raises(CapkitError, match="also a quasi-identifier"):
        an.l_diversity(df, ["q"], ["q"])


def test_identifying_keys_are_said() -> None:
    df = pd.DataFrame({"id": range(50), "s": ["x", "y"] * 25})
    with pytest.warns(an.IdentifyingKeysWarning, match="identifier"):
        assert an.k_anonymity(df, ["id"]) == 1


# ------------------------------------------------------------------------------------------
# a slow record-by-record reference of the definitions (capkit's default semantics)


def _key(row: tuple) -> tuple:
    return tuple("<NA>" if pd.isna(v) else v for v in row)


def _classes(df: pd.DataFrame, columns: list[str]) -> list[list[int]]:
    groups: dict[tuple, list[int]] = defaultdict(list)
    for position in range(len(df)):  # one record at a time
        groups[_key(tuple(df[c].iloc[position] for c in columns))].append(position)
    return list(groups.values())


def _reference(df: pd.DataFrame, qi: list[str], sas: list[str], gen: bool) -> dict:
    n = len(df)
    k = min(len(e) for e in _classes(df, qi))
    out = {"alpha": [], "l": [], "H": [], "beta": [], "beta_plus": [], "delta": [], "t": [],
           "classes": {}}
    for sa in sas:
        columns = qi if gen else qi + [s for s in sas if s != sa]
        values = [_key((v,))[0] for v in df[sa]]
        table_counts: dict = defaultdict(int)
        for v in values:
            table_counts[v] += 1
        p = {v: c / n for v, c in table_counts.items()}
        numeric = pd.api.types.is_numeric_dtype(df[sa])
        order = sorted(p)
        classes = _classes(df, columns)
        out["classes"][sa] = [[values[i] for i in e] for e in classes]
        betas = []
        for e in classes:
            counts: dict = defaultdict(int)
            for i in e:
                counts[values[i]] += 1
            q = {v: c / len(e) for v, c in counts.items()}
            out["alpha"].append(max(q.values()))
            out["l"].append(len(q))
            out["H"].append(-sum(x * math.log(x) for x in q.values()))
            betas.append(max((q[v] - p[v]) / p[v] for v in q))
            out["delta"].append(max(abs(math.log(q[v] / p[v])) for v in q))
            r = [q.get(v, 0.0) - p[v] for v in order]
            if numeric:
                running, total = 0.0, 0.0
                for x in r:
                    running += x
                    total += abs(running)
                out["t"].append(total / (len(order) - 1) if len(order) > 1 else 0.0)
            else:
                out["t"].append(0.5 * sum(abs(x) for x in r))
        out["beta"].append(max(betas))
        out["beta_plus"].append(min(max(betas), -math.log(min(p.values()))))
    x = math.exp(min(out["H"]))
    entropy_l = math.floor(x) + (1 if math.floor(x) + 1 - x <= 1e-9 * x else 0)
    l_value = min(out["l"])
    c = math.nan
    if l_value > 1:
        c = 0
        for sa in sas:
            for e in out["classes"][sa]:
                counts = sorted((e.count(v) for v in set(e)), reverse=True)
                r1, tail = counts[0], sum(counts[l_value - 1:])
                c = max(c, math.floor(r1 / tail + 1))
    return {"k": k, "alpha": max(out["alpha"]), "l": l_value, "entropy_l": entropy_l,
            "c": (c, l_value), "beta": max(out["beta"]), "beta_plus": max(out["beta_plus"]),
            "delta": max(out["delta"]), "t": max(out["t"])}


def _random_frame(rng: np.random.Generator, n: int, missing: bool = False) -> pd.DataFrame:
    df = pd.DataFrame({
        "a": rng.choice(["p", "q", "r"], n),
        "b": rng.integers(0, 4, n),
        "s": rng.choice(["x", "y", "z", "w"], n, p=[0.5, 0.3, 0.15, 0.05]),
        "u": rng.integers(1, 6, n) * 10,
    })
    if missing:
        df["a"] = df["a"].astype(object)
        df.loc[rng.random(n) < 0.05, "a"] = None
    return df


@pytest.mark.parametrize("seed", range(6))
def test_levels_equal_the_slow_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    df = _random_frame(rng, int(rng.integers(40, 200)), missing=seed % 2 == 1)
    for sas in (["s"], ["u"], ["s", "u"]):
        for gen in (True, False):
            ref = _reference(df, ["a", "b"], sas, gen)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = an.anonymity_levels(df, ["a", "b"], sas, gen)
                c = an.recursive_c_l_diversity(df, ["a", "b"], sas, gen=gen)
            assert got.k == ref["k"]
            assert got.l_diversity == ref["l"]
            assert got.entropy_l == ref["entropy_l"]
            assert matches(list(c), [("nan" if math.isnan(ref["c"][0]) else ref["c"][0]),
                                     ref["c"][1]]), (c, ref["c"])
            for mine, theirs in ((got.alpha, "alpha"), (got.beta_basic, "beta"),
                                 (got.beta_enhanced, "beta_plus"), (got.delta, "delta"),
                                 (got.t, "t")):
                assert mine == pytest.approx(ref[theirs], rel=1e-9, abs=1e-12), theirs


def test_pycanon_true_drops_missing_quasi_identifiers() -> None:
    df = _random_frame(np.random.default_rng(9), 150, missing=True)
    kept = df.dropna(subset=["a"])
    with pytest.warns(an.PycanonDifferenceWarning, match="left out"):
        k = an.k_anonymity(df, ["a", "b"], pycanon=True)
    assert k == an.k_anonymity(kept.reset_index(drop=True), ["a", "b"])


# ------------------------------------------------------------------------------------------
# DuckDB gives pandas' numbers


def test_duckdb_engine_gives_the_pandas_numbers(tmp_path) -> None:
    pytest.importorskip("duckdb")
    df = _random_frame(np.random.default_rng(11), 400, missing=True)
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    for gen in (True, False):
        with pytest.warns(an.PycanonDifferenceWarning, match="missing quasi-identifier"):
            want = an.anonymity_levels(df, ["a", "b"], ["s", "u"], gen)
        for source, engine in ((df, "duckdb"), (str(path), None)):
            with pytest.warns(an.PycanonDifferenceWarning, match="missing quasi-identifier"):
                got = an.anonymity_levels(source, ["a", "b"], ["s", "u"], gen, engine=engine)
            for name, value in want.as_dict().items():
                other = got.as_dict()[name]
                assert other == value or (math.isnan(value) and math.isnan(other)), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", an.PycanonDifferenceWarning)
        assert an.k_anonymity(str(path), ["a", "b"]) == an.k_anonymity(df, ["a", "b"])


def test_docs_page_examples() -> None:
    """The ``>>>`` examples of docs/anonymity.md run and print what the page says."""
    import doctest
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "anonymity.md").read_text(
        encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert len(blocks) >= 2
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
    scope: dict = {}
    for k, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, scope, f"docs block {k}", "anonymity.md", 0),
                   clear_globs=False)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.skipif(not SHARED_ORACLE.joinpath("pycanon").is_dir(),
                    reason="the full oracle (../shared/oracle/pycanon) is not beside")
def test_shipped_reference_is_the_oracle() -> None:
    import json

    shipped = results()
    oracle = json.loads((SHARED_ORACLE / "pycanon" / "results.json").read_text())
    assert shipped == oracle


def test_spark_engine_gives_the_pandas_numbers(spark) -> None:
    """A PySpark DataFrame is counted by Spark (one groupBy), with pandas' numbers; the
    individual risk with weights too."""
    df = _random_frame(np.random.default_rng(12), 300)
    df["w"] = np.random.default_rng(13).uniform(1, 30, len(df))
    df["w_nan"] = np.where(df.index == 3, np.nan, df["w"])
    frame = spark.createDataFrame(df)  # one frame for the three jobs
    want = an.anonymity_levels(df, ["a", "b"], ["s", "u"])
    got = an.anonymity_levels(frame, ["a", "b"], ["s", "u"])
    for name, value in want.as_dict().items():
        other = got.as_dict()[name]
        assert other == value or (math.isnan(value) and math.isnan(other)), name
    risk_pandas = an.individual_risk(df, ["a", "b"], "w")
    risk_spark = an.individual_risk(frame, ["a", "b"], "w")
    assert risk_spark.record_risk is None
    assert risk_spark.sample_uniques == risk_pandas.sample_uniques
    assert risk_spark.expected_reidentifications == pytest.approx(
        risk_pandas.expected_reidentifications, rel=1e-12)
    with pytest.raises(CapkitError, match="missing"):
        an.individual_risk(frame, ["a", "b"], "w_nan")


def test_rows_order_and_index_do_not_matter_by_default() -> None:
    """The default reads each row's own values: shuffling the rows and relabelling the index
    changes nothing (and says what pycanon would do)."""
    df = _random_frame(np.random.default_rng(21), 200)
    shuffled = df.sample(frac=1.0, random_state=1)  # index labels now a permutation
    want = an.anonymity_levels(df, ["a", "b"], ["s", "u"])
    with pytest.warns(an.PycanonDifferenceWarning, match="index"):
        got = an.anonymity_levels(shuffled, ["a", "b"], ["s", "u"])
    for name, value in want.as_dict().items():
        other = got.as_dict()[name]
        assert other == value or (math.isnan(value) and math.isnan(other)), name
