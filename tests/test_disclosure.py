"""Unit tests of capkit.disclosure: the hand-worked example of the synthpop spec (section 10),
a slow record-by-record reference, every error condition of spec section 2, and input safety.

The expected numbers below are the spec's, worked by hand (fractions of integer counts); none
is produced by the code under test.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest

from capkit.counts.cells import align_labels
from capkit.data.labels import class_intervals, group_num, interval_labels, r_format
from capkit.disclosure import disclosure, disclosure_summary
from capkit.errors import CapkitError
from capkit.papers.raab_nowok_dibben.spec_example import spec_example


def spec_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Spec 10.1: original (16 records) and synthetic (15 records)."""
    return spec_example()


def run(**kw):
    orig, syn = spec_frames()
    kw.setdefault("target", "smoke")
    kw.setdefault("keys", ["sex", "age"])
    return disclosure(syn, orig, **kw)


def values(result) -> dict[str, float]:
    out = {}
    for frame in (result.ident, result.attrib, result.allcaps):
        out.update({c: float(frame[c].iloc[0]) for c in frame.columns})
    return out


COLUMNS = ["UiO", "UiS", "UiOiS", "repU", "Dorig", "Dsyn", "iS", "DiS", "DiSCO", "DiSDiO",
           "max_denom", "mean_denom", "baseCAPd", "CAPd", "CAPs", "DCAP", "TCAP"]
# spec 10.3, as exact fractions of the counts worked out there
TABLE_10_3 = {
    "defaults": ({}, [4 / 16, 3 / 15, 3 / 16, 2 / 16, 11 / 16, 7 / 15, 15 / 16, 7 / 16, 6 / 16,
                      4 / 16, 2, 1.5, 126 / 256, 13.6666666666666667 / 16, 11 / 15, 10 / 16,
                      6 / 15]),
    "usetargetNA": ({"usetarget_na": False},
                    [31.25, 26.666666666666667, 25, 18.75, 68.75, 46.666666666666667, 87.5,
                     43.75, 37.5, 25, 2, 1.5, 49.21875, 85.416666666666667, 73.333333333333333,
                     62.5, 42.857142857142857]),
    "usekeysNA": ({"usekeys_na": False},
                  [18.75, 20, 18.75, 12.5, 62.5, 46.666666666666667, 93.75, 43.75, 37.5, 25, 2,
                   1.5, 49.21875, 79.166666666666667, 73.333333333333333, 62.5, 40]),
    "not_targetlev": ({"not_targetlev": "NO"},
                      [25, 40, 25, 18.75, 25, 26.666666666666667, 37.5, 31.25, 25, 25, 2,
                       4 / 3, 49.21875, 37.5, 53.333333333333333, 31.25, 80]),
    "denom_lim": ({"denom_lim": 1, "exclude_ov_denom_lim": True},
                  [31.25, 20, 25, 12.5, 25, 20, 37.5, 18.75, 12.5, 12.5, 1, 1, 49.21875, 37.5,
                   46.666666666666667, 21.875, 40]),
    "exclude": ({"exclude_keys": ["sex"], "exclude_keylevs": ["F"],
                 "exclude_targetlevs": ["NO"]},
                [18.75, 26.666666666666667, 18.75, 12.5, 43.75, 26.666666666666667, 62.5, 31.25,
                 25, 25, 2, 4 / 3, 49.21875, 56.25, 53.333333333333333, 40.625,
                 44.444444444444444]),
}
PERCENT = {"max_denom", "mean_denom"}


@pytest.mark.parametrize("variant", list(TABLE_10_3))
@pytest.mark.parametrize("compat", [False, True])
def test_spec_10_3_option_variants(variant: str, compat: bool) -> None:
    options, expected = TABLE_10_3[variant]
    got = values(run(synthpop_compat=compat, **options))
    for column, value in zip(COLUMNS, expected, strict=True):
        if variant == "defaults" and column not in PERCENT:
            value = 100 * value
        assert got[column] == pytest.approx(value, rel=1e-12), column


