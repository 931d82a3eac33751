"""`capkit reproduce --jobs N` compiles the numba kernels its notebooks share once, before them
(capkit.reproduce.precompile): the warm-ups run first and each once, only the families the
notebooks to be run declare, and after a family's warm-up the measures' own calls compile no
further signature (else the notebooks would compile them again)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from capkit.errors import CapkitError
from capkit.reproduce import precompile, runner, schedule

ROOT = Path(__file__).resolve().parents[1]


def _task(name: str) -> schedule.Task:
    return schedule.Task(name, "nb.ipynb", "out.ipynb", {}, ".", "log")


def test_the_warm_ups_run_first_each_once_then_the_notebooks(monkeypatch):
    events: list[str] = []
    monkeypatch.setattr(precompile, "FAMILIES", {"a": lambda: events.append("warm a"),
                                                 "b": lambda: events.append("warm b")})
    monkeypatch.setattr(schedule, "execute", lambda task, keep_exception=True: (
        events.append(task.name), schedule.Outcome(task.name, 0.0, 0.0))[1])
    warmed: list[schedule.Warmed] = []
    schedule.run_tasks([_task("n1"), _task("n2")], 1, lambda outcome: True,
                       warmups=["b", "a"], on_warm=warmed.append)
    assert events == ["warm b", "warm a", "n1", "n2"]
    assert [(w.name, w.error) for w in warmed] == [("b", None), ("a", None)]


def test_a_failed_warm_up_is_reported_and_stops_nothing(monkeypatch):
    def broken() -> None:
        raise ValueError("no compiler")

    monkeypatch.setattr(precompile, "FAMILIES", {"a": broken})
    monkeypatch.setattr(schedule, "execute", lambda task, keep_exception=True:
                        schedule.Outcome(task.name, 0.0, 0.0))
    done: list[str] = []
    warmed: list[schedule.Warmed] = []
    schedule.run_tasks([_task("n1")], 1, lambda o: done.append(o.name) or True,
                       warmups=["a"], on_warm=warmed.append)
    assert done == ["n1"]
    assert warmed[0].error == "ValueError: no compiler"


def test_only_the_families_the_notebooks_to_run_declare_longest_first():
    def exp(name: str, kernels: tuple[str, ...]) -> runner.Experiment:
        return runner.Experiment(name, Path(f"{name}.ipynb"), kernels=kernels)

    assert runner.warmups_for([exp("x", ())]) == []
    assert runner.warmups_for([exp("x", ("rpart",)), exp("y", ("rpart", "mixed"))]) == \
        sorted(["rpart", "mixed"], key=lambda k: -precompile.SECONDS[k])
    with pytest.raises(CapkitError, match="nope"):
        runner.warmups_for([exp("x", ("nope",))])


def test_the_runner_warms_up_only_with_several_jobs(tmp_path, monkeypatch):
    (tmp_path / "experiments").mkdir()
    (tmp_path / "notebooks").mkdir()
    for name, kernels in (("a", "[rpart]"), ("b", "[]")):
        (tmp_path / "experiments" / f"{name}.yaml").write_text(
            f"name: {name}\nnotebook: notebooks/{name}.ipynb\nkernels: {kernels}\n")
        nbformat.write(nbformat.v4.new_notebook(), tmp_path / "notebooks" / f"{name}.ipynb")
    seen: list[list[str]] = []

    def fake_run_tasks(tasks, jobs, on_done, warmups=(), on_warm=None):
        seen.append(list(warmups))

    monkeypatch.setattr(schedule, "run_tasks", fake_run_tasks)
    for jobs in (1, 2):
        runner.run(tmp_path, jobs=jobs, cache=False)
    assert seen == [[], ["rpart"]]


def test_every_declared_family_has_a_warm_up():
    experiments = runner.load_experiments(ROOT)
    assert runner.warmups_for(experiments)  # the real run warms up something
    assert set(precompile.SECONDS) == set(precompile.FAMILIES)


def _signatures(*modules) -> dict[str, set]:
    found = {}
    for module in modules:
        for name in dir(module):
            kernel = getattr(module, name)
            if hasattr(kernel, "signatures") and hasattr(kernel, "py_func"):
                found[f"{module.__name__}.{name}"] = set(kernel.signatures)
    return found


def _new(before: dict[str, set], after: dict[str, set]) -> dict[str, set]:
    return {k: after[k] - before.get(k, set()) for k in after if after[k] - before.get(k, set())}


def test_after_the_rpart_warm_up_a_synthesis_compiles_nothing_more():
    from capkit.synth import _rpart_gini2, _rpart_kernel, _rpart_order, _rpart_split
    from capkit.synth.syn import syn

    modules = (_rpart_kernel, _rpart_order, _rpart_split, _rpart_gini2)
    precompile.warm("rpart")
    warmed = _signatures(*modules)
    assert warmed["capkit.synth._rpart_kernel.grow_sorted"]
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "age": rng.integers(18, 90, 300),
        "income": rng.normal(size=300).round(2),
        "sex": pd.Categorical(rng.choice(["F", "M"], 300)),
        "region": pd.Categorical(rng.choice(list("abcde"), 300)),
        "edu": pd.Categorical(rng.choice(["low", "mid", "high"], 300),
                              categories=["low", "mid", "high"], ordered=True),
    })
    syn(frame, m=1, seed=1, progress=False)
    assert _new(warmed, _signatures(*modules)) == {}


def test_after_the_mixed_warm_up_the_k_nearest_compile_nothing_more():
    from capkit.distance import _mixed_kernel, mixed_knn

    rows_kernels = [f"capkit.distance._mixed_kernel.{k}" for k in (
        "_nearest_serial", "_nearest_threads", "_band_serial", "_band_threads")]
    precompile.warm("mixed")
    warmed = _signatures(_mixed_kernel)
    assert all(warmed[k] for k in rows_kernels)
    rng = np.random.default_rng(4)
    bands: list[int] = []

    def on_band(rows, cols, at) -> None:
        bands.append(len(rows))

    for n, kinds in ((40, 3), (600, 2)):
        # small (one thread), large with categories (numba's threads); integer values give
        # ties, hence bands wider than the kernel keeps
        frame = pd.DataFrame({f"x{j}": rng.integers(0, 4, 2 * n).astype(float)
                              for j in range(2)})
        frame["c"] = rng.integers(0, kinds, 2 * n).astype(str)
        data = mixed_knn.encode(frame[:n], frame[n:], list(frame.columns))
        mixed_knn.nearest(data, 3, on_band=on_band)
    assert sum(bands) > 0
    new = _new(warmed, _signatures(_mixed_kernel))
    assert {k: v for k, v in new.items() if k in rows_kernels} == {}


def test_a_notebook_waits_only_for_the_families_it_declares():
    x = schedule.Task("x", "x.ipynb", "", {}, ".", "", ("mixed",))
    y = schedule.Task("y", "y.ipynb", "", {}, ".", "", ("rpart",))
    z = schedule.Task("z", "z.ipynb", "", {}, ".", "", ())
    assert schedule.first_ready([x, y, z], {"mixed", "rpart"}) is z
    assert schedule.first_ready([x, y], {"mixed"}) is y
    assert schedule.first_ready([x, y], {"mixed", "rpart"}) is None
    assert schedule.first_ready([x, y], set()) is x
    assert schedule.first_ready([], set()) is None


def test_two_jobs_warm_up_then_run_the_notebooks(tmp_path):
    """The command with --jobs 2 on notebooks declaring a family: its warm-up (in a worker
    process) and its line first, then every notebook's, and the warm-up's CPU in the total."""
    from click.testing import CliRunner
    from test_reproduce_schedule import _project

    from capkit.cli.main import main

    _project(tmp_path)
    for path in (tmp_path / "experiments").glob("*.yaml"):
        path.write_text(path.read_text() + "kernels: [rpart]\n")
    result = CliRunner().invoke(main, ["reproduce", "--jobs", "2", "--no-cache",
                                       "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("kernels rpart") and "compiled or loaded once" in lines[0]
    assert sum(" 1/1 claims as declared" in line for line in lines) == 2
    assert "shared kernels compiled once: cpu" in result.output
