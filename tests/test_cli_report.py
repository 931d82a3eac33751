"""``capkit report`` and :func:`capkit.audit.audit`: the verdicts a leaking and a harmless
synthesis must get, the same findings in every format, --fail-on, bad input, and the html page
in headless Chromium at 1280 px."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit import CapkitError
from capkit.audit import audit, verdicts
from capkit.audit.defaults import choose, is_identifier
from capkit.cli import main
from capkit.control import compare_to_control
from capkit.distance import dcr
from capkit.synth.baselines import bootstrap_with_noise, independent_columns

CHROMIUM = os.environ.get("CAPKIT_CHROMIUM", "/usr/bin/chromium")


def _population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(list("abcdef"), n)
    age = rng.integers(18, 80, n)
    job = rng.choice(["clerk", "nurse", "driver", "cook", "teacher"], n)
    income = np.round(np.exp(rng.normal(10, 0.5, n)) + 300 * (sex == "M"))
    smoke = rng.choice(["yes", "no"], n)
    return pd.DataFrame({"sex": sex, "region": region, "job": job, "age": age,
                         "income": income, "smoke": smoke})


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("report")
    data = _population(1500, 3)
    members, holdout = data.iloc[:1000].reset_index(drop=True), data.iloc[1000:]
    frames = {"orig": members, "holdout": holdout.reset_index(drop=True),
              "boot": bootstrap_with_noise(members, seed=1),
              "ind": independent_columns(members, seed=1)}
    out = {}
    for name, frame in frames.items():
        out[name] = tmp / f"{name}.csv"
        frame.to_csv(out[name], index=False)
    return out


def _run(*args: str) -> object:
    return CliRunner().invoke(main, ["report", *args, "-q"])


def test_bootstrap_flagged_independent_not(files: dict[str, Path]) -> None:
    result = _run(str(files["orig"]), str(files["boot"]), str(files["ind"]), "--holdout",
                  str(files["holdout"]), "--format", "json", "--keys", "sex,region,job,age")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    found = pd.DataFrame(payload["findings"])
    assert {"measure", "value", "baseline", "holdout", "verdict", "rule"} <= set(found.columns)
    boot, ind = found[found.synthesis == "1: boot.csv"], found[found.synthesis == "2: ind.csv"]
    near = boot[boot.measure == "near copies"].iloc[0]
    assert near.verdict == "disclosive" and near.value > 50 and near.holdout < 10
    assert (boot[boot.family == "attribute"].verdict == "disclosive").any()
    assert not (ind.verdict == "disclosive").any()
    assert set(ind[ind.family == "copies"].verdict) == {"not flagged"}


def test_same_findings_every_format(files: dict[str, Path]) -> None:
    args = [str(files["orig"]), str(files["boot"]), "--holdout", str(files["holdout"]),
            "--keys", "sex,region,job", "--family", "distance"]
    outputs = {fmt: _run(*args, "--format", fmt) for fmt in ("text", "markdown", "html",
                                                             "json")}
    assert all(r.exit_code == 0 for r in outputs.values())
    findings = json.loads(outputs["json"].output)["findings"]
    assert [f["measure"] for f in findings] == [
        "exact copies", "synthetic records copying a member", "near copies"]
    for fmt in ("text", "markdown", "html"):
        assert "near copies" in outputs[fmt].output and "disclosive" in outputs[fmt].output
        assert "C1" in outputs[fmt].output  # the rule is written down


def test_fail_on_and_no_holdout(files: dict[str, Path]) -> None:
    args = [str(files["orig"]), str(files["boot"]), "--keys", "sex,region,job", "--family",
            "distance", "--format", "json"]
    assert _run(*args, "--holdout", str(files["holdout"])).exit_code == 0
    failed = _run(*args, "--holdout", str(files["holdout"]), "--fail-on", "disclosive")
    assert failed.exit_code == 2
    alone = _run(*args)  # without a holdout nothing is called disclosive
    assert alone.exit_code == 0
    assert {f["verdict"] for f in json.loads(alone.output)["findings"]} <= {"review",
                                                                           "not flagged"}


def test_original_identifiers_absent_from_the_synthesis(files: dict[str, Path],
                                                        tmp_path: Path) -> None:
    """Synthesisers drop a row number or a name: the report leaves such columns out with a
    note, and finds what it finds without them; a missing ordinary column stays an error. The
    input notes (missing target values) are in the report, without a flag it does not have."""
    members = pd.read_csv(files["orig"])
    tagged = tmp_path / "tagged.csv"
    members.assign(row=np.arange(len(members)), name=[f"p{i}" for i in range(len(members))],
                   note=np.where(np.arange(len(members)) % 7 == 0, None, "x")).to_csv(
        tagged, index=False)
    args = ["--keys", "sex,region,job", "--family", "synthpop measures", "--format", "json"]
    base = _run(str(files["orig"]), str(files["boot"]), *args)
    result = _run(str(tagged), str(files["boot"]), *args)
    assert result.exit_code == 1 and "'note' is missing from synthetic" in result.output
    members.assign(row=np.arange(len(members)), name=[f"p{i}" for i in range(len(members))]
                   ).to_csv(tagged, index=False)
    result = _run(str(tagged), str(files["boot"]), *args)
    assert result.exit_code == 0, result.output
    report, plain = json.loads(result.output), json.loads(base.output)
    assert report["findings"] == plain["findings"]
    text = " ".join(report["inputs"])
    assert "columns row, name of the original file (identifiers" in text
    missing = members.assign(income=members["income"].mask(members.index % 10 == 0))
    missing.to_csv(tagged, index=False)
    text = " ".join(json.loads(_run(str(tagged), str(files["boot"]), *args).output)["inputs"])
    assert "target 'income' has 100 missing values" in text and "--no-target-na" not in text


def test_a_family_that_cannot_run_is_named_with_the_others(files: dict[str, Path],
                                                          tmp_path: Path) -> None:
    """A numeric key with missing values stops the k-NN attack: the other families are judged,
    and the report lists the one not measured with its error and how to choose families."""
    members = pd.read_csv(files["orig"])
    gappy = tmp_path / "gappy.csv"
    members.assign(age=members["age"].astype(float).mask(members.index % 5 == 0)).to_csv(
        gappy, index=False)
    args = [str(gappy), str(files["boot"]), "--keys", "sex,age", "--targets", "smoke"]
    failed = _run(*args)
    assert failed.exit_code == 0
    text = " ".join(failed.stdout.split())  # the text report wraps lines
    assert "NOT MEASURED: attribute attacks: numeric key 'age'" in text
    assert "the other families ran (families= / --family chooses them" in text
    assert "not measured: attribute attacks" in text  # beside the verdict counts
    assert "exact copies" in text  # the others were judged
    assert _run(*args, "--family", "synthpop measures", "--family", "distance").exit_code == 0


def test_every_family_without_a_holdout() -> None:
    """Without a holdout every family runs (repU, which has no baseline, used to crash the
    report), nothing is called disclosive, and repU is not judged (rule N0)."""
    data = _population(400, 7)
    members = data.iloc[:300].reset_index(drop=True)
    result = audit(members, {"boot": bootstrap_with_noise(members, seed=2)},
                   keys=["sex", "region", "job"], targets=["smoke", "income"])
    assert {f.family for f in result.findings} >= {"identity", "attribute", "copies", "attack",
                                                   "singling out", "linkability"}
    assert "disclosive" not in {f.verdict for f in result.findings}
    rep_u = next(f for f in result.findings if f.measure == "repU")
    assert rep_u.verdict == "not flagged" and rep_u.rule.startswith("N0")
    assert rep_u.holdout is None and rep_u.risk is None


@pytest.mark.parametrize(("args", "words"), [
    (["--keys", "nope"], "nope"),
    (["--holdout", "missing.csv"], "holdout file"),
    (["--keys", "sex", "--targets", "sex"], "also a key"),
])
def test_bad_input_one_error_line(files: dict[str, Path], args: list[str], words: str) -> None:
    result = _run(str(files["orig"]), str(files["boot"]), *args)
    assert result.exit_code == 1
    assert result.output.startswith("Error:") and words in result.output
    assert result.output.count("\n") == 1


def test_default_keys_rule() -> None:
    data = _population(200, 1)
    choice = choose(data)
    assert choice.keys == ["sex", "region", "job", "smoke"]
    assert choice.targets == ["age", "income"] and choice.groups == {"age": 5, "income": 5}
    with pytest.raises(CapkitError, match="no default key"):
        choose(data[["age", "income"]])


def test_verdict_rules() -> None:
    def judge(k_m: int, k_c: int, family: str = "attribute", n: int = 1000) -> str:
        return verdicts.against_control(compare_to_control(k_m, n, k_c, n, warn=False),
                                        family).level

    assert judge(300, 100) == "disclosive"      # 30% vs 10%: clear, 20 in 100, risk 22%
    assert judge(130, 100) == "review"          # clear, 3 in 100, risk 3% < 5%
    assert judge(105, 100) == "not flagged"     # within the interval
    assert judge(5, 0, "copies") == "review"    # any clear excess of copies
    assert judge(5, 0, "attack") == "not flagged"  # 0.5 in 100: too little to matter
    assert judge(8, 0, "attack", n=100) == "review"  # 8 in 100, too few records to be clear
    assert judge(1000, 1000, "attack") == "not flagged"  # undefined risk at c = 1
    assert verdicts.against_baseline(0.5, "attack").level == "review"  # never disclosive


def test_audit_leaves_input_unchanged() -> None:
    data = _population(400, 2)
    members, holdout = data.iloc[:300].reset_index(drop=True), data.iloc[300:]
    syn = independent_columns(members, seed=2)
    before = [f.copy() for f in (members, holdout, syn)]
    audit(members, syn, holdout=holdout, keys=["sex", "region"], families=["distance"])
    for a, b in zip(before, (members, holdout, syn), strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_identifier_columns_are_left_out() -> None:
    """A row number or a name (a different value on every record) is no key, no target and no
    part of a distance: the report leaves it out, says so, and finds what it finds without it.
    A float column unique per record (a measurement) is not an identifier."""
    data = _population(500, 6)
    members = data.iloc[:350].reset_index(drop=True)
    holdout = data.iloc[350:].reset_index(drop=True)
    syn = bootstrap_with_noise(members, seed=4)

    def with_ids(frame: pd.DataFrame, start: int) -> pd.DataFrame:
        ids = np.arange(start, start + len(frame))
        return frame.assign(row=ids, name=[f"p{i}" for i in ids])

    families = ["synthpop measures", "distance"]
    plain = audit(members, syn, holdout=holdout, families=families)
    tagged = audit(with_ids(members, 0), with_ids(syn, 0), holdout=with_ids(holdout, 1000),
                   families=families)
    assert [(f.measure, f.subject, f.value, f.verdict) for f in tagged.findings] == \
        [(f.measure, f.subject, f.value, f.verdict) for f in plain.findings]
    assert any(note.startswith("columns row, name have a different value on every record")
               for note in tagged.notes)
    assert "row" not in tagged.targets and "name" not in tagged.targets
    assert choose(with_ids(members, 0), targets=["row"]).identifiers == ["name"]  # named: kept
    assert not is_identifier(pd.Series(np.linspace(0, 1, 50)))  # a unique measurement
    assert not is_identifier(pd.Series([1, 5, 9]))  # unique integers, not consecutive
    assert is_identifier(pd.Series([7, 5, 6])) and is_identifier(pd.Series(["a", "b"]))
    assert not is_identifier(pd.Series(["a", "b", None]))


def test_constant_columns_left_out_and_a_constant_synthetic_column_measured() -> None:
    """A column with one value in the original tells nothing (it used to stop the distance
    with 'zero range'); a numeric column that a synthesis collapses to one value is measured
    on the members' range."""
    data = _population(500, 10)
    members = data.iloc[:350].reset_index(drop=True)
    holdout = data.iloc[350:].reset_index(drop=True)
    syn = independent_columns(members, seed=5)
    families = ["synthpop measures", "distance"]
    plain = audit(members, syn, holdout=holdout, families=families)
    tagged = audit(*(f.assign(wave=2011, country="PL") for f in (members, syn)),
                   holdout=holdout.assign(wave=2011, country="PL"), families=families)
    assert [(f.measure, f.subject, f.value) for f in tagged.findings] == \
        [(f.measure, f.subject, f.value) for f in plain.findings]
    assert any(n.startswith("columns wave, country have a single value") for n in tagged.notes)
    flat = syn.assign(age=40)  # the synthesis lost all variation of age
    result = audit(members, flat, holdout=holdout, families=["distance"])
    expected = dcr(members, flat, ranges={"age": float(members["age"].max()
                                                       - members["age"].min())}).distance
    exact = next(f for f in result.findings if f.measure == "exact copies")
    assert exact.detail.startswith(f"{int((expected == 0).sum())} of 350 members")


