"""One CART model as rpart 4.1 grows it for synthpop's ``syn.cart``: fit, inspect, route records.

The tree is grown by the compiled kernel :mod:`capkit.synth._rpart_kernel` (rpart's rules,
operation for operation; see there). Settings as synthpop passes them to rpart: ``minbucket``
(default 5), ``minsplit = 3 x minbucket``, ``cp`` (1e-8), ``maxdepth = 30``; "anova" for a
numeric y, "class" (Gini, priors = observed class frequencies, 0/1 loss) for a categorical y.

An ordered categorical predictor is a number to rpart (its level codes, cut between them); an
unordered one is split into two groups of levels. Nodes are numbered as in rpart (children of
node k are 2k and 2k + 1), so :attr:`Tree.training_leaves` can be compared with rpart's
``fit$where`` mapped to node numbers.

Routing new records (rpart's ``predict``, spec section 4.4): ``x < cut`` takes the recorded side
(for an ordered categorical, as R's table of its levels has it: codes <= floor(cut)); a level
takes its recorded side; a level absent from the node's training records goes to the child with
more training records and stops at the node on a tie. Documented deviation: rpart
tries up to five surrogate splits before that majority rule; they are not computed here (they
never affect the training partition, only where such rare synthetic records are routed).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.counts.runs import concatenated_ranges
from capkit.errors import CapkitError
from capkit.synth import _rpart_kernel

MINSPLIT_FACTOR = 3
MAXDEPTH = 30
#: Factor levels present in a node up to which a 3+ class y gets the exhaustive subset search.
MAX_EXHAUSTIVE = 20

#: Predictor kinds: a number, an ordered categorical (a number to rpart), an unordered one.
NUMERIC, ORDERED, FACTOR = 0, 1, 2


@dataclass
class Tree:
    """A fitted tree, one row per node in rpart's depth-first order (root first).

    Attributes
    ----------
    method
        "anova" or "class".
    predictors
        Predictor names, in the column order the tree saw them.
    kinds, nlev
        Per predictor: NUMERIC / ORDERED / FACTOR, and the number of levels (0 for numbers).
    node
        rpart's node number of each row.
    left, right
        Row of each child (-1 for a leaf).
    var
        Split predictor (index into ``predictors``; -1 for a leaf).
    cut
        Numeric and ordered splits: the cut point (level codes counted from 1 for ordered).
    direction
        (nodes, max levels) int8. Numeric / ordered splits: column 0 is the side of ``x < cut``
        (-1 left, +1 right). Factor splits: per level -1 left, +1 right, 0 absent from the node.
    n, dev, complexity, improve
        Training records, deviance (risk), rpart's complexity and the split's improvement.
    counts
        Class counts per node ("class"; empty otherwise).
    training_leaves
        rpart node number of the leaf of every training record, in the order of the rows used.
    leaf_row
        The same leaves as rows of this table.
    exact
        False when a node needed the many-level heuristic instead of rpart's exhaustive search
        (``max_exhaustive``), so the tree may differ from rpart's.
    """

    method: str
    predictors: list[str]
    kinds: np.ndarray
    nlev: np.ndarray
    node: np.ndarray
    left: np.ndarray
    right: np.ndarray
    var: np.ndarray
    cut: np.ndarray
    direction: np.ndarray
    n: np.ndarray
    dev: np.ndarray
    complexity: np.ndarray
    improve: np.ndarray
    counts: np.ndarray
    training_leaves: np.ndarray
    leaf_row: np.ndarray
    exact: bool = True

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return int((self.left < 0).sum())

    def splits(self) -> pd.DataFrame:
        """One row per node: number, split variable ("<leaf>"), size, deviance, complexity,
        improvement, and the cut point (numbers, ordered categoricals) and / or the levels
        sent left and right (categoricals; codes from 0)."""
        rows = []
        for i in range(len(self.node)):
            v = int(self.var[i])
            row = {"node": int(self.node[i]), "n": int(self.n[i]), "dev": float(self.dev[i]),
                   "complexity": float(self.complexity[i])}
            if v < 0:
                row["var"] = "<leaf>"
            else:
                row["var"] = self.predictors[v]
                row["improve"] = float(self.improve[i])
                if self.kinds[v] == FACTOR:
                    d = self.direction[i, : self.nlev[v]]
                    row["left_levels"] = tuple(np.flatnonzero(d == -1).tolist())
                    row["right_levels"] = tuple(np.flatnonzero(d == 1).tolist())
                else:
                    row["cut"] = float(self.cut[i])
                    row["left_if"] = "x < cut" if self.direction[i, 0] == -1 else "x >= cut"
                if self.kinds[v] == ORDERED:  # as R prints it: the levels (codes from 0)
                    below = np.arange(self.nlev[v]) + 1 <= np.floor(self.cut[i])
                    goes_left = below if self.direction[i, 0] == -1 else ~below
                    row["left_levels"] = tuple(np.flatnonzero(goes_left).tolist())
                    row["right_levels"] = tuple(np.flatnonzero(~goes_left).tolist())
            rows.append(row)
        return pd.DataFrame(rows)

    def route(self, X: np.ndarray) -> np.ndarray:
        """Row of the node where each record of ``X`` ends: a leaf, or an internal node where
        an absent level meets two children of equal size (spec 4.4).

        ``X`` holds the predictors in :attr:`predictors` order, categorical ones as level
        codes counted from 0.
        """
        xk = _kernel_codes(X, self.kinds)
        is_factor = self.kinds == FACTOR
        # R's predict sends level codes <= floor(cut) of an ordered split the "x < cut" way
        ordered = (self.var >= 0) & (self.kinds[np.maximum(self.var, 0)] == ORDERED)
        cut = np.where(ordered, np.floor(self.cut) + 1.0, self.cut)
        return _rpart_kernel.route(np.ascontiguousarray(xk), self.left, self.right, self.var,
                                   cut, self.direction, is_factor, self.n)


def _kernel_codes(X: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Categorical codes counted from 1, as rpart sees factors (numbers unchanged)."""
    Xk = np.array(X, dtype=float, copy=True)
    cat = kinds != NUMERIC
    Xk[:, cat] += 1.0
    return Xk


