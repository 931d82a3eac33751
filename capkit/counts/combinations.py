"""Counting many key combinations of the same frames: each column coded once, each combination
combined once.

A sweep over key combinations (which known columns disclose most, NIST SDNist's k-DiSCO
view) asks for the aligned target x key tables of the same frames for many (keys, target)
pairs. Coding every column again for every pair would repeat the same work hundreds of times.
Here each column is coded once over the union of the frames' levels
(:func:`capkit.counts.encode.factorize_many`, the same coding as
:func:`capkit.counts.tables.crosstab`; a missing value is a level of its own) and its levels are
checked once (:func:`capkit.counts.encode.check_levels`); a key combination's codes are then a
mixed-radix combination of the column codes (:func:`capkit.counts.encode.combine_codes`),
vectorised, and what an exact-match measure needs of a (combination, target) pair -- the one
target value each key's records share, if they share one -- is two ``ufunc.at`` passes
(:meth:`CodedFrames.single_target`), without building the target x key table. No Python loop
over records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.counts.encode import check_levels, combine_codes, factorize_many, kind_of_series
from capkit.errors import CapkitError

__all__ = ["CodedFrames", "code_frames"]


@dataclass(frozen=True)
class CodedFrames:
    """Columns of several frames (original first, synthetic second, then e.g. a holdout),
    each coded once over the union of the frames' levels.

    Attributes
    ----------
    codes
        ``codes[column][f]``: int64 code of every row of frame ``f``.
    levels
        ``levels[column]``: the label of each code (a missing value, when present, last).
    sizes
        Number of rows of each frame.
    """

    codes: dict[str, list[np.ndarray]]
    levels: dict[str, pd.Index]
    sizes: tuple[int, ...]

    def distinct(self, column: str, frame: int = 0) -> int:
        """Number of distinct values (missing counted as one) of ``column`` in frame ``frame``."""
        codes = self.codes[column][frame]
        return int(np.count_nonzero(np.bincount(codes, minlength=len(self.levels[column]))))

    def combination(self, columns: Sequence[str]) -> tuple[list[np.ndarray], int]:
        """Codes ``0..J-1`` of the key combinations of ``columns`` in every frame.

        Returns
        -------
        codes, n_combinations
            Per frame, each row's combination; J, the number of combinations present in any
            frame (lexicographic order of the column codes).
        """
        names = list(columns)
        if not names:
            raise CapkitError("a key combination needs at least one column")
        first = [self.codes[c][0] for c in names]
        rest = [np.concatenate(self.codes[c][1:]) if len(self.sizes) > 1 else
                np.zeros(0, dtype=np.int64) for c in names]
        codes_first, codes_rest, components = combine_codes(
            first, rest, [len(self.levels[c]) for c in names])
        split = np.split(codes_rest, np.cumsum(self.sizes[1:])[:-1]) if len(self.sizes) > 1 \
            else []
        return [codes_first, *split], len(components[0])

    def single_target(self, key_codes: list[np.ndarray], n_combinations: int, target: str,
                      frame: int) -> np.ndarray:
        """For each key combination, the one target code all its records of frame ``frame``
        share, or -1 (no record, or several target values).

        This is the column test of synthpop's DiSCO and Dorig cells (Raab, Nowok & Dibben,
        Appendix: a cell (t, q) with s_tq = s_.q > 0), read per key: key q is disclosive of t
        when all its records have target t. Two ``ufunc.at`` passes (min and max of the target
        code per key), no table of target x key cells.
        """
        q, t = key_codes[frame], self.codes[target][frame]
        n_levels = len(self.levels[target])
        low = np.full(n_combinations, n_levels, dtype=np.int64)
        high = np.full(n_combinations, -1, dtype=np.int64)
        np.minimum.at(low, q, t)
        np.maximum.at(high, q, t)
        return np.where(low == high, low, -1)

    def agreeing(self, key_codes: list[np.ndarray], single: np.ndarray, target: str,
                 frame: int) -> int:
        """Records of frame ``frame`` whose key's single target (``single``, from
        :meth:`single_target`) is their own target."""
        q, t = key_codes[frame], self.codes[target][frame]
        return int(np.count_nonzero(single[q] == t))


def code_frames(frames: Sequence[pd.DataFrame], roles: dict[str, str], *,
                names: Sequence[str] = ("original", "synthetic", "holdout"),
                allow_disjoint_levels: bool = False) -> CodedFrames:
    """Code the given columns of several frames once.

    Parameters
    ----------
    frames
        Two or more DataFrames: the original, the synthetic data, then others (a holdout)
        coded on the same levels. None is modified.
    roles
        ``{column: "key" | "target"}``: every column to code and how the level check
        (:func:`capkit.counts.encode.check_levels`, original against synthetic) treats it: a
        numeric target with many values warns (:class:`~capkit.errors.ContinuousTargetWarning`),
        a column whose levels barely overlap is refused unless ``allow_disjoint_levels``.
    names
        How messages name the frames.
    allow_disjoint_levels
        Passed to :func:`~capkit.counts.encode.check_levels`.

    Raises
    ------
    CapkitError
        A frame that is not a non-empty DataFrame, a missing column, or a column that is a number
        in one frame and text in another.
    """
    frames = list(frames)
    if len(frames) < 2:
        raise CapkitError("give at least an original and a synthetic frame")
    for frame, name in zip(frames, names, strict=False):
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} data must be a pandas DataFrame, got "
                              f"{type(frame).__name__}")
        if len(frame) == 0:
            raise CapkitError(f"{name} data is empty (0 rows)")
    codes: dict[str, list[np.ndarray]] = {}
    levels: dict[str, pd.Index] = {}
    for column, role in roles.items():
        for frame, name in zip(frames, names, strict=False):
            if column not in frame.columns:
                raise CapkitError(f"{role} column {column!r} is missing from {name} data")
        kinds = {kind_of_series(f[column]) for f in frames}
        if len(kinds) > 1:
            found = " and ".join(sorted(kinds))
            raise CapkitError(f"{role} column {column!r} is {found} in different frames; "
                              "convert it first")
        coded, lv = factorize_many([f[column] for f in frames])
        size = len(lv)
        numeric = (kind_of_series(frames[0][column]) == "numeric"
                   and not pd.api.types.is_bool_dtype(frames[0][column].dtype))
        check_levels(column, role, lv, np.bincount(coded[0], minlength=size),
                     [np.bincount(coded[1], minlength=size)],
                     missing=np.asarray(pd.isna(lv)), numeric=numeric,
                     allow_disjoint_levels=allow_disjoint_levels)
        codes[column] = coded
        levels[column] = lv
    return CodedFrames(codes, levels, tuple(len(f) for f in frames))
