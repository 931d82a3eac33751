"""capkit.attacks.singling_out and match_counts: anonymeter 1.1's numbers on the oracle's
queries and data, a record-by-record reference, capkit's corrections and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from anonymeter_data import SHARED_ORACLE, adult_split, have_adult, read_reference, results
from anonymeter_data import synthetic as oracle_synthetic
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import hypergeom

from capkit.attacks import match_counts, singling_out
from capkit.control import compare_to_control
from capkit.errors import CapkitError

QUERIES = read_reference("singling_out_queries.csv.gz")
CONDITIONS = [json.loads(c) for c in QUERIES["conditions"]]
CALLS = results()["calls"]
needs_adult = pytest.mark.skipif(not have_adult(), reason="Adult data not available "
                                 "(set CAPKIT_DATA to a folder with AdultUCI.rda)")


@pytest.fixture(scope="module")
def frames():
    """(members, holdout, synthetic) of the oracle, members/holdout rebuilt from Adult."""
    members, holdout = adult_split()
    return members, holdout, oracle_synthetic()


# -- reference evaluator: one record at a time, plain Python


def _holds(value, op, target) -> bool:
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    if op == "is_null":
        return missing
    if op == "is_not_null":
        return not missing
    if missing or target is None:
        return False
    return {"==": value == target, "!=": value != target, ">=": value >= target,
            "<=": value <= target, ">": value > target, "<": value < target}[op]


def _slow_counts(queries, frame: pd.DataFrame) -> list[int]:
    records = frame.astype(object).to_dict("records")
    return [sum(all(_holds(r[c[0]], c[1], c[2] if len(c) > 2 else None) for c in q)
                for r in records) for q in queries]


# -- match_counts


def test_match_counts_oracle_synthetic_counts():
    """Every oracle query (1531, both modes, main and baseline) on the deduplicated syn."""
    syn = oracle_synthetic().drop_duplicates()
    assert len(syn) == CALLS["singling_out_dedup_sizes"]["result"]["syn"]
    assert (match_counts(CONDITIONS, syn) == QUERIES["count_syn_unique"].to_numpy()).all()


@needs_adult
def test_match_counts_oracle_original_and_control(frames):
    members, holdout, _ = frames
    ori, ctl = members.drop_duplicates(), holdout.drop_duplicates()
    assert (len(ori), len(ctl)) == (1958, 994)
    got_ori, got_ctl = match_counts(CONDITIONS, ori), match_counts(CONDITIONS, ctl)
    assert (got_ori == QUERIES["count_ori_unique"].to_numpy()).all()
    assert (got_ctl == QUERIES["count_control_unique"].to_numpy()).all()
    main = (QUERIES["kind"] == "main").to_numpy()
    multi = (QUERIES["mode"] == "multivariate").to_numpy()
    # anonymeter's n_success and raw control counts (oracle README): 121 / 91, 22 / 6
    assert ((got_ori == 1) & main & multi).sum() == 121
    assert ((got_ctl == 1) & main & multi).sum() == 91
    assert ((got_ori == 1) & main & ~multi).sum() == 22
    assert ((got_ctl == 1) & main & ~multi).sum() == 6


def test_match_counts_against_slow_reference():
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(0, 60))
        frame = pd.DataFrame({
            "x": np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 5, n)),
            "t": rng.choice(np.array(["a", "b", None], dtype=object), n),
            "k": pd.Categorical(rng.choice(np.array(["u", "v", None], dtype=object), n),
                                categories=["u", "v", "w"]),
            "b": rng.random(n) < 0.5,
        })
        queries = []
        for _ in range(25):
            query = []
            for _ in range(int(rng.integers(0, 4))):
                column = str(rng.choice(["x", "t", "k", "b"]))
                if column == "x":
                    op = str(rng.choice(["==", "!=", ">=", "<=", ">", "<", "is_null",
                                         "is_not_null"]))
                    value = [0, 1.5, 2, 4, None][int(rng.integers(0, 5))]
                elif column == "b":
                    op, value = str(rng.choice(["==", "!="])), bool(rng.integers(0, 2))
                else:
                    op = str(rng.choice(["==", "!=", "is_null", "is_not_null"]))
                    value = ["a", "u", "w", "zz", None][int(rng.integers(0, 5))]
                query.append((column, op, value))
            queries.append(query)
        assert match_counts(queries, frame).tolist() == _slow_counts(queries, frame)


def test_match_counts_errors_name_the_column():
    frame = pd.DataFrame({"age": [1, 2], "job": ["a", "b"]})
    with pytest.raises(CapkitError, match="'job'"):
        match_counts([[("job", "==", 3)]], frame)
    with pytest.raises(CapkitError, match="'age'"):
        match_counts([[("age", "==", "3")]], frame)
    with pytest.raises(CapkitError, match="'job'"):
        match_counts([[("job", ">=", "a")]], frame)
    with pytest.raises(CapkitError, match="'nope'"):
        match_counts([[("nope", "==", 1)]], frame)
    with pytest.raises(CapkitError, match="operator"):
        match_counts([[("age", "~", 1)]], frame)
    with pytest.raises(CapkitError, match="condition"):
        match_counts([["age"]], frame)


# -- anonymeter compatibility: the oracle's own runs


@needs_adult
@pytest.mark.parametrize("mode", ["multivariate", "univariate"])
def test_anonymeter_compat_reproduces_oracle_run(frames, mode):
    members, holdout, syn = frames
    want = CALLS[f"singling_out_{mode}"]["result"]
    with pytest.warns(UserWarning) if mode == "univariate" else _no_warning():
        got = singling_out(members, syn, mode=mode, n_attacks=500, control=holdout, seed=0,
                           anonymeter_compat=True)
    oracle = QUERIES[(QUERIES["mode"] == mode) & (QUERIES["kind"] == "main")]
    mine = got.queries[got.queries["kind"] == "main"]
    as_lists = [[list(c) for c in q] for q in mine["conditions"]]
    wanted = [json.loads(c) for c in oracle["conditions"]]
    if mode == "multivariate":  # anonymeter's draws reproduced: the same queries, same order
        assert as_lists == wanted
    else:  # candidate order comes from a polars group-by in anonymeter: compare as sets
        assert sorted(map(json.dumps, as_lists)) == sorted(map(json.dumps, wanted))
    assert got.n_success == want["n_success"]
    assert got.n_control == {"multivariate": 91, "univariate": 6}[mode]
    assert math.isclose(got.n_control_effective, want["n_control_corrected"], rel_tol=1e-12)
    value, (low, high) = got.anonymeter.risk
    assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in
               zip((value, low, high), (want["risk"][0], *want["risk"][1]), strict=True))
    assert got.risk == value and got.risk_reference == "anonymeter"
    # the baseline queries are random in anonymeter (polars unique() order): only a range
    assert 0 <= got.n_baseline <= got.anonymeter.n_attacks[1]


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@needs_adult
def test_rebuilt_adult_equals_oracle_files(frames):
    if not (SHARED_ORACLE / "ori.csv.gz").is_file():
        pytest.skip("../shared/oracle/anonymeter not available")
    members, holdout, _ = frames
    pd.testing.assert_frame_equal(members, pd.read_csv(SHARED_ORACLE / "ori.csv.gz"))
    pd.testing.assert_frame_equal(holdout, pd.read_csv(SHARED_ORACLE / "control.csv.gz"))
    pd.testing.assert_frame_equal(oracle_synthetic(), pd.read_csv(SHARED_ORACLE / "syn.csv.gz"))


# -- capkit's default: a slow reference and the corrections


def _small(seed: int = 3, n: int = 120):
    rng = np.random.default_rng(seed)

    def frame(size):
        return pd.DataFrame({
            "age": rng.integers(18, 60, size),
            "job": rng.choice(["a", "b", "c", "d"], size),
            "city": pd.Categorical(rng.choice(["x", "y", None], size)),
            "hours": np.where(rng.random(size) < 0.1, np.nan, rng.integers(10, 60, size)),
        })

    return frame(n), frame(n), frame(n // 2)


@pytest.mark.parametrize("mode", ["multivariate", "univariate"])
def test_default_against_record_by_record_reference(mode):
    original, synthetic, control = _small()
    got = singling_out(original, synthetic, mode=mode, n_cols=2, n_attacks=None,
                       control=control, seed=5)
    table = got.queries
    queries = [list(q) for q in table["conditions"]]
    assert table["count_synthetic"].tolist() == _slow_counts(queries, synthetic)
    assert table["count_original"].tolist() == _slow_counts(queries, original)
    assert table["count_control"].tolist() == _slow_counts(queries, control)
    main = table[table["kind"] == "main"]
    assert (main["count_synthetic"] == 1).all() and len(main) == got.n_queries
    assert got.n_success == int((main["count_original"] == 1).sum())
    assert got.n_control == int((main["count_control"] == 1).sum())
    if mode == "multivariate":  # each query was written from, and matches, its source record
        for query, row in zip(queries[:len(main)], main["source_row"], strict=True):
            assert _slow_counts([query], synthetic.iloc[[row]]) == [1]
    singled = main[main["original_row"] >= 0]
    for query, row in zip([list(q) for q in singled["conditions"]], singled["original_row"],
                          strict=True):
        assert _slow_counts([query], original.iloc[[row]]) == [1]
    # control half the size: members at the control's size, hypergeometric expectation
    k_members = hypergeom.pmf(1, len(original), main["count_original"].to_numpy(),
                              len(control)).sum()
    assert math.isclose(got.n_control_effective, got.n_control)
    want = compare_to_control(k_members, got.n_queries, got.n_control, got.n_queries)
    assert math.isclose(got.control.members.k, k_members, rel_tol=1e-9)
    assert math.isclose(got.risk, want.risk, rel_tol=1e-9, abs_tol=1e-12)
    assert got.risk_reference == "control"


def test_duplicates_cannot_be_singled_out_unless_compat():
    """Two identical members: capkit says no one is singled out; anonymeter dedups first."""
    original = pd.DataFrame({"a": [1, 1, 2, 2, 2], "b": ["x", "x", "y", "y", "y"]})
    synthetic = pd.DataFrame({"a": [1, 2, 2, 3], "b": ["x", "y", "y", "z"]})
    got = singling_out(original, synthetic, mode="univariate", n_attacks=None)
    assert got.n_success == 0
    compat = singling_out(original, synthetic, mode="univariate", anonymeter_compat=True)
    assert compat.n_success > 0


@pytest.mark.filterwarnings("ignore:the control rate is 1")  # tiny data: baseline rate 1
def test_values_with_quotes_single_out_unless_compat():
    """anonymeter escapes quotes in text values, so O'Brien can never be singled out."""
    original = pd.DataFrame({"name": ["O'Brien", "b", "c"], "n": [1, 2, 3]})
    synthetic = pd.DataFrame({"name": ["O'Brien", "b", "b"], "n": [1, 2, 2]})
    # seed 2: the O'Brien record's one-column query is on name (the draws are seeded)
    got = singling_out(original, synthetic, n_cols=1, n_attacks=None, seed=2)
    by_name = got.queries[got.queries["query"].str.contains("O'Brien|O\\\\'Brien")]
    assert (by_name["kind"] == "main").any()
    compat = singling_out(original, synthetic, n_cols=1, n_attacks=None, seed=2,
                          anonymeter_compat=True)
    main = compat.queries[compat.queries["kind"] == "main"]
    assert not main["query"].str.contains("name").any()  # the escaped value matched nothing


