"""The count tables of plain integer columns (capkit.counts.integers, one table of raw value
combinations) against the general path (each column coded, then each combination): the same
tables, record cells, labels (and their types) and level checks, on drawn frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from capkit.counts import integers, table
from capkit.counts.integers import _codes_into, _joint
from capkit.counts.tables import crosstab
from capkit.errors import CapkitError


def _draw(rng: np.random.Generator, n: int, dtype: str, low: int) -> pd.DataFrame:
    return pd.DataFrame({"a": rng.integers(low, low + 5, n).astype(dtype),
                         "b": rng.choice([low, low + 3, low + 7], n).astype(dtype),
                         "c": rng.integers(0, 2, n).astype(dtype),
                         "t": rng.integers(low, low + 4, n).astype(dtype),
                         "u": rng.integers(0, 3, n).astype(dtype)})


def _both(monkeypatch, *args, **kwargs):
    fast = crosstab(*args, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(table, "integer_counts", lambda *a, **k: None)
        slow = crosstab(*args, **kwargs)
    return fast, slow


def _same(fast, slow) -> None:
    for name in ("original", "synthetic", "holdout"):
        a, b = getattr(fast, name), getattr(slow, name)
        if a is None:
            assert b is None
            continue
        a = a.toarray() if hasattr(a, "toarray") else a
        b = b.toarray() if hasattr(b, "toarray") else b
        assert a.dtype == b.dtype and np.array_equal(a, b)
    for name in ("record_cell", "synthetic_record_cell", "holdout_record_cell"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert (a is None and b is None) or (a.dtype == b.dtype and np.array_equal(a, b))
    assert fast.keys.equals(slow.keys) and fast.targets.equals(slow.targets)
    assert type(fast.targets) is type(slow.targets)
    for labels in ("keys", "targets"):
        a, b = getattr(fast, labels), getattr(slow, labels)
        assert list(a.names) == list(b.names) and a.dtype == b.dtype
        if isinstance(a, pd.MultiIndex):
            for level in range(a.nlevels):
                assert a.levels[level].equals(b.levels[level])
                assert a.levels[level].dtype == b.levels[level].dtype
                assert np.array_equal(a.codes[level], b.codes[level])


@pytest.mark.parametrize("dtype, low", [("int64", 0), ("int8", -3), ("uint16", 2),
                                        ("int32", 1000)])
def test_integer_counts_equal_the_general_path(dtype, low, monkeypatch):
    rng = np.random.default_rng(abs(low) + len(dtype))
    original, synthetic, holdout = (_draw(rng, n, dtype, low) for n in (300, 250, 120))
    synthetic = synthetic[synthetic["a"] != low + 4]  # a level only the original has
    for keys, target, extra in ((["a", "b", "c"], "t", {}), (["b"], ["t", "u"], {}),
                                (["a", "c"], "t", {"holdout": holdout}),
                                (["a", "b"], "u", {"sparse_output": True}),
                                (["a", "b"], "u", {"dropna": True})):
        assert integers.integer_counts([original, synthetic], list(keys),
                                       [target] if isinstance(target, str) else target)
        _same(*_both(monkeypatch, original, synthetic, keys, target, **extra))


def test_other_columns_take_the_general_path():
    rng = np.random.default_rng(5)
    frame = _draw(rng, 100, "int64", 0)
    assert integers.integer_counts([frame, frame.astype({"a": "int32"})], ["a"], ["t"]) is None
    assert integers.integer_counts([frame, frame.astype({"a": float})], ["a"], ["t"]) is None
    wide = frame.assign(a=frame["a"] * 10**9)  # a grid of more cells than records
    assert integers.integer_counts([wide, wide], ["a", "b"], ["t"]) is None


def test_level_checks_are_the_general_paths(monkeypatch):
    """Disjoint levels are refused with the same message on both paths."""
    rng = np.random.default_rng(9)
    original = _draw(rng, 200, "int64", 0)
    synthetic = original.assign(a=original["a"] + 100)
    messages = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(table, "integer_counts", lambda *a, **k: None)
            with pytest.raises(CapkitError) as caught:
                crosstab(original, synthetic, ["a", "b"], "t")
            messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_two_grids_equal_the_general_path(monkeypatch):
    """Keys and target too many raw combinations together (300 x 200 x 10 > 2**16 cells) but
    not apart: one grid of the target and one of the keys."""
    rng = np.random.default_rng(3)
    def draw(n: int) -> pd.DataFrame:
        return pd.DataFrame({"a": rng.integers(-50, 250, n), "b": rng.integers(0, 200, n),
                             "t": rng.integers(5, 15, n)})
    original, synthetic, holdout = draw(400), draw(300), draw(100)
    coded = []
    with monkeypatch.context() as m:  # the two-grid path codes the keys, then the target
        m.setattr(integers, "_codes_into", lambda *a: coded.append(len(a[0])) or _codes_into(*a))
        integers.integer_counts([original, synthetic], ["a", "b"], ["t"])
    assert coded == [2, 1]
    for extra in ({}, {"holdout": holdout}, {"sparse_output": True}):
        _same(*_both(monkeypatch, original, synthetic, ["a", "b"], "t", **extra))


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64"])
@pytest.mark.parametrize("shifted", [None, "cells", "keys"])
def test_two_grids_frame_shifts_in_every_type(dtype, shifted, monkeypatch):
    """The two-grid path shifts each frame's cells by f x table: in int32 while the shifted
    codes fit (INT32_SHIFTED), else int64 (the keys, never shifted, keep the columns' type),
    two or three frames, a target value unused: the general path's answers."""
    rng = np.random.default_rng(len(dtype))
    values = np.setdiff1d(np.arange(0, 200, 4), [8])  # 49 values over 197
    def draw(n: int) -> pd.DataFrame:  # 100 x 10 keys, a target of 49 values spanning 197
        return pd.DataFrame({"a": rng.integers(0, 100, n), "b": rng.integers(0, 10, n),
                             "t": rng.choice(values, n)}).astype(dtype)
    original, synthetic, holdout = draw(400), draw(300), draw(100)
    k_cells = 100 * 10
    with monkeypatch.context() as m:
        if shifted == "cells":  # frames x keys would fit, not the cells (frames x 197 x keys)
            m.setattr(integers, "INT32_SHIFTED", 3 * k_cells)
        elif shifted == "keys":  # not even frames x keys
            m.setattr(integers, "INT32_SHIFTED", k_cells)
        coded = []
        m.setattr(integers, "_codes_into", lambda *a: coded.append(a[3][0].dtype) or
                  _codes_into(*a))
        for extra in ({}, {"holdout": holdout}, {"sparse_output": True}):
            coded.clear()
            _same(*_both(monkeypatch, original, synthetic, ["a", "b"], "t", **extra))
            wide = dtype == "int64" or shifted is not None
            assert coded[0] == (np.int64 if dtype == "int64" else np.int32)  # the keys' type
            assert coded[1] == (np.int64 if wide else np.int32)  # the cells' type


def test_record_cells_are_made_on_first_use(monkeypatch):
    """The counts come without the labels and the records' cells; these, made when first
    read, are the general path's, kept, pickled with the table; the table stays immutable."""
    import pickle

    rng = np.random.default_rng(11)
    original, synthetic = _draw(rng, 200, "int16", 1), _draw(rng, 150, "int16", 1)
    fast, slow = _both(monkeypatch, original, synthetic, ["a", "b"], "t")
    assert all(callable(made) for made in fast._made[:4])  # nothing made yet
    first = fast.record_cell
    assert fast.record_cell is first and np.array_equal(first, slow.record_cell)
    again = pickle.loads(pickle.dumps(fast))
    _same(again, slow)
    with pytest.raises(AttributeError):
        fast.original = slow.original


@pytest.mark.parametrize("dtype, base", [("int32", 2**31 - 8), ("int16", 2**15 - 8),
                                         ("int64", 2**62), ("int64", -(2**63) + 1)])
def test_codes_near_the_type_limits(dtype, base, monkeypatch):
    """Values near their type's limits: the mixed-radix codes of narrow columns are built in
    int64 when int32 would not hold them, and columns whose codes int64 cannot hold take the
    general path (both: the general path's tables, cells and labels)."""
    rng = np.random.default_rng(abs(base) % 97)
    sign = 1 if base < 0 else -1
    def draw(n: int) -> pd.DataFrame:
        return pd.DataFrame({"a": (base + sign * rng.integers(0, 4, n)).astype(dtype),
                             "b": rng.integers(0, 3, n).astype(dtype),
                             "t": (base + sign * rng.integers(0, 2, n)).astype(dtype)})
    original, synthetic = draw(80), draw(60)
    for keys, target in ((["a", "b"], "t"), (["b", "a"], "t"), (["b"], "a")):
        _same(*_both(monkeypatch, original, synthetic, keys, target))


@pytest.mark.parametrize("keys_int64", [False, True])
def test_wide_target_span_ranks_targets_first(monkeypatch, keys_int64):
    """A target of few values over a wide span (raw targets x keys far more cells than
    records): its values are ranked before the records' cell codes are made; with
    INT32_SHIFTED lowered below frames x keys too (the keys are never frame-shifted: their
    codes stay int32)."""
    if keys_int64:
        monkeypatch.setattr(integers, "INT32_SHIFTED", 300 * 200)
    rng = np.random.default_rng(8)
    def draw(n: int) -> pd.DataFrame:  # int32 columns: int32 codes unless shifted past
        return pd.DataFrame({"a": rng.integers(0, 300, n), "b": rng.integers(0, 200, n),
                             "t": rng.choice([0, 7, 59_999], n)}).astype("int32")
    original, synthetic, holdout = draw(300), draw(250), draw(90)
    ranked = []
    with monkeypatch.context() as m:
        m.setattr(integers, "_joint", lambda *a: ranked.append((a[2] is not None, a[1].dtype))
                  or _joint(*a))
        integers.integer_counts([original, synthetic], ["a", "b"], ["t"])
    assert ranked == [(True, np.int32), (True, np.int32)]
    for extra in ({}, {"holdout": holdout}, {"sparse_output": True}):
        _same(*_both(monkeypatch, original, synthetic, ["a", "b"], "t",
                     allow_disjoint_levels=True, **extra))
