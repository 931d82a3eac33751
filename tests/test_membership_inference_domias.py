"""capkit.membership_inference.scores(compat="domias") against domias 0.0.5's own outputs.

The oracle (``reference/domias/``, shipped from the development oracle, README there) ran
DOMIAS 0.0.5 on Adult's six numeric columns; its inputs are rebuilt here from Adult
(``tests/domias_data.py``) and checked against the oracle's files when they are beside the
clone. capkit computes each score with DOMIAS's arithmetic (the same bits on the same inputs), so
the tolerances come from two places only, each derived beside its assert:

- the rebuilt synthetic sets: bit for bit where the recipe is elementwise (bootstrap with noise,
  the leaky copies), within :func:`domias_data.synthetic_bound` where numpy's
  ``multivariate_normal`` drew them (a 6-term dot product and the oracle's recovered factor);
  that bound is carried through each score by the score's own sensitivity (for a minimum of
  squared distances 2 sqrt(d) ||delta|| + ||delta||^2; for a density the kernels' weighted
  change; for a ratio the sum of the relative errors);
- the LAPACK and BLAS steps of the density (Cholesky factor, triangular solves, n_eff's dot
  product), whose rounding depends on the CPU's kernels: bounded with Higham's gamma_n and
  Skeel's condition number of the Cholesky factor (Higham, "Accuracy and Stability of Numerical
  Algorithms", 2nd ed., 2002, chapters 3, 8 and 10).

Where neither applies (distances to the real reference set, counts on identical inputs) the
assert is bit for bit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from domias_data import EPS, SHARED_ORACLE, case_inputs, gamma, have_adult, results, synthetic_bound
from scipy.special import softmax
from scipy.stats import gaussian_kde

from capkit.membership_inference import kde, scores
from capkit.membership_inference.metrics import auc

pytestmark = pytest.mark.skipif(not have_adult(), reason="Adult (AdultUCI.rda) is not available: "
                                "set CAPKIT_DATA to a folder holding it")

CASES = ("z_bootnoise", "z_gaussian", "z_leaky", "raw_leaky")
ATTACKS = ("dcr", "dcr_diff", "gan_leaks", "gan_leaks_cal", "mc", "domias", "domias_density")


def _frames(case_id):
    m, n, g, r = case_inputs(case_id)
    columns = results()["cases"][case_id]["columns"]
    return [pd.DataFrame(a, columns=columns) for a in (m, n, g, r)]


@pytest.fixture(scope="module", params=CASES)
def case(request):
    m, n, g, r = _frames(request.param)
    out = scores(m, n, g, r, attacks=ATTACKS, compat="domias", overlap="allow")
    return request.param, out, results()["cases"][request.param]


def _rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b) / np.maximum(np.abs(b), 1e-300)


def _within(actual, expected, tol):
    """Entrywise |actual - expected| <= tol; tol 0 means bit for bit."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    err = np.abs(actual - expected)
    tol = np.broadcast_to(tol, err.shape)
    bad = err > tol
    assert not bad.any(), (f"{bad.sum()} of {bad.size} beyond the bound; worst "
                           f"{err[bad].max():.3g} against {tol[bad][err[bad].argmax()]:.3g}")


def _shift(case_id) -> float:
    """||T||_2, T_k = the largest bound on column k of the rebuilt synthetic set (0: exact)."""
    return float(np.linalg.norm(synthetic_bound(case_id).max(axis=0)))


def _d2_bound(d2, t, d):
    """|min_g ||x - g||^2 - the same with every g moved by at most t (2-norm)|, both computed
    as sums of d squared differences: 2 sqrt(d2) t + t^2 (the nearest on either side), plus
    gamma_(d+2) of each side's value. 0 when nothing moved: the same sum of the same numbers."""
    if t == 0:
        return np.zeros_like(d2)
    moved = 2 * np.sqrt(d2) * t + t * t
    return moved + gamma(d + 2) * (2 * d2 + moved)


def test_rows_and_order(case):
    _, out, _ = case
    assert len(out) == 2000
    assert out["member"].tolist() == [True] * 1000 + [False] * 1000