def test_spec_10_2_defaults_in_words() -> None:
    """The four identity numbers and the checks of spec 10.2."""
    result = run()
    assert result.ident.iloc[0].tolist() == pytest.approx([25, 20, 18.75, 12.5])
    assert result.check_1way == [None] and result.check_2way == [None]
    assert result.check1 == "" and result.check2 == ""
    remaining = result.nexclusions[0]["remaining"].tolist()
    assert remaining == [16, 15, 11, 7, 15, 7, 6, 4]
    assert int(result.nexclusions[0].iloc[:, :5].to_numpy().sum()) == 0


def test_spec_10_3_exclusion_counts() -> None:
    ne = run(usetarget_na=False).nexclusions[0]
    assert ne["missing target"].tolist() == [1, 1, 0, 0, 1, 0, 0, 0]
    assert ne["remaining"].tolist() == [15, 14, 11, 7, 14, 7, 6, 4]
    ne = run(denom_lim=1, exclude_ov_denom_lim=True).nexclusions[0]
    assert ne["over denom_lim"].tolist() == [9, 4, 7, 4, 9, 4, 4, 2]
    assert ne["remaining"].tolist() == [7, 11, 4, 3, 6, 3, 2, 2]


def test_denom_lim_alone_has_no_effect() -> None:
    assert values(run(denom_lim=1)) == pytest.approx(values(run()), nan_ok=True)


def test_spec_10_4_checks_with_lowered_thresholds() -> None:
    result = run(thresh_1way=(3, 60), thresh_2way=(1, 55))
    one = result.check_1way[0]
    assert one.index.tolist() == ["YES"]
    assert one.iloc[0].tolist() == ["YES", 16, 31.25, 6, 4, pytest.approx(400 / 6)]
    assert result.check1 == "Check  smoke  level  YES"
    two = result.check_2way[0]
    assert two.index.tolist() == ["1", "4"]
    assert two["target_key_levs"].tolist() == ["NO|F", "YES|20"]
    assert two["npairs"].tolist() == [2, 2]
    assert two["key"].tolist() == ["sex", "age"]
    assert two["key_target_total"].tolist() == [6, 3]
    assert two["key_total"].tolist() == [8, 5]
    assert two["PctTargetKeyLevel"].tolist() == [75, 60]
    assert result.check2 == "2 pairs need checks"


def test_spec_10_5_numeric_target_and_summary() -> None:
    got = values(run(target="nkids"))
    expected = [25, 20, 18.75, 12.5, 50, 60, 93.75, 50, 43.75, 31.25, 2, 1.4, 27.34375,
                77.083333333333333, 80, 65.625, 46.666666666666667]
    assert [got[c] for c in COLUMNS] == pytest.approx(expected, rel=1e-12)
    orig, syn = spec_frames()
    summary = disclosure_summary(syn, orig, ["sex", "age"])
    assert summary.targets == ["smoke", "nkids"]
    assert summary.ident_orig.tolist() == [25, 25]
    assert summary.ident_syn.tolist() == [12.5, 12.5]
    table = summary.attrib_table
    assert table.index.tolist() == ["1 smoke", "2 nkids"]
    assert table["attrib.orig"].tolist() == [68.75, 50]
    assert table["attrib.syn"].tolist() == [37.5, 43.75]
    assert table["Npairs"].tolist() == [0, 0]


def test_spec_10_5_single_key_gives_nan_mean_denom() -> None:
    got = values(run(keys="age"))
    expected = [6.25, 6.666666666666667, 0, 0, 6.25, 6.666666666666667, 93.75, 0, 0, 0, 0,
                math.nan, 49.21875, 60, 52.222222222222222, 43.229166666666667, 0]
    assert [got[c] for c in COLUMNS] == pytest.approx(expected, rel=1e-12, nan_ok=True)


def test_spec_10_6_grouping() -> None:
    o = np.array([100, 200, 300, 400, -8, np.nan])
    s = np.array([150, 250, 350, -8, 100, np.nan])
    go, gs = group_num(o, s, s, 3, special=[-8])
    assert go.labels == ("[100,166.66667)", "[166.66667,283.33333)", "[283.33333,400]", "-8")
    assert go.codes.tolist() == [0, 1, 2, 2, 3, -1]
    assert gs.codes.tolist() == [0, 1, 2, 3, 0, -1]
    breaks = class_intervals(np.array([100, 100, 150, 200, 250, 300, 350, 400.0]), 10)
    assert breaks.tolist() == [75, 125, 175, 225, 275, 325, 375, 425]
    assert interval_labels(breaks)[0] == "[75,125)" and interval_labels(breaks)[-1] == \
        "[375,425]"