def test_years_as_a_numeric_target_are_called_uninformative() -> None:
    """5% of a year is about a century: every guess is 'within 5%', the holdout's too. The
    finding says the band is too wide and a note names the target; no RuntimeWarning about the
    holdout's rate of 1 escapes (the finding shows the risk as NA)."""
    import warnings

    data = _population(500, 11)
    data["year"] = 1950 + np.random.default_rng(12).integers(0, 60, 500)
    members = data.iloc[:350].reset_index(drop=True)
    holdout = data.iloc[350:].reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = audit(members, independent_columns(members, seed=6), holdout=holdout,
                       keys=["sex", "region"], targets=["year", "smoke"],
                       families=["attribute attacks"])
    year = next(f for f in result.findings if f.subject == "year")
    assert year.value == 100.0 and year.risk is None and "too wide" in year.detail
    assert any(n.startswith("attribute attack: for year the dummy") for n in result.notes)
    smoke = next(f for f in result.findings if f.subject == "smoke")
    assert "too wide" not in smoke.detail


def test_text_target_with_many_levels_gets_a_note() -> None:
    """Dates read from a CSV are text: an exact-match target whose near values count as wrong
    guesses. The default choice says so; plain labels with many levels get the milder note."""
    rng = np.random.default_rng(9)
    frame = _population(300, 8).assign(
        visit=(pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 200, 300), unit="D")
               ).strftime("%Y-%m-%d"),
        code=[f"c{k}" for k in rng.integers(0, 150, 300)])
    notes = choose(frame, keys=["sex", "region"]).notes
    visit = next(n for n in notes if n.startswith("target visit is text"))
    assert "read as dates" in visit and "convert it to numbers" in visit
    code = next(n for n in notes if n.startswith("target code is text"))
    assert "read as" not in code and "count exact values only" in code
    assert not any(n.startswith("target job is text") for n in notes)  # 5 levels


