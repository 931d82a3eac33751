"""The CART permutation null computed once per synthesis (shared predictors, threads), the
standard errors behind the risk-utility map's utility intervals, and the map's figure (error
bars on both axes, the "not flagged and useful" region shaded), on data built here.

References are written out slowly: the null refitted one permutation at a time through the
single-fit path, the k-marginal bootstrap replicates counted record by record with exact
fractions, the standard errors with Python's ``statistics``.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from matplotlib.collections import PolyCollection

from capkit import plots, utility
from capkit.audit.findings import Finding
from capkit.audit.utility_family import (
    Z95,
    kmarginal_bootstrap,
    measure,
    null_se,
    release_map,
    tables_se,
)
from capkit.cli import main
from capkit.plots import utility_map
from capkit.synth import cart
from capkit.utility import general
from capkit.utility.propensity import cart_scores, stack


def _frame(seed: int, n: int = 500) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    return pd.DataFrame({
        "age": age,
        "income": np.round(rng.gamma(2.0, 900.0, n), -1),
        "sex": pd.Categorical(rng.choice(["f", "m"], n)),
        "edu": pd.Categorical(rng.choice(["low", "mid", "high"], n),
                              categories=["low", "mid", "high"], ordered=True),
        "region": pd.Categorical(rng.choice(list("abcdefg"), n)),
        "retired": pd.Categorical(np.where(age > 65, "yes", "no"))})


def test_null_equals_one_refit_at_a_time() -> None:
    """utility.gen's permutation null (predictors prepared once, refits on threads) gives,
    bit for bit, the values of refitting the CART model to each permuted label vector on its
    own, in the order synthpop draws them."""
    original, syn = _frame(1), _frame(2)
    got = utility.gen(syn, original, resamp_method="perm", nperms=8, seed=7, workers=2)
    one = utility.gen(syn, original, resamp_method="perm", nperms=8, seed=7, workers=1)
    data, syns, _ = general.prepare(original, [syn], list(original.columns), {}, None, None)
    frame = stack(syns[0], data)
    t = np.r_[np.ones(len(syn), dtype=np.int64), np.zeros(len(original), dtype=np.int64)]
    cc = len(syn) / len(t)
    rng = np.random.default_rng(7)
    slow = []
    for _ in range(8):
        score, _tree = cart_scores(frame, rng.permutation(t), 1e-3, 5)
        slow.append(np.sum((score - cc) ** 2) / len(t) / 2)
    assert list(got.null[0]["simpMSE"]) == slow == list(one.null[0]["simpMSE"])
    assert got.S_pMSE[0] == got.pMSE[0] / np.mean(slow)


def test_fit_many_gives_each_fit() -> None:
    """The trees of cart.fit_many (shared root orders, two threads) are cart.fit's, field by
    field, for class (2 and 3 classes) and numeric responses."""
    f = _frame(3, 400)
    X = np.column_stack([f["age"], f["income"], f["sex"].cat.codes, f["edu"].cat.codes,
                         f["region"].cat.codes]).astype(float)
    kinds = np.array([cart.NUMERIC, cart.NUMERIC, cart.FACTOR, cart.ORDERED, cart.FACTOR])
    nlev = np.array([0, 0, 2, 3, 7])
    rng = np.random.default_rng(0)
    for ys, cls, c in (([rng.integers(0, 2, 400) for _ in range(4)], True, 2),
                       ([rng.integers(0, 3, 400) for _ in range(3)], True, 3),
                       ([rng.normal(size=400) for _ in range(3)], False, 0)):
        many = cart.fit_many(X, kinds, nlev, ys, cls, n_classes=c, cp=1e-4, workers=2)
        for y, tree in zip(ys, many, strict=True):
            one = cart.fit(X, kinds, nlev, y, cls, n_classes=c, cp=1e-4)
            for name in ("node", "left", "right", "var", "cut", "direction", "n", "dev",
                         "complexity", "improve", "counts", "leaf_row"):
                np.testing.assert_array_equal(getattr(tree, name), getattr(one, name))


def _slow_kmarginal(target: pd.DataFrame, deid: pd.DataFrame) -> Fraction:
    """SDNist's (2 - mean over pairs of sum |t - s|) x 500, cell by cell, exactly."""
    l1 = []
    for a, b in combinations(target.columns, 2):
        t = Counter(zip(target[a], target[b], strict=True))
        s = Counter(zip(deid[a], deid[b], strict=True))
        l1.append(sum(abs(Fraction(t[c], len(target)) - Fraction(s[c], len(deid)))
                      for c in set(t) | set(s)))
    return (2 - sum(l1) / len(l1)) * 500


