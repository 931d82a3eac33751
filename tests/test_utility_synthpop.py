"""capkit.utility against synthpop 1.9-2's own utility.gen / utility.tab / utility.tables /
compare outputs (``reference/synthpop_utility/``): every recorded call replayed on the files R
read.

Tolerances: the deterministic numbers (every table statistic, every propensity fit's pMSE,
SPECKS, PO50, U, the logit S_pMSE, the "pairs" nulls) agree to 1e-9 relative: they are sums of
at most 2 x 10^4 terms, each computed as R computes it, so the floating-point difference is a
few ulps times the number of terms (observed: below 1e-14). The permutation nulls draw from
numpy's generator, not R's Mersenne-Twister stream (interleaved with rpart's cross-validation
draws, which capkit does not make), so their mean is compared with synthpop's in the units of
its standard error: |mean_capkit - mean_R| < 4 sqrt(sd_R^2 / n_R + sd_capkit^2 / n_capkit)
(two means of draws from one null distribution; a false alarm about once in 16,000 runs).
"""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from reference_data import SHARED_ORACLE
from synthpop_utility_data import ROOT, calls, needs_sd2011, replay, results

from capkit import utility
from capkit.errors import CapkitError
from capkit.utility.one_table import TAB_STATS

pytestmark = needs_sd2011
REL = 1e-9
GEN_STATS = ("pMSE", "SPECKS", "PO50", "U")
#: Permutation runs too slow for the test suite (60 logit fits of 10^4 records, or a model of
#: 663 coefficients that R itself fits in 10 minutes); checked by hand, see the README.
SLOW = {("sd2011_m5", "gen_logit_maxorder0_perm"), ("sd2011_m1", "gen_logit_maxorder1"),
        # the same logit fits as sd2011_m5's gen_logit_maxorder0 (pairs: ten more of them)
        ("sd2011_m5", "gen_logit_maxorder0_none"), ("sd2011_m5", "gen_logit_maxorder0_pairs")}


def _num(values) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in np.atleast_1d(values)])


def _close(got, want, what: str) -> None:
    got, want = np.atleast_1d(np.asarray(got, dtype=float)), _num(want)
    assert got.shape == want.shape, what
    same_nan = np.isnan(got) == np.isnan(want)
    assert same_nan.all(), f"{what}: NA pattern {got} vs {want}"
    ok = np.isnan(want) | (np.abs(got - want) <= REL * np.maximum(1.0, np.abs(want)))
    assert ok.all(), f"{what}: {got} vs {want}"


def _gen_ids():
    out = []
    for case in ("sd2011_m1", "sd2011_m5", "vignette"):
        for cid in calls(case):
            if results(case)["calls"][cid]["call"].startswith("utility.gen") and \
                    (case, cid) not in SLOW:
                out.append((case, cid))
    return out


@pytest.mark.parametrize(("case", "cid"), _gen_ids(), ids=lambda x: str(x))
def test_gen(case: str, cid: str) -> None:
    rec = results(case)["calls"][cid]
    _, syn, orig, kw = replay(case, cid)
    if rec["error"] is not None:
        with pytest.raises(CapkitError, match="max_params"):
            utility.gen(syn, orig, **kw)
        return
    if kw.get("tree_method") == "ctree":
        with pytest.raises(CapkitError, match="ctree"):
            utility.gen(syn, orig, **kw)
        return
    want = rec["result"]
    pairs = kw.get("resamp_method") == "pairs"
    if rec["result"]["resamp.method"] == "perm":
        # the comparison below is of two null means, each with its standard error: as many of
        # our permutations as R's where its null values (and so their sd) are recorded, else 40
        kw["nperms"] = int(kw.get("nperms", 50)) if "null_values" in rec else 40
    got = utility.gen(syn, orig, seed=7, compat="synthpop" if pairs else None, **kw)
    for stat in GEN_STATS:
        _close(got[stat], want[stat], f"{cid} {stat}")
    if not np.isnan(got.S_pMSE).all():  # S_pMSE is pMSE over the null mean it reports
        np.testing.assert_allclose(got.pMSE / got.null_pMSE_mean, got.S_pMSE, rtol=1e-12)
    method = want["resamp.method"]
    if method == "perm":
        for j, null in enumerate(got.null):
            ours = null["simpMSE"]
            if "null_values" in rec:
                r_null = np.asarray(rec["null_values"]["values"][j]["simpMSE"])
                r_mean, r_var, n_r = r_null.mean(), r_null.var(ddof=1), len(r_null)
            else:  # only S_pMSE recorded: R's null mean is pMSE / S_pMSE, its sd taken as ours
                r_mean = want["pMSE"][j] / want["S_pMSE"][j]
                r_var, n_r = ours.var(ddof=1), rec["args"]["nperms"]
            se = np.sqrt(r_var / n_r + ours.var(ddof=1) / len(ours))
            assert abs(ours.mean() - r_mean) < 4 * se, (cid, j)
            _close(got.S_pMSE[j], got.pMSE[j] / ours.mean(), f"{cid} S_pMSE")
    else:  # the expectation (logit), the pairs' nulls (deterministic fits) or NA
        for stat in ("S_pMSE", "S_SPECKS", "S_PO50", "S_U"):
            _close(got[stat], want[stat], f"{cid} {stat}")
        if want["df"] is not None:
            assert got.df == want["df"]
    if pairs:
        r_null = rec["null_values"]["values"][0]
        for ours, theirs in (("simpMSE", "simpMSE"), ("simSPECKS", "simKS"), ("simU", "simU")):
            _close(got.null[0][ours], r_null[theirs], f"{cid} null {ours}")


