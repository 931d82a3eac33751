"""capkit.sdmetrics against SDMetrics 0.32 and against a record-by-record reference.

SDMetrics loops over records in Python, so the frames here stay small (tens to a few hundred
rows) to keep the file fast.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from capkit import cap
from capkit import sdmetrics as compat
from capkit.counts import tables
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import tables as paper

sdm = pytest.importorskip("sdmetrics.single_table")

PAIRS = [
    (compat.CategoricalCAP, "CategoricalCAP"),
    (compat.CategoricalZeroCAP, "CategoricalZeroCAP"),
    (compat.CategoricalGeneralizedCAP, "CategoricalGeneralizedCAP"),
]


def sdmetrics_score(name: str, real, synthetic, keys, sensitive) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sdm, name).compute(
            real_data=real, synthetic_data=synthetic, key_fields=keys, sensitive_fields=sensitive
        )


def random_frame(rng: np.random.Generator, n: int, *, na_keys: bool, na_sensitive: bool,
                 levels: int = 3) -> pd.DataFrame:
    """Mixed dtypes: object with np.nan, integer, boolean, pandas categorical."""
    obj = np.array([f"k{i}" for i in range(levels)] + ([np.nan] if na_keys else []), dtype=object)
    sens = np.array(["u", "v", "w"] + ([np.nan] if na_sensitive else []), dtype=object)
    return pd.DataFrame({
        "a": rng.choice(obj, n),
        "b": rng.integers(0, levels, n),
        "c": pd.Categorical(rng.choice(["p", "q"], n), categories=["q", "p"]),
        "d": rng.integers(0, 2, n).astype(bool),
        "t1": rng.choice(sens, n),
        "t2": rng.integers(0, 2, n),
        "other": rng.normal(size=n),  # a column that is neither key nor sensitive
    })


@pytest.mark.parametrize("seed", range(6))
def test_exact_scores_equal_sdmetrics_with_na_and_unmatched_keys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    real = random_frame(rng, 120, na_keys=True, na_sensitive=True)
    synthetic = random_frame(rng, 40, na_keys=True, na_sensitive=True)
    keys, sensitive = ["a", "b", "c", "d"], ["t1", "t2"]
    unmatched = ~real[keys].apply(tuple, axis=1).isin(set(synthetic[keys].apply(tuple, axis=1)))
    assert unmatched.any()  # the fixture must exercise absent keys
    for ours, name in PAIRS[:2]:
        expected = sdmetrics_score(name, real, synthetic, keys, sensitive)
        assert ours.compute(real, synthetic, key_fields=keys,
                            sensitive_fields=sensitive) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_generalized_equals_sdmetrics(seed: int) -> None:
    # NA only in the sensitive fields: SDMetrics' Hamming distance never matches a NaN key
    # (documented difference, tested below).
    rng = np.random.default_rng(100 + seed)
    real = random_frame(rng, 120, na_keys=False, na_sensitive=True, levels=4)
    synthetic = random_frame(rng, 30, na_keys=False, na_sensitive=True, levels=4)
    keys, sensitive = ["a", "b", "c", "d"], ["t1", "t2"]
    fields = {"key_fields": keys, "sensitive_fields": sensitive}
    expected = sdmetrics_score("CategoricalGeneralizedCAP", real, synthetic, keys, sensitive)
    got = compat.CategoricalGeneralizedCAP.compute(real, synthetic, **fields)
    assert got == pytest.approx(expected, abs=1e-12)
    # the fixture has real keys absent from the synthetic data, so the fallback is exercised
    exact = compat.CategoricalCAP.compute(real, synthetic, **fields)
    zero = compat.CategoricalZeroCAP.compute(real, synthetic, **fields)
    assert exact != zero


def test_single_key_and_sensitive_strings() -> None:
    rng = np.random.default_rng(7)
    real = random_frame(rng, 80, na_keys=False, na_sensitive=False)
    synthetic = random_frame(rng, 30, na_keys=False, na_sensitive=False)
    for ours, name in PAIRS:
        expected = sdmetrics_score(name, real, synthetic, ["a"], ["t1"])
        got = ours.compute(real, synthetic, key_fields="a", sensitive_fields="t1")
        assert got == pytest.approx(expected, abs=1e-12)


def reference_generalized(real: pd.DataFrame, synthetic: pd.DataFrame, keys, sensitive) -> float:
    """Record-by-record generalized CAP with NA as a level (slow reference)."""
    def rows(frame, cols):
        return [tuple("<NA>" if pd.isna(v) else v for v in row)
                for row in frame[cols].itertuples(index=False)]
    sk, ss = rows(synthetic, keys), rows(synthetic, sensitive)
    total = 0.0
    for key, value in zip(rows(real, keys), rows(real, sensitive), strict=True):
        dist = [sum(a != b for a, b in zip(key, other, strict=True)) for other in sk]
        best = min(dist)
        pool = [v for d, v in zip(dist, ss, strict=True) if d == best]
        total += sum(v == value for v in pool) / len(pool)
    return 1.0 - total / len(real)


@pytest.mark.parametrize("chunk_cells", [1, 7, 64, compat.CHUNK_CELLS])
def test_generalized_chunking_matches_reference(chunk_cells: int) -> None:
    rng = np.random.default_rng(3)
    real = random_frame(rng, 150, na_keys=True, na_sensitive=True, levels=5)
    synthetic = random_frame(rng, 40, na_keys=True, na_sensitive=True, levels=5)
    # rows whose key is at Hamming distance >= 2 (two levels unseen in S) and = 3
    real.loc[:9, "a"] = "new"
    real.loc[:19, "b"] = 99
    real.loc[5:7, "c"] = "q"
    synthetic["c"] = "p"
    keys, sensitive = ["a", "b", "c"], ["t1", "t2"]
    probs = compat.generalized_cap_probabilities(real, synthetic, keys, sensitive,
                                                 chunk_cells=chunk_cells)
    assert 1.0 - probs.mean() == pytest.approx(
        reference_generalized(real, synthetic, keys, sensitive), abs=1e-12)


def test_documented_na_difference() -> None:
    """capkit: NA is a level. SDMetrics: float NaN never matches; Hamming never matches NaN."""
    rng = np.random.default_rng(11)
    n_real, n_syn = 120, 60
    def frame(n: int) -> pd.DataFrame:
        return pd.DataFrame({"a": rng.choice([0.0, 1.0, np.nan], n),
                             "b": rng.choice(["x", "y"], n), "t": rng.choice(["u", "v"], n)})

    real, synthetic = frame(n_real), frame(n_syn)
    filled_real = real.assign(a=real["a"].astype(object).where(real["a"].notna(), "NA"))
    filled_syn = synthetic.assign(a=synthetic["a"].astype(object).where(synthetic["a"].notna(),
                                                                       "NA"))
    for ours, name in PAIRS:
        got = ours.compute(real, synthetic, key_fields=["a", "b"], sensitive_fields=["t"])
        # capkit's NA level equals SDMetrics run with NaN spelled as a string level...
        assert got == pytest.approx(
            sdmetrics_score(name, filled_real, filled_syn, ["a", "b"], ["t"]), abs=1e-12)
        # ...and differs from SDMetrics on the float column with NaN.
        assert abs(got - sdmetrics_score(name, real, synthetic, ["a", "b"], ["t"])) > 1e-6
    # Generalized: an object-column np.nan key also differs (SDMetrics' hamming uses !=).
    obj_real = real.assign(a=real["a"].astype(object))
    obj_syn = synthetic.assign(a=synthetic["a"].astype(object))
    got = compat.CategoricalGeneralizedCAP.compute(obj_real, obj_syn, key_fields=["a", "b"],
                                                   sensitive_fields=["t"])
    assert abs(got - sdmetrics_score("CategoricalGeneralizedCAP", obj_real, obj_syn,
                                     ["a", "b"], ["t"])) > 1e-6


def test_no_matching_key_gives_nan_like_sdmetrics() -> None:
    real = pd.DataFrame({"k": ["a", "b"], "t": ["x", "y"]})
    synthetic = pd.DataFrame({"k": ["c", "c"], "t": ["x", "x"]})
    assert np.isnan(sdmetrics_score("CategoricalCAP", real, synthetic, ["k"], ["t"]))
    # capkit refuses a key with no value in common by default (coded differently?) ...
    with pytest.raises(CapkitError, match="key column 'k'"):
        compat.CategoricalCAP.compute(real, synthetic, key_fields=["k"], sensitive_fields=["t"])
    # ... and gives SDMetrics' numbers for whoever means it
    allow = {"allow_disjoint_levels": True, "key_fields": ["k"], "sensitive_fields": ["t"]}
    assert np.isnan(compat.CategoricalCAP.compute(real, synthetic, **allow))
    assert compat.CategoricalZeroCAP.compute(real, synthetic, **allow) == 1.0
    # the Generalized pool is all of S (distance 1): P(x) = 1 for 'a', 0 for 'b'
    assert compat.CategoricalGeneralizedCAP.compute(real, synthetic, **allow) == 0.5


def test_paper_tables_are_one_minus_average_cap() -> None:
    # Baillargeon & Charest, Tables 9-10: every key of O4 occurs in S_a and S_e, so the three
    # scores coincide and equal 1 - average CAP (printed as 0.318 and 0.309).
    for name, printed in (("S_a", 0.318), ("S_e", 0.309)):
        o, s = paper.ORIGINALS["O4"], paper.SYNTHETICS[name]
        real = tables.records_from_counts(o, ["T1", "T2", "T3"], ["K1", "K2", "K3"])
        synthetic = tables.records_from_counts(s, ["T1", "T2", "T3"], ["K1", "K2", "K3"])
        scores = [ours.compute(real, synthetic, key_fields=["key"], sensitive_fields=["target"])
                  for ours, _ in PAIRS]
        assert scores[0] == pytest.approx(1 - cap.average_cap(o, s, 2), abs=1e-15)
        assert scores[1] == pytest.approx(1 - cap.average_cap(o, s, 1), abs=1e-15)
        assert scores[2] == pytest.approx(scores[1], abs=1e-15)
        assert round(1 - scores[1], 3) == printed


def test_inputs_not_modified() -> None:
    rng = np.random.default_rng(5)
    real = random_frame(rng, 50, na_keys=True, na_sensitive=True)
    synthetic = random_frame(rng, 20, na_keys=True, na_sensitive=True)
    before = real.copy(), synthetic.copy()
    for ours, _ in PAIRS:
        ours.compute(real, synthetic, key_fields=["a", "b"], sensitive_fields=["t1"])
    pd.testing.assert_frame_equal(real, before[0])
    pd.testing.assert_frame_equal(synthetic, before[1])


@pytest.mark.parametrize("metric", [p[0] for p in PAIRS])
def test_bad_input(metric) -> None:
    real = pd.DataFrame({"k": ["a", "b"], "n": [1, 2], "t": ["x", "y"]})
    synthetic = real.copy()
    with pytest.raises(CapkitError, match="'extra'"):
        metric.compute(real, synthetic.assign(extra=1), key_fields=["k"], sensitive_fields=["t"])
    with pytest.raises(CapkitError, match="'t'.*key"):
        metric.compute(real, synthetic, key_fields=["k", "t"], sensitive_fields=["t"])
    with pytest.raises(CapkitError, match="'n'"):
        metric.compute(real, synthetic.assign(n=["1", "2"]), key_fields=["k", "n"],
                       sensitive_fields=["t"])
    with pytest.raises(CapkitError, match="'when'"):
        when = pd.to_datetime(["2020-01-01", "2020-01-02"])
        metric.compute(real.assign(when=when), synthetic.assign(when=when), key_fields=["when"],
                       sensitive_fields=["t"])
    with pytest.raises(CapkitError, match="empty"):
        metric.compute(real, synthetic.iloc[:0], key_fields=["k"], sensitive_fields=["t"])
    with pytest.raises(CapkitError, match="key_fields"):
        metric.compute(real, synthetic, key_fields=[], sensitive_fields=["t"])
    with pytest.raises(CapkitError, match="'k'.*missing"):
        metric.compute(real.drop(columns="k"), synthetic.drop(columns="k"), key_fields=["k"],
                       sensitive_fields=["t"])
