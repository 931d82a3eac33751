"""DOMIAS's densities on a seeded sample of the scored records (score_sample= / --score-sample).

The rules fixed before computing anything:
* below the pair budget (and with ``score_sample="all"``) the scores are those of a run that
  never samples, to the bit, every attack;
* on a sample, each sampled record's DOMIAS score is, to the bit, the full run's score of that
  record (the densities are fitted on every synthetic and reference record: a sample of those
  would change the numbers), every other attack's column is the full run's, and the records
  outside the sample have NaN;
* the rows are numpy's ``default_rng([seed, 1])`` / ``[seed, 2]`` draw without replacement, of
  the members and of the scored non-members, sorted: the same seed, the same rows;
* the summary of a sampled attack is :func:`metrics` on the sampled rows, its counts are the
  sample's, and a note beginning "SAMPLE ESTIMATE" names the seed and the sizes;
* a bad size raises CapkitError naming the argument (or the CLI option).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.cli.main import main as cli
from capkit.data import record_sample
from capkit.errors import CapkitError
from capkit.membership_inference import metrics, scores, summary
from capkit.membership_inference.summary import exposed_members


def frames(seed: int = 3, n_members: int = 160, n_holdout: int = 160, n_synthetic: int = 120):
    rng = np.random.default_rng(seed)

    def frame(n: int) -> pd.DataFrame:
        return pd.DataFrame({"a": rng.normal(size=n).round(1),  # rounded: ties and copies
                             "b": rng.normal(size=n) * 3,
                             "c": rng.integers(0, 6, n).astype(float)})

    members, holdout, synthetic = frame(n_members), frame(n_holdout), frame(n_synthetic)
    synthetic.iloc[:30] = members.iloc[:30].to_numpy()  # copies of members
    return members, holdout, synthetic


DOMIAS = ["domias", "domias_density"]
OTHERS = ["dcr", "mc", "dpi"]


def same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    return (list(a.columns) == list(b.columns) and a.shape == b.shape
            and all(a[c].to_numpy().tobytes() == b[c].to_numpy().tobytes() for c in a.columns))


@pytest.mark.parametrize("compat", [None, "domias"])
def test_below_the_budget_nothing_changes(compat):
    members, holdout, synthetic = frames()
    run = {"attacks": OTHERS + DOMIAS, "compat": compat, "seed": 2}
    auto = scores(members, holdout, synthetic, **run)
    every = scores(members, holdout, synthetic, score_sample="all", **run)
    larger = scores(members, holdout, synthetic, score_sample=10_000, **run)
    assert same(auto, every) and same(auto, larger)
    assert auto.attrs == every.attrs == larger.attrs
    assert "score_sample" not in auto.attrs["settings"]
    assert not any(n.startswith("SAMPLE ESTIMATE") for n in auto.attrs["notes"])
    assert not auto[DOMIAS].isna().any().any()


def test_the_budget_is_the_threshold(monkeypatch):
    """At exactly records x (m + r) = budget every record is scored; one pair less, a sample of
    max(minimum, budget // (m + r)) records of the role past it."""
    members, holdout, synthetic = frames()
    every = scores(members, holdout, synthetic, attacks=DOMIAS, seed=1, score_sample="all")
    settings = every.attrs["settings"]
    compared = settings["n_synthetic"] + settings["n_reference"]
    n_m = settings["n_members"]
    monkeypatch.setattr(record_sample, "MIN_SAMPLE", 10)
    monkeypatch.setattr(record_sample, "PAIR_BUDGET", n_m * compared)
    at = scores(members, holdout, synthetic, attacks=DOMIAS, seed=1)
    assert same(at, every) and "score_sample" not in at.attrs["settings"]
    budget = n_m * compared - 1
    monkeypatch.setattr(record_sample, "PAIR_BUDGET", budget)
    past = scores(members, holdout, synthetic, attacks=DOMIAS, seed=1)
    drawn = past.attrs["settings"]["score_sample"]
    assert drawn["members"] == max(10, budget // compared) < n_m
    assert drawn["nonmembers"] == settings["n_nonmembers"]  # 80 x compared: within the budget
    assert drawn["rule"] == "budget" and drawn["budget"] == budget
    assert past.attrs["notes"][0].startswith("SAMPLE ESTIMATE")


@pytest.mark.parametrize("compat", [None, "domias"])
def test_the_sample_is_of_the_scored_records_only(compat):
    members, holdout, synthetic = frames()
    run = {"attacks": OTHERS + DOMIAS, "compat": compat, "seed": 5}
    every = scores(members, holdout, synthetic, score_sample="all", **run)
    part = scores(members, holdout, synthetic, score_sample=25, **run)
    rows = np.asarray(part.attrs["settings"]["score_sample_rows"])
    assert len(rows) == 50
    outside = np.setdiff1d(np.arange(len(part)), rows)
    for attack in DOMIAS:  # the full run's numbers, to the bit, where sampled; NaN elsewhere
        assert part[attack].to_numpy()[rows].tobytes() == every[attack].to_numpy()[rows].tobytes()
        assert part[attack].iloc[outside].isna().all()
    for attack in ["member", *OTHERS]:  # every record, as before
        assert part[attack].to_numpy().tobytes() == every[attack].to_numpy().tobytes()
    drawn = part.attrs["settings"]["score_sample"]
    assert drawn["compared"] == len(synthetic) + every.attrs["settings"]["n_reference"]
    assert (drawn["members"], drawn["nonmembers"]) == (25, 25)


def test_a_sampled_reference_or_synthesis_would_be_caught():
    """The check above bites: the same sampled records, scored against half the synthetic
    records, give other numbers."""
    members, holdout, synthetic = frames()
    every = scores(members, holdout, synthetic, attacks=DOMIAS, seed=5, score_sample="all")
    half = scores(members, holdout, synthetic.iloc[::2], attacks=DOMIAS, seed=5,
                  score_sample="all")
    assert (every["domias"].to_numpy() != half["domias"].to_numpy()).mean() > 0.9


def test_the_rows_are_the_documented_seeded_draw():
    members, holdout, synthetic = frames()
    run = {"attacks": DOMIAS, "score_sample": 20}
    a = scores(members, holdout, synthetic, seed=7, **run)
    b = scores(members, holdout, synthetic, seed=7, **run)
    c = scores(members, holdout, synthetic, seed=8, **run)
    rows_a = np.asarray(a.attrs["settings"]["score_sample_rows"])
    assert same(a, b) and rows_a.tolist() == b.attrs["settings"]["score_sample_rows"]
    assert rows_a.tolist() != c.attrs["settings"]["score_sample_rows"]
    n_m = len(members)
    n_n = a.attrs["settings"]["n_nonmembers"]
    expect_m = np.sort(np.random.default_rng([7, 1]).choice(n_m, 20, replace=False))
    expect_n = np.sort(np.random.default_rng([7, 2]).choice(n_n, 20, replace=False))
    assert rows_a.tolist() == expect_m.tolist() + (n_m + expect_n).tolist()
    note = a.attrs["notes"][0]
    assert note.startswith("SAMPLE ESTIMATE") and "seed 7" in note
    assert f"20 of {n_m:,} members" in note and f"20 of {n_n:,} scored non-members" in note


def test_the_summary_measures_a_sampled_attack_on_its_sample():
    members, holdout, synthetic = frames()
    table, per = summary(members, holdout, synthetic, attacks=["dcr", "domias"], seed=4,
                         score_sample=30, return_scores=True)
    rows = np.asarray(per.attrs["settings"]["score_sample_rows"])
    on_sample = metrics(per[["member", "domias"]].iloc[rows], seed=4)
    every = metrics(per[["member", "dcr"]], seed=4)
    assert list(table.index) == ["dcr", "domias"]
    for column in on_sample.columns:
        assert table.loc["domias", column] == on_sample.loc["domias", column]
        assert table.loc["dcr", column] == every.loc["dcr", column]
    assert (table.loc["domias", "n_members"], table.loc["domias", "n_nonmembers"]) == (30, 30)
    assert table.loc["dcr", "n_members"] == len(members)
    assert table.attrs["notes"][0].startswith("SAMPLE ESTIMATE")
    exposed = exposed_members(per, members, synthetic, attack="domias", top=50)
    assert len(exposed) == 30 and exposed["score"].notna().all()


@pytest.mark.parametrize("bad", [0, 1, -3, 2.5, True, "some", "10"])
def test_bad_sizes_name_the_argument(bad):
    members, holdout, synthetic = frames()
    with pytest.raises(CapkitError, match="score_sample"):
        scores(members, holdout, synthetic, attacks=["dcr"], score_sample=bad)


def test_the_command_prints_the_sample_in_every_format(tmp_path):
    members, holdout, synthetic = frames()
    paths = []
    for name, frame in (("m", members), ("s", synthetic), ("h", holdout)):
        paths.append(tmp_path / f"{name}.csv")
        frame.to_csv(paths[-1], index=False)
    base = [str(paths[0]), str(paths[1]), "--holdout", str(paths[2]), "--attacks",
            "dcr,domias", "--seed", "3"]
    runner = CliRunner()
    for fmt in ("text", "markdown", "json", "html"):
        out = runner.invoke(cli, ["membership", *base, "--score-sample", "40", "--format", fmt])
        assert out.exit_code == 0, out.output
        text = out.output.replace("\\n", " ")
        assert "SAMPLE ESTIMATE" in text and "seed 3" in text
        assert "Hanley-McNeil" in text and "Clopper-Pearson" in text
        assert "40 of 160 members" in text
    plain = runner.invoke(cli, ["membership", *base])
    assert plain.exit_code == 0 and "SAMPLE ESTIMATE" not in plain.output
    drawn = runner.invoke(cli, ["membership", *base, "--score-sample", "40", "--plot",
                                str(tmp_path / "roc.svg"), "--exposed-by", "domias"])
    assert drawn.exit_code == 0, drawn.output
    for bad in ("1", "many", "0"):
        out = runner.invoke(cli, ["membership", *base, "--score-sample", bad])
        assert out.exit_code != 0 and "--score-sample" in out.output