def test_without_control_the_baseline_is_subtracted():
    original, synthetic, _ = _small(4)
    got = singling_out(original, synthetic, n_cols=2, seed=2)
    assert got.control.control is None and got.risk_reference == "baseline"
    want = compare_to_control(got.n_success, got.n_queries, got.n_baseline, got.n_queries)
    assert got.risk == want.risk and got.baseline.risk == want.risk
    compat = singling_out(original, synthetic, n_cols=2, seed=2, anonymeter_compat=True)
    assert compat.risk == compat.anonymeter.risk[0]  # anonymeter: the attack rate itself


def test_n_attacks_and_seed():
    original, synthetic, control = _small(5)
    a = singling_out(original, synthetic, n_cols=2, n_attacks=20, control=control, seed=9)
    b = singling_out(original, synthetic, n_cols=2, n_attacks=20, control=control, seed=9)
    assert a.n_queries == 20 and a.queries.equals(b.queries)
    with pytest.raises(CapkitError, match="larger than possible: 29 distinct"):
        singling_out(original, synthetic, n_cols=2, n_attacks=500)
    with pytest.raises(CapkitError, match="larger than"):
        singling_out(original, synthetic, n_cols=2, n_attacks=10**7)
    with pytest.raises(CapkitError, match="larger than possible"):
        singling_out(original, synthetic, mode="univariate", n_attacks=10**4)
    every = singling_out(original, synthetic, mode="univariate", seed=4)
    five = singling_out(original, synthetic, mode="univariate", n_attacks=5, seed=4)
    assert five.n_queries == 5 < every.n_queries
    assert set(five.queries["query"][:5]) <= set(every.queries["query"])


