"""Plausible wrong input gets no confident verdict: a synthesis that copies the holdout, a
genuine synthesis with some copies, a synthesis of another size, infinite values, booleans."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from click.testing import CliRunner

from capkit.audit import audit
from capkit.cli import main
from capkit.synth.baselines import independent_columns


def _people(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                         "region": rng.choice(list("abcdef"), n),
                         "age": rng.integers(16, 91, n),
                         "job": rng.choice([f"job{i}" for i in range(12)], n),
                         "income": np.round(rng.lognormal(10, 0.5, n), 2)})


def _split(n: int = 2000, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    data = _people(n, seed)
    return data.iloc[: n // 2].reset_index(drop=True), data.iloc[n // 2:].reset_index(drop=True)


def _cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, " ".join(result.output.split())


# -- a synthesis made of members and holdout records ------------------------------------------

def test_a_synthesis_copying_the_holdout_is_not_judged_against_it() -> None:
    members, holdout = _split()
    mixed = pd.concat([members.iloc[:500], holdout.iloc[:500]], ignore_index=True)
    result = audit(members, {"mixed": mixed}, holdout=holdout, keys=["sex", "region"],
                   targets=["job"], families=("distance", "synthpop measures"),
                   original_exposure=False, sweep_size=None)
    assert any(w.startswith("THE CONTROL IS CONTAMINATED for synthesis 'mixed'")
               for w in result.warnings), result.warnings
    # judged as without a holdout: no finding carries a holdout rate; the copies of members
    # are disclosive against the members' own duplicates (rule D1)
    assert all(f.holdout is None for f in result.findings), result.findings
    exact = next(f for f in result.findings if f.measure == "exact copies")
    assert exact.verdict == "disclosive" and exact.rule.startswith("D1")


def test_a_clean_synthesis_keeps_its_control() -> None:
    members, holdout = _split()
    result = audit(members, {"ind": independent_columns(members, seed=2)}, holdout=holdout,
                   keys=["sex", "region"], targets=["job"], families=("distance",),
                   original_exposure=False, sweep_size=None)
    assert not any("CONTAMINATED" in w for w in result.warnings)
    assert any(f.holdout is not None for f in result.findings)


def test_capkit_disclosure_drops_a_contaminated_control(tmp_path: Path) -> None:
    members, holdout = _split()
    mixed = pd.concat([members.iloc[:500], holdout.iloc[:500]], ignore_index=True)
    for name, frame in (("o", members), ("h", holdout), ("s", mixed)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    code, out = _cli("disclosure", tmp_path / "o.csv", tmp_path / "s.csv", "--keys",
                     "sex,region,age", "--targets", "job", "--holdout", tmp_path / "h.csv")
    assert code == 0, out
    assert "THE CONTROL IS CONTAMINATED for synthesis 's.csv'" in out
    assert "Membership control" not in out


# -- the copy warning's question ---------------------------------------------------------------

def test_the_original_file_question_only_past_a_high_share(tmp_path: Path) -> None:
    members, _ = _split()
    some = pd.concat([members.iloc[:170], independent_columns(members, seed=4, n=830)],
                     ignore_index=True)  # 17% copies: a leaky but genuine synthesis
    members.to_csv(tmp_path / "o.csv", index=False)
    some.to_csv(tmp_path / "some.csv", index=False)
    members.to_csv(tmp_path / "same.csv", index=False)
    _, out = _cli("disclosure", tmp_path / "o.csv", tmp_path / "some.csv", "--keys",
                  "sex,region", "--targets", "job")
    assert "it copies the original" in out and "is it the original file itself?" not in out
    _, out = _cli("disclosure", tmp_path / "o.csv", tmp_path / "same.csv", "--keys",
                  "sex,region", "--targets", "job")
    assert "is it the original file itself?" in out


# -- a synthesis of another size --------------------------------------------------------------

def test_a_synthesis_ten_times_the_size_is_noted_by_every_command(tmp_path: Path) -> None:
    members, holdout = _split()
    big = members.sample(n=10 * len(members), replace=True, random_state=1)
    members.to_csv(tmp_path / "o.csv", index=False)
    big.to_csv(tmp_path / "big.csv", index=False)
    said = "big.csv has 10 times the original's records (10,000 against 1,000)"
    for command in (["disclosure"], ["cap"], ["disclosure", "--engine", "duckdb"]):
        code, out = _cli(*command, tmp_path / "o.csv", tmp_path / "big.csv", "--keys",
                         "sex,region,age", "--targets", "job")
        assert code == 0 and said in out, (command, out)
    code, out = _cli("attack", tmp_path / "o.csv", tmp_path / "big.csv", "--keys",
                     "sex,region", "--targets", "job")
    assert code == 0 and said in out, out
    result = audit(members, {"big": big}, keys=["sex", "region", "age"], targets=["job"],
                   families=("synthpop measures",), original_exposure=False, sweep_size=None)
    assert any("synthesis 'big' has 10 times the original's records" in w
               for w in result.warnings), result.warnings
    same = members.sample(frac=1.0, replace=True, random_state=1)
    result = audit(members, {"same": same}, keys=["sex", "region", "age"], targets=["job"],
                   families=("synthpop measures",), original_exposure=False, sweep_size=None)
    assert not any("times the original's records" in w for w in result.warnings)


# -- infinite values --------------------------------------------------------------------------

def test_infinite_values_are_missing_for_every_family_said_once(tmp_path: Path) -> None:
    import warnings

    members, holdout = _split()
    synthetic = independent_columns(members, seed=3)
    synthetic.loc[:19, "income"] = np.inf  # 20 cells
    given = synthetic.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no numpy warning leaks
        result = audit(members, {"s": synthetic}, holdout=holdout, keys=["sex", "region"],
                       targets=["job", "income"],
                       families=("synthpop measures", "distance", "attribute attacks",
                                 "membership inference"),
                       original_exposure=False, sweep_size=None, workers=1)
    pd.testing.assert_frame_equal(synthetic, given)  # the input is not modified
    said = [n for n in result.notes if n.startswith("infinite values")]
    assert said == ["infinite values (inf, -inf) are read as missing values by every measure "
                    "family (the distances, the classes, the attacks and the counts alike): "
                    "synthesis 's': income (20)"], result.notes
    assert not result.failures, result.failures  # the distance family ran ("zero range")
    # the same as the synthesis with those cells missing
    missing = synthetic.assign(income=synthetic["income"].replace(np.inf, np.nan))
    again = audit(members, {"s": missing}, holdout=holdout, keys=["sex", "region"],
                  targets=["job", "income"],
                  families=("synthpop measures", "distance", "attribute attacks",
                            "membership inference"),
                  original_exposure=False, sweep_size=None, workers=1)
    assert [(f.measure, f.subject, f.value, f.verdict) for f in result.findings] == \
        [(f.measure, f.subject, f.value, f.verdict) for f in again.findings]
    members.to_csv(tmp_path / "o.csv", index=False)
    synthetic.to_csv(tmp_path / "s.csv", index=False)
    code, out = _cli("disclosure", tmp_path / "o.csv", tmp_path / "s.csv", "--keys",
                     "sex,region", "--targets", "income", "--ngroups-targets", "5")
    assert code == 0 and "infinite values (inf, -inf) are read as missing values" in out, out


# -- true/false against 1/0 -------------------------------------------------------------------

def test_true_false_against_one_zero_is_one_rule_for_every_command(tmp_path: Path) -> None:
    """The original writes a key True/False, the synthesis 1/0: cap, disclosure and report
    read them alike (1 = True), and give what they give when both files write True/False."""
    import json

    rng = np.random.default_rng(1)
    n = 1000
    original = pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                             "region": rng.choice(list("abcdefghij"), n),
                             "smoke": rng.choice([True, False], n),
                             "job": rng.choice(list("abcdefgh"), n)})
    synthetic = original.sample(frac=1.0, replace=True, random_state=2)
    original.to_csv(tmp_path / "o.csv", index=False)
    synthetic.to_csv(tmp_path / "bool.csv", index=False)
    synthetic.assign(smoke=synthetic["smoke"].astype(int)).to_csv(tmp_path / "int.csv",
                                                                  index=False)

    def numbers(command: list[str], name: str) -> object:
        code, _ = _cli(*command[:1], tmp_path / "o.csv", tmp_path / name, *command[1:],
                       "--format", "json", "-o", tmp_path / f"{name}.json")
        assert code == 0, (command, name, _)
        doc = json.loads((tmp_path / f"{name}.json").read_text())
        return doc["findings"] if "findings" in doc and doc["findings"] else doc["sections"]

    for command in (["disclosure", "--keys", "sex,region,smoke", "--targets", "job"],
                    ["cap", "--keys", "sex,region,smoke", "--targets", "job"],
                    ["report", "--keys", "sex,region,smoke", "--targets", "job",
                     "--family", "synthpop measures"]):
        as_bool, as_int = numbers(command, "bool.csv"), numbers(command, "int.csv")
        text_bool = json.dumps(as_bool).replace("bool.csv", "X")
        text_int = json.dumps(as_int).replace("int.csv", "X")
        # the tables and findings agree; only the alignment note may differ
        assert _tables(text_bool) == _tables(text_int), command[0]


def _tables(text: str) -> list[str]:
    import re

    return re.findall(r"-?\\d+\\.\\d+", text)


# -- notes on stderr: once, with the right role ------------------------------------------------

def test_report_notes_name_columns_by_their_role_once(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    n = 600
    data = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(list("abc"), n),
                         "job": rng.choice(list("abcd"), n)}).astype(object)
    data.loc[rng.random(n) < 0.1, "region"] = None  # a default key with missing values
    data["income"] = np.round(rng.lognormal(10, 0.5, n))  # the target
    data.iloc[:400].to_csv(tmp_path / "o.csv", index=False)
    data.iloc[:400].sample(frac=1.0, random_state=1).to_csv(tmp_path / "s.csv", index=False)
    result = CliRunner().invoke(main, ["report", str(tmp_path / "o.csv"),
                                       str(tmp_path / "s.csv"), "--family",
                                       "synthpop measures", "-o", str(tmp_path / "r.txt")])
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "'region' has" in line]
    assert len(said) == 1 and said[0].startswith("Note: column 'region' has"), said


# -- each file named by its role --------------------------------------------------------------

def test_a_holdout_coded_differently_is_named_the_holdout() -> None:
    import pytest

    from capkit.disclosure import disclosure, disclosure_summary
    from capkit.errors import DisjointLevelsError

    rng = np.random.default_rng(1)
    n = 1000
    data = pd.DataFrame({"sex": rng.choice(["f", "m"], n),
                         "region": rng.choice(list("abcdef"), n),
                         "job": rng.choice(list("abcd"), n)})
    members, holdout = data.iloc[:500], data.iloc[500:].assign(
        job=lambda f: f["job"].str.upper())  # the holdout file writes the levels in capitals
    synthetic = members.sample(frac=1.0, replace=True, random_state=1)
    for run in (lambda: disclosure(synthetic, members, ["sex", "region"], "job",
                                   holdout=holdout),
                lambda: disclosure_summary(synthetic, members, ["sex", "region"], ["job"],
                                           holdout=holdout)):
        with pytest.raises(DisjointLevelsError) as caught:
            run()
        text = str(caught.value)
        assert "none of the 500 holdout records" in text and "holdout levels ['A'" in text
        assert "original" not in text, text
