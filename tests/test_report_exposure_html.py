"""The html page's new pictures (records at risk, the key x target heatmap) and sections (the
original's exposure, the worst key combinations, before and after a treatment): what the
records-at-risk grid draws is the audit's table, the SVG is byte-identical on a rerun, and the
page fits 1280 px in headless Chromium (no overflow, every picture inside, screenshot size)."""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from test_cli_report import CHROMIUM, render_page

from capkit import CapkitError, plots, processes
from capkit.audit import audit
from capkit.audit.at_risk import FLAGS
from capkit.cli import main
from capkit.cli.report import pictures
from capkit.plots.custodian import FLAG_COLOURS, FLAG_LABELS, records_at_risk_grid
from capkit.synth.baselines import bootstrap_with_noise, independent_columns
from capkit.synth.sdc import sdc

KEYS = ["sex", "region", "job", "band"]


def _population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    return pd.DataFrame({
        "sex": sex, "region": rng.choice(list("abcdef"), n),
        "job": rng.choice(["clerk", "nurse", "driver", "cook", "teacher"], n),
        "band": rng.choice(["<30", "30-50", ">50"], n),
        "smoke": rng.choice(["yes", "no"], n),
        "income": np.round(np.exp(rng.normal(10, 0.5, n)) + 300 * (sex == "M"))})


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    data = _population(700, 11)
    members = data.iloc[:500].reset_index(drop=True)
    return {"members": members, "holdout": data.iloc[500:].reset_index(drop=True),
            "boot": bootstrap_with_noise(members, seed=2),
            "ind": independent_columns(members, seed=2)}


@pytest.fixture(scope="module")
def result(frames):
    return audit(frames["members"], {"boot": frames["boot"], "ind": frames["ind"]},
                 holdout=frames["holdout"], keys=KEYS, seed=0,
                 families=["synthpop measures", "distance"])


def test_records_grid_draws_the_audits_flags(result) -> None:
    table = result.records_at_risk
    fig = records_at_risk_grid(table, 4)
    ax = fig.axes[0]
    words = [t.get_text() for t in ax.texts]
    top = table[(table["score"] > 0) & (table["rank"] <= 4)]
    # one word per flag set on a listed member, and its score
    expected = sum(int(top[f].sum()) for f in FLAGS)
    assert sum(w in FLAG_LABELS.values() for w in words) == expected
    assert sorted(w for w in words if w in FLAG_LABELS.values()) == sorted(
        FLAG_LABELS[f] for f in FLAGS for _ in range(int(top[f].sum())))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    ranked = top.sort_values(["synthesis", "rank"], key=lambda s: s.map(
        {"boot": 0, "ind": 1}) if s.name == "synthesis" else s)
    assert labels == [f"{s} | row {r}" for s, r in zip(ranked["synthesis"], ranked["row"],
                                                       strict=True)]
    colours = {p.get_facecolor()[:3] for p in ax.patches}
    assert colours <= {tuple(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5))
                       for c in FLAG_COLOURS.values()}
    plt.close(fig)


def test_pictures_byte_identical_on_rerun(result) -> None:
    first, again = pictures(result), pictures(result)
    captions = [p.caption for p in first]
    assert any("most exposed" in c for c in captions)
    assert sum("SDNist's k-DiSCO heatmap" in c for c in captions) == 2
    assert [p.svg for p in first] == [p.svg for p in again]
    a = plots.svg_bytes(records_at_risk_grid(result.records_at_risk))
    b = plots.svg_bytes(records_at_risk_grid(result.records_at_risk))
    plt.close("all")
    assert a == b and b"<svg" in a


def test_pictures_drawn_in_the_second_process_are_the_same_bytes(result, monkeypatch) -> None:
    """Where the audit started a second process, it draws the forest plot and the heatmaps:
    the same SVG bytes as drawn here, in the same order with the same captions."""
    if processes.cores() < 2:
        pytest.skip("one core: no second process")
    import capkit.cli.report as report_cli

    monkeypatch.setattr(processes, "started", lambda: False)
    here = pictures(result)
    sent = []
    submit = processes.executor().submit

    class Counted:
        def submit(self, *args):
            sent.append(args[1])
            return submit(*args)

    monkeypatch.setattr(processes, "started", lambda: True)
    monkeypatch.setattr(processes, "executor", lambda: Counted())
    away = pictures(result)
    assert sorted(set(sent)) == sorted(report_cli.AWAY_PICTURES) and len(sent) == 3
    assert [p.caption for p in away] == [p.caption for p in here]
    assert [p.svg for p in away] == [p.svg for p in here]


def test_records_grid_bad_input(result) -> None:
    with pytest.raises(CapkitError, match="Audit.records_at_risk"):
        records_at_risk_grid(pd.DataFrame({"row": [1]}))
    with pytest.raises(CapkitError, match="positive integer"):
        records_at_risk_grid(result.records_at_risk, 0)
    none = result.records_at_risk.assign(score=0.0)
    with pytest.raises(CapkitError, match="nothing to draw"):
        records_at_risk_grid(none)


@pytest.mark.skipif(not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
                    reason=f"headless Chromium not found at {CHROMIUM}")
def test_page_with_the_new_sections_fits_1280(frames, tmp_path: Path) -> None:
    """``--compare-treated`` with the exposure, the sweep and the pictures: the widest tables
    (worst combinations, before and after) scroll in their own box; the page does not."""
    paths = {}
    treated = sdc(frames["boot"], frames["members"], KEYS, rm_replicated_uniques=True).data
    for name, frame in (("members", frames["members"]), ("holdout", frames["holdout"]),
                        ("boot", frames["boot"]), ("treated", treated)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    page = tmp_path / "report.html"
    run = CliRunner().invoke(main, [
        "report", str(paths["members"]), str(paths["boot"]), "--compare-treated",
        str(paths["treated"]), "--holdout", str(paths["holdout"]), "--keys", ",".join(KEYS),
        "--family", "synthpop measures", "--family", "distance", "--format", "html", "-o",
        str(page), "-q"])
    assert run.exit_code == 0, run.output
    html = page.read_text()
    for title in ("Before and after the treatment", "The original&#x27;s own exposure",
                  "Worst key combinations", "The people at risk"):
        assert f"<h2>{title}</h2>" in html
    n_pictures = html.count('<figure class="picture">')
    assert n_pictures == 7  # forest, grid, distances, records, a heatmap per file, the map
    client, overflow, boxes, pixels = render_page(page, tmp_path, 3000)
    assert 1200 <= client <= 1280
    assert overflow <= 0, f"the page is {overflow} px wider than the window"
    assert len(boxes) == n_pictures
    for left, right, width, height in boxes:
        assert left >= 0 and right <= client
        assert width >= 300 and height >= 80
    assert pixels.shape[:2] == (3000, 1280)
    ink = (pixels.mean(axis=2) < 0.8).mean()
    assert ink > 0.01  # not a blank page