def test_synthetic_index_and_categorical_na_just_work():
    original, synthetic, control = _small(6)
    shifted = synthetic.set_index(synthetic.index * 7 + 1000)
    a = singling_out(original, synthetic, n_cols=2, control=control, seed=3)
    b = singling_out(original, shifted, n_cols=2, control=control, seed=3)
    assert a.queries.equals(b.queries)
    assert synthetic["city"].isna().any()


@pytest.mark.parametrize("call, match", [
    (lambda o, s: singling_out(o.iloc[:0], s), "original is empty"),
    (lambda o, s: singling_out(o, s.iloc[:0]), "synthetic is empty"),
    (lambda o, s: singling_out(o.drop(columns="job"), s), "missing from original"),
    (lambda o, s: singling_out(o, s, control=o.drop(columns="age")), "missing from control"),
    (lambda o, s: singling_out(o.assign(age=o["age"].astype(str)), s), "'age'"),
    (lambda o, s: singling_out(o.assign(job=o["age"].astype("category")),
                               s.assign(job=s["age"].astype(str)), n_cols=1), "'job'"),
    (lambda o, s: singling_out(o, s, n_cols=5), "n_cols"),
    (lambda o, s: singling_out(o, s, n_cols=0), "n_cols"),
    (lambda o, s: singling_out(o, s, n_attacks=0), "n_attacks"),
    (lambda o, s: singling_out(o, s, mode="both"), "mode"),
    (lambda o, s: singling_out(o.to_numpy(), s), "original must be a pandas DataFrame"),
])
def test_bad_input_is_a_capkit_error(call, match):
    original, synthetic, _ = _small(8)
    before = (original.copy(), synthetic.copy())
    with pytest.raises(CapkitError, match=match):
        call(original, synthetic)
    pd.testing.assert_frame_equal(original, before[0])
    pd.testing.assert_frame_equal(synthetic, before[1])