def altered_priors(y: np.ndarray, n_classes: int) -> np.ndarray:
    """rpart's altered priors for priors = observed frequencies and 0/1 loss (``gini.c``'s
    initialisation), computed in the same order so that they round the same way."""
    if n_classes < 2:  # a pure root is never split: the priors are not used
        return np.ones(max(n_classes, 1))
    counts = np.bincount(y.astype(np.int64), minlength=n_classes).astype(float)
    n = float(len(y))
    prior = counts / n                       # R: counts / sum(counts)
    freq = counts / n                        # C: relative frequency
    # loss[i, j] * prior[i] with 0/1 loss, summed in C's loop order: accumulate (unlike sum) adds
    # one term after the other, as the loops over i, then j, do
    terms = np.where(np.eye(n_classes, dtype=bool), 0.0, prior[:, None])
    temp = np.add.accumulate(terms.ravel())[-1]
    aprior = np.add.accumulate(terms, axis=1)[:, -1]
    return np.divide(aprior, temp * freq, out=aprior.copy(), where=freq > 0)


def fit(X: np.ndarray, kinds: np.ndarray, nlev: np.ndarray, y: np.ndarray, classification: bool,
        *, n_classes: int = 0, minbucket: int = 5, cp: float = 1e-8, maxdepth: int = MAXDEPTH,
        max_exhaustive: int = MAX_EXHAUSTIVE, predictors: list[str] | None = None,
        orders: np.ndarray | None = None) -> Tree:
    """Grow rpart's tree for ``y`` on the predictors ``X`` (n x p).

    Parameters
    ----------
    X
        Numeric predictors as numbers; categorical ones (ordered or not) as level codes from 0.
        No missing values (synthpop's default path never passes any).
    kinds, nlev
        Per predictor: NUMERIC / ORDERED / FACTOR and the number of levels (all levels, used
        or not, as R's factor has them).
    y
        Numeric response ("anova"), or class codes 0..n_classes-1 ("class").
    minbucket, cp, maxdepth
        rpart's settings (minsplit = 3 x minbucket, as rpart sets it when only minbucket is
        given).
    max_exhaustive
        Largest number of levels present in a node for which a factor predictor of a 3+ class
        y gets rpart's exhaustive subset search; above it, a heuristic (see
        :mod:`capkit.synth._rpart_kernel`) and :attr:`Tree.exact` is False.
    orders
        The predictors' root orders (p x n) if the caller has them: :func:`root_order` of
        each predictor that is not a FACTOR, ``arange(n)`` for a FACTOR. Default: computed.
    """
    return fit_many(X, kinds, nlev, [y], classification, n_classes=n_classes,
                    minbucket=minbucket, cp=cp, maxdepth=maxdepth, max_exhaustive=max_exhaustive,
                    predictors=predictors, orders=orders)[0]


