"""Peak memory of capkit.attacks.singling_out, bounded per record and column of its inputs.

tracemalloc traces numpy's allocations (numpy reports them through ``PyTraceMalloc_Track``) and
Python's, so its peak during the call is the step's own peak above the data it was given,
whatever the machine. The budget is a number of bytes per cell (record x column) of the three
frames: the frames' coded columns (1 to 4 bytes a cell), the candidate queries (one per
synthetic record, a few int64 per query and condition) and the bit masks held at once (at most
``queries._MASK_BYTES_PER_CELL`` = 16 bytes a cell, past a floor for small frames that the
test sets to 0). The code before this budget kept int64
positions, codes and record numbers of every column (25 bytes a cell) and up to 256 MB of
masks whatever the frame's size: 180 to 350 bytes a cell on these frames; this code about 30.
The counts are checked against the record-by-record reference of ``test_singling_out`` on a
small frame of the same generator (the memory budget must not change an answer).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from test_singling_out import _force, _slow_counts

from capkit.attacks import singling_out

#: Bytes per cell (record x column, the three frames together) of the call's tracemalloc peak.
BUDGET_PER_CELL = 64


def _frame(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Survey-like columns: small integer, text and categorical ones (counted by histograms)
    and a many-valued weight (its sets of columns counted by bit masks); missing values."""
    out = pd.DataFrame({
        "age": rng.integers(17, 91, n),
        "sex": rng.choice(np.array(["F", "M"], dtype=object), n),
        "region": pd.Categorical(rng.choice(
            np.array([f"r{i}" for i in range(12)] + [None], dtype=object), n)),
        "hours": rng.integers(1, 100, n).astype(float),
        "weight": rng.integers(10_000, 1_500_000, n),
        "flag": rng.random(n) < 0.3,
    })
    out.loc[rng.random(n) < 0.05, "hours"] = np.nan
    return out


def _frames(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    return _frame(n, rng), _frame(n, rng), _frame(n // 2, rng)


def test_singling_out_peak_memory_is_bounded_per_cell() -> None:
    """The frames' size alone bounds the peak. The floor of the masks' blocks (64 MB, so that
    frames this small are counted in few blocks) is set to 0 here: at this size it would be
    the whole peak; at a million records of 15 columns the per-cell bound is the larger."""
    from capkit.attacks import queries

    members, synthetic, control = _frames(30_000, 11)
    singling_out(*(f.iloc[:200] for f in (members, synthetic)), seed=1)  # lazy imports first
    cells = (len(members) + len(synthetic) + len(control)) * members.shape[1]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(queries, "_MASK_FLOOR", 0, raising=False)
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            result = singling_out(members, synthetic, control=control, seed=1)
            peak = tracemalloc.get_traced_memory()[1] - start
        finally:
            tracemalloc.stop()
    assert result.n_queries > 0
    assert peak <= BUDGET_PER_CELL * cells, (
        f"peak {peak / 1e6:.1f} MB = {peak / cells:.0f} bytes a cell, budget "
        f"{BUDGET_PER_CELL} bytes x {cells:,} cells")


@pytest.mark.parametrize("method", [None, "grid", "masks"])
def test_the_generator_s_counts_equal_the_reference(method: str | None) -> None:
    """The same generator on a small frame, counted as the code chooses, by histograms only
    and by bit masks only (one query a block): every count of the query table equals the
    record-by-record reference."""
    members, synthetic, control = _frames(300, 12)
    with pytest.MonkeyPatch.context() as patch:
        if method is not None:
            _force(patch, method)
        table = singling_out(members, synthetic, control=control, seed=1).queries
    queries = [list(q) for q in table["conditions"]]
    assert table["count_synthetic"].tolist() == _slow_counts(queries, synthetic)
    assert table["count_original"].tolist() == _slow_counts(queries, members)
    assert table["count_control"].tolist() == _slow_counts(queries, control)
