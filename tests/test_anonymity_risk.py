"""Sample uniques, Benedetti & Franconi's individual risk (as sdcMicro's indivRisk computes
it) and the expected number of re-identifications: cases worked by hand, a record-by-record
reference, bad weights, and DuckDB against pandas."""

from __future__ import annotations

import importlib.util
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from capkit import anonymity as an
from capkit.errors import CapkitError


def _hand_frame() -> pd.DataFrame:
    # key f: 3 records of weight 10; m: 1 of weight 10; x: 2 of weight 4; y: 2 of weight 1
    return pd.DataFrame({
        "k": ["f", "m", "f", "x", "y", "f", "x", "y"],
        "w": [10.0, 10.0, 10.0, 4.0, 1.0, 10.0, 4.0, 1.0],
    })


# Worked by hand (sdcMicro's approx formulas, p = f/F):
#  f: f=3, F=30, p=.1   r = p / (f - (1 - p)) = .1 / 2.1                 = 0.0476190476190476
#  m: f=1, F=10, p=.1   r = p/(1-p) ln(1/p) = ln(10) / 9                  = 0.2558427881104496
#  x: f=2, F=8,  p=.25  r = p/(1-p) - (p/(1-p))^2 ln(1/p) = 1/3 - ln(4)/9 = 0.1793006265422341
#  y: f=2, F=2          F = f: r = 1/f                                    = 0.5
HAND = {"f": 0.0476190476190476, "m": 0.2558427881104496, "x": 0.1793006265422341, "y": 0.5}
# ER = 3 (.047619...) + .255843... + 2 (.179301...) + 2 (.5)
HAND_ER = 1.757301184052061


def test_hand_worked_individual_risk() -> None:
    df = _hand_frame()
    before = df.copy()
    result = an.individual_risk(df, ["k"], "w")
    per_key = result.per_key.set_index("k")
    for key, risk in HAND.items():
        assert per_key.loc[key, "risk"] == pytest.approx(risk, rel=1e-12), key
    assert per_key["fk"].to_dict() == {"f": 3, "m": 1, "x": 2, "y": 2}
    assert per_key["Fk"].to_dict() == {"f": 30.0, "m": 10.0, "x": 8.0, "y": 2.0}
    assert result.sample_uniques == 1
    assert result.expected_reidentifications == pytest.approx(HAND_ER, rel=1e-12)
    assert result.global_risk == pytest.approx(HAND_ER / 8, rel=1e-12)
    assert result.max_risk == 0.5
    assert result.record_risk.tolist() == pytest.approx(
        [HAND[k] for k in df["k"]], rel=1e-12)
    pd.testing.assert_frame_equal(df, before)


def test_formulas_directly() -> None:
    fk = np.array([1, 2, 3, 7, 5])
    Fk = np.array([20.0, 5.0, 3.0, 70.0, 12.5])  # noqa: N806
    got = an.benedetti_franconi(fk, Fk, qual=2.0)
    p = fk / Fk
    want = [
        2 * (0.05 / 0.95) * math.log(20),  # f = 1
        2 * ((0.4 / 0.6) - (0.4 / 0.6) ** 2 * math.log(2.5)),  # f = 2
        2 * (1 / 3),  # F = f
        2 * (0.1 / (7 - 0.9)),  # f > 2
        2 * (p[4] / (5 - (1 - p[4]))),
    ]
    assert got.tolist() == pytest.approx(want, rel=1e-12)


def test_without_weights_the_sample_is_the_population() -> None:
    df = _hand_frame()
    result = an.individual_risk(df, ["k"])
    assert result.per_key.set_index("k")["risk"].to_dict() == pytest.approx(
        {"f": 1 / 3, "m": 1.0, "x": 0.5, "y": 0.5})
    # every key contributes f * (1/f) = 1 re-identification
    assert result.expected_reidentifications == pytest.approx(4.0)
    assert an.sample_uniques(df, ["k"]) == 1


def _slow_reference(df: pd.DataFrame, keys: list[str], weight: str) -> list[float]:
    """Record by record: count each record's look-alikes and their weights, then the formula
    of the module note (written again here)."""
    rows = [tuple("<NA>" if pd.isna(v) else v for v in r) for r in df[keys].itertuples(
        index=False)]
    out = []
    for i, mine in enumerate(rows):
        f = sum(1 for other in rows if other == mine)
        big_f = sum(df[weight].iloc[j] for j, other in enumerate(rows) if other == mine)
        p = f / big_f
        if f == big_f:
            r = 1 / f
        elif f == 1:
            r = p / (1 - p) * math.log(1 / p)
        elif f == 2:
            r = p / (1 - p) - (p / (1 - p)) ** 2 * math.log(1 / p)
        else:
            r = p / (f - (1 - p))
        out.append(r)
        assert i == len(out) - 1
    return out