@needs_sd2011
def test_pairs_po50_quirk_and_capkit_default() -> None:
    """synthpop standardises PO50 by the null SPECKS (a copy-paste slip); capkit by the null
    PO50, unless compat="synthpop"."""
    _, syn, orig, kw = replay("sd2011_m5", "gen_cart_pairs")
    fixed = utility.gen(syn, orig, **kw)
    quirk = utility.gen(syn, orig, compat="synthpop", **kw)
    _close(quirk.S_PO50, results("sd2011_m5")["calls"]["gen_cart_pairs"]["result"]["S_PO50"],
           "S_PO50 compat")
    want = fixed.PO50 * 2 / np.mean(fixed.null[0]["simPO50"])
    np.testing.assert_allclose(fixed.S_PO50, want, rtol=1e-12)  # same formula, same order
    assert not np.allclose(fixed.S_PO50, quirk.S_PO50)


def test_cart_scores_equal_rpart_predictions() -> None:
    """Every record's score (the leaf's share of synthetic records) equals R's
    predict(fit)[, 2]: a ratio of two counts, so to the last bit up to R's prior arithmetic."""
    _, syn, orig, kw = replay("sd2011_m1", "gen_cart_perm")
    got = utility.gen(syn, orig, resamp_method="none", cont_na=kw["cont_na"])
    with gzip.open(ROOT / "sd2011_m1" / "scores_gen_cart_perm.csv.gz", "rt") as handle:
        want = pd.read_csv(handle)
    np.testing.assert_array_equal(want["t"].to_numpy(), np.r_[np.ones(5000), np.zeros(5000)])
    np.testing.assert_allclose(got.scores[0], want["score_1"].to_numpy(), rtol=0, atol=1e-15)


def _tab_ids():
    return [(case, cid) for case in ("sd2011_m1", "sd2011_m5", "vignette")
            for cid in calls(case) if results(case)["calls"][cid]["call"].startswith(
                "utility.tab(")]


@pytest.mark.parametrize(("case", "cid"), _tab_ids(), ids=lambda x: str(x))
def test_tab(case: str, cid: str) -> None:
    want = results(case)["calls"][cid]["result"]
    _, syn, orig, kw = replay(case, cid)
    got = utility.tab(syn, orig, **kw)
    for stat in (*TAB_STATS, "nempty"):
        _close(got[stat], want[stat], f"{cid} {stat}")
    # the cells: labels of the groups (R's cut labels) and counts
    names = list(got.vars)
    r_obs = pd.DataFrame(want["tab_obs"])
    r_obs[names] = r_obs[names].fillna("NA").astype(str)
    ours = got.tab_obs.astype({v: str for v in names}).replace({"<NA>": "NA"})
    merged = r_obs.merge(ours, on=names, how="left", suffixes=("_r", "_py"))
    assert len(merged) == len(r_obs)
    assert (merged["Freq_py"].fillna(0).to_numpy() == merged["Freq_r"].to_numpy()).all()
    assert merged["Freq_py"].notna().sum() == len(ours)


