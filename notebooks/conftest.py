"""nbval over the stored notebooks: name what runs, notebook by notebook, with its time."""

from __future__ import annotations

from collections import defaultdict

import pytest

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