def test_r_number_labels() -> None:
    x = np.array([57, 2.5, 100000, 200000, 123456, 0.0001, 0.001, 1 / 3])
    assert r_format(x, integer=False) == ["57", "2.5", "1e+05", "2e+05", "123456", "1e-04",
                                          "0.001", "0.333333333333333"]
    assert r_format(np.array([100000]), integer=True) == ["100000"]


def test_alignment_is_one_sided_resort() -> None:
    """Spec 3.8 example: original values {1, 2, 10}, synthetic {1, 2}."""
    d, s = align_labels(["1", "2", "10"], ["1", "2"])
    assert d == ["1", "2", "10"] and s == ["1", "10", "2"]


def test_q4_misalignment_compat_versus_default() -> None:
    """Quirk Q4: synthpop pairs d and s by position after one side was re-sorted."""
    orig = pd.DataFrame({"k": pd.Categorical(list("aabbc")), "t": [1, 2, 10, 10, 2]})
    syn = pd.DataFrame({"k": pd.Categorical(list("aabbc")), "t": [1, 2, 2, 2, 1]})
    right = disclosure(syn, orig, "k", "t", compare_synorig=False)
    quirk = disclosure(syn, orig, "k", "t", compare_synorig=False, synthpop_compat=True)
    # by label, synthetic b holds 2,2 and original b holds 10,10: nothing is disclosed
    assert right.attrib["DiSCO"].iloc[0] == 0
    # synthpop pairs synthetic row "2" (third after re-sorting "1","10","2") with original
    # row "10" (third in numeric order): the 2 original b records count as disclosed
    assert quirk.attrib["DiSCO"].iloc[0] == pytest.approx(100 * 2 / 5)


# ------------------------------------------------------------------ slow reference

def reference(orig: pd.DataFrame, syn: pd.DataFrame, keys: list[str], target: str,
              not_targetlev: str | None = None, denom_lim: int | None = None
              ) -> dict[str, float]:
    """Record-by-record, cell-by-cell reference of spec 4 (labels paired by name)."""
    def label(v):
        return "Missing" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)

    d: Counter = Counter()
    s: Counter = Counter()
    for frame, counter in ((orig, d), (syn, s)):
        for _, rec in frame.iterrows():
            q = tuple(label(rec[k]) for k in keys)
            counter[(label(rec[target]), q)] += 1
    rows = sorted({t for t, _ in d} | {t for t, _ in s})
    cols = sorted({q for _, q in d} | {q for _, q in s})
    nd, ns = len(orig), len(syn)
    dq = {q: sum(d[(t, q)] for t in rows) for q in cols}
    sq = {q: sum(s[(t, q)] for t in rows) for q in cols}
    row_tot = {t: sum(d[(t, q)] for q in cols) for t in rows}
    tab = defaultdict(dict)
    for t in rows:
        for q in cols:
            dv, sv = d[(t, q)], s[(t, q)]
            pd1 = dq[q] > 0 and dv == dq[q]
            ps1 = sq[q] > 0 and sv == sq[q]
            col_ps1 = any(sq[q] > 0 and s[(u, q)] == sq[q] for u in rows)
            tab["original"][(t, q)] = dv
            tab["synthetic"][(t, q)] = sv
            tab["Dorig"][(t, q)] = dv if pd1 else 0
            tab["Dsyn"][(t, q)] = sv if ps1 else 0
            tab["iS"][(t, q)] = dv if sq[q] > 0 else 0
            tab["DiS"][(t, q)] = dv if col_ps1 else 0
            tab["DiSCO"][(t, q)] = dv if ps1 else 0
            tab["DiSDiO"][(t, q)] = dv if ps1 and pd1 else 0
    for name in tab:
        for cell, v in tab[name].items():
            if cell[0] == not_targetlev or (denom_lim is not None and v > denom_lim):
                tab[name][cell] = 0
    d1, s1 = tab["original"], tab["synthetic"]
    dq1 = {q: sum(d1[(t, q)] for t in rows) for q in cols}
    sq1 = {q: sum(s1[(t, q)] for t in rows) for q in cols}
    disco = [v for v in tab["DiSCO"].values() if v > 0]
    out = {
        "UiO": 100 * sum(dq1[q] == 1 for q in cols) / nd,
        "UiS": 100 * sum(sq1[q] == 1 for q in cols) / ns,
        "UiOiS": 100 * sum(dq1[q] == 1 and sq[q] > 0 for q in cols) / nd,
        "repU": 100 * sum(dq1[q] == 1 and sq1[q] == 1 for q in cols) / nd,
        "max_denom": max(disco) if disco else 0,
        "mean_denom": sum(disco) / len(disco) if disco else math.nan,
        "baseCAPd": 100 * sum((row_tot[t] / nd) ** 2 for t in rows),
        "CAPd": 100 / nd * sum(d1[(t, q)] ** 2 / dq1[q] for t in rows for q in cols if dq1[q]),
        "CAPs": 100 / ns * sum(s1[(t, q)] ** 2 / sq1[q] for t in rows for q in cols if sq1[q]),
        "DCAP": 100 / nd * sum(s1[(t, q)] / sq1[q] * d1[(t, q)] for t in rows for q in cols
                               if sq1[q]),
    }
    den = sum(dq1[q] for q in cols if sq1[q] > 0)
    out["TCAP"] = 100 * sum(disco) / den if den else math.nan
    for name in ("Dorig", "iS", "DiS", "DiSCO", "DiSDiO"):
        out[name] = 100 * sum(tab[name].values()) / nd
    out["Dsyn"] = 100 * sum(tab["Dsyn"].values()) / ns
    return out


