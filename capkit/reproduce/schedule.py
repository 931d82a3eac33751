"""Run notebooks one after the other or several at once, the longest first.

Each notebook runs in its own Jupyter kernel (a process of its own), so independent notebooks
can run side by side: with ``jobs`` workers, the notebooks expected to take longest start first
(longest-processing-time-first, Graham 1969, "Bounds on multiprocessing timing anomalies"),
so the run ends close to ``max(longest notebook, total / jobs)``. A notebook's expected time is
its last recorded one (``build/reproduce-times.json``), else the hint ``seconds`` of its
experiment file; notebooks with neither start last. The order changes no result: each
notebook reads its own inputs and writes its own claims and figures.

Before the notebooks, the warm-ups of the numba kernels the run's notebooks share
(:mod:`capkit.reproduce.precompile`) run on the same workers, longest first, and a notebook
starts once the families it declares have been compiled: each shared kernel is compiled once,
not once per notebook that happens to need it at the same time as another.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

__all__ = ["ENGINE", "Outcome", "Task", "Warmed", "execute", "first_ready", "load_times",
           "longest_first", "run_tasks", "save_times", "warm"]


@dataclass(frozen=True)
class Task:
    """One notebook to execute: papermill's input, output, parameters and working folder, and
    the kernel families (:mod:`capkit.reproduce.precompile`) it waits for when they are warmed
    up in the same run."""

    name: str
    notebook: str
    output: str
    parameters: dict[str, Any]
    cwd: str
    kernel_log: str
    kernels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """How a task ended: wall and CPU seconds (the kernel's and the driver's), and the error
    papermill raised (its exception name and text), if any."""

    name: str
    seconds: float
    cpu: float
    ename: str | None = None
    error: str | None = None
    exception: BaseException | None = None


@dataclass(frozen=True)
class Warmed:
    """How the warm-up of one family of kernels ended: wall and CPU seconds, and the text of
    the error it raised, if any (a failed warm-up stops nothing: the notebooks then compile
    what they need themselves)."""

    name: str
    seconds: float
    cpu: float
    error: str | None = None


def warm(name: str) -> Warmed:
    """Run the warm-up of kernel family ``name`` (:func:`capkit.reproduce.precompile.warm`)
    in this process."""
    from capkit.reproduce import precompile

    start, cpu = time.perf_counter(), time.process_time()
    error = None
    try:
        precompile.warm(name)
    except Exception as exc:  # noqa: BLE001 - reported, never fatal: only a speed-up
        error = f"{type(exc).__name__}: {exc}"
    return Warmed(name, time.perf_counter() - start, time.process_time() - cpu, error)


def _kernel_manager_logging_to(log: Path, killed: list[float] | None = None) -> type:
    """A Jupyter kernel manager whose kernel writes its own stderr (transport warnings, shutdown
    messages) to ``log`` instead of the terminal. Errors raised in cells still reach papermill,
    which reports them with the cell.

    Before the kernel is killed, the CPU seconds of the processes it started that are still
    alive (capkit's second process, :mod:`capkit.processes`) are appended to ``killed``: killed
    with it, they are never reaped by the kernel, so their time would be missing from the
    kernel's."""
    from jupyter_client.manager import AsyncKernelManager  # heavy: only when notebooks run

    class LoggedKernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            with log.open("ab") as handle:
                kw["stderr"] = handle
                await super()._async_launch_kernel(kernel_cmd, **kw)

        async def _async_kill_kernel(self, restart: bool = False) -> None:
            process = getattr(self.provisioner, "process", None)
            if killed is not None and process is not None:
                killed.append(_descendants_cpu(process.pid))
            await super()._async_kill_kernel(restart=restart)

    return LoggedKernelManager


#: The papermill engine :func:`execute` runs notebooks with (registered on first use).
ENGINE = "capkit"


def _register_engine() -> None:
    """Register :data:`ENGINE`: papermill's nbclient engine, writing the executed notebook when
    the run starts and when it ends (papermill writes it in full at each cell's start and end
    too: a JSON dump and a schema validation of a growing notebook, three quarters of the
    papermill process's own CPU on a notebook with many figures). What papermill writes last,
    the file a run leaves, is the same; a notebook that fails is still written with its error."""
    from papermill.engines import NBClientEngine, papermill_engines

    class FewSavesEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man: Any, kernel_name: str, **kw: Any) -> Any:
            nb_man.save = lambda **_: None  # the cells' saves; notebook_complete's is the class's
            try:
                return super().execute_managed_notebook(nb_man, kernel_name, **kw)
            finally:
                del nb_man.save

    papermill_engines.register(ENGINE, FewSavesEngine)


