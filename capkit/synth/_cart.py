"""A small rpart-like CART in numpy, grown level by level (no Python loop over records).

Implements the parts of rpart 4.1 that synthpop's ``syn.cart`` relies on (spec
``synthpop-syn-cart.md`` sections 4.2-4.5):

* anova splitting for a numeric y (between-group sum of squares), Gini splitting for a
  categorical y (priors = observed frequencies, 0/1 loss);
* numeric predictors: boundaries between distinct consecutive values with at least
  ``minbucket`` records on each side, split point the midpoint, ``x < split`` goes one way;
* categorical predictors: categories present in the node ordered by mean y (anova) or by the
  proportion of the first class (2 classes), then the k - 1 ordered splits; for 3 or more
  classes every two-group partition when the predictor has at most ``max_exhaustive`` levels;
* the eligibility rules (minsplit = 3 x minbucket, maxdepth 30, node risk > alpha = cp x root
  risk) and the cost-complexity collapse of subtrees after growth (spec 4.3, steps 1-5);
* routing of new records with strict ``<``, categories absent at a node sent to the child with
  more training records, a tie stopping at the internal node (spec 4.4).

Documented deviations from rpart (spec 7.2):

* **No surrogate splits.** A category absent from a node's training records goes to the larger
  child (rpart would try up to 5 surrogates first).
* **Many-level categorical predictors with a 3+ class y** (more than ``max_exhaustive`` levels):
  instead of all 2^(k-1) - 1 partitions, the k - 1 ordered splits of the orderings by the
  proportion of each of the (up to 8) most frequent classes are searched: a subset of rpart's
  candidates, so a split can be slightly worse than rpart's. rpart's exhaustive search is what
  makes ``syn(adult)`` not finish in R (the oracle README).
* Exhaustive partitions are enumerated in binary, not Gray-code, order (ties only).
* The complexity bounds that rpart passes down during growth are not used to stop growth early;
  the collapse after growth applies the same complexity recursion.
* Floating-point ties between candidate splits can resolve differently (cumulative sums).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MINSPLIT_FACTOR = 3
MAXDEPTH = 30
MAX_HEURISTIC_CLASSES = 8


@dataclass
class Tree:
    """A fitted tree. Node 0 is the root; children always have larger ids than parents."""

    left: np.ndarray        # child ids (-1 for a leaf)
    right: np.ndarray
    var: np.ndarray         # split predictor (-1 for a leaf)
    thr: np.ndarray         # numeric split point (nan for categorical splits)
    lt_left: np.ndarray     # numeric: True when x < thr goes left
    catdir: np.ndarray      # (nodes, max_levels) int8: -1 left, +1 right, 0 no direction
    n: np.ndarray           # training records per node
    counts: np.ndarray      # class counts per node (classification), else (nodes, 0)
    depth: np.ndarray
    classification: bool


def _segment_best(score: np.ndarray, seg: np.ndarray, starts: np.ndarray, nseg: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per segment (rows sorted by segment): the best score and the first position reaching it."""
    best = np.maximum.reduceat(score, starts)
    hit = np.flatnonzero((score == best[seg]) & np.isfinite(score))
    pos = np.full(nseg, -1, dtype=np.int64)
    segs, first = np.unique(seg[hit], return_index=True)
    pos[segs] = hit[first]
    return best, pos


def _ordered_splits(g: np.ndarray, x: np.ndarray, yw: np.ndarray, G: int, minbucket: int,
                    classification: bool):
    """Best split of each node along ordered values ``x`` (rows restricted to eligible nodes).

    ``yw`` is the centred y (anova, shape (N,)) or the one-hot class matrix (N, C).
    Returns gain (G,), split point (G,), all -inf / nan where no split is valid.
    """
    order = np.lexsort((x, g))
    gs, xs = g[order], x[order]
    ns = np.bincount(gs, minlength=G)
    starts = np.concatenate(([0], np.cumsum(ns)[:-1]))
    pos_in = np.arange(len(gs)) - starts[gs]
    nL = pos_in + 1
    nR = ns[gs] - nL
    nxt_same = np.zeros(len(gs), dtype=bool)
    nxt_same[:-1] = gs[:-1] == gs[1:]
    distinct = np.zeros(len(gs), dtype=bool)
    distinct[:-1] = xs[:-1] != xs[1:]
    valid = nxt_same & distinct & (nL >= minbucket) & (nR >= minbucket)
    ys = yw[order]
    cs = np.cumsum(ys, axis=0)
    base_idx = starts - 1
    if classification:
        base = np.where(base_idx[:, None] >= 0, cs[np.maximum(base_idx, 0)], 0.0)
        tot = cs[starts + ns - 1] - base
        cL = cs - base[gs]
        cR = tot[gs] - cL
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (cL ** 2).sum(1) / nL + (cR ** 2).sum(1) / np.where(nR > 0, nR, 1)
            score = score - ((tot ** 2).sum(1) / np.maximum(ns, 1))[gs]
    else:
        base = np.where(base_idx >= 0, cs[np.maximum(base_idx, 0)], 0.0)
        SL = cs - base[gs]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = SL ** 2 / nL + SL ** 2 / np.where(nR > 0, nR, 1)  # node-centred: S_R = -S_L
    score = np.where(valid, score, -np.inf)
    best, pos = _segment_best(score, gs, starts, G)
    thr = np.full(G, np.nan)
    ok = pos >= 0
    thr[ok] = (xs[pos[ok]] + xs[pos[ok] + 1]) / 2.0
    return best, thr