@pytest.mark.parametrize("seed", range(8))
def test_matches_slow_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)

    def frame(n: int) -> pd.DataFrame:
        k1 = rng.choice(["a", "b", "c", None], n, p=[0.4, 0.3, 0.25, 0.05])
        k2 = rng.choice(["x", "y", "z"], n)
        t = rng.choice(["p", "q", "r", None], n, p=[0.5, 0.3, 0.15, 0.05])
        return pd.DataFrame({
            "k1": pd.Categorical(k1, categories=["a", "b", "c"]),
            "k2": pd.Categorical(k2, categories=["x", "y", "z"]),
            "k3": rng.integers(0, 4, n),
            "t": pd.Categorical(t, categories=["p", "q", "r"]),
        })

    orig, syn = frame(int(rng.integers(20, 80))), frame(int(rng.integers(20, 80)))
    keys = ["k1", "k2", "k3"] if seed % 2 else ["k1", "k2"]
    options = [({}, {}), ({"not_targetlev": "q"}, {"not_targetlev": "q"}),
               ({"denom_lim": 2, "exclude_ov_denom_lim": True}, {"denom_lim": 2})]
    for ours, theirs in options:
        got = values(disclosure(syn, orig, keys, "t", compare_synorig=False, **ours))
        want = reference(orig, syn, keys, "t", **theirs)
        for name, value in want.items():
            assert got[name] == pytest.approx(value, rel=1e-12, nan_ok=True), (name, ours)


# ------------------------------------------------------------------ errors (spec 2)

def _err(match: str, **kw) -> None:
    orig, syn = spec_frames()
    args = {"synthetic": syn, "original": orig, "keys": ["sex", "age"], "target": "smoke"}
    args.update(kw)
    with pytest.raises(CapkitError, match=match):
        disclosure(**args)


def test_error_synthetic_missing() -> None:
    _err("synthetic is required", synthetic=None)


def test_error_synthetic_wrong_type() -> None:
    _err("synthetic must be a DataFrame", synthetic="not a frame")


def test_error_original_not_a_frame() -> None:
    _err("original must be a DataFrame", original=[1, 2, 3])


def test_error_key_number_out_of_range() -> None:
    _err("keys are numeric they must be in range 1 to 4", keys=[1, 9])


def test_error_target_number_out_of_range() -> None:
    _err("target are numeric they must be in range 1 to 4", target=0)


def test_key_and_target_numbers_are_column_positions() -> None:
    orig, syn = spec_frames()
    by_number = disclosure(syn, orig, [1, 2], 3)
    assert by_number.keys == ["sex", "age"] and by_number.target == "smoke"


def test_error_key_not_in_original() -> None:
    _err("'height' is not in original", keys=["sex", "height"])


