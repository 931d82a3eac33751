"""The second process that long work shares a machine's cores with (:mod:`capkit.audit.parallel`).

joblib's reusable loky process: spawned, not forked (numba's OpenMP threads are not fork safe),
BLAS on one thread, numba's threads set per task (:func:`threads`; no result of capkit depends
on the thread count, ``docs/scale.md``), and kept for the next piece of work of the session for
:data:`IDLE_SECONDS`. Starting it costs about 1.4 s of one core (Python and capkit's imports), so
work that will need it starts it first (:func:`warm`) and does its own reading meanwhile.

This module imports nothing heavy: the command line can start the process before it imports
the measures.
"""

from __future__ import annotations

import os

__all__ = ["ENVIRONMENT", "IDLE_SECONDS", "cores", "executor", "started", "stop", "threads",
           "warm"]

#: Seconds an idle second process is kept for the next piece of work.
IDLE_SECONDS = 300

#: The second process's environment: BLAS on one thread (numba's threads: :func:`threads`), and
#: OpenMP threads that sleep when idle instead of spinning, so that they leave the cores to the
#: other process (on Adult's report a first call took 6.1-6.3 s with spinning threads, 5.5 s
#: without).
ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}


def cores() -> int:
    """Cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


#: The second process's executor, once started (a list: set and cleared in place).
_POOL: list = []


def executor():  # noqa: ANN201 (loky's executor class is private)
    """The second process's executor (started on first use, started again if it broke).

    capkit's own loky executor, not loky's shared reusable one: joblib's ``Parallel`` reuses
    that one with state of its own (its temporary folders), and fails on one it did not make.
    """
    from joblib.externals.loky.process_executor import ProcessPoolExecutor

    flags = getattr(_POOL[0], "_flags", None) if _POOL else None
    if flags is None or flags.broken or flags.shutdown:
        _POOL[:] = [ProcessPoolExecutor(max_workers=1, timeout=IDLE_SECONDS,
                                        env=dict(ENVIRONMENT))]
    return _POOL[0]


def started() -> bool:
    """Whether this session has started the second process (and not stopped it)."""
    return bool(_POOL)


def stop() -> None:
    """End the second process now, if one was started (a command that is done with it:
    otherwise Python's exit waits for it to wind down)."""
    if _POOL:
        _POOL.pop().shutdown(wait=True)


def threads(count: int) -> None:
    """Run in the second process before a task: numba computes on ``count`` threads (at most
    as many as it started with)."""
    import numba

    numba.set_num_threads(max(1, min(count, numba.config.NUMBA_NUM_THREADS)))


def _import(modules: tuple[str, ...]) -> int:
    """Run in the second process: import ``modules`` ahead of the work that needs them."""
    import importlib

    for name in modules:
        importlib.import_module(name)
    return os.getpid()


def warm(modules: tuple[str, ...] = ("capkit.audit.parallel",)) -> None:
    """Start the second process now and have it import ``modules``, so that the work that
    follows finds it ready; nothing on a one-core machine or where no process can be
    started."""
    if cores() < 2:
        return
    try:
        executor().submit(_import, tuple(modules))
    except Exception:  # noqa: BLE001 (no second process: the work runs in this one)
        return
