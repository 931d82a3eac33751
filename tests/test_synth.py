"""capkit.synth: the sequential CART synthesiser (spec synthpop-syn-cart.md).

* the tree is checked against a slow recursive reference of rpart's rules written here (loops
  over records and candidate splits; spec 4.3), on small random data (the record-by-record check
  against real rpart is tests/test_cart_oracle.py);
* the trees kept by ``models=True`` (one set for the m syntheses), the warning for a variable
  whose tree needs the many-level heuristic, ordered categoricals split as numbers;
* the deterministic parts of syn() (methods, expanded visit sequence, predictor order, v.NA /
  v.0 reconstruction, levels and dtypes) against the spec's SD2011 example;
* reproducibility, donors (every synthetic value occurs in the original), bad input;
* a fast statistical smoke test on an SD2011 subsample (the 20-seed validation is in
  benchmarks/bench_synth.py and notebooks/05_sd2011.ipynb).
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from capkit.errors import CapkitError
from capkit.synth import Tree, cart, syn

DATA = Path(os.environ.get("CAPKIT_DATA")
            or Path(__file__).resolve().parents[2] / "shared" / "data")
HAVE_SD = (DATA / "SD2011.rda").is_file()
VARS = ["sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab"]


# ---------------------------------------------------------------- slow reference CART ----------

def _ref_tree(X, is_cat, nlev, y, classification, C, minbucket=5, cp=1e-8):
    """Recursive rpart tree (partition.c's rules): the leaves as sets of training row indices."""
    n = len(y)
    minsplit = 3 * minbucket

    def risk(rows):
        if classification:
            cnt = [sum(1 for r in rows if y[r] == c) for c in range(C)]
            return len(rows) - max(cnt)
        mu = sum(y[r] for r in rows) / len(rows)
        return sum((y[r] - mu) ** 2 for r in rows)

    def impurity_gain(left, right):
        def part(rows):
            if classification:
                return sum(sum(1 for r in rows if y[r] == c) ** 2 for c in range(C)) / len(rows)
            return sum(y[r] for r in rows) ** 2 / len(rows)
        return part(left) + part(right) - part(left + right)

    alpha = cp * risk(list(range(n)))

    def best_split(rows):
        best = (-np.inf, None)
        for j in range(X.shape[1]):
            if not is_cat[j]:
                vals = sorted(set(X[r, j] for r in rows))
                cands = [(a + b) / 2 for a, b in zip(vals[:-1], vals[1:], strict=True)]
                sides = [[r for r in rows if X[r, j] < t] for t in cands]
            else:
                cats = sorted(set(int(X[r, j]) for r in rows))
                if classification and C >= 3:  # rpart: every two-group subset
                    subsets = [set(s) for q in range(1, len(cats))
                               for s in itertools.combinations(cats, q)]
                else:
                    # anova: order by mean y; 2 classes: by the share of class 0
                    def key(c, j=j):
                        rr = [r for r in rows if X[r, j] == c]
                        if classification:
                            return sum(1 for r in rr if y[r] == 0) / len(rr)
                        return sum(y[r] for r in rr) / len(rr)
                    ordered = sorted(cats, key=lambda c: (key(c), c))
                    subsets = [set(ordered[:q]) for q in range(1, len(ordered))]
                sides = [[r for r in rows if int(X[r, j]) in s] for s in subsets]
            for left in sides:
                right = [r for r in rows if r not in set(left)]
                if len(left) < minbucket or len(right) < minbucket:
                    continue
                g = impurity_gain(left, right)
                if g > best[0] + 1e-9 * abs(best[0] if np.isfinite(best[0]) else 0):
                    best = (g, (left, right))
        return best

    def grow(rows, depth, bound):
        """Returns (subtree, S, s, c); subtree = list of leaves (row sets); ``bound`` is the
        complexity bound handed down by the parent (partition.c)."""
        R = risk(rows)
        if len(rows) < minsplit or depth >= 30 or min(R, bound) <= alpha:
            return [frozenset(rows)], R, 0, alpha
        gain, split = best_split(rows)
        if split is None or gain <= 0:
            return [frozenset(rows)], R, 0, alpha
        lt, SL, sL, cL = grow(split[0], depth + 1, min(R, bound) - alpha)
        RL, RR = risk(split[0]), risk(split[1])
        rbound = min(max((R - SL) / (sL + 1), R - RL), bound)
        rt, SR, sR, cR = grow(split[1], depth + 1, rbound - alpha)
        cN = (R - SL - SR) / (sL + sR + 1)
        if cR > cL:
            if cN > cL:
                SL, sL = RL, 0
                cN = (R - SL - SR) / (sL + sR + 1)
            if cN > cR:
                SR, sR = RR, 0
                cN = (R - SL - SR) / (sL + sR + 1)
        else:
            if cN > cR:
                SR, sR = RR, 0
                cN = (R - SL - SR) / (sL + sR + 1)
            if cN > cL:
                SL, sL = RL, 0
                cN = (R - SL - SR) / (sL + sR + 1)
        if cN <= alpha:
            return [frozenset(rows)], R, 0, cN
        return lt + rt, SL + SR, sL + sR + 1, cN

    return set(grow(list(range(n)), 0, risk(list(range(n))))[0])


def _kinds(is_cat):
    return np.where(is_cat, cart.FACTOR, cart.NUMERIC)


def _fast_leaves(tree):
    leaf = tree.training_leaves
    return {frozenset(np.flatnonzero(leaf == v).tolist()) for v in np.unique(leaf)}


def _random_problem(seed, n, classification, C=3):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n).round(3)
    x1 = rng.integers(0, 5, size=n).astype(float)           # categorical, 5 levels
    x2 = rng.integers(0, 12, size=n).astype(float)          # categorical, 12 levels
    x3 = rng.uniform(size=n).round(2)
    X = np.column_stack([x0, x1, x2, x3])
    is_cat = np.array([False, True, True, False])
    nlev = np.array([0, 5, 12, 0])
    signal = 1.5 * x0 + (x1 == 2) - (x2 % 3 == 0) + rng.normal(size=n)
    if classification:
        y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, C + 1)[1:-1]))
    else:
        y = signal + rng.normal(scale=0.01, size=n)
    return X, is_cat, nlev, y


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("classification,C", [(False, 0), (True, 2), (True, 3)])
def test_cart_matches_slow_reference(seed, classification, C):
    X, is_cat, nlev, y = _random_problem(seed, 70, classification, C)
    fast = cart.fit(X, _kinds(is_cat), nlev, y, classification, n_classes=C)
    ref = _ref_tree(X, is_cat, nlev, y, classification, C)
    assert _fast_leaves(fast) == ref
    # routing the training records gives their leaves; leaves respect minbucket
    leaf = fast.route(X)
    assert (fast.left[leaf] < 0).all()
    np.testing.assert_array_equal(fast.node[leaf], fast.training_leaves)
    assert np.bincount(leaf)[np.unique(leaf)].min() >= 5


