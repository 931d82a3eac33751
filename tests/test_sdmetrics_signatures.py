"""Every SDMetrics privacy metric of capkit.sdmetrics takes SDMetrics 0.32's calls as they are:
``compute(real_data, synthetic_data, metadata=None, table_name=None, ...)`` positionally and by
keyword, with the same parameter order (checked against the installed SDMetrics when present,
else against the order written here from its source, ``single_table/privacy/*.py``)."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from capkit import sdmetrics as sdm

ATTACK = ["real_data", "synthetic_data", "metadata", "table_name", "key_fields",
          "sensitive_fields", "model_kwargs"]
NUMERIC = ATTACK + ["loss_function", "loss_function_kwargs"]
DISCLOSURE = ["real_data", "synthetic_data", "known_column_names", "sensitive_column_names",
              "computation_method", "continuous_column_names", "num_discrete_bins"]
#: SDMetrics 0.32's positional parameters of ``compute`` (and ``compute_breakdown``).
SIGNATURES = {
    "CategoricalCAP": ATTACK, "CategoricalZeroCAP": ATTACK, "CategoricalGeneralizedCAP": ATTACK,
    "CategoricalKNN": ATTACK, "CategoricalNB": ATTACK, "CategoricalRF": ATTACK,
    "CategoricalSVM": ATTACK, "CategoricalEnsemble": ATTACK,
    "NumericalLR": NUMERIC, "NumericalMLP": NUMERIC, "NumericalSVR": NUMERIC,
    "NumericalRadiusNearestNeighbor": NUMERIC,
    "DisclosureProtection": DISCLOSURE,
    "DisclosureProtectionEstimate": DISCLOSURE + ["num_rows_subsample", "num_iterations",
                                                  "verbose"],
    "DCRBaselineProtection": ["real_data", "synthetic_data", "metadata", "table_name",
                              "num_rows_subsample", "num_iterations"],
    "DCROverfittingProtection": ["real_training_data", "synthetic_data", "real_validation_data",
                                 "metadata", "table_name", "num_rows_subsample",
                                 "num_iterations"],
}


def _positional(function: object) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "cls"]


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_positional_order_is_sdmetrics(name: str) -> None:
    ours = getattr(sdm, name)
    assert _positional(ours.compute) == SIGNATURES[name]
    try:
        from sdmetrics.single_table import privacy
    except ImportError:
        return
    theirs = getattr(privacy, name)
    assert _positional(ours.compute) == _positional(theirs.compute)
    if name.startswith(("Disclosure", "DCR")):
        assert _positional(ours.compute_breakdown) == _positional(theirs.compute_breakdown)


def _frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(5)

    def make(n: int) -> pd.DataFrame:
        a = rng.choice(["x", "y", "z"], n)
        b = rng.choice(["u", "v"], n)
        return pd.DataFrame({"a": a, "b": b,
                             "t": np.where(rng.random(n) < 0.8, a, "y"),
                             "n1": rng.normal(size=n).round(2),
                             "n2": rng.normal(size=n).round(2)})
    return make(60), make(60), make(40)


META = {"columns": {"a": {"sdtype": "categorical"}, "b": {"sdtype": "categorical"},
                    "t": {"sdtype": "categorical"}, "n1": {"sdtype": "numerical"},
                    "n2": {"sdtype": "numerical"}}}
CATEGORICAL = ["CategoricalCAP", "CategoricalZeroCAP", "CategoricalGeneralizedCAP",
               "CategoricalKNN", "CategoricalNB", "CategoricalRF", "CategoricalSVM",
               "CategoricalEnsemble"]
NUMERICAL = ["NumericalLR", "NumericalMLP", "NumericalSVR", "NumericalRadiusNearestNeighbor"]


def _extra(name: str) -> dict:
    return {"seed": 0} if name in ("CategoricalRF", "CategoricalEnsemble", "NumericalMLP") else {}


@pytest.mark.parametrize("name", CATEGORICAL)
def test_categorical_metrics_take_both_call_styles(name: str) -> None:
    real, syn, _ = _frames()
    metric = getattr(sdm, name)
    keys, sensitive = ["a", "b"], ["t"]
    model = ({"attackers": [sdm.CAPAttacker, sdm.CategoricalNBAttacker]}
             if name == "CategoricalEnsemble" else None)
    positional = metric.compute(real, syn, None, None, keys, sensitive, model, **_extra(name))
    keywords = metric.compute(real_data=real, synthetic_data=syn, metadata=None,
                              key_fields=keys, sensitive_fields=sensitive, model_kwargs=model,
                              **_extra(name))
    in_metadata = metric.compute(real, syn, {**META, "key_fields": keys,
                                             "sensitive_fields": sensitive},
                                 model_kwargs=model, **_extra(name))
    assert 0 <= positional <= 1
    assert positional == keywords == in_metadata


@pytest.mark.parametrize("name", NUMERICAL)
def test_numerical_metrics_take_both_call_styles(name: str) -> None:
    real, syn, _ = _frames()
    metric = getattr(sdm, name)
    positional = metric.compute(real, syn, META, None, ["n1"], ["n2"], None, None, None,
                                **_extra(name))
    keywords = metric.compute(real_data=real, synthetic_data=syn, metadata=META,
                              table_name=None, key_fields=["n1"], sensitive_fields=["n2"],
                              **_extra(name))
    assert np.isfinite(positional)
    assert positional == keywords


def test_disclosure_protection_takes_both_call_styles() -> None:
    real, syn, _ = _frames()
    for metric, extra in ((sdm.DisclosureProtection, {}),
                          (sdm.DisclosureProtectionEstimate, {"seed": 0})):
        positional = metric.compute(real, syn, ["a", "b"], ["t"], "cap", None, 10, **extra)
        keywords = metric.compute(real_data=real, synthetic_data=syn,
                                  known_column_names=["a", "b"], sensitive_column_names=["t"],
                                  computation_method="cap", **extra)
        assert positional == keywords
        assert 0 <= positional <= 1


def test_dcr_protections_take_both_call_styles() -> None:
    real, syn, holdout = _frames()
    positional = sdm.DCRBaselineProtection.compute(real, syn, META, None, None, 1, seed=0)
    keywords = sdm.DCRBaselineProtection.compute(real_data=real, synthetic_data=syn,
                                                 metadata=META, table_name=None, seed=0)
    assert positional == keywords
    positional = sdm.DCROverfittingProtection.compute(real, syn, holdout, META, None)
    keywords = sdm.DCROverfittingProtection.compute(
        real_training_data=real, synthetic_data=syn, real_validation_data=holdout,
        metadata=META, table_name=None)
    assert positional == keywords
    assert 0 <= positional <= 1


def test_cap_refuses_model_kwargs() -> None:
    real, syn, _ = _frames()
    from capkit.errors import CapkitError

    with pytest.raises(CapkitError, match="model_kwargs"):
        sdm.CategoricalCAP.compute(real, syn, key_fields=["a"], sensitive_fields=["t"],
                                   model_kwargs={"k": 1})


def test_dcr_overfitting_tie_is_decided_on_the_distance_not_its_rounding() -> None:
    """An exact tie summed in two orders (0.1 + 0.2 against 0.3, one ulp apart) is a tie,
    counted as closer to the holdout as SDMetrics counts ties; a real difference is not."""
    from capkit.sdmetrics.dcr import closer_to_training

    to_training = np.array([0.1 + 0.2, 0.3, 0.25, 0.3])
    to_holdout = np.array([0.3, 0.1 + 0.2, 0.3, 0.3])
    assert 0.1 + 0.2 != 0.3  # the two roundings of one distance differ
    assert list(closer_to_training(to_training, to_holdout)) == [False, False, True, False]