@pytest.mark.parametrize("seed", range(4))
def test_record_risk_equals_the_slow_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 120))
    df = pd.DataFrame({
        "a": rng.choice(["p", "q", "r", None], n, p=[0.4, 0.3, 0.25, 0.05]),
        "b": rng.integers(0, 5, n),
        "w": rng.uniform(1.0, 50.0, n).round(2),
    })
    result = an.individual_risk(df, ["a", "b"], "w")
    want = _slow_reference(df, ["a", "b"], "w")
    assert result.record_risk.tolist() == pytest.approx(want, rel=1e-9)
    assert result.expected_reidentifications == pytest.approx(sum(want), rel=1e-9)
    fk = df.groupby(["a", "b"], dropna=False)["w"].transform("size")
    assert result.sample_uniques == int((fk == 1).sum())


@pytest.mark.parametrize(("weights", "message"), [
    ([10.0, np.nan, 10.0, 4.0, 1.0, 10.0, 4.0, 1.0], "missing"),
    ([10.0, 0.0, 10.0, 4.0, 1.0, 10.0, 4.0, 1.0], "<= 0"),
    ([10.0, -3.0, 10.0, 4.0, 1.0, 10.0, 4.0, 1.0], "<= 0"),
    ([10.0, np.inf, 10.0, 4.0, 1.0, 10.0, 4.0, 1.0], "infinite"),
    ([0.5] * 8, "plausible population"),
    ([0.2, 30, 0.2, 0.2, 1, 0.2, 0.2, 1], "F_k < f_k"),
])
def test_bad_weights_are_refused(weights, message) -> None:
    df = _hand_frame().assign(w=weights)
    with pytest.raises(CapkitError, match=message):
        an.individual_risk(df, ["k"], "w")


def test_population_must_match_the_weights() -> None:
    df = _hand_frame()  # weights sum to 50
    assert an.individual_risk(df, ["k"], "w", population=50.2).records == 8
    with pytest.raises(CapkitError, match="stated population"):
        an.individual_risk(df, ["k"], "w", population=1000)
    with pytest.raises(CapkitError, match="at least the number of records"):
        an.individual_risk(df, ["k"], "w", population=5)
    with pytest.raises(CapkitError, match="weights column 'nope'|'nope' is missing"):
        an.individual_risk(df, ["k"], "nope")


def test_keys_that_identify_every_record_are_said() -> None:
    df = pd.DataFrame({"id": range(20), "w": 5.0})
    with pytest.warns(an.IdentifyingKeysWarning, match="identifier"):
        result = an.individual_risk(df, ["id"], "w")
    assert result.sample_uniques == 20


def test_duckdb_gives_the_pandas_numbers(tmp_path) -> None:
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(5)
    n = 500
    df = pd.DataFrame({"a": rng.choice(["p", "q", "r"], n), "b": rng.integers(0, 9, n),
                       "w": rng.uniform(1, 40, n)})
    path = tmp_path / "sample.parquet"
    df.to_parquet(path)
    want = an.individual_risk(df, ["a", "b"], "w")
    for source, engine in ((df, "duckdb"), (str(path), None)):
        got = an.individual_risk(source, ["a", "b"], "w", engine=engine)
        assert got.record_risk is None
        assert got.sample_uniques == want.sample_uniques
        assert got.expected_reidentifications == pytest.approx(
            want.expected_reidentifications, rel=1e-12)
        merged = want.per_key.merge(got.per_key, on=["a", "b"], suffixes=("", "_db"))
        assert len(merged) == len(want.per_key)
        assert (merged["fk"] == merged["fk_db"]).all()
        assert merged["risk"].to_numpy() == pytest.approx(merged["risk_db"].to_numpy(),
                                                          rel=1e-12)
    bad = df.assign(w=df["w"].where(np.arange(n) != 7))
    bad.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(CapkitError, match="missing"):
        an.individual_risk(str(tmp_path / "bad.parquet"), ["a", "b"], "w")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert an.sample_uniques(str(path), ["a", "b"]) == an.sample_uniques(df, ["a", "b"])


