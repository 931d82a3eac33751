"""scikit-learn's random forests, fitted and applied without their per-tree Python overhead.

``RandomForestClassifier.fit`` and ``RandomForestRegressor.fit`` (Breiman, "Random forests",
Machine Learning 45, 2001; scikit-learn's implementation) spend most of a small fit outside the
tree builder: each of the 100 trees is cloned, has its parameters read through ``inspect``,
validates its targets and weights again and is dispatched through joblib, which on the key
combinations of an attribute attack (a few hundred to a few thousand weighted cells) costs
several times the building. :func:`fit` runs the same steps with the same compiled objects of
scikit-learn (``Tree``, ``DepthFirstTreeBuilder``, the criterion and ``BestSplitter``) and the
same random draws in the same order:

* tree ``t``'s seed is the forest's ``RandomState(random_state).randint(2**31 - 1)``, drawn
  once per tree in order (``sklearn.ensemble._base._set_random_states``);
* its bootstrap is ``RandomState(seed).randint(0, n, n)`` without sample weights and
  ``RandomState(seed).choice(n, n, p=w / w.sum())`` with them, the tree's weights the counts of
  the drawn rows (``_parallel_build_trees``, scikit-learn 1.9);
* its splitter draws from a second ``RandomState(seed)`` (``BaseDecisionTree._fit``).

Building a ``RandomState`` costs more than growing a small tree; two generators re-seeded per
tree are in the same states, and the weighted bootstrap is ``choice``'s own computation (uniform
draws looked up in the cumulative shares) with its checks of the shares made once.

A classifier with the Gini criterion fitted on records (no sample weights: RAPID's and the
"ranger" attacker's forests) is grown by
:func:`capkit.attacks._forest_kernel.grow`, scikit-learn's builder, splitter and criterion
written out in one compiled function (the same draws, splits, values and node order; each
feature's values ranked once per forest instead of sorted at every node), and handed to
scikit-learn's ``Tree`` as unpickling does; weighted fits (:data:`GROW_WEIGHTED`), other
criteria and regressors go through scikit-learn's compiled builder.

So the trees are scikit-learn's node for node, and :meth:`Forest.predict_proba` and
:meth:`Forest.predict` add the trees' leaf values in tree order and divide by the number of
trees, as ``predict_proba`` / ``predict`` do (``all_proba += proba`` under a lock, then
``/= n_estimators``): the same bits. The steps are scikit-learn 1.9's; with another version, or
a parameter the shortcut does not cover (out-of-bag scores, class weights, ``max_samples``,
pruning, monotonic constraints, missing values, sparse input), :func:`fit` returns None and the
caller fits the estimator itself. tests/test_fast_forest.py compares trees and predictions with
scikit-learn's.
"""

from __future__ import annotations

import numbers
from math import ceil

import numpy as np
import sklearn
from scipy.sparse import issparse
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.utils import check_random_state

from capkit.attacks import _forest_kernel as _kernel

try:  # private modules of scikit-learn: the shortcut is off when they move
    from sklearn.tree._classes import CRITERIA_CLF, CRITERIA_REG, DENSE_SPLITTERS
    from sklearn.tree._tree import NODE_DTYPE, DepthFirstTreeBuilder, Tree
except ImportError:  # pragma: no cover - another scikit-learn layout
    Tree = None

#: scikit-learn versions (major.minor) whose forest fitting :func:`fit` repeats.
VERIFIED = ("1.9",)
_MAX_INT = np.iinfo(np.int32).max
#: Whether forests fitted with sample weights are grown by the compiled grower too.
GROW_WEIGHTED = False


def _version_ok() -> bool:
    return Tree is not None and ".".join(sklearn.__version__.split(".")[:2]) in VERIFIED


def _covered(model: object) -> bool:
    if type(model) not in (RandomForestClassifier, RandomForestRegressor):
        return False
    p = model.get_params()
    criteria = CRITERIA_CLF if type(model) is RandomForestClassifier else CRITERIA_REG
    return (p["bootstrap"] is True and p["oob_score"] is False and p["warm_start"] is False
            and p.get("class_weight") is None and p["max_samples"] is None
            and p["max_leaf_nodes"] is None and p["ccp_alpha"] == 0.0
            and p["monotonic_cst"] is None and isinstance(p["criterion"], str)
            and p["criterion"] in criteria and p["criterion"] != "poisson")


