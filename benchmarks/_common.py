"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/bench_X.py``, so
this folder is on ``sys.path`` and ``from _common import best_of`` works)."""

from __future__ import annotations

import time
from collections.abc import Callable


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
