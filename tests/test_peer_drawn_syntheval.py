"""capkit.syntheval against SynthEval 1.7.3 on cases drawn from SynthEval itself.

``scripts/peer_cases`` draws small random tables (ties, population twins between the real and
holdout records, verbatim copies in the synthetic data, missing values dropped by
``missing_directive='drop'``, categorical columns given or inferred), runs SynthEval in its own
environment after ``numpy.random.seed(s)`` with every privacy metric under both distances
(Gower and Euclid) and stores inputs and outputs under ``reference/syntheval/drawn/``. Every
stored call is replayed here with ``seed=s``: every output must equal SynthEval's, the seeded
ones (nnaa's resampling, att_discl's forests, which follow mia in the random stream) included.
``mia`` runs with SynthEval's LightGBM classifier (the default with ``compat=True``).
"""

from __future__ import annotations

import warnings

import peer_drawn
import pytest

from capkit.syntheval import AnalysisConfig, SynthEval

CASES = peer_drawn.cases("syntheval")
#: Outputs that are shares of records (exact rationals: equal to the bit).
COUNTS = {("hit_rate", "hit rate"), ("eps_risk", "eps_risk"), ("eps_risk", "priv_loss")}
#: Other outputs: means and standard errors of at most a few hundred per-record values in
#: [0, 1]; a different summation order moves them by at most n * eps = 300 * 2.2e-16 < 1e-13,
#: so 1e-12 relative.
REL = 1e-12


def test_cases_are_stored() -> None:
    assert len(CASES) >= 8, "run scripts/peer_cases/peer_cases.py syntheval"


def _replay(case: dict, call: dict) -> tuple[SynthEval, object]:
    tables = {name: peer_drawn.frame(t) for name, t in case["tables"].items()}
    real = tables["real"]
    se = SynthEval(real, holdout_dataframe=tables["holdout"] if call["holdout"] else None,
                   cat_cols=call["cat_cols"], nn_distance=call["nn_distance"],
                   missing_directive=call["missing_directive"], verbose=False)
    metrics = {k: dict(v) for k, v in call["metrics"].items()}  # mia: LightGBM, compat's
    target = call["target"]
    if isinstance(target, list):
        target = AnalysisConfig(dataset=se.real, target_vars="c1", sensitive_vars=target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = se.evaluate(tables["synthetic"], analysis_target=target, seed=call["seed"],
                            **metrics)
    return se, table


@pytest.mark.parametrize("path", CASES, ids=[p.name.split(".")[0] for p in CASES])
def test_capkit_equals_syntheval_on_drawn_case(path) -> None:
    case = peer_drawn.load(path)
    compared = 0
    for i, call in enumerate(case["calls"]):
        se, table = _replay(case, call)
        assert set(se.raw_results) == set(call["raw"]), (i, call["printed"])
        for metric, expected in call["raw"].items():
            got = se.raw_results[metric]
            assert set(got) == set(expected), (i, metric)
            for key, value in expected.items():
                want = peer_drawn.number(value)
                where = f"call {i} ({call['nn_distance']}) {metric} {key}"
                if (metric, key) in COUNTS:
                    assert got[key] == want or (got[key] != got[key] and want != want), (
                        where, got[key], want)
                else:
                    assert peer_drawn.close(got[key], want, REL), (where, got[key], want)
                compared += 1
        rows = call["key"]
        assert list(table["metric"]) == [r["metric"] for r in rows]
        for column in ("val", "err", "n_val", "n_err"):
            for got, row in zip(table[column], rows, strict=True):
                value = row[column]
                want = float("nan") if value is None else peer_drawn.number(value)
                assert peer_drawn.close(float(got), want, REL), (i, row["metric"], column)
    assert compared > 0
