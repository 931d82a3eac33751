"""capkit.sdnist.report against SDNist 2.4's own outputs (reference/sdnist/: the report oracle on
three deidentified versions of the Massachusetts excerpt, and three cases drawn here from the
Texas, Massachusetts and national excerpts), number for number; skipped when the excerpts are not
at hand ($CAPKIT_DATA/sdnist or the cache). The slow transcriptions of SDNist's code and the bad
input are in tests/test_sdnist_units.py."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reference_data import SHARED_ORACLE

from capkit.data.sdnist_data import acs_excerpt_file, load_acs_excerpt, resample_excerpt
from capkit.sdnist import report

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "sdnist"
EXCERPT = {"MA": "ma2019", "TX": "tx2019", "NATIONAL": "national2019"}
EXACT = ("k_marginal_score", "sub_sampling_equivalent", "k_marginal_score_in_each_puma",
         "k_marginal_puma_40pct_subsample_baseline", "k_marginal_subsample_scores",
         "unique_exact_matches", "linear_regression")


def _oracle() -> dict:
    with gzip.open(REFERENCE / "report.json.gz") as f:
        return json.load(f)["cases"]


def _drawn(case: str) -> dict:
    with gzip.open(REFERENCE / "drawn" / f"{case}.json.gz") as f:
        return json.load(f)


def _target(name: str) -> Path:
    try:
        return acs_excerpt_file(name, download=False)
    except FileNotFoundError:
        pytest.skip(f"NIST's excerpt {name} is not at hand (set CAPKIT_DATA)")


def _deid(recipe: dict, tmp_path: Path) -> Path:
    """The deidentified file SDNist read: shipped (CART) or rebuilt from the excerpt, checked
    against the SHA-256 of the file SDNist read."""
    if recipe["kind"] == "cart":
        return REFERENCE / recipe["file"]
    excerpt = load_acs_excerpt(recipe.get("excerpt", EXCERPT[recipe["target"]]), text=True,
                               download=False)
    frame = resample_excerpt(excerpt, recipe["kind"], recipe["seed"],
                             swap=recipe.get("swap", 0.0), rows=recipe.get("rows"),
                             drop=tuple(recipe.get("drop", ())))
    data = frame.to_csv(index=False).encode()
    assert hashlib.sha256(data).hexdigest() == recipe["csv_sha256"]
    path = tmp_path / "deid.csv"
    path.write_bytes(data)
    return path


def _matrix(entry: dict) -> pd.DataFrame:
    return pd.DataFrame(np.array(entry["values"], dtype=float), index=entry["index"],
                        columns=entry["columns"])


def _check(got: dict, key: dict, files: dict, n_records: int) -> None:
    for name in EXACT:  # integers and SDNist's own roundings of them: equal
        assert got[name] == key[name], name
    am, ref_am = got["apparent_match"], key["apparent_match"]
    assert am["records_matched_on_quasi_identifiers"] == \
        ref_am["records_matched_on_quasi_identifiers"]
    assert am["percent_match_counts"] == {float(k): v
                                          for k, v in ref_am["percent_match_counts"].items()}
    # pMSE: the same tree (same draws for its ties) summed in SDNist's order; 1e-12 relative
    # leaves room for another scikit-learn's float32 split thresholds, nothing more
    assert got["pmse"] == pytest.approx(key["pmse"], rel=1e-12, abs=0)
    assert np.array_equal(got["propensity_distribution"].to_numpy(),
                          np.array(files["propensity_distribution"]))
    # correlations: sums of n terms of size <= 1 in another order (contingency tables, one
    # matrix product, vs scipy's kendalltau / pearsonr): n * machine epsilon
    tol = n_records * np.finfo(float).eps
    for name in ("kendall", "pearson"):
        ref = _matrix(files[name])
        mine = got["correlation_difference"][name]
        assert list(mine.index) == list(ref.index) and list(mine.columns) == list(ref.columns)
        assert np.allclose(mine.to_numpy(), ref.to_numpy(), rtol=0, atol=tol, equal_nan=True)


@pytest.mark.parametrize("case", ["ma_indep", "ma_bootstrap", "ma_cart"])
def test_the_report_oracle_number_for_number(case, tmp_path):
    ref = _oracle()[case]
    target = _target(EXCERPT[ref["target"]])
    deid = _deid(ref["deid"], tmp_path)
    if case == "ma_indep":  # frames read as SDNist reads the files
        got = report(pd.read_csv(target), pd.read_csv(deid))
    else:
        got = report(target, deid)
    _check(got, ref["key_numbers"], ref["files"], 7634)
    assert got["propensity_score_shown"] == ref["key_numbers"]["propensity_score_shown"]


@pytest.mark.parametrize("case", ["tx_swap", "ma_subset", "national_swap"])
def test_drawn_cases_number_for_number(case, tmp_path):
    ref = _drawn(case)
    target = _target(ref["deid"]["excerpt"])
    got = report(target, _deid(ref["deid"], tmp_path))
    assert got["features"] == sorted(ref["key_numbers"]["features"])
    _check(got, ref["key_numbers"], ref["files"], len(pd.read_csv(target)))


def test_duckdb_counts_the_same_unique_exact_matches(tmp_path):
    ref = _oracle()["ma_bootstrap"]
    target = _target("ma2019")
    deid = _deid(ref["deid"], tmp_path)
    got = report(target, deid, engine="duckdb", baselines=False)
    assert got["unique_exact_matches"] == ref["key_numbers"]["unique_exact_matches"]


def test_shipped_reference_equals_the_oracle():
    """reference/sdnist/ holds the report oracle's numbers and CART file unchanged."""
    oracle = SHARED_ORACLE / "sdnist"
    if not (oracle / "results.json").is_file():
        pytest.skip("the SDNist report oracle is not beside this clone (../shared/oracle)")
    full = json.loads((oracle / "results.json").read_text())["cases"]
    shipped = _oracle()
    assert sorted(full) == sorted(shipped)
    for case, ref in shipped.items():
        for name, value in ref["key_numbers"].items():
            assert full[case]["key_numbers"][name] == value, (case, name)
        rows = full[case]["files"]["propensity/propensity_distribution.csv"]["rows"]
        assert ref["files"]["propensity_distribution"] == [r[1:] for r in rows]
    assert (REFERENCE / "deid_ma_cart.csv.gz").read_bytes() == \
        (oracle / "deid_ma_cart.csv.gz").read_bytes()
