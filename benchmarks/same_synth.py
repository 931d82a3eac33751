"""Same syntheses as another checkout: :func:`capkit.synth.syn` on varied calls (numbers,
categoricals ordered or not, strings and booleans with missing values, special values
``cont_na``, smoothing, ``proper=True``, visit sequences leaving columns out, ``k`` and ``m``,
constant, single-valued and collinear columns, the shadow audit's case: 200- and 1,000-record
draws of Adult, and uniform factors of 4 to 16 levels, many with equal counts), computed by
this checkout and by the one named on the command line, each in its own process, and compared
exactly: every synthetic frame by ``pandas.testing.assert_frame_equal`` with
``check_exact=True`` (values, dtypes, category orders, index), the methods, visit sequence,
expanded sequence and predictor matrix of each result, and every array of every fitted tree
(``models=True``) byte for byte.

    CAPKIT_DATA=/folder/with/the/data python benchmarks/same_synth.py /path/to/other/checkout
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from _common import answers_here_and_there


def _mixed(seed: int, n: int) -> pd.DataFrame:
    """Every kind of column syn() takes, with missing values, ties and degenerate columns."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n).round(2)
    a[rng.random(n) < 0.1] = np.nan
    b = rng.integers(0, 5, n).astype(float)
    b[rng.random(n) < 0.15] = -9.0
    txt = rng.choice(["x", "y", "z", "w"], n).astype(object)
    txt[rng.random(n) < 0.1] = None
    flag = rng.random(n) < 0.4
    oflag = pd.Series(flag, dtype="boolean")
    oflag[rng.random(n) < 0.1] = pd.NA
    return pd.DataFrame({
        "a": a, "b": b, "cnt": rng.poisson(3, n), "txt": txt, "flag": flag,
        "oflag": oflag,
        "cat": pd.Categorical(rng.choice(list("pqrs"), n), categories=list("srqp")),
        "ord": pd.Categorical(rng.choice(["lo", "mid", "hi"], n),
                              categories=["lo", "mid", "hi"], ordered=True),
        "const": np.full(n, 7.0),
        "one_na": np.where(rng.random(n) < 0.3, np.nan, 4.0),
        "twice_a": a * 2.0 + 1.0,
        "int32": rng.integers(0, 50, n).astype(np.int32),
    })


def calls() -> list[tuple[str, pd.DataFrame, dict]]:
    from capkit import datasets

    out = []
    for seed in (1, 2):
        df = _mixed(seed, 150 + 60 * seed)
        out += [
            (f"mixed{seed}", df, {"seed": seed}),
            (f"mixed{seed}-m2-k", df, {"seed": seed + 10, "m": 2, "k": 97}),
            (f"mixed{seed}-cont_na", df, {"seed": seed, "cont_na": {"b": [-9]}}),
            (f"mixed{seed}-rmean", df, {"seed": seed, "minbucket": 3,
                                          "smoothing": dict.fromkeys(["a", "b", "cnt"], "rmean")}),
            (f"mixed{seed}-spline", df, {"seed": seed, "smoothing": {"a": "spline"}}),
            (f"mixed{seed}-proper", df, {"seed": seed, "proper": True, "m": 2}),
            (f"mixed{seed}-visit", df, {"seed": seed, "visit_sequence": [
                "txt", "ord", "a", "flag", "cnt", 1, "const"]}),
            (f"mixed{seed}-k-large", df, {"seed": seed, "k": 2 * len(df), "cp": 1e-3}),
        ]
    sd = datasets.load_sd2011(progress=False)[list(datasets.SD2011_PAPER_VARIABLES)]
    sd = sd.iloc[:800].reset_index(drop=True)
    out += [("sd2011", sd, {"seed": 3, "cont_na": {"income": [-8]}}),
            ("sd2011-proper", sd, {"seed": 4, "cont_na": {"income": [-8]}, "proper": True}),
            ("sd2011-rmean", sd, {"seed": 5, "smoothing": dict.fromkeys(
                sd.select_dtypes("number").columns, "rmean")})]
    adult = datasets.load_adult(progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    rng = np.random.default_rng(0)
    for run in range(12):  # the shadow audit's case: 200 records, every column
        rows = rng.permutation(len(adult))[:200]
        out.append((f"adult-shadow{run}", adult.iloc[rows].reset_index(drop=True),
                    {"seed": int(rng.integers(2**31 - 1))}))
    for run in range(8):  # its full size, 1,000 records: Gini searches over up to 20 levels
        rows = rng.permutation(len(adult))[:1000]
        out.append((f"adult-shadow1000-{run}", adult.iloc[rows].reset_index(drop=True),
                    {"seed": int(rng.integers(2**31 - 1))}))
    # 3+ classes with many-level predictors: uniform small-integer factors (equal counts)
    tie = np.random.default_rng(7)
    ties = pd.DataFrame({f"f{j}": pd.Categorical(tie.integers(0, 4 + 3 * j, 600))
                         for j in range(5)})
    ties["num"] = tie.integers(0, 6, 600).astype(float)
    out += [("ties", ties, {"seed": 11}), ("ties-minbucket1", ties, {"seed": 12, "minbucket": 1})]
    return out


def answers() -> list:
    from capkit.synth import syn

    found = []
    for name, data, kwargs in calls():
        before = data.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = syn(data, progress=False, models=True, **kwargs)
        pd.testing.assert_frame_equal(data, before, check_exact=True)  # input left as it was
        found.append((name, r.syn, r.method, r.visit_sequence, r.expanded, r.predictor_matrix,
                      r.cont_na, _trees(r.models)))
    return found


def _trees(models) -> list:
    """Every array of every fitted tree, as bytes (floats to the bit, NaN included)."""
    sets = models if isinstance(models, list) else [models]
    return [(name, [(field, getattr(tree, field).tobytes()) for field in TREE_FIELDS])
            for trees in sets for name, tree in trees.items()]


#: The arrays of a fitted tree compared (nodes, splits, sizes, deviances, complexities,
#: improvements, class counts and the leaf of every training record).
TREE_FIELDS = ("node", "left", "right", "var", "cut", "direction", "n", "dev", "complexity",
               "improve", "counts", "leaf_row")


def main() -> None:
    a, b, other = answers_here_and_there(__file__, answers)
    assert len(a) == len(b), (len(a), len(b))
    frames = trees = 0
    for x, y in zip(a, b, strict=True):
        assert x[0] == y[0]
        assert len(x[1]) == len(y[1]), x[0]
        for fx, fy in zip(x[1], y[1], strict=True):
            pd.testing.assert_frame_equal(fx, fy, check_exact=True)
            assert list(fx.dtypes) == list(fy.dtypes), x[0]
            frames += 1
        assert x[2:5] == y[2:5], x[0]
        pd.testing.assert_frame_equal(x[5], y[5], check_exact=True)
        assert x[6] == y[6], x[0]
        assert x[7] == y[7], f"{x[0]}: the fitted trees differ"
        trees += len(x[7])
    print(f"{len(a)} calls, {frames} synthetic frames and {trees} fitted trees: equal to "
          f"{other}'s")


if __name__ == "__main__":
    main()
