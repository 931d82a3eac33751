"""capkit.membership_inference.scores: every score against a slow pair-by-pair reference written
here, the calibration series (leaky releases), determinism and the bad-input rules.

The references loop over record pairs in Python and follow the documented formulas
(:mod:`capkit.membership_inference.attacks`): the Gower distance of :mod:`capkit.distance.gower`
(categorical mismatches first, then the numeric terms, in column order, divided by the number
of columns), the squared Euclidean distance of DOMIAS, the Gaussian KDE written term by term.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import gaussian_kde
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from capkit.errors import CapkitError
from capkit.membership_inference import ATTACKS, kde, metrics, scores

# ---------------------------------------------------------------- data


def population(n: int, seed: int, *, missing: bool = False) -> pd.DataFrame:
    """Mixed-type records: a float, an integer with many ties, two categorical columns."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], size=n, p=[0.5, 0.3, 0.2])
    size = np.where(colour == "red", rng.choice(["S", "M"], size=n),
                    rng.choice(["M", "L", "XL"], size=n))
    height = np.round(rng.normal(170, 10, size=n), 2)
    age = rng.integers(18, 40, size=n).astype(np.int64)
    frame = pd.DataFrame({"height": height, "colour": colour, "age": age, "size": size})
    if missing:
        frame["height"] = frame["height"].astype(float)
        frame.loc[rng.random(n) < 0.1, "height"] = np.nan
    return frame


def small_case(seed: int = 1, *, missing: bool = False):
    members = population(40, seed, missing=missing)
    nonmembers = population(30, seed + 1, missing=missing)
    reference = population(35, seed + 2, missing=missing)
    synthetic = pd.concat([members.iloc[:5], population(45, seed + 3, missing=missing)],
                          ignore_index=True)  # five copies of members
    return members, nonmembers, synthetic, reference


# ---------------------------------------------------------------- slow references

NUMERIC = ["height", "age"]
CATEGORICAL = ["colour", "size"]


def slow_gower(frames):
    """Pairwise Gower distance function over the four frames' union ranges (slow, by pair)."""
    stacked = pd.concat(frames, ignore_index=True)
    ranges = {}
    for c in NUMERIC:
        span = stacked[c].max() - stacked[c].min()
        ranges[c] = span if span > 0 else 1.0
    flagged = [c for c in NUMERIC if stacked[c].isna().any()]
    p = len(NUMERIC) + len(CATEGORICAL)

    def d(x, y):
        total = 0.0
        for c in CATEGORICAL:
            total += 1.0 if x[c] != y[c] else 0.0
        for c in flagged:  # "is missing" indicator, as a categorical column of weight 1
            total += 1.0 if pd.isna(x[c]) != pd.isna(y[c]) else 0.0
        for c in NUMERIC:
            a, b = x[c] * (1.0 / ranges[c]), y[c] * (1.0 / ranges[c])
            term = abs(a - b)
            total += 0.0 if math.isnan(term) else term
        return total / p

    return d


def records(frame):
    return [row for _, row in frame.iterrows()]


def slow_scores(members, nonmembers, synthetic, reference, k=20):
    d = slow_gower([members, nonmembers, synthetic, reference])
    xs = records(members) + records(nonmembers)
    gs, rs = records(synthetic), records(reference)
    dg = [[d(x, g) for g in gs] for x in xs]
    dr = [[d(x, r) for r in rs] for x in xs]
    d_g = [min(row) for row in dg]
    d_r = [min(row) for row in dr]
    eps = float(np.median(d_g))
    out = {
        "dcr": [-v for v in d_g],
        "dcr_diff": [b - a for a, b in zip(d_g, d_r, strict=True)],
        "gan_leaks": [math.exp(-v) for v in d_g],
        "gan_leaks_cal": [1 / (1 + math.exp(-(b - a))) for a, b in zip(d_g, d_r, strict=True)],
        "mc": [sum(1 for v in row if v < eps) / len(gs) for row in dg],
    }
    dpi = []
    for row_g, row_r in zip(dg, dr, strict=True):
        both = sorted([(v, True) for v in row_g] + [(v, False) for v in row_r])
        kk = min(k, len(both))
        kth = both[kk - 1][0]
        less = [s for v, s in both if v < kth]
        tied = [s for v, s in both if v == kth]
        dpi.append((sum(less) + (kk - len(less)) * sum(tied) / len(tied)) / kk)
    out["dpi"] = dpi
    return out, eps


