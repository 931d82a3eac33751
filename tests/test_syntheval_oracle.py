"""capkit.syntheval against SynthEval 1.7.3's own outputs (``reference/syntheval``).

Every Gower variant the oracle recorded is replayed through ``capkit.syntheval.SynthEval`` on the
tables rebuilt from Adult (:mod:`syntheval_data`): the deterministic outputs (``dcr``, ``nndr``,
``hit_rate``, ``eps_risk``, ``nnaa`` without resampling) and the seeded ones whose draws capkit
replays (``nnaa``'s resampled holdout loss, ``att_discl``'s forests) must equal SynthEval's to
the last bit (asserted as |diff| <= 1e-12 and, for shares of records, equality); ``mia`` equals
it with SynthEval's LightGBM (compat's default) and lies inside the spread over five seeds that
the oracle recorded with scikit-learn's histogram gradient boosting.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import syntheval_data as data

from capkit.errors import CapkitError
from capkit.syntheval import AnalysisConfig, SynthEval

needs_adult = pytest.mark.skipif(not data.have_adult(),
                                 reason="needs AdultUCI.rda ($CAPKIT_DATA or the cache)")
DETERMINISTIC = ("dcr", "nndr", "hit_rate", "eps_risk")


def cases() -> dict:
    return data.results()["cases"]


def _close(got: float, expected: float) -> bool:
    if math.isnan(expected):
        return math.isnan(got)
    return got == expected or abs(got - expected) <= 1e-12 * max(1.0, abs(expected))


def _check(raw: dict, expected: dict, where: str) -> int:
    assert set(raw) == set(expected), where
    for key, value in expected.items():
        assert _close(raw[key], value), f"{where} {key}: capkit {raw[key]!r}, SynthEval {value!r}"
    return len(expected)


def _face(case: str, holdout: bool) -> tuple[SynthEval, pd.DataFrame]:
    tables = data.tables()
    se = SynthEval(tables["real"], holdout_dataframe=tables["holdout"] if holdout else None,
                   cat_cols=data.CAT_COLS, nn_distance="gower", verbose=False, console="off")
    return se, tables[case]


def _target(variant: str, real: pd.DataFrame) -> AnalysisConfig:
    sensitive = {"all": None, "pair": ["income", "age"], "one": ["income"]}[variant]
    return AnalysisConfig(dataset=real, target_vars="income", sensitive_vars=sensitive)


@needs_adult
def test_rebuilt_tables_are_the_oracle_files() -> None:
    if not data.SHARED_ORACLE.is_dir():
        pytest.skip("the full oracle (../shared/oracle/syntheval) is not beside this clone")
    tables = data.tables()
    files = {"real": "real", "holdout": "holdout", "bootnoise": "syn_bootnoise",
             "indep": "syn_indep", "leaky": "syn_leaky"}
    for name, stem in files.items():
        expected = data.read_csv(data.SHARED_ORACLE / f"{stem}.csv.gz")
        pd.testing.assert_frame_equal(tables[name].reset_index(drop=True), expected,
                                      check_dtype=False, check_exact=True)


@needs_adult
@pytest.mark.parametrize("case", data.CASES)
@pytest.mark.parametrize("holdout", [True, False], ids=["holdout", "noholdout"])
def test_deterministic_metrics_equal_syntheval(case: str, holdout: bool) -> None:
    se, syn = _face(case, holdout)
    table = se.evaluate(syn, dcr={}, nndr={}, hit_rate={"thres_percent": 1 / 30}, eps_risk={})
    suffix = "" if holdout else "__noholdout"
    checked = 0
    for metric in DETERMINISTIC:
        recorded = cases()[f"{case}__{metric}{suffix}"]
        checked += _check(se.raw_results[metric], data.value(recorded["result"]),
                          f"{case}__{metric}{suffix}")
    # the key-results table, row for row (their order follows the keyword order)
    expected = [row for m in DETERMINISTIC
                for row in cases()[f"{case}__{m}{suffix}"]["key_results"]]
    assert list(table["metric"]) == [row["metric"] for row in expected]
    assert list(table["dim"]) == [row["dim"] for row in expected]
    for column in ("val", "err", "n_val", "n_err"):
        for got, row in zip(table[column], expected, strict=True):
            assert _close(float(got), float(data.value(row.get(column, "nan")))), (column, row)
    assert checked == (8 if holdout else 5)


@needs_adult
@pytest.mark.parametrize("case", data.CASES)
def test_hit_rate_preset_threshold(case: str) -> None:
    se, syn = _face(case, True)
    se.evaluate(syn, hit_rate={"thres_percent": 0.0333})
    expected = data.value(cases()[f"{case}__hit_rate__preset0.0333"]["result"])
    _check(se.raw_results["hit_rate"], expected, case)


@needs_adult
@pytest.mark.parametrize("case", data.CASES)
@pytest.mark.parametrize("holdout", [True, False], ids=["holdout", "noholdout"])
def test_nnaa_equals_syntheval_with_the_same_seed(case: str, holdout: bool) -> None:
    se, syn = _face(case, holdout)
    se.evaluate(syn, nnaa={"n_resample": 30}, seed=0)
    suffix = "" if holdout else "__noholdout"
    _check(se.raw_results["nnaa"], data.value(cases()[f"{case}__nnaa{suffix}"]["result"]),
           case)


@needs_adult
@pytest.mark.parametrize(("case", "variant", "holdout"), [
    ("bootnoise", "pair", True),
    ("leaky", "pair", True), ("bootnoise", "one", True), ("indep", "one", True),
    ("leaky", "one", True), ("leaky", "pair", False)])
def test_attribute_disclosure_equals_syntheval(case: str, variant: str, holdout: bool) -> None:
    se, syn = _face(case, holdout)
    se.evaluate(syn, analysis_target=_target(variant, se.real), att_discl={}, seed=0)
    suffix = "" if holdout else "__noholdout"
    recorded = cases()[f"{case}__att_discl__{variant}{suffix}"]
    _check(se.raw_results["att_discl"], data.value(recorded["result"]), case)


@needs_adult
@pytest.mark.parametrize("case", data.CASES)
def test_mia_inside_the_recorded_spread(case: str) -> None:
    se, syn = _face(case, True)
    se.evaluate(syn, mia={"num_eval_iter": 5, "classifier": "hist_gradient_boosting"}, seed=0)
    spread = cases()[f"{case}__mia"]["seed_spread"]["keys"]
    for key in ("MIA precision", "MIA recall", "MIA macro F1"):
        low, high = float(spread[key]["min"]), float(spread[key]["max"])
        assert low <= se.raw_results["mia"][key] <= high, (key, se.raw_results["mia"][key])


@needs_adult
@pytest.mark.parametrize("case", data.CASES)
def test_mia_equals_syntheval(case: str) -> None:
    """compat=True's default classifier is SynthEval's LightGBM: every output to the bit."""
    se, syn = _face(case, True)
    se.evaluate(syn, mia={"num_eval_iter": 5}, seed=0)
    _check(se.raw_results["mia"], data.value(cases()[f"{case}__mia"]["result"]), case)


@needs_adult
def test_combined_call_replays_the_random_stream() -> None:
    """One call with every privacy metric: the draws flow from nnaa through mia to att_discl
    as in SynthEval, so att_discl (every column sensitive, after mia's draws) still equals
    SynthEval's."""
    se, syn = _face("bootnoise", True)
    recorded = cases()["bootnoise__combined_privacy"]
    table = se.evaluate(syn, analysis_target=_target("all", se.real), nndr={},
                        nnaa={"n_resample": 30}, dcr={}, hit_rate={"thres_percent": 0.0333},
                        eps_risk={}, mia={"num_eval_iter": 5}, att_discl={}, seed=0)
    expected = data.value(recorded["result"])
    for metric in ("nndr", "nnaa", "dcr", "hit_rate", "eps_risk", "att_discl"):
        _check(se.raw_results[metric], expected[metric], metric)
    assert list(table["metric"]) == [row["metric"] for row in recorded["key_results"]]


@needs_adult
def test_quirks_are_reproduced_with_compat() -> None:
    tables = data.tables()
    real = tables["real"]
    for name, syn in (("bootnoise__quirk_syn_is_real", real.copy()),
                      ("bootnoise__quirk_syn_is_real_shuffled",
                       real.sample(frac=1, random_state=3).reset_index(drop=True))):
        se, _ = _face("bootnoise", True)
        se.evaluate(syn, dcr={}, nndr={}, eps_risk={}, hit_rate={"thres_percent": 1 / 30})
        expected = data.value(cases()[name]["result"])
        for metric in expected:
            _check(se.raw_results[metric], expected[metric], name)
    boot = tables["bootnoise"]
    outlier = boot.assign(**{"capital.gain": boot["capital.gain"].where(boot.index != 0, 1e6)})
    se, _ = _face("bootnoise", True)
    se.evaluate(outlier, eps_risk={}, dcr={})
    expected = data.value(cases()["bootnoise__quirk_eps_zero_entropy"]["result"])
    for metric in expected:
        _check(se.raw_results[metric], expected[metric], "zero entropy")


@needs_adult
def test_columns_are_aligned_by_name() -> None:
    """SynthEval compares a column-reversed synthetic table by position (mDCR 26.3) and its
    hit_rate fails; capkit aligns by name and gives the numbers of the table in order."""
    se, syn = _face("bootnoise", True)
    reversed_columns = syn[syn.columns[::-1].tolist()]
    se.evaluate(reversed_columns, dcr={}, hit_rate={})
    recorded = cases()["bootnoise__quirk_syn_columns_reversed"]["result"]
    assert float(recorded["dcr"]["mDCR"]) > 20
    assert se.raw_results["dcr"]["mDCR"] == float(cases()["bootnoise__dcr"]["result"]["mDCR"])
    assert se.raw_results["hit_rate"]["hit rate"] == float(
        cases()["bootnoise__hit_rate"]["result"]["hit rate"])


@needs_adult
def test_where_syntheval_fails_capkit_says_why() -> None:
    recorded = cases()
    assert recorded["bootnoise__mia__noholdout"]["result"] is None
    assert recorded["bootnoise__eps_risk__euclid"]["result"] is None
    assert all(np.isnan(float(v)) for v in
               recorded["bootnoise__att_discl__string_target"]["result"].values())
    se, syn = _face("bootnoise", False)
    with pytest.raises(CapkitError, match="mia needs holdout"):
        se.evaluate(syn, mia={})
    with pytest.warns(UserWarning, match="names the analysis target"):
        se.evaluate(syn, analysis_target="income", att_discl={})
    expected = recorded["bootnoise__att_discl__string_target"]["result"]
    assert set(se.raw_results["att_discl"]) == set(expected)
    assert all(math.isnan(v) for v in se.raw_results["att_discl"].values())
    with pytest.raises(CapkitError, match="'incomes', not a column"):
        se.evaluate(syn, analysis_target="incomes", dcr={})
    with pytest.raises(CapkitError, match="EXPERIMENTAL_gower"):
        SynthEval(se.real, cat_cols=data.CAT_COLS, nn_distance="EXPERIMENTAL_gower")
    with_holdout, _ = _face("bootnoise", True)
    euclid = SynthEval(se.real, holdout_dataframe=with_holdout.hold_out, cat_cols=data.CAT_COLS,
                       nn_distance="euclid")
    with pytest.raises(CapkitError, match="eps_risk with nn_distance='euclid' and a holdout"):
        euclid.evaluate(syn, eps_risk={})
    with pytest.raises(CapkitError, match="unknown metric keyword 'ks_test'"):
        se.evaluate(syn, ks_test={})
    with pytest.raises(CapkitError, match="unknown option 'n_resamples'"):
        se.evaluate(syn, nnaa={"n_resamples": 3})


@needs_adult
@pytest.mark.parametrize("case", data.CASES)
def test_euclid_equals_syntheval(case: str) -> None:
    """``nn_distance='euclid'``: every output of the recorded Euclidean variants (dcr, nndr,
    nnaa with the holdout; eps_risk without, as SynthEval fails with one)."""
    tables = data.tables()
    for metric, holdout in (("dcr", True), ("nndr", True), ("nnaa", True),
                            ("eps_risk", False)):
        se = SynthEval(tables["real"], holdout_dataframe=tables["holdout"] if holdout else None,
                       cat_cols=data.CAT_COLS, nn_distance="euclid")
        se.evaluate(tables[case], seed=0, **{metric: {}})
        key = f"{case}__{metric}__euclid" + ("" if holdout else "__noholdout")
        _check(se.raw_results[metric], data.value(cases()[key]["result"]), key)


@needs_adult
def test_mia_single_iteration_has_nan_se() -> None:
    se, syn = _face("bootnoise", True)
    se.evaluate(syn, mia={"num_eval_iter": 1})
    recorded = data.value(cases()["bootnoise__mia__iter1"]["result"])
    assert math.isnan(se.raw_results["mia"]["MIA precision se"])
    assert math.isnan(recorded["MIA precision se"])


def test_shipped_results_are_the_oracle() -> None:
    if not data.SHARED_ORACLE.is_dir():
        pytest.skip("the full oracle is not beside this clone")
    import json

    with open(data.SHARED_ORACLE / "results.json", encoding="utf-8") as handle:
        assert json.load(handle) == data.results()
