"""SDMetrics' encoding of keys and sensitive values for its scikit-learn attackers, vectorised.

SDMetrics 0.32 (``single_table/privacy/categorical_sklearn.py``, ``util.py``) fits its encoders
on the **synthetic** data only, with scikit-learn defaults:

* a missing value (a float NaN or None) of a key or sensitive column is first replaced by the
  string ``"place_holder_for_nan"`` (in the synthetic data, and in each real key tuple before
  prediction), so it is a category sorted among the column's text values;
* keys become one-hot columns (``OneHotEncoder``: a sparse CSR matrix, one block per key column
  in key order, categories sorted) or ordinal codes (``OrdinalEncoder``); numbers are categories
  like any other value;
* each sensitive column becomes ordinal codes (categories sorted);
* a real record with a key value the synthetic data does not hold cannot be encoded: no
  prediction (it counts as wrong).

:class:`Levels` reproduces one column's categories and codes; :class:`SensitiveSpace` gives
every predicted or true sensitive tuple one integer code, so predictions of different attackers
can be compared and voted on without decoding values. Where SDMetrics fails (a missing value in
a numeric column: its encoder sees text among numbers; pandas ``category`` columns with missing
values), capkit puts the missing value last, as a level of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pandas.api import types as pdt
from scipy import sparse

from capkit.counts.encode import factorize_pair

#: SDMetrics' stand-in for a missing value (``util.allow_nan``).
PLACEHOLDER = "place_holder_for_nan"


def _plain(values: pd.Series) -> pd.Series:
    """Values without a pandas categorical or extension dtype (categories as their values)."""
    if isinstance(values.dtype, pd.CategoricalDtype) or pdt.is_extension_array_dtype(values):
        return values.astype(object)
    return values


@dataclass(frozen=True)
class Levels:
    """The categories one of SDMetrics' encoders finds in a synthetic column.

    Attributes
    ----------
    categories
        Sorted distinct values (sklearn's order); the placeholder among them for text columns
        with missing values.
    missing
        Code of a missing value (-1 when the synthetic column has none: unseen).
    """

    categories: pd.Index
    missing: int

    @classmethod
    def fit(cls, values: pd.Series) -> Levels:
        """The categories of a synthetic column."""
        values = _plain(values)
        na = values.isna().to_numpy()
        present = pd.unique(values[~na])
        textual = values.dtype == object and pdt.infer_dtype(present) == "string"
        if na.any() and textual:
            present = np.append(present, PLACEHOLDER)
        try:
            categories = pd.Index(np.sort(present))
        except TypeError:  # values that cannot be ordered: order of appearance
            categories = pd.Index(present)
        if not na.any():
            return cls(categories, -1)
        if textual:
            return cls(categories, int(categories.get_loc(PLACEHOLDER)))
        return cls(categories.append(pd.Index([np.nan], dtype=object)), len(categories))

    def codes(self, values: pd.Series) -> np.ndarray:
        """Code of each value (-1 for a value the synthetic column does not hold)."""
        values = _plain(values)
        na = values.isna().to_numpy()
        codes = np.full(len(values), self.missing, dtype=np.int64)
        if (~na).any():
            codes[~na] = self.categories.get_indexer(values[~na])
        return codes


def fit_levels(frame: pd.DataFrame, columns: Sequence[str]) -> list[Levels]:
    """:class:`Levels` of each column of the synthetic ``frame``."""
    return [Levels.fit(frame[c]) for c in columns]


def key_codes(frame: pd.DataFrame, columns: Sequence[str], levels: list[Levels]) -> np.ndarray:
    """(n, p) codes of the key columns; -1 marks a value the synthetic data does not hold."""
    if not columns:
        return np.zeros((len(frame), 0), dtype=np.int64)
    return np.column_stack([lv.codes(frame[c]) for c, lv in zip(columns, levels, strict=True)])


def one_hot(codes: np.ndarray, levels: list[Levels]) -> sparse.csr_matrix:
    """``OneHotEncoder``'s output for rows of known codes: CSR, one block per key column."""
    sizes = np.array([len(lv.categories) for lv in levels], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    n, p = codes.shape
    columns = (codes + offsets[None, :]).ravel()
    indptr = np.arange(0, n * p + 1, p, dtype=np.int64)
    return sparse.csr_matrix((np.ones(n * p), columns, indptr), shape=(n, int(sizes.sum())))


def ordinal(codes: np.ndarray) -> np.ndarray:
    """``OrdinalEncoder``'s output for rows of known codes: float64 codes."""
    return codes.astype(np.float64)


class SensitiveSpace:
    """One integer per sensitive tuple, over the values of the real and synthetic data.

    Each sensitive column is coded over the union of both tables' values (sorted, missing last,
    :func:`capkit.counts.encode.factorize_pair`); a tuple is their mixed-radix combination. A
    real tuple with a missing value gets -2: SDMetrics' attackers never predict a missing value
    (they predict the placeholder text), so it can never count as correct.
    """

    def __init__(self, real: pd.DataFrame, synthetic: pd.DataFrame,
                 columns: Sequence[str]) -> None:
        self.columns = list(columns)
        self.levels, real_codes, syn_codes, missing = [], [], [], []
        for column in self.columns:
            a, b, labels = factorize_pair(_plain(real[column]), _plain(synthetic[column]))
            has_na = bool(real[column].isna().any() or synthetic[column].isna().any())
            self.levels.append(labels[:-1] if has_na else labels)
            real_codes.append(a)
            syn_codes.append(b)
            missing.append(len(labels) - 1 if has_na else len(labels))
        self.missing = np.array(missing, dtype=np.int64)
        self.radix = self.missing + 1
        self.strides = np.concatenate([np.cumprod(self.radix[::-1])[::-1][1:], [1]]).astype(
            np.int64)
        real_codes = np.column_stack(real_codes)
        self.truth = self.combine(real_codes)
        self.truth[(real_codes == self.missing[None, :]).any(axis=1)] = -2
        self.synthetic = self.combine(np.column_stack(syn_codes))

    def combine(self, codes: np.ndarray) -> np.ndarray:
        """Tuple codes of (n, t) per-column codes (rows with a -1: -1, no prediction)."""
        joint = codes @ self.strides
        joint[(codes < 0).any(axis=1)] = -1
        return joint

    def decode(self, joint: int) -> tuple | None:
        """The sensitive tuple of a tuple code (None for -1; a missing value as the
        placeholder text, as SDMetrics' decoders return it)."""
        if joint < 0:
            return None
        codes = (joint // self.strides) % self.radix
        return tuple(PLACEHOLDER if code == self.missing[c] else self.levels[c][code]
                     for c, code in enumerate(codes))

    def from_levels(self, column: int, levels: Levels) -> np.ndarray:
        """Per-column code of each synthetic category of ``levels`` (the placeholder and a
        missing value map to the column's missing code)."""
        categories = levels.categories
        out = np.full(len(categories), self.missing[column], dtype=np.int64)
        keep = np.ones(len(categories), dtype=bool)
        if levels.missing >= 0:
            keep[levels.missing] = False
        out[keep] = self.levels[column].get_indexer(categories[keep])
        return out


__all__ = ["PLACEHOLDER", "Levels", "SensitiveSpace", "fit_levels", "key_codes", "one_hot",
           "ordinal"]