def test_kmarginal_bootstrap_against_record_by_record() -> None:
    original, syn = _frame(4, 120), _frame(5, 90)
    cols = ["sex", "edu", "region", "retired"]
    got = kmarginal_bootstrap(original[cols], syn[cols], cols, replicates=6, seed=3)
    rng = np.random.default_rng(3)
    for value in got:  # the same draws: the original's records, then the synthesis'
        it = rng.integers(0, len(original), len(original))
        ids = rng.integers(0, len(syn), len(syn))
        exact = _slow_kmarginal(original[cols].iloc[it].astype(str),
                                syn[cols].iloc[ids].astype(str))
        assert value == float(exact)
    assert len(set(got)) > 1  # the replicates differ: a spread to read


def test_standard_errors_by_their_formulas() -> None:
    values = [0.5, 3.0, 2.25, 7.5, 1.0]
    assert tables_se(pd.Series(values)) == pytest.approx(
        statistics.stdev(values) / 5 ** 0.5, rel=1e-12)  # a few roundings of sums of 5 terms
    # S = pMSE / m: its Monte Carlo error from the null's spread, by the delta method
    assert null_se(4.0, 0.002, 0.0005, 25) == pytest.approx(4.0 * 0.0005 / 5 / 0.002, rel=1e-15)
    assert np.isnan(null_se(4.0, 0.002, 0.0005, 1)) and np.isnan(tables_se(pd.Series([1.0])))


@pytest.fixture(scope="module")
def family():  # noqa: ANN201
    original = _frame(6, 400)
    named = {"copy": original.sample(frac=1.0, random_state=1).reset_index(drop=True),
             "other": _frame(7, 400),
             "independent": pd.DataFrame({c: original[c].sample(frac=1.0, random_state=j)
                                          .to_numpy() for j, c in enumerate(original.columns)})}
    return original, named, measure(original, named, nworst=3, nperms=12, seed=2)


def test_family_standard_errors(family) -> None:  # noqa: ANN001
    original, named, fam = family
    for name, frame in named.items():
        u = fam.releases[name]
        gen = utility.gen(frame, original, resamp_method="perm", nperms=12, seed=2)
        sim = list(gen.null[0]["simpMSE"])
        s = gen.pMSE[0] / statistics.fmean(sim)
        assert u.S_pMSE_general_se == pytest.approx(
            s * statistics.stdev(sim) / 12 ** 0.5 / statistics.fmean(sim), rel=1e-12)
        assert u.S_pMSE_se == pytest.approx(
            statistics.stdev(u.twoway["S_pMSE"]) / len(u.twoway) ** 0.5, rel=1e-12)
        boot = kmarginal_bootstrap(original, frame, list(original.columns), seed=2)
        assert u.kmarginal_se == pytest.approx(statistics.stdev(boot), rel=1e-12)
        for axis, (value, se) in {"S_pMSE": (u.S_pMSE, u.S_pMSE_se),
                                  "S_pMSE (CART)": (u.S_pMSE_general, u.S_pMSE_general_se),
                                  "k-marginal": (u.kmarginal, u.kmarginal_se)}.items():
            v, low, high = u.interval(axis)
            assert v == value and high == pytest.approx(
                min(value + Z95 * se, 1000.0 if axis == "k-marginal" else np.inf), rel=1e-12)
            assert low == pytest.approx(max(value - Z95 * se, 0.0), rel=1e-12, abs=1e-12)
    # a copy: S_pMSE 0 and no spread from the null; its k-marginal still varies by resampling
    assert fam.releases["copy"].S_pMSE_general_se == 0 and fam.releases["copy"].kmarginal_se > 0
    assert fam.releases["independent"].S_pMSE_se > 0


def _findings(names: list[str]) -> list[Finding]:
    risks = {"copy": (40.0, "disclosive"), "other": (2.0, "not flagged"),
             "independent": (1.0, "not flagged")}
    return [Finding(n, "attribute", "DiSCO", "retired", risks[n][0], "%", 0.0, None, "",
                    risks[n][0], risks[n][0] - 1.5, risks[n][0] + 1.5, risks[n][1], "", "")
            for n in names]


