"""Same CART propensity answers as another checkout: :func:`capkit.utility.gen` (pMSE, S_pMSE,
SPECKS, PO50, U, the permutation null) and the 2-class trees of :func:`capkit.synth.cart.fit_many`
on varied cases (ties in every predictor, few and many distinct values, factors with absent
levels, unbalanced classes, minbucket 1 to 7, a 2,000-record sample of Adult against its three
baseline releases, and all of Adult against its bootstrap with a few permuted labels), computed
by this checkout and by the one named on the command line, each in its own process, and
compared exactly: every float to the bit, every array of every tree byte for byte.

    CAPKIT_DATA=/folder/with/the/data python benchmarks/same_propensity.py /path/to/other/checkout
    ... same_propensity.py OTHER --quick     (no full-Adult case)
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
from _common import answers_here_and_there

#: The arrays of a fitted tree compared.
TREE_FIELDS = ("node", "left", "right", "var", "cut", "direction", "n", "dev", "complexity",
               "improve", "counts", "leaf_row")
GEN_FIELDS = ("pMSE", "S_pMSE", "SPECKS", "S_SPECKS", "PO50", "S_PO50", "U", "S_U",
              "null_pMSE_mean", "null_pMSE_sd")


def _design(seed: int, n: int) -> tuple:
    """Predictors with heavy ties, one all-distinct, factors with absent levels; 2-class y."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.integers(0, 4, n),                      # numeric, 4 values
        rng.normal(size=n).round(1),                # numeric, many ties
        rng.normal(size=n),                         # numeric, all distinct
        rng.integers(0, 6, n),                      # factor of 9 levels, 3 never used
        rng.integers(0, 3, n),                      # ordered factor
        rng.integers(0, 2, n),                      # factor of 2 levels
        np.where(rng.random(n) < 0.9, 0, rng.integers(1, 5, n)),  # numeric, mostly one value
    ]).astype(float)
    kinds = np.array([0, 0, 0, 2, 1, 2, 0])
    nlev = np.array([0, 0, 0, 9, 3, 2, 0])
    share = (0.5, 0.2, 0.05)[seed % 3]
    y = (rng.random(n) < share + 0.3 * (X[:, 0] == 2) * (seed % 2)).astype(np.int64)
    return X, kinds, nlev, y


def _tree_bytes(tree) -> list:
    return [(f, getattr(tree, f).tobytes()) for f in TREE_FIELDS]


def _gen_bytes(g) -> list:
    out = [(f, np.asarray(g[f], dtype=float).tobytes()) for f in GEN_FIELDS]
    out += [("simpMSE", b"".join(np.asarray(x["simpMSE"]).tobytes() for x in g["null"]))]
    out += [("scores", b"".join(np.asarray(s).tobytes() for s in g["scores"]))]
    return out


def answers() -> list:
    from capkit.synth import baselines, cart
    from capkit.utility import gen

    found = []
    for seed in range(1, 9):
        X, kinds, nlev, y = _design(seed, 300 + 97 * seed)
        rng = np.random.default_rng(seed)
        ys = [y] + [rng.permutation(y) for _ in range(4)]
        for minbucket in (1, 5, 7):
            trees = cart.fit_many(X, kinds, nlev, ys, True, n_classes=2, minbucket=minbucket,
                                  cp=1e-4 if minbucket == 1 else 1e-3)
            found.append((f"design{seed}-mb{minbucket}", [_tree_bytes(t) for t in trees]))
    from capkit.data import datasets

    adult = datasets.load_adult(progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    rows = np.sort(np.random.default_rng(17).choice(len(adult), 2000, replace=False))
    small = adult.iloc[rows].reset_index(drop=True)
    releases = {"independent": baselines.independent_columns(small, seed=1),
                "bootstrap": baselines.bootstrap_with_noise(small, seed=1)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, s in releases.items():
            for cp, minbucket in ((1e-3, 5), (1e-4, 2)):
                g = gen(s, small, nperms=20, seed=3, cp=cp, minbucket=minbucket, workers=1)
                found.append((f"adult2000-{name}-{cp}-{minbucket}", _gen_bytes(g)))
        if "--quick" not in sys.argv:
            g = gen(baselines.bootstrap_with_noise(adult, seed=1), adult, nperms=3, seed=1)
            found.append(("adult-bootstrap", _gen_bytes(g)))
    return found


def main() -> None:
    extra = ["--quick"] if "--quick" in sys.argv else []
    a, b, other = answers_here_and_there(__file__, answers, extra=extra)
    assert [x[0] for x in a] == [x[0] for x in b]
    for x, y in zip(a, b, strict=True):
        assert x[1] == y[1], f"{x[0]}: differs"
    print(f"{len(a)} cases: trees and utility.gen answers equal to {other}'s, to the bit")


if __name__ == "__main__":
    pd.set_option("display.width", 120)
    main()
