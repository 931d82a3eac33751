"""The html report renders in headless Chromium: screenshot taken, tables present in the DOM.

Needs Debian's ``chromium`` (``apt-get install -y chromium``); skipped with that reason when
/usr/bin/chromium is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.cli import main

CHROMIUM = os.environ.get("CAPKIT_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"headless Chromium not found at {CHROMIUM} (Debian: apt-get install -y chromium)")


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp / "profile"
    profile.mkdir(exist_ok=True)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("html")
    rng = np.random.default_rng(7)
    frames = []
    for _ in range(2):
        age = rng.integers(20, 24, 300)
        smoke = np.where(age == 20, "no", rng.choice(["yes", "no"], 300))  # age 20: never
        frames.append(pd.DataFrame({
            "sex": rng.choice(["F", "M"], 300), "age": age, "smoke": smoke,
            "region": rng.choice(["north", "south"], 300)}))
    for name, frame in zip(("orig.csv", "syn.csv"), frames, strict=True):
        frame.to_csv(tmp / name, index=False)
    out = tmp / "report.html"
    result = CliRunner().invoke(main, [
        "disclosure", str(tmp / "orig.csv"), str(tmp / "syn.csv"), "--keys", "sex,age",
        "--thresh-1way", "5,50", "--thresh-2way", "1,50", "--format", "html", "-o", str(out),
        "-q"])
    assert result.exit_code == 0, result.output
    return out


def test_html_renders_with_tables(report: Path, tmp_path: Path) -> None:
    dom = _chromium(tmp_path, "--dump-dom", report.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert html.count("<table>") >= 5  # summary, check tables, measures, CAP family, versions
    assert "Attribute disclosure measures (disclosure_summary)" in html
    assert "Flagged relationships" in html and "on its own already points to" in html
    assert "capkit disclosure " in html  # the exact command
    assert 'src="data:image/svg+xml;base64,' in html  # the plot, embedded


def test_html_screenshot(report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    run = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,1600",
                    "--hide-scrollbars", report.as_uri())
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[0] == 1600 and pixels.shape[1] == 1200
    # not a blank page: the tables' borders and text make many non-white pixels
    ink = (pixels[..., :3].mean(axis=2) < 0.8).mean()
    assert ink > 0.01
