"""Files and names a careless or hostile user passes to the ``capkit`` commands: no input is
ever overwritten (through links too), an output is written whole or not at all, Ctrl-C exits
with 130, and a lack of memory or a nested Parquet column is a clear error (docs/safe-outputs.md).

The escaping of names and values in every format is tested in tests/test_cli_hardening_escape.py
and, with hostile payloads at every command, by tests/fuzz/fuzz_cli.py.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import capkit
from capkit.cli import main


def frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["p", "q"], n),
                         "c": rng.choice(["u", "v", "w"], n), "d": rng.integers(0, 50, n)})


def run(args: list[object]):  # noqa: ANN201
    return CliRunner().invoke(main, [str(a) for a in args])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    """An original, a synthesis, a holdout (CSV), each a different file."""
    out = {}
    for name, seed in (("orig", 0), ("syn", 1), ("hold", 2)):
        out[name] = tmp_path / f"{name}.csv"
        frame(seed=seed).to_csv(out[name], index=False)
    return out


#: Each command with the arguments of a quick run (the original, synthetic and holdout files
#: filled in), and the input its outputs are aimed at.
COMMANDS = {
    "report": ["report", "{orig}", "{syn}", "--keys", "a,b", "--family", "synthpop measures",
               "--no-sweep", "-q"],
    "disclosure": ["disclosure", "{orig}", "{syn}", "--keys", "a,b", "--targets", "c", "-q"],
    "cap": ["cap", "{orig}", "{syn}", "--keys", "a,b", "--targets", "c", "-q"],
    "attack": ["attack", "{orig}", "{syn}", "--keys", "a,b", "--targets", "c", "--attackers",
               "cap", "-q"],
    "membership": ["membership", "{orig}", "{syn}", "--holdout", "{hold}", "--attacks", "dcr",
                   "--exposed-by", "dcr", "-q"],
    "sdc": ["sdc", "{orig}", "{syn}", "--keys", "a,b"],
    "utility": ["utility", "{syn}", "--original", "{orig}", "-q"],
}


def args(command: str, files: dict[str, Path], *extra: object) -> list[str]:
    return [a.format(**files) for a in COMMANDS[command]] + [str(e) for e in extra]


def link(kind: str, target: Path, where: Path) -> Path:
    """``target`` itself, or a new symbolic or hard link to it at ``where``."""
    if kind == "same name":
        return target
    if kind == "symbolic link":
        where.symlink_to(target)
    else:
        os.link(target, where)
    return where


# ------------------------------------------------------------------ A. never lose a file


@pytest.mark.parametrize("kind", ["same name", "symbolic link", "hard link"])
@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("victim", ["orig", "syn"])
def test_output_that_is_an_input_is_refused(files: dict[str, Path], tmp_path: Path,
                                            command: str, kind: str, victim: str) -> None:
    before = {k: digest(p) for k, p in files.items()}
    suffix = ".csv"
    out = link(kind, files[victim], tmp_path / f"out{suffix}")
    result = run(args(command, files, "-o", out))
    assert result.exit_code == 1, result.output
    assert "Error: --output" in result.output and "input file" in result.output
    assert "Traceback" not in result.output
    assert {k: digest(p) for k, p in files.items()} == before


@pytest.mark.parametrize(("command", "option", "suffix"), [
    ("report", "--records", ".csv"), ("cap", "--records", ".csv"),
    ("disclosure", "--plot", ".svg"), ("attack", "--plot", ".svg"),
    ("membership", "--plot", ".svg")])
def test_records_or_plot_that_is_an_input_is_refused(files: dict[str, Path], tmp_path: Path,
                                                     command: str, option: str,
                                                     suffix: str) -> None:
    victim = files["hold"] if command == "membership" else files["orig"]
    if suffix != ".csv":  # a picture's name: a hard link with the extension the option wants
        victim = link("hard link", victim, tmp_path / f"orig{suffix}")
    before = digest(victim)
    result = run(args(command, files, option, victim))
    assert result.exit_code == 1, result.output
    assert f"Error: {option}" in result.output and "input file" in result.output
    assert digest(victim) == before


def test_an_input_matched_by_a_glob_is_refused(files: dict[str, Path], tmp_path: Path) -> None:
    before = digest(files["syn"])
    result = run(["cap", files["orig"], str(tmp_path / "sy*.csv"), "--keys", "a,b",
                  "--targets", "c", "-o", files["syn"]])
    assert result.exit_code == 1 and "matched by" in result.output, result.output
    assert digest(files["syn"]) == before


@pytest.mark.parametrize(("command", "option", "suffix"), [
    ("report", "--records", ".csv"), ("cap", "--records", ".csv"),
    ("disclosure", "--plot", ".svg"), ("attack", "--plot", ".svg"),
    ("membership", "--plot", ".svg")])
@pytest.mark.parametrize("kind", ["same name", "symbolic link"])
def test_output_equal_to_records_or_plot_is_refused(files: dict[str, Path], tmp_path: Path,
                                                    command: str, option: str, suffix: str,
                                                    kind: str) -> None:
    first = tmp_path / f"both{suffix}"
    second = first if kind == "same name" else tmp_path / f"other{suffix}"
    if kind == "symbolic link":
        second.symlink_to(first)  # dangling: neither exists yet
    result = run(args(command, files, "-o", first, option, second))
    assert result.exit_code == 1, result.output
    assert f"--output and {option} name the same file" in result.output
    assert not first.exists()


def test_output_through_a_symbolic_link_writes_the_file_it_names(files: dict[str, Path],
                                                                 tmp_path: Path) -> None:
    target = tmp_path / "reports" / "cap.txt"
    target.parent.mkdir()
    target.write_text("the old report\n")
    os.chmod(target, 0o640)
    out = tmp_path / "cap-link.txt"
    out.symlink_to(target)
    result = run(args("cap", files, "-o", out))
    assert result.exit_code == 0, result.output
    assert out.is_symlink() and target.read_text().startswith("capkit CAP report")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file's permissions kept
    assert [p.name for p in target.parent.iterdir()] == ["cap.txt"]  # no temporary file left


def test_output_to_a_device_is_written_directly(files: dict[str, Path]) -> None:
    """``-o /dev/null`` (or ``/dev/stdout``) still works: no temporary file beside a device."""
    result = run(args("cap", files, "-o", os.devnull))
    assert result.exit_code == 0, result.output


#: File size limit of the "full disk" runs: the old outputs fit, the new ones do not.
LIMIT = 3000


def _full_disk(limit: int):  # noqa: ANN202
    """A context in which a write past ``limit`` bytes of a file fails (EFBIG), as on a full
    disk; Python ignores the SIGXFSZ signal, so the write raises OSError."""
    import contextlib

    @contextlib.contextmanager
    def ctx():  # noqa: ANN202
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    return ctx()


@pytest.mark.parametrize(("command", "option", "name"), [
    ("cap", "-o", "cap.txt"), ("cap", "--records", "records.csv"),
    ("sdc", "-o", "treated.parquet"), ("sdc", "-o", "treated.csv"),
    ("disclosure", "--plot", "plot.svg")])
def test_a_failed_write_leaves_the_old_file_whole(files: dict[str, Path], tmp_path: Path,
                                                  command: str, option: str, name: str) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / name
    old = b"the previous run's output\n"
    out.write_bytes(old)
    big = frame(2000, seed=5)  # outputs well over LIMIT bytes
    big.to_csv(files["orig"], index=False)
    big.sample(frac=1, random_state=1).to_csv(files["syn"], index=False)
    extra = ["--format", "html"] if command != "sdc" and option == "-o" else []
    with _full_disk(LIMIT):
        result = run(args(command, files, option, out, *extra)
                     + (["-o", out_dir / "x.csv"] if command == "sdc" and option != "-o" else []))
    assert result.exit_code == 1, result.output
    assert f"cannot write {option if option != '-o' else '--output'} {str(out)!r}" in \
        result.output, result.output
    assert "None" not in result.output and "the file is left as it was" in result.output
    assert out.read_bytes() == old
    assert sorted(p.name for p in out_dir.iterdir()) == [name]  # no temporary file left


def test_interrupted_while_writing_leaves_the_old_file_whole(files: dict[str, Path],
                                                              tmp_path: Path,
                                                              monkeypatch) -> None:  # noqa: ANN001
    records = tmp_path / "records.csv"
    records.write_text("old,records\n1,2\n")
    before = digest(records)
    written = pd.DataFrame.to_csv

    def half_then_ctrl_c(self, path, *a, **k):  # noqa: ANN001, ANN202
        written(self.head(3), path, *a, **k)  # some of the file written, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_ctrl_c)
    result = run(args("cap", files, "--records", records, "-o", tmp_path / "cap.txt"))
    assert result.exit_code == 130, result.output
    assert digest(records) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["cap.txt", "records.csv", *(p.name for p in files.values())])


def test_ctrl_c_exits_with_130(files: dict[str, Path], tmp_path: Path,
                               monkeypatch) -> None:  # noqa: ANN001
    import capkit.cli.cap as cap_cli

    def interrupted(*a, **k):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(cap_cli, "compute_cap", interrupted)
    out = tmp_path / "old.txt"
    out.write_text("old")
    result = run(args("cap", files, "-o", out))
    assert result.exit_code == 130, result.output
    assert "Interrupted" in result.output and out.read_text() == "old"


def test_sigint_to_a_real_run_exits_with_130(files: dict[str, Path]) -> None:
    """The shell's convention, checked on a real process: SIGINT -> 130, not click's 1."""
    code = ("import os, signal, sys; from capkit.cli import main; import capkit.cli.cap as c; "
            "c.compute_cap = lambda *a, **k: os.kill(os.getpid(), signal.SIGINT); "
            f"main({args('cap', files)!r})")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(Path(capkit.__file__).parents[1]),
                               os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 130, done.stderr


# ------------------------------------------------------------------ D. clear errors


@pytest.fixture()
def nested(tmp_path: Path) -> dict[str, Path]:
    """Parquet files with a list column and a structure column beside single values."""
    out = {}
    for name, seed in (("orig", 0), ("syn", 1), ("hold", 2)):
        f = frame(seed=seed)
        f["tags"] = [[int(v) % 3, 1] for v in f["d"]]
        f["place"] = [{"x": int(v) % 2} for v in f["d"]]
        out[name] = tmp_path / f"{name}.parquet"
        f.to_parquet(out[name])
    return out


@pytest.mark.parametrize(("command", "extra", "column"), [
    ("cap", ["--keys", "a,tags", "--targets", "c"], "tags"),
    ("disclosure", ["--keys", "a,b", "--targets", "place"], "place"),
    ("disclosure", ["--keys", "a,tags", "--targets", "c", "--engine", "duckdb"], "tags"),
    ("attack", ["--keys", "a,b", "--targets", "tags", "--attackers", "cap"], "tags"),
    ("report", ["--keys", "a,place", "--family", "synthpop measures"], "place"),
    ("membership", ["--holdout", "{hold}"], "tags"),
    ("sdc", ["--keys", "a,tags", "-o", "{tmp}/t.parquet"], "tags")])
def test_nested_column_is_refused_by_name(nested: dict[str, Path], tmp_path: Path,
                                          command: str, extra: list[str], column: str) -> None:
    extra = [e.format(hold=nested["hold"], tmp=tmp_path) for e in extra]
    result = run([command, nested["orig"], nested["syn"], *extra, "-q"][
        :None if command != "sdc" else -1])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and f"{column!r}" in result.output
    assert "nested" in result.output and "Traceback" not in result.output
    assert not isinstance(result.exception, TypeError)


def test_nested_columns_left_out_of_a_default_report(nested: dict[str, Path]) -> None:
    result = CliRunner().invoke(main, ["report", str(nested["orig"]), str(nested["syn"]),
                                       "--keys", "a,b", "--family", "synthpop measures",
                                       "--no-sweep"])
    assert result.exit_code == 0, result.output
    assert "'tags', 'place' hold several values per record" in " ".join(result.output.split())


def test_pandas_index_stored_in_parquet_is_not_a_column(tmp_path: Path) -> None:
    """A frame saved with its (shuffled) index: sdc reads every column, not the index."""
    orig, syn = tmp_path / "o.parquet", tmp_path / "s.parquet"
    frame().to_parquet(orig)
    frame(seed=1).sample(frac=1, random_state=3).to_parquet(syn)
    out = tmp_path / "t.parquet"
    result = run(["sdc", orig, syn, "--keys", "a,b", "-o", out])
    assert result.exit_code == 0, result.output
    assert list(pd.read_parquet(out).columns) == ["a", "b", "c", "d"]


def test_under_an_address_space_limit_parquet_is_read_with_the_system_allocator(
        tmp_path: Path) -> None:
    """pyarrow's default allocator reserves address space ahead; under ``ulimit -v`` a read whose
    reservation fails waits forever (seen on a million rows under 2 GB) instead of raising
    MemoryError. With a limit, a command sets pyarrow to the system allocator first."""
    path = tmp_path / "o.parquet"
    frame().to_parquet(path)
    code = ("import resource; limit = 16 * 2**30; "
            "resource.setrlimit(resource.RLIMIT_AS, (limit, limit)); "
            "from capkit.cli import main; "
            f"main(['sdc', {str(path)!r}, {str(path)!r}, '--keys', 'a', '-o', "
            f"{str(tmp_path / 't.parquet')!r}], standalone_mode=False); "
            "import pyarrow as pa; print(pa.default_memory_pool().backend_name)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(Path(capkit.__file__).parents[1]),
                               os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split("\n")[-1] == "system"


def test_lack_of_memory_names_the_step_the_sizes_and_what_to_do(files: dict[str, Path],
                                                                monkeypatch) -> None:  # noqa: ANN001
    so = importlib.import_module("capkit.attacks.singling_out")  # the module, not the function

    def no_memory(*a, **k):  # noqa: ANN002, ANN003, ANN202
        raise MemoryError  # as numpy raises it: no message

    monkeypatch.setattr(so, "_query_table", no_memory)
    result = run(["report", files["orig"], files["syn"], "--keys", "a,b", "--family",
                  "singling out", "-q"])
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert text.startswith("Error: out of memory during singling out on original: orig.csv "
                           "(120 records"), text
    assert "run the report without singling out (--family naming the other families)" in text
    assert "fewer rows" in text and "more memory" in text
    assert "Traceback" not in result.output


def test_lack_of_memory_in_another_command(files: dict[str, Path], monkeypatch) -> None:  # noqa: ANN001
    import capkit.cap as capm

    def no_memory(*a, **k):  # noqa: ANN002, ANN003, ANN202
        raise MemoryError

    monkeypatch.setattr(capm, "individual_cap", no_memory)
    result = run(args("cap", files, "--records", files["orig"].parent / "r.csv"))
    assert result.exit_code == 1, result.output
    assert "out of memory during" in result.output and "120 records" in result.output
    assert "--family" not in result.output  # cap has no families to leave out
