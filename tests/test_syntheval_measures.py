"""The nearest-record privacy measures (capkit.distance.neighbour_risk), the forest attack and
the SynthEval face against a slow pair-by-pair reference written here from the definitions
(SynthEval 1.7.3's formulas, docs/syntheval-differences.md), on small random tables with ties,
duplicates and mixed columns; and their bad-input errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy

from capkit.attacks.forest_disclosure import forest_disclosure
from capkit.distance import neighbour_risk as nr
from capkit.distance.neighbours import Encoded, Weights, joint_encode, k_nearest
from capkit.errors import CapkitError
from capkit.syntheval import AnalysisConfig, SynthEval

CAT = ["c1", "c2"]
NUM = ["x1", "x2"]


def _table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame({"x1": rng.integers(0, 5, n).astype(float),
                         "c1": rng.choice(["a", "b", "c"], n),
                         "x2": rng.normal(size=n).round(1),
                         "c2": rng.choice(["u", "v"], n)})


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(7)
    real, syn, hold = _table(rng, 40), _table(rng, 35), _table(rng, 15)
    syn.iloc[:6] = real.iloc[:6].to_numpy()  # exact copies
    real.iloc[10] = real.iloc[11].to_numpy()  # a duplicated real record
    return real, syn, hold


def _encoded(frames: tuple) -> list[Encoded]:
    return joint_encode(list(frames), CAT, NUM)


# --- the slow reference ---------------------------------------------------------------------

def ref_distance(a: Encoded, i: int, b: Encoded, j: int, w_cat: list, w_num: list,
                 total: float) -> float:
    """SynthEval's Gower distance of one pair, term by term."""
    num = 0.0
    for k in range(a.num.shape[1]):
        num = num + w_num[k] * abs(float(a.num[i, k]) - float(b.num[j, k]))
    if a.cat.shape[1]:
        mismatch = 0.0
        for k in range(a.cat.shape[1]):
            mismatch = mismatch + w_cat[k] * (a.cat[i, k] != b.cat[j, k])
        num = num + mismatch / float(np.sum(w_cat)) * a.cat.shape[1]
    return num / total


def ref_knn(a: Encoded, b: Encoded, k: int, w_cat: list | None = None,
            w_num: list | None = None, total: float | None = None,
            content_rule: bool = True) -> list[list[float]]:
    """k smallest distances per row of a, the record itself at distance 1 when a equals b."""
    w_cat = w_cat or [1.0] * a.cat.shape[1]
    w_num = w_num or [1.0] * a.num.shape[1]
    total = total if total is not None else float(len(w_cat) + len(w_num))
    same = a.equals(b)
    out = []
    for i in range(len(a)):
        row = [ref_distance(a, i, b, j, w_cat, w_num, total) for j in range(len(b))]
        if same:
            row[i] = 1.0 if content_rule else math.inf
        out.append(sorted(row)[:k])
    return out


def test_k_nearest_equals_the_pairwise_minimum(frames: tuple) -> None:
    real, syn, hold = _encoded(frames)
    for a, b in ((syn, real), (real, syn), (hold, syn), (real, real)):
        got = k_nearest(a, b, 2, self_rule="content")
        assert np.array_equal(got, np.array(ref_knn(a, b, 2)))
    got = k_nearest(real, real, 2, self_rule="identity", same=True)
    assert np.array_equal(got, np.array(ref_knn(real, real, 2, content_rule=False)))
    assert got[10, 0] == 0.0 and got[11, 0] == 0.0  # the duplicate is found, not the record


def test_median_dcr_ratio(frames: tuple) -> None:
    real, syn, _ = _encoded(frames)
    mut = np.median([r[0] for r in ref_knn(syn, real, 1)])
    internal = np.median([r[0] for r in ref_knn(real, real, 1)])
    assert nr.median_dcr_ratio(real, syn, self_rule="content") == mut / internal