def test_cart_classification_collapses_splits_that_do_not_reduce_errors():
    # y is pure noise except one strong split: Gini may split further, but rpart's collapse
    # keeps only subtrees that reduce misclassifications (spec 4.3)
    x = np.arange(40, dtype=float)[:, None]
    y = (np.arange(40) >= 20).astype(int)
    tree = cart.fit(x, _kinds(np.array([False])), np.array([0]), y, True, n_classes=2)
    assert int((tree.left >= 0).sum()) == 1
    assert tree.cut[0] == 19.5


def test_route_unseen_category_goes_to_larger_child_and_ties_stop():
    X = np.array([[0.0]] * 10 + [[1.0]] * 20)
    y = np.array([0.0] * 10 + [5.0] * 20)
    tree = cart.fit(X, _kinds(np.array([True])), np.array([3]), y, False, minbucket=5)
    assert tree.left[0] >= 0
    node = tree.route(np.array([[2.0]]))  # level 2 absent
    big = tree.left[0] if tree.n[tree.left[0]] > tree.n[tree.right[0]] else tree.right[0]
    assert node[0] == big
    Xt = np.array([[0.0]] * 10 + [[1.0]] * 10)
    tree = cart.fit(Xt, _kinds(np.array([True])), np.array([3]),
                    y[:20] * 0 + np.repeat([0, 5], 10), False, minbucket=5)
    assert tree.route(np.array([[2.0]]))[0] == 0  # tie: stop at root


