"""The frames :func:`capkit.audit.audit` takes: the syntheses named, every frame checked for
the original's columns before anything is measured, and text columns stored as categories for
the measures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

__all__ = ["as_categories", "check_frames", "infinite_as_missing", "syntheses"]


def syntheses(synthetic: object) -> dict[str, pd.DataFrame]:
    if isinstance(synthetic, pd.DataFrame):
        return {"synthesis 1": synthetic}
    if isinstance(synthetic, Mapping):
        named = {str(k): v for k, v in synthetic.items()}
    elif isinstance(synthetic, Sequence) and not isinstance(synthetic, str):
        named = {f"synthesis {j}": s for j, s in enumerate(synthetic, start=1)}
    else:
        raise CapkitError("synthetic must be a DataFrame, a list of DataFrames or a dict "
                          f"name -> DataFrame, got {type(synthetic).__name__}")
    if not named:
        raise CapkitError("synthetic is empty: give at least one synthetic data set")
    for name, frame in named.items():
        if not isinstance(frame, pd.DataFrame) or frame.empty:
            raise CapkitError(f"synthetic data {name!r} must be a non-empty DataFrame")
    return named


def check_frames(original: object, named: dict[str, pd.DataFrame], holdout: object) -> None:
    if not isinstance(original, pd.DataFrame) or original.empty:
        raise CapkitError("original must be a non-empty DataFrame")
    if holdout is not None and (not isinstance(holdout, pd.DataFrame) or holdout.empty):
        raise CapkitError("holdout must be None or a non-empty DataFrame")
    columns = list(original.columns)
    for name, frame in [*named.items(), *([("holdout", holdout)] if holdout is not None
                                          else [])]:
        missing = [c for c in columns if c not in set(frame.columns)]
        if missing:
            raise CapkitError(f"{name} lacks column(s) {missing} of the original data")


def as_categories(original: pd.DataFrame, named: dict[str, pd.DataFrame],
                  holdout: pd.DataFrame | None
                  ) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], pd.DataFrame | None]:
    """The frames with their text (object) columns as pandas categories, for the measures.

    A text column read from a file is coded again by every measure that counts it; as a
    category it is coded once. Only the storage changes (the same values, each frame keeping
    its own levels): the findings are the same (tested on text and on category input). New
    frames are returned; the caller's are not modified.
    """
    text = [c for c in original.columns if original[c].dtype == object]

    def convert(frame: pd.DataFrame | None) -> pd.DataFrame | None:
        if frame is None or not text:
            return frame
        return frame.astype({c: "category" for c in text if frame[c].dtype == object})

    return convert(original), {n: convert(f) for n, f in named.items()}, convert(holdout)


def infinite_as_missing(frames: dict[str, pd.DataFrame | None]
                        ) -> tuple[dict[str, pd.DataFrame | None], str | None]:
    """Infinite numbers (``inf``, ``-inf``) read as missing values, in every frame, for every
    measure family, and one note that says so (None when there are none).

    An infinite value has no distance to a number (a Gower range of inf makes every distance
    NaN or 0), no class (a bin of width inf), and no rank an attack can use; the families
    would each do something else with it (skip a column, warn, flag a record). One rule for
    all: it is a missing value. The frames given are not modified; the ones holding infinite
    values are returned as copies.
    """
    out, said = {}, []
    for name, frame in frames.items():
        if frame is None:
            out[name] = frame
            continue
        numeric = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c].dtype)]
        counts = {c: int(np.isinf(frame[c].to_numpy(dtype=float, na_value=np.nan)).sum())
                  for c in numeric}
        counts = {c: k for c, k in counts.items() if k}
        if not counts:
            out[name] = frame
            continue
        copy = frame.copy()
        for c in counts:
            values = copy[c].to_numpy(dtype=float, na_value=np.nan)
            copy[c] = np.where(np.isinf(values), np.nan, values)
        out[name] = copy
        said.append(f"{name}: " + ", ".join(f"{c} ({k:,})" for c, k in counts.items()))
    if not said:
        return out, None
    return out, ("infinite values (inf, -inf) are read as missing values by every measure "
                 "family (the distances, the classes, the attacks and the counts alike): "
                 + "; ".join(said))
