"""capkit.membership_inference.scores(compat="domias") against domias 0.0.5's own outputs.

The oracle (``reference/domias/``, shipped from the development oracle, README there) ran
DOMIAS 0.0.5 on Adult's six numeric columns; its inputs are rebuilt here from Adult
(``tests/domias_data.py``) and checked bit for bit against the oracle's files when they are
beside the clone. Tolerances: distances and MC exact, GAN-Leaks 1e-12, the KDE-based scores
1e-11 relative (the oracle README's; capkit meets ~2e-13), AUC to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from domias_data import SHARED_ORACLE, case_inputs, have_adult, results
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


def test_rows_and_order(case):
    _, out, _ = case
    assert len(out) == 2000
    assert out["member"].tolist() == [True] * 1000 + [False] * 1000


def test_distance_scores_exact(case):
    _, out, oracle = case
    step = results()["score_step"]
    sub = out.iloc[::step]
    expected = oracle["scores"]
    np.testing.assert_array_equal(-sub["dcr"].to_numpy(), expected["d2min_synthetic"])
    np.testing.assert_array_equal(
        sub["dcr_diff"].to_numpy(),
        np.array(expected["d2min_reference"]) - np.array(expected["d2min_synthetic"]))
    np.testing.assert_array_equal(sub["mc"].to_numpy(), expected["MC"])
    assert out.attrs["settings"]["mc_epsilon"] == oracle["details"]["MC_epsilon"]
    assert _rel(sub["gan_leaks"], expected["gan_leaks"]).max() <= 1e-12
    assert _rel(sub["gan_leaks_cal"], expected["gan_leaks_cal"]).max() <= 1e-12


def test_kde_scores(case):
    _, out, oracle = case
    sub = out.iloc[::results()["score_step"]]
    assert _rel(sub["domias"], oracle["scores"]["domias_kde"]).max() <= 1e-11
    assert _rel(sub["domias_density"], oracle["scores"]["ablated_eq1"]).max() <= 1e-11


def test_auc_as_domias_reports(case):
    """The oracle's AUC (scikit-learn's, over all 2,000 records) from capkit's scores."""
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
    x = np.concatenate([m, n])
    for data, key in ((g, "kde_synthetic"), (r, "kde_reference")):
        fitted = kde.fit(data)
        expected = oracle["details"][key]
        assert fitted.n_eff == expected["neff"]
        assert fitted.factor == expected["factor"]
        np.testing.assert_allclose(fitted.data_covariance, expected["data_covariance"],
                                   rtol=1e-13)
    step = results()["score_step"]
    p_r = kde.density(kde.fit(r), x[::step])
    assert _rel(p_r, oracle["scores"]["p_R_kde"]).max() <= 1e-11
    p_g = kde.density(kde.fit(g), x[::step])
    eq2 = p_g / (p_r + 1e-20)
    assert _rel(eq2, oracle["scores"]["ablated_eq2"]).max() <= 1e-11
    # capkit's own blocked sum (independent of scipy's loop) against DOMIAS's numbers and
    # against a fresh scipy gaussian_kde on C-ordered arrays
    blocked = kde.blocked_density(kde.fit(r), x[::step])
    assert _rel(blocked, oracle["scores"]["p_R_kde"]).max() <= 1e-11
    peer = gaussian_kde(np.ascontiguousarray(r.T))(np.ascontiguousarray(x[::step].T))
    assert _rel(blocked, peer).max() <= 1e-11


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
    np.testing.assert_array_equal(np.concatenate([m, n, r]), real[columns].to_numpy())
    np.testing.assert_array_equal(g, syn[columns].to_numpy())


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
