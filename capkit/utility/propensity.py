"""Propensity scores of synthetic against original records, and the statistics synthpop reads
from them.

Woo, Reiter, Oganian & Karr, "Global measures of data utility for microdata masked for
disclosure limitation" (2009) and Snoke, Raab, Nowok, Dibben & Slavkovic, "General and specific
utility measures for synthetic data" (2018): stack the synthetic (t = 1) and original (t = 0)
records, fit a model of t, and read how far the fitted propensities p_i are from the synthetic
share c: ``pMSE = sum((p_i - c)^2) / N``. synthpop 1.9-2's ``utility.gen`` adds SPECKS (the
Kolmogorov-Smirnov D between the p of the two files), PO50 (per cent of records the model
classifies right, minus 50) and U (the Wilcoxon W).

The models are synthpop's: ``rpart(t ~ ., method = "class", cp, minbucket)`` (grown by
:func:`capkit.synth.cart.fit`, rpart's own rules; the score of a record is its leaf's share of
synthetic records) or the logit :func:`capkit.utility.glm.fit_logit`
(:func:`capkit.utility.glm_r.fit_logit_r` under ``compat="synthpop"``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.synth import cart
from capkit.utility import glm, glm_r
from capkit.utility.ranks import scores_ks, scores_w


def propensity_pmse(scores: np.ndarray, is_synthetic: np.ndarray,
                    share: float | None = None) -> float:
    """pMSE of fitted propensity scores: ``sum((p - c)^2) / N``.

    This is the one formula every pMSE of capkit uses (synthpop's ``utility.gen``, SDNist's
    propensity pMSE); the model that gives the scores is the caller's.

    Parameters
    ----------
    scores
        Fitted probability that each stacked record is synthetic.
    is_synthetic
        True for the synthetic records.
    share
        c; the synthetic share ``sum(is_synthetic) / N`` when not given (synthpop's ``k.syn``
        uses 0.5).
    """
    p = np.asarray(scores, dtype=float)
    t = np.asarray(is_synthetic, dtype=bool)
    if p.shape != t.shape:
        raise CapkitError(f"scores has {p.shape} values but is_synthetic {t.shape}")
    if len(p) == 0:
        raise CapkitError("scores is empty")
    c = t.mean() if share is None else float(share)
    return float(np.sum((p - c) ** 2) / len(p))


def score_stats(score: np.ndarray, t: np.ndarray, share: float) -> dict[str, float]:
    """pMSE, SPECKS, PO50 and U of propensity scores (``t`` True for synthetic records)."""
    t = np.asarray(t, dtype=bool)
    n = len(score)
    right = ((score > 0.5) & t) | ((score <= 0.5) & ~t)
    return {"pMSE": propensity_pmse(score, t, share), "SPECKS": scores_ks(score, t),
            "PO50": float(right.sum() / n * 100 - 50), "U": scores_w(score, t)}


def stack(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """``rbind(first, second)`` as R does it: a factor's levels are those of ``first``, then the
    levels of ``second`` not among them (a missing-value level is kept where it stands)."""
    out = {}
    for c in first.columns:
        a, b = first[c], second[c]
        if isinstance(a.dtype, pd.CategoricalDtype):
            cats = list(a.cat.categories) + [x for x in b.cat.categories
                                            if x not in set(a.cat.categories)]
            ordered = bool(a.cat.ordered and b.cat.ordered
                           and list(a.cat.categories) == list(b.cat.categories))
            vals = np.concatenate([np.asarray(a.astype(object)), np.asarray(b.astype(object))])
            out[c] = pd.Categorical(vals, categories=cats, ordered=ordered)
        else:
            out[c] = np.concatenate([a.to_numpy(dtype=float), b.to_numpy(dtype=float)])
    return pd.DataFrame(out)


def cart_design(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The predictors of ``rpart(t ~ ., ...)`` for :func:`capkit.synth.cart.fit`: values (factor
    level codes from 0), kinds, levels per column and the column names."""
    names = list(frame.columns)
    X = np.empty((len(frame), len(names)))
    kinds = np.zeros(len(names), dtype=np.int64)
    nlev = np.zeros(len(names), dtype=np.int64)
    for j, c in enumerate(names):
        s = frame[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy()
            if (codes < 0).any():
                raise CapkitError(f"cart propensity model: column {c!r} has missing values "
                                  "(rpart would use surrogate splits)")
            X[:, j] = codes
            kinds[j] = cart.ORDERED if s.cat.ordered else cart.FACTOR
            nlev[j] = len(s.cat.categories)
        else:
            X[:, j] = s.to_numpy(dtype=float)
            kinds[j] = cart.NUMERIC
    return X, kinds, nlev, names


def _leaf_scores(tree: cart.Tree) -> np.ndarray:
    leaf = tree.leaf_row
    return tree.counts[leaf, 1] / tree.n[leaf]


def cart_scores(frame: pd.DataFrame, t: np.ndarray, cp: float, minbucket: int
                ) -> tuple[np.ndarray, cart.Tree]:
    """``predict(rpart(t ~ ., method = "class", control = rpart.control(cp, minbucket)))[, 2]``:
    each record's leaf share of synthetic records."""
    X, kinds, nlev, names = cart_design(frame)
    tree = cart.fit(X, kinds, nlev, np.asarray(t, dtype=np.int64), True, n_classes=2,
                    minbucket=int(minbucket), cp=float(cp), predictors=names)
    return _leaf_scores(tree), tree


def cart_null_pmse(frame: pd.DataFrame, labels: list[np.ndarray], share: float, cp: float,
                   minbucket: int, workers: int = 1) -> np.ndarray:
    """The permutation null of the CART pMSE: for each label vector (permuted t), the tree
    of :func:`cart_scores` refitted to it and ``sum((p - c)^2) / N / 2`` (synthpop's halving).

    The refits share the predictors, so their codes and sort orders are computed once
    (:func:`capkit.synth.cart.fit_many`); they are independent and run on ``workers`` threads.
    Each value is the one a refit by :func:`cart_scores` gives, whatever ``workers`` is.
    """
    X, kinds, nlev, names = cart_design(frame)
    trees = cart.fit_many(X, kinds, nlev, [np.asarray(t, dtype=np.int64) for t in labels],
                          True, n_classes=2, minbucket=int(minbucket), cp=float(cp),
                          predictors=names, workers=workers)
    return np.array([np.sum((_leaf_scores(tree) - share) ** 2) / len(t) / 2
                     for tree, t in zip(trees, labels, strict=True)])


def logit_scores(frame: pd.DataFrame, t: np.ndarray, maxorder: int, maxit: int,
                 compat: str | None = None) -> tuple[np.ndarray, dict]:
    """``fitted(glm(t ~ .^(maxorder + 1), binomial))`` (``t ~ .`` for maxorder 0).

    ``compat="synthpop"`` fits it with R's own arithmetic (:func:`capkit.utility.glm_r.
    fit_logit_r`, the rank decided at every iteration on the weighted matrix, as R does),
    which reproduces R also where its iterations leave the maximum likelihood; otherwise
    :func:`capkit.utility.glm.fit_logit` (the aliased columns found once)."""
    X = glm.model_matrix(frame, maxorder)
    if compat == "synthpop":
        fit = glm_r.fit_logit_r(X, t, maxit=maxit)
    else:
        fit = glm.fit_logit(X, t, maxit=maxit)
    return fit["fitted"], fit