# ---------------------------------------------------------------- syn() ------------------------

@pytest.fixture(scope="module")
def sd():
    if not HAVE_SD:
        pytest.skip("SD2011 not available (set CAPKIT_DATA)")
    from capkit.data.datasets import load_sd2011

    return load_sd2011(DATA, progress=False)[VARS]


@pytest.fixture(scope="module")
def sd_small(sd):
    return sd.sample(1500, random_state=3).reset_index(drop=True)


def test_methods_and_expanded_visit_sequence_match_spec(sd_small):
    r = syn(sd_small, m=1, seed=1, cont_na={"income": [-8]}, progress=False)
    assert r.method == {"sex": "sample", **{c: "cart" for c in VARS[1:]}}
    names = [e[0] for e in r.expanded]
    assert names == ["sex", "age", "region", "placesize", "depress.NA", "depress.0",
                     "income.NA", "income.0", "ls", "marital", "workab"]
    preds = {e[0]: e[2] for e in r.expanded}
    assert preds["ls"] == ["sex", "age", "region", "placesize", "depress.0", "depress.NA",
                           "income.0", "income.NA"]
    assert preds["depress.0"] == ["sex", "age", "region", "placesize"]
    assert r.cont_na["income"] == [-8] and r.cont_na["age"] is None
    assert r.visit_sequence == VARS and r.seed == 1 and r.k == len(sd_small)


def test_output_types_levels_and_donors(sd_small):
    before = sd_small.copy()
    r = syn(sd_small, m=2, seed=5, cont_na={"income": -8}, progress=False)
    pd.testing.assert_frame_equal(sd_small, before)  # input not modified
    assert len(r.syn) == 2
    for s in r.syn:
        assert list(s.columns) == VARS
        assert (s.dtypes == sd_small.dtypes).all()
        for c in VARS:
            if isinstance(sd_small[c].dtype, pd.CategoricalDtype):
                assert list(s[c].cat.categories) == list(sd_small[c].cat.categories)
        for c in ("age", "depress", "income"):
            assert np.isin(s[c].dropna(), sd_small[c].dropna()).all()
        # missing and special values appear (v.NA reconstruction), at plausible rates
        assert 0 < s["income"].isna().sum() < 3 * sd_small["income"].isna().sum()
        assert 0 < (s["income"] == -8).sum() < 3 * (sd_small["income"] == -8).sum()
    assert not r.syn[0].equals(r.syn[1])


def test_reproducible_from_one_seed(sd_small):
    a = syn(sd_small, m=2, seed=11, progress=False)
    b = syn(sd_small, m=2, seed=11, progress=False)
    c = syn(sd_small, m=2, seed=12, progress=False)
    for x, y in zip(a.syn, b.syn, strict=True):
        pd.testing.assert_frame_equal(x, y)
    assert not a.syn[0].equals(c.syn[0])


def test_marginals_smoke(sd_small):
    """Chi-square per categorical variable at 1%, one fixed seed (full check: benchmark)."""
    s = syn(sd_small, m=1, seed=2024, progress=False).syn[0]
    for c in ("sex", "region", "placesize", "ls", "marital", "workab"):
        o = sd_small[c].value_counts(dropna=False).sort_index()
        y = s[c].value_counts(dropna=False).reindex(o.index, fill_value=0)
        keep = o >= 5
        table = np.array([o[keep].to_numpy(), y[keep].to_numpy()])
        assert stats.chi2_contingency(table)[1] > 0.01, c


