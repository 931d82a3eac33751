"""SynthEval 1.7.3's membership-inference classifier (``mia``), draw for draw.

Lautrup et al., "SynthEval" (Data Mining and Knowledge Discovery 2025),
``metrics/privacy/metric_MIA_classification.py``: a gradient-boosting classifier learns to tell
synthetic records (label 1) from holdout records (label 0) and is then asked to flag real
training records (members, label 1) among held-out holdout records (label 0); precision, recall
and macro F1 over ``num_eval_iter`` iterations.

Per iteration, from one legacy NumPy ``RandomState`` (SynthEval draws from the global one, so
``numpy.random.seed(s)`` before its call equals ``seed=s`` here):

1. the holdout is split, ``permutation(n_H)``: the first ceil(n_H / 4) rows are the test part;
2. as many synthetic rows as the training part are drawn (``permutation(n_S)[:m]``, or
   ``randint(0, n_S, m)`` when the synthetic data are smaller);
3. the training rows are shuffled (``shuffle(arange(2m))``);
4. test records: ceil(n_H / 4) real rows (``permutation(n_R)[:n_test]``) and the holdout test
   part, or all real rows and as many test-part rows when the real data are smaller.

Features: the numeric columns (scaled), then one 0/1 indicator per categorical code present in
the three tables except the smallest, grouped by column in ``cat_cols`` order (pandas
``get_dummies(drop_first=True)``).

The classifier is SynthEval's LightGBM (``classifier="lightgbm"``, 100 trees, 31 leaves, one
thread: it reproduces SynthEval exactly; the default of :class:`capkit.syntheval.SynthEval`
with ``compat=True``) or scikit-learn's ``HistGradientBoostingClassifier`` (this function's
default and ``compat=False``'s: the same kind of model, deterministic; its numbers differ from
LightGBM's within the spread over seeds).

This attack is SynthEval's own (a model of synthetic vs holdout asked about members); capkit's
general membership-inference attacks live elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from capkit.distance.neighbours import Encoded, legacy_state
from capkit.errors import CapkitError

CLASSIFIERS = ("hist_gradient_boosting", "lightgbm")


def _features(tables: list[Encoded], cat_order: Sequence[int]) -> list[np.ndarray]:
    """Numeric columns, then drop-first indicators of the categorical codes present."""
    stack_cat = np.concatenate([t.cat for t in tables])
    blocks = []
    for k in cat_order:
        present = np.unique(stack_cat[:, k])[1:]
        blocks.append([(t.cat[:, k][:, None] == present[None, :]).astype(np.float64)
                       for t in tables])
    return [np.column_stack([t.num] + [b[i] for b in blocks]) for i, t in enumerate(tables)]


def _model(classifier: str) -> object:
    if classifier == "lightgbm":
        try:
            from lightgbm import LGBMClassifier
        except ImportError as exc:
            raise CapkitError("classifier='lightgbm' (SynthEval's, the default with compat=True) "
                              "needs the lightgbm package (pip install lightgbm); "
                              "mia={'classifier': 'hist_gradient_boosting'} needs none") from exc
        return LGBMClassifier(verbosity=-1, n_jobs=1)
    from sklearn.ensemble import HistGradientBoostingClassifier
    return HistGradientBoostingClassifier(early_stopping=False)


def mia_classifier(real: Encoded, synthetic: Encoded, holdout: Encoded, *,
                   cat_order: Sequence[int] | None = None, num_eval_iter: int = 5,
                   classifier: str = "hist_gradient_boosting",
                   seed: int | np.random.RandomState | None = 0) -> dict[str, float]:
    """SynthEval's ``mia`` outputs: ``MIA precision``, ``MIA recall``, ``MIA macro F1`` (means
    over the iterations) and each ``... se`` (sd / sqrt(num_eval_iter), NaN for one iteration).

    Parameters
    ----------
    real, synthetic, holdout
        Tables encoded together (:func:`capkit.distance.neighbours.joint_encode`).
    cat_order
        Order of the categorical blocks among the indicators (SynthEval: its ``cat_cols``
        list); default the encoded order.
    num_eval_iter
        Iterations (>= 1).
    classifier
        ``"hist_gradient_boosting"`` (default) or ``"lightgbm"`` (SynthEval's, exact).
    seed
        Legacy ``RandomState`` or its seed.
    """
    if holdout is None:
        raise CapkitError("mia needs a holdout (records not used to make the synthetic data)")
    if classifier not in CLASSIFIERS:
        raise CapkitError(f"classifier must be one of {CLASSIFIERS}, got {classifier!r}")
    if int(num_eval_iter) != num_eval_iter or num_eval_iter < 1:
        raise CapkitError(f"num_eval_iter must be an integer >= 1, got {num_eval_iter!r}")
    if len(holdout) < 2:
        raise CapkitError("mia needs a holdout of at least 2 records")
    from sklearn.metrics import f1_score, precision_score, recall_score  # imported when used
    from threadpoolctl import threadpool_limits

    state = legacy_state(seed)
    order = range(real.cat.shape[1]) if cat_order is None else cat_order
    x_real, x_syn, x_hold = _features([real, synthetic, holdout], order)
    n_h, n_s, n_r = len(holdout), len(synthetic), len(real)
    n_test = math.ceil(0.25 * n_h)
    n_train = n_h - n_test
    scores: dict[str, list[float]] = {"precision": [], "recall": [], "f1": []}
    for _ in range(int(num_eval_iter)):
        perm = state.permutation(n_h)
        test_rows, train_rows = perm[:n_test], perm[n_test:]
        drawn = (state.randint(0, n_s, n_train) if n_s < n_train
                 else state.permutation(n_s)[:n_train])
        x_train = np.concatenate([x_syn[drawn], x_hold[train_rows]])
        y_train = np.concatenate([np.ones(n_train, dtype=np.int64),
                                  np.zeros(n_train, dtype=np.int64)])
        shuffle = np.arange(2 * n_train)
        state.shuffle(shuffle)
        x_train, y_train = x_train[shuffle], y_train[shuffle]
        if n_r < n_test:
            members = np.arange(n_r)
            outsiders = test_rows[state.permutation(n_test)[:n_r]]
        else:
            members = state.permutation(n_r)[:n_test]
            outsiders = test_rows
        x_test = np.concatenate([x_real[members], x_hold[outsiders]])
        y_test = np.concatenate([np.ones(len(members), dtype=np.int64),
                                 np.zeros(len(outsiders), dtype=np.int64)])
        with threadpool_limits(1):  # one thread: fast on a shared machine
            predicted = _model(classifier).fit(x_train, y_train).predict(x_test)
        scores["precision"].append(precision_score(y_test, predicted, zero_division=0))
        scores["recall"].append(recall_score(y_test, predicted, zero_division=0))
        scores["f1"].append(f1_score(y_test, predicted, average="macro", zero_division=0))
    out = {}
    for key, name in (("precision", "MIA precision"), ("recall", "MIA recall"),
                      ("f1", "MIA macro F1")):
        values = scores[key]
        out[name] = float(np.mean(values))
        out[name + " se"] = (float("nan") if num_eval_iter < 2
                             else float(np.std(values, ddof=1) / np.sqrt(num_eval_iter)))
    return out


__all__ = ["CLASSIFIERS", "mia_classifier"]
