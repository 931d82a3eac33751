"""What a custodian walk-through on two new tables (a coded survey, a wide integer table) found,
each on data built here: every command judges a key coded differently by one rule (M1), the
caveat names only the columns a finding matches exactly, and the singling-out rate printed
beside its count says which share it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.audit import audit
from capkit.cli import main
from capkit.synth.baselines import independent_columns


def _survey(n: int, seed: int) -> pd.DataFrame:
    """Codes 1-4, 1-10, 1-10 as keys (400 combinations: most members unique) and a 3-level
    coded target unrelated to them: only a copy of the members can tell it."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"k1": rng.integers(1, 5, n), "k2": rng.integers(1, 11, n),
                         "k3": rng.integers(1, 11, n), "t": rng.integers(0, 3, n)})


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("walk")
    data = _survey(900, 21)
    members, holdout = data.iloc[:600].reset_index(drop=True), data.iloc[600:]
    leak = members.sample(frac=1.0, replace=True, random_state=4).reset_index(drop=True)
    frames = {"orig": members, "holdout": holdout, "leak": leak,
              "shifted": leak.assign(k1=leak["k1"] - 1)}  # 0-3 where the original has 1-4
    out = {}
    for name, frame in frames.items():
        out[name] = tmp / f"{name}.csv"
        frame.to_csv(out[name], index=False)
    return out


def _membership_lines(files: dict[str, Path], command: str, synthesis: str) -> str:
    result = CliRunner().invoke(main, [command, str(files["orig"]), str(files[synthesis]),
                                       "--keys", "k1,k2,k3", "--targets", "t", "--holdout",
                                       str(files["holdout"])])
    assert result.exit_code == 0, result.output
    text = result.stdout.split("Membership control", 1)[1]
    return " ".join(text.split("\n\n", 3)[:3]).replace("\n", " ")


@pytest.mark.parametrize("command", ["cap", "disclosure"])
def test_cap_and_disclosure_never_call_a_shifted_key_not_flagged(files, command) -> None:
    """The leak is disclosive with consistent codes; with k1 shifted by one it used to be
    'not flagged (C3 ...)' in capkit cap and capkit disclosure (a warning at the foot of the
    report), while capkit report said 'review (M1 ...)' on the same files; now every command
    says 'not measured (M1 ...)': an exact-match measure on a shifted key finds nothing, and
    that is neither evidence nor a finding to review."""
    plain = _membership_lines(files, command, "leak")
    assert ": disclosive (C1" in plain and "coded differently" not in plain
    shifted = _membership_lines(files, command, "shifted")
    assert ": not flagged (" not in shifted and " not flagged" not in shifted.split("verdict")[-1]
    assert "coded differently: k1" in shifted and ": not measured (M1" in shifted
    assert ": review (M1" not in shifted


def test_the_report_judges_the_shifted_key_as_cap_does(files) -> None:
    """One rule for every command: capkit report's attribute findings on the same files get
    the same M1 verdict and note."""
    frames = {n: pd.read_csv(files[n]) for n in ("orig", "holdout", "shifted")}
    result = audit(frames["orig"], {"shifted": frames["shifted"]}, holdout=frames["holdout"],
                   keys=["k1", "k2", "k3"], targets=["t"], families=["synthpop measures"])
    attribute = [f for f in result.findings if f.family == "attribute"]
    assert attribute and all(f.verdict == "not measured" and f.rule.startswith("M1")
                             and "coded differently: k1" in f.detail for f in attribute)


def test_the_coding_caveat_names_only_the_columns_a_finding_matches_exactly() -> None:
    """Independent columns (safe) with a numeric code shifted in one target: the DiSCO of that
    target gets the M1 caveat; the other target's findings and the near copies (a Gower
    distance, where a shifted number moves a record a little) keep their own verdict."""
    data = _survey(900, 22).assign(u=lambda d: np.random.default_rng(3).integers(0, 3, 900))
    members, holdout = data.iloc[:600].reset_index(drop=True), data.iloc[600:]
    safe = independent_columns(members, seed=5)
    safe["t"] = safe["t"] + 1  # 1-3 where the original has 0-2
    result = audit(members, {"safe": safe}, holdout=holdout, keys=["k1", "k2"],
                   targets=["t", "u"], families=["synthpop measures", "distance"])
    by = {(f.measure, f.subject): f for f in result.findings}
    assert "coded differently: t" in by[("DiSCO", "t")].detail
    assert by[("DiSCO", "t")].verdict == "not measured"
    assert "coded differently" not in by[("DiSCO", "u")].detail
    assert by[("DiSCO", "u")].verdict == "not flagged"
    assert "coded differently" not in by[("near copies", "all columns")].detail
    assert by[("near copies", "all columns")].verdict == "not flagged"
    assert "coded differently: t" in by[("exact copies", "all columns")].detail


