"""PrivEval's inputs and preprocessing: the checks, the label-encoded frames and the features
each of its metrics builds (PrivEval, github.com/hereditary-eu/PrivEval at commit 2aecac8,
``get_results.py`` and ``Metrics/*.py``).

PrivEval gives half of its metrics the frames as read (``real_data``, ``syn_data``) and half
(GeneralizedCAP, ZeroCAP, MDCR, hitting rate, NNAA, DCR, NNDR, hidden rate) *label frames*:
the two frames concatenated, text columns coded by scikit-learn's ``LabelEncoder`` (the sorted
distinct strings), booleans as 0/1, numbers unchanged, text-and-boolean columns first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

__all__ = ["air_features", "check_inputs", "identifiability_features", "label_frames",
           "numeric_standardised", "onehot_standardised", "standardised"]


def check_inputs(real: object, synthetic: object, sensitive: str,
                 keys: Sequence[str] | None) -> list[str]:
    """Check the frames and return the key columns (every column but ``sensitive`` by default).

    Raises
    ------
    CapkitError
        Not data frames, an empty frame, column sets that differ, ``sensitive`` missing or also
        a key, a key missing.
    """
    for name, frame in (("real", real), ("synthetic", synthetic)):
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        if len(frame) == 0 or frame.shape[1] == 0:
            raise CapkitError(f"{name} is empty: PrivEval's metrics need records")
    only_real = [c for c in real.columns if c not in synthetic.columns]
    only_syn = [c for c in synthetic.columns if c not in real.columns]
    if only_real or only_syn:
        raise CapkitError(f"the release's columns differ from the original's: only in real "
                          f"{only_real}, only in synthetic {only_syn}")
    if sensitive not in real.columns:
        raise CapkitError(f"sensitive attribute {sensitive!r} is not a column of the data")
    if keys is None:
        return [c for c in real.columns if c != sensitive]
    keys = [keys] if isinstance(keys, str) else list(keys)
    if sensitive in keys:
        raise CapkitError(f"sensitive attribute {sensitive!r} is also a quasi-identifier "
                          "(listed in keys)")
    missing = [k for k in keys if k not in real.columns]
    if missing or not keys:
        raise CapkitError(f"keys must name columns of the data; missing {missing}"
                          if missing else "keys must name at least one column")
    return keys


def _is_text(series: pd.Series) -> bool:
    return series.dtype == object or isinstance(series.dtype, pd.CategoricalDtype) \
        or pd.api.types.is_string_dtype(series.dtype)


def label_frames(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[pd.DataFrame,
                                                                        pd.DataFrame]:
    """PrivEval's ``real_labels`` and ``syn_labels`` (``get_results.py``), both indexed 0..n-1.

    Text columns: the codes of the sorted distinct strings of both frames (``LabelEncoder`` on
    ``astype(str)``); boolean columns: 0/1; numbers unchanged. Text and boolean columns come
    first, in data order, then the others.
    """
    both = pd.concat([real, synthetic], ignore_index=True)
    first = [c for c in both.columns if _is_text(both[c]) or both[c].dtype == bool]
    rest = [c for c in both.columns if c not in first]
    out = {}
    for column in first:
        if both[column].dtype == bool:
            out[column] = both[column].astype(np.int64)
        else:
            _, codes = np.unique(both[column].astype(str).to_numpy(), return_inverse=True)
            out[column] = codes.astype(np.int64)
    for column in rest:
        out[column] = both[column]
    labels = pd.DataFrame(out)
    n = len(real)
    return (labels.iloc[:n].reset_index(drop=True), labels.iloc[n:].reset_index(drop=True))


def standardised(real: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    """scikit-learn's ``StandardScaler`` fitted on ``real`` (ddof = 0, a constant column
    divided by 1) applied to ``real`` and ``others``."""
    real = np.asarray(real, dtype=np.float64)
    mean = real.mean(axis=0)
    scale = real.std(axis=0)
    scale[scale < 10 * np.finfo(np.float64).eps * np.maximum(np.abs(mean), 1)] = 1.0
    return [(np.asarray(a, dtype=np.float64) - mean) / scale for a in (real, *others)]


def _numeric_columns(frame: pd.DataFrame) -> list[str]:
    """pandas' ``select_dtypes(include=np.number)``: numbers, not booleans."""
    return frame.select_dtypes(include=[np.number]).columns.tolist()