def test_nndr_both_directions(frames: tuple) -> None:
    real, syn, hold = _encoded(frames)

    def ratios(a: Encoded, b: Encoded) -> np.ndarray:
        return np.array([0.0 if d1 == 0 else d1 / (d2 + 1e-16) for d1, d2 in ref_knn(a, b, 2)])

    for per, (first, second) in (("real", (ratios(real, syn), ratios(hold, syn))),
                                 ("synthetic", (ratios(syn, real), ratios(syn, hold)))):
        got = nr.nndr(real, syn, hold, per=per)
        assert got["avg"] == pytest.approx(first.mean(), abs=1e-12)
        assert got["err"] == pytest.approx(first.std(ddof=1) / math.sqrt(len(first)), abs=1e-12)
        assert got["priv_loss"] == pytest.approx(second.mean() - first.mean(), abs=1e-12)


def ref_aa(a: Encoded, b: Encoded) -> float:
    ab = [r[0] for r in ref_knn(a, b, 1)]
    aa = [r[0] for r in ref_knn(a, a, 1)]
    ba = [r[0] for r in ref_knn(b, a, 1)]
    bb = [r[0] for r in ref_knn(b, b, 1)]
    left = np.mean([x > y for x, y in zip(ab, aa, strict=True)])
    right = np.mean([x > y for x, y in zip(ba, bb, strict=True)])
    return 0.5 * (left + right)


def test_nnaa_with_and_without_resampling(frames: tuple) -> None:
    real, syn, hold = _encoded(frames)
    got = nr.nnaa(real, syn, hold, n_resample=3, seed=4, self_rule="content")
    assert got["avg"] == ref_aa(real, syn) and got["err"] == 0.0
    # syn (35) is at least twice the holdout (15): three draws of 15 synthetic records
    state = np.random.RandomState(4)
    values = [ref_aa(hold, syn.rows(state.permutation(35)[:15])) for _ in range(3)]
    assert got["priv_loss"] == pytest.approx(np.mean(values) - got["avg"], abs=1e-12)


def test_epsilon_identifiability(frames: tuple) -> None:
    real, syn, hold = _encoded(frames)
    order = np.array([2, 0, 3, 1])  # data order x1, c1, x2, c2 in concat(cat, num)
    weights, total = nr.entropy_weights(real, order)

    def w(column: np.ndarray) -> float:
        return 1 / (entropy(np.unique(np.round(column), return_counts=True)[1]) + 1e-16)

    w_cat = [w(real.cat[:, k]) for k in range(2)]
    w_num = [w(real.num[:, k]) for k in range(2)]
    assert list(weights.cat) == w_cat and list(weights.num) == w_num
    expected_total = float(np.sum(np.array([w_num[0], w_cat[0], w_num[1], w_cat[1]])))
    assert total == expected_total

    def share(a: Encoded, n: int) -> float:
        inside = ref_knn(a, a, 1, w_cat, w_num, total)
        outside = ref_knn(a, syn, 1, w_cat, w_num, total)
        return sum(o[0] - i[0] < 0 for o, i in zip(outside, inside, strict=True)) / n

    got = nr.epsilon_identifiability(real, syn, hold, weights=weights, total=total,
                                     self_rule="content", holdout_denominator="real")
    assert got["eps_risk"] == share(real, len(real))
    assert got["priv_loss"] == pytest.approx(share(real, len(real)) - share(hold, len(real)))
    fixed = nr.epsilon_identifiability(real, syn, hold, weights=weights, total=total,
                                       self_rule="content")
    assert fixed["priv_loss"] == pytest.approx(share(real, len(real)) - share(hold, len(hold)))


def test_hitting_rate(frames: tuple) -> None:
    real, syn, _ = _encoded(frames)
    for thres in (0.0, 1 / 30, 0.2):
        thr = thres * (real.num.max(axis=0) - real.num.min(axis=0))
        hits = 0
        for i in range(len(real)):
            hits += any(all(real.cat[i, k] == syn.cat[j, k] for k in range(2))
                        and all(abs(real.num[i, k] - syn.num[j, k]) <= thr[k] for k in range(2))
                        for j in range(len(syn)))
        assert nr.hitting_rate(real, syn, thres, pair_batch=7) == hits / len(real)


