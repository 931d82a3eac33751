"""A second process for the audit's searches over record pairs.

Most of an audit is pandas and numpy work that holds one core. On a machine with two cores
or more, the steps of the four families whose work grows with members x synthetic records
(:data:`AWAY`: distance to closest record, singling out, linkability, membership inference)
run in a second process (:mod:`capkit.processes`: spawned, kept for the next audit of the
session; one thread while this process has work of its own, then all of them) while this one
runs synthpop's measures, the attribute attacks and the original's exposure, then takes back
the steps not sent yet.

A step computes there exactly what it computes here: the same function
(:func:`run_step`) on the same frames, whose results depend neither on the process nor on
the thread count (``docs/scale.md``). The audit puts the steps' findings, failures and
per-record evidence back in the order of a run in one process, so its result is the same
either way (a test compares both). Where no second process can be had, or it dies, a step
runs here instead.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import pandas as pd

from capkit import processes
from capkit.audit import at_risk
from capkit.audit.failures import Failure, describe
from capkit.audit.findings import Finding
from capkit.audit.membership_family import membership_findings
from capkit.audit.pair_families import anonymeter_family, distance_family
from capkit.audit.sampling import RecordSample
from capkit.errors import CapkitError

__all__ = ["AWAY", "PARALLEL_CELLS", "Away", "Step", "run_step", "workers_for"]

#: The families whose steps may run in the second process.
AWAY = ("distance", "singling out", "linkability", "membership inference")

#: The order the steps are sent in (the second process works from the first, this one takes
#: back from the last): the families whose compiled kernels take longest to load on a first
#: call (membership inference, then the distances) go to the second process, and singling
#: out, plain numpy, is what this one takes back first.
SENT_FIRST = ("membership inference", "distance", "linkability", "singling out")

#: Members x synthetic records (summed over the syntheses) x columns from which a second
#: process pays for starting it (about 1.4 s of one core to start and import the record-pair
#: families): Adult's report (22,793 members, three syntheses, 15 columns) has 2.3e10, a
#: 5,000 x 100 table with two syntheses 2.5e9, the tests' small tables far less.
PARALLEL_CELLS = 1 << 30

#: Evidence fields the away families fill (:class:`capkit.audit.at_risk.Evidence`).
_EVIDENCE = ("distance", "near_cut", "holdout_distance", "queries")


@dataclass
class Step:
    """What one (family, synthesis) step gave: its findings, the numeric columns whose
    missing values the distance scored as a level, its failure (None when it was measured), the
    per-record evidence it filled, and its seconds."""

    found: list[Finding]
    gaps: tuple[str, ...]
    failure: Failure | None
    evidence: at_risk.Evidence | None
    seconds: float
    #: The warnings a step gave in the second process (category, message), given again here.
    warned: tuple[tuple[type[Warning], str], ...] = ()


def run_step(family: str, name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
             holdout: pd.DataFrame | None, keys: list[str], seed: int, confidence: float,
             samples: tuple[RecordSample, RecordSample | None],
             keep: at_risk.Evidence | None, families: Sequence[str],
             progress: bool = False) -> Step:
    """One step of an :data:`AWAY` family on synthesis ``name`` (the audit's own arguments);
    a :class:`~capkit.errors.CapkitError` becomes the step's :class:`Failure`."""
    start = time.perf_counter()
    gaps: Sequence[str] = ()
    try:
        if family == "distance":
            found, gaps = distance_family(name, original, synthetic, holdout, confidence,
                                          samples, progress, keep)
        elif family == "membership inference":
            found = membership_findings(
                name, samples[0].take(original), synthetic,
                None if holdout is None else samples[1].take(holdout), seed, confidence)
        else:
            found = [anonymeter_family(name, original, synthetic, holdout, keys, seed,
                                       confidence, family, samples, keep, progress)]
    except CapkitError as exc:  # judge the others; list this one with its error
        return Step([], (), describe(exc, name, family, families), keep,
                    time.perf_counter() - start)
    return Step(found, tuple(gaps), None, keep, time.perf_counter() - start)


def _away_step(family: str, name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
               holdout: pd.DataFrame | None, keys: list[str], seed: int, confidence: float,
               samples: tuple[RecordSample, RecordSample | None], keeps: bool,
               families: Sequence[str], threads: int) -> Step:
    """:func:`run_step` in the second process on ``threads`` of numba's threads, with evidence
    of its own to send back."""
    processes.threads(threads)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = run_step(family, name, original, synthetic, holdout, keys, seed, confidence,
                        samples, at_risk.Evidence() if keeps else None, families)
    step.warned = tuple((w.category, str(w.message)) for w in caught)
    return step


def workers_for(workers: int | None, original: pd.DataFrame,
                named: Mapping[str, pd.DataFrame], families: Sequence[str]) -> int:
    """Processes for an audit: ``workers`` when given (1 or 2; more are not used), else 2 when
    the families mix :data:`AWAY` ones with others, the machine has two cores or more and the
    work reaches :data:`PARALLEL_CELLS`; else 1."""
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise CapkitError(f"workers must be a positive integer or None, got {workers!r}")
        return min(workers, 2)
    away = set(families) & set(AWAY)
    if not away or away == set(families) or processes.cores() < 2:
        return 1
    cells = len(original) * sum(len(f) for f in named.values()) * max(original.shape[1], 1)
    return 2 if cells >= PARALLEL_CELLS else 1


class Away:
    """The :data:`AWAY` steps of one audit, sent to the second process one at a time in their
    order (the next as soon as one is done), while this process takes back the last ones not
    sent yet (:meth:`steal`) once its own work is done; results are taken in the order of a
    run in one process (:meth:`take`)."""

    def __init__(self, steps: Sequence[tuple[str, str]], args: Callable[[str, str], tuple]
                 ) -> None:
        self.futures: dict[tuple[str, str], Future] = {}
        self.queue = deque(steps)
        self.sent: list[tuple[str, str]] = []  # in the order they were sent
        self.own_done = False  # whether this process has done its own steps
        self.args = args
        self.lock = threading.Lock()
        try:
            self.executor = processes.executor()
        except Exception:  # noqa: BLE001 (no second process: the steps run here)
            self.executor = None
        self._send()

    def _send(self) -> None:
        """Send the next step (called again when it is done)."""
        with self.lock:
            if self.executor is None or not self.queue:
                return
            step = self.queue.popleft()
            try:
                # one thread while this process does its own (mostly pandas) work, all of them
                # once both only take steps: a long step sent last then ends sooner
                future = self.executor.submit(_away_step, *self.args(*step),
                                              processes.cores() if self.own_done else 1)
            except Exception:  # noqa: BLE001 (the process is gone: the rest run here)
                self.queue.appendleft(step)
                self.executor = None
                return
            self.futures[step] = future
            self.sent.append(step)
        future.add_done_callback(lambda _: self._send())

    def steal(self) -> tuple[str, str] | None:
        """The last step not sent yet, taken back to run here (its result is then ``here()``
        in :meth:`take`); None when every step was sent."""
        with self.lock:
            self.own_done = True  # this process has done its own steps: a peer from now on
            return self.queue.pop() if self.queue else None

    def take(self, family: str, name: str, here: Callable[[], Step],
             keep: at_risk.Evidence | None) -> Step:
        """The step's result from the second process, its evidence copied into ``keep`` and
        its warnings given again here; ``here()`` when it was not sent or did not come back
        (the process died, or could not run it: an error of the step itself is then raised
        here, with this process's traceback)."""
        with self.lock:
            future = self.futures.get((family, name))
        if future is None:
            return here()
        try:
            step = future.result()
        except Exception:  # noqa: BLE001 - the process died or could not run it (a notebook
            return here()  # whose capkit it cannot import, say); a step's own error recurs here
        for category, message in step.warned:  # where the caller collects them
            warnings.warn(message, category, stacklevel=2)
        if keep is not None and step.evidence is not None:
            for name_ in _EVIDENCE:
                value = getattr(step.evidence, name_)
                if value is not None:
                    setattr(keep, name_, value)
        return step
