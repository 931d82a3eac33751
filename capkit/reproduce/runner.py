"""Run the experiments: papermill executes each notebook with its parameters, the claims each
notebook writes are gathered into ``figures/claims.md`` and ``figures/claims.json``.

An experiment is a YAML file in ``experiments/``::

    name: cap_measure
    notebook: notebooks/01_cap_measure.ipynb
    parameters: {}            # full run
    quick_parameters: {}      # --quick (smaller, for a fast check)
    outputs: []               # figures the notebook must write (stems)
    seconds: 60               # optional: the full run's seconds, to start the longest first
    kernels: [rpart]          # optional: numba kernel families it shares with other notebooks

A quick run (``--quick``) writes its figures and ledger under ``build/quick/`` instead, so the
tracked ``figures/`` and ``figures/claims.md`` only ever hold full runs.

Executed copies go to ``build/executed/`` (kept out of git); the stored notebooks in
``notebooks/`` are refreshed with ``capkit reproduce --store`` (``make notebooks``).
"""

from __future__ import annotations

import functools
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from capkit.errors import CapkitError
from capkit.reproduce import claims as claims_mod
from capkit.reproduce import locators as locators_mod
from capkit.reproduce import uncheckable


@dataclass(frozen=True)
class Experiment:
    """One notebook run, as described by an ``experiments/*.yaml`` file."""

    name: str
    notebook: Path
    parameters: dict[str, Any] = field(default_factory=dict)
    quick_parameters: dict[str, Any] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()
    seconds: float | None = None
    kernels: tuple[str, ...] = ()


def load_experiments(root: Path) -> list[Experiment]:
    """All experiments under ``root/experiments``, ordered by notebook name (the claims'
    locators, ``experiments/locators*.yaml``, are data for the ledger page, not experiments)."""
    found = []
    for path in sorted((root / "experiments").glob("*.yaml")):
        if locators_mod.is_locator_file(path):
            continue
        spec = yaml.safe_load(path.read_text()) or {}
        for required in ("name", "notebook"):
            if required not in spec:
                raise CapkitError(f"experiment file {path.name} lacks {required!r}")
        found.append(Experiment(
            name=spec["name"], notebook=root / spec["notebook"],
            parameters=spec.get("parameters") or {},
            quick_parameters=spec.get("quick_parameters") or {},
            outputs=tuple(spec.get("outputs") or ()),
            seconds=float(spec["seconds"]) if spec.get("seconds") is not None else None,
            kernels=tuple(spec.get("kernels") or ()),
        ))
    return sorted(found, key=lambda e: e.notebook.name)


def strip_run_metadata(path: Path) -> None:
    """Remove papermill's timings from a notebook so stored copies are stable."""
    nb = json.loads(path.read_text())
    nb.get("metadata", {}).pop("papermill", None)
    for cell in nb.get("cells", []):
        cell.get("metadata", {}).pop("papermill", None)
        cell.get("metadata", {}).pop("execution", None)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


#: The loaders a notebook may call, and the data set each needs.
LOADERS = {"load_sd2011": "sd2011", "load_adult": "adult", "load_priveval": "priveval",
           "load_acs_excerpt": "sdnist"}