class Forest:
    """The fitted trees of a random forest (``trees``: scikit-learn ``Tree`` objects, in the
    forest's order), with ``classes_`` for a classifier."""

    def __init__(self, trees: list, classes: np.ndarray | None, n_features: int) -> None:
        self.trees = trees
        self.classes_ = classes
        self.n_features_in_ = n_features

    def _x(self, x: object) -> np.ndarray:
        x = np.asarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != self.n_features_in_:
            raise ValueError(f"X has shape {x.shape}, the forest was fitted on "
                             f"{self.n_features_in_} features")
        return x

    def predict_proba(self, x: object) -> np.ndarray:
        """Class probabilities: the trees' leaf shares added in tree order, divided by the
        number of trees (``RandomForestClassifier.predict_proba``)."""
        x = self._x(x)
        k = len(self.classes_)
        out = np.zeros((x.shape[0], k), dtype=np.float64)
        for tree in self.trees:
            out += tree.predict(x)[:, :k]
        out /= len(self.trees)
        return out

    def predict(self, x: object) -> np.ndarray:
        """The class of largest probability (the first on ties), or the regression value: the
        trees' leaf values added in tree order, divided by the number of trees."""
        if self.classes_ is not None:
            return self.classes_.take(np.argmax(self.predict_proba(x), axis=1), axis=0)
        x = self._x(x)
        out = np.zeros(x.shape[0], dtype=np.float64)
        for tree in self.trees:
            out += tree.predict(x)[:, 0]
        out /= len(self.trees)
        return out


def _tree(n_features: int, n_classes: np.ndarray, grown: tuple) -> Tree:
    """scikit-learn's ``Tree`` holding the arrays of :func:`capkit.attacks._forest_kernel.grow`
    (set as unpickling sets them), so that it predicts by scikit-learn's own code."""
    raw, value, depth = grown
    nodes = raw.view(NODE_DTYPE).reshape(-1)
    tree = Tree(n_features, n_classes, 1)
    tree.__setstate__({"max_depth": int(depth), "node_count": len(value), "nodes": nodes,
                       "values": value[:, None, :]})
    return tree


