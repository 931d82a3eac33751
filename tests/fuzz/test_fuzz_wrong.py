"""One fixed seed of tests/fuzz/fuzz_wrong.py in the normal suite: every plausible-wrong input
at every command that takes it, in text and json, is refused or warned about by name, and no
input file changes; and checks that its check does catch a confident verdict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_wrong  # noqa: E402


@pytest.mark.parametrize("trap", list(fuzz_wrong.COMMANDS))
def test_fixed_seed(tmp_path: Path, trap: str) -> None:
    only = [(trap, c) for c in fuzz_wrong.COMMANDS[trap]]
    assert fuzz_wrong.run_all(20261129, tmp_path, only=only) == []


def test_the_check_catches_a_confident_verdict() -> None:
    run = fuzz_wrong.Run("size", "disclosure", "text", [], [])
    assert fuzz_wrong.check(run, 0, "repU 0.00%\n", "") != []
    assert fuzz_wrong.check(run, 0, "", "Warning: synthetic file s.csv has 10 times the "
                                        "original's records") == []
    assert fuzz_wrong.check(run, 1, "", "Error: column 'age' is empty") != []
    assert fuzz_wrong.check(run, 1, "", "Traceback (most recent call last)") != []
