"""The audit with a second process (capkit.audit.parallel): the same result as in one process,
whichever steps ran where, and the same when no second process can be had."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from test_at_risk import KEYS, TARGETS, _population

from capkit import processes
from capkit.audit import FAMILIES, audit, parallel
from capkit.audit.failures import describe
from capkit.audit.sampling import RecordSample
from capkit.errors import CapkitError
from capkit.synth.baselines import bootstrap_with_noise, independent_columns

N = 300


@pytest.fixture(scope="module")
def case() -> dict:
    data = _population(2 * N, 11)
    members = data.iloc[:N].reset_index(drop=True)
    members.loc[[4, 9], "income"] = np.nan  # a numeric gap: the distance family's note
    holdout = data.iloc[N:].reset_index(drop=True)
    named = {"boot": bootstrap_with_noise(members, seed=1),
             "copies": members.sample(N, replace=True, random_state=3).reset_index(drop=True),
             "ind": independent_columns(members, seed=2)}
    return {"members": members, "holdout": holdout, "named": named}


def _run(case: dict, workers: int, **extra) -> object:
    return audit(case["members"], case["named"], holdout=case["holdout"], keys=KEYS,
                 targets=TARGETS, seed=0, workers=workers, **extra)


def _assert_same(a: object, b: object) -> None:
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    pd.testing.assert_frame_equal(a.records_at_risk, b.records_at_risk)
    pd.testing.assert_frame_equal(a.measures, b.measures)
    assert a.notes == b.notes and a.warnings == b.warnings and a.failures == b.failures
    assert list(a.timings) == list(b.timings)
    assert a.distances.keys() == b.distances.keys()
    for name, d in a.distances.items():
        other = b.distances[name]
        assert np.array_equal(d.members, other.members, equal_nan=True)
        assert np.array_equal(d.holdout, other.holdout, equal_nan=True)
        assert d.near_cut == other.near_cut
    pd.testing.assert_frame_equal(a.worst_combinations.table, b.worst_combinations.table)


def test_second_process_gives_the_same_audit(case: dict, monkeypatch) -> None:
    """Every finding, note, warning, record at risk and distance is the same when the
    distance, singling-out, linkability and membership steps run in a second process
    (forced here: the table is too small for the default to start one)."""
    if processes.cores() < 2:
        pytest.skip("one core: no second process")
    here = _run(case, 1)
    assert here.notes and any("income" in n for n in here.notes)  # the gap's note is there
    away = _run(case, 2)  # the process may still be starting: this one takes steps back
    _assert_same(here, away)
    processes.executor().submit(processes._import, ("capkit.audit.parallel",)).result()
    taken, take = [], parallel.Away.take

    def counted(self, family, name, here_, keep):
        sent = (family, name) in self.futures
        taken.append(sent)
        return take(self, family, name, here_, keep)

    monkeypatch.setattr(parallel.Away, "take", counted)
    again = _run(case, 2)  # the process is ready: it runs some of the steps
    _assert_same(here, again)
    assert len(taken) == 12 and any(taken)


def test_steps_run_here_without_a_second_process(case: dict, monkeypatch) -> None:
    """Where no process can be started every step runs in this one: the same audit."""
    def refuse() -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(processes, "executor", refuse)
    _assert_same(_run(case, 1), _run(case, 2))


def test_steps_taken_back_run_here_last_first(monkeypatch) -> None:
    """The steps not sent yet are taken back from the last one; a step taken back (or never
    sent) is computed here by take()."""
    monkeypatch.setattr(processes, "executor", lambda: (_ for _ in ()).throw(OSError()))
    steps = [("distance", "a"), ("distance", "b"), ("linkability", "a")]
    away = parallel.Away(steps, lambda f, n: ())
    assert [away.steal(), away.steal()] == [("linkability", "a"), ("distance", "b")]
    marker = parallel.Step([], (), None, None, 0.0)
    assert away.take("distance", "b", lambda: marker, None) is marker
    assert away.steal() == ("distance", "a") and away.steal() is None


def test_a_step_that_does_not_come_back_is_computed_here(monkeypatch) -> None:
    """A step the second process could not run (it died, or cannot import capkit: a notebook
    that put capkit on sys.path itself) is computed here instead of failing the audit."""
    from concurrent.futures import Future

    monkeypatch.setattr(processes, "executor", lambda: (_ for _ in ()).throw(OSError()))
    away = parallel.Away([], lambda f, n: ())
    lost = Future()
    lost.set_exception(ModuleNotFoundError("No module named 'capkit'"))
    away.futures[("linkability", "a")] = lost
    marker = parallel.Step([], (), None, None, 0.0)
    assert away.take("linkability", "a", lambda: marker, None) is marker


def test_a_failing_step_is_the_same_failure(case: dict, monkeypatch) -> None:
    """A CapkitError in a step becomes the Failure the audit lists (describe()), and a step
    with its failure survives the trip between processes (pickle)."""
    def broken(*args, **kwargs):
        raise CapkitError("column 'income' cannot be measured here")

    monkeypatch.setattr(parallel, "distance_family", broken)
    members, named = case["members"], case["named"]
    step = parallel.run_step("distance", "boot", members, named["boot"], case["holdout"], KEYS,
                             0, 0.95, (RecordSample("members", N, None, 0), None),
                             None, FAMILIES)
    assert step.found == [] and step.failure == describe(
        CapkitError("column 'income' cannot be measured here"), "boot", "distance", FAMILIES)
    assert pickle.loads(pickle.dumps(step)) == step


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True])
def test_workers_must_be_a_positive_whole_number(case: dict, workers) -> None:
    with pytest.raises(CapkitError, match="workers"):
        _run(case, workers)


def test_default_workers(case: dict, monkeypatch) -> None:
    """One process for small work, for families that are all or none of the searches, and on
    one core; two past PARALLEL_CELLS on two cores."""
    members, named = case["members"], case["named"]
    monkeypatch.setattr(processes, "cores", lambda: 2)
    assert parallel.workers_for(None, members, named, FAMILIES) == 1  # small
    monkeypatch.setattr(parallel, "PARALLEL_CELLS", 1)
    assert parallel.workers_for(None, members, named, FAMILIES) == 2
    assert parallel.workers_for(None, members, named, ("distance", "linkability")) == 1
    assert parallel.workers_for(None, members, named, ("synthpop measures",)) == 1
    assert parallel.workers_for(3, members, named, ("distance",)) == 2
    monkeypatch.setattr(processes, "cores", lambda: 1)
    assert parallel.workers_for(None, members, named, FAMILIES) == 1


def test_report_command_starts_the_second_process_only_for_large_files(tmp_path, monkeypatch
                                                                        ) -> None:
    """``capkit report`` starts the second process before its imports only when the files'
    sizes promise work enough (and never for --help)."""
    import importlib

    cli_main = importlib.import_module("capkit.cli.main")
    calls = []
    monkeypatch.setattr(processes, "warm", lambda modules=(): calls.append(modules))
    small, big = tmp_path / "small.csv", tmp_path / "big.csv"
    small.write_text("a\n1\n")
    big.write_bytes(b"a\n" + b"1\n" * 600_000)  # 1.2 MB: 1.4e12 bytes squared
    cli_main._warm_for_report(["report", str(small), str(small)])
    cli_main._warm_for_report(["report", str(big), str(big), "--help"])
    assert calls == []
    cli_main._warm_for_report(["report", str(big), str(big), "-o", "out.html"])
    assert len(calls) == 1 and "capkit.audit.parallel" in calls[0]


def test_warnings_of_the_second_process_are_given_here(case: dict, monkeypatch) -> None:
    """A warning a step gives in the second process is recorded with its step and given again
    in this process when the step is taken (where the command line collects them)."""
    from concurrent.futures import Future

    from capkit.errors import CapkitWarning

    def warns(*args, **kwargs):
        import warnings

        warnings.warn("a note of the distance family", CapkitWarning, stacklevel=2)
        return [], ("income",)

    monkeypatch.setattr(parallel, "distance_family", warns)
    import numba

    members, named = case["members"], case["named"]
    step = parallel._away_step("distance", "boot", members, named["boot"], case["holdout"],
                               KEYS, 0, 0.95, (RecordSample("members", N, None, 0), None),
                               False, FAMILIES, numba.get_num_threads())  # threads unchanged
    assert step.warned == ((CapkitWarning, "a note of the distance family"),)
    monkeypatch.setattr(processes, "executor", lambda: (_ for _ in ()).throw(OSError()))
    away = parallel.Away([], lambda f, n: ())
    done = Future()
    done.set_result(pickle.loads(pickle.dumps(step)))
    away.futures[("distance", "boot")] = done
    with pytest.warns(CapkitWarning, match="a note of the distance family"):
        taken = away.take("distance", "boot", lambda: None, None)
    assert taken.gaps == ("income",)


def test_joblib_parallel_still_runs_beside_the_second_process() -> None:
    """capkit's second process is its own executor: joblib's Parallel (the shadow-model
    audit's n_jobs) still gets a process pool of its own after an audit started one."""
    from joblib import Parallel, delayed

    processes.executor().submit(processes._import, ()).result()
    assert Parallel(n_jobs=2)(delayed(abs)(x) for x in (-1, -2, -3)) == [1, 2, 3]
    assert processes.started()


def test_the_second_process_imports_only_the_record_pair_families() -> None:
    """What the second process imports before its first step (the steps' module): the
    record-pair families and what they need, not scikit-learn, the attribute attacks or the
    rest of the audit (a first audit waits for these imports)."""
    import subprocess
    import sys

    heavy = ["sklearn", "capkit.attacks.attackers", "capkit.attacks.baseline",
             "capkit.audit.run", "capkit.audit.families", "capkit.membership_inference.shadow"]
    code = ("import sys, capkit.audit.parallel; "
            f"print([m for m in {heavy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