@pytest.mark.parametrize("mode", ["multivariate", "univariate"])
def test_the_order_of_the_columns_does_not_matter(mode):
    """The same data with the columns in another order (the CLI puts the keys first) gives the
    same queries, counts and risk."""
    original, synthetic, control = _small(9)
    a = singling_out(original, synthetic, mode=mode, n_cols=2, control=control, seed=3)
    order = ["hours", "city", "job", "age"]
    b = singling_out(original[order], synthetic[order[::-1]], mode=mode, n_cols=2,
                     control=control[order], seed=3)
    pd.testing.assert_frame_equal(a.queries, b.queries)
    assert (a.n_queries, a.n_success, a.n_control, a.risk) == (
        b.n_queries, b.n_success, b.n_control, b.risk)


def test_the_count_beside_a_rate_is_the_rate_s_count():
    """A holdout of another size: the members' rate is an expected count at the common size
    (0 of the raw queries may single out a member while the rate is not 0); the text names the
    count whose share the rate is, and the raw count."""
    original, synthetic, control = _small(10, n=240)
    got = singling_out(original, synthetic, n_cols=2, control=control.iloc[:60], seed=1)
    members = got.control.members
    assert members.k != got.n_success
    text = got.count_text
    k, n = text.split(" queries")[0].split(" of ")
    n = int(n.replace(",", ""))
    assert math.isclose(float(k.replace(",", "")) / n, members.rate, abs_tol=0.005 / n)
    assert f"{got.n_success:,} single out one of all {len(original):,} members" in text
    plain = singling_out(original.iloc[:60], synthetic, n_cols=2, control=control.iloc[:60],
                         seed=1)
    assert plain.count_text == f"{plain.n_success:,} of {plain.n_queries:,} queries single " \
        "out a member"


def test_audit_prints_the_count_whose_share_it_shows():
    """capkit.audit's singling-out finding: its percentage is the share of the count beside
    it, also with a holdout of another size."""
    from capkit.audit import audit

    original, synthetic, control = _small(10, n=240)
    run = audit(original, synthetic, holdout=control.iloc[:60], keys=["job"],
                families=("singling out",))
    finding = run.findings[0]
    k, n = finding.detail.split(" queries")[0].split(" of ")
    n = int(n.replace(",", ""))
    assert math.isclose(100 * float(k.replace(",", "")) / n, finding.value, abs_tol=0.5 / n)


