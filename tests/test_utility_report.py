"""The report's utility section and risk-utility map (capkit.audit.utility_family,
capkit.report.utility, ``capkit utility`` and ``capkit report --utility``), on data built here.

Each number of the section is checked against capkit.utility's direct calls (the same
function on the same frames: bit equality expected) and the k-marginal score against SDNist's
formula written out in pandas; the map's Pareto front against a brute-force dominance check
and against the front fixed below from the risks chosen for the releases.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit import utility
from capkit.audit import audit
from capkit.audit.findings import Finding
from capkit.audit.utility_family import NPERMS, measure, reading, release_map
from capkit.cli import main
from capkit.errors import CapkitError
from capkit.report import render
from capkit.report.custodian import custodian_report

N = 800


def _original(seed: int = 0, n: int = N) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    return pd.DataFrame({
        "age": age.astype(float),
        "sex": pd.Categorical(rng.choice(["f", "m"], n)),
        "region": pd.Categorical(rng.choice(list("abcd"), n)),
        "retired": pd.Categorical(np.where(age > 65, "yes", "no"))})


def _independent(frame: pd.DataFrame) -> pd.DataFrame:
    """Every column shuffled on its own: the marginals kept, every relation gone."""
    return pd.DataFrame({c: frame[c].sample(frac=1.0, random_state=11 + j).to_numpy()
                         for j, c in enumerate(frame.columns)})


def _half(frame: pd.DataFrame) -> pd.DataFrame:
    """The relation of age and retired broken for half of the records."""
    out = frame.copy()
    k = len(frame) // 2
    out.loc[: k - 1, "retired"] = frame["retired"].iloc[:k].sample(
        frac=1.0, random_state=5).to_numpy()
    return out


@pytest.fixture(scope="module")
def releases() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    original = _original()
    copy = original.sample(frac=1.0, random_state=1).reset_index(drop=True)
    return original, {"copy": copy, "copy again": copy.copy(), "half": _half(original),
                      "independent": _independent(original)}


@pytest.fixture(scope="module")
def family(releases):  # noqa: ANN001, ANN201
    original, named = releases
    return measure(original, named, nworst=3)


def _sdnist_kmarginal(a: pd.DataFrame, b: pd.DataFrame) -> int:
    """SDNist's score written out: (2 - mean over column pairs of sum |t - s|) x 500,
    truncated; t and s the cell shares of the pair's 2-way table in each file."""
    cols = list(a.columns)
    l1 = []
    for i in range(len(cols)):
        for j in range(i + 1, len(cols)):
            t = a.groupby([cols[i], cols[j]], observed=True).size() / len(a)
            s = b.groupby([cols[i], cols[j]], observed=True).size() / len(b)
            t, s = t.align(s, fill_value=0.0)
            l1.append(float((t - s).abs().sum()))
    return int((2 - np.mean(l1)) * 500)


def test_section_numbers_are_capkit_utility_s(releases, family) -> None:  # noqa: ANN001
    original, named = releases
    for name, frame in named.items():
        got = family.releases[name]
        gen = utility.gen(frame, original, method="cart", resamp_method="perm", nperms=NPERMS,
                          seed=0)
        two = utility.tables(frame, original, tables="twoway", nworst=3)
        one = utility.tables(frame, original, tables="oneway", nworst=3)
        # the same function on the same frames: bit equality
        assert got.pMSE == float(gen.pMSE[0])
        assert got.S_pMSE_general == float(gen.S_pMSE[0])  # the report's permutations
        sim = gen.null[0]["simpMSE"]
        assert len(sim) == NPERMS == 20 and got.null_mean == float(np.mean(sim))
        assert got.S_pMSE == float(two.tabs["S_pMSE"].mean())
        pd.testing.assert_series_equal(got.worst_twoway, two.worstn)
        pd.testing.assert_series_equal(got.worst_oneway, one.worstn)
        assert family.table().loc[name, "reading"] == reading(got.S_pMSE)
    # the k-marginal on categorical columns only (codes = categories, no grouping)
    cats = ["sex", "region", "retired"]
    only = measure(original[cats], {n: f[cats] for n, f in named.items()})
    for name, frame in named.items():
        assert only.releases[name].kmarginal == _sdnist_kmarginal(original[cats], frame[cats])
    # what the fixture's releases are, as the section reads them
    assert family.releases["copy"].S_pMSE == 0.0 and family.releases["copy"].kmarginal == 1000
    assert family.releases["independent"].S_pMSE > 10  # poor: the relations are gone
    assert family.releases["independent"].worst_twoway.index[0] == "age:retired"


