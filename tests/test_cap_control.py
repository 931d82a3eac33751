"""The membership control of the CAP: crosstab(..., holdout=), average_cap(..., holdout=) and
record_cap(..., holdout=) add the holdout's numbers without changing the members'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from capkit import cap
from capkit.counts.tables import crosstab
from capkit.errors import CapkitError


def _frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)

    def frame(n: int, levels: int) -> pd.DataFrame:
        return pd.DataFrame({
            "a": rng.choice(list("xyz")[:levels], n),
            "b": rng.integers(0, 4, n),
            "t": pd.Categorical(rng.choice(["p", "q", "r"], n), categories=["p", "q", "r"]),
        })

    # the holdout has a key level ("z") and key combinations the others lack
    return frame(60, 2), frame(80, 2), frame(50, 3)


def _reference_cap(records: pd.DataFrame, synthetic: pd.DataFrame) -> np.ndarray:
    """Record by record: share of synthetic records with the same key that share the target."""
    out = []
    for _, row in records.iterrows():
        same_key = synthetic[(synthetic["a"] == row["a"]) & (synthetic["b"] == row["b"])]
        out.append(0.0 if len(same_key) == 0 else float((same_key["t"] == row["t"]).mean()))
    return np.array(out)


def _by_label(counts: np.ndarray, targets: pd.Index, keys: pd.Index) -> pd.Series:
    frame = pd.DataFrame(np.asarray(counts), index=targets, columns=keys)
    series = frame.stack(list(range(keys.nlevels)), future_stack=True)
    return series[series > 0].sort_index()


def test_crosstab_holdout_keeps_member_counts_by_label() -> None:
    original, synthetic, holdout = _frames(1)
    plain = crosstab(original, synthetic, ["a", "b"], "t")
    both = crosstab(original, synthetic, ["a", "b"], "t", holdout=holdout)
    assert plain.holdout is None
    assert both.shape[1] > plain.shape[1]  # the holdout brings key combinations of its own
    for field in ("original", "synthetic"):
        pd.testing.assert_series_equal(
            _by_label(getattr(both, field), both.targets, both.keys),
            _by_label(getattr(plain, field), plain.targets, plain.keys))
    alone = crosstab(holdout, synthetic, ["a", "b"], "t")
    pd.testing.assert_series_equal(_by_label(both.holdout, both.targets, both.keys),
                                   _by_label(alone.original, alone.targets, alone.keys))
    cells = both.holdout_record_cell
    assert np.bincount(cells[:, 0] * both.shape[1] + cells[:, 1],
                       minlength=both.shape[0] * both.shape[1]).sum() == len(holdout)


def test_average_cap_with_holdout_adds_numbers_only() -> None:
    original, synthetic, holdout = _frames(2)
    table = crosstab(original, synthetic, ["a", "b"], "t", holdout=holdout)
    for version in (1, 2):
        plain = cap.average_cap(table.original, table.synthetic, version)
        control = cap.average_cap(table.original, table.synthetic, version,
                                  holdout=table.holdout)
        assert control.members == plain
        reference = _reference_cap(holdout, synthetic)
        covered = reference if version == 1 else reference[
            [((synthetic["a"] == a) & (synthetic["b"] == b)).any()
             for a, b in zip(holdout["a"], holdout["b"], strict=True)]]
        assert control.holdout == pytest.approx(covered.mean(), rel=1e-12)
        assert control.n_holdout == len(covered)
        assert control.difference == pytest.approx(control.members - control.holdout)
        assert control.comparison.advantage == pytest.approx(control.difference)
        assert control.baseline_holdout == pytest.approx(
            float((holdout["t"].value_counts(normalize=True) ** 2).sum()))
    # the plain call still returns a float, identical to the tables without a holdout
    alone = crosstab(original, synthetic, ["a", "b"], "t")
    assert cap.average_cap(alone.original, alone.synthetic) == cap.average_cap(
        table.original, table.synthetic)


def test_record_cap_with_holdout() -> None:
    original, synthetic, holdout = _frames(3)
    holdout.index = holdout.index + 1000
    plain = cap.record_cap(original, synthetic, ["a", "b"], "t")
    both = cap.record_cap(original, synthetic, ["a", "b"], "t", holdout=holdout)
    pd.testing.assert_series_equal(both.loc["member"], plain, check_names=False)
    np.testing.assert_allclose(both.loc["holdout"].to_numpy(),
                               _reference_cap(holdout, synthetic), rtol=1e-12)
    assert list(both.loc["holdout"].index) == list(holdout.index)


def test_holdout_bad_input() -> None:
    original, synthetic, holdout = _frames(4)
    table = crosstab(original, synthetic, ["a", "b"], "t")
    with pytest.raises(CapkitError, match="holdout must have the shape"):
        cap.average_cap(table.original, table.synthetic, holdout=np.ones((2, 2), dtype=int))
    with pytest.raises(CapkitError, match="holdout"):
        crosstab(original, synthetic, ["a", "b"], "t", holdout=holdout.drop(columns="b"))
    with pytest.raises(CapkitError, match="holdout"):
        crosstab(original, synthetic, ["a", "b"], "t", holdout=holdout.assign(b="x"))
    with pytest.raises(CapkitError, match="holdout must be a pandas DataFrame"):
        crosstab(original, synthetic, ["a", "b"], "t", holdout=[1, 2])
