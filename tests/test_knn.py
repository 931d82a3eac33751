"""capkit.distance.grid_knn's exact k nearest neighbours and capkit.attacks.knn's classifiers on
them (a record-by-record reference with the lowest-position tie rule, scikit-learn's
predictions where no tie decides) and outputs that are byte-identical whatever the number of
BLAS / OpenMP threads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from capkit.attacks.knn import ExactKNeighborsClassifier, ExactKNeighborsRegressor
from capkit.distance.grid_knn import exact_neighbours
from capkit.errors import CapkitError

ROOT = Path(__file__).resolve().parents[1]


def _slow_neighbours(train: np.ndarray, query: np.ndarray, k: int) -> list[list[int]]:
    """Record by record: squared distances in exact rationals (features on the grid), sorted
    by (distance, position)."""
    from fractions import Fraction

    out = []
    for q in query.tolist():
        d = [sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(q, t, strict=True))
             for t in train.tolist()]
        out.append(sorted(range(len(d)), key=lambda i: (d[i], i))[:k])
    return out


@pytest.mark.parametrize("seed, k", [(0, 1), (1, 3), (2, 5)])
def test_neighbours_against_record_by_record_reference(seed, k):
    """One-hot codes and values on a coarse grid: many exact ties, settled by position."""
    rng = np.random.default_rng(seed)
    onehot = np.eye(4)[rng.integers(0, 4, 70)]
    train = np.column_stack([onehot[:50], rng.integers(0, 5, 50) / 4])
    query = np.column_stack([onehot[50:], rng.integers(0, 5, 20) / 4])
    got = exact_neighbours(train, query, k)
    assert got.index.tolist() == _slow_neighbours(train, query, k)
    assert (got.n_below + got.n_at_kth > k).any()  # ties did decide


@pytest.mark.parametrize("seed, k, levels", [(4, 1, 2), (5, 5, 3), (6, 7, 2), (7, 3, 6),
                                            (8, 40, 2)])
def test_repeated_rows_every_field_against_record_by_record_reference(seed, k, levels):
    """Rows repeated many times, interleaved in position (the search runs on distinct rows):
    neighbours, distances, the k-th distance and the counts below, at it and at the minimum."""
    from fractions import Fraction

    rng = np.random.default_rng(seed)
    train = rng.integers(0, levels, (90, 3)) / 2
    query = rng.integers(0, levels + 1, (40, 3)) / 2
    got = exact_neighbours(train, query, k)
    from capkit.distance.grid_knn import _bits

    scale = 2.0 ** _bits(train, query)  # values are multiples of 1/2: on the grid exactly
    for i, q in enumerate(query.tolist()):
        d = [sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(q, t, strict=True))
             for t in train.tolist()]
        ranked = sorted(range(len(d)), key=lambda j: (d[j], j))[:k]
        kth = d[ranked[-1]]
        assert got.index[i].tolist() == ranked
        assert got.distance[i].tolist() == [float(d[j]) * scale ** 2 for j in ranked]
        assert got.kth[i] == float(kth) * scale ** 2
        assert got.n_below[i] == sum(x < kth for x in d)
        assert got.n_at_kth[i] == sum(x == kth for x in d)
        assert got.n_at_min[i] == sum(x == min(d) for x in d)


def test_predictions_equal_sklearn_where_no_tie_decides():
    rng = np.random.default_rng(3)
    x, xq = rng.random((300, 6)), rng.random((200, 6))
    y = rng.integers(0, 3, 300)
    mine = ExactKNeighborsClassifier(n_neighbors=5).fit(x, y).predict(xq)
    theirs = KNeighborsClassifier(n_neighbors=5).fit(x, y).predict(xq)
    assert (mine == theirs).all()
    z = rng.random(300)
    mine = ExactKNeighborsRegressor(n_neighbors=4).fit(x, z).predict(xq)
    theirs = KNeighborsRegressor(n_neighbors=4).fit(x, z).predict(xq)
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_votes_ties_and_several_outputs():
    x = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([["b", "u"], ["a", "v"], ["a", "v"], ["b", "u"]])
    model = ExactKNeighborsClassifier(n_neighbors=2).fit(x, y)
    # query 0.5: rows 0 and 1 (b, a) tie in votes -> the first class in sorted order, "a"
    assert model.predict(np.array([[0.5], [2.6]])).tolist() == [["a", "u"], ["a", "u"]]
    with pytest.raises(CapkitError, match="n_neighbors"):
        exact_neighbours(x, x, 5)
    with pytest.raises(CapkitError, match="finite"):
        exact_neighbours(x, np.array([[np.nan]]), 1)


_RUN = r"""
import hashlib
import numpy as np, pandas as pd
from capkit import attacks
from capkit.attacks.inference import attribute_risk
from capkit.distance.grid_knn import exact_neighbours
rng = np.random.default_rng(7)
n = 1500
def frame(n):
    # 21 one-hot columns + a scaled number: scikit-learn's brute-force search (not its k-d
    # tree), whose tie order among duplicated records follows its threads' chunks
    return pd.DataFrame({"a": rng.choice(list("pqrsABCDEFGH"), n),
                         "b": rng.choice(list("xyzIJKLMN"), n), "x": rng.integers(0, 5, n) / 7,
                         "t": rng.choice(list("uvw"), n), "v": rng.random(n).round(2)})
