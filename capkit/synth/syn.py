"""Sequential CART synthesis: the driver of synthpop 1.9-2's ``syn()`` (default method "cart").

Nowok, Raab & Dibben (2016), *synthpop: Bespoke creation of synthetic data in R*, and the spec
``synthpop-syn-cart.md``: the first variable of the visit sequence is a bootstrap of its marginal
("sample"); every later variable is drawn from a CART model fitted on the original data with the
variables before it as predictors and evaluated on the already synthesised values (sections 2-4).
The plan (types, methods, predictors, v.NA / v.0) is :mod:`capkit.synth.prepare`; each tree is
rpart's own (:mod:`capkit.synth.cart`). The trees depend only on the original data, so they are
fitted once and shared by the m syntheses (synthpop refits them for each; ``proper=True``, whose
bootstrap is random, fits per synthesis). Random draws follow the fixed order of spec 7.3 from
one ``numpy.random.Generator`` seeded once, so the same inputs give the same syntheses.
"""

from __future__ import annotations

import secrets
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from capkit.errors import CapkitError
from capkit.synth import cart
from capkit.synth.prepare import NATEMP, Plan, check_args, plan
from capkit.synth.result import SynResult
from capkit.synth.screening import lindep
from capkit.synth.smoothing import smooth


@dataclass
class _Model:
    """What a working variable is drawn from: its available y and, for "cart", the tree."""

    method: str                    # "cart" or "sample" (no usable predictor)
    y: np.ndarray                  # the training y, in the order of the training records
    preds: np.ndarray              # working indices of the predictors the tree uses
    tree: cart.Tree | None = None
    classes: np.ndarray | None = None


