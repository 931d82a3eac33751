"""capkit.utility on bad or awkward input (clear errors, or the documented treatment named in
the output), its rank statistics against scipy's, and its determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from capkit import utility
from capkit.errors import CapkitError
from capkit.utility.ranks import ks_statistic, wilcoxon_w


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "sex": pd.Categorical(rng.choice(["M", "F"], n), categories=["M", "F"]),
        "age": rng.integers(18, 90, n).astype(float),
        "region": pd.Categorical(rng.choice(list("abcd"), n), categories=list("abcd")),
        "income": np.where(rng.random(n) < 0.1, np.nan, rng.gamma(2.0, 1000.0, n).round()),
    })


ORIG, SYN = _frame(400, 1), _frame(400, 2)


def test_ranks_equal_scipy_with_ties() -> None:
    """KS D and Wilcoxon W with many exact ties, against scipy on the expanded samples."""
    rng = np.random.default_rng(0)
    values = rng.integers(0, 7, 60) / 7.0
    w1, w0 = rng.integers(0, 4, 60).astype(float), rng.integers(0, 4, 60).astype(float)
    x, y = np.repeat(values, w1.astype(int)), np.repeat(values, w0.astype(int))
    assert ks_statistic(values, w1, w0) == pytest.approx(stats.ks_2samp(x, y).statistic,
                                                         abs=1e-12)  # sums of 1/n steps
    u = stats.mannwhitneyu(x, y, alternative="two-sided", use_continuity=False).statistic
    assert wilcoxon_w(values, w1, w0) == u  # half-integers: exact


def test_columns_differing_between_files() -> None:
    syn = SYN.rename(columns={"age": "years"})
    with pytest.raises(CapkitError, match="years"):
        utility.gen(syn, ORIG, resamp_method="none")
    with pytest.raises(CapkitError, match="same columns"):
        utility.gen([SYN, SYN[["sex", "age"]]], ORIG)
    with pytest.raises(CapkitError, match="'height'"):
        utility.tab(SYN, ORIG, ["sex", "height"])
    bad = SYN.assign(region=SYN["region"].cat.codes.astype(float))
    with pytest.raises(CapkitError, match="region"):
        utility.tables(bad, ORIG)


def test_column_constant_in_both_is_left_out_and_named() -> None:
    orig, syn = ORIG.assign(k=1.0), SYN.assign(k=1.0)
    res = utility.gen(syn, orig, resamp_method="none")
    assert res.excluded == ["k"] and "k" not in res.vars
    assert any("'k'" in w for w in res.warnings)
    same = utility.gen(SYN, ORIG, resamp_method="none")
    assert res.pMSE[0] == same.pMSE[0]
    with pytest.raises(CapkitError, match="single unique value"):
        utility.tab(syn, orig, "k")


def test_perfect_separation_is_the_answer() -> None:
    """A synthesis whose ages never meet the original's: every record is told apart, the
    scores are 0 and 1 and pMSE is c(1 - c), its maximum; flagged, not refused."""
    syn = SYN.assign(age=SYN["age"] + 1000.0)
    res = utility.gen(syn, ORIG, resamp_method="none")
    assert res.pMSE[0] == 0.25 and res.separated.all()
    assert res.SPECKS[0] == 1.0 and res.PO50[0] == 50.0
    assert any("separates the files perfectly" in w for w in res.warnings)
    logit = utility.gen(syn, ORIG, method="logit", maxorder=0)
    assert logit.separated.all() and logit.pMSE[0] == pytest.approx(0.25, abs=1e-6)


def test_missing_values_only_in_the_synthesis() -> None:
    """capkit gives them a level (factors) or an indicator (numbers); compat="synthpop" stops
    where synthpop would hand missing values to its model or fail on the table's shape."""
    syn = SYN.copy()
    syn.loc[:9, "region"] = np.nan
    syn.loc[:9, "age"] = np.nan
    res = utility.gen(syn, ORIG, resamp_method="none")
    assert np.isfinite(res.pMSE[0])
    t = utility.tab(syn, ORIG, ["region"])
    assert "NA" in list(t.tab_syn[0]["region"].cat.categories)
    with pytest.raises(CapkitError, match="region"):
        utility.gen(syn, ORIG, resamp_method="none", compat="synthpop")
    with pytest.raises(CapkitError, match="region"):
        utility.tab(syn, ORIG, ["region"], compat="synthpop")