def data_needed(notebook: Path) -> tuple[str, ...]:
    """The data sets a notebook loads (its code cells name their loaders, :data:`LOADERS`)."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8")).get("cells", [])
    source = "".join("".join(c.get("source", [])) for c in cells if c.get("cell_type") == "code")
    return tuple(name for loader, name in LOADERS.items() if loader in source)


@functools.cache
def unavailable(name: str) -> str | None:
    """Why data set ``name`` cannot be loaded here (None when it can): no ``$CAPKIT_DATA``,
    no cache, no network. Tried once a session."""
    from capkit.data import datasets, priveval_data, sdnist_data

    loaders = {"priveval": lambda: priveval_data.load_priveval(progress=False),
               "sdnist": lambda: sdnist_data.load_acs_excerpt("ma2019")}
    try:
        loaders.get(name, lambda: getattr(datasets, f"load_{name}")(progress=False))()
    except Exception as exc:  # noqa: BLE001 - any failure means: it cannot be had, say why
        return str(exc)
    return None


def _check_data(experiments: list[Experiment]) -> None:
    """Refuse, before anything runs, experiments whose data cannot be loaded: naming them,
    why, and the ones that need no data (a run would stop at the first, after minutes)."""
    needs = {exp.name: data_needed(exp.notebook) for exp in experiments}  # each read once
    blocked: dict[str, list[str]] = {}
    for exp, names in needs.items():
        for name in names:
            if unavailable(name) is not None:
                blocked.setdefault(name, []).append(exp)
    if not blocked:
        return
    free = [exp for exp, names in needs.items() if not names]
    lines = [f"the {name} data could not be loaded, which {', '.join(names)} need: "
             f"{unavailable(name)}" for name, names in blocked.items()]
    raise CapkitError(
        "; ".join(lines) + ". Set CAPKIT_DATA to a folder holding the data files"
        + (f", or run the experiments that need none with --only ({', '.join(free)})"
           if free else ""))


@dataclass(frozen=True)
class Finished:
    """A notebook's end, as handed to the progress callback: wall and CPU seconds (``cpu``
    None when the run came from the cache, then ``ran`` holds the seconds of the run cached),
    its ledger (None with ``store``), and its place among the notebooks of the run."""

    seconds: float
    cpu: float | None
    ledger: claims_mod.Ledger | None
    done: int
    total: int
    ran: float | None = None


#: Called after each notebook: (experiment, how it ended).
Progress = Callable[[Experiment, Finished], None]


def run(
    root: Path,
    *,
    quick: bool = False,
    only: str | None = None,
    store: bool = False,
    jobs: int = 1,
    cache: bool = True,
    on_notebook: Progress | None = None,
    on_warm: Callable[[Any], None] | None = None,
) -> list[claims_mod.Ledger]:
    """Execute the experiments and write the claims ledger.

    Parameters
    ----------
    root
        Project folder (holds ``experiments/``, ``notebooks/``, ``figures/``).
    quick
        Use each experiment's ``quick_parameters`` on top of its ``parameters``; figures and
        the ledger then go to :func:`output_folder` (``build/quick/``), never to ``figures/``.
    only
        Run only the experiment with this name.
    store
        Execute the notebooks in place (refreshing their stored outputs) instead of into
        ``build/executed`` (never from the cache).
    jobs
        Notebooks run at once, each in its own kernel, the longest expected first
        (:mod:`capkit.reproduce.schedule`); the results do not depend on it.
    cache
        Take a notebook's claims, figures and executed copy from ``build/cache`` when a run
        with the same notebook, parameters, code and data was cached, and cache every run
        (:mod:`capkit.reproduce.cache`); False neither reads nor writes the cache.
    on_notebook
        Called after each notebook with the experiment and its :class:`Finished` record: the
        command prints one line per notebook from it. The kernels' own messages go to
        ``build/executed/<name>.kernel.log``.
    on_warm
        Called with each :class:`capkit.reproduce.schedule.Warmed` record: with more than one
        job, the numba kernel families the notebooks to be run declare (``kernels:``) are
        compiled once, each notebook starting when its families have been
        (:mod:`capkit.reproduce.precompile`).

    Returns
    -------
    The ledgers of the experiments run, in the experiments' order.
    """
    from capkit.reproduce import cache as cache_mod
    from capkit.reproduce import schedule

    if jobs < 1:
        raise CapkitError(f"jobs must be at least 1, got {jobs}")
    experiments = load_experiments(root)
    if only is not None:
        experiments = [e for e in experiments if e.name == only]
        if not experiments:
            raise CapkitError(f"no experiment named {only!r} in {root / 'experiments'}")
    _check_data(experiments)
    figures = output_folder(root, quick)
    claims_dir = root / "build" / "claims"
    executed = root / "build" / "executed"
    executed.mkdir(parents=True, exist_ok=True)
    use_cache = cache and not store
    if use_cache:
        code, data = cache_mod.code_digest(), cache_mod.data_digest(root)
    by_name = {exp.name: exp for exp in experiments}
    tasks, entries, ledgers = {}, {}, {}
    counter = {"done": 0}
    times: dict[str, float] = {}

    def finish(exp: Experiment, seconds: float, cpu: float | None,
               ran: float | None = None) -> None:
        claims_path = claims_dir / f"{exp.name}.json"
        ledger = None
        if not store:
            if not claims_path.exists():
                raise CapkitError(f"notebook {exp.notebook.name} wrote no claims to "
                                  f"{claims_path}")
            missing = [s for s in exp.outputs if not (figures / f"{s}.png").exists()]
            if missing:
                raise CapkitError(f"notebook {exp.notebook.name} did not write figures "
                                  f"{missing}")
            ledger = ledgers[exp.name] = claims_mod.load(claims_path)
        counter["done"] += 1
        if on_notebook is not None:
            on_notebook(exp, Finished(seconds, cpu, ledger, counter["done"], len(experiments),
                                      ran))

    for exp in experiments:
        parameters = dict(exp.parameters)
        if quick:
            parameters.update(exp.quick_parameters)
        claims_path = claims_dir / f"{exp.name}.json"
        claims_path.unlink(missing_ok=True)
        output = exp.notebook if store else executed / exp.notebook.name
        staging = root / "build" / "staging" / exp.name
        if not store:  # stored notebooks keep their default, relative parameters
            parameters["claims_path"] = str(claims_path.resolve())
            parameters["figures_dir"] = str(staging.resolve())
        if use_cache:
            # the key leaves out where the claims and figures go (build paths of this root)
            shown = {k: v for k, v in parameters.items() if k not in ("claims_path",
                                                                       "figures_dir")}
            entry = cache_mod.Entry.at(root, cache_mod.run_key(
                exp.notebook, {"quick": quick, **shown}, code=code, data=data))
            if entry.complete():
                begin = time.perf_counter()
                entry.restore(claims_path, output, figures)
                finish(exp, time.perf_counter() - begin, None, ran=entry.seconds())
                continue
            entries[exp.name] = entry
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        tasks[exp.name] = schedule.Task(
            exp.name, str(exp.notebook), str(output), parameters, str(exp.notebook.parent),
            str(executed / f"{exp.name}.kernel.log"), exp.kernels)

    expected = {e.name: e.seconds for e in experiments if e.seconds is not None}
    expected.update(schedule.load_times(root, quick))
    stopped: list[BaseException] = []

    def done(outcome: schedule.Outcome) -> bool:
        exp = by_name[outcome.name]
        claims_path = claims_dir / f"{exp.name}.json"
        staging = Path(tasks[exp.name].parameters.get("figures_dir", ""))
        if outcome.ename is not None:
            # a notebook ends with `assert ledger.ok` after saving its claims: a claim whose
            # verdict is not the declared one stops it there. Its ledger is then gathered with
            # the others (the command exits non-zero on it); any other error stops the run.
            if store or not _stopped_by_its_claims(outcome.ename, claims_path):
                stopped.append(outcome.exception or CapkitError(
                    f"notebook {exp.notebook.name} failed: {outcome.error}"))
                return False
        elif exp.name in entries and cache_mod.code_digest() == code:
            # (code edited while the run went on: its notebooks are not cached)
            entries[exp.name].store(exp.name, outcome.seconds, claims_path,
                                    Path(tasks[exp.name].output), staging)
        if store:
            strip_run_metadata(Path(tasks[exp.name].output))
        else:
            cache_mod.copy_figures(staging, figures)
        times[exp.name] = outcome.seconds
        finish(exp, outcome.seconds, outcome.cpu)
        return True

    order = schedule.longest_first(list(tasks), expected)
    warmups = warmups_for([by_name[name] for name in order]) if jobs > 1 else []
    try:
        schedule.run_tasks([tasks[name] for name in order], jobs, done, warmups=warmups,
                           on_warm=on_warm)
    finally:
        if times:
            schedule.save_times(root, quick, times)
    if stopped:
        raise stopped[0]
    final = [ledgers[e.name] for e in experiments if e.name in ledgers]
    if not store:
        write_ledger(root, only_update=only is not None, ledgers=final, quick=quick)
    return final


def warmups_for(experiments: list[Experiment]) -> list[str]:
    """The kernel families ``experiments`` declare (``kernels:``), each once, the longest to
    compile first (:data:`capkit.reproduce.precompile.SECONDS`); a name no warm-up exists for
    raises."""
    from capkit.reproduce.precompile import FAMILIES, SECONDS

    names = sorted({k for e in experiments for k in e.kernels})
    unknown = [k for k in names if k not in FAMILIES]
    if unknown:
        raise CapkitError(f"experiments declare kernels {unknown}: no warm-up for them in "
                          f"capkit.reproduce.precompile (known: {sorted(FAMILIES)})")
    return sorted(names, key=lambda k: -SECONDS.get(k, 0.0))


def _stopped_by_its_claims(ename: str, claims_path: Path) -> bool:
    """True when a notebook stopped (raising ``ename``) on its final ``assert ledger.ok``
    after writing a ledger that holds a claim whose verdict is not the declared one."""
    if ename != "AssertionError" or not claims_path.exists():
        return False
    return not claims_mod.load(claims_path).ok


def output_folder(root: Path, quick: bool = False) -> Path:
    """Where a run writes its figures and ledger: ``figures/`` for a full run (tracked),
    ``build/quick/`` for a quick one (never tracked)."""
    return root / "build" / "quick" if quick else root / "figures"


def write_ledger(root: Path, *, ledgers: list[claims_mod.Ledger], only_update: bool,
                 quick: bool = False) -> None:
    """Write ``claims.md`` and ``claims.json`` from the ledgers into :func:`output_folder`
    (``figures/``, or ``build/quick/`` for a quick run).

    With ``only_update`` the ledgers of experiments not run this time are kept from the
    previous ``claims.json`` of the same folder.
    """
    folder = output_folder(root, quick)
    out_json = folder / "claims.json"
    by_name: dict[str, claims_mod.Ledger] = {}
    if only_update and out_json.exists():
        for payload in json.loads(out_json.read_text()):
            by_name[payload["name"]] = claims_mod.Ledger.from_dict(payload)
    for ledger in ledgers:
        by_name[ledger.name] = ledger
    experiments = load_experiments(root)
    order = [e.name for e in experiments]
    final = sorted(by_name.values(),
                   key=lambda lg: order.index(lg.name) if lg.name in order else len(order))
    out_json.parent.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps([lg.to_dict() for lg in final], indent=1, sort_keys=True)
                        + "\n")
    page = locators_mod.ledger_page(
        final, locators_mod.load_locators(root),
        notebooks={e.name: e.notebook for e in experiments}, folder=folder)
    declared = root / "experiments" / "ledger" / "uncheckable.yaml"
    if declared.exists():  # the papers' numbers no claim can check, with the reason
        page += "\n" + uncheckable.markdown(uncheckable.load(declared))
    (folder / "claims.md").write_text(page)