original, synthetic = frame(n), frame(n)
digest = hashlib.sha256()
for target in ("t", "v"):
    result = attacks.attribute_attack(original, synthetic, ["a", "b", "x"], target,
                                      attacker="knn")
    digest.update(result.records.to_csv().encode())
risk = attribute_risk(original, synthetic, ["a", "b", "x"], "t")
digest.update(risk.records.to_csv().encode())
from capkit.audit import audit
found = audit(original, synthetic, holdout=frame(800), keys=["a", "b", "x"], targets=["t", "v"],
              families=("attribute attacks",))
digest.update(found.to_frame().to_csv().encode())
near = exact_neighbours(rng.random((600, 30)) / 3, rng.random((500, 30)) / 7, 5)
digest.update(near.index.tobytes())
print(digest.hexdigest())
"""


def _start(threads: int) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads),
           "MKL_NUM_THREADS": str(threads), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", _RUN], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _digest(run: subprocess.Popen) -> str:
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    return out.strip()


def test_outputs_do_not_depend_on_the_thread_count():
    """The k-NN attackers (attribute attack, attribute risk, the audit's findings and verdicts)
    and the search itself, run with one and with two BLAS / OpenMP threads: byte-identical
    outputs (scikit-learn's
    KNeighborsClassifier gave other predictions with two threads on these data)."""
    one, two = _start(1), _start(2)  # side by side
    assert _digest(one) == _digest(two)


@pytest.mark.parametrize("k", [1, 2, 5])
@pytest.mark.parametrize("grid", [None, 6])
def test_the_tree_search_of_few_features_gives_the_blocks_answer(monkeypatch, k, grid):
    """Two features and enough distinct points take the k-d tree path; its answer is the
    distance blocks' answer in every field, ties (a coarse grid: many records at equal
    distances, duplicates) included, and the tree settles most queries itself."""
    from capkit.distance import grid_knn

    rng = np.random.default_rng(k + (grid or 0))

    def draw(n):
        x = rng.normal(size=(n, 2)) * [3.0, 0.5]
        return np.round(x * grid) / grid if grid else x

    train, query = draw(3000), draw(2500)
    train[:40] = train[40:80]  # duplicated records: positions decide among them
    settled = []
    tree = grid_knn._select_tree

    def spy(*args):
        left = tree(*args)
        settled.append(len(args[1]) - len(left))
        return left

    monkeypatch.setattr(grid_knn, "_select_tree", spy)
    monkeypatch.setattr(grid_knn, "TREE_POINTS", 64)  # the coarse grid has a few hundred points
    by_tree = grid_knn._search(train, query, k)
    monkeypatch.setattr(grid_knn, "TREE_FEATURES", 0)
    by_blocks = grid_knn._search(train, query, k)
    assert settled and settled[0] > 0
    for field in ("index", "distance", "kth", "n_below", "n_at_kth", "n_at_min"):
        np.testing.assert_array_equal(getattr(by_tree, field), getattr(by_blocks, field),
                                      err_msg=field)
