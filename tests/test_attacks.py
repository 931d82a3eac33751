"""capkit.attacks: the attackers of Hittmeir, Mayer & Ekelhart (2020) against independent
references (the CAP's count formula, record-by-record loops, a full distance matrix,
scikit-learn fitted on the records), and the membership control."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import f1_score, mean_absolute_error, r2_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import OneHotEncoder

from capkit import attacks, cap, distance, membership
from capkit.attacks import fit, gcap
from capkit.attacks.attackers import resolve, with_options
from capkit.attacks.attribute import macro_f1
from capkit.attacks.grid import prepare
from capkit.counts.table import records_from_counts
from capkit.errors import CapkitError, DisjointLevelsError
from capkit.papers.baillargeon_charest import tables as paper

TARGETS, KEYS = ["T1", "T2", "T3"], ["K1", "K2", "K3"]


def paper_frame(counts: np.ndarray) -> pd.DataFrame:
    return records_from_counts(counts, TARGETS, KEYS)


def mixed_frame(rng: np.random.Generator, n: int, levels: str = "abc") -> pd.DataFrame:
    """Two categorical keys, one integer key (range 8: exact binary Gower terms), targets."""
    a = rng.choice(list(levels), n)
    b = rng.choice(["u", "v"], n)
    x = rng.integers(0, 9, n).astype(float)
    t = np.where((a == "a") ^ (x > 4), "yes", "no")
    flip = rng.random(n) < 0.25
    t[flip] = rng.choice(["yes", "no", "maybe"], flip.sum())
    y = 10.0 + 3 * x + (a == "b") * 5 + rng.normal(0, 1, n)
    return pd.DataFrame({"a": a, "b": b, "x": x, "t": t, "y": y})


# --- the "cap" attacker is the CAP's prediction attack ----------------------------------------

@pytest.mark.parametrize(("o", "s", "expected"), [("O4", "S_a", 134), ("O4", "S_e", 272)])
def test_cap_attacker_reproduces_tables_9_and_10(o: str, s: str, expected: int) -> None:
    original, synthetic = paper_frame(paper.ORIGINALS[o]), paper_frame(paper.SYNTHETICS[s])
    result = attacks.attribute_attack(original, synthetic, "key", "target", attacker="cap")
    assert result.correct == expected
    assert result.correct == cap.correct_predictions(paper.ORIGINALS[o], paper.SYNTHETICS[s])


def test_cap_attacker_on_every_paper_pair_and_upper_bound() -> None:
    for o_name, o in paper.ORIGINALS.items():
        original = paper_frame(o)
        for s_name, s in paper.SYNTHETICS.items():
            result = attacks.attribute_attack(original, paper_frame(s), "key", "target",
                                              attacker="cap")
            assert result.correct == cap.correct_predictions(o, s), (o_name, s_name)
        upper = attacks.attribute_attack(original, paper_frame(paper.SYNTHETICS["S_a"]), "key",
                                         "target", attacker="cap", trained_on="original")
        assert upper.correct == cap.correct_predictions(o, o)


def test_cap_attacker_ties_are_uniform_draws() -> None:
    o = np.array([[5, 1, 2], [3, 4, 0], [2, 6, 9]])
    s = np.array([[4, 2, 0], [4, 2, 2], [1, 0, 1]])  # K1: T1/T2 tied, K2: T1/T2 tied, K3: none
    original, synthetic = paper_frame(o), paper_frame(s)
    expected = cap.correct_predictions(o, s)  # (5 + 3) / 2 + (1 + 4) / 2 + 0 = 6.5
    seen = []
    for seed in range(200):
        result = attacks.attribute_attack(original, synthetic, "key", "target", attacker="cap",
                                          seed=seed)
        predicted = result.records["predicted"].to_numpy()
        keys = original["key"].to_numpy()
        assert set(predicted[keys == "K1"]) <= {"T1", "T2"}
        assert len(set(predicted[keys == "K1"])) == 1  # one guess per key
        seen.append(result.correct)
    assert set(seen) == {4, 6, 7, 9}  # all four tie outcomes: {5, 3} + {1, 4} + 0
    mean, sd = np.mean(seen), np.std(seen) / np.sqrt(len(seen))
    assert abs(mean - expected) < 4 * sd
    again = attacks.attribute_attack(original, synthetic, "key", "target", attacker="cap",
                                     seed=3)
    assert again.correct == seen[3]


def test_cap_attacker_leaves_unmatched_keys_unpredicted() -> None:
    original = pd.DataFrame({"k": ["a", "a", "b", "c"], "t": ["x", "y", "x", "x"]})
    synthetic = pd.DataFrame({"k": ["a", "a", "a", "b"], "t": ["x", "x", "y", "y"]})
    result = attacks.attribute_attack(original, synthetic, "k", "t", attacker="cap")
    assert result.coverage == 0.75 and result.n == 4
    assert result.correct == 1  # a -> x (1 of 2), b -> y (wrong), c -> none
    assert pd.isna(result.records["predicted"].iloc[3])


# --- the generalized CAP ----------------------------------------------------------------------

def reference_pools(original: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                    target: str, levels: list[str]) -> np.ndarray:
    """Record by record: target counts of the synthetic records at minimal Hamming distance."""
    syn_keys = synthetic[keys].astype(object).to_numpy()
    out = []
    for _, row in original.iterrows():
        distance_ = (syn_keys != row[keys].astype(object).to_numpy()).sum(axis=1)
        pool = synthetic[target].to_numpy()[distance_ == distance_.min()]
        out.append([(pool == level).sum() for level in levels])
    return np.array(out, dtype=float)


def test_gcap_pools_equal_record_by_record_hamming() -> None:
    rng = np.random.default_rng(11)
    original = mixed_frame(rng, 150, "abcd")
    synthetic = mixed_frame(rng, 60, "abc")  # "d" never in S: no exact matches for those
    keys = ["a", "b", "x"]
    grid = prepare(original, synthetic, keys, "t")
    cells = grid.cells("members")
    pools = gcap.nearest_pools(grid.counts("synthetic"), grid.parts, cells[:, 1]).toarray().T
    levels = list(grid.table.targets)
    np.testing.assert_array_equal(pools, reference_pools(original, synthetic, keys, "t", levels))
    result = attacks.attribute_attack(original, synthetic, keys, "t", attacker="gcap")
    assert result.coverage == 1.0
    predicted = result.records["predicted"].to_numpy()
    chosen = pools[np.arange(len(pools)), [levels.index(p) for p in predicted]]
    np.testing.assert_array_equal(chosen, pools.max(axis=1))  # a majority target every time


def test_gcap_one_key_unmatched_pools_whole_synthetic_file() -> None:
    original = pd.DataFrame({"k": ["a", "b", "z", "z"], "t": ["x", "y", "y", "x"]})
    synthetic = pd.DataFrame({"k": ["a", "a", "b", "b", "b"], "t": ["x", "x", "y", "x", "y"]})
    grid = prepare(original, synthetic, "k", "t")
    pools = gcap.nearest_pools(grid.counts("synthetic"), grid.parts, grid.cells("members")[:, 1])
    whole = synthetic["t"].value_counts().reindex(grid.table.targets).to_numpy()
    np.testing.assert_array_equal(pools.toarray()[:, 2], whole)  # 3 x, 2 y... here x:3, y:2
    result = attacks.attribute_attack(original, synthetic, "k", "t", attacker="gcap")
    dummy = attacks.attribute_attack(original, synthetic, "k", "t", attacker="dummy")
    assert list(result.records["predicted"]) == ["x", "y", "x", "x"]
    assert list(dummy.records["predicted"]) == ["x"] * 4  # the synthetic majority


def test_generalized_cap_probabilities_use_the_same_pools() -> None:
    from capkit import sdmetrics

    rng = np.random.default_rng(12)
    original, synthetic = mixed_frame(rng, 120, "abcd"), mixed_frame(rng, 50, "abc")
    keys = ["a", "b", "x"]
    levels = sorted(set(original["t"]) | set(synthetic["t"]))
    pools = reference_pools(original, synthetic, keys, "t", levels)
    own = pools[np.arange(len(pools)), [levels.index(t) for t in original["t"]]]
    np.testing.assert_allclose(
        sdmetrics.generalized_cap_probabilities(original, synthetic, keys, ["t"]),
        own / pools.sum(axis=1), rtol=1e-12)


# --- nearest neighbour: exact Gower, lowest row index on ties ---------------------------------

def test_nn_equals_brute_force_argmin_of_full_distance_matrix() -> None:
    rng = np.random.default_rng(13)
    original, synthetic = mixed_frame(rng, 300), mixed_frame(rng, 120)
    keys = ["a", "b", "x"]
    matrix = distance.gower_matrix(original[keys], synthetic[keys])  # ranges of S
    nearest = matrix.argmin(axis=1)  # the first (lowest index) minimum
    assert (np.sort(matrix, axis=1)[:, 1] == matrix.min(axis=1)).any()  # ties do occur
    for target in ("t", "y"):
        result = attacks.attribute_attack(original, synthetic, keys, target, attacker="nn")
        np.testing.assert_array_equal(result.records["predicted"].to_numpy(),
                                      synthetic[target].to_numpy()[nearest])


def test_dcr_ties_across_categorical_levels_go_to_lowest_position() -> None:
    # reference row 0 differs in the category, row 1 by the whole numeric range: both at 1/2
    reference = pd.DataFrame({"c": ["a", "b", "b"], "x": [0.0, 4.0, 4.0]})
    query = pd.DataFrame({"c": ["b"], "x": [0.0]})
    assert distance.gower_matrix(query, reference).tolist() == [[0.5, 0.5, 0.5]]
    assert distance.dcr(query, reference).index.tolist() == [0]


# --- scikit-learn attackers -------------------------------------------------------------------

def test_knn_attacker_equals_sklearn_on_the_records() -> None:
    rng = np.random.default_rng(14)
    original, synthetic = mixed_frame(rng, 200), mixed_frame(rng, 150)
    keys = ["a", "b", "x"]
    result = attacks.attribute_attack(original, synthetic, keys, "t", attacker="knn")
    encoder = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(synthetic[["a", "b"]])
    low, span = synthetic["x"].min(), synthetic["x"].max() - synthetic["x"].min()

    def encode(frame: pd.DataFrame) -> np.ndarray:
        return np.hstack([encoder.transform(frame[["a", "b"]]),
                          ((frame["x"] - low) / span).to_numpy()[:, None]])

    model = KNeighborsClassifier(n_neighbors=5).fit(encode(synthetic), synthetic["t"])
    # record by record, as an intruder would
    expected = np.array([model.predict(encode(original.iloc[[i]]))[0]
                         for i in range(len(original))])
    got = result.records["predicted"].to_numpy()
    # where a tie at the 5th distance decides the neighbours, scikit-learn's pick is its
    # chunks' order; capkit takes the lowest synthetic rows: a slow reference of that rule
    train, labels = encode(synthetic), synthetic["t"].to_numpy()
    tied = np.zeros(len(original), dtype=bool)
    for i in range(len(original)):
        d = ((train - encode(original.iloc[[i]])) ** 2).sum(axis=1).round(12)
        order = sorted(range(len(d)), key=lambda j: (d[j], j))
        tied[i] = (d <= d[order[4]]).sum() > 5
        votes = pd.Series(labels[order[:5]]).value_counts()
        assert got[i] == min(votes.index[votes == votes.max()]), i
    assert tied.sum() > 0 and (got[~tied] == expected[~tied]).all()


@pytest.mark.parametrize("name", ["lr", "nb", "svm"])
def test_fit_on_weighted_cells_gives_the_records_model(name: str) -> None:
    rng = np.random.default_rng(15)
    original, synthetic = mixed_frame(rng, 300), mixed_frame(rng, 400)
    grid = prepare(original, synthetic, ["a", "b", "x"], "t")
    query = np.arange(grid.table.shape[1])
    spec = resolve(name, "categorical")
    assert spec.compress
    weighted = fit.predict(spec, grid, "synthetic", query, seed=1)
    on_records = fit.predict(with_options(spec, compress=False), grid, "synthetic", query, seed=1)
    np.testing.assert_array_equal(weighted, on_records)


def test_any_estimator_and_numeric_regressors() -> None:
    rng = np.random.default_rng(16)
    original, synthetic = mixed_frame(rng, 200), mixed_frame(rng, 200)
    keys = ["a", "x"]
    result = attacks.attribute_attack(original, synthetic, keys, "y",
                                      attacker=LinearRegression(), tolerance=0.1)
    design = pd.get_dummies(synthetic[keys], columns=["a"], dtype=float)
    model = LinearRegression().fit(design, synthetic["y"])
    expected = model.predict(pd.get_dummies(original[keys], columns=["a"], dtype=float))
    np.testing.assert_allclose(result.records["predicted"].to_numpy(), expected, rtol=1e-9)
    truth = original["y"].to_numpy()
    assert result.correct == int((np.abs(expected - truth) <= 0.1 * np.abs(truth)).sum())
    assert result.scores["mae"] == pytest.approx(mean_absolute_error(truth, expected))
    assert result.scores["r2"] == pytest.approx(r2_score(truth, expected))
    for name in ("cap", "gcap", "nn", "rf", "svm", "mlp", "knn", "lr", "ensemble", "dummy"):
        numeric = attacks.attribute_attack(original, synthetic, keys, "y", attacker=name)
        assert numeric.kind == "numeric" and 0 <= numeric.rate <= 1
    dummy = attacks.attribute_attack(original, synthetic, keys, "y", attacker="dummy")
    # the value of the synthetic data within 5% of the most synthetic values, ties the smallest
    values = np.sort(synthetic["y"].dropna().to_numpy())
    covered = [int((np.abs(v - values) <= 0.05 * np.abs(values)).sum()) for v in values]
    assert dummy.records["predicted"].unique().tolist() == [values[int(np.argmax(covered))]]


def test_numeric_pools_skip_records_without_a_value() -> None:
    original = pd.DataFrame({"k": ["a", "b", "c"], "y": [1.0, 2.0, np.nan]})
    synthetic = pd.DataFrame({"k": ["a", "a", "b", "c"], "y": [np.nan, 3.0, np.nan, 5.0]})
    result = attacks.attribute_attack(original, synthetic, "k", "y", attacker="gcap",
                                      kind="numeric")
    # a: its known value 3; b: only a missing value, so the radius grows to every known record
    assert result.records["predicted"].tolist() == [3.0, 4.0]
    assert (result.n, result.coverage) == (2, 1.0)  # c has no true value to score
    cap_only = attacks.attribute_attack(original, synthetic, "k", "y", attacker="cap",
                                        kind="numeric")
    assert cap_only.coverage == 0.5


def test_numeric_tolerance_band_is_around_the_truth() -> None:
    original = pd.DataFrame({"k": ["a", "b", "c", "d"], "y": [100.0, -100.0, 0.0, 10.0]})
    synthetic = pd.DataFrame({"k": ["a", "b", "c", "d"], "y": [104.0, -1.0, 0.0, 10.6]})
    result = attacks.attribute_attack(original, synthetic, "k", "y", attacker="cap",
                                      kind="numeric")
    # 104 vs 100 within 5%; -1 vs -100 is not (anonymeter's rule would say it is); 0 == 0;
    # 10.6 vs 10 is 6% off
    assert result.records["correct"].tolist() == [True, False, True, False]
    loose = attacks.attribute_attack(original, synthetic, "k", "y", attacker="cap", tolerance=0.1,
                                     kind="numeric")
    assert loose.correct == 3


def test_ensemble_is_the_vote_of_its_members() -> None:
    votes = [np.array([0, 1, 1, -1, -1, 2]), np.array([1, 0, 1, -1, 3, 2]),
             np.array([1, 0, 2, -1, -1, 1]), np.array([0, 1, 2, -1, -1, 1])]
    # row 0: a b b a -> b (reached 2 first); row 1: b a a b -> a; row 3: no votes
    np.testing.assert_array_equal(fit.vote(votes), [1, 0, 1, -1, 3, 2])
    rng = np.random.default_rng(17)
    original, synthetic = mixed_frame(rng, 150), mixed_frame(rng, 150)
    keys = ["a", "b", "x"]
    members = [attacks.attribute_attack(original, synthetic, keys, "t", attacker=m, seed=2)
               for m in ("rf", "svm", "nb", "knn", "lr")]
    ensemble = attacks.attribute_attack(original, synthetic, keys, "t", seed=2)
    columns = np.column_stack([r.records["predicted"].to_numpy() for r in members])
    for row, predicted in zip(columns, ensemble.records["predicted"], strict=True):
        values, counts = np.unique(row, return_counts=True)
        assert predicted in values[counts == counts.max()]


def test_macro_f1_matches_sklearn() -> None:
    rng = np.random.default_rng(18)
    observed = rng.integers(0, 4, 300)
    predicted = np.where(rng.random(300) < 0.6, observed, rng.integers(-1, 5, 300))
    expected = f1_score(observed, np.where(predicted < 0, 99, predicted), average="macro",
                        labels=np.unique(np.concatenate([observed, predicted[predicted >= 0]])),
                        zero_division=0)
    assert macro_f1(observed, predicted) == pytest.approx(expected, rel=1e-12)


# --- the membership control -------------------------------------------------------------------

def test_holdout_control_uses_the_shared_comparison() -> None:
    rng = np.random.default_rng(19)
    members, synthetic, holdout = (mixed_frame(rng, n) for n in (200, 150, 180))
    holdout.index = holdout.index + 5000
    result = attacks.attribute_attack(members, synthetic, ["a", "x"], "t", attacker="gcap",
                                      holdout=holdout)
    expected = membership.compare_to_control(result.correct, 200, result.control.correct, 180)
    assert result.comparison == expected
    assert (result.risk, result.risk_ci, result.advantage) == (
        expected.risk, expected.risk_ci, expected.advantage)
    assert result.records.loc["holdout"].index.tolist() == holdout.index.tolist()
    alone = attacks.attribute_attack(holdout, synthetic, ["a", "x"], "t", attacker="gcap")
    assert alone.correct == result.control.correct  # the holdout is attacked like the members


def test_memorised_synthesis_shows_in_the_control() -> None:
    rng = np.random.default_rng(20)
    members, holdout = mixed_frame(rng, 400), mixed_frame(rng, 400)
    for frame in (members, holdout):  # a near-unique key: records can be singled out
        frame["z"] = rng.integers(0, 10_000, len(frame))
    copied = members.copy()  # a "synthesiser" that releases its members
    result = attacks.attribute_attack(members, copied, ["a", "x", "z"], "t", attacker="gcap",
                                      holdout=holdout)
    # the control is high too (t follows a and x), but a copy gets every member right
    assert result.rate == 1.0 and result.control.rate < 0.9
    assert result.risk == 1.0 and result.risk_ci[0] > 0.5 and result.advantage > 0.15
    # a synthesis that learnt only the population: no difference beyond chance
    fresh = mixed_frame(rng, 400).assign(z=rng.integers(0, 10_000, 400))
    honest = attacks.attribute_attack(members, fresh, ["a", "x"], "t", attacker="gcap",
                                      holdout=holdout)
    assert honest.risk_ci[0] == 0.0


def test_same_seed_same_result_and_inputs_untouched() -> None:
    rng = np.random.default_rng(21)
    members, synthetic, holdout = (mixed_frame(rng, n) for n in (150, 150, 150))
    before = [f.copy() for f in (members, synthetic, holdout)]
    first = attacks.attribute_attack(members, synthetic, ["a", "x"], "t", attacker="ensemble",
                                     holdout=holdout, seed=7)
    again = attacks.attribute_attack(members, synthetic, ["a", "x"], "t", attacker="ensemble",
                                     holdout=holdout, seed=7)
    pd.testing.assert_frame_equal(first.records, again.records)
    for frame, copy in zip((members, synthetic, holdout), before, strict=True):
        pd.testing.assert_frame_equal(frame, copy)


# --- the baseline table -----------------------------------------------------------------------

def test_baseline_table_rows_equal_single_attacks() -> None:
    rng = np.random.default_rng(22)
    members, synthetic, holdout = (mixed_frame(rng, n) for n in (160, 140, 120))
    table = attacks.baseline_table(members, synthetic, ["a", "b", "x"], ["t", "y"],
                                   key_length=2, attackers=["cap", "gcap", "nb", "ensemble"],
                                   holdout=holdout, seed=3, progress=False)
    # 3 key pairs x 2 targets x (4 attackers x 2 trainings + dummy) x 2 groups, minus nb for y
    assert len(table) == 3 * 2 * 2 * 9 - 3 * 2 * 2
    row = table.query("keys == 'a + x' and target == 't' and attacker == 'gcap' and "
                      "trained_on == 'original' and scored_on == 'holdout'").iloc[0]
    single = attacks.attribute_attack(members, synthetic, ["a", "x"], "t", attacker="gcap",
                                      holdout=holdout, seed=3, trained_on="original")
    assert (row["correct"], row["rate"]) == (single.control.correct, single.control.rate)
    members_row = table.query("keys == 'b + x' and target == 'y' and attacker == 'ensemble' "
                              "and trained_on == 'synthetic' and scored_on == 'members'").iloc[0]
    numeric = attacks.attribute_attack(members, synthetic, ["b", "x"], "y", holdout=holdout,
                                       seed=3)
    assert members_row["mae"] == pytest.approx(numeric.scores["mae"], rel=1e-12)
    assert members_row["risk"] == numeric.risk
    summary = attacks.baseline_summary(table)
    gcap_rows = table.query("target == 't' and attacker == 'gcap' and trained_on == 'synthetic' "
                            "and scored_on == 'members'")
    line = summary.loc[("t", "gcap", "synthetic", "members")]
    assert line["rows"] == 3
    assert line["rate mean"] == pytest.approx(gcap_rows["rate"].mean())
    assert line["rate std"] == pytest.approx(gcap_rows["rate"].std())


def test_baseline_table_over_several_syntheses() -> None:
    rng = np.random.default_rng(25)
    members, first, second = (mixed_frame(rng, n) for n in (100, 100, 90))
    table = attacks.baseline_table(members, [first, second], ["a", "b", "x"], "t",
                                   attackers=["gcap", "lr"], progress=False)
    # one key set: synthetic-trained and dummy per synthesis, the upper bound once
    assert table.groupby("trained_on", dropna=False)["synthesis"].apply(
        lambda s: sorted(s.fillna(0))).to_dict() == {
        "dummy": [1.0, 2.0], "original": [0.0, 0.0], "synthetic": [1.0, 1.0, 2.0, 2.0]}
    second_gcap = table.query("attacker == 'gcap' and trained_on == 'synthetic' and "
                              "synthesis == 2").iloc[0]
    alone = attacks.attribute_attack(members, second, ["a", "b", "x"], "t", attacker="gcap")
    assert second_gcap["correct"] == alone.correct


def test_holdout_split_is_seeded_and_disjoint() -> None:
    from capkit.data.split import holdout_split

    frame = pd.DataFrame({"id": np.arange(101), "v": np.arange(101) % 7})
    members, holdout = holdout_split(frame, holdout=0.3, seed=4)
    assert (len(members), len(holdout)) == (71, 30)
    assert sorted([*members["id"], *holdout["id"]]) == list(range(101))
    again = holdout_split(frame, holdout=0.3, seed=4)
    pd.testing.assert_frame_equal(again[0], members)
    small = holdout_split(frame, rows=20, seed=4)
    assert (len(small[0]), len(small[1])) == (10, 10)
    with pytest.raises(CapkitError, match="holdout must be a share"):
        holdout_split(frame, holdout=1.0)
    with pytest.raises(CapkitError, match="rows must be an integer"):
        holdout_split(frame, rows=500)


# --- bad input --------------------------------------------------------------------------------

def test_bad_input_names_the_argument() -> None:
    rng = np.random.default_rng(23)
    members, synthetic, holdout = (mixed_frame(rng, n) for n in (50, 50, 50))
    run = attacks.attribute_attack
    with pytest.raises(CapkitError, match="holdout.*columns"):
        run(members, synthetic, ["a"], "t", holdout=holdout.drop(columns="y"))
    with pytest.raises(CapkitError, match="holdout column 'x'"):
        run(members, synthetic, ["a", "x"], "t", holdout=holdout.assign(x=holdout["x"].astype(str)))
    overlapping = pd.concat([holdout, members.iloc[:10]], ignore_index=True)
    columns = ", ".join(members.columns)
    with pytest.warns(UserWarning, match=f"10 of the 60 records of the holdout \\(16.7%\\) are "
                      f"identical to a member on every column \\({columns}\\)") as caught:
        run(members, synthetic, ["a"], "t", attacker="cap", holdout=overlapping)
    assert caught[0].filename == __file__  # points at the caller
    with pytest.warns(UserWarning, match="10 of the 60 records of the holdout") as caught:
        attacks.baseline_table(members, synthetic, ["a", "b"], "t", key_length=1,
                               attackers=["cap"], holdout=overlapping, progress=False)
    assert len(caught) == 1  # once, not per key set
    with pytest.raises(CapkitError, match="target 't' is also among the keys"):
        run(members, synthetic, ["a", "t"], "t")
    with pytest.raises(CapkitError, match="classifier but the target is numeric"):
        run(members, synthetic, ["a"], "y", attacker=LogisticRegression())
    with pytest.raises(CapkitError, match="'nb' has no variant for a numeric target"):
        run(members, synthetic, ["a"], "y", attacker="nb")
    with pytest.raises(CapkitError, match="regressor but the target is categorical"):
        run(members, synthetic, ["a"], "t", attacker=LinearRegression())
    with pytest.raises(CapkitError, match="keys is empty"):
        run(members, synthetic, [], "t")
    with pytest.raises(CapkitError, match="attacker must be one of"):
        run(members, synthetic, ["a"], "t", attacker="oracle")
    with pytest.raises(CapkitError, match="tolerance"):
        run(members, synthetic, ["a"], "y", tolerance=-1)
    with pytest.raises(CapkitError, match="trained_on"):
        run(members, synthetic, ["a"], "t", trained_on="holdout")
    with pytest.raises(CapkitError, match="numeric key 'x' has missing values"):
        run(members.assign(x=np.nan), synthetic, ["x"], "t", attacker="nn")
    recoded = synthetic.assign(a=synthetic["a"].map({"a": "A", "b": "B", "c": "C"}))
    with pytest.raises(DisjointLevelsError, match="key column 'a'"):
        run(members, recoded, ["a"], "t")
    assert run(members, recoded, ["a"], "t", attacker="cap",
               allow_disjoint_levels=True).coverage == 0.0
    with pytest.raises(DisjointLevelsError, match="target column 't'"):
        run(members, synthetic.assign(t="other"), ["a"], "t")
    with warnings.catch_warnings():  # continuous numeric keys and targets need no exact match
        warnings.simplefilter("error")
        run(members.assign(x=members["x"] + 0.5), synthetic, ["x"], "y", attacker="nn")
    with pytest.raises(CapkitError, match="no key combinations: key_length=3"):
        attacks.baseline_table(members, synthetic, ["a", "t"], "t", key_length=3,
                               progress=False)
    with pytest.raises(CapkitError, match="key_length"):
        attacks.baseline_table(members, synthetic, ["a", "b"], "t", key_length=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overlap, or a split known to be by record
        run(members, synthetic, ["a"], "t", attacker="cap", holdout=holdout)
        run(members, synthetic, ["a"], "t", attacker="cap", holdout=overlapping,
            check_overlap=False)


def test_attack_figure_is_byte_identical(tmp_path) -> None:
    import matplotlib.pyplot as plt

    from capkit import plots
    from capkit.plots import attacks as attack_plots

    rng = np.random.default_rng(24)
    members, synthetic, holdout = (mixed_frame(rng, n) for n in (120, 120, 120))
    table = attacks.baseline_table(members, synthetic, ["a", "b", "x"], ["t", "y"],
                                   key_length=2, attackers=["cap", "gcap", "lr"],
                                   holdout=holdout, progress=False)
    single = table[table["keys"] == "a + b"]
    written = []
    for run in range(2):
        for name, rows in (("many", table), ("one", single)):
            fig = attack_plots.attack_rates(rows, title="test")
            written.append([p.read_bytes() for p in plots.save(fig, name, tmp_path / str(run))])
            plt.close(fig)
    assert written[:2] == written[2:]
    with pytest.raises(CapkitError, match="target 'z' is not in the table"):
        attack_plots.attack_rates(table, ["z"])


def test_anonymeter_distance_inside_an_ensemble_predicts_each_group_on_its_own() -> None:
    """anonymeter's numeric ranges are over the synthetic data and the attacked group: an
    ensemble of nn_anonymeter alone must give nn_anonymeter's own guesses, on members and
    holdout (it used to predict both groups together, with their joint ranges)."""
    from capkit.attacks.attackers import Attacker

    rng = np.random.default_rng(31)
    members, synthetic = mixed_frame(rng, 120), mixed_frame(rng, 90)
    holdout = mixed_frame(rng, 80).assign(x=lambda f: f["x"] * 3)  # a wider range than members'
    alone = attacks.attribute_attack(members, synthetic, ["x", "y"], "t",
                                     attacker="nn_anonymeter", holdout=holdout,
                                     check_overlap=False)
    voted = attacks.attribute_attack(members, synthetic, ["x", "y"], "t",
                                     attacker=Attacker("e", "ensemble",
                                                       members=("nn_anonymeter",)),
                                     holdout=holdout, check_overlap=False)
    assert (voted.correct, voted.control.correct) == (alone.correct, alone.control.correct)
    pd.testing.assert_series_equal(voted.records["predicted"], alone.records["predicted"])