def test_missing_value_codes() -> None:
    orig = ORIG.assign(income=ORIG["income"].where(ORIG.index % 7 != 0, -8.0))
    syn = SYN.assign(income=SYN["income"].where(SYN.index % 5 != 0, -8.0))
    t = utility.tab(syn, orig, ["income"], cont_na={"income": [-8]})
    assert list(t.tab_obs["income"].cat.categories)[-2:] == ["-8", "NA"]
    g = utility.gen(syn, orig, resamp_method="none", cont_na={"income": [-8]})
    assert g.fits[0].predictors[-2:] == ["income_NA", "income_cna_1"]
    with pytest.raises(CapkitError, match="-99"):
        utility.gen(syn, orig, cont_na={"income": [-99]})


def test_sparse_tables_warned_and_capped() -> None:
    t = utility.tab(SYN, ORIG, ["age", "region", "sex"], ngroups=40)
    assert t.warnings and "sparse" in t.warnings[0]
    with pytest.raises(CapkitError, match="max_table"):
        utility.tab(SYN, ORIG, ["age", "region", "sex"], ngroups=40, max_table=100)


def test_arguments_checked() -> None:
    with pytest.raises(CapkitError, match="method"):
        utility.gen(SYN, ORIG, method="forest")
    with pytest.raises(CapkitError, match="pairs"):
        utility.gen(SYN, ORIG, resamp_method="pairs")
    with pytest.raises(CapkitError, match="resamp_method"):
        utility.gen(SYN, ORIG, resamp_method="boot")
    with pytest.raises(CapkitError, match="max_params"):
        utility.gen(SYN, ORIG, method="logit", maxorder=2, max_params=10)
    with pytest.raises(CapkitError, match="tables"):
        utility.tables(SYN, ORIG, tables="fourway")
    with pytest.raises(CapkitError, match="plot_stat"):
        utility.tables(SYN, ORIG, plot_stat="df")
    with pytest.raises(CapkitError, match="synthetic"):
        utility.gen("file.csv", ORIG)
    with pytest.raises(CapkitError, match="compat"):
        utility.tab(SYN, ORIG, "sex", compat="R")


def test_inputs_not_modified_and_runs_repeat() -> None:
    orig, syn = ORIG.copy(deep=True), SYN.copy(deep=True)
    a = utility.gen([syn, syn.iloc[::-1].reset_index(drop=True)], orig, nperms=3, seed=5)
    utility.tables(syn, orig)
    utility.compare(syn, orig)
    pd.testing.assert_frame_equal(orig, ORIG)
    pd.testing.assert_frame_equal(syn, SYN)
    b = utility.gen([syn, syn.iloc[::-1].reset_index(drop=True)], orig, nperms=3, seed=5)
    np.testing.assert_array_equal(a.S_pMSE, b.S_pMSE)
    c = utility.gen([syn, syn.iloc[::-1].reset_index(drop=True)], orig, nperms=3, seed=6)
    assert not np.array_equal(a.null[0]["simpMSE"], c.null[0]["simpMSE"])
    assert a["pMSE"] is a.pMSE


def test_propensity_pmse() -> None:
    t = np.r_[np.ones(3, bool), np.zeros(5, bool)]
    p = np.linspace(0.1, 0.8, 8)
    c = 3 / 8
    assert utility.propensity_pmse(p, t) == pytest.approx(np.mean((p - c) ** 2), rel=1e-15)
    assert utility.propensity_pmse(t.astype(float), t) == pytest.approx(c * (1 - c), rel=1e-15)
    with pytest.raises(CapkitError, match="scores"):
        utility.propensity_pmse(p[:3], t)