def test_identity_rule_sees_a_verbatim_copy(frames: tuple) -> None:
    """SynthEval's content rule calls a copy of the real table "safe" (mDCR 1); capkit's
    identity rule sees every synthetic record at distance 0."""
    real, _, _ = _encoded(frames)
    copy = Encoded(real.cat.copy(), real.num.copy())
    assert nr.median_dcr_ratio(real, copy, self_rule="content") == 1.0
    assert nr.median_dcr_ratio(real, copy) == 0.0
    assert nr.median_dcr_ratio(real, copy, zero_internal="syntheval") == 0.0


def test_weighted_distance_without_renormalising(frames: tuple) -> None:
    real, syn, _ = _encoded(frames)
    weights = Weights(np.array([2.0, 0.5]), np.array([1.0, 3.0]), renormalise=False)
    got = k_nearest(syn, real, 1, weights=weights, total=6.5)[:, 0]
    for i in range(len(syn)):
        best = min((2.0 * (syn.cat[i, 0] != real.cat[j, 0]) + 0.5 * (syn.cat[i, 1]
                    != real.cat[j, 1]) + abs(syn.num[i, 0] - real.num[j, 0])
                    + 3.0 * abs(syn.num[i, 1] - real.num[j, 1])) / 6.5 for j in range(len(real)))
        assert got[i] == pytest.approx(best, abs=1e-12)


def test_forest_disclosure_members_and_holdout(frames: tuple) -> None:
    real, syn, hold = frames
    result = forest_disclosure(real, syn, ["c1", "x2"], CAT, holdout=hold, seed=1,
                               n_estimators=10)
    table = result.table
    assert list(table.index) == ["c1", "x2"]
    pooled = (table["members_accuracy"] * len(real) + table["holdout_accuracy"] * len(hold)) / (
        len(real) + len(hold))
    assert np.allclose(pooled, table["accuracy"], atol=1e-12)
    again = forest_disclosure(real, syn, ["c1", "x2"], CAT, holdout=hold, seed=1,
                              n_estimators=10)
    pd.testing.assert_frame_equal(table, again.table)
    with pytest.raises(CapkitError, match="sensitive column 'zz'"):
        forest_disclosure(real, syn, ["zz"], CAT)
    with pytest.raises(CapkitError, match="numeric_tolerance"):
        forest_disclosure(real, syn, ["x1"], CAT, numeric_tolerance=0)
    with pytest.raises(CapkitError, match="sensitive is empty"):
        forest_disclosure(real, syn, [], CAT)


def test_face_bad_input_and_unmodified_frames(frames: tuple) -> None:
    real, syn, hold = frames
    before = [f.copy() for f in frames]
    se = SynthEval(real, holdout_dataframe=hold, cat_cols=CAT)
    table = se.evaluate(syn, dcr={}, nndr={}, nnaa={"n_resample": 3}, hit_rate={},
                        eps_risk={}, mia={"num_eval_iter": 2},
                        analysis_target=AnalysisConfig(real, "c1", sensitive_vars=["c1"]),
                        att_discl={})
    assert list(table.columns) == ["metric", "dim", "val", "err", "n_val", "n_err"]
    assert len(table) == 11
    for frame, copy in zip(frames, before, strict=True):
        pd.testing.assert_frame_equal(frame, copy)
    again = SynthEval(real, holdout_dataframe=hold, cat_cols=CAT).evaluate(
        syn, dcr={}, nnaa={"n_resample": 3}, mia={"num_eval_iter": 2})
    assert again.equals(SynthEval(real, holdout_dataframe=hold, cat_cols=CAT).evaluate(
        syn, dcr={}, nnaa={"n_resample": 3}, mia={"num_eval_iter": 2}))
    with pytest.raises(CapkitError, match="missing values in \\['x1'\\]"):
        SynthEval(real.assign(x1=np.where(real.index == 0, np.nan, real["x1"])), cat_cols=CAT)
    with pytest.raises(CapkitError, match="cat_cols names 'nope'"):
        SynthEval(real, cat_cols=["nope"])
    with pytest.raises(CapkitError, match="holdout_dataframe must have the columns"):
        SynthEval(real, holdout_dataframe=hold.drop(columns="c2"), cat_cols=CAT)
    with pytest.raises(CapkitError, match="synthetic_dataframe must have the columns"):
        se.evaluate(syn.drop(columns="c2"), dcr={})
    with pytest.raises(CapkitError, match="synthetic_dataframe is empty"):
        se.evaluate(syn.iloc[:0], dcr={})
    with pytest.raises(CapkitError, match="thres_percent"):
        se.evaluate(syn, hit_rate={"thres_percent": -1})
    with pytest.raises(CapkitError, match="n_resample"):
        se.evaluate(syn, nnaa={"n_resample": 1})
    with pytest.raises(CapkitError, match="sensitive variable 'zz'"):
        AnalysisConfig(real, "c1", sensitive_vars=["zz"])