def test_error_key_not_in_synthetic() -> None:
    orig, syn = spec_frames()
    _err("'sex' is not in synthetic", synthetic=syn.drop(columns="sex"))


def test_error_duplicated_keys() -> None:
    _err("keys must not repeat", keys=["sex", "sex"])


def test_error_target_not_single() -> None:
    _err("target must be a single column", target=["smoke", "nkids"])


def test_error_target_among_keys() -> None:
    _err("'sex' is also one of the keys", target="sex")


def test_error_column_called_target_in_compat_mode() -> None:
    orig, syn = spec_frames()
    orig2, syn2 = orig.rename(columns={"nkids": "target"}), syn.rename(columns={"nkids": "target"})
    _err("column called 'target'", original=orig2, synthetic=syn2, synthpop_compat=True)
    # the default mode has no such limitation
    assert disclosure(syn2, orig2, ["sex", "age"], "target").n_orig == 16


def test_error_usetarget_na_not_single() -> None:
    _err("usetarget_na must be a single True or False", usetarget_na=[True, False])


def test_error_usekeys_na_wrong_length() -> None:
    _err("usekeys_na must be one True/False or 2", usekeys_na=[True, False, True])


def test_error_exclude_lengths() -> None:
    _err("must be the same length", exclude_keys=["sex"], exclude_keylevs=["F", "M"],
         exclude_targetlevs=["NO"])


def test_error_exclude_key_not_a_key() -> None:
    _err("exclude_keys entry 'nkids' is not one of the keys", exclude_keys=["nkids"],
         exclude_keylevs=["1"], exclude_targetlevs=["NO"])


def test_error_exclude_targetlev_not_a_level() -> None:
    _err("exclude_targetlevs must be levels of target 'smoke'", exclude_keys=["sex"],
         exclude_keylevs=["F"], exclude_targetlevs=["MAYBE"])


def test_error_exclude_keylev_not_a_level() -> None:
    _err("exclude_keylevs position 1 .'X'. must be one of the levels of key 'sex'",
         exclude_keys=["sex"], exclude_keylevs=["X"], exclude_targetlevs=["NO"])


@pytest.mark.parametrize("bad", [0, -1, 2.5, "5"])
def test_error_denom_lim(bad) -> None:
    _err("denom_lim must be an integer > 0", denom_lim=bad)


def test_error_ngroups_target_is_one() -> None:
    _err("ngroups_target must not be 1", target="nkids", ngroups_target=1)


def test_error_ngroups_target_length() -> None:
    _err("ngroups_target must be a single number", target="nkids", ngroups_target=[3, 4])


def test_error_ngroups_keys_length() -> None:
    _err("ngroups_keys must have one entry or one per key", ngroups_keys=[0, 3, 3])


def test_error_ngroups_keys_is_one() -> None:
    _err("ngroups_keys entries must not be 1", ngroups_keys=[0, 1])


def test_error_special_value_absent() -> None:
    _err("value -8 identified as denoting a special or missing in cont_na for 'age'",
         cont_na={"age": [-8]})


def test_error_cont_na_not_named() -> None:
    _err("cont_na must be a dict", cont_na=[-8])


def test_error_cont_na_unknown_column() -> None:
    _err("cont_na names column 'weight'", cont_na={"weight": [-8]})


def test_error_not_targetlev_vector() -> None:
    _err("not_targetlev must be a single target level", not_targetlev=["NO", "YES"])


def test_error_thresholds() -> None:
    _err("thresh_1way must be two numbers", thresh_1way=(50,))


def test_error_group_single_value() -> None:
    orig, syn = spec_frames()
    orig2, syn2 = orig.assign(one=1.0), syn.assign(one=1.0)
    _err("single unique value", original=orig2, synthetic=syn2, keys=["sex", "one"],
         ngroups_keys=[0, 3])


def test_error_q14_target_na_one_side_in_compat_mode() -> None:
    orig, syn = spec_frames()
    orig2 = orig.assign(smoke=orig["smoke"].fillna("NO"))
    _err("condition has length > 1", original=orig2, synthpop_compat=True)
    assert disclosure(syn, orig2, ["sex", "age"], "smoke").n_orig == 16