def test_k_visit_sequence_constant_collinear_strings_bool():
    rng = np.random.default_rng(0)
    n = 300
    a = rng.normal(size=n).round(2)
    df = pd.DataFrame({
        "a": a,
        "b": 2 * a + 1,                                  # collinear with a
        "const": np.full(n, 7, dtype=np.int64),
        "txt": rng.choice(["x", "y", "z"], size=n).astype(object),
        "flag": rng.random(n) < 0.3,
        "cnt": rng.integers(0, 4, size=n),
        "skip": np.arange(n),
    })
    r = syn(df, m=1, seed=3, k=120, visit_sequence=["txt", "a", "b", "const", "flag", "cnt"],
            progress=False)
    s = r.syn[0]
    assert r.method == {"a": "cart", "b": "collinear", "const": "constant", "txt": "sample",
                        "flag": "cart", "cnt": "cart", "skip": ""}
    assert len(s) == 120 and list(s.columns) == list(df.columns)
    assert (s.dtypes == df.dtypes).all()
    np.testing.assert_allclose(s["b"], 2 * s["a"] + 1)
    assert (s["const"] == 7).all()
    assert set(s["txt"]) <= {"x", "y", "z"}
    assert np.isin(s["skip"], df["skip"]).all()


def test_categorical_missing_level_is_synthesised():
    rng = np.random.default_rng(1)
    n = 400
    x = pd.Categorical(rng.choice(["u", "v", None], size=n, p=[0.5, 0.3, 0.2]),
                       categories=["v", "u", "w"])
    df = pd.DataFrame({"g": rng.integers(0, 3, size=n).astype(float), "x": x})
    s = syn(df, seed=4, progress=False).syn[0]
    assert list(s["x"].cat.categories) == ["v", "u", "w"]
    assert 0.1 < s["x"].isna().mean() < 0.3
    assert (s["x"] != "w").all()


def test_smoothing_rmean_keeps_range():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"g": rng.integers(0, 2, size=200).astype(float),
                       "y": rng.integers(0, 100, size=200).astype(float)})
    s = syn(df, seed=1, smoothing="rmean", progress=False).syn[0]
    assert s["y"].between(0, 99).all()
    assert not np.isin(s["y"], df["y"]).all()  # smoothed values are new


@pytest.mark.parametrize("kwargs,match", [
    ({"visit_sequence": ["a", "zzz"]}, "zzz"),
    ({"visit_sequence": ["a", "a"]}, "repeats"),
    ({"cont_na": {"a": [-99]}}, "-99"),
    ({"cont_na": {"nope": [1]}}, "nope"),
    ({"m": 0}, "m must"),
    ({"m": 1.5}, "m must"),
    ({"smoothing": "magic"}, "smoothing"),
    ({"method": "ctree"}, "method"),
])
def test_bad_arguments(kwargs, match):
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0] * 5, "b": list("xyz") * 5})
    with pytest.raises(CapkitError, match=match):
        syn(df, progress=False, **kwargs)


def test_bad_data():
    with pytest.raises(CapkitError, match="empty"):
        syn(pd.DataFrame({"a": []}), progress=False)
    with pytest.raises(CapkitError, match="empty"):
        syn(pd.DataFrame(index=range(3)), progress=False)
    with pytest.raises(CapkitError, match="'when'"):
        syn(pd.DataFrame({"a": [1.0, 2.0], "when": pd.to_datetime(["2020-01-01"] * 2)}),
            progress=False)
    with pytest.raises(CapkitError, match="DataFrame"):
        syn([[1, 2]], progress=False)


# ---------------------------------------------------------------- trees kept and shared --------

def _three_class_problem(n=600, levels=25, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, levels, size=n)
    y = (g % 3 + (rng.random(n) < 0.2)) % 3
    return pd.DataFrame({
        "a": rng.normal(size=n).round(2),
        "g": pd.Categorical.from_codes(g, [f"l{i}" for i in range(levels)]),
        "y": pd.Categorical.from_codes(y, ["p", "q", "r"]),
    })


