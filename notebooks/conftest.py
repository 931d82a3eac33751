"""nbval over the stored notebooks: name what runs, notebook by notebook, with its time; and
skip, with the reason, the notebooks whose data set cannot be had (no ``$CAPKIT_DATA``, no
cache, no network), as the tests that need it do."""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from pathlib import Path

import pytest

#: The loaders a notebook may call, and the data set each needs.
LOADERS = {"load_sd2011": "sd2011", "load_adult": "adult", "load_priveval": "priveval"}


@functools.cache
def _unavailable(name: str) -> str | None:
    """Why data set ``name`` cannot be loaded here (None when it can); tried once a session."""
    from capkit.data import datasets, priveval_data

    module = priveval_data if name == "priveval" else datasets
    try:
        getattr(module, f"load_{name}")(progress=False)
    except Exception as exc:  # noqa: BLE001 - any failure means: skip, saying why
        return (f"notebook needs the {name} data, which could not be loaded (set CAPKIT_DATA "
                f"to a folder with the .rda files): {exc}")
    return None


@functools.cache
def _needs(path: str) -> tuple[str, ...]:
    cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    source = "".join("".join(c.get("source", [])) for c in cells if c.get("cell_type") == "code")
    return tuple(name for loader, name in LOADERS.items() if loader in source)


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
