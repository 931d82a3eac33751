"""capkit.sdmetrics against SDMetrics 0.32.0's own outputs (``reference/sdmetrics``).

Every case of the oracle's results.json runs its ``call`` string unchanged, with capkit's
classes in the namespace and ``real`` / ``holdout`` (Adult members and holdout, rebuilt from
the raw data: ``tests/sdmetrics_data.py``), ``syn`` (capkit's synthesis, shipped) and ``meta``.
As in the oracle, ``numpy.random.seed(0)`` and ``DCRBaselineProtection._seed = 0`` come before
every call. Numbers must agree to 1e-9 relative (the oracle README: ratios of counts or sums of
a few thousand terms). Every case does, the seeded ones included (the Estimate, the DCR random
table and subsamples, the random forest, the MLP, the Ensemble with the forest): capkit draws the
same numbers from the same states. They also take ``seed=``: ``seed=0`` without any global
seeding gives the oracle's number (:func:`test_public_seed_reproduces_the_oracle`).

The k-NN cases (CategoricalKNN, the Ensemble with its attacker) depend on the machine in
SDMetrics itself: scikit-learn's brute k-NN keeps the tied neighbours numpy's ``argpartition``
picks, and that depends on numpy's CPU dispatch (AVX-512, AVX2 or generic;
``docs/sdmetrics-differences.md``). ``reference/sdmetrics/knn_dispatch.json`` holds SDMetrics'
own numbers under each dispatch; those cases compare with the one this machine's numpy uses
and skip, naming the dependence, on a machine whose tie behaviour none of them records.
The whole file takes about 15 s; no case is marked slow.
"""

from __future__ import annotations

import json
import math
import warnings
from types import SimpleNamespace

import numpy as np
import peer_drawn
import pytest
import sdmetrics_data as data

import capkit.sdmetrics as sdm

CASES = data.results()["cases"]
RTOL = 1e-9

needs_adult = pytest.mark.skipif(not data.have_adult(),
                                 reason="needs AdultUCI.rda (set CAPKIT_DATA or download it)")


def namespace() -> dict:
    """What a call string sees: capkit's classes, the tables, ``meta``, ``sdmetrics``."""
    real, holdout = data.adult_split()
    names = {name: getattr(sdm, name) for name in sdm.__all__}
    privacy = SimpleNamespace(**names, loss=SimpleNamespace(**names))
    return {**names, "real": real, "holdout": holdout, "syn": data.synthetic(),
            "meta": data.metadata(), "np": np,
            "sdmetrics": SimpleNamespace(single_table=SimpleNamespace(privacy=privacy))}


def assert_close(got: object, expected: object, where: str = "") -> None:
    """Recursive comparison at :data:`RTOL`; NaN equals NaN; strings compare exactly."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and set(got) == set(expected), (where, got, expected)
        for key in expected:
            assert_close(got[key], expected[key], f"{where}.{key}")
        return
    if isinstance(expected, str):
        assert got == expected, (where, got, expected)
        return
    got = float(got)
    if math.isnan(expected):
        assert math.isnan(got), (where, got)
        return
    assert got == pytest.approx(expected, rel=RTOL, abs=RTOL * 1e-3), (where, got, expected)


def run(call: str) -> object:
    np.random.seed(0)  # noqa: NPY002 - the oracle seeds the legacy global state
    sdm.DCRBaselineProtection._seed = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return eval(call, namespace())  # noqa: S307 - the oracle's own call strings
    finally:
        sdm.DCRBaselineProtection._seed = None


#: SDMetrics' own k-NN numbers of the oracle cases under each numpy dispatch
#: (``scripts/peer_cases/peer_cases.py sdmetrics-oracle-knn``), by argpartition fingerprint.
KNN_VARIANTS = json.loads((data.REFERENCE / "knn_dispatch.json").read_text())["variants"]
#: The fingerprint of the machine that made the oracle (AVX-512, numpy 2.4.6): its variant
#: must be the oracle's numbers.
ORACLE_FINGERPRINT = "52765811131486e1"


def expected_value(case_id: str) -> object:
    """The oracle's number, or for a k-NN case SDMetrics' number under this machine's numpy
    dispatch (a skip where none is stored)."""
    first = next(iter(KNN_VARIANTS.values()))["results"]
    if case_id not in first:
        return data.as_float(CASES[case_id]["result"])
    fingerprint = peer_drawn.argpartition_fingerprint()
    if fingerprint not in KNN_VARIANTS:
        pytest.skip(f"{peer_drawn.KNN_DISPATCH}; this machine's ({fingerprint}, numpy "
                    f"{np.__version__}) is not among {sorted(KNN_VARIANTS)}")
    return float(KNN_VARIANTS[fingerprint]["results"][case_id])


def test_knn_variants_hold_the_oracle_and_differ() -> None:
    """The oracle machine's variant is the oracle; the dispatches do give other numbers."""
    oracle = KNN_VARIANTS[ORACLE_FINGERPRINT]["results"]
    for case_id, value in oracle.items():
        assert float(value) == data.as_float(CASES[case_id]["result"]), case_id
    assert len(KNN_VARIANTS) == 3
    assert len({v["results"]["cat_k4_income__CategoricalKNN"]
                for v in KNN_VARIANTS.values()}) == 3