def test_distance_scores(case):
    case_id, out, oracle = case
    step = results()["score_step"]
    sub = out.iloc[::step]
    expected = oracle["scores"]
    d = len(oracle["columns"])
    t = _shift(case_id)
    d2 = -sub["dcr"].to_numpy()
    tol_g = _d2_bound(d2, t, d)
    _within(d2, expected["d2min_synthetic"], tol_g)
    diff_expected = np.array(expected["d2min_reference"]) - np.array(expected["d2min_synthetic"])
    # dcr_diff = d2_r - d2_g; the reference set is real records, rebuilt bit for bit (d2_r the
    # same sum of the same numbers), so d2_g's bound and one rounding of the difference each side
    _within(sub["dcr_diff"], diff_expected,
            np.where(tol_g > 0, tol_g + 2 * EPS * (np.abs(diff_expected) + tol_g), 0.0))
    # MC: counts of synthetic records with d^2 < epsilon (the median of d2_g over all 2,000
    # records). A count can differ only through a pair whose d^2 lies within its bound (and
    # epsilon's: a median moves by at most the largest move of its values) of epsilon.
    eps_mc = out.attrs["settings"]["mc_epsilon"]
    tol_eps = float(_d2_bound(-out["dcr"].to_numpy(), t, d).max())
    assert abs(eps_mc - oracle["details"]["MC_epsilon"]) <= tol_eps
    m, n, g, _ = case_inputs(case_id)
    x = np.concatenate([m, n])[::step]
    pair_d2 = ((x[:, None, :] - g[None, :, :]) ** 2).sum(axis=2)
    near = (np.abs(pair_d2 - eps_mc) <= _d2_bound(pair_d2, t, d) + tol_eps).sum(axis=1)
    n_g = len(g)
    assert (np.abs(sub["mc"].to_numpy() - np.array(expected["MC"])) * n_g <= near + 1e-9).all()
    if t == 0:
        np.testing.assert_array_equal(sub["mc"].to_numpy(), expected["MC"])
    # GAN-Leaks exp(-d2_g): relative |e^tol - 1| plus exp's rounding on each side (numpy's SIMD
    # exp is within 1 ulp: 2 eps); calibrated, 1 / (1 + exp(d2_g - d2_r)): its relative change
    # is at most |change of d2_g - d2_r| plus exp, add and divide on each side (8 eps)
    assert (_rel(sub["gan_leaks"], expected["gan_leaks"]) <= np.expm1(tol_g) + 2 * EPS).all()
    tol_diff = np.where(tol_g > 0, tol_g + 2 * EPS * np.abs(diff_expected), 0.0)
    assert (_rel(sub["gan_leaks_cal"], expected["gan_leaks_cal"])
            <= np.expm1(tol_diff) + 8 * EPS).all()


def _kde_bound(data, points, tau=None):
    """Relative bound on |p(x) as two machines compute it - the oracle's|, per point.

    p(x) = norm sum_j w exp(-q_j / 2), q_j = ||L^-1 (x - x_j)||^2, L = h chol(C). Arithmetic,
    each side (x2): Cholesky's backward error |dH| <= gamma_(d+1) |L||L^T| and the triangular
    solves' forward error gamma_d |L^-1||L||y| (Higham 2002, theorems 10.3 and 8.5) move q_j by
    at most c_q q_j + 2 sqrt(q_j) (dy_x + dy_j) with S = || |L^-1||L| ||_inf (Skeel's
    condition number, blind to the columns' scales) and c_q = 2 gamma_(d+1) S^2 + gamma_(d+1);
    the norm by d gamma_(d+1) S^2 + 2 d eps; n_eff's dot product by gamma_n, so h^-2 and the norm
    by 2 gamma_n / (d + 4) and d gamma_n / (d + 4); the sum of n positive terms by gamma_n.
    A kernel's change enters p in proportion to its share pi_j = k_j / sum k.

    Inputs moved by tau (entrywise, n x d): q_j by 2 sqrt(q_j) s_j + s_j^2 + rho q_j with
    s_j = || |L^-1| tau_j ||_2 and rho = || |L^-1| h^2 |dC| |L^-T| ||_2, |dC| the covariance's
    change (centred data A: <= (2 |A|^T tau + 2 tau^T |A| + 4 tau^T tau) / (n - 1)); the norm
    by d rho / 2. Componentwise, so a column's large units do not leak into the others.
    """
    n, d = data.shape
    cov = np.cov(data.T)
    h = n ** (-1.0 / (d + 4))
    chol = h * np.linalg.cholesky(cov)
    inv = np.linalg.inv(chol)
    skeel = np.abs(np.abs(inv) @ np.abs(chol)).sum(axis=1).max()
    wd, wx = data @ inv.T, points @ inv.T
    q = np.maximum((wx ** 2).sum(1)[:, None] + (wd ** 2).sum(1)[None, :] - 2 * wx @ wd.T, 0.0)
    share = softmax(-q / 2, axis=1)
    g1 = gamma(d + 1)
    dy_x = gamma(d) * skeel * np.linalg.norm(wx, axis=1)[:, None]
    dy_d = gamma(d) * skeel * np.linalg.norm(wd, axis=1)[None, :]
    dq = (2 * g1 * skeel ** 2 + g1 + 4 * gamma(n) / (d + 4)) * q + 2 * np.sqrt(q) * (dy_x + dy_d)
    arith = (share * (np.expm1(dq / 2) + EPS)).sum(1) + d * g1 * skeel ** 2 + 2 * d * EPS \
        + d * gamma(n) / (d + 4) + gamma(n)
    bound = 2 * arith
    if tau is not None and tau.any():
        a = np.abs(data - data.mean(axis=0))
        dc = (2 * a.T @ tau + 2 * tau.T @ a + 4 * tau.T @ tau) / (n - 1)
        rho = np.linalg.norm(np.abs(inv) @ (h * h * dc) @ np.abs(inv).T, 2)
        s = np.linalg.norm(tau @ np.abs(inv).T, axis=1)[None, :]
        moved = (2 * np.sqrt(q) * s + s * s + rho * q) / 2 + d * rho / 2
        bound = bound + (share * np.expm1(moved)).sum(1)
    return bound


