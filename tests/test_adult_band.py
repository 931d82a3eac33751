"""Adult's synthetic side over seeds: capkit.papers.raab_nowok_dibben.adult_band.

* synthpop's own syntheses (``reference/synthpop/adult_band``) read with R's schema;
* the exact permutation test against scipy's, Holm's adjustment by hand, the band helpers on
  small hand-made bands;
* Table 1 rows of a small slice of Adult in both modes, and capkit's synthesis with synthpop's
  visit sequence;
* bad input.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from capkit.data import datasets
from capkit.errors import CapkitError
from capkit.papers.raab_nowok_dibben.adult_band import (
    ADULT_VISIT_SEQUENCE,
    BAND_COLUMNS,
    absent_counts,
    absent_values,
    band_range,
    band_rows,
    band_rows_of,
    compare_sources,
    exclusion_tables,
    holm,
    load_adult_band,
    paper_in_band,
    permutation_test,
    read_band,
    same_as_band,
    synthesise_adult,
)
from capkit.papers.raab_nowok_dibben.adult_table1 import ADULT_TABLE1, ADULT_TARGETS, EXCLUSIONS

BAND = Path(__file__).resolve().parents[1] / "reference" / "synthpop" / "adult_band"
DATA = Path(os.environ.get("CAPKIT_DATA", Path(__file__).parents[2] / "shared" / "data"))
needs_adult = pytest.mark.skipif(not (DATA / "AdultUCI.rda").is_file(),
                                 reason="Adult data not available")


# --------------------------------------------------------------------------------------------
# synthpop's syntheses


def test_visit_sequence_is_synthpops() -> None:
    names = datasets.ADULT_PAPER_VARIABLES
    r_positions = [*range(1, 13), 14, 13]  # visit.sequence = c(1:12, 14, 13)
    assert ADULT_VISIT_SEQUENCE == tuple(names[i - 1] for i in r_positions)
    assert ADULT_VISIT_SEQUENCE[-1] == "native.country"


def test_load_adult_band_applies_rs_schema() -> None:
    frames = load_adult_band(BAND, seeds=[3, 1])
    assert list(frames) == [3, 1]
    with gzip.open(BAND / "results.json.gz", "rt") as f:
        schema = json.load(f)["schema"]
    for frame in frames.values():
        assert frame.shape == (48842, 14)
        assert list(frame.columns) == list(schema)
        for name, spec in schema.items():
            values = frame[name]
            if spec["levels"] is not None:
                assert list(values.cat.categories) == spec["levels"]
                assert values.cat.ordered == ("ordered" in spec["class"])
            else:
                assert values.dtype == np.int64
    one = frames[1]
    assert one["education"].cat.ordered and one["income"].cat.ordered
    assert not one["workclass"].cat.ordered
    # the first record as R wrote it
    assert one.iloc[0]["workclass"] == "Self-emp-not-inc" and one.iloc[0]["fnlwgt"] == 154641
    assert one["income"].isna().sum() > 0


def test_load_adult_band_all_seeds_in_order() -> None:
    meta = datasets.read_reference_json(BAND)
    assert sorted(int(s) for s in meta["syntheses"]) == list(range(1, 11))


@needs_adult
def test_band_has_the_dtypes_of_load_adult() -> None:
    adult = datasets.load_adult(DATA, progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    frame = load_adult_band(BAND, [2])[2]
    pd.testing.assert_series_equal(frame.dtypes, adult.dtypes)


def test_load_adult_band_bad_input(tmp_path: Path) -> None:
    with pytest.raises(CapkitError, match="not in"):
        load_adult_band(BAND, seeds=[11])
    sd2011 = BAND.parent / "sd2011_m5"
    with pytest.raises(CapkitError, match="not an adult_band case"):
        load_adult_band(sd2011)
    schema = {"a": {"class": ["factor"], "levels": ["x", "y"], "n_na": 0}}
    (tmp_path / "results.json").write_text(json.dumps(
        {"schema": schema, "syntheses": {"1": {"file": "syn_seed1.csv"}}}))
    (tmp_path / "syn_seed1.csv").write_text('"a"\n"x"\n"z"\n')
    with pytest.raises(CapkitError, match="outside its levels"):
        load_adult_band(tmp_path)
    (tmp_path / "syn_seed1.csv").write_text('"b"\n"x"\n')
    with pytest.raises(CapkitError, match="not both in the file and in the schema"):
        load_adult_band(tmp_path)
    (tmp_path / "syn_seed1.csv").write_text('"a"\n"x"\n\n"NA"\n')
    with pytest.raises(CapkitError, match="outside its levels"):  # "NA" is a label, not missing
        load_adult_band(tmp_path)


# --------------------------------------------------------------------------------------------
# the two-sample test


def _scipy_exact(x: np.ndarray, y: np.ndarray) -> float:
    """scipy's exact test of |mean(x) - mean(y)| (large values reject): the two-sided test by
    the absolute statistic, which for unequal sizes is not scipy's "two-sided" (twice the
    smaller one-sided p-value)."""
    def statistic(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
        return np.abs(np.mean(a, axis=axis) - np.mean(b, axis=axis))

    return float(stats.permutation_test((x, y), statistic, n_resamples=np.inf,
                                        vectorized=True, alternative="greater").pvalue)


@pytest.mark.parametrize(("n_x", "n_y", "shift"), [(8, 7, 0.0), (8, 7, 1.0), (6, 9, 3.0),
                                                   (10, 10, 0.4)])
def test_permutation_test_equals_scipys_exact_test(n_x: int, n_y: int, shift: float) -> None:
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=n_x), rng.normal(size=n_y) + shift
    difference, p = permutation_test(x, y)
    assert difference == pytest.approx(x.mean() - y.mean())
    assert p == pytest.approx(_scipy_exact(x, y), rel=1e-12)


def test_permutation_test_ties_and_extremes() -> None:
    assert permutation_test([0.0] * 10, [0.0] * 10) == (0.0, 1.0)
    # fully separated samples of 10 and 10: only the observed split and its mirror
    _, p = permutation_test(np.arange(10.0), np.arange(10.0) + 100)
    assert p == pytest.approx(2 / math.comb(20, 10))
    # ties of values on a 0.01 grid (as rounded percentages) count as ties in floating point
    x = np.array([0.1, 0.2, 0.3, 0.1, 0.2])
    y = np.array([0.3, 0.2, 0.1, 0.2, 0.1])
    _, p = permutation_test(x, y)
    assert p == 1.0
    _, p_small = permutation_test([1.0, 2.0, 3.0], [1.5, 2.5])
    assert p_small == pytest.approx(_scipy_exact(np.array([1.0, 2.0, 3.0]),
                                                 np.array([1.5, 2.5])))


def test_permutation_test_samples_when_too_many_splits() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=20), rng.normal(size=20) + 0.8
    first = permutation_test(x, y, seed=5, n_resamples=20_000)
    assert first == permutation_test(x, y, seed=5, n_resamples=20_000)
    assert first[1] != permutation_test(x, y, seed=6, n_resamples=20_000)[1]
    exact_ish = _scipy_exact_sampled(x, y)
    assert abs(first[1] - exact_ish) < 0.015


def _scipy_exact_sampled(x: np.ndarray, y: np.ndarray) -> float:
    def statistic(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
        return np.abs(np.mean(a, axis=axis) - np.mean(b, axis=axis))

    return float(stats.permutation_test((x, y), statistic, n_resamples=50_000, vectorized=True,
                                        alternative="greater",
                                        rng=np.random.default_rng(0)).pvalue)


def test_permutation_test_bad_input() -> None:
    with pytest.raises(CapkitError, match="non-empty"):
        permutation_test([], [1.0])
    with pytest.raises(CapkitError, match="NaN"):
        permutation_test([1.0, np.nan], [1.0])


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04, 0.5 -> 4 x 0.01, max(0.04, 3 x 0.03), max(0.09, 2 x 0.04), 0.5
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.4, 0.6]) == pytest.approx([0.8, 0.8])
    assert holm([0.9, 0.9, 0.9]) == pytest.approx([1.0, 1.0, 1.0])


# --------------------------------------------------------------------------------------------
# bands


def _band(values: dict[str, list[float]], mode: str = "compat") -> pd.DataFrame:
    """A hand-made band: every cell of Table 1's synthetic side gets the paper's value, except
    hours.per.week without exclusions, which gets ``values[source]`` over seeds."""
    rows = []
    for source, series in values.items():
        for seed, value in enumerate(series, start=1):
            for target in ADULT_TARGETS:
                for exclusion in EXCLUSIONS:
                    v = ADULT_TABLE1.loc[target, (exclusion, "syn")]
                    if (target, exclusion) == ("hours.per.week", "no_excl"):
                        v = value
                    rows.append((source, mode, seed, target, exclusion, "syn", float(v)))
    return pd.DataFrame(rows, columns=list(BAND_COLUMNS))


def test_paper_in_band_and_band_range() -> None:
    band = _band({"r": [0.13, 0.16, 0.194], "capkit": [1.5, 1.6, 1.7]})
    inside = paper_in_band(band, "compat", source="r")
    assert len(inside) == 50 and inside["inside"].all()
    cell = inside.loc[("hours.per.week", "no_excl")]
    assert (cell["low"], cell["high"], cell["paper"]) == (0.13, 0.19, 0.19)  # band rounded
    outside = paper_in_band(band, "compat", source="capkit")
    assert list(outside.index[~outside["inside"]]) == [("hours.per.week", "no_excl")]
    low, high = band_range(band, "compat", source="r")
    assert list(low.columns) == list(EXCLUSIONS)
    assert low.loc["hours.per.week", "no_excl"] == 0.13
    assert high.loc["hours.per.week", "no_excl"] == 0.194
    with pytest.raises(CapkitError, match="no rows"):
        band_range(band, "default")


def test_compare_sources() -> None:
    r = [0.13, 0.16, 0.19, 0.15, 0.17, 0.14, 0.18, 0.16, 0.15, 0.17]
    band = _band({"r": r, "capkit": [v + 1.4 for v in r]})
    table = compare_sources(band, "compat")
    assert len(table) == 50
    assert list(table.index.get_level_values("exclusion")[:5]) == list(EXCLUSIONS)
    cell = table.loc[("hours.per.week", "no_excl")]
    assert cell["p"] == pytest.approx(2 / math.comb(20, 10))
    assert cell["p_holm"] == pytest.approx(50 * 2 / math.comb(20, 10))
    assert not cell["same"] and not cell["overlap"]
    assert cell["difference"] == pytest.approx(1.4)
    others = table.drop(("hours.per.week", "no_excl"))
    assert others["same"].all() and (others["p"] == 1.0).all() and others["overlap"].all()
    with pytest.raises(CapkitError, match="no capkit values"):
        compare_sources(_band({"r": r}), "compat")


def test_read_band(tmp_path: Path) -> None:
    band = _band({"r": [0.1, 0.2]})
    band.to_csv(tmp_path / "band.csv", index=False)
    pd.testing.assert_frame_equal(read_band(tmp_path / "band.csv"), band)
    band.drop(columns="mode").to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(CapkitError, match="lacks the columns"):
        read_band(tmp_path / "bad.csv")


# --------------------------------------------------------------------------------------------
# Table 1 rows and capkit's synthesis on a slice of Adult


@pytest.fixture(scope="module")
def adult_slice() -> pd.DataFrame:
    if not (DATA / "AdultUCI.rda").is_file():
        pytest.skip("Adult data not available")
    adult = datasets.load_adult(DATA, progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    return adult.iloc[:3000].reset_index(drop=True)


def test_band_rows_both_modes(adult_slice: pd.DataFrame) -> None:
    synthetic = load_adult_band(BAND, [1])[1].iloc[:3000].reset_index(drop=True)
    rows = band_rows(synthetic, adult_slice, source="r", seed=1)
    assert list(rows.columns) == list(BAND_COLUMNS)
    # per mode: 10 targets x 5 exclusions x (orig, syn) + flags + npairs + 4 numeric "absent"
    assert rows.groupby("mode").size().to_dict() == {"compat": 124, "default": 124}
    absent = rows[(rows["side"] == "absent") & (rows["mode"] == "compat")]
    assert list(absent["target"]) == ["capital.gain", "capital.loss", "fnlwgt", "hours.per.week"]
    assert absent_counts(synthetic, adult_slice) == dict(
        zip(absent["target"], absent["value"].astype(int), strict=True))
    assert set(rows["source"]) == {"r"} and set(rows["seed"]) == {1}
    wide = rows.pivot_table(index=["target", "exclusion", "side"], columns="mode",
                            values="value")
    # Q4 touches numeric targets only: the factor targets are measured alike in both modes
    factors = [t for t in ADULT_TARGETS if isinstance(adult_slice[t].dtype, pd.CategoricalDtype)]
    same = wide.loc[factors]
    assert (same["compat"] - same["default"]).abs().max() < 1e-12
    # the same rows from the tables, and a band holding them is "the same"
    tables = exclusion_tables(synthetic, adult_slice)
    pd.testing.assert_frame_equal(
        band_rows_of(tables, source="r", seed=1, absent=absent_counts(synthetic, adult_slice)),
        rows)
    assert not same_as_band(rows, band_rows_of(tables, source="r", seed=1))  # "absent" lacks
    other = rows.assign(seed=2, value=rows["value"] + 1)
    band = pd.concat([other, rows], ignore_index=True).sample(frac=1, random_state=0)
    assert same_as_band(band, rows)
    assert not same_as_band(band.drop(band.index[band["seed"] == 1][5]), rows)  # a row lacking
    assert same_as_band(band.drop(band.index[band["seed"] == 2][5]), rows)  # another seed
    changed = band.copy()
    changed.loc[(changed["seed"] == 1) & (changed["side"] == "syn"), "value"] += 1e-6
    assert not same_as_band(changed, rows)
    assert not same_as_band(rows.iloc[:-1], rows)
    only = band_rows(synthetic, adult_slice, source="r", seed=1, modes=["default"])
    pd.testing.assert_frame_equal(only.reset_index(drop=True),
                                  rows[rows["mode"] == "default"].reset_index(drop=True))
    with pytest.raises(CapkitError, match="modes must be"):
        band_rows(synthetic, adult_slice, source="r", seed=1, modes=["synthpop"])


def test_synthesise_adult_uses_synthpops_visit_sequence(adult_slice: pd.DataFrame) -> None:
    from capkit.synth import syn

    one = synthesise_adult(adult_slice, 4)
    assert list(one.columns) == list(adult_slice.columns)
    pd.testing.assert_frame_equal(one, synthesise_adult(adult_slice, 4))
    direct = syn(adult_slice, seed=4, visit_sequence=list(ADULT_VISIT_SEQUENCE), progress=False)
    assert direct.visit_sequence == list(ADULT_VISIT_SEQUENCE)
    pd.testing.assert_frame_equal(one, direct.syn[0])
    with pytest.raises(CapkitError, match="14 columns"):
        synthesise_adult(adult_slice.drop(columns="income"), 4)
    with pytest.raises(CapkitError, match="14 columns"):
        synthesise_adult(adult_slice[list(ADULT_VISIT_SEQUENCE)], 4)


def test_absent_values() -> None:
    original = pd.DataFrame({"h": [1, 2, 10, 10, 40]})
    assert absent_values(pd.DataFrame({"h": [1, 2, 10, 40, 40]}), original, "h") == 0
    assert absent_values(pd.DataFrame({"h": [40, 40, 40, 1, 1]}), original, "h") == 2
    with pytest.raises(CapkitError, match="no column"):
        absent_values(original, original.rename(columns={"h": "g"}), "h")
