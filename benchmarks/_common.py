"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/bench_X.py``, so
this folder is on ``sys.path`` and ``from _common import best_of`` works)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
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


def answers_here_and_there(script: str, answers: Callable[[], object],
                           other: str | Path | None = None,
                           extra: Sequence[str] = ()) -> tuple[object, object, Path]:
    """``answers()`` computed by this checkout and by another, each in a child process of
    ``script`` with that checkout first on ``PYTHONPATH``.

    Returns (this checkout's answers, the other's, the other checkout). The other checkout is
    ``other``, or else the first command-line argument. A child is ``script --write FILE
    *extra``: there this function pickles ``answers()`` into FILE and exits, so a script calls
    it from its ``main`` after parsing its own arguments (accepting ``--write``).
    """
    if "--write" in sys.argv:
        path = Path(sys.argv[sys.argv.index("--write") + 1])
        path.write_bytes(pickle.dumps(answers()))
        sys.exit(0)
    other = Path(other if other is not None else sys.argv[1]).resolve()
    script = str(Path(script).resolve())
    here = Path(script).parents[1]
    got = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, root in (("this", here), ("other", other)):
            path = Path(folder) / f"{name}.pkl"
            subprocess.run([sys.executable, script, "--write", str(path), *extra], check=True,
                           env={**os.environ, "PYTHONPATH": str(root)}, cwd=folder)
            got[name] = pickle.loads(path.read_bytes())
    return got["this"], got["other"], other