def _table_ids():
    return [(case, cid) for case in ("sd2011_m1", "sd2011_m5", "vignette")
            for cid in calls(case) if results(case)["calls"][cid]["call"].startswith(
                ("utility.tables", "compare"))]


@pytest.mark.parametrize(("case", "cid"), _table_ids(), ids=lambda x: str(x))
def test_tables_and_compare(case: str, cid: str) -> None:
    want = results(case)["calls"][cid]["result"]
    function, syn, orig, kw = replay(case, cid)
    if function == "tables":
        got = utility.tables(syn, orig, **kw)
        r_tabs = pd.DataFrame(want["tabs"]).set_index("row_name")
        assert got.row_names == list(r_tabs.index)
        assert list(got.tabs.index) == [":".join(p.split(".", 1)[1] for p in r.split(":"))
                                        for r in r_tabs.index]
        assert list(got.tabs.columns) == list(r_tabs.columns)
        for col in r_tabs.columns:
            _close(got.tabs[col].to_numpy(), r_tabs[col].to_list(), f"{cid} {col}")
        label = dict(zip(got.tabs.index, got.row_names, strict=True))
        assert [label[k] for k in got.worstn.index] == list(want["worstn"])
        _close(got.worstn.to_numpy(), list(want["worstn"].values()), f"{cid} worstn")
        _close(got.var_scores.to_numpy(), list(want["var.scores"].values()), f"{cid} scores")
        assert [k.split(".", 1)[1] for k in want["var.scores"]] == list(got.var_scores.index)
        r_plot = pd.DataFrame(want["plot_data"])
        _close(got.plot_data["val"].to_numpy(), r_plot["val"].to_list(), f"{cid} plot")
    else:
        got = utility.compare(syn, orig, **kw)
        r_tab = pd.DataFrame(want["tab.utility"]).set_index("row_name")
        assert list(got.tab_utility.index) == list(r_tab.index)
        assert list(got.tab_utility.columns) == list(r_tab.columns)
        for col in r_tab.columns:
            _close(got.tab_utility[col].to_numpy(), r_tab[col].to_list(), f"{cid} {col}")
        # the frequency tables: R's hist(breaks = 20) bins of numbers, levels of factors
        assert list(got.tables) == list(want["tables"])
        for var, table in want["tables"].items():
            ours = got.tables[var]
            assert list(ours.columns) == ["NA" if c is None else c for c in table["col_names"]]
            np.testing.assert_allclose(ours.to_numpy(), np.array(table["rows"], dtype=float),
                                       rtol=1e-12)  # count x 100 / n, as R computes it


ORACLE = SHARED_ORACLE / "synthpop_utility"
needs_oracle = pytest.mark.skipif(not ORACLE.is_dir(), reason="the full oracle is not beside")


@needs_oracle
@pytest.mark.parametrize("case", ["sd2011_m1", "sd2011_m5", "vignette"])
def test_shipped_files_are_the_oracles(case: str) -> None:
    """reference/synthpop_utility holds the oracle's files unchanged (gzipped), and the
    original rebuilt through the loader equals the orig.csv R read."""
    for shipped in (ROOT / case).iterdir():
        if shipped.name in ("original.json", "README.md"):
            continue
        source = ORACLE / case / shipped.name
        if source.is_file():  # gzipped in the oracle too
            assert shipped.read_bytes() == source.read_bytes()
        else:
            with gzip.open(shipped, "rb") as handle:
                assert handle.read() == (ORACLE / case / shipped.name[:-3]).read_bytes()
    from capkit.papers.raab_nowok_dibben import utility_vignette
    rebuilt, syn_shipped, _ = utility_vignette.load_case(ROOT / case)
    read, syn_oracle, _ = utility_vignette.load_case(ORACLE / case)
    pd.testing.assert_frame_equal(rebuilt, read)
    for name, frames in syn_oracle.items():
        for a, b in zip(syn_shipped[name], frames, strict=True):
            pd.testing.assert_frame_equal(a, b)


def test_no_original_data_is_shipped() -> None:
    for case in ("sd2011_m1", "sd2011_m5", "vignette"):
        assert (ROOT / case / "original.json").is_file()
        assert not list((ROOT / case).glob("orig.csv*"))
