"""`capkit reproduce`'s scheduler (--jobs, the longest first) and its cache of notebook runs
(build/cache, keyed by the notebook, its parameters, the code and the data): a change to any of
them runs the notebook again, an unchanged run comes back byte for byte. Data-free; the
notebooks are executed by a stand-in for papermill, except in the one test of --jobs 2."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner

from capkit.cli.main import main
from capkit.reproduce import cache as cache_mod
from capkit.reproduce import runner, schedule


def _project(root: Path, names=("a", "b")) -> None:
    """Experiments whose notebooks save one claim (paper 1, reproduced ``value``) and write one
    figure file holding ``value``."""
    (root / "experiments").mkdir()
    (root / "notebooks").mkdir()
    (root / "figures").mkdir()
    for k, name in enumerate(names, start=1):
        (root / "experiments" / f"{name}.yaml").write_text(
            f"name: {name}\nnotebook: notebooks/{k:02d}_{name}.ipynb\n"
            "parameters: {value: 1, label: x}\n"
            f"quick_parameters: {{}}\noutputs: [fig_{name}]\n")
        params = nbformat.v4.new_code_cell(
            'figures_dir = "../build/figures"\nclaims_path = None\nvalue = 1\nlabel = "x"')
        params.metadata["tags"] = ["parameters"]
        body = nbformat.v4.new_code_cell(
            "from pathlib import Path\nfrom capkit.reproduce import claims\n"
            f"ledger = claims.Ledger({name!r})\nledger.check('c', 's', 't', 1, value, 'exact')\n"
            f"Path(figures_dir).mkdir(parents=True, exist_ok=True)\n"
            f"Path(figures_dir, 'fig_{name}.png').write_text(f'{{value}} {{label}}')\n"
            "ledger.save(claims_path)\nassert ledger.ok, ledger.failures()")
        nb = nbformat.v4.new_notebook(cells=[params, body])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, root / "notebooks" / f"{k:02d}_{name}.ipynb")


@pytest.fixture
def executed(monkeypatch):
    """papermill replaced by a stand-in that does what each notebook does (no kernel): the
    names of the notebooks it executed."""
    from capkit.reproduce import claims

    ran: list[str] = []

    def fake(task: schedule.Task, keep_exception: bool = True) -> schedule.Outcome:
        ran.append(task.name)
        value = task.parameters["value"]
        ledger = claims.Ledger(task.name)
        ledger.check("c", "s", "t", 1, value, "exact")
        ledger.save(task.parameters["claims_path"])
        figures = Path(task.parameters["figures_dir"])
        figures.mkdir(parents=True, exist_ok=True)
        (figures / f"fig_{task.name}.png").write_text(f"{value} {task.parameters['label']}")
        shutil.copyfile(task.notebook, task.output)
        if not ledger.ok:  # the notebook's last line, `assert ledger.ok`
            return schedule.Outcome(task.name, 0.5, 0.4, "AssertionError", "claims")
        return schedule.Outcome(task.name, 0.5, 0.4)

    monkeypatch.setattr(schedule, "execute", fake)
    monkeypatch.setattr(cache_mod, "code_digest", lambda package=None: "code 1")
    return ran


def _outputs(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "figures").iterdir())}


def test_longest_first_starts_the_longest_then_the_unknown():
    order = schedule.longest_first(["a", "b", "c", "d", "e"], {"b": 10, "c": 300, "e": 10})
    assert order == ["c", "b", "e", "a", "d"]  # equal times, and the unknown, in their order


def test_an_unchanged_run_comes_from_the_cache_byte_for_byte(tmp_path, executed):
    _project(tmp_path)
    runner.run(tmp_path)
    assert executed == ["a", "b"]
    first = _outputs(tmp_path)
    assert set(first) == {"claims.json", "claims.md", "fig_a.png", "fig_b.png"}
    for name in ("fig_a.png", "fig_b.png", "claims.json"):
        (tmp_path / "figures" / name).unlink()
    ends = []
    runner.run(tmp_path, on_notebook=lambda exp, end: ends.append((exp.name, end)))
    assert executed == ["a", "b"]  # nothing executed again
    assert _outputs(tmp_path) == first
    assert [(name, end.cpu, end.ran) for name, end in ends] == [("a", None, 0.5),
                                                                ("b", None, 0.5)]


def test_a_changed_parameter_notebook_code_or_data_runs_the_notebook_again(
        tmp_path, executed, monkeypatch):
    _project(tmp_path)
    runner.run(tmp_path)
    assert executed == ["a", "b"]
    # a parameter: only that experiment runs again, and its new value reaches the outputs
    yaml = tmp_path / "experiments" / "a.yaml"
    yaml.write_text(yaml.read_text().replace("label: x", "label: y"))
    runner.run(tmp_path)
    assert executed == ["a", "b", "a"]
    assert (tmp_path / "figures" / "fig_a.png").read_text() == "1 y"
    # the notebook itself
    notebook = tmp_path / "notebooks" / "02_b.ipynb"
    notebook.write_text(notebook.read_text().replace("value = 1", "value = 1  # edited"))
    runner.run(tmp_path)
    assert executed == ["a", "b", "a", "b"]
    # the code: every notebook
    monkeypatch.setattr(cache_mod, "code_digest", lambda package=None: "code 2")
    runner.run(tmp_path)
    assert executed == ["a", "b", "a", "b", "a", "b"]
    # the data: a file of reference/
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "peer.csv").write_text("x\n1\n")
    runner.run(tmp_path)
    assert executed[6:] == ["a", "b"]
    runner.run(tmp_path)
    assert len(executed) == 8  # and then it is cached again
    # a quick run is another run, with its own entries
    runner.run(tmp_path, quick=True)
    assert executed[8:] == ["a", "b"]


def test_no_cache_neither_reads_nor_writes_entries(tmp_path, executed):
    _project(tmp_path)
    runner.run(tmp_path, cache=False)
    assert not (tmp_path / "build" / "cache").exists()
    runner.run(tmp_path)
    runner.run(tmp_path, cache=False)
    assert executed == ["a", "b", "a", "b", "a", "b"]


def test_a_notebook_stopped_by_its_claims_is_not_cached(tmp_path, executed):
    _project(tmp_path)
    yaml = tmp_path / "experiments" / "a.yaml"
    yaml.write_text(yaml.read_text().replace("value: 1", "value: 3"))  # paper: 1
    ledgers = runner.run(tmp_path)
    assert [lg.ok for lg in ledgers] == [False, True]
    assert json.loads((tmp_path / "figures" / "claims.json").read_text())[0]["name"] == "a"
    runner.run(tmp_path)
    assert executed == ["a", "b", "a"]


def test_code_digest_changes_with_any_source_file(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text("X = 1\n")
    first = cache_mod.code_digest(package)
    assert cache_mod.code_digest(package) == first
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    assert cache_mod.code_digest(package) == first  # compiled files are not code
    (package / "m.py").write_text("X = 2\n")
    assert cache_mod.code_digest(package) != first
    (package / "m.py").write_text("X = 1\n")
    assert cache_mod.code_digest(package) == first
    (package / "sub").mkdir()
    (package / "sub" / "n.py").write_text("")
    assert cache_mod.code_digest(package) != first


def test_run_key_covers_notebook_parameters_code_and_data(tmp_path):
    notebook = tmp_path / "n.ipynb"
    notebook.write_text("{}")
    key = cache_mod.run_key(notebook, {"x": 1, "y": [1, 2]}, code="c", data="d")
    assert key == cache_mod.run_key(notebook, {"y": [1, 2], "x": 1}, code="c", data="d")
    others = [cache_mod.run_key(notebook, {"x": 2, "y": [1, 2]}, code="c", data="d"),
              cache_mod.run_key(notebook, {"x": 1, "y": [1, 2]}, code="c2", data="d"),
              cache_mod.run_key(notebook, {"x": 1, "y": [1, 2]}, code="c", data="d2")]
    notebook.write_text("{ }")
    others.append(cache_mod.run_key(notebook, {"x": 1, "y": [1, 2]}, code="c", data="d"))
    assert len({key, *others}) == 5


def test_data_digest_follows_capkit_data(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "x.csv").write_text("1\n")
    monkeypatch.setenv("CAPKIT_DATA", str(data))
    monkeypatch.setenv("CAPKIT_CACHE", str(tmp_path / "cache"))
    first = cache_mod.data_digest(tmp_path)
    (data / "x.csv").write_text("2\n")
    assert cache_mod.data_digest(tmp_path) != first


def test_two_jobs_run_real_notebooks_side_by_side(tmp_path):
    """--jobs 2 through papermill in worker processes: each notebook's line on stderr with its
    time and the total, the figures and the ledger written, the times recorded."""
    _project(tmp_path)
    result = CliRunner().invoke(main, ["reproduce", "--jobs", "2", "--no-cache",
                                       "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for name in ("a", "b"):
        assert re.search(rf"^{name} +[0-9.]+ s +1/1 claims as declared +\[cpu [0-9.]+ s; "
                         r"[12]/2\]", result.output, re.M)
    assert re.search(r"^total [0-9.]+ s for 2 notebooks with 2 jobs", result.output, re.M)
    times = json.loads((tmp_path / "build" / "reproduce-times.json").read_text())
    assert set(times["full"]) == {"a", "b"}
    assert (tmp_path / "figures" / "fig_a.png").read_text() == "1 x"
    assert (tmp_path / "figures" / "fig_b.png").read_text() == "1 x"


def test_a_run_during_which_the_code_changed_is_not_cached(tmp_path, executed, monkeypatch):
    _project(tmp_path)
    versions = iter(["code 1", "code 2", "code 2"])  # at the start, after a, after b
    monkeypatch.setattr(cache_mod, "code_digest", lambda package=None: next(versions))
    runner.run(tmp_path)
    assert not (tmp_path / "build" / "cache").exists()
    monkeypatch.setattr(cache_mod, "code_digest", lambda package=None: "code 2")
    runner.run(tmp_path)
    runner.run(tmp_path)
    assert executed == ["a", "b", "a", "b"]


def _execute_one_cell(cell, tmp_path):
    """schedule.execute on a notebook of the one ``cell``, written under ``tmp_path``."""
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, tmp_path / "n.ipynb")
    return schedule.execute(schedule.Task(
        "n", str(tmp_path / "n.ipynb"), str(tmp_path / "out.ipynb"), {}, str(tmp_path),
        str(tmp_path / "n.kernel.log")))


def test_the_kernel_is_killed_once_its_last_cell_has_answered(tmp_path):
    """execute() stops the kernel at once after the last cell (no graceful shutdown, which
    spends about half a CPU-second per notebook tearing down the kernel's imports): what the
    cells wrote is there, an exit hook registered by a cell never runs."""
    cell = nbformat.v4.new_code_cell(
        "import atexit\nfrom pathlib import Path\n"
        f"Path({str(tmp_path / 'cell.txt')!r}).write_text('written')\n"
        f"atexit.register(Path({str(tmp_path / 'exit.txt')!r}).write_text, 'exited')")
    outcome = _execute_one_cell(cell, tmp_path)
    assert outcome.ename is None, outcome.error
    assert (tmp_path / "cell.txt").read_text() == "written"
    assert not (tmp_path / "exit.txt").exists()


def test_the_cpu_of_a_process_the_kernel_started_is_counted(tmp_path):
    """A process a cell started and left running (as capkit's second process is) dies with the
    kernel, unreaped by it: the CPU it used is still counted in the notebook's."""
    flag = tmp_path / "burnt"
    child = ("import time, pathlib\nwhile time.process_time() < 1.0: pass\n"
             f"pathlib.Path({str(flag)!r}).write_text('1')\ntime.sleep(600)")
    cell = nbformat.v4.new_code_cell(
        "import subprocess, sys, time\nfrom pathlib import Path\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}])\n"
        f"while not Path({str(flag)!r}).exists(): time.sleep(0.05)")
    outcome = _execute_one_cell(cell, tmp_path)
    assert outcome.ename is None, outcome.error
    assert outcome.cpu >= 1.0  # the child's own second, measured by its process_time


def test_every_experiment_carries_its_expected_seconds():
    """A fresh clone has no recorded times (build/ is not tracked): each experiment's
    ``seconds`` hint is what orders the notebooks, so each one has it, and the longest
    notebooks start first (none is left to the end in file order)."""
    root = Path(__file__).resolve().parents[1]
    experiments = runner.load_experiments(root)
    missing = [e.name for e in experiments if e.seconds is None]
    assert not missing, f"experiments without a seconds hint: {missing}"
    expected = {e.name: e.seconds for e in experiments}
    order = schedule.longest_first([e.name for e in experiments], expected)
    assert [expected[n] for n in order] == sorted(expected.values(), reverse=True)


def test_the_executed_notebook_is_written_at_the_start_and_the_end_only(tmp_path, monkeypatch):
    """papermill's engine writes the whole notebook at each cell's start and end; capkit's
    writes it when the run starts and ends, and a notebook that fails is still written with
    its outputs and its error."""
    import papermill.engines

    writes: list[str] = []
    real = papermill.engines.write_ipynb
    monkeypatch.setattr(papermill.engines, "write_ipynb",
                        lambda nb, path, **kw: (writes.append(path), real(nb, path, **kw)))
    cells = [nbformat.v4.new_code_cell(f"print('cell {k}')") for k in range(3)]
    cells.append(nbformat.v4.new_code_cell("raise ValueError('stop here')"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, tmp_path / "n.ipynb")
    outcome = schedule.execute(schedule.Task(
        "n", str(tmp_path / "n.ipynb"), str(tmp_path / "out.ipynb"), {}, str(tmp_path),
        str(tmp_path / "n.kernel.log")))
    assert outcome.ename == "ValueError"
    assert writes == [str(tmp_path / "out.ipynb")] * 2
    written = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    texts = [o.get("text", "") for c in written.cells if c.cell_type == "code" for o in c.outputs]
    assert [t for t in texts if t.startswith("cell")] == ["cell 0\n", "cell 1\n", "cell 2\n"]
    assert any(o.get("ename") == "ValueError" for c in written.cells
               if c.cell_type == "code" for o in c.outputs)
