"""RAPID (Templ, Thees & Müller 2026): the paper's worked examples, a record-by-record
reference, hand cases of the continuous rule, the bootstrap and permutation draws against slow
loops, the k-fold evaluation, the simulation's data-generating process and bad input."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from capkit.attacks import rapid_scores as sc
from capkit.attacks.rapid import rapid
from capkit.attacks.rapid_cv import folds, rapid_cv
from capkit.errors import CapkitError
from capkit.papers.templ_thees_mueller import simulate_microdata

# --------------------------------------------------------------------------- worked examples


def test_categorical_worked_example_scores():
    """Section 3: b = 0.6, g = (0.70, 0.85, 0.55) -> r = (0.25, 0.625, -0.125), RAPID = 1/3."""
    gain = sc.normalized_gain(np.array([0.70, 0.85, 0.55]), np.full(3, 0.6))
    assert gain == pytest.approx([0.25, 0.625, -0.125], abs=1e-12)
    flagged = sc.flags(gain, 0.3, categorical=True)
    assert flagged.tolist() == [False, True, False]
    assert Fraction(int(flagged.sum()), len(flagged)) == Fraction(1, 3)


def test_continuous_worked_example_scores():
    """Section 3: y = (50000, 35000, 80000), yhat = (47000, 39000, 90000): errors 6%, 11.4%,
    12.5%; RAPID(10%) = 1/3, with the paper's relative error and the R code's symmetric one."""
    y, yhat = np.array([50000.0, 35000, 80000]), np.array([47000.0, 39000, 90000])
    relative = sc.continuous_error(y, yhat, "relative", delta=0.0)
    assert relative == pytest.approx([0.06, 4000 / 35000, 0.125], abs=1e-15)
    assert round(relative[1] * 100, 1) == 11.4
    for error in ("relative", "symmetric"):
        flagged = sc.flags(sc.continuous_error(y, yhat, error, 0.01), 0.1, categorical=False)
        assert flagged.tolist() == [True, False, False]
        assert Fraction(int(flagged.sum()), 3) == Fraction(1, 3)


def _example_frames():
    """Synthetic records whose key shares give the paper's g for three healthy records: key
    k1 has 7 of 10 healthy (0.70), k2 17 of 20 (0.85), k3 11 of 20 (0.55)."""
    def block(key, healthy, total):
        return pd.DataFrame({"key": [key] * total,
                             "d": ["healthy"] * healthy + ["sick"] * (total - healthy)})
    synthetic = pd.concat([block("k1", 7, 10), block("k2", 17, 20), block("k3", 11, 20),
                           block("k4", 0, 10)], ignore_index=True)
    # 100 original records, 60 healthy: b = 0.6 for the healthy ones
    original = pd.DataFrame({"key": ["k1", "k2", "k3"] + ["k4"] * 97,
                             "d": ["healthy"] * 60 + ["sick"] * 40})
    return original, synthetic


def test_categorical_worked_example_end_to_end():
    original, synthetic = _example_frames()
    result = rapid(original, synthetic, ["key"], "d", attacker="cap", n_bootstrap=0,
                   n_permutations=0)
    three = result.records.loc["member"].iloc[:3]
    assert three["probability"].to_numpy() == pytest.approx([0.70, 0.85, 0.55], abs=1e-15)
    assert three["baseline"].to_numpy() == pytest.approx([0.6] * 3, abs=1e-15)
    assert three["gain"].to_numpy() == pytest.approx([0.25, 0.625, -0.125], abs=1e-12)
    assert Fraction(int(three["at_risk"].sum()), 3) == Fraction(1, 3)


def test_continuous_worked_example_end_to_end():
    original = pd.DataFrame({"key": ["a", "b", "c"], "income": [50000.0, 35000, 80000]})
    synthetic = pd.DataFrame({"key": ["a", "a", "b", "c"],
                              "income": [46000.0, 48000, 39000, 90000]})
    for error in ("relative", "symmetric"):
        result = rapid(original, synthetic, ["key"], "income", attacker="cap", error=error,
                       epsilon=0.1, n_bootstrap=0, n_permutations=0)
        assert result.records["predicted"].tolist() == [47000.0, 39000.0, 90000.0]
        assert Fraction(result.at_risk, result.n) == Fraction(1, 3)
        assert result.rapid == pytest.approx(1 / 3, abs=1e-15)


# ------------------------------------------------------------ hand cases of the flag rules


@pytest.mark.parametrize(("y", "yhat", "error", "epsilon", "at_risk"), [
    (0.0, 0.0, "symmetric", 0.1, True),        # exact zero: error 0
    (100.0, 110.0, "symmetric", 0.1, True),    # 20 / 210.02 = 0.0952
    (100.0, 111.0, "symmetric", 0.1, False),   # 22 / 211.02 = 0.1043
    (100.0, 110.0, "relative", 0.1, True),     # 10 / 100.01 = 0.09999
    (100.0, 111.0, "relative", 0.1, False),    # 11 / 100.01
    (-100.0, -95.0, "symmetric", 0.1, True),   # signs do not matter: 10 / 195.02
    (100.0, -100.0, "symmetric", 0.1, False),  # 400 / 200.02 ~ 2
    (10.0, 15.0, "absolute", 5.0, False),      # |error| = epsilon is not below it
    (10.0, 14.5, "absolute", 5.0, True),
    (0.0, 0.0009, "relative", 0.1, True),      # delta keeps y = 0 finite: 0.0009 / 0.01
    (0.0, 0.002, "relative", 0.1, False),      # 0.2
])
def test_continuous_rule_hand_cases(y, yhat, error, epsilon, at_risk):
    e = sc.continuous_error(np.array([y]), np.array([yhat]), error, 0.01)
    assert bool(sc.flags(e, epsilon, categorical=False)[0]) is at_risk


def test_symmetric_error_values():
    e = sc.continuous_error(np.array([100.0, 0.0]), np.array([110.0, 1.0]), "symmetric", 0.01)
    assert e == pytest.approx([20 / 210.02, 2 / 1.02], rel=1e-15)


def test_categorical_rule_hand_cases():
    gain = sc.normalized_gain(np.array([0.6, 1.0, 0.75, 0.9]), np.array([0.6, 0.6, 0.5, 1.0]))
    assert gain[:3] == pytest.approx([0.0, 1.0, 0.5], abs=1e-15)
    assert np.isnan(gain[3])  # one class only: no gain possible
    assert sc.flags(gain, 0.5, categorical=True).tolist() == [False, True, False, False]


# ------------------------------------------------------ record-by-record reference (slow)


def _data(n=240, seed=5):
    rng = np.random.default_rng(seed)
    age = rng.choice(["18-30", "31-50", "51+"], n)
    sex = rng.choice(["f", "m"], n)
    ill = np.where((age == "51+") & (rng.random(n) < 0.8), "yes",
                   np.where(rng.random(n) < 0.2, "yes", "no"))
    income = np.round(30000 + 10000 * (age == "51+") + 5000 * (sex == "m")
                      + rng.normal(0, 3000, n))
    return pd.DataFrame({"age": age, "sex": sex, "ill": ill, "income": income})


def _reference_categorical(original, synthetic, keys, target, tau):
    """RAPID with the CAP attacker (share of the record's class among the synthetic records
    with its key), one record at a time."""
    gains, flags = [], []
    for _, record in original.iterrows():
        same = synthetic
        for k in keys:
            same = same[same[k] == record[k]]
        g = (same[target] == record[target]).mean() if len(same) else 0.0
        b = (original[target] == record[target]).mean()
        r = (g - b) / (1 - b)
        gains.append(r)
        flags.append(r > tau)
    return np.array(gains), np.array(flags)


def _reference_numeric(original, synthetic, keys, target, epsilon, delta):
    errors, flags = [], []
    for _, record in original.iterrows():
        same = synthetic
        for k in keys:
            same = same[same[k] == record[k]]
        guess = same[target].mean()
        y = record[target]
        e = 2 * abs(y - guess) / (abs(y) + abs(guess) + 2 * delta)
        errors.append(e)
        flags.append(e < epsilon)
    return np.array(errors), np.array(flags)


def test_against_record_by_record_reference():
    data = _data()
    members, holdout = data.iloc[:150], data.iloc[150:]
    synthetic = _data(300, seed=9)
    keys = ["age", "sex"]
    result = rapid(members, synthetic, keys, "ill", attacker="cap", holdout=holdout,
                   check_overlap=False, n_bootstrap=0, n_permutations=0)
    for group, frame in (("member", members), ("holdout", holdout)):
        gains, flags = _reference_categorical(frame, synthetic, keys, "ill", 0.3)
        got = result.records.loc[group]
        assert got["gain"].to_numpy() == pytest.approx(gains, abs=1e-12)
        assert got["at_risk"].to_numpy().tolist() == flags.tolist()
    assert result.at_risk == int(_reference_categorical(members, synthetic, keys, "ill",
                                                        0.3)[1].sum())
    numeric = rapid(members, synthetic, keys, "income", attacker="cap", holdout=holdout,
                    check_overlap=False, epsilon=0.05, n_bootstrap=0, n_permutations=0)
    for group, frame in (("member", members), ("holdout", holdout)):
        errors, flags = _reference_numeric(frame, synthetic, keys, "income", 0.05, 0.01)
        got = numeric.records.loc[group]
        assert got["error"].to_numpy() == pytest.approx(errors, rel=1e-12)
        assert got["at_risk"].to_numpy().tolist() == flags.tolist()


def test_bootstrap_against_slow_loop():
    rng = np.random.default_rng(3)
    n, n_classes, draws = 50, 3, 40
    codes = rng.integers(0, n_classes, n)
    g = rng.random(n)
    fast = sc.bootstrap_shares(draws, np.random.default_rng(11), probability=g, codes=codes,
                               n_classes=n_classes, tau=0.3)
    index = np.random.default_rng(11).integers(0, n, size=(draws, n))
    slow = []
    for row in index:
        shares = [np.mean(codes[row] == c) for c in range(n_classes)]
        flagged = 0
        for i in row:
            b = shares[codes[i]]
            flagged += (g[i] - b) / (1 - b) > 0.3
        slow.append(flagged / n)
    assert fast == pytest.approx(slow, abs=1e-15)


def test_permutation_null_against_slow_loop():
    rng = np.random.default_rng(4)
    n, n_classes, perms = 40, 3, 25
    codes = rng.integers(0, n_classes, n)
    probs = rng.dirichlet(np.ones(n_classes), n)
    taus = np.array([0.1, 0.3, 0.5])
    fast = sc.permutation_null(perms, np.random.default_rng(8), taus, probabilities=probs,
                               codes=codes, n_classes=n_classes)
    shuffled = np.random.default_rng(8).permuted(np.broadcast_to(codes, (perms, n)), axis=1)
    shares = np.bincount(codes, minlength=n_classes) / n
    for p, row in enumerate(shuffled):
        for t, tau in enumerate(taus):
            count = sum((probs[i, row[i]] - shares[row[i]]) / (1 - shares[row[i]]) > tau
                        for i in range(n))
            assert fast[p, t] == pytest.approx(count / n, abs=1e-15)


# --------------------------------------------------------------- the result's other parts


def test_intervals_control_and_determinism():
    data = _data(400)
    members, holdout = data.iloc[:200], data.iloc[200:]
    leak = rapid(members, members, ["age", "sex", "income"], "ill", attacker="cap",
                 holdout=holdout, check_overlap=False, seed=1)
    again = rapid(members, members, ["age", "sex", "income"], "ill", attacker="cap",
                  holdout=holdout, check_overlap=False, seed=1)
    pd.testing.assert_frame_equal(leak.records, again.records)
    assert leak.bootstrap_ci == again.bootstrap_ci
    assert leak.threshold_choice.to_frame().equals(again.threshold_choice.to_frame())
    low, high = leak.ci
    assert low <= leak.rapid <= high
    assert leak.bootstrap_ci[0] <= leak.rapid <= leak.bootstrap_ci[1]
    # releasing the members: each member's own key (income is nearly unique) gives it away
    assert leak.rapid > leak.control.rapid
    assert leak.comparison.advantage == pytest.approx(leak.rapid - leak.control.rapid)
    assert leak.comparison.risk > 0


def test_threshold_choice_and_curve():
    data = _data(300)
    strong = rapid(data, data, ["age", "sex"], "ill", attacker="cap", seed=2)
    choice = strong.threshold_choice
    assert choice.chosen is not None and choice.p_value < 0.05
    assert choice.observed.tolist() == strong.curve(choice.thresholds).tolist()
    curve = strong.curve().to_numpy()
    assert np.all(np.diff(curve) <= 0)  # monotone in tau (Section 2.6)
    # the marginal guess (dummy) gains nothing at any threshold: nothing is significant
    none = rapid(data, data, ["age", "sex"], "ill", attacker="dummy", seed=2)
    assert none.rapid == 0.0 and none.threshold_choice.chosen is None
    assert none.threshold_choice.p_value == 1.0


def test_estimator_attackers_run_and_vectorise_over_key_combinations():
    data = _data(300)
    for attacker in ("rf", "lr", "gcap", "nn"):
        result = rapid(data, data, ["age", "sex"], "ill", attacker=attacker, n_bootstrap=20,
                       n_permutations=10)
        assert 0.0 <= result.rapid <= 1.0
        probs = result.records["probability"]
        assert ((probs >= 0) & (probs <= 1 + 1e-12)).all()
    numeric = rapid(data.iloc[:120], data, ["age", "sex"], "income", attacker="ranger",
                    n_bootstrap=20, n_permutations=10)
    assert numeric.rule == "symmetric" and numeric.kind == "numeric"


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("change", "argument"), [
    ({"keys": ["age", "ill"]}, "target"),
    ({"tau": 0.0}, "tau"), ({"tau": 1.0}, "tau"), ({"tau": 1.5}, "tau"), ({"tau": -0.1}, "tau"),
    ({"tau": "0.3"}, "tau"),
    ({"epsilon": 0.0}, "epsilon"), ({"delta": 0.0}, "delta"), ({"error": "mape"}, "error"),
    ({"alpha": 1.0}, "alpha"), ({"n_bootstrap": -1}, "n_bootstrap"),
    ({"attacker": "svm"}, "probabilities"), ({"attacker": "unknown"}, "attacker"),
])
def test_bad_input_names_the_argument(change, argument):
    data = _data(60)
    options = {"keys": ["age", "sex"], "target": "ill", "n_bootstrap": 0, "n_permutations": 0,
               **change}
    with pytest.raises(CapkitError, match=argument):
        rapid(data, data, **options)


def test_bad_frames_name_the_problem():
    data = _data(60)
    before = data.copy()
    with pytest.raises(CapkitError, match="columns of the original"):
        rapid(data, data.drop(columns="income"), ["age", "sex"], "ill")
    with pytest.raises(CapkitError, match="only in synthetic"):
        rapid(data, data.assign(extra=1), ["age", "sex"], "ill")
    with pytest.raises(CapkitError, match="synthetic data is empty"):
        rapid(data, data.iloc[:0], ["age", "sex"], "ill")
    with pytest.raises(CapkitError, match="original data is empty"):
        rapid(data.iloc[:0], data, ["age", "sex"], "ill")
    result = rapid(data, data.drop(columns="income"), ["age", "sex"], "ill", attacker="cap",
                   same_columns=False, n_bootstrap=0, n_permutations=0)
    assert result.n == 60
    pd.testing.assert_frame_equal(data, before)  # nothing the user passed is modified


# ------------------------------------------------------------------- k-fold and simulation


def test_stratified_folds_keep_class_shares():
    target = pd.Series(["a"] * 30 + ["b"] * 12 + ["c"] * 6)
    fold = folds(target, 3, seed=1)
    for f in range(3):
        assert target[fold == f].value_counts().to_dict() == {"a": 10, "b": 4, "c": 2}
    assert folds(target, 3, seed=1).tolist() == fold.tolist()
    plain = folds(target, 5, seed=1, stratified=False)
    assert np.bincount(plain).tolist() == [10, 10, 10, 9, 9]


def test_rapid_cv_with_a_copying_generator():
    data = _data(240)
    seen = []

    def copy(frame, seed):
        seen.append(seed)
        return frame.copy()

    cv = rapid_cv(data, copy, ["age", "sex", "income"], "ill", k=4, seed=3, attacker="gcap")
    assert seen == [4, 5, 6, 7]
    assert len(cv.table) == 4 and cv.table["n_holdout"].sum() == 240
    assert cv.mean == pytest.approx(cv.table["rapid"].mean())
    assert cv.ci[0] <= cv.mean <= cv.ci[1] and cv.sd >= 0
    # a release that copies its members: they are at risk, the fold left out much less
    assert cv.members_mean > cv.mean
    with pytest.raises(CapkitError, match="k must"):
        rapid_cv(data, copy, ["age"], "ill", k=1)
    with pytest.raises(CapkitError, match="generator"):
        rapid_cv(data, lambda f, s: None, ["age"], "ill", k=2)


def test_simulate_microdata():
    a = simulate_microdata(10, n=500, seed=4)
    assert a.equals(simulate_microdata(10, n=500, seed=4))
    assert list(a.columns) == ["gender", "age", "education", "income", "health_score",
                               "disease_status"]
    assert a["age"].between(18, 90).all() and (a["income"] > 0).all()
    assert a["health_score"].between(0, 100).all()
    assert list(a["disease_status"].cat.categories) == ["healthy", "diabetic", "hypertensive"]
    # kappa = 0: disease independent of the keys, shares softmax(0, -1.5, -1.3)
    big = simulate_microdata(0, n=20000, seed=1)
    expected = np.exp([0, -1.5, -1.3]) / np.exp([0, -1.5, -1.3]).sum()
    shares = big["disease_status"].value_counts(normalize=True)[["healthy", "diabetic",
                                                                 "hypertensive"]]
    assert shares.to_numpy() == pytest.approx(expected, abs=0.015)
    # education cut at -0.3 and 0.7 of a standard normal at kappa = 0
    edu = big["education"].value_counts(normalize=True)[["low", "medium", "high"]].to_numpy()
    from scipy.stats import norm
    assert edu == pytest.approx([norm.cdf(-0.3), norm.cdf(0.7) - norm.cdf(-0.3),
                                 1 - norm.cdf(0.7)], abs=0.015)
    with pytest.raises(CapkitError, match="kappa"):
        simulate_microdata(-1)
    with pytest.raises(CapkitError, match="n must"):
        simulate_microdata(1, n=1)


def test_rpart_attacker_gives_leaf_shares():
    from capkit.papers.templ_thees_mueller import RPART, RpartClassifier

    data = simulate_microdata(10, n=400, seed=2)
    x = np.column_stack([data["age"], data["income"], data["education"].cat.codes])
    y = data["disease_status"].cat.codes.to_numpy()
    model = RpartClassifier().fit(x, y)
    probs = model.predict_proba(x)
    assert probs.sum(axis=1) == pytest.approx(np.ones(len(y)), abs=1e-12)
    # a training record's probabilities are the class shares of the records in its leaf
    leaves = model.tree_.training_leaves
    for leaf in np.unique(leaves):
        members = leaves == leaf
        shares = np.bincount(y[members], minlength=3) / members.sum()
        assert probs[members] == pytest.approx(np.tile(shares, (members.sum(), 1)), abs=1e-12)
    keys = ["gender", "age", "education", "income", "health_score"]
    result = rapid(data, data, keys, "disease_status", attacker=RPART, n_bootstrap=0,
                   n_permutations=0)
    assert result.attacker == "rpart" and 0 < result.rapid < 1


def test_paper_experiment_helpers():
    from capkit.papers.templ_thees_mueller import experiments as paper

    assert paper.band(0.866, 0.008) == (0.85, 0.882)
    runs = paper.simulation_runs([10], 2, {"cap": "cap"}, taus=[0.3, 0.5], n=300, seed=1)
    assert len(runs) == 4 and runs.equals(
        paper.simulation_runs([10], 2, {"cap": "cap"}, taus=[0.3, 0.5], n=300, seed=1))
    summary = paper.simulation_summary(runs)
    assert summary["replications"].tolist() == [2, 2]
    first = runs[runs["tau"] == 0.3]["rapid"]
    assert summary.loc[summary["tau"] == 0.3, "rapid_mean"].item() == pytest.approx(first.mean())
    adult = pd.DataFrame({"age": [30, 40], "fnlwgt": [1, 2], "education": ["a", "b"],
                          "income": ["small", None]})
    assert list(paper.adult_frame(adult).columns) == ["age", "income"]
    assert len(paper.adult_frame(adult)) == 1


def test_no_guess_is_no_prediction_and_never_at_risk():
    original = pd.DataFrame({"key": ["a", "z"], "d": ["x", "y"], "v": [1.0, 2.0]})
    synthetic = pd.DataFrame({"key": ["a", "a"], "d": ["x", "y"], "v": [1.0, 1.0]})
    cat = rapid(original, synthetic, ["key"], "d", attacker="cap", n_bootstrap=0,
                n_permutations=0, allow_disjoint_levels=True)
    assert cat.records["predicted"].isna().tolist() == [False, True]
    assert cat.records["at_risk"].tolist() == [False, False]  # g = 0.5 = b; no guess: g = 0
    assert cat.scores["accuracy"] == 0.5
    num = rapid(original, synthetic, ["key"], "v", attacker="cap", n_bootstrap=0,
                n_permutations=0, allow_disjoint_levels=True)
    assert num.records["at_risk"].tolist() == [True, False]
    assert num.scores["mae"] == 0.0
    with pytest.raises(CapkitError, match="group"):
        num.curve(group="holdout")


RAPID_ORACLE = Path(__file__).resolve().parents[1].parent / "shared" / "oracle" / "rapid"


@pytest.mark.skipif(not (RAPID_ORACLE / "README.md").is_file(),
                    reason="the paper's numbers (../shared/oracle/rapid) are not beside")
def test_paper_numbers_equal_the_oracle_notes():
    """The constants the notebook checks against are the ones read from the paper's source."""
    import re

    from capkit.papers.templ_thees_mueller import experiments as paper

    text = (RAPID_ORACLE / "README.md").read_text()
    for kappa, cells in paper.SIM2.items():
        row = re.search(rf"^\| {kappa} +\|(.*)\|$", text, re.MULTILINE).group(1)
        printed = [tuple(map(float, m)) for m in re.findall(r"([\d.]+) \(([\d.]+)\)", row)]
        assert printed == [cells[t] for t in (0.2, 0.3, 0.4, 0.5)]
    for name, label in (("cart", "CART"), ("gbm", "GBM"), ("rf", "RF")):
        mean, sd = re.search(rf"{label} ([\d.]+) \(([\d.]+)\)", text).groups()
        assert (float(mean), float(sd)) == paper.SIM4[name][:2]
    adult = re.findall(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", text.split("Adult")[1])
    assert [tuple(map(float, a)) for a in adult] == [a[:3] for a in paper.ADULT]