def test_duckdb_sees_a_nan_weight() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    rel = con.sql("SELECT * FROM (VALUES ('a', 1.5), ('a', 'nan'::DOUBLE), ('b', 2.0)) t(k, w)")
    with pytest.raises(CapkitError, match="missing"):
        an.individual_risk(rel, ["k"], "w")
    ok = con.sql("SELECT * FROM (VALUES ('a', 1.5), ('a', 3.5), ('b', 2.0)) t(k, w)")
    result = an.individual_risk(ok, ["k"], "w")
    assert result.per_key.set_index("k")["Fk"].to_dict() == {"a": 5.0, "b": 2.0}
    con.close()


def test_wildcard_missing_values_hand_worked() -> None:
    """sdcMicro's freqCalc: two records match when they agree wherever both have a value.
    (F,30) matches (F,NA), (NA,NA) and the other (F,30): f = 4, F = 10+20+40+50 = 120;
    (M,30) matches only (NA,NA): f = 2, F = 70; (NA,NA) matches all five: f = 5, F = 150."""
    df = pd.DataFrame({"sex": ["F", "F", "M", None, "F"],
                       "age": [30, np.nan, 30, np.nan, 30],
                       "w": [10.0, 20.0, 30.0, 40.0, 50.0]})
    result = an.individual_risk(df, ["sex", "age"], "w", missing="wildcard")
    fk = result.per_key["fk"].tolist()
    rows = result.per_key[["sex", "age"]].astype(object).where(
        result.per_key[["sex", "age"]].notna(), None).to_numpy().tolist()
    got = {tuple(r): (f, big) for r, f, big in zip(rows, fk, result.per_key["Fk"], strict=True)}
    assert got == {("F", 30.0): (4, 120.0), ("F", None): (4, 120.0), ("M", 30.0): (2, 70.0),
                   (None, None): (5, 150.0)}
    # (M,30): f = 2, F = 70, p = 2/70: r = p/(1-p) - (p/(1-p))^2 ln(1/p) = 1/34 - ln(35)/1156
    assert result.record_risk.iloc[2] == pytest.approx(1 / 34 - math.log(35) / 1156, rel=1e-12)
    assert result.sample_uniques == 0
    plain = an.individual_risk(df, ["sex", "age"], "w")
    assert plain.sample_uniques == 3  # (F,NA), (M,30), (NA,NA) are alone as values
    if importlib.util.find_spec("duckdb") is not None:
        counted = an.individual_risk(df, ["sex", "age"], "w", missing="wildcard",
                                     engine="duckdb")
        assert sorted(counted.per_key["fk"]) == sorted(fk)
        assert counted.expected_reidentifications == pytest.approx(
            result.expected_reidentifications, rel=1e-12)


def _f2(df: pd.DataFrame, keys: list[str], weight: str) -> tuple[list[int], list[float]]:
    """sdcMicro's C routine f2, record pair by record pair."""
    rows = df[keys].to_numpy(dtype=object)
    w = df[weight].to_numpy(dtype=float)
    n = len(rows)
    fk, big = [1] * n, list(w)
    for i in range(n):
        for j in range(i + 1, n):
            differ = any(not pd.isna(a) and not pd.isna(b) and a != b
                         for a, b in zip(rows[i], rows[j], strict=True))
            if not differ:
                fk[i] += 1
                fk[j] += 1
                big[i] += w[j]
                big[j] += w[i]
    return fk, big


@pytest.mark.parametrize("seed", range(3))
def test_wildcard_counts_equal_sdcmicros_pairwise_loop(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 80
    df = pd.DataFrame({"a": rng.choice(["p", "q", None], n, p=[0.5, 0.4, 0.1]),
                       "b": np.where(rng.random(n) < 0.15, np.nan, rng.integers(0, 4, n)),
                       "c": rng.choice(["x", "y", None], n, p=[0.6, 0.3, 0.1]),
                       "w": rng.uniform(1, 20, n)})
    fk, big = _f2(df, ["a", "b", "c"], "w")
    result = an.individual_risk(df, ["a", "b", "c"], "w", missing="wildcard")
    per_record = result.record_risk.to_numpy()
    want = an.benedetti_franconi(np.array(fk), np.array(big))
    assert per_record == pytest.approx(want, rel=1e-12)
    assert result.sample_uniques == sum(1 for f in fk if f == 1)
    assert result.expected_reidentifications == pytest.approx(want.sum(), rel=1e-12)