def slow_kde(data, points, *, log=False):
    """scipy's formula, term by term (spec shared/spec/domias.md section 1.1)."""
    n, dim = data.shape
    w = np.ones(n) / n
    factor = (1 / np.sum(w**2)) ** (-1 / (dim + 4))
    cov = np.cov(data.T, aweights=w)
    chol = np.linalg.cholesky(cov) * factor
    inv = np.linalg.inv(chol)
    norm = (2 * math.pi) ** (-dim / 2) / np.prod(np.diag(chol))
    out = []
    for x in points:
        terms = [(-0.5 * float(np.sum((inv @ (x - xi)) ** 2))) for xi in data]
        if log:
            top = max(terms)
            out.append(math.log(norm / n) + top + math.log(sum(math.exp(t - top)
                                                                for t in terms)))
        else:
            out.append(sum(w[i] * norm * math.exp(t) for i, t in enumerate(terms)))
    return np.array(out)


# ---------------------------------------------------------------- scores vs references


@pytest.mark.parametrize("missing", [False, True])
def test_distance_scores_match_pair_by_pair(missing):
    m, n, g, r = small_case(missing=missing)
    out = scores(m, n, g, r, attacks=("dcr", "dcr_diff", "gan_leaks", "gan_leaks_cal", "mc",
                                      "dpi"), k=7)
    expected, eps = slow_scores(m, n, g, r, k=7)
    for attack, values in expected.items():
        np.testing.assert_allclose(out[attack].to_numpy(), values, rtol=1e-13, atol=1e-15,
                                   err_msg=attack)
    assert out.attrs["settings"]["mc_epsilon"] == pytest.approx(eps, rel=1e-13)
    # the copies of members are at distance 0
    assert (out["dcr"].iloc[:5] == 0).all()
    if missing:
        assert any("missing values" in note for note in out.attrs["notes"])


def test_dpi_ties_split_and_k_larger_than_targets():
    m, n, g, r = small_case(seed=5)
    out = scores(m, n, g, r, attacks=("dpi",), k=500)  # k > |G| + |R|: everything counted
    share = len(g) / (len(g) + len(r))
    np.testing.assert_allclose(out["dpi"], share, rtol=1e-14)
    out = scores(m, n, g, r, attacks=("dpi",), k=1)
    expected, _ = slow_scores(m, n, g, r, k=1)
    np.testing.assert_allclose(out["dpi"], expected["dpi"], rtol=1e-14)
    # a record equally close to two synthetic and one reference record: 2/3 whatever the order
    one = pd.DataFrame({"a": [0.0, 10.0], "c": ["x", "y"]})
    far = pd.DataFrame({"a": [50.0, 60.0], "c": ["y", "x"]})
    syn = pd.DataFrame({"a": [1.0, -1.0, 30.0], "c": ["x", "x", "y"]})
    ref = pd.DataFrame({"a": [1.0, 40.0], "c": ["x", "y"]})
    for k, expected_share in ((1, 2 / 3), (2, 2 / 3), (3, 2 / 3), (4, 3 / 4)):
        out = scores(one, far, syn, ref, attacks=("dpi",), k=k)
        assert out["dpi"].iloc[0] == pytest.approx(expected_share, rel=1e-14), k
        shuffled = scores(one, far, syn.iloc[::-1], ref.iloc[::-1], attacks=("dpi",), k=k)
        assert shuffled["dpi"].iloc[0] == out["dpi"].iloc[0]