def test_the_singling_out_rate_beside_its_count_says_which_share_it_is() -> None:
    """With a holdout smaller than the members the rate is the members' at the holdout's size
    (hypergeometric expectation), not the printed count's share: the text says so, and the
    expected count it gives is the rate's share of the queries."""
    rng = np.random.default_rng(23)
    data = _survey(900, 23).assign(x=rng.normal(size=900).round(3), y=rng.normal(size=900))
    members, holdout = data.iloc[:600].reset_index(drop=True), data.iloc[600:]
    leak = members.sample(frac=1.0, replace=True, random_state=6).reset_index(drop=True)
    result = audit(members, {"leak": leak}, holdout=holdout, keys=["k1", "k2"],
                   families=["singling out"])
    (f,) = [f for f in result.findings if f.family == "singling out"]
    expected, n_queries = (float(x) for x in f.detail.split(" queries")[0].split(" of "))
    assert "expected to single out a member at the common size of 300 records" in f.detail
    n_success = int(f.detail.split("; ")[1].split(" single out")[0])
    assert "of all 600 members" in f.detail
    assert abs(expected / n_queries * 100 - f.value) <= 0.5 / n_queries + 1e-9  # 2 decimals
    assert abs(n_success / n_queries * 100 - f.value) > 0.05  # the two shares differ here


def test_the_cap_level_error_names_options_cap_has(files, tmp_path: Path) -> None:
    """A 5-row synthesis leaves fewer than half of the members' codes found: capkit cap's
    error used to suggest --ngroups-keys, an option of capkit disclosure only."""
    five = pd.read_csv(files["leak"]).query("k1 == 2").head(5)
    five.to_csv(tmp_path / "five.csv", index=False)
    result = CliRunner().invoke(main, ["cap", str(files["orig"]), str(tmp_path / "five.csv"),
                                       "--keys", "k1,k2,k3", "--targets", "t"])
    assert result.exit_code != 0
    error = " ".join(result.output.split())
    assert "key column 'k1'" in error and "only 5 records" in error
    assert "--ngroups" not in error and "--allow-disjoint-levels" in error
    helped = CliRunner().invoke(main, ["cap", "--help"]).output
    assert "--allow-disjoint-levels" in helped and "--keys" in helped


def test_one_target_the_synthesis_lacks_leaves_the_other_targets_measured() -> None:
    """A synthesiser that never draws a column's most frequent code (GaussianCopula on a pixel
    that is 0 for 58% of the digits): that target fails the level guard. It used to leave every
    target's synthpop measures unmeasured; now only that one is listed, the others judged."""
    rng = np.random.default_rng(24)
    data = _survey(900, 24).assign(p=np.where(rng.random(900) < 0.6, 0, rng.integers(1, 5, 900)))
    members, holdout = data.iloc[:600].reset_index(drop=True), data.iloc[600:]
    leak = members.sample(frac=1.0, replace=True, random_state=8).reset_index(drop=True)
    leak["p"] = rng.integers(1, 5, 600)  # never 0
    result = audit(members, {"leak": leak}, holdout=holdout, keys=["k1", "k2", "k3"],
                   targets=["t", "p"], families=["synthpop measures"])
    assert [f.family for f in result.failures] == ["synthpop measures for target 'p'"]
    assert "target column 'p'" in result.failures[0].reason
    assert "the other targets were measured" in result.failures[0].reason
    disco = [f for f in result.findings if f.measure == "DiSCO"]
    assert [f.subject for f in disco] == ["t"] and disco[0].verdict == "disclosive"
    assert not [f for f in result.findings if f.subject == "p"]


def test_codes_a_synthesiser_fills_in_between_are_not_a_coding_difference() -> None:
    """A pixel count 0-13 that the original lacks at 9, 10: a GaussianCopula-like synthesis
    drawing whole numbers over the whole range was called 'coded differently' (its 9s and 10s)
    and every exact-match finding became 'review (M1)'. A shifted code (outside the range),
    decimals (31.4-like) and text still are coding differences."""
    from capkit.data.coding import mismatches

    rng = np.random.default_rng(25)
    seen = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13])
    original = pd.DataFrame({"p": np.where(rng.random(1000) < 0.9, 0, rng.choice(seen, 1000))})
    smooth = pd.DataFrame({"p": rng.integers(0, 14, 1000)})  # 9, 10 in 14% of records
    assert (~smooth["p"].isin(seen)).mean() > 0.1
    assert mismatches(original, smooth, ["p"]) == []
    for other in (smooth + 1, smooth + rng.normal(0, 0.3, (1000, 1)).round(1),
                  smooth.astype(str).replace("0", "zero")):
        assert [m.column for m in mismatches(original, other, ["p"])] == ["p"]
    assert mismatches(original, smooth + 1, ["p"])[0].new_share == pytest.approx(
        (smooth["p"] == 13).mean())  # only the values beyond the range count


