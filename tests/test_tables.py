"""capkit.counts.tables.crosstab: alignment, NA as a level, several targets, sparse, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capkit.counts.tables import crosstab
from capkit.errors import CapkitError


def test_union_of_levels_and_labels():
    original = pd.DataFrame({"k": ["a", "a", "b"], "t": ["x", "y", "x"]})
    synthetic = pd.DataFrame({"k": ["a", "c"], "t": ["z", "x"]})
    table = crosstab(original, synthetic, "k", "t")
    assert table.targets.tolist() == ["x", "y", "z"]
    assert table.keys.get_level_values("k").tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(table.original, [[1, 1, 0], [1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(table.synthetic, [[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(table.record_cell, [[0, 0], [1, 0], [0, 1]])


def test_na_is_a_level_by_default_and_dropped_on_request():
    original = pd.DataFrame({"k": ["a", None, "a"], "t": [1.0, 2.0, np.nan]})
    synthetic = pd.DataFrame({"k": [None], "t": [2.0]})
    table = crosstab(original, synthetic, "k", "t", allow_disjoint_levels=True)
    assert table.shape == (3, 2)
    assert table.original.sum() == 3 and pd.isna(table.targets[-1])
    dropped = crosstab(original, synthetic, "k", "t", dropna=True, allow_disjoint_levels=True)
    assert dropped.original.sum() == 1
    assert dropped.record_cell[1].tolist() == [-1, -1]
    assert dropped.record_cell[2].tolist() == [-1, -1]


def test_categorical_levels_keep_declared_order():
    cats = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    original = pd.DataFrame({"k": pd.Series(["high", "low"], dtype=cats), "t": ["x", "y"]})
    synthetic = pd.DataFrame({"k": pd.Series(["mid"], dtype=cats), "t": ["x"]})
    table = crosstab(original, synthetic, "k", "t", allow_disjoint_levels=True)
    assert table.keys.get_level_values("k").tolist() == ["low", "mid", "high"]


def test_several_targets_act_as_one():
    original = pd.DataFrame({"k": [1, 1, 1], "t1": ["a", "a", "b"], "t2": [0, 1, 0]})
    synthetic = pd.DataFrame({"k": [1], "t1": ["a"], "t2": [0]})
    table = crosstab(original, synthetic, "k", ["t1", "t2"])
    assert table.shape == (3, 1)
    assert list(table.targets) == [("a", 0), ("a", 1), ("b", 0)]


def test_sparse_output_matches_dense():
    rng = np.random.default_rng(0)
    original = pd.DataFrame({"k": rng.integers(0, 50, 300), "t": rng.integers(0, 4, 300)})
    synthetic = pd.DataFrame({"k": rng.integers(0, 60, 200), "t": rng.integers(0, 5, 200)})
    dense = crosstab(original, synthetic, "k", "t")
    sp = crosstab(original, synthetic, "k", "t", sparse_output=True)
    assert sp.is_sparse and not dense.is_sparse
    np.testing.assert_array_equal(sp.original.toarray(), dense.original)
    np.testing.assert_array_equal(sp.synthetic.toarray(), dense.synthetic)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_counts_equal_pandas_crosstab(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    df = pd.DataFrame({
        "k1": rng.choice(list("abcd"), n),
        "k2": rng.integers(0, 4, n),
        "t": rng.choice(["u", "v", "w"], n),
    })
    table = crosstab(df, df.iloc[:1], ["k1", "k2"], "t", allow_disjoint_levels=True)
    expected = pd.crosstab(df["t"], [df["k1"], df["k2"]])
    ours = pd.DataFrame(table.original, index=table.targets, columns=table.keys)
    ours = ours.loc[:, ours.sum(axis=0) > 0]
    ours = ours.loc[ours.sum(axis=1) > 0]
    expected.columns.names = ours.columns.names
    pd.testing.assert_frame_equal(ours, expected, check_names=False, check_dtype=False)


def test_many_keys_do_not_overflow():
    rng = np.random.default_rng(1)
    n = 1000
    df = pd.DataFrame({f"k{c}": rng.integers(0, 10**6, n) for c in range(6)})
    df["t"] = rng.integers(0, 2, n)
    table = crosstab(df, df, [f"k{c}" for c in range(6)], "t")
    assert table.shape[1] == len(df.drop_duplicates(subset=[f"k{c}" for c in range(6)]))
    assert table.is_sparse or table.original.sum() == n


@pytest.mark.parametrize(
    "keys, target, message",
    [
        (["k", "missing"], "t", "key column 'missing' is missing from original data"),
        (["k"], "nope", "target column 'nope' is missing from original data"),
        (["k"], "k", "target column 'k' is also a key"),
        ([], "t", "keys is empty"),
        (["k", "k"], "t", "names a column twice"),
    ],
)
def test_bad_columns(keys, target, message):
    df = pd.DataFrame({"k": [1], "t": [2], "missing": [3]})
    with pytest.raises(CapkitError, match=message):
        crosstab(df.drop(columns="missing"), df, keys, target)


def test_column_missing_from_synthetic_is_named():
    original = pd.DataFrame({"age": [1], "t": [2]})
    synthetic = pd.DataFrame({"t": [2]})
    with pytest.raises(CapkitError, match="key column 'age' is missing from synthetic data"):
        crosstab(original, synthetic, "age", "t")


def test_empty_frames_and_mistyped_columns():
    df = pd.DataFrame({"k": [1], "t": [2]})
    with pytest.raises(CapkitError, match="original data is empty"):
        crosstab(df.iloc[:0], df, "k", "t")
    with pytest.raises(CapkitError, match="synthetic data is empty"):
        crosstab(df, df.iloc[:0], "k", "t")
    with pytest.raises(CapkitError, match="numeric in original data but text in synthetic"):
        crosstab(df, pd.DataFrame({"k": ["1"], "t": [2]}), "k", "t")
    with pytest.raises(CapkitError, match="must be a pandas DataFrame"):
        crosstab(df.to_numpy(), df, "k", "t")


def test_duplicated_column_names():
    df = pd.DataFrame([[1, 2, 3]], columns=["k", "t", "k"])
    with pytest.raises(CapkitError, match="duplicated column names"):
        crosstab(df, df, "k", "t")


def test_inputs_not_modified():
    original = pd.DataFrame({"k": ["a", None], "t": pd.Categorical(["x", "y"])})
    synthetic = pd.DataFrame({"k": ["b"], "t": pd.Categorical(["z"])})
    before = original.copy(), synthetic.copy()
    crosstab(original, synthetic, "k", "t", allow_disjoint_levels=True)
    pd.testing.assert_frame_equal(original, before[0])
    pd.testing.assert_frame_equal(synthetic, before[1])
