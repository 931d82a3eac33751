"""The frames :func:`capkit.audit.audit` takes: the syntheses named, every frame checked for
the original's columns before anything is measured, and text columns stored as categories for
the measures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from capkit.errors import CapkitError

__all__ = ["as_categories", "check_frames", "syntheses"]


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
