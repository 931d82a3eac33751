"""The pictures of the custodian's html report (:mod:`capkit.plots.custodian`): byte-identical on
a rerun, drawn from what the audit measured (nothing recomputed), inline in the html page only,
and bad input refused with CapkitError."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit import CapkitError, plots
from capkit.audit import LEVELS, Audit, audit
from capkit.audit.at_risk import Distances
from capkit.cli import main
from capkit.cli.report import pictures
from capkit.distance import dcr
from capkit.plots.custodian import (
    MARKERS,
    distance_distributions,
    findings_forest,
    verdict_grid,
)
from capkit.report import render
from capkit.report.custodian import custodian_report
from capkit.synth.baselines import bootstrap_with_noise, independent_columns

KEYS = ["sex", "region", "job"]


def _population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["F", "M"], n), "region": rng.choice(list("abc"), n),
                         "job": rng.choice(["x", "y", "z"], n), "age": rng.integers(18, 80, n),
                         "smoke": rng.choice(["yes", "no"], n)})


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    data = _population(600, 3)
    members = data.iloc[:400].reset_index(drop=True)
    return {"members": members, "holdout": data.iloc[400:].reset_index(drop=True),
            "boot": bootstrap_with_noise(members, seed=1),
            "ind": independent_columns(members, seed=1)}


@pytest.fixture(scope="module")
def result(frames: dict[str, pd.DataFrame]) -> Audit:
    return audit(frames["members"], {"boot": frames["boot"], "ind": frames["ind"]},
                 holdout=frames["holdout"], keys=KEYS, seed=0)


def _svg(fig: plt.Figure) -> bytes:
    out = plots.svg_bytes(fig)
    plt.close(fig)
    return out


@pytest.fixture(scope="module")
def drawn(result: Audit) -> list:
    return pictures(result)


def test_figures_byte_identical_on_rerun(result: Audit, drawn: list, tmp_path: Path) -> None:
    again = pictures(result)  # forest plot, verdict grid, distances, records at risk and the
    # key x target heatmap of each synthesis drawn a second time
    assert [p.caption for p in again] == [p.caption for p in drawn] and len(drawn) == 6
    for first, second in zip(drawn, again, strict=True):
        assert first.svg == second.svg, first.caption
        assert first.svg.lstrip().startswith(b"<?xml") and b"<svg" in first.svg
    # through the one saver too: PNG and SVG files identical on a rerun
    a = plots.save(distance_distributions(result.distances), "d", tmp_path / "a", dpi=60)
    b = plots.save(distance_distributions(result.distances), "d", tmp_path / "b", dpi=60)
    plt.close("all")
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    # and the page that embeds them
    html = [render(custodian_report(result, "cmd", {}, [], pictures=p), "html")
            for p in (drawn, again)]
    assert html[0] == html[1]


def test_distances_are_the_audits(result: Audit, frames: dict[str, pd.DataFrame]) -> None:
    """What the distance picture draws is what the audit judged: the near-copy finding's
    members and holdout rates are the shares at or below the kept threshold, the threshold is
    the holdout's 5% quantile, and the distances are dcr's."""
    assert list(result.distances) == ["boot", "ind"]
    for name, d in result.distances.items():
        assert len(d.members) == len(frames["members"])
        assert len(d.holdout) == len(frames["holdout"])
        assert d.near_cut == pytest.approx(float(np.quantile(d.holdout, 0.05)))
        near = next(f for f in result.findings if f.synthesis == name
                    and f.measure == "near copies")
        assert near.value == pytest.approx(100 * np.mean(d.members <= d.near_cut))
        assert near.holdout == pytest.approx(100 * np.mean(d.holdout <= d.near_cut))
        exact = next(f for f in result.findings if f.synthesis == name
                     and f.measure == "exact copies")
        assert exact.value == pytest.approx(100 * np.mean(d.members == 0))
        # a record-by-record reference: the exact nearest-record search on five members
        rows = frames["members"].iloc[:5]
        again = dcr(rows, frames[name], missing="level").distance
        np.testing.assert_allclose(d.members[:5], again)


def test_forest_rows_and_grid_cells(result: Audit) -> None:
    fig = findings_forest(result.findings)
    with_risk = [f for f in result.findings if f.risk is not None]
    names = list(dict.fromkeys(f.synthesis for f in with_risk))
    assert len(fig.axes) == len(names)  # a panel per synthesis, each with its risk axis
    seen: set[str] = set()
    for ax, name in zip(fig.axes, names, strict=True):
        assert ax.get_title(loc="left") == name
        assert all(t.get_visible() for t in ax.get_xticklabels())  # the axis repeated
        mine = [f for f in with_risk if f.synthesis == name]
        families = list(dict.fromkeys(f.family for f in mine))
        # a row per family, top to bottom, with its count of findings
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == [f"{fam} ({sum(f.family == fam for f in mine)})"
                          for fam in families]
        # each row's worst verdict is written at the right (readable without colour)
        words = [t.get_text() for t in ax.texts]
        assert words == [next(lv for lv in LEVELS if any(
            f.verdict == lv for f in mine if f.family == fam)) for fam in families]
        # every finding is a point
        points = sum(len(line.get_xdata()) for line in ax.lines if line.get_marker() in
                     set(MARKERS.values()))
        assert points == len(mine)
        seen |= {f.verdict for f in mine}
        # and each verdict has its own marker
        handles, levels = ax.get_legend_handles_labels()
        assert {n: h[0].get_marker() for h, n in zip(handles, levels, strict=True)} == {
            n: MARKERS[n] for n in levels}
    # one legend, on the first panel, naming every verdict drawn
    assert {t.get_text() for t in fig.axes[0].get_legend().get_texts()} == seen
    plt.close(fig)

    fig = verdict_grid(result.findings, result.syntheses)
    cells = [t.get_text() for t in fig.axes[0].texts]
    families = list(dict.fromkeys(f.family for f in result.findings))
    expected = []  # the worst verdict per cell, found one finding at a time
    for name in result.syntheses:
        for family in families:
            levels = [f.verdict for f in result.findings
                      if f.synthesis == name and f.family == family]
            expected.append(min(levels, key=LEVELS.index) if levels else "not measured")
    assert cells == expected
    assert "disclosive" in cells  # the bootstrap's copies
    plt.close(fig)
    # the frame form gives the same figure
    assert _svg(verdict_grid(result.to_frame(), result.syntheses)) == _svg(
        verdict_grid(result.findings, result.syntheses))


def test_html_has_the_svgs_other_formats_unchanged(frames: dict[str, pd.DataFrame],
                                                   tmp_path: Path) -> None:
    paths = {}
    for name in ("members", "holdout", "boot"):
        paths[name] = tmp_path / f"{name}.csv"
        frames[name].to_csv(paths[name], index=False)
    args = ["report", str(paths["members"]), str(paths["boot"]), "--holdout",
            str(paths["holdout"]), "--keys", ",".join(KEYS), "--family", "distance",
            "--family", "synthpop measures", "-q", "--format"]
    runner = CliRunner()
    out = {fmt: runner.invoke(main, [*args, fmt]) for fmt in ("html", "json", "text",
                                                              "markdown")}
    assert all(r.exit_code == 0 for r in out.values()), out["html"].output
    html = out["html"].output
    # forest, grid, distances, records at risk, the key x target heatmap
    assert html.count("<svg") == 5 and html.count("</svg>") == 5
    assert '<section class="pictures">' in html
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html  # inline, not a file
    assert not re.search(r"(src|href)=\"https?:", html)  # no network
    for caption in ("95% interval", "worst verdict", "near-copy threshold"):
        assert caption in html
    for fmt in ("json", "text", "markdown"):
        assert "<svg" not in out[fmt].output and "Pictures" not in out[fmt].output
    assert "pictures" not in json.loads(out["json"].output)


def test_bad_input_refused(result: Audit) -> None:
    frame = result.to_frame()
    with pytest.raises(CapkitError, match="empty"):
        findings_forest([])
    with pytest.raises(CapkitError, match="list of Finding"):
        findings_forest(["not a finding"])
    with pytest.raises(CapkitError, match="lacks columns"):
        findings_forest(frame.drop(columns=["risk_low"]))
    with pytest.raises(CapkitError, match="verdicts"):
        verdict_grid(frame.assign(verdict="bad"))
    with pytest.raises(CapkitError, match="no finding has a risk"):
        findings_forest(frame.assign(risk=None))
    with pytest.raises(CapkitError, match="no finding"):
        verdict_grid(result.findings, ["nope"])
    with pytest.raises(CapkitError, match="non-empty mapping"):
        distance_distributions({})
    with pytest.raises(CapkitError, match="must be a Distances"):
        distance_distributions({"x": np.zeros(3)})
    good = result.distances["boot"]
    for bad in (np.array([0.1, np.nan]), np.array([-0.1]), np.zeros((2, 2)), np.array([])):
        with pytest.raises(CapkitError, match="finite values >= 0"):
            distance_distributions({"x": replace(good, members=bad)})
    with pytest.raises(CapkitError, match="bins"):
        distance_distributions(result.distances, bins=0)
    # without a holdout: members only, no threshold, still drawn
    fig = distance_distributions({"x": Distances(good.members)})
    assert len(fig.axes) == 1
    plt.close(fig)


def test_inline_ids_unique_and_resolved(result: Audit, drawn: list) -> None:
    """Three matplotlib SVGs in one page: every element id occurs once and every reference
    (url(#id), href="#id") points at an id of the page."""
    html = render(custodian_report(result, "cmd", {}, [], pictures=drawn), "html")
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)) and len(ids) > 100
    refs = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', html))
    assert refs and refs <= set(ids)