def syn(data: pd.DataFrame, m: int = 1, seed: int | None = None, method: str = "cart",
        visit_sequence: list | None = None, cont_na: dict | None = None,
        k: int | None = None, minbucket: int = 5, smoothing: str | dict | None = None, *,
        cp: float = 1e-8, proper: bool = False, max_exhaustive: int = cart.MAX_EXHAUSTIVE,
        models: bool = False, progress: bool = True) -> SynResult:
    """Synthesise ``data`` m times by sequential CART (synthpop's ``syn()``, spec sections 2-4).

    Parameters
    ----------
    data
        The original data: numeric, categorical (ordered or not), string or boolean columns.
        An ordered categorical is split by rpart as a number (its level codes), as R does with
        an ordered factor.
    m
        Number of synthetic data sets (>= 1), all drawn from one random stream.
    seed
        Integer seed; None draws one (stored in the result).
    method
        "cart" (the only model method; the first visited variable always gets "sample").
    visit_sequence
        Column names (or 0-based positions) in synthesis order; default: data column order.
        Columns left out are not synthesised (method "") and keep their original values.
    cont_na
        ``{column: [codes]}``: special values of numeric columns (e.g. ``{"income": [-8]}``),
        synthesised as categories with the missing values (spec 2.7). Every code must occur.
    k
        Rows per synthetic set (default: as many as ``data``).
    minbucket
        rpart's minimum leaf size (minsplit is 3 x minbucket; cp = ``cp``).
    smoothing
        None, "spline" or "rmean", for all numeric columns or as ``{column: ...}``.
    proper
        Fit every model to a bootstrap sample of the original records.
    max_exhaustive
        Largest number of levels of a factor predictor, present in a node, that gets rpart's
        exhaustive subset search for a 3+ class target; above it a heuristic is used (rpart
        itself would not finish) and the variable's tree may differ from rpart's: a warning
        names it.
    models
        Keep the fitted trees in :attr:`SynResult.models` (one set, shared by the m syntheses).
    progress
        tqdm progress bar over syntheses and variables.

    Returns
    -------
    SynResult
    """
    check_args(data, m, k, minbucket)
    if method != "cart":
        raise CapkitError(f"method must be 'cart', got {method!r}")
    p = plan(data, k, visit_sequence, cont_na, smoothing)
    if seed is None:
        seed = secrets.randbelow(10 ** 9) + 1
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise CapkitError(f"seed must be an integer or None, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    init_rows = np.arange(p.n) if p.k == p.n else rng.integers(0, p.n, size=p.k)
    settings = {"minbucket": int(minbucket), "cp": float(cp),
                "max_exhaustive": int(max_exhaustive)}
    orders: dict[int, np.ndarray] = {}  # root orders of the working columns, shared by fits
    shared = None if proper else {w: _fit(p, w, None, settings, orders) for w in p.steps
                                  if p.wvars[w].method in ("cart", "sample")}
    out_frames, fits = [], []
    bar = tqdm(total=m * len(p.steps), desc="syn", unit="var", disable=not progress)
    try:
        for _ in range(m):
            Xs = p.Xo[init_rows].copy()
            used = {}
            for w in p.steps:
                bar.set_postfix_str(p.wvars[w].name, refresh=False)
                used[w] = _synthesise(p, w, Xs, rng, shared, proper, settings)
                bar.update(1)
            fits.append(used)
            out_frames.append(_output(data, p, Xs, init_rows))
    finally:
        bar.close()
    kept = None
    if models:
        sets = [{p.wvars[w].name: f.tree for w, f in used.items()
                 if f is not None and f.tree is not None} for used in fits]
        kept = sets if proper else sets[0]
    return SynResult(
        syn=out_frames, m=int(m), n=p.n, k=p.k, seed=int(seed), method=p.meth,
        visit_sequence=p.visit, predictor_matrix=p.pred_matrix,
        cont_na={c: (list(p.cont[c]) if not np.isscalar(p.cont[c]) else [p.cont[c]])
                 if c in p.cont else None for c in p.cols},
        smoothing=p.smooth, proper=proper, expanded=p.expanded(), models=kept,
    )


def _tree_kinds(p: Plan, preds: np.ndarray) -> np.ndarray:
    """cart.NUMERIC / ORDERED / FACTOR for the working predictors ``preds``."""
    return np.array([cart.NUMERIC if not p.is_cat[q]
                     else cart.ORDERED if p.wvars[q].ordered else cart.FACTOR for q in preds],
                    dtype=np.int64)


def _fit(p: Plan, w: int, boot: np.ndarray | None, settings: dict,
         orders: dict[int, np.ndarray] | None = None) -> _Model:
    """Fit working variable ``w``'s model on the available original records (spec 4.1-4.3).

    ``orders`` keeps the root order of each working column fitted on every original record
    (no bootstrap, no v.NA rule): the later fits that use it as a predictor take it from there
    instead of sorting it again."""
    v = p.wvars[w]
    avail = np.ones(p.n, dtype=bool) if v.rule_var < 0 else p.Xo[:, v.rule_var] == v.rule_code
    yo = p.Xo[avail, w]
    preds = np.array(v.preds, dtype=np.int64)
    if v.method == "sample":
        return _Model("sample", yo if boot is None else yo[boot], preds[:0])
    x_fit = p.Xo[avail][:, preds]
    keep = lindep(x_fit, yo)
    if not len(keep):
        warnings.warn(f"no usable predictor for {v.name!r}; sampled instead", stacklevel=4)
        return _Model("sample", yo if boot is None else yo[boot], preds[:0])
    preds, x_fit = preds[keep], x_fit[:, keep]
    if boot is not None:
        yo, x_fit = yo[boot], x_fit[boot]
    names = [p.wvars[q].name for q in preds]
    kinds = _tree_kinds(p, preds)
    roots = None
    if orders is not None and boot is None and v.rule_var < 0:
        for q, kind in zip(preds, kinds, strict=True):
            if kind != cart.FACTOR and q not in orders:
                orders[q] = cart.root_order(p.Xo[:, q], kind)
        rows = np.arange(p.n)
        roots = np.stack([orders[q] if kind != cart.FACTOR else rows
                          for q, kind in zip(preds, kinds, strict=True)])
    if p.is_cat[w]:
        classes, ycode = np.unique(yo.astype(np.int64), return_inverse=True)
        tree = cart.fit(x_fit, kinds, p.nlev[preds], ycode, True, n_classes=len(classes),
                        predictors=names, orders=roots, **settings)
    else:
        classes = None
        tree = cart.fit(x_fit, kinds, p.nlev[preds], yo, False, predictors=names,
                        orders=roots, **settings)
    if not tree.exact:
        warnings.warn(f"the tree of {v.name!r} may differ from rpart's: a factor predictor has "
                      f"more than {settings['max_exhaustive']} levels in a node, too many for "
                      "rpart's exhaustive subset search (a heuristic was used)", stacklevel=4)
    return _Model("cart", yo, preds, tree, classes)


def _synthesise(p: Plan, w: int, Xs: np.ndarray, rng: np.random.Generator,
                shared: dict[int, _Model] | None, proper: bool, settings: dict
                ) -> _Model | None:
    """Synthesise working variable ``w`` into ``Xs`` (in place); returns the model used."""
    v = p.wvars[w]
    Xo, n, k = p.Xo, p.n, len(Xs)
    if v.method == "constant":
        col = Xo[:, w]
        if k <= n:
            Xs[:, w] = col[:k]
        else:
            vals, cnt = np.unique(col[~np.isnan(col)] if not p.is_cat[w] else col,
                                  return_counts=True)
            Xs[:, w] = np.concatenate([col, np.full(k - n, vals[np.argmax(cnt)])])
        return None
    if v.method == "collinear":
        lead = v.leader
        first = pd.Index(Xo[:, lead]).drop_duplicates(keep="first")
        first_pos = pd.Series(np.arange(n), index=Xo[:, lead]).groupby(level=0, dropna=False
                                                                        ).first()
        idx = first.get_indexer(Xs[:, lead])
        src = first_pos.reindex(first[np.maximum(idx, 0)]).to_numpy()
        Xs[:, w] = np.where(idx >= 0, Xo[src.astype(np.int64), w], np.nan)
        return None
    target = np.ones(k, dtype=bool)
    if v.rule_var >= 0:
        target = Xs[:, v.rule_var] == v.rule_code
        Xs[~target, w] = 0.0
    tgt = np.flatnonzero(target)
    if not len(tgt):
        return None
    if proper:
        n_avail = n if v.rule_var < 0 else int((Xo[:, v.rule_var] == v.rule_code).sum())
        model = _fit(p, w, rng.integers(0, n_avail, size=n_avail), settings)
    else:
        model = shared[w]
    if model.method == "sample":
        draw = model.y[rng.integers(0, len(model.y), size=len(tgt))]
        if v.smoothing and not p.is_cat[w]:
            draw = smooth(draw, v.smoothing, model.y)
        Xs[tgt, w] = draw
        return model
    tree = model.tree
    node = tree.route(Xs[np.ix_(tgt, model.preds)])
    if p.is_cat[w]:
        counts = tree.counts[node]
        cum = np.cumsum(counts, axis=1)
        u = rng.random(len(tgt)) * cum[:, -1]
        cls = np.minimum((u[:, None] >= cum).sum(1), len(model.classes) - 1)
        Xs[tgt, w] = model.classes[cls]
        return model
    stopped = np.unique(node[tree.left[node] >= 0])
    for s in stopped:  # one random descent per distinct stopping node (node order)
        cur = s
        while tree.left[cur] >= 0:
            cur = tree.left[cur] if rng.random() < 0.5 else tree.right[cur]
        node[node == s] = cur
    leaf_train = tree.leaf_row
    order = np.argsort(leaf_train, kind="stable")
    donors = model.y[order]
    sizes = np.bincount(leaf_train, minlength=len(tree.left))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    uniq, first = np.unique(node, return_index=True)
    appearance = np.empty(len(tree.left), dtype=np.int64)
    appearance[uniq[np.argsort(first)]] = np.arange(len(uniq))
    perm = np.argsort(appearance[node], kind="stable")  # leaf by leaf, first appearance
    leaves = node[perm]
    u = rng.integers(0, sizes[leaves])
    draw = np.empty(len(tgt))
    draw[perm] = donors[starts[leaves] + u]
    if v.smoothing:
        draw = smooth(draw, v.smoothing, model.y)
    Xs[tgt, w] = draw
    return model


def _output(data: pd.DataFrame, p: Plan, Xs: np.ndarray, init_rows: np.ndarray) -> pd.DataFrame:
    """The synthetic working frame back to the input's columns, dtypes and levels (spec 2.10)."""
    cols, kind, levels, num_as_cat, padded = p.cols, p.kind, p.levels, p.num_as_cat, p.padded
    windex, meth, k = p.windex, p.meth, p.k
    out = {}
    for c in cols:
        s = data[c]
        if meth[c] == "":
            out[c] = s.iloc[init_rows].reset_index(drop=True)
            continue
        if c in padded:
            info = padded[c]
            na = Xs[:, info["na"]].astype(np.int64)
            lev = info["levels"]
            special = np.array([np.nan if lv == NATEMP else float(lv) for lv in lev])
            x = np.where(na == info["cv_code"], Xs[:, info["zero"]], special[na])
        else:
            x = Xs[:, windex[c]]
        if c in num_as_cat:
            x = np.where(x.astype(np.int64) == 1, np.nan, levels[c][0])
        if kind[c] == "cat" and c not in num_as_cat:
            codes = x.astype(np.int64)
            lev = levels[c]
            if lev and lev[-1] == NATEMP:
                codes = np.where(codes == len(lev) - 1, -1, codes)
                lev = lev[:-1]
            if isinstance(s.dtype, pd.CategoricalDtype):
                out[c] = pd.Series(pd.Categorical.from_codes(codes, dtype=s.dtype))
            else:
                arr = np.array(lev + [None], dtype=object)[codes]
                ser = pd.Series(arr, dtype=object)
                if pd.api.types.is_bool_dtype(s.dtype) and not (codes < 0).any():
                    ser = ser.astype(bool)
                elif not pd.api.types.is_bool_dtype(s.dtype) and s.dtype != object:
                    ser = ser.astype(s.dtype)
                out[c] = ser
        else:
            ser = pd.Series(x)
            try:
                out[c] = ser.astype(s.dtype) if not np.isnan(x).any() or s.hasnans else ser
            except (TypeError, ValueError):
                out[c] = ser
    # every column already has the index 0..k-1: its values need no alignment
    return pd.DataFrame({c: out[c].array for c in cols}, index=pd.RangeIndex(k), columns=cols)
