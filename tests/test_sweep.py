"""The k-key sweep (capkit.disclosure.sweep): DiSCO and Dorig equal disclosure()'s, a
record-by-record reference of SDNist's definitions, a case worked by hand, the holdout control,
the key x target matrix and its heatmap, and bad input."""

from __future__ import annotations

import itertools
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from capkit.control import compare_to_control
from capkit.disclosure import disclosure
from capkit.disclosure.sweep import SweepResult, sweep
from capkit.errors import CapkitError, CapkitWarning
from capkit.plots import save
from capkit.plots.sweep import key_target_heatmap

DATA = Path(os.environ.get("CAPKIT_DATA", Path(__file__).parents[2] / "shared" / "data"))
BAND = Path(__file__).resolve().parents[1] / "reference" / "synthpop" / "adult_band"
needs_adult = pytest.mark.skipif(not (DATA / "AdultUCI.rda").is_file(),
                                 reason="Adult data not available")


def _frame(rng: np.random.Generator, n: int, missing: bool = True) -> pd.DataFrame:
    frame = pd.DataFrame({c: rng.integers(0, 4, n) for c in "abcd"})
    frame["e"] = rng.choice(["u", "v"], n)
    frame["t"] = rng.choice(["x", "y", "z"], n, p=[0.7, 0.2, 0.1])
    if missing:
        frame["a"] = frame["a"].astype(float).mask(rng.random(n) < 0.1)
        frame["t"] = frame["t"].mask(rng.random(n) < 0.1)
    return frame


def _slow_sdnist(original: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                 target: str) -> tuple[float, float]:
    """SDNist's DiSCO and DiO (sdnist/metrics/disco.py), one record at a time, in percent:
    DiSCO counts the original records whose key's synthetic records all have one target
    value, the record's own; DiO the records whose key has one target value in the original."""
    syn_targets: dict[tuple, set] = {}
    for row in synthetic[keys + [target]].itertuples(index=False):
        syn_targets.setdefault(tuple(row[:-1]), set()).add(row[-1])
    orig_targets: dict[tuple, set] = {}
    for row in original[keys + [target]].itertuples(index=False):
        orig_targets.setdefault(tuple(row[:-1]), set()).add(row[-1])
    disco = dio = 0
    for row in original[keys + [target]].itertuples(index=False):
        key, value = tuple(row[:-1]), row[-1]
        seen = syn_targets.get(key, set())
        disco += len(seen) == 1 and value in seen
        dio += len(orig_targets[key]) == 1
    n = len(original)
    return 100 * disco / n, 100 * dio / n


def test_disco_and_dorig_equal_disclosure_with_missing_values() -> None:
    rng = np.random.default_rng(11)
    original, synthetic, holdout = _frame(rng, 300), _frame(rng, 280), _frame(rng, 150)
    result = sweep(synthetic, original, list("abcd"), ["t", "e", "a"], holdout=holdout)
    assert len(result.table) == 2 * (6 + 4) + (3 + 1)  # a is never its own key
    for row in result.table.to_dict("records"):
        keys = row["keys"].split(" + ")
        members = disclosure(synthetic, original, keys, row["target"])
        held = disclosure(synthetic, holdout, keys, row["target"])
        assert row["DiSCO"] == pytest.approx(members.attrib["DiSCO"].iloc[0], abs=1e-12)
        assert row["Dorig"] == pytest.approx(members.attrib["Dorig"].iloc[0], abs=1e-12)
        assert row["holdout DiSCO"] == pytest.approx(held.attrib["DiSCO"].iloc[0], abs=1e-12)


