"""``crosstab``: the aligned target x key count tables every measure is computed from.

This is the narrow waist of capkit (docs/architecture.md): Baillargeon & Charest's o_ij / s_ij
and Raab, Nowok & Dibben's d_tq / s_tq, rows = target levels, columns = key combinations. The
counting is done by :mod:`capkit.counts.table` for pandas frames and by
:mod:`capkit.counts.engines` (DuckDB, Spark) for files, relations and cluster frames; both give
the same labels and counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from capkit.counts.encode import as_list, combine_codes, factorize_pair, validate_frames
from capkit.counts.engines import dispatch as engines
from capkit.counts.table import (
    DENSE_CELL_LIMIT,
    KeyTargetTable,
    Table,
    count_frames,
    records_from_counts,
)
from capkit.errors import CapkitError


def crosstab(
    original: pd.DataFrame | object,
    synthetic: pd.DataFrame | object,
    keys: str | Sequence[str],
    target: str | Sequence[str],
    *,
    dropna: bool = False,
    sparse_output: bool | None = None,
    engine: str | None = None,
    holdout: pd.DataFrame | None = None,
    allow_disjoint_levels: bool = False,
) -> KeyTargetTable:
    """Aligned target x key count tables of an original and a synthetic data frame.

    Parameters
    ----------
    original, synthetic
        The two data frames. Neither is modified. With an ``engine`` (see below) each may also
        be a Parquet/CSV path or glob, a DuckDB relation or a PySpark DataFrame.
    keys
        One or more key columns (the quasi-identifiers an intruder knows); their combinations
        are the keys K_1..K_J of Baillargeon & Charest (Section 2.1).
    target
        One target column, or several that act as one combined target (as SDMetrics'
        ``sensitive_fields`` do).
    dropna
        By default a missing value is a level of its own (synthpop's ``"Missing"``). With
        ``dropna=True`` records with a missing key or target are left out of both tables and
        their ``record_cell`` is ``(-1, -1)``.
    sparse_output
        ``True``/``False`` forces sparse/dense counts; ``None`` (default) goes sparse when the
        table has more than :data:`DENSE_CELL_LIMIT` cells.
    engine
        Who counts: ``"pandas"`` (in memory, the code below), ``"duckdb"`` (files or relations
        larger than memory) or ``"spark"`` (PySpark DataFrames, clusters); ``None`` chooses from
        the inputs (pandas for two DataFrames). Every engine gives the same labels and counts;
        DuckDB and Spark return ``record_cell = None``. See :mod:`capkit.counts.engines`.
    holdout
        Original records that were *not* used to make the synthetic data (the membership
        control): their counts come on the same grid as ``.holdout`` (levels and key
        combinations of all three frames). pandas only. The counts of ``original`` and
        ``synthetic`` are the same as without a holdout, on a grid that may have extra empty
        rows and columns for levels only the holdout has.
    allow_disjoint_levels
        By default a key or target column whose levels barely overlap between the two frames
        (fewer than half of the original records with a value of it have a value that occurs
        in the synthetic data, missing values aside) is an error: the frames almost surely
        code it differently, and every exact-match measure would report no risk. ``True``
        counts it anyway. (:func:`capkit.counts.encode.check_levels`.)

    Returns
    -------
    KeyTargetTable
        Counts over the union of both frames' levels: a key combination or target level present
        in only one frame is a column or row of zeros in the other.

    Raises
    ------
    CapkitError
        For a missing column, a target that is also a key, an empty frame, duplicated column
        names, a column that is numeric in one frame and text in the other, a column whose
        levels barely overlap (see ``allow_disjoint_levels``), or a holdout with a big engine.

    Warns
    -----
    ContinuousTargetWarning
        For a numeric target with more than
        :data:`capkit.counts.encode.CONTINUOUS_TARGET_LEVELS` distinct values: it is counted
        by exact value (see :func:`capkit.counts.encode.check_levels`).
    """
    key_cols = as_list(keys, "keys")
    target_cols = as_list(target, "target")
    if engine is not None or not (
        isinstance(original, pd.DataFrame) and isinstance(synthetic, pd.DataFrame)
    ):
        engine = engines.choose_engine(original, synthetic, engine)
        if engine != "pandas" and holdout is not None:
            raise CapkitError(f"holdout is supported on the pandas engine only, not {engine!r}")
        if engine != "pandas":
            counted = engines.count_codes(original, synthetic, key_cols, target_cols, engine,
                                          dropna=dropna,
                                          allow_disjoint_levels=allow_disjoint_levels)
            counts_o, counts_s = engines.count_table(counted, sparse_output)
            return KeyTargetTable(counts_o, counts_s, counted.targets, counted.keys, None, None)
        original = engines.to_pandas(original, key_cols + target_cols, "original")
        synthetic = engines.to_pandas(synthetic, key_cols + target_cols, "synthetic")
    if holdout is not None and not isinstance(holdout, pd.DataFrame):
        raise CapkitError(f"holdout must be a pandas DataFrame, got {type(holdout).__name__}")
    return count_frames(original, synthetic, key_cols, target_cols, dropna=dropna,
                        sparse_output=sparse_output, holdout=holdout,
                        allow_disjoint_levels=allow_disjoint_levels)


__all__ = [
    "DENSE_CELL_LIMIT",
    "KeyTargetTable",
    "Table",
    "combine_codes",
    "crosstab",
    "factorize_pair",
    "records_from_counts",
    "validate_frames",
]
