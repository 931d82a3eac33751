"""nbval over the stored notebooks: name what runs, notebook by notebook, with its time; and
skip, with the reason, the notebooks whose data set cannot be had (no ``$CAPKIT_DATA``, no
cache, no network), as the tests that need it do."""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path

import pytest


@functools.cache
def _unavailable(name: str) -> str | None:
    """Why data set ``name`` cannot be loaded here (None when it can)."""
    from capkit.reproduce.runner import unavailable

    reason = unavailable(name)
    return None if reason is None else (
        f"notebook needs the {name} data, which could not be loaded (set CAPKIT_DATA to the "
        f"folder holding the data sets): {reason}")


@functools.cache
def _needs(path: str) -> tuple[str, ...]:
    from capkit.reproduce.runner import data_needed

    return data_needed(Path(path))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = str(item.path)
        if not path.endswith(".ipynb"):
            continue
        for name in _needs(path):
            reason = _unavailable(name)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
                break

_cells: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])  # passed, failed, seconds


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    entry = _cells[report.nodeid.split("::")[0]]
    entry[0 if report.passed else 1] += 1
    entry[2] += report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _cells:
        return
    terminalreporter.write_sep("-", "notebooks checked by nbval")
    for name, (passed, failed, seconds) in sorted(_cells.items()):
        status = f"{int(passed)} cells match" + (f", {int(failed)} FAIL" if failed else "")
        terminalreporter.write_line(f"{name:<44} {seconds:6.1f} s  {status}")