def test_a_holdout_of_members_says_how_many_records_are_left_in_words() -> None:
    """'With only 0 records left' / 'With only 1 records left' read as written by a machine."""
    from capkit.data.overlap import check_holdout

    members = _survey(600, 26).assign(x=np.arange(600))
    for size, words in ((283, "With only 1 record left it"), (282, "With no record left it")):
        holdout = pd.concat([members.iloc[:282], members.iloc[[]] if size == 282 else
                             pd.DataFrame({**members.iloc[0].to_dict(), "x": -1}, index=[0])])
        check = check_holdout(members, holdout, list(members.columns))
        assert check.holdout is None and words in check.warning


def test_a_synthesis_that_never_draws_the_common_code_is_not_called_coded_differently() -> None:
    """GaussianCopula never drew 0 for a digit pixel that is 0 for 58% of the records; all its
    values (1-15) occur in the original. The level error said 'probably coded differently'."""
    from capkit.counts.tables import crosstab
    from capkit.errors import DisjointLevelsError

    rng = np.random.default_rng(27)
    original = pd.DataFrame({"k": rng.integers(1, 4, 800),
                             "p": np.where(rng.random(800) < 0.6, 0, rng.integers(1, 6, 800))})
    smooth = pd.DataFrame({"k": rng.integers(1, 4, 800), "p": rng.integers(1, 6, 800)})
    with pytest.raises(DisjointLevelsError) as caught:
        crosstab(original, smooth, ["k"], "p")
    said = str(caught.value)
    assert "probably coded differently" not in said
    share = 100 * (original["p"] == 0).mean()
    assert f"none is 0, which {share:.1f}% of the original records hold" in said
    shifted = smooth.assign(p=smooth["p"] + 10)  # values of its own: still a coding
    with pytest.raises(DisjointLevelsError, match="probably coded differently"):
        crosstab(original, shifted, ["k"], "p")


def _pixel(n: int, rng: np.random.Generator) -> np.ndarray:
    """A digit-pixel-like count 0-16: a quarter zeros, the top code rare."""
    return np.where(rng.random(n) < 0.25, 0, np.minimum(rng.geometric(0.25, n), 16))


def test_a_code_shifted_by_one_inside_a_wide_range_is_found(tmp_path: Path) -> None:
    """0-16 written 1-17: only the top code (1-2% of records) leaves the range, under the
    2% of new values, and capkit cap called the leak 'not flagged' without a word (CAP v1
    2.91% against the holdout's 4.08% on sklearn's digits). The shift is found from the
    distributions of values; faithful, smoothed and small syntheses are not flagged."""
    from capkit.data.coding import SHIFT_RATIO, mismatches

    rng = np.random.default_rng(28)
    data = _survey(1500, 28).assign(p=_pixel(1500, rng))
    members, holdout = data.iloc[:1000].reset_index(drop=True), data.iloc[1000:]
    leak = members.sample(frac=1.0, replace=True, random_state=9).reset_index(drop=True)
    shifted = leak.assign(p=leak["p"] + 1)
    assert (~shifted["p"].isin(members["p"])).mean() < 0.02  # the first rule misses it
    (found,) = mismatches(members, shifted, ["k1", "k2", "p"])
    assert found.column == "p" and found.shift == 1
    assert found.distances[1] <= SHIFT_RATIO * found.distances[0]
    assert "once shifted by -1" in found.text()
    smooth = pd.DataFrame({"p": rng.integers(0, 17, 1000)})  # every code equally often
    small = leak.head(60)
    for other in (leak, smooth, small, independent_columns(members, seed=3)):
        assert mismatches(members, other, ["p"]) == []
    paths = {}
    for name, frame in (("orig", members), ("holdout", holdout), ("shifted", shifted)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    result = CliRunner().invoke(main, ["cap", str(paths["orig"]), str(paths["shifted"]),
                                       "--keys", "p,k2", "--targets", "t", "--holdout",
                                       str(paths["holdout"])])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert ": not measured (M1" in text and "Columns coded differently: p." in text