def test_error_q20_text_with_missing_in_compat_mode() -> None:
    orig, syn = spec_frames()
    orig2 = orig.assign(sex=orig["sex"].astype(object).where(orig.index != 0, None))
    syn2 = syn.assign(sex=syn["sex"].astype(object))
    _err("x must be a factor", original=orig2, synthetic=syn2, compare_synorig=False,
         synthpop_compat=True)
    assert disclosure(syn2, orig2, ["sex", "age"], "smoke", compare_synorig=False).m == 1


def test_summary_errors() -> None:
    orig, syn = spec_frames()
    with pytest.raises(CapkitError, match="ident_meas"):
        disclosure_summary(syn, orig, ["sex", "age"], ident_meas="UiO")
    with pytest.raises(CapkitError, match="attrib_meas"):
        disclosure_summary(syn, orig, ["sex", "age"], attrib_meas="Dorig")
    with pytest.raises(CapkitError, match="also keys"):
        disclosure_summary(syn, orig, ["sex", "age"], targets=["sex"])
    with pytest.raises(CapkitError, match="not_targetslev"):
        disclosure_summary(syn, orig, ["sex", "age"], not_targetslev=["NO", "", "x"])
    with pytest.raises(CapkitError, match="quirk Q5"):
        disclosure_summary([syn, syn], orig, ["sex", "age"], synthpop_compat=True)
    assert disclosure_summary([syn, syn], orig, ["sex", "age"]).m == 2


def test_inputs_not_modified_and_outputs_deterministic() -> None:
    orig, syn = spec_frames()
    before = orig.copy(deep=True), syn.copy(deep=True)
    first = run(usekeys_na=False, not_targetlev="NO")
    disclosure_summary(syn, orig, ["sex", "age"], usekeys_na=[True, False])
    pd.testing.assert_frame_equal(orig, before[0])
    pd.testing.assert_frame_equal(syn, before[1])
    second = run(usekeys_na=False, not_targetlev="NO")
    pd.testing.assert_frame_equal(first.attrib, second.attrib)
    assert str(first) == str(second)


def test_summary_plot_is_deterministic(tmp_path) -> None:
    from capkit import plots
    from capkit.plots.disclosure import plot_summary

    orig, syn = spec_frames()
    summary = disclosure_summary(syn, orig, ["sex", "age"])
    fig = plot_summary(summary.attrib_table, attrib_meas=summary.attrib_meas)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1 smoke", "2 nkids"]
    assert ax.get_xlim() == (0, 100)
    a = plots.save(fig, "summary", tmp_path / "a")
    b = plots.save(plot_summary(summary.attrib_table), "summary", tmp_path / "b")
    assert a[0].read_bytes() == b[0].read_bytes()
    assert a[1].read_bytes() == b[1].read_bytes()
    with pytest.raises(CapkitError, match="attrib_meas"):
        plot_summary(summary.attrib_table, "UiO")


def test_summary_dcap_and_ordering() -> None:
    orig, syn = spec_frames()
    summary = disclosure_summary(syn, orig, ["sex", "age"], attrib_meas="DCAP")
    table = summary.attrib_table
    # smoke: CAPd 85.416667, DCAP 62.5; nkids: CAPd 77.083333, DCAP 65.625 (spec 10.3 / 10.5)
    assert table.index.tolist() == ["1 smoke", "2 nkids"]
    assert table["attrib.orig"].tolist() == pytest.approx([1366.6666666666667 / 16,
                                                           1233.3333333333333 / 16])
    assert table["attrib.syn"].tolist() == pytest.approx([62.5, 65.625])