def test_record_by_record_reference_of_sdnists_definitions() -> None:
    rng = np.random.default_rng(5)
    original, synthetic = _frame(rng, 400, missing=False), _frame(rng, 400, missing=False)
    pool = list("abcde")
    result = sweep(synthetic, original, pool, ["t", "b"], sizes=(1, 2, 3))
    assert result.sizes == [1, 2, 3]
    checked = 0
    for k in (1, 2, 3):
        for combo in itertools.combinations(pool, k):
            for target in ("t", "b"):
                if target in combo:
                    continue
                row = result.table[(result.table.target == target)
                                   & (result.table["keys"] == " + ".join(combo))].iloc[0]
                disco, dio = _slow_sdnist(original, synthetic, list(combo), target)
                assert row.DiSCO == pytest.approx(disco, abs=1e-12)
                assert row.Dorig == pytest.approx(dio, abs=1e-12)
                assert row.excess == pytest.approx(disco - dio, abs=1e-12)
                checked += 1
    assert checked == len(result.table) == 2 * (5 + 10 + 10) - (1 + 4 + 6)


def test_case_worked_by_hand() -> None:
    # key (a, b): (0,0) has synthetic targets {x} -> disclosive of x; (0,1) has {x, y} -> not;
    # (1,1) has {y} -> disclosive of y; (2,2) is not in the synthetic data.
    original = pd.DataFrame({"a": [0, 0, 0, 0, 1, 1, 2], "b": [0, 0, 0, 1, 1, 1, 2],
                             "t": ["x", "x", "y", "x", "y", "y", "z"]})
    synthetic = pd.DataFrame({"a": [0, 0, 0, 1, 2], "b": [0, 1, 1, 1, 0],
                              "t": ["x", "x", "y", "y", "z"]})
    result = sweep(synthetic, original, ["a", "b"], ["t"], sizes=2)
    row = result.table.iloc[0]
    # DiSCO: the two x records of (0,0) and the two y records of (1,1): 4 of 7
    assert row.DiSCO == pytest.approx(100 * 4 / 7)
    # Dorig: keys with one target in the original: (0,1) x, (1,1) y y, (2,2) z: 4 of 7
    assert row.Dorig == pytest.approx(100 * 4 / 7)
    assert row.excess == pytest.approx(0.0)
    assert not row.identifying


def test_holdout_control_is_compare_to_control_of_the_counts() -> None:
    rng = np.random.default_rng(2)
    original, holdout = _frame(rng, 200), _frame(rng, 120)
    synthetic = original.sample(200, replace=True, random_state=3).reset_index(drop=True)
    result = sweep(synthetic, original, list("abcd"), ["t"], sizes=3, holdout=holdout,
                   confidence=0.9)
    assert result.n_holdout == 120
    for row in result.table.to_dict("records"):
        k_m, k_h = round(row["DiSCO"] * 200 / 100), round(row["holdout DiSCO"] * 120 / 100)
        expected = compare_to_control(k_m, 200, k_h, 120, confidence=0.9, warn=False)
        assert row["risk"] == pytest.approx(100 * expected.risk)
        assert row["risk low"] == pytest.approx(100 * expected.risk_ci[0])
        assert row["risk high"] == pytest.approx(100 * expected.risk_ci[1])
        assert row["advantage"] == pytest.approx(row["DiSCO"] - row["holdout DiSCO"])
    # a bootstrap copy discloses its members more than the holdout
    assert (result.table["advantage"] > 0).all()
    worst = result.worst(1).iloc[0]
    sentence = result.describe(1)[0]
    assert sentence.startswith(f"knowing {worst['keys']}, an intruder reads t correctly")
    assert f"{worst['DiSCO']:.2f}% of the original records" in sentence
    assert f"{worst['holdout DiSCO']:.2f}% of the holdout's records" in sentence