def test_face_corrected_choices_differ_where_documented(frames: tuple) -> None:
    real, syn, hold = frames
    compat = SynthEval(real, holdout_dataframe=hold, cat_cols=CAT)
    fixed = SynthEval(real, holdout_dataframe=hold, cat_cols=CAT, compat=False)
    compat.evaluate(syn, eps_risk={}, nndr={})
    fixed.evaluate(syn, eps_risk={}, nndr={})
    enc = _encoded(frames)
    assert fixed.raw_results["nndr"] == nr.nndr(enc[0], enc[1], enc[2])
    assert compat.raw_results["nndr"] == nr.nndr(enc[0], enc[1], enc[2], per="real",
                                                 self_rule="content")
    assert fixed.raw_results["eps_risk"] != compat.raw_results["eps_risk"]


def test_categorical_columns_inferred_as_syntheval() -> None:
    from capkit.syntheval import categorical_columns

    frame = pd.DataFrame({"s": ["a", "b"] * 10, "few": [1, 2] * 10,
                          "many": np.arange(20), "flag": [True, False] * 10})
    assert categorical_columns(frame, 10) == ["s", "few", "flag"]


def test_seed_none_is_numpys_global_state_as_in_syntheval(frames: tuple) -> None:
    real, syn, hold = _encoded(frames)
    np.random.seed(3)  # noqa: NPY002 - SynthEval draws from the global state
    from_global = nr.nnaa(real, syn, hold, n_resample=4, seed=None)
    assert from_global == nr.nnaa(real, syn, hold, n_resample=4, seed=3)
    with pytest.raises(CapkitError, match="seed must be"):
        nr.nnaa(real, syn, hold, seed=-1)


def test_presets_run_their_privacy_entries(frames: tuple) -> None:
    real, syn, hold = frames
    se = SynthEval(real, holdout_dataframe=hold, cat_cols=CAT)
    with pytest.warns(UserWarning, match="utility entries"):
        table = se.evaluate(syn, presets_file="fast_eval", nnaa={"n_resample": 3})
    assert list(se.raw_results) == ["nnaa", "hit_rate"]  # preset order, nnaa overridden
    assert list(table["metric"]) == ["nnaa", "priv_loss_nnaa", "hit_rate"]
    with pytest.raises(CapkitError, match="presets_file"):
        se.evaluate(syn, presets_file="everything")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_euclid_neighbours_are_scikit_learns(seed: int) -> None:
    """capkit.distance.neighbours.euclidean_k_nearest (SynthEval's ``euclid``) against
    scikit-learn's NearestNeighbors as SynthEval calls it (tree search, up to 15 columns): the
    same distances to the bit, with ties (values on a grid), the table against itself (first
    neighbour dropped) and weights."""
    from sklearn.neighbors import NearestNeighbors

    from capkit.distance.neighbours import euclidean_k_nearest

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, (60, 5)) / 3
    b = np.round(rng.random((80, 5)), 1)
    weights = rng.uniform(0.5, 3, 5)
    for w in (None, weights):
        params = {} if w is None else {"metric_params": {"w": w}}
        for k in (1, 2):
            nn = NearestNeighbors(n_neighbors=k + 1, **params).fit(b)
            want = nn.kneighbors(a)[0][:, :k]
            np.testing.assert_array_equal(euclidean_k_nearest(a, b, k, weights=w), want)
            own = NearestNeighbors(n_neighbors=k + 1, **params).fit(a).kneighbors(a)[0]
            np.testing.assert_array_equal(euclidean_k_nearest(a, a.copy(), k, weights=w),
                                          own[:, 1:k + 1])
