"""capkit.sdnist on small drawn frames: against slow transcriptions of SDNist 2.4's own code
(usnistgov/SDNist v2.4.0: ``report/dataset/binning.py``, ``transform.py``, ``metrics/kmarginal.py``,
``unique_exact_matches.py``, ``apparent_match_dist.py``), the DuckDB count against pandas, bad
input, inputs left alone, determinism. No data set needed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from capkit.errors import CapkitError
from capkit.sdnist import report
from capkit.sdnist.data import NUMERIC, prepare
from capkit.sdnist.dictionary import density_bins
from capkit.sdnist.kmarginal import kmarginal
from capkit.sdnist.privacy import (
    QUASI_IDENTIFIERS,
    apparent_match,
    unique_exact_matches,
    unique_exact_matches_duckdb,
)

PUMAS = ["25-00503", "25-00703", "25-01000"]
DENSITY = {"25-00503": 2872.7, "25-00703": 2195.3, "25-01000": 1457.2}


def _frame(n: int, seed: int) -> pd.DataFrame:
    """Records in the excerpts' text format, with N where the dictionary allows it."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 90, n)
    adult = age >= 15

    def coded(codes, n_share=0.0):
        v = rng.choice(codes, n).astype(object)
        v[rng.random(n) < n_share] = "N"
        return v

    puma = rng.choice(PUMAS, n)
    income = np.round(rng.choice([0, 5000, 12000, 30000, 52000, 90000, -3000], n), 0)
    return pd.DataFrame({
        "PUMA": puma, "AGEP": age, "SEX": rng.integers(1, 3, n),
        "MSP": np.where(adult, rng.integers(1, 7, n).astype(object), "N"),
        "HISP": rng.integers(0, 2, n), "RAC1P": rng.choice([1, 2, 6], n),
        "NOC": coded([0, 1, 2], 0.2), "NPF": coded([2, 3, 4], 0.3),
        "HOUSING_TYPE": rng.integers(1, 4, n), "OWN_RENT": rng.integers(0, 3, n),
        "DENSITY": [DENSITY[p] for p in puma], "INDP": coded([170, 8680, 5790], 0.3),
        "INDP_CAT": coded([0, 6, 14], 0.3), "EDU": coded(range(1, 13), 0.05),
        "PINCP": np.where(adult, [f"{v:.1f}" for v in income], "N"),
        "PINCP_DECILE": np.where(adult, rng.integers(0, 10, n).astype(object), "N"),
        "POVPIP": coded([501, 120, 300, 45], 0.1), "DVET": coded([1, 2], 0.9),
        "DREM": coded([1, 2], 0.05), "DPHY": coded([1, 2], 0.05),
        "DEYE": rng.integers(1, 3, n), "DEAR": rng.integers(1, 3, n),
        "PWGTP": rng.integers(1, 40, n), "WGTP": rng.integers(0, 40, n),
    })


@pytest.fixture(scope="module")
def pair():
    target = _frame(300, 1)
    deid = _frame(260, 2)
    deid.iloc[:60] = target.iloc[100:160].to_numpy()  # copies of real records
    deid.loc[deid.index[:30], "PINCP"] = [v if v == "N" else str(int(float(v)))
                                          for v in deid["PINCP"][:30]]  # 5000 for 5000.0
    return target, deid


# ---- SDNist 2.4's code, transcribed (pandas, loops as SDNist loops) -------------------------