def test_domias_log_ratio_matches_term_by_term_kde():
    m, n, g, r = small_case(seed=3)
    out = scores(m, n, g, r, attacks=("domias", "domias_density"))
    x = pd.concat([m, n])[NUMERIC].to_numpy(float)
    log_g = slow_kde(g[NUMERIC].to_numpy(float), x, log=True)
    log_r = slow_kde(r[NUMERIC].to_numpy(float), x, log=True)
    np.testing.assert_allclose(out["domias_density"], log_g, rtol=1e-12)
    np.testing.assert_allclose(out["domias"], log_g - log_r, rtol=1e-10, atol=1e-10)
    assert out.attrs["settings"]["density_columns"] == NUMERIC
    assert any("categorical" in note for note in out.attrs["notes"])


def test_domias_far_records_do_not_underflow():
    """Far from all data scipy's density is 0.0; capkit's log ratio stays finite."""
    rng = np.random.default_rng(0)
    frame = lambda n, shift=0.0: pd.DataFrame(rng.normal(shift, 1, size=(n, 2)),  # noqa: E731
                                              columns=["a", "b"])
    m, n, g, r = frame(20), frame(20, 60.0), frame(50), frame(50)
    out = scores(m, n, g, r, attacks=("domias", "domias_density"))
    assert np.isfinite(out["domias"]).all() and np.isfinite(out["domias_density"]).all()
    compat = scores(m, n, g, r, attacks=("domias", "domias_density"), compat="domias")
    assert (compat["domias_density"].iloc[20:] == 0).all()  # DOMIAS's density underflows
    slow = slow_kde(g.to_numpy(), pd.concat([m, n]).to_numpy(), log=True)
    np.testing.assert_allclose(out["domias_density"], slow, rtol=1e-12)


def test_kde_density_is_scipys_loop_for_any_thread_count():
    """kde.density makes scipy's own arithmetic (bit for bit), and every point is summed by one
    thread: the same bytes for 1, 2 or 5 threads; log_density's far points (the sum redone with
    the largest term factored out) against the term-by-term reference, for any thread count."""
    rng = np.random.default_rng(7)
    data = rng.normal(size=(300, 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 2.0, 0.5],
                                                 [0.0, 0.0, 0.7]])
    data[:, 2] = np.round(data[:, 2])  # ties, as in integer columns
    points = np.concatenate([rng.normal(size=(37, 3)), rng.normal(40.0, 1.0, size=(6, 3))])
    fitted = kde.fit(data)
    expected = gaussian_kde(data.T)(points.T)  # scipy's compiled loop
    assert (expected[-6:] == 0).all()     # the far points underflow in scipy
    for threads in (1, 2, 5, 100):
        got = kde.density(fitted, points, threads=threads)
        assert got.tobytes() == expected.tobytes(), threads
    slow = slow_kde(data, points, log=True)
    one = kde.log_density(fitted, points, threads=1)
    np.testing.assert_allclose(one, slow, rtol=1e-12)
    for threads in (2, 3):
        assert kde.log_density(fitted, points, threads=threads).tobytes() == one.tobytes()
    assert kde.default_threads() >= 1
    with pytest.raises(CapkitError, match="columns"):
        kde.density(fitted, points[:, :2])