def _descendants_cpu(pid: int) -> float:
    """CPU seconds of the living descendants of process ``pid`` (and of the children they
    reaped); 0 when psutil (a dependency of ipykernel) cannot tell."""
    try:
        import psutil

        total = 0.0
        for child in psutil.Process(pid).children(recursive=True):
            try:
                t = child.cpu_times()
            except psutil.Error:  # ended meanwhile: reaped by its parent, counted there
                continue
            total += t.user + t.system + t.children_user + t.children_system
        return total
    except Exception:  # noqa: BLE001 - a measurement only: never stop a run for it
        return 0.0


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the kernels, once reaped
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def execute(task: Task, keep_exception: bool = True) -> Outcome:
    """Execute one notebook with papermill (in this process; its kernel is a child process).

    The kernel is killed as soon as its last cell has answered (nbclient's ``shutdown_kernel =
    "immediate"``): every output has been received by then, and the files the cells wrote
    (claims, figures) were closed by the cells themselves. A graceful shutdown spent about
    half a CPU-second per notebook tearing down the kernel's imports, and up to a second of
    wall time waiting for it; exit hooks registered by a cell do not run.

    An error papermill raises is returned, not raised: with ``keep_exception`` the exception
    itself, else its name and text only (what a worker process can send back)."""
    import papermill

    _register_engine()
    Path(task.kernel_log).unlink(missing_ok=True)
    start, cpu = time.perf_counter(), _cpu_seconds()
    ename = error = None
    exception: BaseException | None = None
    killed: list[float] = []
    try:
        papermill.execute_notebook(
            task.notebook, task.output, parameters=task.parameters, cwd=task.cwd,
            progress_bar=False, kernel_name="python3", engine_name=ENGINE,
            shutdown_kernel="immediate",
            kernel_manager_class=_kernel_manager_logging_to(Path(task.kernel_log), killed))
    except Exception as exc:  # noqa: BLE001 - handed to the caller, who decides
        ename, error = getattr(exc, "ename", type(exc).__name__), str(exc)
        exception = exc if keep_exception else None
    return Outcome(task.name, time.perf_counter() - start,
                   _cpu_seconds() - cpu + sum(killed), ename, error, exception)


def _execute_in_worker(task: Task) -> Outcome:
    return execute(task, keep_exception=False)


def longest_first(names: Sequence[str], expected: dict[str, float]) -> list[str]:
    """``names`` in the order to start them: by expected seconds, longest first, then those
    without an expected time (the long notebooks carry a hint: the others are short), each in
    their order among equals."""
    known = sorted((n for n in names if n in expected), key=lambda n: -expected[n])
    return known + [n for n in names if n not in expected]


def first_ready(queue: Sequence[Task], pending: set[str]) -> Task | None:
    """The first task of ``queue`` none of whose kernel families is in ``pending`` (being
    warmed up), or None."""
    return next((t for t in queue if not pending.intersection(t.kernels)), None)


def run_tasks(tasks: Iterable[Task], jobs: int,
              on_done: Callable[[Outcome], bool], warmups: Sequence[str] = (),
              on_warm: Callable[[Warmed], None] | None = None) -> None:
    """Execute ``tasks`` in the order given, ``jobs`` at a time, calling ``on_done`` with each
    outcome as it ends (in the calling process). ``on_done`` returns False to stop: no further
    task starts, and those running are let finish (their outcomes are still handed over).

    The kernel families ``warmups`` (:func:`warm`) run first, in that order, on the same
    workers, each once (``on_warm`` is called with each as it ends). A task starts on a free
    worker once every family of its ``kernels`` that is warmed up in this run has ended: the
    first task in the order given that may start does (a worker that has finished its warm-ups
    starts a notebook needing only those while the other still compiles; the notebook never
    compiles a family being compiled elsewhere).

    ``jobs == 1`` runs everything in this process; more start that many worker processes
    (spawned: no state of this process is shared with them)."""
    queue = list(tasks)
    if jobs <= 1:
        for name in warmups:
            warmed = warm(name)
            if on_warm is not None:
                on_warm(warmed)
        for task in queue:
            if not on_done(execute(task)):
                return
        return
    pending = set(warmups)  # families warmed up in this run and not ended yet
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        running: set[Future[Any]] = set()
        warming = list(warmups)
        going = True
        while queue or running or warming:
            while len(running) < jobs and warming:
                running.add(pool.submit(warm, warming.pop(0)))
            while going and len(running) < jobs:
                task = first_ready(queue, pending)
                if task is None:
                    break
                queue.remove(task)
                running.add(pool.submit(_execute_in_worker, task))
            if not running:
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                result = future.result()
                if isinstance(result, Warmed):
                    pending.discard(result.name)
                    if on_warm is not None:
                        on_warm(result)
                else:
                    going = on_done(result) and going
            if not going:
                queue.clear()


def _times_path(root: Path) -> Path:
    return Path(root) / "build" / "reproduce-times.json"


def load_times(root: Path, quick: bool) -> dict[str, float]:
    """The seconds each notebook took when it last ran (full or quick runs apart)."""
    path = _times_path(root)
    if not path.exists():
        return {}
    try:
        recorded = json.loads(path.read_text())
    except ValueError:  # a file cut short: no times
        return {}
    return {str(k): float(v) for k, v in recorded.get("quick" if quick else "full", {}).items()}


def save_times(root: Path, quick: bool, times: dict[str, float]) -> None:
    """Record ``times`` (merged into the times already recorded)."""
    path = _times_path(root)
    recorded: dict[str, dict[str, float]] = {}
    if path.exists():
        try:
            recorded = json.loads(path.read_text())
        except ValueError:
            recorded = {}
    side = "quick" if quick else "full"
    recorded[side] = {**recorded.get(side, {}), **{k: round(v, 1) for k, v in times.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