@needs_adult
@pytest.mark.parametrize("case_id", list(CASES))
def test_oracle_case(case_id: str) -> None:
    case = CASES[case_id]
    assert case["error"] is None
    assert_close(run(case["call"]), expected_value(case_id), case_id)


@needs_adult
def test_reference_and_rebuilt_tables_equal_the_oracle_files() -> None:
    """reference/sdmetrics is the oracle's (results, synthetic file byte for byte); the rebuilt
    members and holdout equal the files SDMetrics read."""
    if not (data.SHARED_ORACLE / "members.csv.gz").is_file():
        pytest.skip("the project's shared oracle folder is not here")
    assert data.results() == json.loads((data.SHARED_ORACLE / "results.json").read_text())
    assert (data.REFERENCE / "synthetic.csv.gz").read_bytes() == (
        data.SHARED_ORACLE / "synthetic.csv.gz").read_bytes()
    real, holdout = data.adult_split()
    assert real.equals(data.read_csv(data.SHARED_ORACLE / "members.csv.gz"))
    assert holdout.equals(data.read_csv(data.SHARED_ORACLE / "holdout.csv.gz"))
    assert data.synthetic().equals(data.read_csv(data.SHARED_ORACLE / "synthetic.csv.gz"))


def test_every_case_is_covered() -> None:
    """The 44 cases of the oracle, all deterministic there (two fresh runs, same bits)."""
    assert len(CASES) == 44
    assert all(case["deterministic"] for case in CASES.values())


SEEDED = {
    "dpe_cat4_income__cap__500x5": "DisclosureProtectionEstimate.compute_breakdown(real, syn, "
    "['sex', 'race', 'education', 'marital.status'], ['income'], num_rows_subsample=500, "
    "num_iterations=5, verbose=False, seed=0)",
    "dcr_baseline": "DCRBaselineProtection.compute_breakdown(real, syn, meta, None, seed=0)",
    "dcr_baseline__sub500x3": "DCRBaselineProtection.compute_breakdown(real, syn, meta, None, "
    "num_rows_subsample=500, num_iterations=3, seed=0)",
    "dcr_overfitting__sub500x2": "DCROverfittingProtection.compute_breakdown(real, syn, "
    "holdout, meta, None, num_rows_subsample=500, num_iterations=2, seed=0)",
    "cat_k4_income__CategoricalRF": "CategoricalRF.compute(real, syn, key_fields=['sex', "
    "'race', 'education', 'marital.status'], sensitive_fields=['income'], seed=0)",
    "num_k2_fnlwgt__NumericalMLP": "NumericalMLP.compute(real, syn, key_fields=['age', "
    "'hours.per.week'], sensitive_fields=['fnlwgt'], seed=0)",
    "cat_k4_income__CategoricalEnsemble": "CategoricalEnsemble.compute(real, syn, "
    "key_fields=['sex', 'race', 'education', 'marital.status'], sensitive_fields=['income'], "
    "model_kwargs={'attackers': [CAPAttacker, CategoricalNBAttacker, CategoricalKNNAttacker, "
    "CategoricalRFAttacker, CategoricalSVMAttacker]}, seed=0)",
}


@needs_adult
@pytest.mark.parametrize("case_id", list(SEEDED))
def test_public_seed_reproduces_the_oracle(case_id: str) -> None:
    """``seed=0`` equals the oracle's ``numpy.random.seed(0)`` / ``_seed = 0`` run, whatever
    the global state, and leaves the global state alone."""
    np.random.seed(12345)  # noqa: NPY002 - a global state that must not matter
    _, key, position, *_ = np.random.get_state()  # noqa: NPY002
    key = key.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = eval(SEEDED[case_id], namespace())  # noqa: S307
    assert_close(got, expected_value(case_id), case_id)
    _, key_after, position_after, *_ = np.random.get_state()  # noqa: NPY002
    assert position_after == position and (key_after == key).all()
