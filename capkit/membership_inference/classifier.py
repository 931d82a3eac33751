"""A classifier trained to tell synthetic from reference records (LOGAN-style).

Hayes, Melis, Danezis & De Cristofaro, "LOGAN: Membership Inference Attacks Against
Generative Models" (PoPETs 2019), section 4.2: with auxiliary population data, train a model
to separate the released synthetic records (label 1) from reference records (label 0); a
record the model finds "synthetic-like" is more likely to have been in the training data. The
score of a record is the model's probability of class 1.

Default model: scikit-learn's ``HistGradientBoostingClassifier`` (seeded; categorical columns
as native categories, up to 250 levels, beyond that as ordinal codes; missing numbers handled
natively; classes weighted to balance unequal set sizes; fitted on one thread, so the
numbers do not depend on the machine's cores). Any scikit-learn classifier with
``fit`` and ``predict_proba`` can be passed instead; it is cloned (the caller's object is
left untouched), given ``random_state=seed`` when it has that parameter unset, and fed the
numeric columns standardised on the training records plus one indicator column per
categorical level.

DOMIAS 0.0.5's LOGAN_D1 is not reproduced: it trains on synthetic records only (its
``domias/baselines.py`` line 85, vanderschaarlab/DOMIAS on GitHub), so its score carries no
membership signal.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from capkit.errors import CapkitError

#: Largest number of levels a categorical column is given to the default model as categories.
MAX_NATIVE_LEVELS = 250


def _codes(frames: list[pd.DataFrame], column: str) -> list[np.ndarray]:
    joined = pd.concat([f[column].astype(object) for f in frames], ignore_index=True)
    codes, _ = pd.factorize(joined, use_na_sentinel=False, sort=False)
    bounds = np.cumsum([0] + [len(f) for f in frames])
    return [codes[bounds[i]:bounds[i + 1]] for i in range(len(frames))]


def _default_features(frames, numeric, categorical):
    parts = [[] for _ in frames]
    native = []
    for column in numeric:
        for part, frame in zip(parts, frames, strict=True):
            part.append(frame[column].to_numpy(dtype=np.float64, na_value=np.nan))
        native.append(False)
    for column in categorical:
        codes = _codes(frames, column)
        levels = max(int(c.max()) + 1 for c in codes if len(c))
        for part, code in zip(parts, codes, strict=True):
            part.append(code.astype(np.float64))
        native.append(levels <= MAX_NATIVE_LEVELS)
    return [np.column_stack(p) for p in parts], np.array(native, dtype=bool)


def _user_features(frames, numeric, categorical, train_index):
    train = pd.concat([frames[i] for i in train_index], ignore_index=True)
    parts = [[] for _ in frames]
    for column in numeric:
        if any(f[column].isna().any() for f in frames):
            raise CapkitError(f"numeric column {column!r} has missing values: impute them "
                              "before passing a classifier (the default model handles them)")
        values = train[column].to_numpy(dtype=np.float64)
        mean, sd = values.mean(), values.std()
        sd = sd if sd > 0 else 1.0
        for part, frame in zip(parts, frames, strict=True):
            part.append((frame[column].to_numpy(dtype=np.float64) - mean) / sd)
    for column in categorical:
        codes = _codes(frames, column)
        levels = max(int(c.max()) + 1 for c in codes if len(c))
        for part, code in zip(parts, codes, strict=True):
            part.extend((code == level).astype(np.float64) for level in range(levels))
    return [np.column_stack(p) if p else np.zeros((len(f), 0)) for p, f in zip(parts, frames,
                                                                               strict=True)]


def classifier_scores(scored: pd.DataFrame, synthetic: pd.DataFrame, reference: pd.DataFrame,
                      numeric, categorical, *, seed: int, model=None) -> np.ndarray:
    """P(synthetic | record) of a model trained on synthetic (1) vs reference (0) records."""
    # scikit-learn is imported here: the scores of the attacks without a model (the audit's
    # membership family, in a second process) do not need it
    from sklearn.base import clone
    from sklearn.ensemble import HistGradientBoostingClassifier

    frames = [scored, synthetic, reference]
    y = np.r_[np.ones(len(synthetic)), np.zeros(len(reference))]
    if model is None:
        (x, g, r), native = _default_features(frames, numeric, categorical)
        estimator = HistGradientBoostingClassifier(
            categorical_features=native if native.any() else None, class_weight="balanced",
            random_state=seed)
    else:
        if not (hasattr(model, "fit") and hasattr(model, "predict_proba")):
            raise CapkitError("classifier must be a scikit-learn classifier with fit and "
                              f"predict_proba, got {type(model).__name__}")
        x, g, r = _user_features(frames, numeric, categorical, (1, 2))
        estimator = clone(model)
        params = estimator.get_params()
        if "random_state" in params and params["random_state"] is None:
            estimator.set_params(random_state=seed)
    # one thread: the same numbers on every machine, and no OpenMP oversubscription (on a
    # busy 2-core machine 32,000 records took 37 s with all threads, 0.5 s with one)
    with threadpool_limits(limits=1):
        estimator.fit(np.concatenate([g, r]), y)
        classes = list(estimator.classes_)
        return estimator.predict_proba(x)[:, classes.index(1.0)]


__all__ = ["MAX_NATIVE_LEVELS", "classifier_scores"]
