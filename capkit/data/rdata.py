"""R data files (``.rda`` / ``.rds``) read with pyreadr, R's missing numbers made numpy's.

R marks a missing number (``NA_real_``) by a NaN carrying the payload 1954, bit pattern
``0x7FF00000000007A2``: a *signalling* NaN. pyreadr passes the bits through, and numpy
arithmetic on them warns "invalid value encountered" (adding noise to a column of SD2011's
``income``, say) where an ordinary NaN passes silently. Every float column read here has its
NaNs replaced by numpy's quiet NaN; no other value changes.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

__all__ = ["quiet_nans", "read_r"]

_QUIET_NAN_BITS = np.array([np.nan]).view(np.uint64)[0]


def quiet_nans(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every NaN of its float columns as numpy's quiet NaN (a new frame when one
    changes, else ``frame`` itself, which is never modified)."""
    out = frame
    for column in frame.columns:
        dtype = frame[column].dtype
        if not (isinstance(dtype, np.dtype) and dtype.kind == "f"):
            continue
        values = frame[column].to_numpy()
        missing = np.isnan(values)
        if values.dtype == np.float64:  # only NaNs that are not numpy's own need replacing
            missing &= values.view(np.uint64) != _QUIET_NAN_BITS
        if missing.any():
            if out is frame:
                out = frame.copy()
            out[column] = pd.Series(np.where(np.isnan(values), np.nan, values), index=frame.index,
                                    dtype=dtype)
    return out


def read_r(path: str | os.PathLike) -> dict[str, object]:
    """Every object of an R data file, data frames with :func:`quiet_nans` applied.

    pyreadr's own errors pass through (callers say which file and role failed).
    """
    import pyreadr  # heavy, and only needed for R files

    objects = pyreadr.read_r(str(path))
    return {name: quiet_nans(obj) if isinstance(obj, pd.DataFrame) else obj
            for name, obj in objects.items()}