def test_measures_from_cells_without_frames() -> None:
    """The count step is separable: measures from a hand-made CellTable (spec 10.2 tables)."""
    from capkit.disclosure import CellTable, compute

    d = np.array([[0, 0, 0, 0, 0, 0, 0, 1, 0, 0],
                  [2, 2, 0, 1, 0, 1, 0, 1, 3, 0],
                  [1, 0, 1, 0, 0, 0, 2, 0, 0, 1]])
    s = np.array([[0, 0, 0, 0, 0, 0, 0, 1, 0, 0],
                  [2, 1, 0, 1, 1, 0, 0, 1, 1, 0],
                  [0, 1, 1, 1, 0, 0, 2, 0, 1, 1]])
    row, col = np.nonzero((d > 0) | (s > 0))
    labels = ["F | 20", "F | 30", "F | 40", "F | 50", "F | 60", "F | Missing", "M | 20",
              "M | 30", "M | 40", "M | 50"]
    cells = CellTable(
        row_labels=("Missing", "NO", "YES"), col_labels=tuple(labels),
        col_components=(tuple(x.split(" | ")[0] for x in labels),
                        tuple(x.split(" | ")[1] for x in labels)),
        row=row, col=col, d=d[row, col], s=s[row, col],
        col_in_synthetic=s.sum(axis=0) > 0, n_orig=16, n_syn=15, orig_target_missing=True)
    got = compute(cells)
    assert got.attrib["DiSCO"] == 37.5 and got.ident["repU"] == 12.5
    assert got.allcaps["TCAP"] == 40 and got.attrib["mean_denom"] == 1.5


def test_error_group_only_missing_in_synthetic() -> None:
    orig, syn = spec_frames()
    orig2, syn2 = orig.assign(w=[float(i) for i in range(16)]), syn.assign(w=np.nan)
    _err("only missing values", original=orig2, synthetic=syn2, keys=["sex", "w"],
         ngroups_keys=[0, 3], compare_synorig=False)


def test_unused_category_with_missing_values_is_dropped_not_an_error():
    # found by the CLI work on Adult: an unused level plus NA made to_missing_level raise KeyError
    o = pd.DataFrame({"k": ["a", "b", "a", "b"],
                      "t": pd.Categorical(["x", "y", None, "y"], categories=["x", "y", "z"])})
    plain = o.assign(t=o["t"].cat.remove_unused_categories())
    res = disclosure(o, o, ["k"], "t", compare_synorig=False)
    ref = disclosure(plain, plain, ["k"], "t", compare_synorig=False)
    pd.testing.assert_frame_equal(res.attrib, ref.attrib)
    pd.testing.assert_frame_equal(res.ident, ref.ident)


@pytest.mark.parametrize("by_text", [False, True])
@pytest.mark.parametrize("mixed", [False, True])
def test_check_2way_pair_sums_equal_pandas_grouping(by_text, mixed):
    """check_2way's sums per (target level, key level) pair, counted on codes, equal pandas'
    groupby on the texts (the way they were counted before): the same groups in the same
    order, missing labels and texts that collide ("a|b" + "c" and "a" + "b|c") included. With
    labels equal as values but not as text (7, 7.0, True, 1) the groups are still the texts',
    and each pair keeps its own label (pandas would show True for the group of 1)."""
    from capkit.disclosure.checks import _pair_sums

    rng = np.random.default_rng(3)
    row_labels = np.array(["a", "a|b", "x", None, 7], dtype=object)
    components = np.array(["c", "b|c", np.nan, "c", 7.0, "z"] + ([7, True, 1, None] if mixed
                                                                  else []), dtype=object)
    rows = rng.integers(0, len(row_labels), 400)
    cols = rng.integers(0, len(components), 400)
    values = rng.integers(0, 9, 400).astype(float)
    got = _pair_sums(rows, row_labels, components, cols, values, by_text)
    frame = pd.DataFrame({"t": row_labels[rows], "k": components[cols], "v": values})
    frame["s"] = frame["t"].astype(str) + "|" + frame["k"].astype(str)
    want = frame.groupby(["s"] if by_text else ["s", "t", "k"], sort=False,
                         dropna=False)["v"].sum().reset_index()
    assert got.s.tolist() == want["s"].tolist()
    assert got.v.tolist() == want["v"].tolist()
    if by_text:  # the text split at its first two "|", as synthpop's strsplit reads it
        assert got.t.tolist() == [s.split("|")[0] for s in want["s"]]
        assert got.k.tolist() == [s.split("|")[1] for s in want["s"]]
        return
    if not mixed:  # the labels as the key margins read them: a missing label is "nan"
        for column in ("t", "k"):
            assert getattr(got, column).tolist() == [str(v) for v in want[column]]
    present = (got.t != "nan") & (got.k != "nan")  # no label here is the text "nan"
    pasted = [a + "|" + b for a, b in zip(got.t[present], got.k[present], strict=True)]
    assert pasted == got.s[present].tolist()