def _kde_bounds(case_id):
    m, n, g, r = case_inputs(case_id)
    x = np.concatenate([m, n])[::results()["score_step"]]
    return _kde_bound(g, x, synthetic_bound(case_id)), _kde_bound(r, x), x, g, r


def test_kde_scores(case):
    case_id, out, oracle = case
    sub = out.iloc[::results()["score_step"]]
    rel_g, rel_r, _, _, r = _kde_bounds(case_id)
    p_r = kde.density(kde.fit(r), np.concatenate(case_inputs(case_id)[:2])[::results()[
        "score_step"]])
    assert (_rel(sub["domias_density"], oracle["scores"]["ablated_eq1"]) <= rel_g).all()
    # p_G / (p_R + 1e-10): the relative errors add (p_R's damped by p_R / (p_R + 1e-10)), and
    # the sum and the division round once each on each side
    rel = rel_g + rel_r * p_r / (p_r + 1e-10) + 4 * EPS
    assert (_rel(sub["domias"], oracle["scores"]["domias_kde"]) <= rel).all()


def test_auc_as_domias_reports(case):
    """The oracle's AUC (scikit-learn's, over all 2,000 records) from capkit's scores.

    An AUC is a ratio of integer counts of ordered pairs over 1,000 x 1,000 pairs: exact unless
    a pair's order flips, which the scores' bounds (1e-11 relative and below) do not allow at
    these scores' gaps; its division rounds once (abs 1e-12 covers it)."""
    _, out, oracle = case
    pairs = {"domias": "domias_kde", "domias_density": "ablated_eq1", "mc": "MC",
             "gan_leaks": "gan_leaks", "gan_leaks_cal": "gan_leaks_cal"}
    for ours, theirs in pairs.items():
        assert auc(out[ours], out["member"]) == pytest.approx(
            oracle["metrics"][theirs]["aucroc"], abs=1e-12), ours
    # DOMIAS's accuracy: median threshold, strict ">" (spec section 3)
    for ours, theirs in pairs.items():
        values = out[ours].to_numpy()
        predicted = values > np.median(values)
        accuracy = float(np.mean(predicted == out["member"].to_numpy()))
        assert accuracy == pytest.approx(oracle["metrics"][theirs]["accuracy"], abs=1e-12)


@pytest.mark.parametrize("case_id", CASES)
def test_kde_ingredients_and_reference_density(case_id):
    m, n, g, r = case_inputs(case_id)
    oracle = results()["cases"][case_id]
    tau = synthetic_bound(case_id)
    for data, key, moved in ((g, "kde_synthetic", tau), (r, "kde_reference", 0 * tau)):
        fitted = kde.fit(data)
        expected = oracle["details"][key]
        size, d = data.shape
        # n_eff = 1 / (w . w), w_i = 1/n: a dot product of n terms on each side (gamma_n) and
        # the division; Scott's factor n_eff^(-1/(d+4)): 1/(d+4) of that and pow's ulp
        rel_neff = 2 * gamma(size) + 2 * EPS
        assert _rel(fitted.n_eff, expected["neff"]) <= rel_neff
        assert _rel(fitted.factor, expected["factor"]) <= rel_neff / (d + 4) + 2 * EPS
        # the covariance: sums of n products of the centred columns A (gamma_n |A|^T |A| on each
        # side, / (n - 1)) plus the inputs' move (the same form as in _kde_bound)
        a = np.abs(data - data.mean(axis=0))
        tol = (2 * gamma(size + 2) * a.T @ a
               + 2 * a.T @ moved + 2 * moved.T @ a + 4 * moved.T @ moved) / (size - 1)
        _within(fitted.data_covariance, expected["data_covariance"], tol)
    rel_g, rel_r, x, _, _ = _kde_bounds(case_id)
    step = results()["score_step"]
    assert np.array_equal(x, np.concatenate([m, n])[::step])
    p_r = kde.density(kde.fit(r), x)
    assert (_rel(p_r, oracle["scores"]["p_R_kde"]) <= rel_r).all()
    p_g = kde.density(kde.fit(g), x)
    eq2 = p_g / (p_r + 1e-20)
    assert (_rel(eq2, oracle["scores"]["ablated_eq2"]) <= rel_g + rel_r + 4 * EPS).all()
    # capkit's own blocked sum (independent of scipy's loop) against DOMIAS's numbers and
    # against a fresh scipy gaussian_kde on C-ordered arrays. Its q = ||a||^2 + ||b||^2 - 2 a.b
    # cancels: error gamma_(d+2) (||a||^2 + ||b||^2) absolute, not relative, in each kernel's q;
    # the points' whitened norms are at most those of _kde_bound's, so 2 gamma_(d+2) times the
    # largest whitened norm^2 of the points and of the data, halved in the exponent, on top.
    kr = kde.fit(r)
    wx = np.linalg.solve(kr.cholesky, x.T).T
    cancel = gamma(len(x[0]) + 2) * ((wx ** 2).sum(1) + (kr.whitened ** 2).sum(1).max())
    blocked = kde.blocked_density(kr, x)
    assert (_rel(blocked, oracle["scores"]["p_R_kde"]) <= rel_r + np.expm1(cancel)).all()
    peer = gaussian_kde(np.ascontiguousarray(r.T))(np.ascontiguousarray(x.T))
    assert (_rel(blocked, peer) <= rel_r + np.expm1(cancel)).all()


