"""capkit.synth.baselines (reference syntheses) and capkit.plots.privacy."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from capkit.errors import CapkitError
from capkit.plots.privacy import privacy_risks
from capkit.synth.baselines import bootstrap_with_noise, independent_columns, leaky_release


def _frame(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, n)
    return pd.DataFrame({"x": x, "y": x * 2.5 + rng.normal(size=n),
                         "c": pd.Categorical(np.where(x > 50, "hi", "lo")),
                         "t": np.where(x % 2 == 0, "even", "odd")}).set_axis(np.arange(n) + 7)


def test_bootstrap_is_a_near_copy_with_the_dtypes():
    frame = _frame()
    before = frame.copy()
    out = bootstrap_with_noise(frame, seed=3)
    assert frame.equals(before)
    assert list(out.index) == list(range(len(frame)))
    assert out.dtypes.equals(frame.dtypes)
    assert out.equals(bootstrap_with_noise(frame, seed=3))
    assert not out.equals(bootstrap_with_noise(frame, seed=4))
    # every row is an original row up to the noise: the categorical columns copied, the
    # numbers within a few percent of a standard deviation of some original row
    rows = pd.MultiIndex.from_frame(frame[["c", "t"]].astype(str))
    assert pd.MultiIndex.from_frame(out[["c", "t"]].astype(str)).isin(rows).all()
    gap = np.abs(out["y"].to_numpy()[:, None] - frame["y"].to_numpy()[None, :]).min(axis=1)
    assert gap.max() < 0.05 * frame["y"].std()
    assert bootstrap_with_noise(frame, n=10, seed=1).shape == (10, 4)


def test_bootstrap_rounds_whole_numbers_stored_as_floats():
    """A month (1..12) stored as floats beside missing values, as R's numeric NA makes it,
    stays whole: noise must not turn 12 levels into thousands (the report would then find the
    target coded differently); missing values stay missing; decimals keep their noise."""
    rng = np.random.default_rng(5)
    month = rng.integers(1, 13, 500).astype(float)
    month[::9] = np.nan
    frame = pd.DataFrame({"month": month, "w": rng.normal(70, 10, 500)})
    out = bootstrap_with_noise(frame, seed=2, noise=0.2)
    assert out["month"].dtype == np.float64
    assert (np.mod(out["month"].dropna(), 1) == 0).all()
    assert out["month"].nunique() < 30
    assert out["month"].isna().any()
    assert (np.mod(out["w"], 1) != 0).any()


def test_bootstrap_leaves_codes_alone_whatever_their_dtype():
    """A column of at most 20 distinct values is a code, whole or not (age classes by their
    midpoints 17.5, 22, 27 as in Fair's affairs survey; a 1..4 rating stored as floats; a
    0/1 code as integers): the drawn records keep their values, so the near-copy copies
    records. A measurement (21 distinct non-whole values and more) is still perturbed, and
    the draws of the other columns do not depend on which columns are codes."""
    rng = np.random.default_rng(11)
    n = 600
    ages = np.array([17.5, 22, 27, 32, 37, 42, 57.5])
    frame = pd.DataFrame({"age": rng.choice(ages, n),
                          "rating": rng.integers(1, 5, n).astype(float),
                          "flag": rng.integers(0, 2, n),
                          "twenty": rng.choice(np.arange(20) + 0.25, n),
                          "twenty_one": rng.choice(np.arange(21) + 0.25, n),
                          "w": rng.normal(70, 10, n)})
    before = frame.copy()
    out = bootstrap_with_noise(frame, seed=4, noise=0.2)
    assert frame.equals(before)  # input untouched
    rows = np.random.default_rng(4).integers(0, n, n)  # the documented draw of the records
    for code in ["age", "rating", "flag", "twenty"]:
        assert np.array_equal(out[code].to_numpy(), frame[code].to_numpy()[rows]), code
    assert (out["twenty_one"].to_numpy() != frame["twenty_one"].to_numpy()[rows]).mean() > 0.9
    assert not set(out["w"]) & set(frame["w"])
    # the noise of w is the same whether or not the columns before it are codes
    measured = frame.assign(age=rng.normal(40, 10, n))
    again = bootstrap_with_noise(measured, seed=4, noise=0.2)
    assert np.array_equal(again["w"].to_numpy(), out["w"].to_numpy())


def test_independent_columns_keep_marginals_and_break_relations():
    frame = _frame(2000)
    out = independent_columns(frame, seed=5)
    assert out.dtypes.equals(frame.dtypes)
    for column in frame.columns:
        assert set(out[column]) <= set(frame[column])
    assert abs(np.corrcoef(frame["x"], frame["y"])[0, 1]) > 0.99
    assert abs(np.corrcoef(out["x"], out["y"])[0, 1]) < 0.1


@pytest.mark.parametrize("call", [
    lambda: bootstrap_with_noise(pd.DataFrame()), lambda: independent_columns([1, 2]),
    lambda: bootstrap_with_noise(_frame(), noise=-1), lambda: independent_columns(_frame(), n=0)])
def test_bad_input(call):
    with pytest.raises(CapkitError):
        call()


def test_privacy_risks_figure():
    table = pd.DataFrame({"measure": ["a", "a", "b", "b"], "synthesis": ["s", "t", "s", "t"],
                          "value": [0.2, 0.1, 0.5, 0.6], "low": [0.1, 0.0, 0.5, 0.6],
                          "high": [0.3, 0.2, 0.5, 0.6]})
    fig = privacy_risks(table, title="x")
    assert len(fig.axes) == 2
    with pytest.raises(CapkitError):
        privacy_risks(table.drop(columns="low"))


def test_leaky_release_copies_a_share_of_members():
    members = _frame()
    synthetic = independent_columns(members, seed=1)
    before_m, before_s = members.copy(), synthetic.copy()
    out = leaky_release(synthetic, members, 0.05, seed=2)
    assert members.equals(before_m) and synthetic.equals(before_s)
    assert out.dtypes.equals(synthetic.dtypes)
    assert list(out.index) == list(range(len(synthetic)))
    assert out.equals(leaky_release(synthetic, members, 0.05, seed=2))
    # a slow check, row by row: 20 rows changed, each now equal to a distinct member
    changed = [i for i in range(len(out)) if not out.iloc[i].equals(synthetic.iloc[i])]
    member_rows = [tuple(r) for r in members.itertuples(index=False)]
    copies = [member_rows.index(tuple(out.iloc[i])) for i in changed]
    assert len(changed) <= 20 and len(set(copies)) == len(copies)
    unchanged_positions = set(range(len(out))) - set(changed)
    assert len(unchanged_positions) >= len(out) - 20
    # positions drawn: exactly 20 rows hold a member copy placed there (some may equal by chance)
    rng = np.random.default_rng(2)
    where = rng.choice(len(synthetic), 20, replace=False)
    which = rng.choice(len(members), 20, replace=False)
    for w, m in zip(where, which, strict=True):
        assert tuple(out.iloc[w]) == member_rows[m]
    assert leaky_release(synthetic, members, 0.0, seed=2).equals(synthetic.reset_index(drop=True))


def test_leaky_release_bad_input():
    members = _frame(20)
    with pytest.raises(CapkitError, match="share"):
        leaky_release(members, members, 1.5)
    with pytest.raises(CapkitError, match="same columns"):
        leaky_release(members, members[["x", "y"]], 0.1)
    with pytest.raises(CapkitError, match="distinct members"):
        leaky_release(_frame(100), members, 0.5)