def test_compat_squared_distances_pair_by_pair():
    rng = np.random.default_rng(2)
    cols = ["a", "b", "c"]
    make = lambda n: pd.DataFrame(rng.integers(0, 4, size=(n, 3)).astype(float),  # noqa: E731
                                  columns=cols)
    m, n, g, r = make(25), make(25), make(40), make(30)
    out = scores(m, n, g, r, attacks=("dcr", "dcr_diff", "mc", "dpi", "gan_leaks_cal"),
                 compat="domias", overlap="allow", k=5)
    xs = pd.concat([m, n]).to_numpy()
    d2 = lambda x, y: sum((x[i] - y[i]) ** 2 for i in range(3))  # noqa: E731
    dg = [[d2(x, y) for y in g.to_numpy()] for x in xs]
    dr = [[d2(x, y) for y in r.to_numpy()] for x in xs]
    d_g, d_r = [min(v) for v in dg], [min(v) for v in dr]
    eps = float(np.median(d_g))
    np.testing.assert_array_equal(out["dcr"], [-v for v in d_g])
    np.testing.assert_array_equal(out["dcr_diff"], [b - a for a, b in zip(d_g, d_r,
                                                                            strict=True)])
    np.testing.assert_array_equal(out["mc"], [sum(v < eps for v in row) / 40 for row in dg])
    np.testing.assert_allclose(out["gan_leaks_cal"],
                               [1 / (1 + math.exp(a - b)) for a, b in zip(d_g, d_r,
                                                                          strict=True)],
                               rtol=1e-14)
    # the same distance chosen without compat: the same distance scores, capkit's DOMIAS
    chosen = scores(m, n, g, r, attacks=("dcr", "mc", "domias"), distance="squared_euclidean",
                    overlap="allow")
    np.testing.assert_array_equal(chosen["dcr"], out["dcr"])
    np.testing.assert_array_equal(chosen["mc"], out["mc"])
    assert chosen.attrs["settings"]["distance"] == "squared_euclidean"
    dpi = []
    for row_g, row_r in zip(dg, dr, strict=True):
        both = sorted([(v, 1) for v in row_g] + [(v, 0) for v in row_r])
        kth = both[4][0]
        less = [s for v, s in both if v < kth]
        tied = [s for v, s in both if v == kth]
        dpi.append((sum(less) + (5 - len(less)) * sum(tied) / len(tied)) / 5)
    np.testing.assert_allclose(out["dpi"], dpi, rtol=1e-14)


def test_classifier_is_synthetic_vs_reference_model():
    m, n, g, r = small_case(seed=4)
    out = scores(m, n, g, r, attacks=("classifier",), seed=3)
    # the default model, fitted here on features built by hand
    def feats(frame):
        cols = [frame[c].to_numpy(float) for c in NUMERIC]
        for c in CATEGORICAL:
            levels = list(pd.unique(pd.concat([m, n, g, r])[c]))
            cols.append(frame[c].map(levels.index).to_numpy(float))
        return np.column_stack(cols)
    model = HistGradientBoostingClassifier(categorical_features=[False, False, True, True],
                                           class_weight="balanced", random_state=3)
    with threadpool_limits(limits=1):
        model.fit(np.concatenate([feats(g), feats(r)]), np.r_[np.ones(len(g)),
                                                               np.zeros(len(r))])
        expected = model.predict_proba(feats(pd.concat([m, n])))[:, 1]
    np.testing.assert_allclose(out["classifier"], expected, rtol=1e-12)
    # a user's model: cloned (left unfitted), fed standardised numbers and level indicators
    user = LogisticRegression(max_iter=1000)
    out = scores(m, n, g, r, attacks=("classifier",), classifier=user)
    assert not hasattr(user, "coef_")
    train = pd.concat([g, r])
    def onehot(frame):
        cols = [(frame[c] - train[c].mean()) / train[c].std(ddof=0) for c in NUMERIC]
        for c in CATEGORICAL:
            levels = list(pd.unique(pd.concat([m, n, g, r])[c]))
            cols += [(frame[c] == lv).astype(float) for lv in levels]
        return np.column_stack(cols)
    ref = LogisticRegression(max_iter=1000).fit(onehot(train), np.r_[np.ones(len(g)),
                                                                     np.zeros(len(r))])
    np.testing.assert_allclose(out["classifier"], ref.predict_proba(onehot(pd.concat([m, n])))
                               [:, 1], rtol=1e-9)
    with pytest.raises(CapkitError, match="classifier must be"):
        scores(m, n, g, r, attacks=("classifier",), classifier=object())


# ---------------------------------------------------------------- layout, determinism