def _sdnist_versions(target: pd.DataFrame, deid: pd.DataFrame):
    """C, then D versions as SDNist's Dataset builds them (all values valid)."""
    def clean(frame):
        c = frame.copy().astype(object)
        for f in c.columns:
            if f == "PUMA":
                continue
            mask = c[f] != "N"
            c.loc[mask, f] = pd.to_numeric(c.loc[mask, f]).astype(float if f == "PINCP"
                                                                   else int)
        bins = list(density_bins())
        c["DENSITY"] = pd.cut(c["DENSITY"].astype(float), bins=bins,
                              labels=list(range(len(bins) - 1))).astype(int)
        return c[sorted(c.columns)]

    ct, cd = clean(target), clean(deid)

    def transform(c):
        x = c.copy()
        for f in x.columns:
            if f == "PUMA":
                x[f] = x[f].astype(pd.CategoricalDtype(sorted(target["PUMA"].unique()))).cat.codes
                continue
            null = {"PINCP": 9999999, "POVPIP": 999}.get(f, -1)
            x[f] = pd.to_numeric(x[f].where(x[f] != "N", null)).astype(int)
        return x

    dt, dd = transform(ct), transform(cd)
    for f in NUMERIC:
        t_ok, s_ok = ct[f] != "N", cd[f] != "N"
        tv = pd.to_numeric(ct.loc[t_ok, f]).astype(int)
        tb = tv.rank(pct=True).apply(lambda x: int(20 * x) if x < 1 else 19)
        sv = pd.to_numeric(cd.loc[s_ok, f]).astype(int)
        final = sv.copy()
        max_b, last = 0, sorted(tb.unique())[-1]
        for b, g in tb.sort_values().groupby(tb.sort_values()):
            top = max(tv[g.index])
            if b == 0:
                max_b = top
                final[sv <= max_b] = b
            elif b != last:
                low, max_b = max_b, top
                final[(sv > low) & (sv <= max_b)] = b
            else:
                final[sv > max_b] = b
        dt[f], dd[f] = -1, -1
        dt.loc[t_ok, f], dd.loc[s_ok, f] = tb, final
    return ct, cd, dt, dd


def _sdnist_kmarginal(td: pd.DataFrame, sd: pd.DataFrame):
    cols = sorted(set(td.columns) - {"PUMA", "INDP"})
    marginals = [[a, b] for i, a in enumerate(cols) for j, b in enumerate(cols) if i < j]
    tdds, group_n = 0, td.groupby(["PUMA"]).size()
    group_tdds = group_n * 0
    for m in marginals:
        m = ["PUMA"] + m
        t_den = td.groupby(m).size() / td.shape[0]
        s_den = sd.groupby(m).size() / sd.shape[0]
        diff = t_den.subtract(s_den, fill_value=0).abs()
        t_sum, d_sum = t_den.groupby(["PUMA"]).sum(), diff.groupby(["PUMA"]).sum()
        d_sum = t_sum.where(t_sum <= d_sum).fillna(d_sum)
        group_tdds = group_tdds + (d_sum * len(td)) / group_n
        tdds += diff.sum()
    return int((2 - tdds / len(marginals)) * 500), \
        ((1 - group_tdds / len(marginals)) * 1000).astype(int).to_dict()


def _sdnist_uem(td, dd):
    cols = td.columns.tolist()
    u = td.loc[td.groupby(by=cols)[cols[0]].transform("count") == 1, :]
    merged = u.merge(dd.drop_duplicates(subset=cols), how="inner", on=cols)
    return merged.shape[0], u.shape[0]


def _sdnist_apparent(ct, cd):
    quasi = [f for f in QUASI_IDENTIFIERS if f in ct.columns]
    u1 = cd.drop_duplicates(subset=quasi, keep=False)
    u2 = ct.drop_duplicates(subset=quasi, keep=False)
    m = u1.merge(u2, how="inner", on=quasi)
    other = set(ct.columns) - set(quasi)
    s = sum((m[c + "_x"] == m[c + "_y"]).astype(int) for c in other)
    return len(m), (s / len(other) * 100).value_counts().to_dict()


def test_against_sdnists_code(pair):
    target, deid = pair
    coded = prepare(target, deid)
    ct, cd, dt, dd = _sdnist_versions(target, deid)
    assert list(coded.features) == list(dt.columns)
    assert np.array_equal(coded.d_target, dt.to_numpy(dtype=np.int64))
    assert np.array_equal(coded.d_deid, dd.to_numpy(dtype=np.int64))
    score, puma = _sdnist_kmarginal(dt, dd)
    km = kmarginal(coded.d_target, coded.d_deid, coded.features)
    assert km.score == score
    assert {coded.pumas[g]: v for g, v in km.puma_scores().items()} == \
        {PUMAS[g]: v for g, v in puma.items()}
    matched, unique = _sdnist_uem(ct, cd)
    uem = unique_exact_matches(coded.c_target, coded.c_deid)
    assert (uem["records matched in target data"], uem["unique target records"]) == \
        (matched, unique)
    assert matched >= 60  # the copies (PINCP 5000 equals 5000.0, as in SDNist)
    pairs, counts = _sdnist_apparent(ct, cd)
    am = apparent_match(coded.c_target, coded.c_deid, coded.features)
    assert am["records_matched_on_quasi_identifiers"][0] == pairs
    assert am["percent_match_counts"] == counts