def _ranked(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each value's rank among its feature's distinct values, (rows, features), and the
    distinct values (float32, increasing) one feature after another with their offsets."""
    n, p = x.shape
    ranks = np.empty((n, p), dtype=np.int32)
    values, offsets = [], [0]
    for f in range(p):
        distinct, ranks[:, f] = np.unique(x[:, f], return_inverse=True)
        values.append(distinct)
        offsets.append(offsets[-1] + len(distinct))
    return ranks, np.concatenate(values), np.asarray(offsets, dtype=np.int64)


def _max_features(value: object, n_features: int) -> int:
    if isinstance(value, str):
        return max(1, int(np.sqrt(n_features) if value == "sqrt" else np.log2(n_features)))
    if value is None:
        return n_features
    if isinstance(value, numbers.Integral):
        return int(value)
    return max(1, int(value * n_features)) if value > 0.0 else 0


def fit(model: object, x: object, y: object, sample_weight: object = None) -> Forest | None:
    """``model.fit(x, y, sample_weight)`` for a ``RandomForestClassifier`` or
    ``RandomForestRegressor`` whose fitting the module repeats (module docstring), as a
    :class:`Forest`; None when it does not (the caller then fits ``model``). ``model`` itself
    is not fitted or changed."""
    if not _version_ok() or not _covered(model) or issparse(x):
        return None
    p = model.get_params()
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim != 2 or not np.isfinite(x).all():
        return None  # scikit-learn's own checks and its missing-value splits
    n, n_features = x.shape
    classifier = type(model) is RandomForestClassifier
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n or (classifier and y.dtype.kind not in "iub"):
        return None
    if classifier:
        classes, codes = np.unique(y, return_inverse=True)
        y_fit = np.ascontiguousarray(codes.reshape(-1, 1), dtype=np.float64)
        n_classes = np.array([len(classes)], dtype=np.intp)
    else:
        classes = None
        y_fit = np.ascontiguousarray(y.reshape(-1, 1), dtype=np.float64)
        n_classes = np.array([1], dtype=np.intp)
    if sample_weight is not None:
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        if sample_weight.shape != (n,):
            return None
        share = sample_weight / np.sum(sample_weight)
        # RandomState.choice(n, n, replace=True, p=share) draws random_sample(n) and finds each
        # in the cumulative shares (numpy's legacy sampler); its checks of p run once here
        if not (np.all(share >= 0) and abs(np.sum(share) - 1.0) <= np.sqrt(np.finfo(float).eps)):
            return None
        cdf = share.cumsum()
        cdf /= cdf[-1]
    min_samples_leaf = p["min_samples_leaf"]
    if not isinstance(min_samples_leaf, numbers.Integral):
        min_samples_leaf = ceil(min_samples_leaf * n)
    min_samples_split = p["min_samples_split"]
    if not isinstance(min_samples_split, numbers.Integral):
        min_samples_split = max(2, ceil(min_samples_split * n))
    min_samples_split = max(min_samples_split, 2 * min_samples_leaf)
    max_depth = _MAX_INT if p["max_depth"] is None else p["max_depth"]
    max_features = _max_features(p["max_features"], n_features)
    random_state = check_random_state(p["random_state"])
    # the compiled grower (_forest_kernel) for forests on records (unweighted); on weighted
    # cells of one-hot keys scikit-learn's builder was as fast or faster (measured), and the
    # trees are the same either way
    grown = classifier and p["criterion"] == "gini" and (sample_weight is None or GROW_WEIGHTED)
    if grown:
        ranks, values, offsets = _ranked(x)
        codes = np.ascontiguousarray(codes, dtype=np.int64)
    # RandomState(seed) for the bootstrap and another for the splitter, as scikit-learn makes
    # them; re-seeding two generators gives the same states without building new ones
    draws, splits = np.random.RandomState(0), np.random.RandomState(0)
    trees = []
    for _ in range(p["n_estimators"]):
        seed = random_state.randint(_MAX_INT)
        draws.seed(seed)
        splits.seed(seed)
        if sample_weight is None:
            rows = draws.randint(0, n, n)
            weight = np.bincount(rows.astype(np.int32), minlength=n).astype(np.float64)
        else:  # the draws u with cdf[k - 1] <= u < cdf[k] pick row k (searchsorted "right"):
            u = np.sort(draws.random_sample(n))  # count them, from the sorted draws
            weight = np.diff(u.searchsorted(cdf, side="left"), prepend=0).astype(np.float64)
        min_weight_leaf = p["min_weight_fraction_leaf"] * np.sum(weight)
        if grown:  # Splitter.init draws the seed of its own generator first
            state = np.array([splits.randint(0, _MAX_INT)], dtype=np.int64)
            trees.append(_tree(n_features, n_classes, _kernel.grow(
                x, ranks, values, offsets, codes, weight, state, len(classes), max_features,
                min_samples_split, min_samples_leaf, min_weight_leaf, max_depth,
                p["min_impurity_decrease"])))
            continue
        criterion = (CRITERIA_CLF[p["criterion"]](1, n_classes) if classifier
                     else CRITERIA_REG[p["criterion"]](1, n))
        splitter = DENSE_SPLITTERS["best"](criterion, max_features, min_samples_leaf,
                                           min_weight_leaf, splits, None)
        tree = Tree(n_features, n_classes, 1)
        DepthFirstTreeBuilder(splitter, min_samples_split, min_samples_leaf, min_weight_leaf,
                              max_depth, p["min_impurity_decrease"]).build(
            tree, x, y_fit, weight, None)
        trees.append(tree)
    return Forest(trees, classes, n_features)


__all__ = ["VERIFIED", "Forest", "fit"]