def test_missing_numbers_in_the_distance_family() -> None:
    """Numeric columns with missing values (SD2011's income, say) do not stop the report: the
    distance scores a missing value as a level (1 from a number, 0 from another missing one),
    the notes say so, and a bootstrap still has its exact copies counted."""
    data = _population(600, 4)
    data["income"] = data["income"].mask(np.random.default_rng(5).random(600) < 0.15)
    members, holdout = data.iloc[:400].reset_index(drop=True), data.iloc[400:]
    copies = members.iloc[:50]  # 50 exact copies, missing incomes included
    syn = pd.concat([copies, independent_columns(members, seed=3).iloc[50:]], ignore_index=True)
    result = audit(members, {"mixed": syn}, holdout=holdout, keys=["sex", "region"],
                   families=["distance"])
    exact = next(f for f in result.findings if f.measure == "exact copies")
    # members with an identical synthetic record, missing income equal to missing income
    # (pandas joins NaN keys to each other): the 50 copies and any chance coincidence
    flag = syn.drop_duplicates().assign(_hit=True)
    expected = int(members.merge(flag, how="left", on=list(members.columns))["_hit"].notna().sum())
    assert expected >= 50 and exact.detail.startswith(f"{expected} of 400 members")
    assert any("income has missing values" in note and "missing='level'" in note
               for note in result.notes)
    clean = audit(members.dropna(), {"mixed": syn.dropna()}, keys=["sex", "region"],
                  families=["distance"])
    assert not any("missing='level'" in note for note in clean.notes)