def test_exact_sums_and_truncation():
    # the target against itself: every |t - s| is 0, the scores exactly 1000
    frame = _frame(120, 5)
    coded = prepare(frame, frame)
    km = kmarginal(coded.d_target, coded.d_target, coded.features)
    assert km.score == 1000 and set(km.puma_scores().values()) == {1000}
    # SDNist's quirk, kept: PINCP's lowest bin is not 0 here (more than 5 % tie at the
    # minimum), so the copy's incomes at or below 0 keep their own values and the copy of the
    # target scores below 1000
    assert kmarginal(coded.d_target, coded.d_deid, coded.features).score < 1000
    # a PUMA the deidentified file lacks: its d is capped at its share, its score 0
    other = prepare(frame, frame[frame["PUMA"] != PUMAS[0]])
    km = kmarginal(other.d_target, other.d_deid, other.features)
    assert km.puma_scores()[0] == 0 and min(km.puma_scores().values()) == 0


def test_duckdb_and_pandas_count_the_same(pair, tmp_path):
    target, deid = pair
    t, d = tmp_path / "t.csv", tmp_path / "d.csv"
    target.to_csv(t, index=False)
    deid.to_csv(d, index=False)
    coded = prepare(t, d)
    assert unique_exact_matches_duckdb(t, d) == unique_exact_matches(coded.c_target,
                                                                     coded.c_deid)
    assert unique_exact_matches_duckdb(target, deid) == \
        unique_exact_matches_duckdb(t, d)


def test_inputs_untouched_and_output_repeatable(pair):
    target, deid = pair
    before = (target.copy(), deid.copy())
    first = report(target, deid)
    second = report(target, deid)
    pd.testing.assert_frame_equal(target, before[0])
    pd.testing.assert_frame_equal(deid, before[1])
    assert first["pmse"] == second["pmse"] and first["k_marginal_score"] == \
        second["k_marginal_score"]
    assert 0 <= first["k_marginal_score"] <= 1000
    assert first["apparent_match"]["quasi_identifiers"] == sorted(QUASI_IDENTIFIERS)


def test_a_subset_of_features(pair):
    target, deid = pair
    got = report(target, deid.drop(columns=["PUMA", "INDP", "EDU"]), baselines=False)
    assert got["k_marginal_score_in_each_puma"] == {}
    assert "PUMA" not in got["apparent_match"]["quasi_identifiers"]
    assert got["linear_regression"] == {}


@pytest.mark.parametrize(("column", "value", "named"), [
    ("SEX", 3, "'SEX'"),
    ("AGEP", "N", "'AGEP'"),
    ("EDU", "college", "'EDU'"),
    ("PUMA", "99-99999", "'PUMA'"),
    ("INDP_CAT", 19, "'INDP_CAT'"),
    ("DENSITY", 0.0, "DENSITY"),
    ("PINCP", "inf", "'PINCP'"),
])
def test_bad_values_are_named(pair, column, value, named):
    target, deid = pair
    bad = deid.copy()
    bad[column] = bad[column].astype(object)
    bad.loc[bad.index[3], column] = value
    with pytest.raises(CapkitError, match=named):
        report(target, bad)


def test_bad_frames(pair):
    target, deid = pair
    with pytest.raises(CapkitError, match="'AGE'"):
        report(target, deid.rename(columns={"AGEP": "AGE"}))
    missing = deid.copy()
    missing.loc[missing.index[0], "NOC"] = np.nan
    with pytest.raises(CapkitError, match="'NOC'.*missing"):
        report(target, missing)
    with pytest.raises(CapkitError, match="empty"):
        report(target, deid.iloc[:0])
    with pytest.raises(CapkitError, match="engine"):
        report(target, deid, engine="spark")
    with pytest.raises(CapkitError, match="does not exist"):
        report(target, "no/such/file.csv")
    with pytest.raises(CapkitError, match="'AGE'"):
        unique_exact_matches_duckdb(target, deid.rename(columns={"AGEP": "AGE"}))
    bad = deid.copy()
    bad["SEX"] = bad["SEX"].astype(object)
    bad.loc[bad.index[0], "SEX"] = 7
    with pytest.raises(CapkitError, match="'SEX'"):
        unique_exact_matches_duckdb(target, bad)


def test_density_bins_are_sdnists():
    edges = density_bins()
    n_max = 52864.7 + 500
    log = np.logspace(math.log(10, 10), math.log(n_max, 10), 21)
    assert len(edges) == 15 and edges[:2].tolist() == [0.0, 150.0]
    assert np.array_equal(edges[2:], log[8:])
