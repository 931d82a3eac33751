"""capkit.counts.rows.unique_rows against numpy's np.unique(axis=0) (the answer it replaces)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from capkit.counts.rows import unique_codes, unique_rows
from capkit.errors import CapkitError


def _check(matrix: np.ndarray) -> None:
    rows, first, inverse = np.unique(matrix, axis=0, return_index=True, return_inverse=True)
    got_first, got_inverse = unique_rows(matrix)
    assert np.array_equal(matrix[got_first], rows)
    assert np.array_equal(got_first, first)
    assert np.array_equal(got_inverse, inverse.reshape(-1))


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=40),
                  elements=st.integers(-3, 3) | st.integers(-2**63, 2**63 - 1)))
def test_integers_as_numpy(matrix):
    _check(matrix)


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.bool_, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=30)))
def test_booleans_as_numpy(matrix):
    _check(matrix)


def test_floats_viewed_as_integers_and_wide_codes():
    rng = np.random.default_rng(5)
    floats = np.round(rng.normal(size=(3000, 3)), 1)
    _check(np.ascontiguousarray(floats).view(np.int64))
    # many distinct values in every column: the codes outgrow a table and are sorted instead
    _check(rng.integers(0, 10**12, (5000, 4)))
    _check(np.repeat(rng.integers(0, 10**12, (50, 4)), 7, axis=0))


def test_empty_and_bad_shapes():
    first, inverse = unique_rows(np.zeros((0, 3), dtype=np.int64))
    assert len(first) == 0 and len(inverse) == 0
    with pytest.raises(CapkitError, match="2-d"):
        unique_rows(np.zeros(4, dtype=np.int64))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([np.int64, np.int32, np.uint8, np.uint64]).flatmap(
    lambda dtype: hnp.arrays(dtype, st.integers(0, 60))))
def test_unique_codes_as_numpy(column):
    """unique_codes is np.unique(column, return_inverse=True): the values (same dtype) and
    the inverse, from a table of the values or numpy's sort, empty columns included."""
    values, inverse = np.unique(column, return_inverse=True)
    got_values, got_inverse = unique_codes(column)
    assert got_values.dtype == values.dtype and np.array_equal(got_values, values)
    assert got_inverse.dtype == np.int64 and np.array_equal(got_inverse, inverse.reshape(-1))


def test_unique_codes_needs_one_dimension():
    with pytest.raises(CapkitError, match="1-d"):
        unique_codes(np.zeros((2, 2), dtype=np.int64))


def test_unique_codes_at_the_ends_of_the_integer_types():
    """Values past 2**63 in uint64 and the most negative int64 (found by the test above)."""
    for column in (np.array([2**64 - 1, 2**63, 2**64 - 1], dtype=np.uint64),
                   np.array([-2**63, -2**63 + 5, -2**63], dtype=np.int64),
                   np.array([250, 3, 250], dtype=np.uint8)):
        values, inverse = np.unique(column, return_inverse=True)
        got_values, got_inverse = unique_codes(column)
        assert got_values.dtype == values.dtype and np.array_equal(got_values, values)
        assert np.array_equal(got_inverse, inverse.reshape(-1))
    _check(np.array([[2**64 - 1, 1], [2**63, 1], [2**64 - 1, 1]], dtype=np.uint64))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([np.int64, np.uint64]).flatmap(lambda dtype: st.tuples(
    st.just(dtype), st.integers(0, 2**63 - 1), st.integers(0, 2**63 - 1),
    hnp.arrays(np.bool_, st.integers(1, 40)))))
def test_unique_codes_of_two_values_far_apart(case):
    """Two values too far apart for a table (a one-hot column of floats seen as integers):
    np.unique's values and inverse, whichever value is the smaller and when only one occurs."""
    dtype, a, b, pick = case
    if dtype is np.int64:
        a, b = a - 2**62, b - 2**62
    column = np.where(pick, a, b).astype(dtype)
    values, inverse = np.unique(column, return_inverse=True)
    got_values, got_inverse = unique_codes(column)
    assert got_values.dtype == values.dtype and np.array_equal(got_values, values)
    assert np.array_equal(got_inverse, inverse.reshape(-1))
    onehot = np.ascontiguousarray(np.where(pick, 1.0, 0.0) * 4096.0).view(np.int64)
    _check(np.column_stack([onehot, onehot[::-1], np.zeros_like(onehot)]))