def test_reading_is_synthpops() -> None:
    assert [reading(x) for x in (0.5, 2.999, 3.0, 9.99, 10.0, float("nan"))] == [
        "very good", "very good", "good", "good", "poor", "NA"]


def _finding(synthesis: str, measure_: str, risk: float, verdict: str) -> Finding:
    return Finding(synthesis, "attribute", measure_, "retired", risk, "%", 0.0, None, "",
                   risk, risk - 1.0, risk + 1.0, verdict, "", "")


def test_map_front_and_regions(family) -> None:  # noqa: ANN001
    # risks fixed before the utilities are known: copy 90 (disclosive), its duplicate 95
    # (same utility, more risk: dominated), half 20 (review), independent 1 (not flagged)
    risks = {"copy": (90.0, "disclosive"), "copy again": (95.0, "disclosive"),
             "half": (20.0, "review"), "independent": (1.0, "not flagged")}
    findings = [_finding(n, "DiSCO", r, v) for n, (r, v) in risks.items()]
    findings += [_finding(n, "knn attack", 2.0, "not flagged") for n in risks]
    table = release_map(family, findings, list(risks))
    assert table.attrs["risk_measure"] == "attribute: DiSCO (retired)"  # the worst verdict
    assert list(table.index[table["pareto"]]) == ["copy", "half", "independent"]
    # the front is what brute force says: no other release at most as bad on both, better on one
    r, u = table["risk"].to_numpy(), table["utility"].to_numpy()
    brute = [not any(r[k] <= r[j] and u[k] <= u[j] and (r[k] < r[j] or u[k] < u[j])
                     for k in range(len(r))) for j in range(len(r))]
    assert table["pareto"].tolist() == brute
    assert table.loc["independent", "region"] == "not flagged, not useful"
    assert table.loc["copy", "region"] == "flagged, useful"
    assert (table["risk_low"] == table["risk"] - 1.0).all()  # each point's interval kept
    named = release_map(family, findings, list(risks), risk_measure="knn attack",
                        axis="k-marginal")
    assert named.attrs["risk_measure"] == "attribute: knn attack (retired)"
    assert set(named["region"]) == {"not flagged"}
    with pytest.raises(CapkitError, match="nothing|names no finding"):
        release_map(family, findings, list(risks), risk_measure="no such measure")


def test_report_section_with_a_real_audit(releases) -> None:  # noqa: ANN001
    original, named = releases
    holdout = _original(seed=7)
    result = audit(original, {"copy": named["copy"], "independent": named["independent"]},
                   holdout=holdout, families=["distance"], utility=True, workers=1)
    rumap = release_map(result.utility, result.findings, result.syntheses)
    assert rumap.loc["copy", "verdict"] == "disclosive"  # exact copies of every member
    assert rumap.loc["independent", "utility"] > 10
    doc = json.loads(render(custodian_report(result, "test", {}, [], release_map=rumap),
                            "json"))
    assert doc["utility"]["releases"]["copy"]["pMSE"] == result.utility.releases["copy"].pMSE
    assert [r["release"] for r in doc["risk_utility_map"]["releases"]] == ["copy",
                                                                           "independent"]
    titles = [s["title"] for s in doc["sections"]]
    assert "Utility" in titles and "Risk against utility" in titles
    plain = audit(original, {"copy": named["copy"]}, holdout=holdout, families=["distance"],
                  workers=1)
    assert plain.utility is None  # not asked: the report as before
    assert "Utility" not in render(custodian_report(plain, "t", {}, []), "text")


HOSTILE = ["<script>alert(1)</script>", "a|b*c*", "\x1b[2Jclear", "x\u202eevil"]


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    original = _original(n=300)
    original.columns = HOSTILE
    out = {"orig": tmp_path / "orig.csv", "syn": tmp_path / "syn.csv"}
    original.to_csv(out["orig"], index=False)
    _independent(original).to_csv(out["syn"], index=False)
    return out