def test_rows_columns_and_metrics_frame():
    m, n, g, r = small_case()
    out = scores(m, n, g, r)
    assert list(out.columns) == ["member", *ATTACKS]
    assert out["member"].tolist() == [True] * len(m) + [False] * len(n)
    table = metrics(out)
    assert list(table.index) == list(ATTACKS)
    assert table.loc["dcr", "auc"] > 0.5  # five members copied


def test_same_inputs_same_bytes_and_inputs_untouched():
    m, n, g, r = small_case(missing=True)
    copies = [f.copy(deep=True) for f in (m, n, g, r)]
    a = scores(m, n, g, r, seed=7)
    b = scores(m, n, g, r, seed=7)
    for column in a.columns:
        assert a[column].to_numpy().tobytes() == b[column].to_numpy().tobytes(), column
    for before, after in zip(copies, (m, n, g, r), strict=True):
        pd.testing.assert_frame_equal(before, after)
    # column order of the inputs does not matter
    c = scores(m, n[n.columns[::-1]], g[g.columns[::-1]], r, seed=7)
    pd.testing.assert_frame_equal(a, c)


def test_reference_split_off_the_nonmembers():
    m, n, g, _ = small_case()
    n = pd.concat([n, population(30, 99)], ignore_index=True)
    out = scores(m, n, g, seed=11)
    settings = out.attrs["settings"]
    assert settings["n_reference"] == 30 and settings["n_nonmembers"] == 30
    scored = settings["scored_nonmembers"]
    expected = np.sort(np.random.default_rng(11).permutation(60)[30:])
    np.testing.assert_array_equal(scored, expected)
    # the same scores as when the split is given explicitly
    rest = np.setdiff1d(np.arange(60), scored)
    explicit = scores(m, n.iloc[scored], g, n.iloc[rest], seed=11)
    pd.testing.assert_frame_equal(out, explicit)
    assert any("split off" in note for note in out.attrs["notes"])
    # attacks that need no reference score every non-member
    assert len(scores(m, n, g, attacks=("dcr", "mc"))) == len(m) + len(n)


# ---------------------------------------------------------------- calibration


def leaky(members, base, f, seed):
    """Replace a share f of the synthetic records by copies of members."""
    rng = np.random.default_rng(seed)
    k = int(round(f * len(base)))
    out = base.copy()
    if k:
        out.iloc[rng.choice(len(base), k, replace=False)] = members.iloc[
            rng.choice(len(members), k, replace=False)].to_numpy()
    return out


def numeric_population(n: int, seed: int, d: int = 6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, d))
    z[:, 1] += 0.5 * z[:, 0]
    return pd.DataFrame(z, columns=[f"x{i}" for i in range(d)])


def calibration_table(make, n=800, **options):
    members, holdout = make(n, 21), make(n, 22)
    reference, base = make(n, 23), make(n, 24)
    auc, tpr = {}, {}
    for f in (0.0, 0.01, 0.05, 0.2):
        table = metrics(scores(members, holdout, leaky(members, base, f, 5), reference, seed=0,
                               **options))
        auc[f], tpr[f] = table["auc"], table["tpr_at_fpr_0.01"]
    return pd.DataFrame(auc), pd.DataFrame(tpr)


def rises(row: pd.Series) -> bool:
    return bool(row.is_monotonic_increasing and row.is_unique)


def test_calibration_auc_and_tpr_rise_with_leak():
    """Leaky releases f = 0, 0.01, 0.05, 0.2 of a synthesis that is a fresh population sample
    (800 records each, six correlated numeric columns; at 500, MC's AUC dips at f = 0.01)."""
    auc, tpr = calibration_table(numeric_population)
    # the fresh sample: no attack tells members from non-members
    assert (auc[0.0] - 0.5).abs().max() < 0.05, auc[0.0]
    for attack in ("dcr", "dcr_diff", "gan_leaks", "gan_leaks_cal", "mc", "domias",
                   "domias_density", "classifier"):
        assert rises(auc.loc[attack]), (attack, auc.loc[attack])
    for attack in ("dcr", "dcr_diff", "gan_leaks", "gan_leaks_cal", "domias"):
        assert rises(tpr.loc[attack]), (attack, tpr.loc[attack])
    assert tpr.loc["classifier"].is_monotonic_increasing
    assert tpr.loc["classifier", 0.2] > tpr.loc["classifier", 0.0]
    # DPI (k = 20) reacts only at f = 0.2 here: a copy is one of the 20 neighbours; its scores
    # are multiples of 1/20, so its TPR at FPR 0.01 is coarse. MC's scores are counts with
    # many ties: its TPR at FPR 0.01 does not rise (its AUC does).
    assert auc.loc["dpi", 0.2] > auc.loc["dpi", 0.0]