@pytest.mark.skipif(not SHARED_ORACLE.is_dir(), reason="the development oracle is not beside "
                    "this clone")
@pytest.mark.parametrize("case_id", CASES)
def test_rebuilt_inputs_are_the_oracles(case_id):
    oracle = results()["cases"][case_id]
    real = pd.read_csv(SHARED_ORACLE / oracle["real_file"], float_precision="round_trip")
    syn = pd.read_csv(SHARED_ORACLE / oracle["syn_file"], float_precision="round_trip")
    if "part" in syn.columns:
        syn = syn[syn["part"] == "synth"]
    m, n, g, r = case_inputs(case_id)
    columns = oracle["columns"]
    # real records and elementwise recipes: bit for bit
    np.testing.assert_array_equal(np.concatenate([m, n, r]), real[columns].to_numpy())
    bound = synthetic_bound(case_id)
    expected = syn[columns].to_numpy()
    np.testing.assert_array_equal(g[bound == 0], expected[bound == 0])
    # numpy's multivariate_normal draws: within the bound derived in domias_data.draw_bound
    _within(g, expected, bound)
    if oracle["recipe"]["kind"] != "bootnoise":
        assert (bound > 0).mean() >= 0.8


@pytest.mark.skipif(not SHARED_ORACLE.is_dir(), reason="the development oracle is not beside "
                    "this clone")
def test_shipped_scores_are_the_oracles():
    import json

    full = json.loads((SHARED_ORACLE / "results.json").read_text())
    shipped = results()
    step = shipped["score_step"]
    for case_id, case in shipped["cases"].items():
        for name, values in case["scores"].items():
            assert values == full["cases"][case_id]["scores"][name][::step], (case_id, name)
        assert case["metrics"] == full["cases"][case_id]["metrics"]


def test_density_of_repeated_rows_merges_copies_within_the_summation_bound():
    """Coded columns (few distinct rows): each distinct data row is one term weighted by its
    copies. scipy's sum of n positive terms and the merged sum are each within gamma_n =
    n eps / (1 - n eps) of the exact sum (recursive summation, Higham 2002, eq. 4.4), so they
    differ by at most 2 gamma_n relative, where the density is far from the subnormal range
    (a subnormal term's rounding is absolute, 2**-1075 per term: negligible above 1e-250, not
    relative below); log_density likewise, and finite for the far points."""
    rng = np.random.default_rng(7)
    data = rng.integers(0, 4, (3000, 3)).astype(float) + rng.integers(0, 2, (3000, 1))
    points = np.concatenate([rng.integers(0, 5, (400, 3)).astype(float),
                             rng.normal(size=(50, 3)) * 40])
    kernel = kde.fit(data)
    assert 2 * len(np.unique(data, axis=0)) <= len(data)  # the merged path
    eps = np.finfo(float).eps
    bound = 2 * (len(data) * eps / (1 - len(data) * eps))
    peer = gaussian_kde(np.ascontiguousarray(data.T))(np.ascontiguousarray(points.T))
    ours = kde.density(kernel, points)
    near = peer > 1e-250
    assert near.sum() >= 400 and (peer[~near] < 1e-200).all()
    assert (np.abs(ours[near] - peer[near]) <= bound * peer[near]).all()
    logs = kde.log_density(kernel, points)
    assert np.all(np.isfinite(logs))
    assert (np.abs(logs[near] - np.log(peer[near])) <= 2 * bound).all()  # |log(1+x)| <= 2|x|
