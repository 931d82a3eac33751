"""A few fixed-seed cases of tests/fuzz/fuzz_cli.py (one per command) in the normal suite, and
checks that its checks do catch what they look for."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_cli  # noqa: E402


@pytest.mark.parametrize("j", range(len(fuzz_cli.COMMANDS)))
def test_fixed_seed_case(tmp_path: Path, j: int) -> None:
    case = fuzz_cli.make_case(20261129 + j, tmp_path, fuzz_cli.COMMANDS[j])
    assert fuzz_cli.run_case(case) == []


def test_the_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    markdown = "| a |\n|---|\n| <img src=x onerror=alert(1)> |\n\n[x](javascript:alert(1))\n"
    found = fuzz_cli.check_output("markdown", markdown)
    assert any("onerror" in p for p in found) and any("javascript:" in p for p in found)
    assert any("<script>" in p for p in fuzz_cli.check_output(
        "html", "<html><body><script>alert(1)</script></body></html>"))
    assert fuzz_cli.check_output("text", "fine\x1b[2J") == [
        "text: raw control characters [\"'\\\\x1b'\"]"]
    assert fuzz_cli.check_output("json", "{\"a\": 1,}")[0].startswith("json does not parse")
    path = tmp_path / "r.csv"
    pd.DataFrame({"a": ["=1+1", "-3", "ok", "'=2"], "-b": [1, 2, 3, 4]}).to_csv(path,
                                                                              index=False)
    assert fuzz_cli.formula_cells(path) == ["-b", "=1+1"]
    # capkit's own markdown and pages pass
    assert fuzz_cli.check_output("markdown", "# T\n\n| a |\n|---|\n| 1 |\n\n```\ncmd\n```\n") == []