def _cat_ranks(g: np.ndarray, xc: np.ndarray, key: np.ndarray, G: int, K: int) -> np.ndarray:
    """Rank of each (node, category) by ``key`` (G*K array; ties keep level order)."""
    cell = np.arange(G * K)
    order = np.lexsort((cell % K, key, cell // K))
    rank = np.empty(G * K)
    rank[order] = np.arange(G * K) - (cell[order] // K) * K
    return rank


def _exhaustive(g, xc, ycode, G, K, C, minbucket):
    """All two-group partitions (last level fixed right) of a K-level predictor, 3+ classes."""
    q = np.arange(1, 2 ** (K - 1))
    P = ((q[:, None] >> np.arange(K)[None, :]) & 1).astype(float)  # 1 = left
    counts = np.bincount((g * K + xc) * C + ycode, minlength=G * K * C).reshape(G, K, C)
    tot = counts.sum(1)
    ntot = tot.sum(1)
    best = np.full(G, -np.inf)
    bestq = np.full(G, -1)
    chunk = max(1, int(4_000_000 // max(1, len(q) * C)))
    for a in range(0, G, chunk):
        cL = np.einsum("qk,gkc->gqc", P, counts[a:a + chunk])
        cR = tot[a:a + chunk, None, :] - cL
        nL = cL.sum(2)
        nR = cR.sum(2)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (cL ** 2).sum(2) / nL + (cR ** 2).sum(2) / nR
        score = score - ((tot[a:a + chunk] ** 2).sum(1) / np.maximum(ntot[a:a + chunk], 1))[:, None]
        score = np.where((nL >= minbucket) & (nR >= minbucket), score, -np.inf)
        idx = np.argmax(score, axis=1)  # first maximum
        best[a:a + chunk] = score[np.arange(len(idx)), idx]
        bestq[a:a + chunk] = idx
    present = counts.sum(2) > 0
    dirs = np.zeros((G, K), dtype=np.int8)
    okg = np.isfinite(best)
    dirs[okg] = np.where(P[bestq[okg]] == 1, -1, 1)
    dirs[~present] = 0
    return best, dirs


def fit(X: np.ndarray, is_cat: np.ndarray, nlev: np.ndarray, y: np.ndarray, classification: bool,
        *, n_classes: int = 0, minbucket: int = 5, cp: float = 1e-8,
        max_exhaustive: int = 10, maxdepth: int = MAXDEPTH) -> Tree:
    """Grow and collapse an rpart-like tree (spec 4.2-4.3).

    Parameters
    ----------
    X
        (n, p) float predictors; categorical columns hold level codes 0..nlev-1.
    is_cat, nlev
        Per predictor: categorical flag, number of levels.
    y
        numeric (anova) or class codes 0..n_classes-1 (Gini).
    """
    n, p = X.shape
    minsplit = MINSPLIT_FACTOR * minbucket
    C = n_classes
    maxK = int(max([1] + [int(k) for k, c in zip(nlev, is_cat, strict=True) if c]))
    # node storage (python lists of scalars; one entry per node, not per record)
    left, right, var, thr, ltl, depth, nn, risk = [], [], [], [], [], [], [], []
    catdirs: dict[int, np.ndarray] = {}
    counts_l: list[np.ndarray] = []
    means: list[float] = []

    onehot = np.eye(C)[y.astype(np.int64)] if classification else None
    yc = y.astype(np.int64) if classification else y.astype(float)

    def add_node(d):
        left.append(-1)
        right.append(-1)
        var.append(-1)
        thr.append(np.nan)
        ltl.append(True)
        depth.append(d)
        return len(left) - 1

    node_of = np.zeros(n, dtype=np.int64)
    add_node(0)
    frontier = np.array([0])
    alpha = None
    while len(frontier):
        # node statistics for the frontier (vectorised over records)
        sizes = np.bincount(node_of, minlength=len(left))[frontier]
        if classification:
            cnt = np.bincount(node_of * C + yc, minlength=len(left) * C).reshape(-1, C)
            cnt = cnt[frontier].astype(float)
            rk = sizes - cnt.max(1)
            counts_l.extend(cnt)
        else:
            s1 = np.bincount(node_of, weights=yc, minlength=len(left))[frontier]
            s2 = np.bincount(node_of, weights=yc ** 2, minlength=len(left))[frontier]
            mu = s1 / np.maximum(sizes, 1)
            rk = np.maximum(s2 - sizes * mu ** 2, 0.0)
            means.extend(mu)
        nn.extend(sizes)
        risk.extend(rk)
        if alpha is None:
            alpha = cp * rk[0]
        d = np.array([depth[f] for f in frontier])
        elig = frontier[(sizes >= minsplit) & (d < maxdepth) & (rk > alpha)]
        if not len(elig):
            break
        G = len(elig)
        local = np.full(len(left), -1)
        local[elig] = np.arange(G)
        rows = np.flatnonzero(local[node_of] >= 0)
        g = local[node_of[rows]]
        if classification:
            yw = onehot[rows]
        else:
            yw = yc[rows] - np.array(means)[node_of[rows]]
        best_gain = np.full(G, -np.inf)
        best_var = np.full(G, -1)
        best_thr = np.full(G, np.nan)
        best_dir = np.zeros((G, maxK), dtype=np.int8)
        for j in range(p):
            xj = X[rows, j]
            dirs = None
            if not is_cat[j]:
                gain, t = _ordered_splits(g, xj, yw, G, minbucket, classification)
            else:
                K = int(nlev[j])
                xc = xj.astype(np.int64)
                if classification and C >= 3 and K <= max_exhaustive:
                    gain, dirs = _exhaustive(g, xc, yc[rows], G, K, C, minbucket)
                    t = np.full(G, np.nan)
                else:
                    if classification:
                        cc = np.bincount((g * K + xc) * C + yc[rows], minlength=G * K * C)
                        cc = cc.reshape(G * K, C).astype(float)
                        tot = cc.sum(1)
                        with np.errstate(divide="ignore", invalid="ignore"):
                            props = cc / tot[:, None]
                        if C == 2:
                            keys = [props[:, 0]]
                        else:
                            freq = onehot[rows].sum(0)
                            top = np.argsort(-freq, kind="stable")[:MAX_HEURISTIC_CLASSES]
                            keys = [props[:, c] for c in top]
                    else:
                        tot = np.bincount(g * K + xc, minlength=G * K).astype(float)
                        sm = np.bincount(g * K + xc, weights=yw, minlength=G * K)
                        with np.errstate(divide="ignore", invalid="ignore"):
                            keys = [sm / tot]
                    gain = np.full(G, -np.inf)
                    dirs = np.zeros((G, K), dtype=np.int8)
                    present = (tot > 0).reshape(G, K)
                    for key in keys:
                        key = np.where(np.isnan(key), np.inf, key)
                        rank = _cat_ranks(g, xc, key, G, K)
                        gk, tk = _ordered_splits(g, rank[g * K + xc], yw, G, minbucket,
                                                 classification)
                        better = gk > gain
                        if better.any():
                            gain = np.where(better, gk, gain)
                            r = rank.reshape(G, K)
                            new = np.where(r < tk[:, None], -1, 1).astype(np.int8)
                            dirs[better] = new[better]
                    dirs[~present] = 0
                    t = np.full(G, np.nan)
            better = gain > best_gain
            if better.any():
                best_gain = np.where(better, gain, best_gain)
                best_var = np.where(better, j, best_var)
                best_thr = np.where(better, t, best_thr)
                if dirs is not None:
                    best_dir[better, : dirs.shape[1]] = dirs[better]
                    best_dir[better, dirs.shape[1]:] = 0
        top_gain = best_gain[np.isfinite(best_gain)]
        floor = 1e-10 * top_gain.max() if len(top_gain) else 0.0
        split = np.isfinite(best_gain) & (best_gain > 0) & (best_gain > floor)
        if not split.any():
            break
        # route the records of split nodes to their children
        node_rows_split = split[g]
        r2 = rows[node_rows_split]
        g2 = g[node_rows_split]
        v = best_var[g2]
        xv = X[r2, v]
        catsplit = is_cat[v]
        goes_left = np.where(
            catsplit,
            best_dir[g2, np.where(catsplit, xv, 0).astype(np.int64)] == -1,
            xv < best_thr[g2],
        )
        # children: ids in order of the split nodes; left first
        new_frontier = []
        child_left = np.full(G, -1)
        for gi in np.flatnonzero(split):
            nid = elig[gi]
            lc = add_node(depth[nid] + 1)
            rc = add_node(depth[nid] + 1)
            left[nid], right[nid] = lc, rc
            var[nid] = int(best_var[gi])
            thr[nid] = float(best_thr[gi])
            if is_cat[best_var[gi]]:
                catdirs[nid] = best_dir[gi].copy()
            child_left[gi] = lc
            new_frontier += [lc, rc]
        node_of[r2] = np.where(goes_left, child_left[g2], child_left[g2] + 1)
        # rpart puts the side with the lower mean (class-index mean) on the left: swap if needed
        yy = yc[r2].astype(float)
        lsum = np.bincount(g2[goes_left], weights=yy[goes_left], minlength=G)
        lcnt = np.bincount(g2[goes_left], minlength=G)
        rsum = np.bincount(g2[~goes_left], weights=yy[~goes_left], minlength=G)
        rcnt = np.bincount(g2[~goes_left], minlength=G)
        with np.errstate(divide="ignore", invalid="ignore"):
            swap = split & (lsum / lcnt > rsum / rcnt)
        for gi in np.flatnonzero(swap):  # ids keep creation order; only the sides swap
            nid = elig[gi]
            left[nid], right[nid] = right[nid], left[nid]
            ltl[nid] = False
            if nid in catdirs:
                catdirs[nid] = -catdirs[nid]
        frontier = np.array(new_frontier)
    nodes = len(left)
    L, R = np.array(left), np.array(right)
    # risks were appended in frontier order; frontier order == id order (children appended in
    # id order), so risk[k] is node k's risk
    Rk = np.array(risk, dtype=float)
    Nn = np.array(nn, dtype=np.int64)
    _collapse(L, R, Rk, alpha)
    catdir = np.zeros((nodes, maxK), dtype=np.int8)
    for k, dv in catdirs.items():
        catdir[k] = dv
    var_a = np.array(var)
    var_a[L < 0] = -1
    counts = np.array(counts_l) if classification else np.zeros((nodes, 0))
    return Tree(L, R, var_a, np.array(thr), np.array(ltl), catdir, Nn, counts,
                np.array(depth), classification)


def _collapse(L: np.ndarray, R: np.ndarray, risk: np.ndarray, alpha: float) -> None:
    """rpart's cost-complexity bookkeeping after growth (spec 4.3 steps 1-5), in place."""
    nodes = len(L)
    S = risk.copy()
    s = np.zeros(nodes)
    c = np.full(nodes, alpha)
    for nid in range(nodes - 1, -1, -1):  # children have larger ids: post-order
        lc, rc = L[nid], R[nid]
        if lc < 0:
            continue
        SL, sL, SR, sR = S[lc], s[lc], S[rc], s[rc]
        cN = (risk[nid] - SL - SR) / (sL + sR + 1)
        if c[rc] > c[lc]:
            if cN > c[lc]:
                SL, sL = risk[lc], 0.0
                cN = (risk[nid] - SL - SR) / (sL + sR + 1)
            if cN > c[rc]:
                SR, sR = risk[rc], 0.0
                cN = (risk[nid] - SL - SR) / (sL + sR + 1)
        else:
            if cN > c[rc]:
                SR, sR = risk[rc], 0.0
                cN = (risk[nid] - SL - SR) / (sL + sR + 1)
            if cN > c[lc]:
                SL, sL = risk[lc], 0.0
                cN = (risk[nid] - SL - SR) / (sL + sR + 1)
        c[nid] = cN
        if cN <= alpha:
            L[nid] = R[nid] = -1
            S[nid], s[nid] = risk[nid], 0.0
        else:
            S[nid], s[nid] = SL + SR, sL + sR + 1


def route(tree: Tree, X: np.ndarray, is_cat: np.ndarray) -> np.ndarray:
    """Node where each row of ``X`` ends (spec 4.4): a leaf, or an internal node on a tie."""
    cur = np.zeros(len(X), dtype=np.int64)
    active = np.flatnonzero(tree.left[cur] >= 0)
    while len(active):
        nd = cur[active]
        v = tree.var[nd]
        xv = X[active, v]
        cat = is_cat[v]
        code = np.where(cat, xv, 0).astype(np.int64)
        code = np.clip(code, 0, tree.catdir.shape[1] - 1)
        lt = np.where(tree.lt_left[nd], -1, 1)
        d = np.where(cat, tree.catdir[nd, code], np.where(xv < tree.thr[nd], lt, -lt))
        lc, rc = tree.left[nd], tree.right[nd]
        nl, nr = tree.n[lc], tree.n[rc]
        none = d == 0
        d = np.where(none & (nl > nr), -1, np.where(none & (nr > nl), 1, d))
        nxt = np.where(d == -1, lc, np.where(d == 1, rc, nd))
        cur[active] = nxt
        moved = d != 0
        active = active[moved]
        active = active[tree.left[cur[active]] >= 0]
    return cur
