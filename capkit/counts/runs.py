"""Runs laid end to end: the positions of consecutive runs of given lengths.

One idiom of the vectorised measures: given run lengths l_0, l_1, ... (records per group,
candidates per query, values per class) and the position each run starts at, the
concatenation of ``arange(start_i, start_i + l_i)`` over i, without a Python loop:
``repeat(start_i - offset_i, l_i) + arange(sum l)``, offset_i the run's place in the output
(the sum of the lengths before it). With every start 0 it is each element's rank within its
run. Integer arithmetic: the result is exact.
"""

from __future__ import annotations

import numpy as np

from capkit.errors import CapkitError

__all__ = ["concatenated_ranges"]


def concatenated_ranges(lengths: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """``np.concatenate([np.arange(s, s + n) for s, n in zip(starts, lengths)])`` as int64
    (``starts`` None: every run starts at 0, so the result is each element's rank in its run).

    Parameters
    ----------
    lengths
        Non-negative integer length of each run (0: the run adds nothing).
    starts
        The first value of each run, one per length; None for 0.
    """
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or (lengths.size and lengths.dtype.kind not in "iub"):
        raise CapkitError(f"lengths must be a 1-d array of integers, got dtype {lengths.dtype} "
                          f"and shape {lengths.shape}")
    lengths = lengths.astype(np.int64, copy=False)
    if lengths.size and int(lengths.min()) < 0:
        raise CapkitError(f"lengths must be non-negative, got {int(lengths.min())}")
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths  # each run's place in the output
    if starts is None:
        shift = -offsets
    else:
        starts = np.asarray(starts)
        if starts.shape != lengths.shape or (starts.size and starts.dtype.kind not in "iub"):
            raise CapkitError(f"starts must hold one integer per length ({lengths.shape}), got "
                              f"dtype {starts.dtype} and shape {starts.shape}")
        shift = starts.astype(np.int64, copy=False) - offsets
    return np.repeat(shift, lengths) + np.arange(total, dtype=np.int64)