def test_key_target_matrix_and_worst() -> None:
    table = pd.DataFrame({
        "target": ["t", "t", "t", "u"], "keys": ["a + b", "a + c", "b + c", "a + b"],
        "k": 2, "DiSCO": [5.0, 3.0, 1.0, 7.0], "Dorig": [0.0, 0.0, 0.0, 0.0],
        "excess": [5.0, 3.0, 1.0, 7.0], "identifying": False})
    result = SweepResult(table, ["a", "b", "c"], ["t", "u"], [2], 100)
    mean = result.key_target()
    assert mean.loc["a", "t"] == pytest.approx(4.0)
    assert mean.loc["c", "t"] == pytest.approx(2.0)
    assert np.isnan(mean.loc["c", "u"])
    assert result.key_target(aggregate="max").loc["b", "t"] == pytest.approx(5.0)
    worst = result.worst(2)
    assert list(worst["target"]) == ["u", "t"] and list(worst["keys"]) == ["a + b", "a + b"]
    assert list(result.worst_per_target()["keys"]) == ["a + b", "a + b"]
    with pytest.raises(CapkitError, match="aggregate"):
        result.key_target(aggregate="median")
    with pytest.raises(CapkitError, match="by must be"):
        result.worst(by="nothing")


def test_heatmap_is_byte_identical(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    original, synthetic = _frame(rng, 150), _frame(rng, 150)
    result = sweep(synthetic, original, list("abcd"), ["t", "e", "b"])
    paths = []
    for run in ("one", "two"):
        fig = key_target_heatmap(result.key_target(), title="k-key sweep")
        paths.append(save(fig, "sweep", tmp_path / run))
    for first, second in zip(*paths, strict=True):
        assert first.read_bytes() == second.read_bytes()
    with pytest.raises(CapkitError, match="non-empty"):
        key_target_heatmap(pd.DataFrame())


def test_inputs_are_not_modified() -> None:
    rng = np.random.default_rng(8)
    original, synthetic, holdout = _frame(rng, 100), _frame(rng, 100), _frame(rng, 50)
    copies = [f.copy() for f in (original, synthetic, holdout)]
    sweep(synthetic, original, list("abc"), ["t"], holdout=holdout)
    for before, after in zip(copies, (original, synthetic, holdout), strict=True):
        pd.testing.assert_frame_equal(before, after)


def test_identifier_in_the_pool_is_refused() -> None:
    rng = np.random.default_rng(1)
    original, synthetic = _frame(rng, 100), _frame(rng, 100)
    original["id"] = np.arange(100)
    synthetic["id"] = np.arange(100)
    with pytest.raises(CapkitError, match=r"\['id'\].*identifier"):
        sweep(synthetic, original, ["a", "id"], ["t"])


def test_combinations_that_make_every_record_unique_are_named() -> None:
    original = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1], "t": list("xyxy")})
    with pytest.warns(CapkitWarning, match="make every original record unique"):
        result = sweep(original, original, ["a", "b"], ["t"], sizes=(1, 2))
    assert result.identifying == [("a", "b")]
    assert result.table.set_index("keys").loc["a + b", "identifying"]


def test_bad_input() -> None:
    rng = np.random.default_rng(3)
    original, synthetic = _frame(rng, 50), _frame(rng, 50)
    with pytest.raises(CapkitError, match="max_pairs"):
        sweep(synthetic, original, list("abcde"), ["t"], max_pairs=5)
    with pytest.raises(CapkitError, match="cannot be chosen"):
        sweep(synthetic, original, ["a", "b"], ["t"], sizes=(3, 4))
    assert sweep(synthetic, original, ["a", "b"], ["t"]).sizes == [2]
    with pytest.raises(CapkitError, match="positive whole"):
        sweep(synthetic, original, ["a", "b"], ["t"], sizes=0)
    with pytest.raises(CapkitError, match="'nope' is missing from synthetic"):
        sweep(synthetic.assign(nope=1).drop(columns="nope"), original.assign(nope=1),
              ["a", "nope"], ["t"])
    with pytest.raises(CapkitError, match="names a column twice"):
        sweep(synthetic, original, ["a", "a"], ["t"])
    with pytest.raises(CapkitError, match="nothing to sweep"):
        sweep(synthetic, original, ["a"], ["a"], sizes=1)
    with pytest.raises(CapkitError, match="holdout data lacks"):
        sweep(synthetic, original, ["a", "b"], ["t"], holdout=original.drop(columns="t"))