def test_calibration_mixed_types():
    """The same series on mixed-type records (Gower distance; DOMIAS sees the numbers only)."""
    auc, tpr = calibration_table(population, overlap="allow",
                                 attacks=("dcr", "dcr_diff", "mc"))
    for attack in ("dcr", "dcr_diff", "mc"):
        assert rises(auc.loc[attack]), (attack, auc.loc[attack])
    assert rises(tpr.loc["dcr"]), tpr.loc["dcr"]


# ---------------------------------------------------------------- bad input


def test_no_nonmembers():
    m, _, g, r = small_case()
    for empty in (None, m.iloc[:0]):
        with pytest.raises(CapkitError, match="records not used for the synthesis"):
            scores(m, empty, g, r)


def test_overlap_counted():
    """Twins are scored (a note says how many and what chance predicts); "strict" refuses
    any; a holdout that is the members is refused by default."""
    m, n, g, r = small_case()
    n2 = pd.concat([n, m.iloc[:3]], ignore_index=True)
    with pytest.raises(CapkitError, match="3 non-member record"):
        scores(m, n2, g, r, overlap="strict")
    out = scores(m, n2, g, r, attacks=("dcr",))
    assert len(out) == len(m) + len(n2)
    note = [x for x in out.attrs["notes"] if "identical to a member" in x]
    assert note and note[0].startswith("3 non-member record(s) of 33")
    # scored as they are: a twin's score is its member's score
    np.testing.assert_array_equal(out["dcr"].to_numpy()[len(m) + len(n):],
                                  out["dcr"].to_numpy()[:3])
    r2 = pd.concat([r, n.iloc[:2]], ignore_index=True)
    with pytest.raises(CapkitError, match="2 scored non-member record"):
        scores(m, n, g, r2, overlap="strict")
    assert any("a reference record" in x for x in scores(m, n, g, r2).attrs["notes"])
    out = scores(m, n2, g, r, overlap="allow", attacks=("dcr",))
    assert any("identical to a member" in note for note in out.attrs["notes"])


@pytest.mark.parametrize("n_members_in", [30, 16])
def test_holdout_that_is_the_members_is_refused(n_members_in):
    """More than half of the holdout identical to a member, far above the members' own
    duplicate rate (0 here): the holdout is the members. 16 of 30 is just past half."""
    m, n, g, r = small_case()
    holdout = pd.concat([m.iloc[:n_members_in], n.iloc[:30 - n_members_in]],
                        ignore_index=True)
    with pytest.raises(CapkitError, match="mostly those of the members"):
        scores(m, holdout, g, r)
    assert len(scores(m, holdout, g, r, overlap="allow", attacks=("dcr",))) == len(m) + 30


def test_half_the_holdout_identical_is_scored():
    """15 of 30 is not more than half: scored, with a note that it is more than chance."""
    m, n, g, r = small_case()
    holdout = pd.concat([m.iloc[:15], n.iloc[:15]], ignore_index=True)
    out = scores(m, holdout, g, r, attacks=("dcr",))
    assert any("more than chance" in x for x in out.attrs["notes"])


