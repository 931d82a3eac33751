"""`capkit disclosure` on the SD2011 files of the synthpop oracle reproduces synthpop's numbers.

The reference case (reference/synthpop/sd2011_m5, real synthpop 1.9-2) holds five synthetic data
sets as CSV files (the original SD2011 extract is rebuilt from the data set as R wrote it), and
the output of ``multi.disclosure`` (the paper's
``disclosure.summary``) with keys sex, age, region, placesize and every other column as target,
plus the full ``disclosure()`` of each target. The command reads the CSV files itself (no
schema), so this also checks reading and type alignment. Expected values are read from
results.json with plain ``json``; nothing here comes from capkit.
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from reference_data import synthpop_oracle_root

from capkit.cli import main

ORACLE = synthpop_oracle_root() / "sd2011_m5"
REL = 1e-9
KEYS = "sex,age,region,placesize"


def _close(a: float, b: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=1e-12)


@pytest.fixture(scope="module")
def oracle() -> dict:
    return json.loads((ORACLE / "results.json").read_text())


@pytest.fixture(scope="module")
def report() -> dict:
    files = [str(ORACLE / "orig.csv")] + [str(ORACLE / f"syn_{j}.csv") for j in range(1, 6)]
    result = CliRunner().invoke(main, ["disclosure", *files, "--keys", KEYS, "--format",
                                       "json", "--quiet"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _table(report: dict, title: str) -> list[dict]:
    for section in report["sections"]:
        for table in section["tables"]:
            if table["title"] == title:
                return [dict(zip(["index", *table["columns"]], [i, *row], strict=True))
                        for i, row in zip(table["index"], table["data"], strict=True)]
    raise AssertionError(f"no table {title!r} in the report")


def test_attrib_table_matches_multi_disclosure(report: dict, oracle: dict) -> None:
    expected = oracle["multi_disclosure"]["default"]["result"]["attrib_table"]
    got = _table(report, "Attribute disclosure measures (disclosure_summary)")
    assert [r["index"] for r in got] == [r["row_name"] for r in expected]
    for g, e in zip(got, expected, strict=True):
        assert _close(g["attrib.orig"], e["attrib.orig"]), (g, e)
        assert _close(g["attrib.syn"], e["attrib.syn"]), (g, e)
        assert g["check1"] == e["check1"]
        assert g["check2"] == e["check2"]
        # synthpop records Npairs = 1 for "any pair" (quirk Q10b); capkit counts the pairs of
        # the message, e.g. 28 for "28 pairs need checks"
        assert g["Npairs"] == (int(e["check2"].split()[0]) if e["check2"] else 0)


def test_ident_matches_multi_disclosure(report: dict, oracle: dict) -> None:
    result = oracle["multi_disclosure"]["default"]["result"]
    targets = result["targets"]
    ident = {r["index"]: r for r in _table(report, "Identity measures")}
    for target, uio in zip(targets, result["ident_orig"], strict=True):
        assert _close(ident[target]["UiO"], uio)
    # synthpop's ident.syn is repU of synthesis 1 (quirk Q8): the per-synthesis table has it
    for target, repu in zip(targets, result["ident_syn"], strict=True):
        rows = _table(report, f"Target {target}")
        assert rows[0]["index"] == "synthesis 1"
        assert _close(rows[0]["repU"], repu)


def test_every_measure_of_every_synthesis(report: dict, oracle: dict) -> None:
    per_target = oracle["multi_disclosure"]["default"]["result"]["per_target"]
    checked = 0
    for target, res in per_target.items():
        rows = _table(report, f"Target {target}")
        assert len(rows) == 5
        for part in ("ident", "attrib", "allCAPs"):
            for j, expected in enumerate(res[part]):
                for name, value in expected.items():
                    if name == "row_name":
                        continue
                    assert _close(rows[j][name], value), (target, j + 1, name)
                    checked += 1
    assert checked == 5 * 5 * (4 + 8 + 5)


def test_disclosure_of_depress(report: dict, oracle: dict) -> None:
    expected = oracle["disclosure"]["depress"]["result"]
    rows = _table(report, "Target depress")
    for j in range(5):
        assert _close(rows[j]["DiSCO"], expected["attrib"][j]["DiSCO"])
        assert _close(rows[j]["CAPd"], expected["allCAPs"][j]["CAPd"])


def test_cap_family_agrees_with_capkit_cap(report: dict) -> None:
    """DCAP = 100 x average CAP v1, and 100 x DCAP / iS = CAP v2, through two code paths (both
    reports in percent)."""
    files = [str(ORACLE / "orig.csv")] + [str(ORACLE / f"syn_{j}.csv") for j in range(1, 6)]
    result = CliRunner().invoke(main, ["cap", *files, "--keys", KEYS, "--targets",
                                       "depress,workab", "--format", "json", "-q"])
    assert result.exit_code == 0, result.output
    cap_rows = {r["index"]: r for r in _table(json.loads(result.stdout),
                                               "Average CAP by target")}
    family = {r["index"]: r for r in _table(report, "CAP family")}
    for target in ("depress", "workab"):
        assert _close(cap_rows[target]["CAP v1"], family[target]["CAP v1 (DCAP)"])
        assert _close(cap_rows[target]["CAP v2"], family[target]["CAP v2"])
        assert _close(cap_rows[target]["baseline"], family[target]["baseline"])
