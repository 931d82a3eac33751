"""Distance to closest record (DCR) and the synthetic-vs-training-vs-holdout check.

Minieri, "Synthetic data for privacy preservation - Part 2" (2022):

* **Distance to closest record**: DCR(s) = min over reference records o of D(s, o), D the Gower
  distance (:mod:`capkit.distance.gower`), for every synthetic record s. DCR(s) = 0 means s is
  an exact copy of a reference record.
* **Synthetic vs training vs holdout**: with the original data split into a training set T (used
  to synthesise) and a holdout set H (not used), compare DCR to T with DCR to H. The share of
  synthetic records closer to T than to H should be near 50% (or below) when the synthesiser
  does not memorise T.

:func:`dcr` is exact and never materialises the n x m distance matrix
(:mod:`capkit.distance.nearest`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.distance.gower import GowerColumns, encode, gower_columns
from capkit.distance.nearest import PAIR_BATCH, nearest
from capkit.errors import CapkitError


@dataclass(frozen=True)
class DCRResult:
    """Distance to closest record of every synthetic record.

    Attributes
    ----------
    distance
        (n,) Gower DCR, in the row order of the synthetic data: in [0, 1] when every value
        lies within the ranges used, above 1 for a value beyond them (not clipped; see
        :mod:`capkit.distance.gower`).
    index
        (n,) position (0-based row number) in the reference data of a closest record: the
        smallest position among equally close records.
    columns
        The columns, weights and ranges used.
    """

    distance: np.ndarray
    index: np.ndarray
    columns: GowerColumns

    @property
    def exact_copies(self) -> int:
        """Number of synthetic records identical to some reference record (DCR = 0)."""
        return int((self.distance == 0).sum())


def dcr(
    synthetic: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    ranges: Mapping[str, float] | None = None,
    pair_batch: int = PAIR_BATCH,
    missing: str = "refuse",
    progress: bool | str = False,
) -> DCRResult:
    """Exact Gower distance to the closest reference record for every synthetic record.

    DCR(s) = min over o in the reference of D(s, o) (Minieri, "Distance to Closest Record"),
    computed without the full distance matrix (:mod:`capkit.distance.nearest`).

    Parameters
    ----------
    synthetic, reference
        Frames with the same columns (order free). Neither is modified.
    columns
        Columns to compare (default: all).
    weights
        ``{column: w_k}`` (default 1 each).
    ranges
        ``{column: R_k}`` overriding the numeric ranges, which default to the reference's.
    pair_batch
        About this many record pairs per call of the compiled kernel (one progress step).
    missing
        Missing numeric values: ``"refuse"`` (an error) or ``"level"`` (0 from another missing
        value, 1 from any number: :mod:`capkit.distance.gower`).
    progress
        A tqdm bar (on stderr, removed when done) over the synthetic records as their nearest
        records are settled; a string is the bar's label (True: "distance"). False: silent.

    Raises
    ------
    CapkitError
        See :func:`gower_columns` (mismatched columns or kinds, empty reference, zero range,
        missing numeric values unless ``missing="level"``).
    """
    spec = gower_columns({"synthetic": synthetic, "reference": reference}, columns=columns,
                         weights=weights, ranges=ranges, missing=missing)
    return _dcr(spec, synthetic, reference, pair_batch, progress)


def _dcr(spec: GowerColumns, synthetic: pd.DataFrame, reference: pd.DataFrame,
         pair_batch: int = PAIR_BATCH, progress: bool | str = False) -> DCRResult:
    """:func:`dcr` with the columns, weights and ranges already fixed by :func:`gower_columns`."""
    cat_s, cat_r, num_s, num_r, w_cat = encode(spec, synthetic, reference)
    label = progress if isinstance(progress, str) else "distance"
    from tqdm import tqdm  # imported when used (capkit.syntheval does not)

    with tqdm(total=len(synthetic), desc=label, unit="record", leave=False,
              disable=not progress) as bar:
        best, arg = nearest(cat_s, cat_r, num_s, num_r, w_cat, pair_batch=pair_batch,
                            progress=bar.update if progress else None)
    return DCRResult(best / spec.total_weight, arg, spec)


@dataclass(frozen=True)
class HoldoutComparison:
    """DCR of the synthetic records to the training set and to the holdout set.

    Attributes
    ----------
    dcr_training, dcr_holdout
        (n,) Gower DCR of each synthetic record to T and to H (same columns and ranges).
    share_closer_to_training
        Share of synthetic records with DCR to T < DCR to H, ties counted as one half.
    exact_copies_training, exact_copies_holdout
        Synthetic records identical to a training / holdout record (DCR = 0).
    """

    dcr_training: np.ndarray
    dcr_holdout: np.ndarray
    share_closer_to_training: float
    exact_copies_training: int
    exact_copies_holdout: int
    columns: GowerColumns

    def summary(self) -> pd.DataFrame:
        """One row per reference set: records, mean and median DCR, exact copies."""
        rows = []
        for name, d, copies in (("training", self.dcr_training, self.exact_copies_training),
                                ("holdout", self.dcr_holdout, self.exact_copies_holdout)):
            rows.append({"reference": name, "synthetic records": len(d),
                         "mean DCR": float(d.mean()), "median DCR": float(np.median(d)),
                         "exact copies (DCR = 0)": copies})
        return pd.DataFrame(rows).set_index("reference")


def closer_share(dcr_training: np.ndarray, dcr_holdout: np.ndarray) -> float:
    """Share of records with DCR to training < DCR to holdout; a tie counts one half.

    Counting ties as one half makes the share 0.5 when the synthetic data is as close to the
    holdout as to the training set, also for data with many exact ties (e.g. all-categorical).
    """
    t, h = np.asarray(dcr_training, dtype=float), np.asarray(dcr_holdout, dtype=float)
    if t.shape != h.shape or t.ndim != 1 or len(t) == 0:
        raise CapkitError("dcr_training and dcr_holdout must be 1-D arrays of the same length > 0")
    return float(((t < h).sum() + 0.5 * (t == h).sum()) / len(t))


def holdout_comparison(
    synthetic: pd.DataFrame,
    training: pd.DataFrame,
    holdout: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    ranges: Mapping[str, float] | None = None,
    missing: str = "refuse",
) -> HoldoutComparison:
    """Synthetic vs training vs holdout (Minieri, "Synthetic vs Holdout").

    Both DCR distributions use the same Gower distance: numeric ranges R_k come from training
    and holdout together (the original data), unless ``ranges`` gives them.
    ``share_closer_to_training`` counts a synthetic record closer to T than to H as 1 and a tie
    (equal DCR, e.g. an exact copy present in both) as 1/2; near 0.5 (or below) is good.
    ``missing`` as in :func:`dcr`.

    Raises
    ------
    CapkitError
        See :func:`gower_columns`; an empty training or holdout set.
    """
    frames = {"synthetic": synthetic, "training": training, "holdout": holdout}
    spec = gower_columns(frames, columns=columns, weights=weights, ranges=ranges,
                         range_from=["training", "holdout"], missing=missing)
    to_t = _dcr(spec, synthetic, training)
    to_h = _dcr(spec, synthetic, holdout)
    return HoldoutComparison(
        dcr_training=to_t.distance,
        dcr_holdout=to_h.distance,
        share_closer_to_training=closer_share(to_t.distance, to_h.distance),
        exact_copies_training=to_t.exact_copies,
        exact_copies_holdout=to_h.exact_copies,
        columns=spec,
    )


__all__ = ["DCRResult", "HoldoutComparison", "closer_share", "dcr", "holdout_comparison"]
