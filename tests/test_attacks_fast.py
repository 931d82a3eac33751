"""The baseline table's fast paths give the slow paths' answers: libsvm fitted on a sparse
matrix (the "svm" attackers) against the same estimator on the dense array, and a table built
without the per-record frames against one built with them. Varied small cases: one-hot keys
only, a scaled numeric key beside them, encodings of 31 to 33 features (OpenBLAS's vector
block is 32 doubles), several classes, numeric targets, and exact ties (duplicated blocks of
records with balanced targets)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from capkit import attacks
from capkit.attacks import fit
from capkit.attacks.attackers import resolve, seeded
from capkit.attacks.grid import prepare


def frame(rng: np.random.Generator, n: int, levels: tuple[int, ...], numeric: bool,
          classes: int, tied: bool) -> pd.DataFrame:
    """Categorical keys with the given numbers of levels, an optional numeric key ``x`` (ages
    18..90, scaled by their range: not integers), a categorical target ``t`` with ``classes``
    classes and a numeric target ``y``. With ``tied`` the records come in blocks that repeat
    each key combination once per class (every class equally frequent at every key)."""
    columns = {f"k{c}": rng.integers(0, size, n).astype(str) for c, size in enumerate(levels)}
    if numeric:
        columns["x"] = rng.integers(18, 91, n).astype(float)
    out = pd.DataFrame(columns)
    if tied:
        out = pd.concat([out] * classes, ignore_index=True)
        out["t"] = np.repeat([f"c{i}" for i in range(classes)], n)
    else:
        score = sum(pd.factorize(out[k])[0] for k in out.columns if k.startswith("k"))
        noise = rng.integers(0, classes, len(out))
        out["t"] = np.where(rng.random(len(out)) < 0.6, score % classes, noise)
        out["t"] = "c" + out["t"].astype(str)
    out["y"] = rng.normal(50.0, 10.0, len(out)).round(1)
    return out


CASES = [  # (levels of the categorical keys, a numeric key, classes, tied)
    ((3, 4), False, 2, False),
    ((3, 4), True, 3, False),
    ((16, 15), True, 2, False),   # 31 one-hot + 1 numeric = 32 features
    ((16, 16), True, 4, False),   # 33 features
    ((15, 15), True, 2, False),   # 31 features
    ((30, 2), True, 5, False),    # 32 features
    ((5, 3), True, 2, True),
    ((4, 4), False, 3, True),     # ties on integer features: the sums are exact either way
    ((16, 15), True, 2, True),
]


def _decision(spec, grid, query, on_sparse: bool) -> np.ndarray:
    """libsvm's decision value of a two-class SVC fitted on the weighted cells (dense array or
    sparse matrix), as :func:`capkit.attacks.fit.predict` fits it (gamma from the records'
    variance)."""
    from scipy import sparse
    from sklearn.svm import SVC

    rows, cols, counts = fit._training_cells(grid, "synthetic")
    x, q = fit.features(spec, grid, cols, counts, cols), fit.features(spec, grid, cols, counts,
                                                                       query)
    total = counts.sum() * x.shape[1]
    variance = (counts @ (x**2)).sum() / total - ((counts @ x).sum() / total) ** 2
    model = SVC(gamma=1.0 / (x.shape[1] * variance), random_state=0)
    if on_sparse:
        x, q = sparse.csr_matrix(x), sparse.csr_matrix(q)
    return model.fit(x, rows, sample_weight=counts).decision_function(q)


def _dense_reference(monkeypatch: pytest.MonkeyPatch, spec, grid, query) -> np.ndarray:
    with monkeypatch.context() as patched:
        patched.setattr(fit, "_sparse_same", lambda model: False)
        return fit.predict(spec, grid, "synthetic", query, seed=0)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_svm_on_a_sparse_matrix_predicts_as_on_the_dense_array(
        case: int, monkeypatch: pytest.MonkeyPatch) -> None:
    levels, numeric, classes, tied = CASES[case]
    rng = np.random.default_rng(100 + case)
    original = frame(rng, 150, levels, numeric, classes, tied)
    synthetic = frame(rng, 200, levels, numeric, classes, tied)
    keys = [c for c in original.columns if c not in ("t", "y")]
    real = fit._sparse_same
    for target in ("t", "y"):
        grid = prepare(original, synthetic, keys, target, kind="categorical" if target == "t"
                       else "numeric")
        spec = resolve("svm", grid.kind)
        query = np.arange(grid.table.shape[1])
        taken: list[bool] = []
        with monkeypatch.context() as spied:
            spied.setattr(fit, "_sparse_same", lambda model, taken=taken: taken.append(real(model))
                          or taken[-1])
            fast = fit.predict(spec, grid, "synthetic", query, seed=0)
        assert taken == [True]  # the fast path ran
        slow = _dense_reference(monkeypatch, spec, grid, query)
        # class codes: equal; SVR's values: libsvm's sums differ at most in the last bits (the
        # order BLAS adds a non-integer feature), i.e. 1e-12 relative on values near 50
        if grid.kind == "categorical" and tied and numeric:
            # exact ties (every class equally frequent at every key): the decision value is 0
            # in exact arithmetic and either path's sign is its rounding's (the dense path's
            # that of the CPU's BLAS kernel); off them (|d| > 1e-9) the classes agree
            # (here every key is such a tie): the two paths' decision values agree to 1e-12
            # (a few ulps of sums of order 1), and the classes off the ties
            dense, on_sparse = (_decision(spec, grid, query, s) for s in (False, True))
            np.testing.assert_allclose(on_sparse, dense, rtol=0, atol=1e-12)
            clear = np.abs(dense) > 1e-9
            assert not clear.any()
            np.testing.assert_array_equal(fast[clear], slow[clear])
        elif grid.kind == "categorical":
            np.testing.assert_array_equal(fast, slow)
        else:
            np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=0)


def test_only_libsvm_with_a_fixed_gamma_takes_the_sparse_path() -> None:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.svm import SVC, SVR

    assert fit._sparse_same(SVC(gamma=0.5)) and fit._sparse_same(SVR(gamma="auto"))
    assert not fit._sparse_same(SVC())  # gamma="scale": another variance formula on sparse
    assert not fit._sparse_same(SVC(gamma=0.5, kernel="linear"))
    assert not fit._sparse_same(SVC(gamma=0.5, probability=True))
    assert not fit._sparse_same(RandomForestClassifier())
    assert not fit._sparse_same(seeded(resolve("rf", "categorical"), 0))


@pytest.mark.parametrize("tied", [False, True])
def test_baseline_table_without_record_frames_is_the_same_table(tied: bool) -> None:
    rng = np.random.default_rng(7)
    members, synthetic, holdout = (frame(rng, n, (3, 4), True, 3, tied) for n in (90, 80, 70))
    options = {"key_length": 2, "holdout": holdout, "seed": 4, "progress": False,
               "attackers": ["cap", "gcap", "nn", "svm", "knn", "lr"]}
    kept: dict = {}
    with_frames = attacks.baseline_table(members, [synthetic, synthetic.iloc[::-1]],
                                         ["k0", "k1", "x"], ["t", "y"], records=kept, **options)
    without = attacks.baseline_table(members, [synthetic, synthetic.iloc[::-1]],
                                     ["k0", "k1", "x"], ["t", "y"], **options)
    pd.testing.assert_frame_equal(with_frames, without)
    assert kept and all(len(r) == len(members) + len(holdout) for r in kept.values())
    grid = prepare(members, synthetic, ["k0", "x"], "t", holdout=holdout)
    full = attacks.attribute.run_attack(grid, "gcap", seed=4)
    bare = attacks.attribute.run_attack(grid, "gcap", seed=4, keep_records=False)
    assert (bare.correct, bare.rate, bare.control, bare.risk_ci) == (
        full.correct, full.rate, full.control, full.risk_ci)
    assert bare.records.empty and len(full.records) == len(members) + len(holdout)


def _nn_frame(rng: np.random.Generator, n: int, kinds: str) -> pd.DataFrame:
    """Keys by ``kinds`` ("c": categorical of 3 levels with missing values, "n": integers 0..4
    (many equal distances), "f": uniform reals), a categorical and a numeric target (some
    missing)."""
    out = {}
    for i, kind in enumerate(kinds):
        if kind == "c":
            values = rng.choice(np.array(["a", "b", "c", None], dtype=object), n,
                                p=[0.4, 0.3, 0.2, 0.1])
        elif kind == "n":
            values = rng.integers(0, 5, n).astype(float)
        else:
            values = rng.random(n) * 10
        out[f"k{i}"] = values
    frame_ = pd.DataFrame(out)
    frame_["t"] = rng.choice(["x", "y", "z"], n)
    frame_["y"] = np.where(rng.random(n) < 0.2, np.nan, rng.normal(10, 3, n))
    return frame_


@pytest.mark.parametrize("kinds", ["c", "cc", "n", "nn", "cn", "ccn", "cnf", "ff", "ccc"])
def test_nn_on_codes_equals_nn_on_key_frames(kinds: str) -> None:
    rng = np.random.default_rng(len(kinds) * 31 + sum(map(ord, kinds)))
    for n_original, n_synthetic in ((40, 30), (200, 150), (5, 400)):
        original, synthetic = (_nn_frame(rng, n, kinds) for n in (n_original, n_synthetic))
        keys = [c for c in original.columns if c.startswith("k")]
        for target in ("t", "y"):
            grid = prepare(original, synthetic, keys, target, allow_disjoint_levels=True)
            query = np.arange(grid.table.shape[1])
            for train in ("synthetic", "members"):
                cells, combos, first = grid.candidates(train)
                slow = fit._nearest_by_frames(grid, cells, combos, first, query)
                fast = fit._nearest(grid, train, query)
                np.testing.assert_array_equal(fast, slow)


def test_keys_checked_once_per_synthesis_still_refuse_a_disjoint_key() -> None:
    from capkit.errors import DisjointLevelsError

    rng = np.random.default_rng(9)
    members, synthetic = (frame(rng, n, (3, 4, 3), True, 2, False) for n in (60, 80))
    checked: set[str] = set()
    prepare(members, synthetic, ["k0", "k1"], "t", checked=checked)
    prepare(members, synthetic, ["k0", "k2"], "t", checked=checked)
    assert checked == {"k0", "k1", "k2"}
    recoded = synthetic.assign(k2="z" + synthetic["k2"])  # no level shared with the members
    with pytest.raises(DisjointLevelsError, match="k2"):
        attacks.baseline_table(members, [synthetic, recoded], ["k0", "k1", "k2"], "t",
                               key_length=2, attackers=["cap"], progress=False)
    with pytest.raises(DisjointLevelsError, match="k2"):  # a key checked for another grid
        prepare(members, recoded, ["k0", "k2"], "t", checked={"k0"})


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("with_holdout", [False, True])
def test_baseline_table_without_the_dummy_is_the_full_table_less_its_rows(
        tied: bool, with_holdout: bool) -> None:
    rng = np.random.default_rng(11 + tied)
    members, synthetic, holdout = (frame(rng, n, (3, 4), True, 3, tied) for n in (90, 80, 70))
    for attackers in (["nn"], ["cap", "gcap", "nn", "knn"]):
        options = {"key_length": 2, "holdout": holdout if with_holdout else None, "seed": 3,
                   "progress": False, "attackers": attackers}
        syntheses = [synthetic, synthetic.iloc[::-1]]
        full = attacks.baseline_table(members, syntheses, ["k0", "k1", "x"], ["t", "y"],
                                      **options)
        bare = attacks.baseline_table(members, syntheses, ["k0", "k1", "x"], ["t", "y"],
                                      dummy=False, **options)
        assert (full["trained_on"] == "dummy").any()
        expected = full[full["trained_on"] != "dummy"].reset_index(drop=True)
        pd.testing.assert_frame_equal(bare, expected)


@pytest.mark.parametrize("tied", [False, True])
def test_nn_members_rows_do_not_depend_on_the_holdout(tied: bool) -> None:
    """nn's guess for a member depends on the training records alone (their ranges and row
    order), so adding a holdout (which widens the grid) leaves the members' rows as they are."""
    rng = np.random.default_rng(21 + tied)
    members, synthetic, holdout = (frame(rng, n, (3, 4), True, 3, tied) for n in (90, 80, 70))
    holdout["x"] += 40.0  # holdout ages outside the members' range: other grid levels
    options = {"key_length": 2, "seed": 0, "progress": False, "attackers": ["nn"],
               "dummy": False}
    syntheses = [synthetic, synthetic.sample(frac=1.0, random_state=1)]
    alone = attacks.baseline_table(members, syntheses, ["k0", "k1", "x"], ["t", "y"], **options)
    with_holdout = attacks.baseline_table(members, syntheses, ["k0", "k1", "x"], ["t", "y"],
                                          holdout=holdout, **options)
    members_rows = with_holdout[with_holdout["scored_on"] == "members"].reset_index(drop=True)
    pd.testing.assert_frame_equal(members_rows[alone.columns], alone)


