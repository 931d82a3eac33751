"""SDMetrics' distance to closest record (``calculate_dcr``), exact and without a cross join.

SDMetrics 0.32 (``single_table/privacy/dcr_utils.py``; docs/sdmetrics-differences.md)
compares a record x of ``dataset`` with a record y of ``reference`` on the columns
of the metadata whose sdtype is numerical, datetime, categorical or boolean and that both tables
hold (in metadata order):

* numerical / datetime (in seconds): ``min(|x - y| / r, 1)``, r = max - min of the
  *reference* column (missing values ignored); when r = 0, 1 if the values differ, else 0;
  exactly one value missing: 1; both missing: 0;
* categorical / boolean: 0 if equal or both missing, else 1.

The distance is the mean of the column terms and DCR(x) its minimum over the reference. This is
the Gower distance with each numeric term capped at 1 and SDMetrics' rules for missing values
and constant columns. capkit encodes it for the exact level search of
:func:`capkit.distance.nearest.nearest`: categorical columns as codes (a missing value a level),
constant or empty numeric columns as categorical too (equality is their whole distance), other
numeric columns as values scaled by 1 / r with the cap, plus a "missing" indicator column
where a value is missing (the numeric term of such a pair is then 0, the indicator adds the 1).
SDMetrics computes every pair in 1000 x 1000 cross joins (about 2 s per block); the level
search visits only the pairs that can be closest.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from pandas.api import types as pdt
from tqdm import tqdm

from capkit.counts.encode import factorize_pair
from capkit.distance.nearest import nearest
from capkit.errors import CapkitError
from capkit.sdmetrics.inputs import check_frames, single_table_metadata

#: The sdtypes SDMetrics' DCR compares, and how.
NUMERIC_SDTYPES = ("numerical", "datetime")
CATEGORICAL_SDTYPES = ("categorical", "boolean")

#: Records above which :func:`calculate_dcr` shows a progress bar by default.
PROGRESS_RECORDS = 20_000


def dcr_columns(metadata: dict, *frames: pd.DataFrame) -> list[tuple[str, str]]:
    """``(column, sdtype)`` of the columns SDMetrics' DCR uses, in metadata order."""
    used = []
    for column, meta in metadata["columns"].items():
        sdtype = meta.get("sdtype") if isinstance(meta, dict) else None
        if sdtype in NUMERIC_SDTYPES + CATEGORICAL_SDTYPES and all(
                column in frame.columns for frame in frames):
            used.append((column, sdtype))
    if not used:
        raise CapkitError("There are no overlapping statistical columns to measure: the "
                          "metadata names no numerical, datetime, categorical or boolean column "
                          "that both tables hold")
    return used


def _as_seconds(values: pd.Series, meta: dict, column: str) -> pd.Series:
    """A datetime column as float seconds since the epoch (SDMetrics converts text with the
    metadata's ``datetime_format``)."""
    if not pdt.is_datetime64_any_dtype(values):
        fmt = meta.get("datetime_format")
        if fmt is None:
            raise CapkitError(f"datetime column {column!r} is not a datetime dtype and its "
                              "metadata has no 'datetime_format'")
        try:
            values = pd.to_datetime(values, format=fmt)
        except (TypeError, ValueError) as exc:
            raise CapkitError(f"datetime column {column!r}: {exc}") from exc
    stamps = values.dt.tz_localize(None) if values.dt.tz is not None else values
    return (stamps - pd.Timestamp(0)).dt.total_seconds()


def _numbers(values: pd.Series, column: str) -> np.ndarray:
    try:
        return pd.to_numeric(values).to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise CapkitError(f"numerical column {column!r} must hold numbers") from exc


class _Encoded:
    """Both tables as categorical codes and capped numeric values (module docstring)."""

    def __init__(self, dataset: pd.DataFrame, reference: pd.DataFrame,
                 columns: list[tuple[str, str]], metadata: dict) -> None:
        cat_d, cat_r, num_d, num_r = [], [], [], []
        for column, sdtype in columns:
            x, y = dataset[column], reference[column]
            if sdtype in CATEGORICAL_SDTYPES:
                codes_d, codes_r, _ = factorize_pair(x, y)
                cat_d.append(codes_d)
                cat_r.append(codes_r)
                continue
            if sdtype == "datetime":
                meta = metadata["columns"][column]
                x, y = _as_seconds(x, meta, column), _as_seconds(y, meta, column)
            xv, yv = _numbers(x, column), _numbers(y, column)
            spread = np.nanmax(yv) - np.nanmin(yv) if np.isfinite(yv).any() else np.nan
            if not spread > 0:  # constant or empty reference column: equality is the distance
                codes_d, codes_r, _ = factorize_pair(pd.Series(xv), pd.Series(yv))
                cat_d.append(codes_d)
                cat_r.append(codes_r)
                continue
            num_d.append(xv / spread)
            num_r.append(yv / spread)
            missing_d, missing_r = np.isnan(xv), np.isnan(yv)
            if missing_d.any() or missing_r.any():
                cat_d.append(missing_d.astype(np.int64))
                cat_r.append(missing_r.astype(np.int64))
        self.n_columns = len(columns)
        self.cat_d = _stack(cat_d, len(dataset), np.int64)
        self.cat_r = _stack(cat_r, len(reference), np.int64)
        self.num_d = _stack(num_d, len(dataset), np.float64)
        self.num_r = _stack(num_r, len(reference), np.float64)


