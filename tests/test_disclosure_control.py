"""disclosure(..., holdout=) and disclosure_summary(..., holdout=): the holdout's DiSCO and
DCAP next to the members', every existing number unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from capkit import membership
from capkit.disclosure import disclosure, disclosure_summary
from capkit.errors import CapkitError


def _frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(["n", "s", "e", "w"], n)
    job = np.where(rng.random(n) < 0.7, np.where(sex == "F", "a", "b"),
                   rng.choice(["a", "b", "c"], n))
    return pd.DataFrame({"sex": sex, "region": region, "job": job,
                         "age": rng.integers(20, 24, n).astype(float)})


def _reference_disco(records: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                     target: str) -> float:
    """Percent of records whose key's synthetic records all carry one target, the record's
    (Raab, Nowok & Dibben's DiSCO), by a loop over the records."""
    syn_targets = synthetic.groupby(keys)[target].agg(lambda t: set(t))
    hits = 0
    for _, row in records.iterrows():
        key = tuple(row[k] for k in keys)
        if syn_targets.get(key, set()) == {row[target]}:
            hits += 1
    return 100 * hits / len(records)


def test_disclosure_with_holdout_adds_the_control_only() -> None:
    rng = np.random.default_rng(1)
    members, synthetic, holdout = _frame(rng, 300), _frame(rng, 300), _frame(rng, 250)
    keys = ["sex", "region", "age"]
    plain = disclosure(synthetic, members, keys, "job")
    both = disclosure(synthetic, members, keys, "job", holdout=holdout)
    for part in ("ident", "attrib", "allcaps"):
        pd.testing.assert_frame_equal(getattr(both, part), getattr(plain, part))
    assert plain.holdout is None and plain.control is None
    alone = disclosure(synthetic, holdout, keys, "job")
    pd.testing.assert_frame_equal(both.holdout.attrib, alone.attrib)
    disco_h = _reference_disco(holdout, synthetic, keys, "job")
    assert both.holdout.attrib["DiSCO"].iloc[0] == pytest.approx(disco_h, rel=1e-12)
    assert both.attrib["DiSCO"].iloc[0] == pytest.approx(
        _reference_disco(members, synthetic, keys, "job"), rel=1e-12)
    control = both.control.set_index("measure")
    row = control.loc["DiSCO"]
    assert (row["members"], row["holdout"]) == (both.attrib["DiSCO"].iloc[0], disco_h)
    expected = membership.compare_to_control(row["members"] / 100 * 300, 300,
                                             row["holdout"] / 100 * 250, 250)
    assert row["risk"] == pytest.approx(expected.risk, abs=1e-15)
    assert (row["risk_low"], row["risk_high"]) == pytest.approx(expected.risk_ci, abs=1e-15)
    assert control.loc["DCAP", "holdout"] == alone.allcaps["DCAP"].iloc[0]
    assert np.isnan(control.loc["baseCAPd", "risk"])


def test_disclosure_summary_with_holdout_and_several_syntheses() -> None:
    rng = np.random.default_rng(2)
    members, holdout = _frame(rng, 200), _frame(rng, 200)
    syntheses = [_frame(rng, 200), _frame(rng, 200)]
    keys = ["sex", "region"]
    plain = disclosure_summary(syntheses, members, keys, ["job", "age"])
    both = disclosure_summary(syntheses, members, keys, ["job", "age"], holdout=holdout)
    pd.testing.assert_frame_equal(both.attrib_table, plain.attrib_table)
    assert both.to_string() == plain.to_string()
    alone = disclosure_summary(syntheses, holdout, keys, ["job", "age"])
    control = both.control.set_index(["target", "measure"])
    assert list(both.control["target"].unique()) == ["job", "age"]
    for target in ("job", "age"):
        assert control.loc[(target, "DiSCO"), "holdout"] == pytest.approx(
            alone.per_target[target].attrib["DiSCO"].mean(), rel=1e-12)
        assert control.loc[(target, "DCAP"), "members"] == pytest.approx(
            plain.per_target[target].allcaps["DCAP"].mean(), rel=1e-12)
    per_synthesis = both.per_target["job"]
    assert per_synthesis.holdout is None  # the summary keeps its holdout run in .holdout
    assert both.holdout.per_target["job"].attrib.shape == (2, 8)


def test_holdout_bad_input() -> None:
    rng = np.random.default_rng(3)
    members, synthetic, holdout = _frame(rng, 50), _frame(rng, 50), _frame(rng, 50)
    with pytest.raises(CapkitError, match="holdout must have the columns"):
        disclosure(synthetic, members, ["sex"], "job", holdout=holdout.drop(columns="age"))
    with pytest.raises(CapkitError, match="holdout column 'age'"):
        disclosure_summary(synthetic, members, ["sex"], ["job"],
                           holdout=holdout.assign(age=holdout["age"].astype(str)))