@pytest.mark.parametrize("axis", ["S_pMSE", "S_pMSE (CART)", "k-marginal"])
def test_map_points_carry_both_intervals(family, axis: str) -> None:  # noqa: ANN001
    _, named, fam = family
    names = list(named)
    table = release_map(fam, _findings(names), names, axis=axis)
    for n in names:
        assert tuple(table.loc[n, ["utility", "utility_low", "utility_high"]]) == \
            fam.releases[n].interval(axis)
        assert table.loc[n, "risk_low"] < table.loc[n, "risk"] < table.loc[n, "risk_high"]
    fig = utility_map.risk_utility_map(table)
    try:
        bars = [c for c in fig.axes[0].containers if hasattr(c, "has_yerr")][0]
        assert bars.has_xerr and bars.has_yerr
        segments = bars.lines[2][1].get_segments()  # the y error bars, point by point
        for seg, n in zip(segments, names, strict=True):
            ys = sorted(p[1] for p in seg)
            assert ys == pytest.approx(sorted(table.loc[n, ["utility_low", "utility_high"]]),
                                       rel=1e-12)
    finally:
        plt.close(fig)


def test_region_is_shaded_and_figure_deterministic() -> None:
    t = utility.risk_utility_table(
        {"cart": (12.0, 10.0, 14.0), "independent": (1.0, 0.5, 1.5),
         "cart, sdc": (4.0, 3.0, 5.0)},
        {"cart": (2.0, 1.5, 2.5), "independent": (250.0, 200.0, 300.0),
         "cart, sdc": (4.0, 3.0, 5.0)}, risk_limit=5.0)
    fig = utility_map.risk_utility_map(t, "releases")
    try:
        shaded = [c for c in fig.axes[0].collections if isinstance(c, PolyCollection)
                  and c.get_label() == "not flagged and useful"]
        assert len(shaded) == 1
        xy = shaded[0].get_paths()[0].vertices
        x0, _ = fig.axes[0].get_xlim()
        assert xy[:, 0].max() == 5.0 and xy[:, 0].min() <= x0  # left of the risk limit
        assert xy[:, 1].max() == 10.0  # S_pMSE up to synthpop's 'good' limit
        svg = plots.svg_bytes(fig)
    finally:
        plt.close(fig)
    again = utility_map.risk_utility_map(t, "releases")
    assert plots.svg_bytes(again) == svg and b"not flagged and useful" in svg
    plt.close(again)


def test_report_map_intervals_in_every_format(tmp_path: Path) -> None:
    original, holdout = _frame(8, 300), _frame(9, 300)
    paths = {}
    for name, frame in (("orig", original), ("hold", holdout),
                        ("copy", original.sample(frac=1.0, random_state=2)),
                        ("other", _frame(10, 300))):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    base = ["report", paths["orig"], paths["copy"], paths["other"], "--holdout",
            paths["hold"], "--family", "distance", "-q", "--nperms", "5", "--map-utility",
            "S_pMSE (CART)"]
    pages = {}
    for fmt in ("json", "html", "markdown", "text"):
        result = CliRunner().invoke(main, [*map(str, base), "--format", fmt])
        assert result.exit_code == 0, result.output
        pages[fmt] = result.stdout
    doc = json.loads(pages["json"])
    assert doc["utility"]["nperms"] == 5
    rows = {r["release"]: r for r in doc["risk_utility_map"]["releases"]}
    for row in rows.values():
        assert row["utility_low"] <= row["utility"] <= row["utility_high"]
    assert rows["2: other.csv"]["utility_high"] > rows["2: other.csv"]["utility_low"]
    for fmt in ("html", "markdown", "text"):
        assert "utility low" in pages[fmt] and "utility high" in pages[fmt], fmt
        assert "SE (CART)" in pages[fmt], fmt
    assert "not flagged and useful" in pages["html"]  # the figure's legend and caption
    util = CliRunner().invoke(main, ["utility", str(paths["copy"]), "--original",
                                     str(paths["orig"]), "--nperms", "5", "--format", "text"])
    assert util.exit_code == 0 and "SE (2-way)" in util.stdout and "SE (k-marginal)" in util.stdout