def test_twins_of_coarse_data_are_scored():
    """On two coarse columns nearly every record has a twin among the members, so a holdout
    whose records nearly all equal a member is what chance predicts: scored, not refused."""
    m, n, g, r = (f[CATEGORICAL] for f in small_case())
    out = scores(m, n, g, r, attacks=("dcr",))
    shared = [x for x in out.attrs["notes"] if "identical to a member" in x]
    assert shared and "population twins" in shared[0]
    share = int(shared[0].split()[0]) / len(n)
    assert share > 0.5  # most of the holdout: refused only if beyond chance


def test_bad_frames_and_options():
    m, n, g, r = small_case()
    with pytest.raises(CapkitError, match="at least 2"):
        scores(m.iloc[:1], n, g, r)
    with pytest.raises(CapkitError, match="at least 2"):
        scores(m, n.iloc[:1], g, r)
    with pytest.raises(CapkitError, match="same columns"):
        scores(m, n.drop(columns="age"), g, r)
    with pytest.raises(CapkitError, match="different kinds"):
        scores(m, n, g.assign(age=g["age"].astype(str)), r)
    with pytest.raises(CapkitError, match="attacks must be"):
        scores(m, n, g, r, attacks=("logan",))
    with pytest.raises(CapkitError, match="compat"):
        scores(m, n, g, r, compat="tapas")
    with pytest.raises(CapkitError, match="numeric columns only"):
        scores(m, n, g, r, compat="domias")
    with pytest.raises(CapkitError, match="numeric columns only"):
        scores(m, n, g, r, distance="squared_euclidean")
    with pytest.raises(CapkitError, match="distance must be"):
        scores(m, n, g, r, distance="manhattan")
    with pytest.raises(CapkitError, match="DataFrame"):
        scores(m.to_numpy(), n, g, r)
    with pytest.raises(CapkitError, match="too few"):
        scores(m, n.iloc[:3], g)
    mm, nn, gg, rr = small_case(missing=True)
    with pytest.raises(CapkitError, match="missing values"):
        scores(mm[NUMERIC], nn[NUMERIC], gg[NUMERIC], rr[NUMERIC], compat="domias")


def test_constant_columns_documented():
    m, n, g, r = (f.assign(flat=1.0) for f in small_case())
    out = scores(m, n, g, r)
    assert "flat" not in out.attrs["settings"]["density_columns"]
    assert any("'flat' (constant" in note for note in out.attrs["notes"])
    base = scores(*(f.drop(columns="flat") for f in (m, n, g, r)))
    # a constant column adds 0 to every distance, 1 to the number of columns
    np.testing.assert_allclose(out["dcr"] * 5, base["dcr"] * 4, rtol=1e-13)