def _run(*args: object) -> object:
    return CliRunner().invoke(main, ["utility", *map(str, args), "-q"])


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json"])
def test_hostile_column_names_are_escaped(files: dict[str, Path], fmt: str) -> None:
    result = _run(files["syn"], "--original", files["orig"], "--format", fmt)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\x1b" not in out and "\u202e" not in out  # never a raw control character
    if fmt in ("html", "markdown"):  # text is shown as text; JSON keeps the value itself
        assert "<script>" not in out and "&lt;script&gt;" in out
    if fmt == "markdown":
        assert "a\\|b\\*c\\*" in out
    if fmt == "json":
        assert json.loads(out)["utility"]["columns"] == HOSTILE  # the names, unchanged


def test_the_command_never_overwrites_an_input(files: dict[str, Path]) -> None:
    for victim in (files["syn"], files["orig"]):
        before = victim.read_bytes()
        result = _run(files["syn"], "--original", files["orig"], "-o", victim)
        assert result.exit_code == 1
        assert "would destroy that input" in result.output
        assert victim.read_bytes() == before


def test_columns_that_differ_are_named(files: dict[str, Path], tmp_path: Path) -> None:
    fewer = tmp_path / "fewer.csv"
    pd.read_csv(files["syn"]).drop(columns=HOSTILE[2]).to_csv(fewer, index=False)
    result = _run(fewer, "--original", files["orig"])
    assert result.exit_code == 1 and "\\x1b[2Jclear" in result.output  # named, escaped
    original = _original(n=100)
    with pytest.raises(CapkitError, match="'region'"):
        measure(original, {"s": original.drop(columns="region")})
    with pytest.raises(CapkitError, match="'extra'"):
        measure(original, {"s": original.assign(extra=1.0)})


