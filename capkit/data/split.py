"""Members and holdout: a seeded split of a data set for the membership control.

A synthesiser is fitted on the **members**; the **holdout** records are kept aside, never shown
to it, as the control of every attack-style measure (:mod:`capkit.control`): what an attack
achieves on them is inference about the population, not disclosure about the members.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from capkit.errors import CapkitError


def holdout_split(frame: pd.DataFrame, *, holdout: float = 0.5, rows: int | None = None,
                  seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split ``frame`` into members and holdout at random (seeded), both with a fresh index.

    Parameters
    ----------
    frame
        The data set. Not modified.
    holdout
        Share of the (used) records kept aside, in (0, 1).
    rows
        Use only this many records, drawn at random first (default: all).
    seed
        Seed of the ``numpy.random.Generator`` that draws the permutation.

    Returns
    -------
    (members, holdout)
        Distinct records of ``frame`` (by position), in the drawn order, index 0..n-1.
    """
    if not isinstance(frame, pd.DataFrame):
        raise CapkitError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if isinstance(holdout, bool) or not isinstance(holdout, numbers.Real) or not (
            0 < float(holdout) < 1):
        raise CapkitError(f"holdout must be a share in (0, 1), got {holdout!r}")
    total = len(frame) if rows is None else rows
    if isinstance(total, bool) or not isinstance(total, numbers.Integral) or not (
            2 <= total <= len(frame)):
        raise CapkitError(f"rows must be an integer from 2 to {len(frame)} (the frame's size), "
                          f"got {rows!r}")
    order = np.random.default_rng(seed).permutation(len(frame))[: int(total)]
    n_holdout = min(max(int(round(float(holdout) * len(order))), 1), len(order) - 1)
    members = frame.iloc[order[: len(order) - n_holdout]].reset_index(drop=True)
    kept = frame.iloc[order[len(order) - n_holdout :]].reset_index(drop=True)
    return members, kept


__all__ = ["holdout_split"]