#: Run by headless Chromium at the end of the page: how far the page overflows its width and
#: where each picture lands, written into the DOM that --dump-dom prints.
_MEASURE = """<script>
const root = document.documentElement;
document.body.setAttribute("data-client", String(root.clientWidth));
document.body.setAttribute("data-overflow", String(root.scrollWidth - root.clientWidth));
document.body.setAttribute("data-svgs", [...document.querySelectorAll("figure.picture svg")]
  .map(s => { const r = s.getBoundingClientRect();
              return [r.left, r.right, r.width, r.height].map(Math.round).join(","); })
  .join(" "));
</script>"""


def render_page(page: Path, tmp_path: Path, height: int) -> tuple[int, int, list, np.ndarray]:
    """Open an HTML report in headless Chromium at 1280 x ``height`` px: the page's client
    width, how far it overflows, each picture's box (left, right, width, height) and the
    screenshot's pixels (RGB, 0-1)."""
    import re

    import matplotlib.image as mpimg

    measured = tmp_path / "measured.html"
    measured.write_text(page.read_text().replace("</body>", _MEASURE + "\n</body>"))
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    browser = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-dev-shm-usage", f"--user-data-dir={profile}",
               f"--window-size=1280,{height}"]
    dom = subprocess.run([*browser, "--dump-dom", measured.as_uri()], capture_output=True,
                         text=True, timeout=120, check=False)
    assert dom.returncode == 0, dom.stderr[-2000:]
    client = int(re.search(r'data-client="(-?\d+)"', dom.stdout).group(1))
    overflow = int(re.search(r'data-overflow="(-?\d+)"', dom.stdout).group(1))
    boxes = [[int(v) for v in box.split(",")] for box in
             re.search(r'data-svgs="([^"]*)"', dom.stdout).group(1).split()]
    shot = tmp_path / "shot.png"
    run = subprocess.run([*browser, f"--screenshot={shot}", page.as_uri()],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    if os.environ.get("CAPKIT_KEEP_SHOT"):
        shutil.copyfile(shot, os.environ["CAPKIT_KEEP_SHOT"])
    return client, overflow, boxes, mpimg.imread(shot)[..., :3]


@pytest.mark.skipif(not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
                    reason=f"headless Chromium not found at {CHROMIUM}")
def test_html_fits_1280(files: dict[str, Path], tmp_path: Path) -> None:
    """The page with its pictures (forest plot, verdict grid, distances, records at risk, a
    key x target heatmap per synthesis, the risk-utility map) at 1280 px: no
    horizontal overflow, every picture inside the page and drawn at a readable size, and the
    screenshot shows the disclosive verdict's colour."""
    page = tmp_path / "report.html"
    result = _run(str(files["orig"]), str(files["boot"]), str(files["ind"]), "--holdout",
                  str(files["holdout"]), "--keys", "sex,region,job", "--format", "html", "-o",
                  str(page))
    assert result.exit_code == 0, result.output
    # forest, grid, distances, records, a heatmap per synthesis, the risk-utility map
    assert page.read_text().count('<figure class="picture">') == 7
    client, overflow, boxes, pixels = render_page(page, tmp_path, 4000)
    assert 1200 <= client <= 1280
    assert overflow <= 0, f"the page is {overflow} px wider than the window"
    assert len(boxes) == 7
    for left, right, width, height in boxes:
        assert left >= 0 and right <= client
        assert width >= 300 and height >= 80  # drawn, not collapsed
    assert pixels.shape[:2] == (4000, 1280)
    # the bootstrap's disclosive cell / markers: Okabe-Ito vermillion #D55E00 on screen
    vermillion = np.array([0xD5, 0x5E, 0x00]) / 255
    assert (np.abs(pixels - vermillion).max(axis=2) < 0.04).sum() > 200
