"""capkit.counts.runs.concatenated_ranges against the loop it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from capkit.counts.runs import concatenated_ranges
from capkit.errors import CapkitError


def _loop(lengths, starts=None):
    starts = np.zeros(len(lengths), dtype=np.int64) if starts is None else starts
    parts = [np.arange(s, s + n, dtype=np.int64) for s, n in zip(starts, lengths, strict=True)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


CASES = [
    ([], None), ([0], None), ([0, 0, 0], None), ([3], None), ([1, 1, 1], None),
    ([0, 2, 0, 3, 0], None), ([2, 0, 5, 1], [10, 4, 0, 7]), ([0, 0], [5, 9]),
    ([4, 3], [-2, 100]), ([1, 0, 2], [3, 3, 3]),
]


@pytest.mark.parametrize("lengths, starts", CASES)
def test_equals_the_loop_on_edge_cases(lengths, starts):
    got = concatenated_ranges(np.asarray(lengths, dtype=np.int64),
                              None if starts is None else np.asarray(starts, dtype=np.int64))
    want = _loop(lengths, starts)
    assert got.dtype == np.int64 and np.array_equal(got, want)


def test_equals_the_loop_on_random_runs_of_every_integer_type():
    rng = np.random.default_rng(7)
    for trial in range(200):
        m = int(rng.integers(0, 40))
        lengths = rng.integers(0, 6, m) * (rng.random(m) < 0.7)  # many zero lengths
        starts = rng.integers(-50, 1000, m)
        dtype = (np.int32, np.int64, np.uint32, np.intp)[trial % 4]
        lengths = lengths.astype(dtype)
        starts_t = np.abs(starts).astype(dtype) if dtype == np.uint32 else starts.astype(dtype)
        assert np.array_equal(concatenated_ranges(lengths, starts_t),
                              _loop(lengths.tolist(), starts_t.tolist()))
        assert np.array_equal(concatenated_ranges(lengths), _loop(lengths.tolist()))


def test_refuses_bad_lengths_and_starts():
    with pytest.raises(CapkitError, match="non-negative"):
        concatenated_ranges(np.array([2, -1]))
    with pytest.raises(CapkitError, match="lengths"):
        concatenated_ranges(np.array([1.5, 2.0]))
    with pytest.raises(CapkitError, match="starts"):
        concatenated_ranges(np.array([1, 2]), np.array([0]))
    with pytest.raises(CapkitError, match="starts"):
        concatenated_ranges(np.array([1, 2]), np.array([0.0, 1.0]))
