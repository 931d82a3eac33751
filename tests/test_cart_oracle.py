"""capkit.synth's trees against rpart's, record by record (reference/rpart, from real R).

The 23 CART fits of two syntheses made with synthpop 1.9-2 / rpart 4.1.19 on R 4.2.2
(reference/rpart/README.md): SD2011 ``syn(ods, seed = 8564, cont.na = list(income = -8))``
(9 variables, 10 trees) and Adult ``syn(adult, seed = 8564, visit.sequence = c(1:12, 14, 13))``
(13 trees). A tree depends only on the original data, so capkit must give, for every training
record, the same rpart leaf number, and for every node the same size, deviance, complexity and
primary split. No fit is exempt: every one of the 23 is reproduced exactly (``NOT_EXACT`` would
name a variable and the reason if one could not be).
"""

from __future__ import annotations

import gzip
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from capkit.synth import syn

REF = Path(__file__).resolve().parents[1] / "reference" / "rpart"
DATA = Path(os.environ.get("CAPKIT_DATA")
            or Path(__file__).resolve().parents[2] / "shared" / "data")
TREES = json.loads(gzip.open(REF / "trees.json.gz").read())
META = json.loads((REF / "results.json").read_text())

#: Variables whose tree cannot be reproduced exactly, with the reason (none for these 23 fits;
#: the one known limit, a factor with more than ``max_exhaustive`` levels in a node for a 3+
#: class y, where rpart itself does not finish, does not occur with these visit sequences).
NOT_EXACT: dict[tuple[str, str], str] = {}

CASES = [(ds, v) for ds in ("sd2011", "adult") for v in META[ds]["trees"]]


def _need(name: str) -> None:
    if not (DATA / name).is_file():
        pytest.skip(f"{name} not available (set CAPKIT_DATA)")


@pytest.fixture(scope="module")
def fitted():
    """The trees of both syntheses, each fitted once (models=True)."""
    from capkit import datasets

    out = {}
    if (DATA / "SD2011.rda").is_file():
        sd = datasets.load_sd2011(DATA, progress=False)[list(datasets.SD2011_PAPER_VARIABLES)]
        out["sd2011"] = syn(sd, seed=8564, cont_na={"income": [-8]}, models=True,
                            progress=False).models
    if (DATA / "AdultUCI.rda").is_file():
        adult = datasets.load_adult(DATA, progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
        # arules' AdultUCI has education and income as *ordered* factors (R schema in
        # results.json of the oracle); the .rda reader does not keep the flag
        for c in ("education", "income"):
            adult[c] = adult[c].cat.as_ordered()
        visit = list(adult.columns[:12]) + [adult.columns[13], adult.columns[12]]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no tree may fall back to the heuristic
            out["adult"] = syn(adult, seed=8564, visit_sequence=visit, models=True,
                               progress=False).models
    return out


def _model(models: dict, var: str):
    """synthpop names the value model of a padded numeric v; capkit's working name is v.0."""
    return models[var + ".0"] if var + ".0" in models else models[var]


@pytest.mark.parametrize("ds,var", CASES, ids=[f"{d}-{v}" for d, v in CASES])
def test_partition_is_rparts(fitted, ds, var):
    _need("SD2011.rda" if ds == "sd2011" else "AdultUCI.rda")
    if (ds, var) in NOT_EXACT:
        pytest.xfail(NOT_EXACT[(ds, var)])
    tree = _model(fitted[ds], var)
    ref = pd.read_csv(REF / f"{ds}_{var}_leaves.csv.gz")["leaf"].to_numpy()
    meta = META[ds]["trees"][var]
    assert tree.method == meta["method"]
    assert tree.predictors == meta["predictors"]
    assert len(tree.training_leaves) == meta["n_train"] == len(ref)
    assert tree.n_leaves == meta["n_leaves"]
    # the same leaf, by rpart's node number, for every training record
    mismatch = np.flatnonzero(tree.training_leaves != ref)
    assert not len(mismatch), f"{len(mismatch)} records in other leaves, first {mismatch[:5]}"


@pytest.mark.parametrize("ds,var", CASES, ids=[f"{d}-{v}" for d, v in CASES])
def test_nodes_and_splits_are_rparts(fitted, ds, var):
    _need("SD2011.rda" if ds == "sd2011" else "AdultUCI.rda")
    tree = _model(fitted[ds], var)
    ref = TREES[ds][var]
    np.testing.assert_array_equal(tree.node, ref["nodes"])
    np.testing.assert_array_equal(tree.n, ref["n"])
    table = tree.splits()
    assert table["var"].tolist() == ref["var"]
    np.testing.assert_allclose(tree.dev, ref["dev"], rtol=1e-9, atol=1e-9)
    # R reports complexity relative to the root's risk
    np.testing.assert_allclose(tree.complexity / tree.dev[0], ref["complexity"], rtol=1e-6,
                               atol=1e-12)
    inner = table[table["var"] != "<leaf>"].set_index("node")
    for p in ref["primary"]:
        row = inner.loc[p["node"]]
        assert row["var"] == p["var"]
        if "cut" in p:
            assert row["cut"] == p["cut"]
            assert row["left_if"] == p["left_if"]
        else:
            lev = np.asarray(p["directions"])  # 1 left, 3 right, 2 absent
            assert tuple(np.flatnonzero(lev == 1).tolist()) == row["left_levels"]
            assert tuple(np.flatnonzero(lev == 3).tolist()) == row["right_levels"]