@needs_adult
def test_adult_sweep_equals_disclosure_and_is_fast() -> None:
    from capkit.data import datasets
    from capkit.papers.raab_nowok_dibben.adult_band import load_adult_band
    from capkit.papers.raab_nowok_dibben.adult_table1 import ADULT_TARGETS

    adult = datasets.load_adult(DATA, progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    synthetic = load_adult_band(BAND, [1])[1]
    pool = ["age", "workclass", "education", "marital.status", "occupation", "relationship",
            "race", "sex"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # continuous targets (fnlwgt ...), as disclosure warns
        start = time.perf_counter()
        result = sweep(synthetic, adult, pool, list(ADULT_TARGETS), sizes=3)
        elapsed = time.perf_counter() - start
        assert len(result.table) == 56 * 10 - 4 * 21  # 4 targets are in the pool
        rows = result.table.sample(6, random_state=0)
        for row in rows.itertuples(index=False):
            expected = disclosure(synthetic, adult, row.keys.split(" + "), row.target)
            assert row.DiSCO == pytest.approx(expected.attrib["DiSCO"].iloc[0], abs=1e-12)
            assert row.Dorig == pytest.approx(expected.attrib["Dorig"].iloc[0], abs=1e-12)
    assert elapsed < 15  # about 0.5 s alone; generous for a loaded machine (benchmark: < 5 s)


def _sdnist_reference() -> dict:
    import gzip
    import json

    path = Path(__file__).resolve().parents[1] / "reference" / "sdnist" / "kdisco.json.gz"
    return json.loads(gzip.decompress(path.read_bytes()))


def _check_against_sdnist(name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
                          k: int, fixed: list[str]) -> None:
    reference = _sdnist_reference()[name]
    columns = [c for c in original.columns if c not in fixed]  # SDNist: every other column
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sweep(synthetic, original, columns, columns, sizes=k, fixed=fixed)
    assert len(result.table) == sum(len(v) for v in reference.values())
    for row in result.table.to_dict("records"):
        disco, dio = reference[row["target"]]["|".join(sorted(row["keys"].split(" + ")))]
        assert row["DiSCO"] == pytest.approx(100 * disco, abs=1e-9)
        assert row["Dorig"] == pytest.approx(100 * dio, abs=1e-9)


@pytest.mark.parametrize("name", ["random", "random_fixed"])
def test_sdnist_kdisco_on_a_random_case(name: str) -> None:
    from sdnist_data import FIXED, K, random_case

    _check_against_sdnist(name, *random_case(), K[name], FIXED[name])


@needs_adult
def test_sdnist_kdisco_on_adult() -> None:
    from sdnist_data import FIXED, K, adult_case

    _check_against_sdnist("adult", *adult_case(DATA), K["adult"], FIXED["adult"])


def test_fixed_keys_are_in_every_combination() -> None:
    rng = np.random.default_rng(12)
    original, synthetic = _frame(rng, 200), _frame(rng, 200)
    result = sweep(synthetic, original, list("bcd"), ["t", "e"], sizes=2, fixed=["a"])
    assert result.pool == ["a", "b", "c", "d"]
    assert set(result.table["keys"]) == {"a + b + c", "a + b + d", "a + c + d"}
    assert (result.table["k"] == 3).all()
    for row in result.table.to_dict("records"):
        expected = disclosure(synthetic, original, row["keys"].split(" + "), row["target"])
        assert row["DiSCO"] == pytest.approx(expected.attrib["DiSCO"].iloc[0], abs=1e-12)
    with pytest.raises(CapkitError, match="both fixed and in the pool"):
        sweep(synthetic, original, list("abc"), ["t"], fixed=["a"])
