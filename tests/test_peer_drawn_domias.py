"""capkit.membership_inference.scores(compat="domias") against domias 0.0.5 on drawn cases.

``scripts/peer_cases`` draws small numeric tables (ties everywhere: an integer with three
values, a count, numbers rounded to halves; verbatim and noisy copies of members in the
synthetic data) with **population twins**, non-member records equal to a member's, and
computes domias' own GAN-Leaks, calibrated GAN-Leaks, MC, KDE ablation (eq1) and DOMIAS-KDE
ratio for every member and non-member, with their accuracy and AUC
(``reference/domias/drawn/``). capkit scores the twins as domias does (the default overlap
rule: twins are scored, only a holdout that is the members is refused) and must give every
score.
"""

from __future__ import annotations

import numpy as np
import peer_drawn
import pytest

from capkit.membership_inference import scores
from capkit.membership_inference.metrics import auc

CASES = peer_drawn.cases("domias")
EPS = np.finfo(float).eps
#: Largest condition number of a KDE's Cholesky factor for which KDE_REL holds (asserted).
MAX_COND = 50.0
#: A kernel term exp(-q/2) computed from the same inputs in another order of operations is off
#: by about (q/2) (d + 2) eps cond(L) relative; q/2 <= 745 (beyond, exp underflows to 0),
#: d = 4 columns, cond(L) <= MAX_COND: 745 * 6 * 2.2e-16 * 50 = 5e-11; the sum over the data
#: points and the ratio add a few eps. So 1e-10.
KDE_REL = 745 * 6 * EPS * MAX_COND * 2
#: exp(-d) and the sigmoid of a difference of squared distances over 4 columns: d carries at
#: most 4 eps |d| (a different summation order), and |d| <= 745 where the score is not 0 or 1,
#: so 745 * 4 * eps = 6.6e-13 relative: 1e-12.
DISTANCE_REL = 1e-12


def test_cases_are_stored() -> None:
    assert len(CASES) >= 6, "run scripts/peer_cases/peer_cases.py domias"


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    both_zero = (a == 0) & (b == 0)
    return float(np.max(np.where(both_zero, 0.0,
                                 np.abs(a - b) / np.maximum(np.abs(b), 1e-300))))


@pytest.mark.parametrize("path", CASES, ids=[p.name.split(".")[0] for p in CASES])
def test_capkit_equals_domias_on_drawn_case(path) -> None:
    case = peer_drawn.load(path)
    frames = {k: peer_drawn.frame(v) for k, v in case["tables"].items()}
    m, n, g, r = (frames[k] for k in ("members", "nonmembers", "synthetic", "reference"))
    for data in (g, r):  # the premise of KDE_REL
        factor = np.linalg.cholesky(np.cov(data.to_numpy().T))
        assert np.linalg.cond(factor) <= MAX_COND
    assert len(case["twin_slots"]) >= 1  # population twins among the non-members
    out = scores(m, n, g, r, attacks=("gan_leaks", "gan_leaks_cal", "mc", "domias",
                                      "domias_density"), compat="domias")
    assert out["member"].tolist() == [True] * len(m) + [False] * len(n)
    assert any("population twins" in note or "more than chance" in note
               for note in out.attrs["notes"])
    expected = {k: np.array([peer_drawn.number(v) for v in values])
                for k, values in case["scores"].items()}
    np.testing.assert_array_equal(out["mc"].to_numpy(), expected["MC"])
    assert _rel(out["gan_leaks"], expected["gan_leaks"]) <= DISTANCE_REL
    assert _rel(out["gan_leaks_cal"], expected["gan_leaks_cal"]) <= DISTANCE_REL
    assert _rel(out["domias_density"], expected["ablated_eq1"]) <= KDE_REL
    assert _rel(out["domias"], expected["domias_kde"]) <= KDE_REL
    # a twin's scores are its member's: scored as they are
    for slot, row in zip(case["twin_slots"], case["twin_rows"], strict=True):
        for attack in ("mc", "gan_leaks", "domias"):
            assert out[attack].iloc[len(m) + slot] == out[attack].iloc[row]
    pairs = {"domias": "domias_kde", "domias_density": "ablated_eq1", "mc": "MC",
             "gan_leaks": "gan_leaks", "gan_leaks_cal": "gan_leaks_cal"}
    for ours, theirs in pairs.items():
        # AUC: a ratio of counts of score pairs (ties one half), equal when the scores order
        # the records alike
        assert auc(out[ours], out["member"]) == pytest.approx(
            case["metrics"][theirs]["aucroc"], abs=1e-12), ours