def test_models_one_set_of_trees_shared_by_the_m_syntheses():
    df = _three_class_problem(levels=6)
    one = syn(df, m=1, seed=3, models=True, progress=False)
    three = syn(df, m=3, seed=3, models=True, progress=False)
    assert set(three.models) == {"g", "y"}  # "a" is sampled: no tree
    for name, tree in three.models.items():
        assert isinstance(tree, Tree)
        assert len(tree.training_leaves) == len(df)
        np.testing.assert_array_equal(tree.training_leaves, one.models[name].training_leaves)
        assert (tree.left[np.isin(tree.node, tree.training_leaves)] < 0).all()
    assert syn(df, seed=3, progress=False).models is None
    proper = syn(df, m=2, seed=3, proper=True, models=True, progress=False)
    assert isinstance(proper.models, list) and len(proper.models) == 2


def test_many_level_factor_with_three_classes_warns_once_and_names_the_variable():
    df = _three_class_problem(levels=25)
    with pytest.warns(UserWarning, match="'y'.*rpart's exhaustive") as rec:
        r = syn(df, m=2, seed=1, max_exhaustive=20, models=True, progress=False)
    assert sum("'y'" in str(w.message) for w in rec) == 1
    assert not r.models["y"].exact and r.models["g"].exact
    # below the limit the search is rpart's, and no warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = syn(df, m=1, seed=1, max_exhaustive=25, models=True, progress=False)
    assert r.models["y"].exact


def test_ordered_categorical_is_split_as_a_number():
    rng = np.random.default_rng(5)
    n = 400
    lev = rng.integers(0, 6, size=n)
    df = pd.DataFrame({"o": pd.Categorical.from_codes(lev, list("abcdef"), ordered=True),
                       "y": lev * 10.0 + rng.normal(size=n)})
    r = syn(df, seed=2, visit_sequence=["o", "y"], models=True, progress=False)
    tree = r.models["y"]
    assert tree.kinds[0] == cart.ORDERED
    table = tree.splits()
    inner = table[table["var"] != "<leaf>"]
    assert inner["cut"].notna().all() and (inner["cut"] % 1 == 0.5).all()  # between codes
    assert r.syn[0]["o"].cat.ordered
    # unordered, the same column is split into groups of levels
    df["o"] = df["o"].cat.as_unordered()
    tree = syn(df, seed=2, visit_sequence=["o", "y"], models=True, progress=False).models["y"]
    assert tree.kinds[0] == cart.FACTOR and "cut" not in tree.splits()


def test_cart_fit_rejects_missing_predictors_and_bad_depth():
    X = np.arange(40, dtype=float)[:, None]
    y = np.arange(40, dtype=float)
    kinds, nlev = np.array([cart.NUMERIC]), np.array([0])
    with pytest.raises(CapkitError, match="missing predictor"):
        cart.fit(np.where(X == 3, np.nan, X), kinds, nlev, y, False)
    with pytest.raises(CapkitError, match="maxdepth"):
        cart.fit(X, kinds, nlev, y, False, maxdepth=31)
    # maxdepth 1: the root's children are leaves (node numbers 2 and 3)
    assert set(cart.fit(X, kinds, nlev, y, False, maxdepth=1).training_leaves) == {2, 3}


# ---------------------------------------------------------------- rpart's altered priors ------
def _priors_as_gini_c(y: np.ndarray, n_classes: int) -> list[float]:
    """rpart's gini.c initialisation, loop for loop (the order its sums round in)."""
    counts = np.bincount(y, minlength=n_classes).astype(float)
    prior = [c / float(len(y)) for c in counts]
    temp, aprior = 0.0, [0.0] * n_classes
    for i in range(n_classes):
        for j in range(n_classes):
            loss = 0.0 if i == j else 1.0
            temp += loss * prior[i]
            aprior[i] += loss * prior[i]
    return [a / (temp * f) if f > 0 else a for a, f in zip(aprior, prior, strict=True)]


@pytest.mark.parametrize("n_classes", [2, 3, 7, 41])
def test_altered_priors_round_as_gini_c(n_classes):
    from capkit.synth.cart import altered_priors

    rng = np.random.default_rng(n_classes)
    for n in (5, 37, 200, 1001):
        y = rng.integers(0, n_classes, n)
        y[y == n_classes - 1] = 0  # a class with no record
        got = altered_priors(y.astype(float), n_classes)
        # bit equality: the same additions in the same order, no tolerance
        assert got.tolist() == _priors_as_gini_c(y, n_classes)