def root_order(values: np.ndarray, kind: int) -> np.ndarray:
    """The order rpart sorts one predictor's records in at the root (ties included), as
    :func:`fit` computes it: categorical codes (ordered or not) count from 1, as rpart sees
    them. Fits to several responses on the same predictor may share it."""
    x = np.array(values, dtype=float, copy=True)
    if kind != NUMERIC:
        x += 1.0
    return _rpart_kernel.rpart_order(x)


def fit_many(X: np.ndarray, kinds: np.ndarray, nlev: np.ndarray, ys: list[np.ndarray],
             classification: bool, *, n_classes: int = 0, minbucket: int = 5, cp: float = 1e-8,
             maxdepth: int = MAXDEPTH, max_exhaustive: int = MAX_EXHAUSTIVE,
             predictors: list[str] | None = None, workers: int = 1,
             orders: np.ndarray | None = None) -> list[Tree]:
    """:func:`fit` of every response in ``ys`` on the same predictors (e.g. a permutation
    null's refits to permuted labels): the predictors' codes and the sort order of every
    continuous one are computed once, and the fits run on ``workers`` threads (the kernel
    releases the GIL). Each tree is the one :func:`fit` grows for that response, whatever
    ``workers`` is; they come back in the order of ``ys``. ``orders`` as in :func:`fit`."""
    X = np.asarray(X, dtype=float)
    if np.isnan(X).any():
        raise CapkitError("cart.fit: missing predictor values (rpart would need surrogate "
                          "splits; synthpop's default path never passes any)")
    if not 1 <= int(maxdepth) <= MAXDEPTH:
        raise CapkitError(f"maxdepth must be in 1..{MAXDEPTH} (as in rpart), got {maxdepth}")
    kinds = np.asarray(kinds, dtype=np.int64)
    nlev = np.asarray(nlev, dtype=np.int64)
    n, p = X.shape
    ncat = np.where(kinds == FACTOR, nlev, 0).astype(np.int64)
    Xk = np.ascontiguousarray(_kernel_codes(X, kinds).T)
    roots = (_rpart_kernel.root_orders(Xk, ncat) if orders is None
             else np.ascontiguousarray(orders, dtype=np.int64))
    C = int(n_classes) if classification else 0
    names = list(predictors) if predictors is not None else [f"x{j}" for j in range(p)]

    def one(y: np.ndarray) -> Tree:
        yk = np.ascontiguousarray(y, dtype=float)
        aprior = altered_priors(yk, C) if classification else np.zeros(1)
        (num, lson, rson, var, spoint, csplit, nobs, risk, cplx, improve, counts, r1, r2,
         order0, n_heuristic) = _rpart_kernel.grow_sorted(
            Xk, ncat, yk, bool(classification), C, aprior, MINSPLIT_FACTOR * int(minbucket),
            int(minbucket), float(cp), 2 ** int(maxdepth) - 1, int(max_exhaustive), roots)
        leaf_row = np.empty(n, dtype=np.int64)
        leaves = np.flatnonzero(lson < 0)
        lens = r2[leaves] - r1[leaves]
        leaf_row[order0[concatenated_ranges(lens, r1[leaves])]] = np.repeat(leaves, lens)
        return Tree(
            method="class" if classification else "anova", predictors=list(names),
            kinds=kinds, nlev=nlev, node=num, left=lson, right=rson, var=var, cut=spoint,
            direction=csplit, n=nobs, dev=risk, complexity=cplx, improve=improve,
            counts=counts if classification else np.zeros((len(num), 0)),
            training_leaves=num[leaf_row], leaf_row=leaf_row, exact=n_heuristic == 0,
        )

    if workers <= 1 or len(ys) <= 1:
        return [one(y) for y in ys]
    with ThreadPoolExecutor(max_workers=min(int(workers), len(ys))) as pool:
        return list(pool.map(one, ys))
