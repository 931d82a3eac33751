"""capkit.attacks.inference_attack: anonymeter 1.1's inference attack on the oracle data
(distances to the bit, every untied guess, the successes within the tie range, the
label-aligned baseline), a record-by-record reference, the success rules and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from anonymeter_data import adult_split, have_adult, read_reference, results
from anonymeter_data import synthetic as oracle_synthetic

from capkit.attacks import attribute_attack, inference_attack
from capkit.errors import CapkitError

CONFIG = results()["config"]
ATTACKS = {"cat": (*CONFIG["inference_categorical"], False),
           "reg": (*CONFIG["inference_regression"], True)}
REFERENCE = read_reference("inference.csv.gz")
needs_adult = pytest.mark.skipif(not have_adult(), reason="Adult data not available "
                                 "(set CAPKIT_DATA to a folder with AdultUCI.rda)")


@pytest.fixture(scope="module")
def oracle_runs():
    """capkit's inference attack on the oracle's members, holdout and synthetic data, with
    capkit's defaults and with anonymeter_compat=True."""
    members, holdout = adult_split()
    syn = oracle_synthetic()
    return {(name, compat): inference_attack(members, syn, aux, secret, regression=reg,
                                             control=holdout, anonymeter_compat=compat)
            for name, (aux, secret, reg) in ATTACKS.items() for compat in (False, True)}


def _pairs(oracle_runs, compat=True):
    for name in ATTACKS:
        run = oracle_runs[(name, compat)]
        for side, records in (("ori", run.records), ("control", run.control_records)):
            want = REFERENCE[(REFERENCE["attack"] == name) & (REFERENCE["set"] == side)]
            yield name, side, records, want.sort_values("row").reset_index(drop=True)


@needs_adult
def test_distances_and_ties_equal_anonymeter(oracle_runs):
    """Every record's nearest distance to the bit, and the oracle's count of tied records."""
    for _, _, records, want in _pairs(oracle_runs):
        assert np.array_equal(records["row"].to_numpy(), want["row"].to_numpy())
        assert np.array_equal(records["distance"].to_numpy(), want["dist"].to_numpy())
        assert np.array_equal(records["n_tied_at_min"].to_numpy(),
                              want["n_tied_at_min"].to_numpy())


@needs_adult
def test_untied_guesses_are_anonymeters(oracle_runs):
    """Where one synthetic record is nearest: the same record, guess and success."""
    for name, _, records, want in _pairs(oracle_runs):
        untied = want["n_tied_at_min"].to_numpy() == 1
        assert untied.sum() > len(want) / 2
        assert np.array_equal(records["nn"].to_numpy()[untied], want["nn"].to_numpy()[untied])
        got, exp = records["guess"].to_numpy()[untied], want["guess"].to_numpy()[untied]
        if name == "reg":
            got, exp = got.astype(float), exp.astype(float)
        assert (got == exp).all()
        assert np.array_equal(records["success"].to_numpy()[untied],
                              want["success"].to_numpy()[untied].astype(bool))


@needs_adult
def test_anonymeters_successes_within_the_tie_range(oracle_runs):
    """On tied records anonymeter's success is one of the tie orders': per record within
    (certain, possible), and its totals (results.json) within capkit's success range."""
    calls = results()["calls"]
    for name, side, records, want in _pairs(oracle_runs):
        success = want["success"].to_numpy().astype(bool)
        assert not (success & ~records["success_possible"].to_numpy()).any()
        assert not (~success & records["success_certain"].to_numpy()).any()
        total = calls[f"inference_{name}_evaluator_all"]["result"][
            "n_success" if side == "ori" else "n_control"]
        assert total == success.sum()
        low, high = (oracle_runs[(name, True)].success_range if side == "ori"
                     else oracle_runs[(name, True)].control_success_range)
        assert low <= total <= high
    cat = oracle_runs[("cat", False)]
    assert (cat.n_success, cat.n_control) == (1207, 535)  # capkit's tie rule; anonymeter 1208
    assert cat.n_tied == 502 and cat.n_tie_decides == 233


@needs_adult
def test_compat_baseline_is_anonymeters_label_alignment(oracle_runs):
    """All records of equal-sized frames: anonymeter's baseline guesses syn row i for ori row
    i, so 716 (cat) and 517 (reg) are deterministic and reproduced."""
    calls = results()["calls"]
    for name in ATTACKS:
        want = calls[f"inference_{name}_evaluator_all"]["result"]["n_baseline"]
        assert oracle_runs[(name, True)].n_baseline == want
        assert oracle_runs[(name, True)].anonymeter.n_attacks == (2000, 2000, 1000)


@needs_adult
def test_the_nn_attacker_with_anonymeter_distance_gives_the_same_guesses(oracle_runs):
    """inference_attack is capkit's "nn" attacker with distance="anonymeter"."""
    members, holdout = adult_split()
    aux, secret, _ = ATTACKS["cat"]
    attack = attribute_attack(members, oracle_synthetic(), aux, secret,
                              attacker="nn_anonymeter", holdout=holdout, check_overlap=False)
    run = oracle_runs[("cat", False)]
    assert (attack.correct, attack.control.correct) == (run.n_success, run.n_control)
    assert (attack.records.loc["member", "predicted"].to_numpy()
            == run.records["guess"].to_numpy()).all()