def test_the_command_writes_its_output(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "u.json"
    result = _run(files["syn"], "--original", files["orig"], "--format", "json", "-o", out)
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["title"] == "Utility report" and doc["utility"]["nworst"] == 5


def test_report_cli_map_in_every_format(tmp_path: Path) -> None:
    original, holdout = _original(n=300), _original(seed=3, n=300)
    paths = {}
    for name, frame in (("orig", original), ("hold", holdout),
                        ("copy", original.sample(frac=1.0, random_state=2)),
                        ("indep", _independent(original))):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    base = ["report", paths["orig"], paths["copy"], paths["indep"], "--holdout",
            paths["hold"], "--family", "distance", "-q"]
    pages = {}
    for fmt in ("json", "html", "markdown"):
        result = CliRunner().invoke(main, [*map(str, base), "--format", fmt])
        assert result.exit_code == 0, result.output
        pages[fmt] = result.stdout
    doc = json.loads(pages["json"])
    front = [r["release"] for r in doc["risk_utility_map"]["releases"] if r["pareto"]]
    assert front == ["1: copy.csv", "2: indep.csv"]
    assert "Risk-utility map" in pages["html"] and pages["html"].count("<svg") >= 2
    assert "**The risk-utility map**" in pages["markdown"]
    result = CliRunner().invoke(main, [*map(str, base), "--no-utility", "--format", "json"])
    assert "utility" not in json.loads(result.stdout)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_utility_says_when_a_release_codes_a_column_differently(tmp_path: Path, fmt) -> None:
    """Age classes by their midpoints (17.5, 22, 27, ...) written off their grid (25.1), as
    GaussianCopula and CTGAN write them: the one-way S_pMSE of age is huge and only the
    coding explains it. Every format of capkit utility says so, with the report's coding
    rule; a release on the original's codes gets no such warning."""
    rng = np.random.default_rng(41)
    n = 600
    ages = np.array([17.5, 22.0, 27.0, 32.0, 37.0, 42.0])
    original = pd.DataFrame({"age": rng.choice(ages, n), "kids": rng.integers(0, 4, n),
                             "job": rng.choice(list("abc"), n)})
    off = original.sample(frac=1.0, random_state=1).reset_index(drop=True)
    off["age"] = (off["age"] + rng.normal(0, 2, n)).round(1)
    same = original.sample(frac=1.0, replace=True, random_state=2).reset_index(drop=True)
    paths = {}
    for name, frame in (("orig", original), ("off", off), ("same", same)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    result = CliRunner().invoke(main, ["utility", str(paths["off"]), str(paths["same"]),
                                       "--original", str(paths["orig"]), "--format", fmt])
    assert result.exit_code == 0, result.output
    text = " ".join(html.unescape(result.stdout).split())
    if fmt == "json":
        text = " ".join(json.dumps(json.loads(result.stdout), ensure_ascii=False).split())
    assert "column 'age' is coded differently in synthesis '1: off.csv'" in text
    assert "measures the coding, not the fit" in text
    assert "synthesis '2: same.csv'" not in text
    if fmt == "json":
        said = json.loads(result.stdout)["utility"]["releases"]
        assert any("coded differently" in w for w in said["1: off.csv"]["warnings"])
        assert not any("coded differently" in w for w in said["2: same.csv"]["warnings"])


def test_map_reads_not_measured_as_the_report_does(family) -> None:  # noqa: ANN001
    """A finding not measured (rule M1, or absent from a release) is neither flagged nor not
    flagged, in the map as in the report's verdict lines (capkit.audit.verdicts.flag), and its
    risk (understated or missing) neither puts the release on the Pareto front nor pushes
    another off it. The code before counted it as flagged."""
    from capkit.audit.verdicts import flag
    from capkit.cli.utility import map_picture
    from capkit.plots import utility_map
    from capkit.report import Report
    from capkit.report.utility import map_section

    # DiSCO: copy 90 (disclosive), half 0.5 on a column coded differently (not measured, M1),
    # independent 1 (not flagged); "copy again" lacks the finding (not measured, no risk)
    risks = {"copy": (90.0, "disclosive"), "half": (0.5, "not measured"),
             "independent": (1.0, "not flagged")}
    findings = [_finding(n, "DiSCO", r, v) for n, (r, v) in risks.items()]
    names = ["copy", "copy again", "half", "independent"]
    table = release_map(family, findings, names, risk_measure="DiSCO")
    assert table["verdict"].tolist() == ["disclosive", "not measured", "not measured",
                                         "not flagged"]
    # the report's rule: flagged only for disclosive or review; not measured is neither
    assert [flag(v) for v in table["verdict"]] == ["flagged", "not measured", "not measured",
                                                  "not flagged"]
    assert table["flagged"].tolist() == [True, None, None, False]
    useful = table["useful"].to_numpy(bool)
    for name, state in (("copy", "flagged"), ("copy again", "not measured"),
                        ("half", "not measured"), ("independent", "not flagged")):
        words = f"{state}, {'useful' if useful[names.index(name)] else 'not useful'}"
        assert table.loc[name, "region"] == ("not flagged and useful"
                                             if words == "not flagged, useful" else words)
    # the front of the measured releases (brute force over copy and independent): half's
    # understated 0.5 must not push independent (risk 1) off it
    assert not table.loc["half", "pareto"] and not table.loc["copy again", "pareto"]
    r, u = table["risk"].to_numpy(), table["utility"].to_numpy()
    measured = [0, 3]
    brute = [j in measured and not any(
        r[k] <= r[j] and u[k] <= u[j] and (r[k] < r[j] or u[k] < u[j]) for k in measured)
        for j in range(len(r))]
    assert table["pareto"].tolist() == brute and table.loc["independent", "pareto"]
    # every output format says it
    report = Report(title="t", command="c", versions={}, inputs=[],
                    sections=[map_section(table, True)])
    for fmt in ("text", "markdown", "html"):
        page = render(report, fmt)
        assert "NOT MEASURED (neither flagged nor not flagged, off the Pareto front): " \
               "copy again, half" in html.unescape(page).replace("\\", "")
        assert "not measured, " in page
    doc = json.loads(render(report, "json"))
    rows = dict(zip(doc["sections"][0]["tables"][0]["index"],
                    doc["sections"][0]["tables"][0]["data"], strict=True))
    assert rows["half"][6] == "not measured" and rows["half"][8].startswith("not measured")
    # the figure: half a grey cross of its own, not a release nor on the front
    fig = utility_map.risk_utility_map(table)
    crosses = [c for c in fig.axes[0].collections if c.get_label() == "not measured"]
    assert len(crosses) == 1
    drawn = np.asarray(crosses[0].get_offsets().filled(np.nan), dtype=float)
    drawn = drawn[np.isfinite(drawn).all(axis=1)]  # copy again has no risk: no point
    assert drawn.tolist() == [[0.5, table.loc["half", "utility"]]]
    assert "Grey cross: not measured" in map_picture(table).caption
    assert "without a risk, not drawn: copy again" in map_picture(table).caption