def _refuses(match: str, **options: object) -> None:
    """baseline_table on two small drawn frames raises a CapkitError naming ``match``."""
    from capkit.errors import CapkitError

    rng = np.random.default_rng(5)
    members, synthetic = (frame(rng, n, (3, 4), False, 2, False) for n in (30, 30))
    with pytest.raises(CapkitError, match=match):
        attacks.baseline_table(members, synthetic, ["k0", "k1"], "t", key_length=1,
                               progress=False, **options)


@pytest.mark.parametrize("bad", ["no", 0, None, np.array([True])])
def test_baseline_table_refuses_a_dummy_that_is_not_a_bool(bad: object) -> None:
    _refuses("dummy", attackers=["cap"], dummy=bad)


def _naive_row_orders(members, syntheses, pool, targets, orders, **options):
    """baseline_table on each reordering of the frames, one call per seed."""
    def shuffle(f, order):
        return f.sample(frac=1.0, random_state=order)
    return pd.concat([attacks.baseline_table(shuffle(members, o),
                                             [shuffle(s, o) for s in syntheses], pool, targets,
                                             **options).assign(row_order=o) for o in orders],
                     ignore_index=True)


def _row_order_cases():
    rng = np.random.default_rng(31)
    for tied, numeric in ((False, True), (True, True), (True, False)):
        members, synthetic, holdout = (frame(rng, n, (3, 4), numeric, 3, tied)
                                       for n in (60, 50, 40))
        members.loc[members.index[::7], "y"] = np.nan  # numeric target values missing
        yield members, [synthetic, synthetic.iloc[::-1]], holdout, True
    members, synthetic, holdout = (frame(rng, n, (3, 3), True, 2, True) for n in (50, 45, 30))
    typed = {"k0": "category", "x": np.int64}  # declared categories, plain integers
    yield members.astype(typed), [synthetic.astype(typed)], holdout.astype(typed), True
    mixed = synthetic.astype({"k0": "category"})  # categorical in one frame, text in the other
    yield members, [mixed], holdout, False