def _brute_force(queries: pd.DataFrame, candidates: pd.DataFrame, numeric, other):
    """anonymeter's distance record by record, lowest index among the nearest."""
    both = pd.concat([queries, candidates])
    span = {c: (both[c].max() - both[c].min()) or 1.0 for c in numeric}
    best = []
    for _, q in queries.iterrows():
        d = [sum(abs(q[c] / span[c] - r[c] / span[c]) for c in sorted(numeric))
             + sum(q[c] != r[c] for c in sorted(other)) for _, r in candidates.iterrows()]
        best.append((int(np.argmin(d)), min(d), int(np.sum(np.isclose(d, min(d), rtol=0,
                                                                        atol=1e-12)))))
    return best


def _toy(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.integers(0, 20, n), "y": rng.normal(size=n).round(1),
                         "c": rng.choice(list("abc"), n), "s": rng.choice(list("pqr"), n),
                         "v": rng.integers(1, 60, n)})


def test_record_by_record_reference():
    ori, syn = _toy(60, 1), _toy(80, 2)
    result = inference_attack(ori, syn, ["x", "y", "c"], "s")
    expected = _brute_force(ori[["x", "y", "c"]], syn[["x", "y", "c"]], ["x", "y"], ["c"])
    assert result.records["nn"].tolist() == [e[0] for e in expected]
    assert np.allclose(result.records["distance"], [e[1] for e in expected], rtol=0, atol=1e-12)
    assert result.records["n_tied_at_min"].tolist() == [e[2] for e in expected]
    guess = syn["s"].to_numpy()[[e[0] for e in expected]]
    assert result.records["guess"].tolist() == guess.tolist()
    assert result.n_success == int((guess == ori["s"].to_numpy()).sum())


@pytest.mark.filterwarnings("ignore:the control rate is 1")
def test_success_rules_for_a_numeric_secret():
    """capkit: |g - t| <= tol |t|; anonymeter divides by the guess, so a guess of -1 for a
    true -1000 is a success there (spec A.2) and a failure in capkit."""
    ori = pd.DataFrame({"k": ["a", "b"], "v": [-1000.0, 100.0]})
    syn = pd.DataFrame({"k": ["a", "b"], "v": [-1.0, 104.0]})
    plain = inference_attack(ori, syn, ["k"], "v", regression=True)
    compat = inference_attack(ori, syn, ["k"], "v", regression=True, anonymeter_compat=True)
    assert plain.records["success"].tolist() == [False, True]
    assert compat.records["success"].tolist() == [True, True]


def test_bad_input_is_a_clear_error_or_a_correct_result():
    ori, syn = _toy(40, 3), _toy(50, 4)
    before = (ori.copy(), syn.copy())
    base = inference_attack(ori, syn, ["x", "c"], "s", control=_toy(30, 5))
    assert ori.equals(before[0]) and syn.equals(before[1])
    shifted = syn.set_axis(syn.index + 10**6)  # index not 0..n-1: positions are used
    again = inference_attack(ori, shifted, ["x", "c"], "s", control=_toy(30, 5))
    assert again.records.equals(base.records)
    clamp = inference_attack(ori, syn, ["x", "c"], "s", n_attacks=10**6)
    assert clamp.n_attacks == len(ori)
    sample = inference_attack(ori, syn, ["x", "c"], "s", n_attacks=10, seed=7)
    assert sample.n_attacks == 10
    assert sample.records.equals(inference_attack(ori, syn, ["x", "c"], "s", n_attacks=10,
                                                  seed=7).records)
    cat_na = ori.assign(c=pd.Categorical(ori["c"].where(ori.index % 5 > 0)))
    syn_na = syn.assign(c=pd.Categorical(syn["c"].where(syn.index % 7 > 0)))
    with_na = inference_attack(cat_na, syn_na, ["x", "c"], "s")
    assert len(with_na.records) == len(ori)
    bad = [
        dict(original=ori.iloc[:0]), dict(synthetic=syn.iloc[:0]),
        dict(synthetic=syn.assign(x=syn["x"].astype(str))),
        dict(aux_cols=["x", "s"]), dict(aux_cols=["nope"]), dict(secret="nope"),
        dict(n_attacks=0), dict(n_attacks=2.5), dict(tolerance=-1),
        dict(regression=True), dict(original=[1, 2]),
    ]
    for change in bad:
        args = dict(original=ori, synthetic=syn, aux_cols=["x", "c"], secret="s") | change
        with pytest.raises(CapkitError):
            inference_attack(args.pop("original"), args.pop("synthetic"), args.pop("aux_cols"),
                             args.pop("secret"), **args)
    with pytest.raises(CapkitError, match=r"control lacks column\(s\) \['c'\]"):
        inference_attack(ori, syn, ["x", "c"], "s", control=_toy(30, 5).drop(columns="c"))
