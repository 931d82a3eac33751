"""capkit.distance against a pair-by-pair reference and against the `gower` package."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from capkit import distance
from capkit.distance import _brute
from capkit.distance.gower import encode
from capkit.distance.nearest import nearest
from capkit.errors import CapkitError


@pytest.fixture(autouse=True, params=["brute force", "kernel"])
def search(request, monkeypatch) -> str:
    """Every test twice: small searches by numpy's brute force (the default below
    ``BRUTE_PAIRS`` pairs) and by the compiled kernel (what larger inputs run)."""
    if request.param == "kernel":
        monkeypatch.setattr(_brute, "BRUTE_PAIRS", 0)
    return request.param


def mixed_frame(rng: np.random.Generator, n: int, *, extra_levels: bool = False) -> pd.DataFrame:
    cats = ["a", "b", "c", np.nan] + (["z"] if extra_levels else [])
    return pd.DataFrame({
        "c1": rng.choice(np.array(cats, dtype=object), n),
        "c2": pd.Categorical(rng.choice(["x", "y"], n), categories=["x", "y"]),
        "c3": rng.integers(0, 2, n).astype(bool),
        "n1": rng.integers(0, 10, n),
        "n2": np.round(rng.normal(size=n), 1),
        "c4": rng.choice(["p", "q", "r"], n),
    })


def reference_gower(a: pd.Series, b: pd.Series, numeric: dict[str, float],
                    weights: dict[str, float]) -> float:
    """Gower distance of two records by its definition (Minieri 2022, "Synthetic data for
    privacy preservation - Part 2")."""
    total = 0.0
    for column, w in weights.items():
        x, y = a[column], b[column]
        if column in numeric and (pd.isna(x) or pd.isna(y)):  # missing="level"
            d = 0.0 if pd.isna(x) and pd.isna(y) else 1.0
        elif column in numeric:
            d = abs(float(x) - float(y)) / numeric[column]
        else:
            same = (pd.isna(x) and pd.isna(y)) or (not pd.isna(x) and not pd.isna(y) and x == y)
            d = 0.0 if same else 1.0
        total += w * d
    return total / sum(weights.values())


def reference_dcr(synthetic, reference, weights=None, ranges=None) -> np.ndarray:
    numeric = [c for c in reference.columns if c.startswith("n")]
    weights = {c: 1.0 for c in reference.columns} | (weights or {})
    ranges = ranges or {c: float(reference[c].max() - reference[c].min()) for c in numeric}
    return np.array([
        min(reference_gower(s, r, ranges, weights) for _, r in reference.iterrows())
        for _, s in synthetic.iterrows()
    ])


@pytest.mark.parametrize("weights", [None, {"c1": 2.0, "n2": 0.5, "c4": 3.0}])
def test_dcr_equals_pairwise_reference(weights) -> None:
    rng = np.random.default_rng(1)
    reference = mixed_frame(rng, 60)
    synthetic = pd.concat([mixed_frame(rng, 35, extra_levels=True), reference.iloc[:5]],
                          ignore_index=True)
    result = distance.dcr(synthetic, reference, weights=weights, pair_batch=37)
    expected = reference_dcr(synthetic, reference, weights)
    np.testing.assert_allclose(result.distance, expected, rtol=0, atol=1e-12)
    # the index points at a record at that distance
    full = distance.gower_matrix(synthetic, reference, weights=weights)
    np.testing.assert_allclose(full[np.arange(len(synthetic)), result.index], expected, atol=1e-12)
    assert result.exact_copies >= 5
    assert result.exact_copies == int((expected == 0).sum())


def test_dcr_chunked_levels_and_general_weights() -> None:
    rng = np.random.default_rng(2)
    reference = mixed_frame(rng, 400)
    synthetic = mixed_frame(rng, 300, extra_levels=True)
    weights = {"c1": 0.3, "c2": 1.7, "c3": 0.0, "n1": 2.0}
    full = distance.gower_matrix(synthetic, reference, weights=weights)
    for pair_batch, level_cells in [(1, 1), (13, 5), (10**6, 10**7)]:
        spec = distance.gower_columns({"s": synthetic, "r": reference}, weights=weights)
        cat_s, cat_r, num_s, num_r, w_cat = encode(spec, synthetic, reference)
        best, arg = nearest(cat_s, cat_r, num_s, num_r, w_cat, pair_batch=pair_batch,
                            level_cells=level_cells)
        np.testing.assert_allclose(best / spec.total_weight, full.min(axis=1), atol=1e-12)
        # smallest index among the equally close records found
        assert (full[np.arange(len(synthetic)), arg] <= full.min(axis=1) + 1e-12).all()
        clean, first = _exact_ties(full)
        np.testing.assert_array_equal(arg[clean], first[clean])
        assert clean.sum() > 250 and (full == full.min(axis=1)[:, None]).sum(axis=1).max() > 1


def _exact_ties(full: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose records within 1e-12 of the smallest distance all have exactly that distance
    (mathematically equal distances can differ by an ulp in float, e.g. |0.7 - 1.2| and
    |0.7 - 0.2|, and then the nearer in nearest()'s own arithmetic wins), and per row the lowest
    position at the smallest distance."""
    smallest = full.min(axis=1)[:, None]
    exact = full == smallest
    clean = ((full <= smallest + 1e-12) == exact).all(axis=1)
    return clean, np.argmax(exact, axis=1)


@pytest.mark.parametrize("pair_batch, level_cells", [(1, 1), (7, 3), (10**6, 10**7)])
def test_ties_go_to_the_lowest_reference_row(pair_batch, level_cells) -> None:
    """The tie rule of nearest(): among equally close reference records, the lowest position.
    The reference is stacked on a copy of itself (and a third copy with its rows reversed), so
    every nearest record has exact duplicates, bit for bit the same distance, further down."""
    rng = np.random.default_rng(12)
    base = mixed_frame(rng, 50).dropna()
    reference = pd.concat([base, base, base.iloc[::-1]], ignore_index=True)
    synthetic = mixed_frame(rng, 40).dropna()
    spec = distance.gower_columns({"s": synthetic, "r": reference})
    cat_s, cat_r, num_s, num_r, w_cat = encode(spec, synthetic, reference)
    best, arg = nearest(cat_s, cat_r, num_s, num_r, w_cat, pair_batch=pair_batch,
                        level_cells=level_cells)
    m = len(base)
    assert (arg < m).all()  # never a later duplicate (bit for bit the same distance)
    # and, within the first copy, the lowest of the rows at exactly the smallest distance
    clean, first = _exact_ties(distance.gower_matrix(synthetic, base))
    assert clean.all() and len(synthetic) > 20
    np.testing.assert_array_equal(arg[clean], first[clean])
    # the public dcr() index follows the same rule
    index = distance.dcr(synthetic, reference).index
    assert (index < m).all()
    np.testing.assert_array_equal(index[clean], first[clean])


def test_many_categorical_columns_unequal_weights() -> None:
    # more than 16 categorical columns with unequal weights: the levels come from the data
    rng = np.random.default_rng(3)
    cols = {f"k{i}": rng.choice(["u", "v"], 80) for i in range(18)}
    reference = pd.DataFrame(cols | {"n1": rng.normal(size=80)})
    synthetic = reference.sample(50, random_state=4).reset_index(drop=True)
    synthetic[["k0", "k5", "k9"]] = "u"
    weights = {f"k{i}": 1.0 + i / 10 for i in range(18)}
    got = distance.dcr(synthetic, reference, weights=weights).distance
    expected = distance.gower_matrix(synthetic, reference, weights=weights).min(axis=1)
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_numeric_only_and_categorical_only() -> None:
    rng = np.random.default_rng(4)
    frame = mixed_frame(rng, 120)
    for columns in (["n1", "n2"], ["c1", "c2", "c4"]):
        ref, syn = frame.iloc[:70][columns], frame.iloc[70:][columns]
        got = distance.dcr(syn, ref).distance
        np.testing.assert_allclose(got, reference_dcr(syn, ref), atol=1e-12)


def test_against_gower_package() -> None:
    gower = pytest.importorskip("gower")
    rng = np.random.default_rng(5)
    reference = mixed_frame(rng, 200).dropna().drop(columns=["c2", "c3"])
    reference["c1"] = reference["c1"].astype(str)
    synthetic = mixed_frame(rng, 60).dropna().drop(columns=["c2", "c3"])
    synthetic["c1"] = synthetic["c1"].astype(str)
    # gower normalises numeric columns by the range over both of its inputs (for gower_topn:
    # the query row and the reference); keep synthetic values inside the reference's range so
    # that this equals capkit's default, the reference's range
    for c in ["n1", "n2"]:
        synthetic[c] = synthetic[c].clip(reference[c].min(), reference[c].max())
    ours = distance.dcr(synthetic, reference)
    theirs = gower.gower_matrix(synthetic, reference)  # float32
    assert theirs.dtype == np.float32
    np.testing.assert_allclose(ours.distance, theirs.min(axis=1), rtol=0, atol=2e-7)
    top = [gower.gower_topn(synthetic.iloc[[i]], reference, n=1) for i in range(len(synthetic))]
    np.testing.assert_allclose(ours.distance, [t["values"][0] for t in top], rtol=0, atol=2e-7)
    # gower's top-1 record, re-evaluated in float64, is at our DCR to 1e-9
    exact = distance.gower_matrix(synthetic, reference)
    index = np.array([t["index"][0] for t in top])
    np.testing.assert_allclose(exact[np.arange(len(synthetic)), index], ours.distance,
                               rtol=0, atol=1e-9)


def test_holdout_comparison_shares_and_ties() -> None:
    rng = np.random.default_rng(6)
    original = mixed_frame(rng, 200)
    training, holdout = original.iloc[:100], original.iloc[100:]
    copies = training.iloc[:40].reset_index(drop=True)  # memorised training records
    result = distance.holdout_comparison(copies, training, holdout)
    assert result.exact_copies_training == 40
    assert (result.dcr_training == 0).all()
    expected_share = ((result.dcr_holdout > 0).sum() + 0.5 * (result.dcr_holdout == 0).sum()) / 40
    assert result.share_closer_to_training == pytest.approx(expected_share)
    assert result.share_closer_to_training > 0.9
    # identical training and holdout: every record ties, the share is exactly one half
    same = distance.holdout_comparison(mixed_frame(rng, 30), training, training.copy())
    assert same.share_closer_to_training == 0.5
    np.testing.assert_array_equal(same.dcr_training, same.dcr_holdout)
    # ranges come from training and holdout together
    both = pd.concat([training, holdout])
    assert result.columns.ranges["n2"] == pytest.approx(both["n2"].max() - both["n2"].min())
    summary = result.summary()
    assert summary.loc["training", "exact copies (DCR = 0)"] == 40


def test_closer_share_definition() -> None:
    assert distance.closer_share(np.array([0.0, 1.0, 2.0, 3.0]),
                                 np.array([1.0, 1.0, 1.0, 3.0])) == pytest.approx(0.5)
    with pytest.raises(CapkitError):
        distance.closer_share(np.array([0.1]), np.array([0.1, 0.2]))


def test_inputs_not_modified() -> None:
    rng = np.random.default_rng(7)
    reference, synthetic = mixed_frame(rng, 50), mixed_frame(rng, 20)
    before = reference.copy(), synthetic.copy()
    distance.dcr(synthetic, reference)
    pd.testing.assert_frame_equal(reference, before[0])
    pd.testing.assert_frame_equal(synthetic, before[1])


def _with_missing_numbers(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    out = frame.copy()
    out["n1"] = out["n1"].astype(float).mask(rng.random(len(out)) < 0.2)
    out["n2"] = out["n2"].mask(rng.random(len(out)) < 0.1)
    return out


@pytest.mark.parametrize("weights", [None, {"n1": 2.5, "c4": 0.5}])
def test_missing_numbers_as_a_level_equal_the_pairwise_reference(weights) -> None:
    """missing="level": 0 between two missing values, 1 between a missing value and a number."""
    rng = np.random.default_rng(11)
    reference = _with_missing_numbers(mixed_frame(rng, 70), rng)
    synthetic = pd.concat([_with_missing_numbers(mixed_frame(rng, 40), rng), reference.iloc[:6]],
                          ignore_index=True)
    before = synthetic.copy()
    result = distance.dcr(synthetic, reference, weights=weights, missing="level", pair_batch=29)
    expected = reference_dcr(synthetic, reference, weights)
    np.testing.assert_allclose(result.distance, expected, rtol=0, atol=1e-12)
    full = distance.gower_matrix(synthetic, reference, weights=weights, missing="level")
    np.testing.assert_allclose(full.min(axis=1), expected, atol=1e-12)
    # ties go to the lowest reference row, as without missing values
    assert (result.index == np.argmax(full <= full.min(axis=1)[:, None] + 1e-12, axis=1)).all()
    assert result.exact_copies >= 6
    pd.testing.assert_frame_equal(synthetic, before)
    # without missing values the option changes nothing
    plain, complete = mixed_frame(rng, 30), reference.dropna(subset=["n1", "n2"])
    np.testing.assert_array_equal(distance.dcr(plain, complete, missing="level").distance,
                                  distance.dcr(plain, complete).distance)


def test_bad_input() -> None:
    rng = np.random.default_rng(8)
    reference, synthetic = mixed_frame(rng, 30), mixed_frame(rng, 10)
    with pytest.raises(CapkitError, match="'extra'"):
        distance.dcr(synthetic.assign(extra=1), reference)
    with pytest.raises(CapkitError, match="'n1'.*categorical.*numeric"):
        distance.dcr(synthetic.assign(n1=synthetic["n1"].astype(str)), reference)
    with pytest.raises(CapkitError, match="'n1'.*zero range"):
        distance.dcr(synthetic, reference.assign(n1=3))
    with pytest.raises(CapkitError, match="reference is empty"):
        distance.dcr(synthetic, reference.iloc[:0])
    with pytest.raises(CapkitError, match="'n2'.*missing.*missing='level'"):
        distance.dcr(synthetic.assign(n2=np.nan), reference)
    with pytest.raises(CapkitError, match="missing must be"):
        distance.dcr(synthetic, reference, missing="drop")
    with pytest.raises(CapkitError, match="'c1'"):
        distance.dcr(synthetic, reference, weights={"c1": -1})
    with pytest.raises(CapkitError, match="holdout is empty"):
        distance.holdout_comparison(synthetic, reference, reference.iloc[:0])


def test_gower_matrix_symmetry_and_bounds() -> None:
    rng = np.random.default_rng(9)
    frame = mixed_frame(rng, 40)
    d = distance.gower_matrix(frame, frame)
    np.testing.assert_allclose(d, d.T, atol=1e-15)
    assert (np.diag(d) == 0).all() and d.min() >= 0 and d.max() <= 1
    for i, j in itertools.product(range(0, 40, 13), range(0, 40, 7)):
        ranges = {c: float(frame[c].max() - frame[c].min()) for c in ["n1", "n2"]}
        weights = {c: 1.0 for c in frame.columns}
        assert d[i, j] == pytest.approx(
            reference_gower(frame.iloc[i], frame.iloc[j], ranges, weights), abs=1e-12)