@pytest.mark.parametrize("case", range(5))
@pytest.mark.parametrize("with_holdout", [False, True])
def test_baseline_table_row_orders_equal_one_call_per_reordering(case: int,
                                                                 with_holdout: bool) -> None:
    from capkit.attacks.grid import order_free

    members, syntheses, holdout, free = list(_row_order_cases())[case]
    pool = [c for c in ("k0", "k1", "x") if c in members.columns]
    assert order_free([members, syntheses[0]], [*pool, "t", "y"]) is free
    options = {"key_length": 2, "seed": 2, "progress": False, "check_overlap": False,
               "attackers": ["nn", "gcap", "knn"], "holdout": holdout if with_holdout else None}
    orders = [3, 0, 7]
    fast = attacks.baseline_table(members, syntheses, pool, ["t", "y"], row_orders=orders,
                                  dummy=False, **options)
    slow = _naive_row_orders(members, syntheses, pool, ["t", "y"], orders, dummy=False,
                             **options)
    for order in orders:
        mine = fast[fast["row_order"] == order].drop(columns="row_order").reset_index(drop=True)
        theirs = slow[slow["row_order"] == order].drop(columns="row_order").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
    nn = fast[fast["attacker"] == "nn"].groupby("row_order")["correct"].sum()
    assert nn.nunique() > 1 or case == 0  # the orders change nn's guesses (ties on keys)


@pytest.mark.parametrize("bad", [[], [-1], [1.5], [True], "12", 3])
def test_baseline_table_refuses_bad_row_orders(bad: object) -> None:
    _refuses("row_orders", attackers=["nn"], row_orders=bad)
    _refuses("records", attackers=["nn"], row_orders=[1], records={})