def onehot_standardised(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """Features of PrivEval's NSND, CVP, DVP and DetectionMLP: the numeric columns (NaN by the
    column mean), the others as strings (NaN as ``"missing"``) one-hot over both frames, then
    standardised on the real records (DetectionMLP standardises over both itself)."""
    num = _numeric_columns(real)
    cat = [c for c in real.columns if c not in num]
    r_num = real[num].fillna(real[num].mean()) if num else real[num]
    s_num = synthetic[num].fillna(synthetic[num].mean()) if num else synthetic[num]
    both = pd.concat([real[cat], synthetic[cat]], axis=0).fillna("missing").astype(str)
    dummies = pd.get_dummies(both, dtype=np.int64).to_numpy(dtype=np.float64)
    n = len(real)
    r = np.hstack([r_num.to_numpy(dtype=np.float64), dummies[:n]])
    s = np.hstack([s_num.to_numpy(dtype=np.float64), dummies[n:]])
    return tuple(standardised(r, s))  # type: ignore[return-value]


def numeric_standardised(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[np.ndarray,
                                                                               np.ndarray]:
    """Features of PrivEval's Authenticity: the numeric columns only (booleans and text left
    out), NaN by each frame's column mean, standardised on the real records."""
    num = _numeric_columns(real)
    if not num:
        raise CapkitError("Authenticity needs at least one numeric column")
    r = real[num].fillna(real[num].mean()).to_numpy(dtype=np.float64)
    s = synthetic[num].fillna(synthetic[num].mean()).to_numpy(dtype=np.float64)
    return tuple(standardised(r, s))  # type: ignore[return-value]


def _entropy(shares: pd.Series) -> float:
    return float(-np.sum(shares * np.log(shares + 1e-8)))


def identifiability_features(real: pd.DataFrame, synthetic: pd.DataFrame
                             ) -> tuple[np.ndarray, np.ndarray]:
    """Features of PrivEval's Identifiability Score: text columns label-coded over both frames,
    every column standardised on the real records and divided by its weight
    ``1 / (H + 1e-8)`` (+ 1e-8), H the entropy (natural log, + 1e-8 inside) of the column's
    real values, numeric and boolean columns first cut into at most 10 quantile bins
    (``pandas.qcut``, duplicate edges dropped; a column that cannot be cut has H = 0)."""
    text = [c for c in real.columns if real[c].dtype == object
            or isinstance(real[c].dtype, pd.CategoricalDtype)]
    r, s = real.copy(), synthetic.copy()
    for column in text:
        _, codes = np.unique(pd.concat([real[column], synthetic[column]]).astype(str).to_numpy(),
                             return_inverse=True)
        r[column], s[column] = codes[:len(real)], codes[len(real):]
    r = r.astype(np.float64)
    s = s.astype(np.float64)
    r, s = r.fillna(r.mean()), s.fillna(s.mean())
    weights = []
    for column in real.columns:
        if column in text:
            h = _entropy(r[column].value_counts(normalize=True))
        else:
            try:
                cut = pd.qcut(r[column], q=min(10, r[column].nunique()), duplicates="drop")
                h = _entropy(cut.value_counts(normalize=True))
            except (ValueError, TypeError, IndexError):
                h = 0.0
        weights.append(1.0 / (h + 1e-8))
    w = np.asarray(weights) + 1e-8
    zr, zs = standardised(r.to_numpy(), s.to_numpy())
    return zr / w, zs / w


def air_features(real: pd.DataFrame, synthetic: pd.DataFrame, sensitive: str
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Features of PrivEval's Attribute Inference Risk, unscaled: the key columns (all but the
    sensitive one) less the first float column, text columns one-hot over both frames, then
    every float column appended (so the float columns but the first count twice: PrivEval's
    code, reproduced as it is)."""
    floats = [c for c in real.columns if real[c].dtype == np.float64]
    keys = [c for c in real.columns if c != sensitive]
    if floats and floats[0] in keys:
        keys.remove(floats[0])
    both = pd.get_dummies(pd.concat([real[keys], synthetic[keys]]), dtype=np.int64)
    values = both.to_numpy(dtype=np.float64)
    n = len(real)
    r = np.hstack([values[:n], real[floats].to_numpy(dtype=np.float64)])
    s = np.hstack([values[n:], synthetic[floats].to_numpy(dtype=np.float64)])
    return r, s