def _stack(columns: list[np.ndarray], n: int, dtype: type) -> np.ndarray:
    return np.column_stack(columns).astype(dtype) if columns else np.zeros((n, 0), dtype=dtype)


def calculate_dcr(
    dataset: pd.DataFrame,
    reference_dataset: pd.DataFrame,
    metadata: dict,
    chunk_size: int | None = None,
    *,
    progress: bool | None = None,
) -> pd.Series:
    """SDMetrics' ``calculate_dcr``: each record's distance to its closest reference record.

    Parameters
    ----------
    dataset
        The records whose DCR is measured (e.g. the synthetic data). Not modified.
    reference_dataset
        The records they are compared with (e.g. the real data); numeric ranges come from it.
        Not modified.
    metadata
        SDMetrics' single-table metadata, ``{"columns": {name: {"sdtype": ...}}}``.
    chunk_size
        Accepted for compatibility (SDMetrics' cross-join block size); capkit needs none.
    progress
        Show a progress bar; ``None``: when ``dataset`` has more than
        :data:`PROGRESS_RECORDS` records.

    Returns
    -------
    pandas.Series
        DCR in [0, 1] of every record of ``dataset``, indexed 0..n-1.
    """
    del chunk_size
    check_frames({"dataset": dataset, "reference_dataset": reference_dataset},
                 same_columns=False)
    metadata = single_table_metadata(metadata, None)
    columns = dcr_columns(metadata, dataset, reference_dataset)
    encoded = _Encoded(dataset, reference_dataset, columns, metadata)
    show = len(dataset) > PROGRESS_RECORDS if progress is None else progress
    with tqdm(total=len(dataset), disable=not show, desc="DCR", unit="record",
              mininterval=1.0) as bar:
        best, _ = nearest(encoded.cat_d, encoded.cat_r, encoded.num_d, encoded.num_r,
                          np.ones(encoded.cat_d.shape[1]),
                          numeric_cap=np.ones(encoded.num_d.shape[1]), progress=bar.update)
    return pd.Series(best / encoded.n_columns)


def dcr_brute_force(dataset: pd.DataFrame, reference_dataset: pd.DataFrame, metadata: dict,
                    columns: Sequence[str] | None = None) -> np.ndarray:
    """The full (n, m) matrix of SDMetrics' distance, term by term (small data; for tests)."""
    metadata = single_table_metadata(metadata, None)
    used = dcr_columns(metadata, dataset, reference_dataset)
    if columns is not None:
        used = [(c, t) for c, t in used if c in set(columns)]
    total = np.zeros((len(dataset), len(reference_dataset)))
    for column, sdtype in used:
        x, y = dataset[column], reference_dataset[column]
        if sdtype == "datetime":
            meta = metadata["columns"][column]
            x, y = _as_seconds(x, meta, column), _as_seconds(y, meta, column)
        if sdtype in CATEGORICAL_SDTYPES:
            codes_x, codes_y, _ = factorize_pair(x, y)
            term = (codes_x[:, None] != codes_y[None, :]).astype(float)
        else:
            xv, yv = _numbers(x, column), _numbers(y, column)
            spread = np.nanmax(yv) - np.nanmin(yv) if np.isfinite(yv).any() else np.nan
            diff = np.abs(yv[None, :] - xv[:, None])
            with np.errstate(invalid="ignore", divide="ignore"):
                term = np.where(spread == 0, (diff > 0).astype(float),
                                np.minimum(diff / spread, 1.0))
            one_missing = np.isnan(xv)[:, None] != np.isnan(yv)[None, :]
            both_missing = np.isnan(xv)[:, None] & np.isnan(yv)[None, :]
            term[one_missing] = 1.0
            term[both_missing] = 0.0
        total += term
    return total / len(used)


__all__ = ["calculate_dcr", "dcr_brute_force", "dcr_columns"]