def test_no_numeric_column_for_domias():
    m, n, g, r = (f[CATEGORICAL] for f in small_case())
    out = scores(m, n, g, r, overlap="allow")
    assert out["domias"].isna().all()
    assert any("no numeric column" in note for note in out.attrs["notes"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ball_counts_pruned_by_sums_count_every_pair(seed):
    """MC's ball counts skip targets whose sum of numeric values is out of reach: the counts
    equal a pair-by-pair count, with values on a coarse grid so that many distances fall on the
    radius itself (ties at the boundary), with a missing value (no pruning), and with the
    queries shared out to threads or not."""
    from capkit.distance.radius import gower_ball_counts

    rng = np.random.default_rng(seed)
    cat_q, cat_t = rng.integers(0, 2, (120, 2)), rng.integers(0, 2, (300, 2))
    num_q, num_t = rng.integers(0, 6, (120, 3)) / 8, rng.integers(0, 6, (300, 3)) / 8
    w_cat, total = np.array([0.5, 0.5]), 4.0
    for missing, parallel in ((False, 1 << 20), (False, 1), (True, 1 << 20), (True, 1)):
        if missing:
            num_t = num_t.copy()
            num_t[7, 1] = np.nan
        for radius in (0.125, 0.25, 0.3125, 0.5):
            got = gower_ball_counts(cat_q, num_q, cat_t, num_t, w_cat, total, radius,
                                    parallel_pairs=parallel)
            want = []
            for i in range(len(cat_q)):
                count = 0
                for j in range(len(cat_t)):
                    d = sum(w for w, a, b in zip(w_cat, cat_q[i], cat_t[j], strict=True) if a != b)
                    for a, b in zip(num_q[i], num_t[j], strict=True):
                        term = abs(a - b)
                        d += 0.0 if term != term else term
                    count += d / total < radius
                want.append(count)
            assert got.tolist() == want


@pytest.mark.parametrize("k", [1, 4, 9])
def test_knn_share_pruned_by_sums_equals_every_pair(k):
    """DPI's share among the k nearest skips the targets whose sum of numeric values puts them
    beyond the k-th distance: the shares equal a pair-by-pair count (ties at the k-th distance
    split), on a coarse grid of values (many ties), with unequal weights, and with a missing
    value (no pruning)."""
    from capkit.distance.radius import gower_knn_share

    rng = np.random.default_rng(k)
    cat_q, cat_t = rng.integers(0, 3, (80, 2)), rng.integers(0, 3, (200, 2))
    num_q, num_t = rng.integers(0, 5, (80, 3)) / 8, rng.integers(0, 5, (200, 3)) / 8
    is_first = rng.random(200) < 0.5
    for w_cat, missing in (([0.5, 0.5], False), ([0.25, 0.75], False), ([0.5, 0.5], True)):
        if missing:
            num_t = num_t.copy()
            num_t[3, 0] = np.nan
        got = gower_knn_share(cat_q, num_q, cat_t, num_t, np.array(w_cat), is_first, k)
        for i in range(len(cat_q)):
            d = []
            for j in range(len(cat_t)):
                level = 0.0
                for w, a, b in zip(w_cat, cat_q[i], cat_t[j], strict=True):
                    if a != b:
                        level += w
                if w_cat[0] == w_cat[1]:
                    level = w_cat[0] * sum(a != b for a, b in zip(cat_q[i], cat_t[j],
                                                                   strict=True))
                for a, b in zip(num_q[i], num_t[j], strict=True):
                    term = abs(a - b)
                    level += 0.0 if term != term else term
                d.append(level)
            kth = sorted(d)[k - 1]
            less = [j for j in range(len(d)) if d[j] < kth]
            tied = [j for j in range(len(d)) if d[j] == kth]
            value = sum(is_first[j] for j in less)
            value += (k - len(less)) * sum(is_first[j] for j in tied) / len(tied)
            assert got[i] == pytest.approx(value / k, abs=0, rel=1e-15)


def _sd2011():
    try:
        from capkit.datasets import load_sd2011

        return load_sd2011()
    except (CapkitError, OSError):  # no data: the test skips
        return None


def test_sd2011_population_twins_are_scored():
    """SD2011 holds two respondents with the same values on all 35 columns: one a member,
    the other in the holdout, the holdout record is scored (DOMIAS 0.0.5 would score it too)
    and the note counts it against the members' own duplicates."""
    data = _sd2011()
    if data is None:
        pytest.skip("SD2011 data not available (set CAPKIT_DATA to a folder with SD2011.rda)")
    twins = np.flatnonzero(data.duplicated(keep=False).to_numpy())
    assert len(twins) == 2
    rest = np.setdiff1d(np.arange(len(data)), twins)
    order = np.random.default_rng(0).permutation(rest)
    members = data.iloc[np.r_[twins[0], order[:150]]].reset_index(drop=True)
    holdout = data.iloc[np.r_[twins[1], order[150:250]]].reset_index(drop=True)
    synthetic = data.iloc[order[250:400]].reset_index(drop=True)
    with pytest.raises(CapkitError, match="1 non-member record"):
        scores(members, holdout, synthetic, attacks=("dcr",), overlap="strict")
    out = scores(members, holdout, synthetic, attacks=("dcr",))
    assert int(out["member"].sum()) == len(members)
    assert any(note.startswith("1 non-member record(s) of") and "population twins" in note
               for note in out.attrs["notes"])
