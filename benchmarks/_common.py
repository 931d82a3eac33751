"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/bench_X.py``, so
this folder is on ``sys.path`` and ``from _common import best_of`` works)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def timed(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    """The best wall time of ``repeat`` calls of ``fn``, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """The best wall time of ``repeat`` calls of ``fn``."""
    return timed(fn, repeat)[0]


def answers_here_and_there(script: str, answers: Callable[[], object]) -> tuple[object, object,
                                                                               Path]:
    """``answers()`` computed by this checkout and by the checkout named on the command line,
    each in a child process of ``script`` with that checkout first on ``PYTHONPATH``.

    The script calls this from its ``main``: run as ``python script OTHER`` it returns (this
    checkout's answers, the other's, OTHER); in a child (``--write FILE``) it pickles
    ``answers()`` into FILE and exits.
    """
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        Path(sys.argv[2]).write_bytes(pickle.dumps(answers()))
        sys.exit(0)
    other = Path(sys.argv[1]).resolve()
    here = Path(script).resolve().parents[1]
    got = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, root in (("this", here), ("other", other)):
            path = Path(folder) / f"{name}.pkl"
            subprocess.run([sys.executable, script, "--write", str(path)], check=True,
                           env={**os.environ, "PYTHONPATH": str(root)}, cwd=folder)
            got[name] = pickle.loads(path.read_bytes())
    return got["this"], got["other"], other
