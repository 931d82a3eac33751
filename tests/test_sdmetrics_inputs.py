"""capkit.sdmetrics on inputs the oracle does not cover: SDMetrics' crashes and silent wrong
numbers become CapkitErrors or correct results; missing values, constant columns and datetimes
agree with SDMetrics itself (run here on small frames, it loops in Python).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import capkit.sdmetrics as sdm
from capkit.errors import CapkitError, DisjointLevelsError
from capkit.sdmetrics.dcr_distance import calculate_dcr, dcr_brute_force

peer = pytest.importorskip("sdmetrics.single_table.privacy")
from sdmetrics.single_table.privacy import cap as peer_cap  # noqa: E402
from sdmetrics.single_table.privacy import categorical_sklearn as peer_sklearn  # noqa: E402
from sdmetrics.single_table.privacy.dcr_utils import calculate_dcr as peer_dcr  # noqa: E402

KEYS, SENSITIVE = ["a", "b", "n"], ["t"]
CATEGORICAL = [sdm.CategoricalKNN, sdm.CategoricalNB, sdm.CategoricalRF, sdm.CategoricalSVM]


def frame(rng: np.random.Generator, n: int, *, na: bool = False) -> pd.DataFrame:
    """Text, integer and float columns; NaN in the object columns when ``na``."""
    a = rng.choice(np.array(["x", "y", "z"] + ([np.nan] if na else []), dtype=object), n)
    return pd.DataFrame({
        "a": a,
        "b": rng.choice(np.array(["p", "q"], dtype=object), n),
        "n": rng.integers(0, 4, n),
        "f": rng.normal(size=n).round(1),
        "t": rng.choice(np.array(["u", "v", "w"] + ([np.nan] if na else []), dtype=object), n),
    })


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture
def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(1)
    return frame(rng, 80), frame(rng, 60)


# ----------------------------------------------------------------------------- agreement


@pytest.mark.parametrize("metric", CATEGORICAL, ids=lambda m: m.__name__)
def test_categorical_attackers_with_object_nan_equal_sdmetrics(metric) -> None:
    # NaN in object key / sensitive columns of both tables: SDMetrics' placeholder category
    rng = np.random.default_rng(2)
    real, syn = frame(rng, 80, na=True), frame(rng, 60, na=True)
    np.random.seed(0)  # noqa: NPY002 - SDMetrics' forest draws from numpy's global state
    expected = quiet(getattr(peer, metric.__name__).compute, real, syn, key_fields=["a", "b"],
                     sensitive_fields=["t"])
    np.random.seed(0)  # noqa: NPY002
    assert metric.compute(real, syn, key_fields=["a", "b"], sensitive_fields=["t"],
                          seed=0) == pytest.approx(expected, abs=1e-12)


def test_attacker_predict_one_tuple_equals_sdmetrics(tables) -> None:
    real, syn = tables
    for name in ("CAPAttacker", "CategoricalNBAttacker", "CategoricalKNNAttacker",
                 "CategoricalSVMAttacker"):
        module = peer_cap if name == "CAPAttacker" else peer_sklearn
        ours, theirs = getattr(sdm, name)(), getattr(module, name)()
        ours.fit(syn, KEYS, SENSITIVE)
        quiet(theirs.fit, syn, KEYS, SENSITIVE)
        for key in [("x", "p", 1), ("z", "q", 3), ("y", "p", 9)]:
            assert ours.predict(key) == quiet(theirs.predict, key), (name, key)


@pytest.mark.parametrize("method", ["cap", "zero_cap", "generalized_cap"])
def test_disclosure_protection_with_na_and_bins_equals_sdmetrics(method: str) -> None:
    rng = np.random.default_rng(3)
    real, syn = frame(rng, 90, na=True), frame(rng, 70, na=True)
    syn.loc[:4, "f"] = [9.0, -9.0, np.nan, 0.0, 0.05]  # outside the real range, missing
    args = (["a", "b", "f"], ["t"], method, ["f"], 4)
    expected = quiet(peer.DisclosureProtection.compute_breakdown, real, syn, *args)
    got = sdm.DisclosureProtection.compute_breakdown(real, syn, *args)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def test_estimate_generalized_equals_sdmetrics(tables) -> None:
    real, syn = tables
    args = (KEYS, SENSITIVE, "generalized_cap", None, 10, 30, 4, False)
    np.random.seed(5)  # noqa: NPY002
    expected = quiet(peer.DisclosureProtectionEstimate.compute_breakdown, real, syn, *args)
    got = sdm.DisclosureProtectionEstimate.compute_breakdown(real, syn, *args, seed=5)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def test_dcr_missing_values_constant_columns_and_datetimes_equal_sdmetrics() -> None:
    rng = np.random.default_rng(4)
    n_d, n_r = 40, 50

    def table(n: int) -> pd.DataFrame:
        out = frame(rng, n, na=True)
        out["f"] = out["f"].where(rng.random(n) > 0.2)  # numeric NaN
        out["const"] = 3.0
        out["when"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 90, n), "D")
        out["flag"] = rng.random(n) > 0.5
        return out

    dataset, reference = table(n_d), table(n_r)
    dataset.loc[0, "const"] = 4.0  # differs from the constant reference column
    dataset.loc[1, "f"] = 50.0  # far outside the reference range: term capped at 1
    meta = {"columns": {"a": {"sdtype": "categorical"}, "n": {"sdtype": "numerical"},
                        "f": {"sdtype": "numerical"}, "const": {"sdtype": "numerical"},
                        "when": {"sdtype": "datetime"}, "flag": {"sdtype": "boolean"},
                        "t": {"sdtype": "id"}}}
    expected = quiet(peer_dcr, dataset, reference, meta).to_numpy()
    got = calculate_dcr(dataset, reference, meta).to_numpy()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    brute = dcr_brute_force(dataset, reference, meta).min(axis=1)
    np.testing.assert_allclose(got, brute, rtol=0, atol=1e-12)


def test_dcr_overfitting_ties_count_as_closer_to_holdout(tables) -> None:
    real, _ = tables
    meta = {"columns": {c: {"sdtype": "categorical"} for c in real.columns}}
    result = sdm.DCROverfittingProtection.compute_breakdown(real, real, real, meta)
    assert result["synthetic_data_percentages"]["closer_to_training"] == 0
    assert result["score"] == 1.0


# ------------------------------------------------------------- SDMetrics' crashes, fixed


def test_synthetic_index_not_zero_to_n(tables) -> None:
    real, syn = tables
    shifted = syn.set_index(syn.index + 10)
    for metric in CATEGORICAL:
        assert metric.compute(real, shifted, key_fields=KEYS, sensitive_fields=SENSITIVE,
                              seed=0) == metric.compute(real, syn, key_fields=KEYS,
                                                        sensitive_fields=SENSITIVE, seed=0)
    assert sdm.DisclosureProtection.compute(real, shifted, KEYS, SENSITIVE) == \
        sdm.DisclosureProtection.compute(real, syn, KEYS, SENSITIVE)


def test_category_dtype_with_missing_values(tables) -> None:
    real, syn = tables
    real.loc[:5, "a"] = np.nan
    syn.loc[:5, "a"] = np.nan
    as_category = {"a": pd.Categorical(real["a"])}, {"a": pd.Categorical(syn["a"])}
    filled = real.fillna({"a": "NA"}), syn.fillna({"a": "NA"})
    expected = quiet(peer.DisclosureProtection.compute, *filled, KEYS, SENSITIVE)
    got = sdm.DisclosureProtection.compute(real.assign(**as_category[0]),
                                           syn.assign(**as_category[1]), KEYS, SENSITIVE)
    assert got == pytest.approx(expected, abs=1e-12)
    assert 0 <= sdm.CategoricalNB.compute(real.assign(**as_category[0]),
                                          syn.assign(**as_category[1]), key_fields=KEYS,
                                          sensitive_fields=SENSITIVE) <= 1


def test_numbers_in_one_table_text_in_the_other(tables) -> None:
    real, syn = tables
    text = syn.assign(n=syn["n"].astype(str))
    # SDMetrics: nothing matches, protection 1.0, silently
    with pytest.raises(CapkitError, match="'n'"):
        sdm.DisclosureProtection.compute(real, text, KEYS, SENSITIVE, "zero_cap")
    for metric in CATEGORICAL:
        with pytest.raises(CapkitError, match="'n'"):
            metric.compute(real, text, key_fields=KEYS, sensitive_fields=SENSITIVE)


def test_keys_coded_differently(tables) -> None:
    # the same kind, disjoint values ("x" vs "level x"): SDMetrics finds no key and calls the
    # data safe; capkit refuses unless asked (capkit.counts.encode.check_levels)
    real, syn = tables
    recoded = syn.assign(a="level " + syn["a"])
    with pytest.raises(DisjointLevelsError, match="'a'"):
        sdm.DisclosureProtection.compute(real, recoded, KEYS, SENSITIVE, "zero_cap")
    with pytest.raises(DisjointLevelsError, match="'a'"):
        sdm.CategoricalNB.compute(real, recoded, key_fields=KEYS, sensitive_fields=SENSITIVE)
    expected = quiet(peer.DisclosureProtection.compute_breakdown, real, recoded, KEYS,
                     SENSITIVE, "zero_cap")
    got = sdm.DisclosureProtection.compute_breakdown(real, recoded, KEYS, SENSITIVE, "zero_cap",
                                                     allow_disjoint_levels=True)
    assert got["cap_protection"] == expected["cap_protection"] == 1.0
    assert sdm.CategoricalNB.compute(real, recoded, key_fields=KEYS, sensitive_fields=SENSITIVE,
                                     allow_disjoint_levels=True) == quiet(
        peer.CategoricalNB.compute, real, recoded, key_fields=KEYS, sensitive_fields=SENSITIVE)


def test_integer_and_float_keys_of_equal_value_match(tables) -> None:
    real, syn = tables
    floats = syn.assign(n=syn["n"].astype(float))
    for metric in CATEGORICAL[:2]:
        assert metric.compute(real, floats, key_fields=KEYS, sensitive_fields=SENSITIVE) == \
            metric.compute(real, syn, key_fields=KEYS, sensitive_fields=SENSITIVE)


@pytest.mark.parametrize("which", ["real", "synthetic"])
def test_empty_tables(tables, which: str) -> None:
    real, syn = tables
    if which == "real":
        real = real.iloc[:0]
    else:
        syn = syn.iloc[:0]
    meta = {"columns": {c: {"sdtype": "categorical"} for c in real.columns}}
    calls = [
        lambda: sdm.DisclosureProtection.compute(real, syn, KEYS, SENSITIVE),
        lambda: sdm.DisclosureProtectionEstimate.compute_breakdown(real, syn, KEYS, SENSITIVE,
                                                                   verbose=False),
        lambda: sdm.DCRBaselineProtection.compute(real, syn, meta),
        lambda: sdm.DCROverfittingProtection.compute(real, syn, real, meta),
        lambda: sdm.NumericalLR.compute(real, syn, key_fields=["n"], sensitive_fields=["f"]),
        *[lambda m=m: m.compute(real, syn, key_fields=KEYS, sensitive_fields=SENSITIVE)
          for m in CATEGORICAL],
    ]
    for call in calls:
        with pytest.raises(CapkitError, match="empty"):
            call()


def test_dcr_arguments(tables) -> None:
    real, syn = tables
    meta = {"columns": {c: {"sdtype": "categorical"} for c in real.columns}}
    with pytest.raises(CapkitError, match="metadata"):
        sdm.DCRBaselineProtection.compute(real, syn, None)
    with pytest.raises(CapkitError, match="subsampling"):
        sdm.DCRBaselineProtection.compute(real, syn, meta, None, None, 3)
    with pytest.raises(CapkitError, match="larger than real_data"):  # SDMetrics: pandas error
        sdm.DCRBaselineProtection.compute(real.iloc[:20], syn, meta, None, 30)
    with pytest.raises(CapkitError, match="larger than real_validation_data"), pytest.warns(
            UserWarning, match="at least half the size"):
        sdm.DCROverfittingProtection.compute(real, syn, real.iloc[:10], meta, None, 30)
    with pytest.warns(UserWarning, match="greater than the length"):
        switched_off = sdm.DCRBaselineProtection.compute(real, syn, meta, None, 1000, seed=1)
    assert switched_off == sdm.DCRBaselineProtection.compute(real, syn, meta, seed=1)
    with pytest.raises(CapkitError, match="no overlapping"):
        sdm.DCRBaselineProtection.compute(real, syn, {"columns": {"a": {"sdtype": "id"}}})


def test_attacker_arguments(tables) -> None:
    real, syn = tables
    for metric in CATEGORICAL:
        with pytest.raises(CapkitError, match="takes no arguments"):
            metric.compute(real, syn, key_fields=KEYS, sensitive_fields=SENSITIVE,
                           model_kwargs={"n_neighbors": 3})
    # SDMetrics' bug: the Ensemble *returns* its ValueError when no attacker is given
    result = sdm.CategoricalEnsemble.compute(real, syn, key_fields=KEYS,
                                             sensitive_fields=SENSITIVE)
    assert isinstance(result, CapkitError) and isinstance(result, ValueError)
    with pytest.raises(CapkitError, match="sdtype 'categorical'"):
        sdm.NumericalLR.compute(real, syn, key_fields=["a"], sensitive_fields=["f"])
    with pytest.raises(CapkitError, match="also in key_fields"):
        sdm.CategoricalNB.compute(real, syn, key_fields=["a", "t"], sensitive_fields=["t"])
    with pytest.raises(CapkitError, match="missing values"):
        sdm.NumericalLR.compute(real, syn.assign(f=syn["f"].where(syn.index > 0)),
                                key_fields=["n"], sensitive_fields=["f"])
    with pytest.raises(CapkitError, match="same columns"):
        sdm.CategoricalKNN.compute(real, syn.drop(columns="f"), key_fields=KEYS,
                                   sensitive_fields=SENSITIVE)
    # scikit-learn's refusals (SDMetrics: a traceback from deep inside)
    with pytest.raises(CapkitError, match="cannot be fitted"):  # one class
        sdm.CategoricalSVM.compute(real, syn.assign(t="u"), key_fields=KEYS,
                                   sensitive_fields=SENSITIVE, allow_disjoint_levels=True)
    with pytest.raises(CapkitError, match="cannot predict"):  # 4 synthetic records, k = 5
        sdm.CategoricalKNN.compute(real, syn.head(4), key_fields=KEYS,
                                   sensitive_fields=SENSITIVE)


def test_disclosure_protection_arguments(tables) -> None:
    real, syn = tables
    with pytest.raises(CapkitError, match="computation method"):
        sdm.DisclosureProtection.compute(real, syn, KEYS, SENSITIVE, "kap")
    with pytest.raises(CapkitError, match="num_discrete_bins"):
        sdm.DisclosureProtection.compute(real, syn, KEYS, SENSITIVE, "cap", ["f"], 0)
    with pytest.raises(CapkitError, match="synthetic_data must be a pandas DataFrame"):
        sdm.DisclosureProtection.compute(real, syn.to_numpy(), KEYS, SENSITIVE)
    with pytest.raises(CapkitError, match="must hold numbers"):
        sdm.DisclosureProtection.compute(real, syn, KEYS, SENSITIVE, "cap", ["a"])
    # a constant sensitive column: baseline 0, score NaN (as SDMetrics)
    result = sdm.DisclosureProtection.compute_breakdown(real.assign(t="u"), syn, KEYS, SENSITIVE)
    assert result["baseline_protection"] == 0 and np.isnan(result["score"])


def test_inputs_not_modified(tables) -> None:
    real, syn = tables
    before = real.copy(), syn.copy()
    meta = {"columns": {"a": {"sdtype": "categorical"}, "f": {"sdtype": "numerical"}}}
    sdm.DisclosureProtection.compute(real, syn, KEYS, SENSITIVE, "cap", ["f"])
    sdm.DCRBaselineProtection.compute(real, syn, meta, seed=0)
    sdm.CategoricalRF.compute(real, syn, key_fields=KEYS, sensitive_fields=SENSITIVE, seed=0)
    sdm.NumericalLR.compute(real, syn, key_fields=["n"], sensitive_fields=["f"])
    pd.testing.assert_frame_equal(real, before[0])
    pd.testing.assert_frame_equal(syn, before[1])


def test_missing_numeric_and_string_keys_and_unsigned_columns(tables) -> None:
    # SDMetrics: TypeError (its encoder sees text among numbers) / invalid data type None
    real, syn = tables
    real = real.assign(f=real["f"].where(real.index % 7 > 0), a=real["a"].astype("string"),
                       n=real["n"].astype("uint8"))
    syn = syn.assign(f=syn["f"].where(syn.index % 5 > 0), a=syn["a"].astype("string"),
                     n=syn["n"].astype("uint8"))
    real.loc[3, "a"] = pd.NA
    for metric in CATEGORICAL:
        score = metric.compute(real, syn, key_fields=["a", "f", "n"], sensitive_fields=["t"],
                               seed=0)
        assert 0 <= score <= 1
    # a missing key value matches a missing one: the same as spelling it as a level
    spelled = (real.assign(f=real["f"].fillna(99.0)), syn.assign(f=syn["f"].fillna(99.0)))
    assert sdm.CategoricalNB.compute(real, syn, key_fields=["f"], sensitive_fields=["t"]) == \
        sdm.CategoricalNB.compute(*spelled, key_fields=["f"], sensitive_fields=["t"])