# -- counting by histograms per set of columns (capkit.attacks._query_grid) against the slow
# reference: ties, missing values, absent values, every operator; the choice of method forced


def _force(monkeypatch, method: str) -> None:
    from capkit.attacks import _query_grid, queries

    if method == "grid":  # every set of <= 3 distinct columns by its histogram
        monkeypatch.setattr(_query_grid, "SET_OVERHEAD", -(1 << 62))
    else:  # and one query per block of masks
        monkeypatch.setattr(_query_grid, "GRID_LIMIT", 0)
        monkeypatch.setattr(queries, "_MASK_BYTES", 1)


_VALUES = {"x": [0, 1.5, 2, 4, -1, None], "i": [0, 1, 3, 9], "t": ["a", "b", "zz", None],
           "k": ["u", "w", None], "b": [True, False]}
_OPS = {"x": ["==", "!=", ">=", "<=", ">", "<", "is_null", "is_not_null"],
        "i": ["==", "!=", ">=", "<=", ">", "<"], "t": ["==", "!=", "is_null", "is_not_null"],
        "k": ["==", "!=", "is_null", "is_not_null"], "b": ["==", "!="]}


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 80), method=st.sampled_from(
    ["grid", "masks"]), repeat=st.booleans())
@settings(max_examples=60, deadline=None)
def test_histogram_counts_equal_slow_reference(seed, n, method, repeat):
    """Counts and the single match's position, record by record, on frames with ties and
    missing values; ``repeat`` allows two conditions on one column (served by bit masks)."""
    from capkit.attacks.queries import ConditionTable, FrameColumns

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "x": np.where(rng.random(n) < 0.2, np.nan, rng.integers(-1, 5, n) / 2),
        "i": rng.integers(0, 4, n),
        "t": rng.choice(np.array(["a", "b", None], dtype=object), n),
        "k": pd.Categorical(rng.choice(np.array(["u", "v", None], dtype=object), n),
                            categories=["u", "v", "w"]),
        "b": rng.random(n) < 0.5,
    })
    queries = []
    for _ in range(40):
        width = int(rng.integers(1, 5 if repeat else 4))
        names = rng.choice(list(_VALUES), width, replace=repeat).tolist()
        queries.append([(c, str(rng.choice(_OPS[c])),
                         _VALUES[c][int(rng.integers(0, len(_VALUES[c])))]) for c in names])
    want = _slow_counts(queries, frame)
    with pytest.MonkeyPatch.context() as patch:
        _force(patch, method)
        table = ConditionTable.from_queries(queries)
        counts, first = table.counts(FrameColumns(frame), first=True)
    assert counts.tolist() == want
    records = frame.astype(object).to_dict("records")
    for q, count, at in zip(queries, counts.tolist(), first.tolist(), strict=True):
        matching = [r for r, rec in enumerate(records)
                    if all(_holds(rec[c], o, v) for c, o, v in q)]
        assert at == (matching[0] if count == 1 else -1)


@pytest.mark.parametrize("compat", [False, True])
def test_singling_out_same_by_histograms_and_masks(compat):
    """The whole attack (draws, counts, rates) is the same whichever way queries are counted."""
    rng = np.random.default_rng(3)

    def frame(n):
        out = pd.DataFrame({"a": rng.integers(0, 6, n).astype(float),
                            "b": rng.choice(np.array(["x", "y", None], dtype=object), n),
                            "c": rng.integers(0, 25, n), "d": (rng.random(n) * 40).round(),
                            "e": rng.random(n) < 0.3})
        out.loc[rng.random(n) < 0.1, "a"] = np.nan
        return out

    members, synthetic, control = frame(400), frame(400), frame(250)
    got = {}
    for method in ("grid", "masks"):
        with pytest.MonkeyPatch.context() as patch:
            _force(patch, method)
            got[method] = singling_out(members, synthetic, control=control, seed=5,
                                       anonymeter_compat=compat,
                                       n_attacks=60 if compat else None)
    a, b = got["grid"], got["masks"]
    pd.testing.assert_frame_equal(a.queries, b.queries)
    assert (a.n_success, a.n_baseline, a.n_control, a.risk) == (
        b.n_success, b.n_baseline, b.n_control, b.risk)
