"""What the ``capkit`` commands share besides reading files: the common options, parsing of
list and ``column=value`` options, progress bars, the warnings and notes on stderr, checking and
writing the outputs, and turning a :class:`~capkit.errors.CapkitError` (or a lack of memory)
into one ``Error:`` line and exit status 1.

Every file a command writes goes through here (docs/safe-outputs.md):

* :func:`check_outputs` refuses, before anything is computed, an output that is the same file
  as an input (same device and inode: through symbolic and hard links, whatever its name) or
  as another output (``-o`` equal to ``--records`` or ``--plot``);
* :func:`replacing` writes an output to a temporary file in the same folder and renames it
  over the old one only when complete, so an interrupted run or a full disk leaves the old file
  whole, and an error names the file.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import platform
import shlex
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from capkit.errors import CapkitError, CapkitWarning

if TYPE_CHECKING:
    import pandas as pd

    from capkit.cli.files import Inputs

# What a command's options need is imported with this module; what its work needs (pandas,
# the readers, the report's escaping) in the functions that use it, so that ``capkit <command>
# --help`` imports neither.

_VERSIONED = ("capkit", "numpy", "pandas", "scipy", "pyarrow", "pyreadr", "matplotlib")


def visible(text: object, *, lines: bool = False) -> str:
    """:func:`capkit.report.safe.visible` (imported on first use: it imports pandas)."""
    from capkit.report.safe import visible as escaped

    return escaped(text, lines=lines)


def split(value: str | None, option: str) -> list[str] | None:
    if value is None:
        return None
    names = [v.strip() for v in value.split(",")]
    if not value.strip() or any(not n for n in names):
        raise CapkitError(f"{option} must be a comma-separated list of column names, got "
                          f"{value!r}")
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise CapkitError(f"{option} names a column twice: {duplicated}")
    return names


def pairs(values: Sequence[str], option: str) -> list[tuple[str, str]]:
    out = []
    for v in values:
        if "=" not in v:
            raise CapkitError(f"{option} takes column=value, got {v!r}")
        column, _, value = v.partition("=")
        if not column.strip():
            raise CapkitError(f"{option} takes column=value, got {v!r}")
        out.append((column.strip(), value))
    return out


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def command_line() -> str:
    ctx = click.get_current_context()
    raw = ctx.meta.get("capkit.argv")
    if raw is None:
        raw = sys.argv[1:]
    return "capkit " + shlex.join(raw)


def progress(total: int, quiet: bool, unit: str):  # noqa: ANN202 - tqdm
    from tqdm import tqdm

    # shown only when the work takes more than a second (delay), never with --quiet
    return tqdm(total=total, disable=quiet, delay=1.0, unit=unit, file=sys.stderr,
                leave=False, dynamic_ncols=True)


def emit(text: str, output: Path | None, option: str = "--output") -> None:
    """The report on standard output, or written to ``output`` through :func:`replacing`."""
    if output is None:
        click.echo(text, nl=False)
    else:
        with replacing(output, option) as part:
            part.write_bytes(text.encode("utf-8"))


def write_csv(frame: pd.DataFrame, path: Path, option: str, escape_formulas: bool) -> None:
    """``frame`` as a CSV file at ``path`` (through :func:`replacing`), its text cells that a
    spreadsheet would run as formulas quoted when ``escape_formulas``
    (:func:`capkit.report.safe.csv_safe`, OWASP's rule), a carriage return in a cell kept
    inside it (:func:`capkit.report.safe.csv_quoting`)."""
    from capkit.report.safe import csv_quoting, csv_safe

    with replacing(path, option) as part:
        written = csv_safe(frame) if escape_formulas else frame
        written.to_csv(part, index=False, **csv_quoting(written))


def check_output(path: Path | None, option: str, suffixes: tuple[str, ...] | None = None
                  ) -> None:
    if path is None:
        return
    if path.exists() and path.is_dir():
        raise CapkitError(f"{option} {str(path)!r} is a folder; give a file name")
    if not path.parent.exists():
        raise CapkitError(f"{option} {str(path)!r}: folder {str(path.parent)!r} does not exist")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise CapkitError(f"{option} must end in {' or '.join(suffixes)}, got {path.name!r}")


#: An output of a command: its option, its path (None: not asked for) and the extensions it
#: may have (None: any).
Output = tuple[str, "Path | None", "tuple[str, ...] | None"]


def _input_files(inputs: Sequence[Path | None]) -> list[tuple[Path, Path]]:
    """(as given, file) for every existing file the inputs name, globs expanded."""
    from capkit.data import io

    out = []
    for given in inputs:
        if given is None:
            continue
        try:
            files = io.expand(given)
        except CapkitError:  # a glob that matches nothing: the reader says so
            continue
        out += [(given, f) for f in files if f.exists()]
    return out


def _same(a: Path, b: Path) -> bool:
    """Whether two paths name the same file: the same device and inode when both exist (links
    followed), else the same place once symbolic links and ``..`` are resolved."""
    if a.exists() and b.exists():
        try:
            return os.path.samefile(a, b)
        except OSError:
            return False
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def check_outputs(inputs: Sequence[Path | None], *outputs: Output) -> None:
    """Check every output a command will write, before anything is computed: a file name (not
    a folder) in an existing folder with an allowed extension (:func:`check_output`), not the
    same file as any input (``inputs``: the paths and globs the command reads), nor as another
    output. Files are compared by device and inode (:func:`os.path.samefile`), so a symbolic
    or hard link to an input is refused too, whatever its name."""
    wanted = [(option, path) for option, path, _ in outputs if path is not None]
    for option, path, suffixes in outputs:
        check_output(path, option, suffixes)
    files = _input_files(inputs)
    for option, path in wanted:
        for given, file in files:
            if _same(path, file):
                via = "" if str(given) == str(path) else (
                    f" (matched by {str(given)!r})" if str(given) != str(file) else
                    f" under another name: {str(path)!r} and {str(file)!r} are links to one "
                    "file")
                raise CapkitError(
                    f"{option} {str(path)!r} is the input file {str(file)!r}{via}: writing it "
                    "would destroy that input; give a new file name")
    for j, (option, path) in enumerate(wanted):
        for other, other_path in wanted[j + 1:]:
            if _same(path, other_path):
                raise CapkitError(f"{option} and {other} name the same file {str(path)!r}: one "
                                  "would overwrite the other; give each its own file")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path: Path, option: str) -> Iterator[Path]:
    """Yield a temporary file in the folder of ``path`` (a symbolic link followed to the file
    it names) to write the output into; when the block ends without an error, give it the
    permissions the file has (or a new file would get) and rename it over ``path``
    (:func:`os.replace`, atomic on one file system). On any error or interruption the
    temporary file is removed and ``path`` is left as it was; a failed write (a full disk, no
    permission) is a :class:`CapkitError` naming the option and the file. A path that is not a
    regular file (``/dev/stdout``, ``/dev/null``, a named pipe), and a writable file in a
    folder where no new file can be made, are written to directly."""
    if path.exists() and not path.is_file():  # a device or a pipe: nothing to keep whole
        try:
            yield path
        except OSError as exc:
            raise CapkitError(f"cannot write {option} {str(path)!r}: "
                              f"{exc.strerror or exc}") from exc
        return
    target = Path(os.path.realpath(path))
    existed = target.exists()
    if existed and not os.access(target.parent, os.W_OK) and os.access(target, os.W_OK):
        # a writable file in a folder that takes no new file: written in place, as before
        try:
            yield target
        except OSError as exc:
            raise CapkitError(f"cannot write {option} {str(path)!r}: "
                              f"{exc.strerror or exc}") from exc
        return
    left = "the file is left as it was" if existed else "nothing was written"
    part: Path | None = None
    try:
        handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                        suffix=".part")
        os.close(handle)
        part = Path(name)
        yield part
        mode = (target.stat().st_mode & 0o7777) if existed else (0o666 & ~_umask())
        os.chmod(part, mode)
        os.replace(part, target)
        part = None
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise CapkitError(f"cannot write {option} {str(path)!r}: {reason}; {left}") from exc
    finally:
        if part is not None:
            with contextlib.suppress(OSError):
                part.unlink()


#: Where a lack of memory happened, by the source file of the code running (the first that
#: matches, in this order): the step it names, and the report family that runs it.
_STEPS: tuple[tuple[str, str, str | None], ...] = (
    ("capkit/attacks/singling_out", "singling out", "singling out"),
    ("capkit/attacks/_query_generation", "singling out", "singling out"),
    ("capkit/attacks/linkability", "linkability", "linkability"),
    ("capkit/membership_inference/", "membership inference", "membership inference"),
    ("capkit/audit/membership_family", "membership inference", "membership inference"),
    ("capkit/attacks/", "the attribute attacks", "attribute attacks"),
    ("capkit/distance/", "distance to closest record", "distance"),
    ("capkit/audit/exposure", "the original's own exposure", "synthpop measures"),
    ("capkit/anonymity/", "the original's own exposure", "synthpop measures"),
    ("capkit/disclosure/", "synthpop's disclosure measures", "synthpop measures"),
    ("capkit/cap", "the CAP counts", "synthpop measures"),
    ("capkit/counts/", "counting the key x target tables", "synthpop measures"),
    ("capkit/synth/", "the sdc treatment", None),
    ("capkit/data/", "reading and aligning the files", None),
    ("capkit/plots/", "drawing the pictures", None),
    ("capkit/report/", "laying out the report", None),
)


def _step(exc: BaseException) -> tuple[str, str | None]:
    """The step (and report family) during which ``exc`` was raised, from the source files of
    its traceback (and of a second process's, which comes as the text of its cause)."""
    files = [frame.filename.replace(os.sep, "/") for frame in
             traceback.extract_tb(exc.__traceback__)]
    cause = exc.__cause__
    if cause is not None:
        files.append(str(cause).replace(os.sep, "/"))
    for part, step, family in _STEPS:
        if any(part in f for f in files):
            return step, family
    return "the measures", None


def _sizes(ctx: click.Context | None) -> str:
    """The sizes of the command's inputs: records and columns when read, else bytes on disk."""
    if ctx is None:
        return "its inputs"
    read = ctx.meta.get("capkit.sizes")
    if read:
        return read
    paths = []
    for value in ctx.params.values():
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, Path) and v.is_file():
                paths.append(v)
    shown = [f"{p.name} {p.stat().st_size / 1e6:,.1f} MB" for p in paths]
    return ", ".join(shown) or "its inputs"


def memory_message(exc: MemoryError, ctx: click.Context | None) -> str:
    """What a command says when memory runs out: the step, the size of the data and what to
    do about it."""
    step, family = _step(exc)
    fixes = []
    if family is not None and ctx is not None and "families" in ctx.params:
        fixes.append(f"run the report without {family} (--family naming the other families)")
    fixes += ["on fewer rows (a random sample of the records of each file, e.g. 100,000)",
              "with fewer keys, targets or columns", "or on a machine with more memory"]
    if not fixes[0].startswith("run"):
        fixes[0] = "run it " + fixes[0]
    return (f"out of memory during {step} on {_sizes(ctx)}. To finish: " + "; ".join(fixes))


def record_sizes(lines: Sequence[str]) -> None:
    """Remember the inputs' sizes (the report's input lines) for a message about memory."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta["capkit.sizes"] = "; ".join(lines)


def run_reporting_errors(body: Callable[[], None]) -> None:
    """Run a command's body: a :class:`CapkitError` becomes one ``Error:`` line (control
    characters escaped) and exit status 1; so does a lack of memory, naming the step, the
    sizes and what to do (:func:`memory_message`)."""
    try:
        body()
    except CapkitError as exc:
        raise click.ClickException(visible(str(exc), lines=True)) from exc
    except MemoryError as exc:
        raise click.ClickException(
            memory_message(exc, click.get_current_context(silent=True))) from exc
    except OSError as exc:  # a file the readers or writers did not turn into a CapkitError
        where = f" ({str(exc.filename)!r})" if exc.filename else ""
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise click.ClickException(visible(f"{reason}{where}")) from exc


FILES = click.argument("files", nargs=-1, required=True,
                        type=click.Path(path_type=Path, dir_okay=True))
KEYS = click.option("--keys", required=True, metavar="K1,K2,...",
                    help="Key columns (quasi-identifiers), comma-separated.")
FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json", "html"]),
                      default="text", show_default=True, help="Output format.")
OUTPUT = click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
                      help="Write the report to this file instead of standard output.")
NA_VALUES = click.option(
    "--na-values", default=",NA", show_default=True, metavar="V1,V2",
    help="CSV only: texts read as missing (comma-separated; the empty field is the empty text).")
SEP = click.option(
    "--sep", default=None, metavar="CHAR",
    help="CSV only: the field delimiter ('tab' for a tab) [default: ',' for .csv, a tab for "
         ".tsv].")
ALLOW_DISJOINT_LEVELS = click.option(
    "--allow-disjoint-levels", is_flag=True,
    help="Measure even a key or target whose original and synthetic levels barely overlap "
         "(fewer than half of the original records have a value found in the synthetic file): "
         "by default an error, as the files almost surely code it differently.")
ESCAPE_FORMULAS = click.option(
    "--escape-formulas/--no-escape-formulas", default=True, show_default=True,
    help="In the --records CSV file, begin a text cell that starts with =, +, -, @, a tab or a "
         "carriage return with a single quote, so that a spreadsheet shows it as text instead "
         "of running it as a formula (OWASP's rule against CSV injection).")
QUIET = click.option("--quiet", "-q", is_flag=True,
                     help="No progress bar, no warnings or notes on stderr (the report keeps "
                          "them).")

#: The options every measuring command takes, in the order they are listed.
COMMON = [KEYS, FORMAT, OUTPUT, NA_VALUES, SEP, ALLOW_DISJOINT_LEVELS, QUIET]


NUMERIC_TARGETS = click.option(
    "--numeric-targets", default=None, metavar="T1,T2,...",
    help="Targets with at most 20 distinct numbers that the attribute attack should treat as "
         "numbers, guessed within the tolerance (by default such a target is a category stored "
         "as numbers: codes 1, 2, 3 are guessed exactly).")

HOLDOUT = click.option(
    "--holdout", type=click.Path(path_type=Path), default=None,
    help="Records of the same population that were NOT used to make the synthetic data (same "
         "columns as the original): the measures are computed for them too and compared with "
         "the original's (the membership control; --engine pandas).")


def check_holdout(holdout: Path | None, engine: str) -> None:
    """``--holdout`` must exist, and needs the pandas engine (the records are compared)."""
    if holdout is None:
        return
    if not holdout.exists():
        raise CapkitError(f"--holdout file {str(holdout)!r} does not exist")
    if engine not in ("pandas", "auto"):
        raise CapkitError(f"--holdout needs --engine pandas, got --engine {engine}")


def common_options(fn: Callable) -> Callable:
    for decorator in reversed(COMMON):
        fn = decorator(fn)
    return FILES(fn)


def original_and_synthetic(files: tuple[Path, ...]) -> tuple[Path, list[Path]]:
    if len(files) < 2:
        raise CapkitError("give the original file and at least one synthetic file: "
                          "ORIGINAL SYNTHETIC [SYNTHETIC ...]")
    return files[0], list(files[1:])


def notes(inputs: Inputs, quiet: bool) -> None:
    """The warnings, notes and type alignments of the inputs, on stderr unless ``quiet``."""
    record_sizes(inputs.lines)
    if quiet:
        return
    for w in inputs.warnings:
        click.echo(visible(f"Warning: {w}", lines=True), err=True)
    for n in inputs.notes:
        click.echo(visible(f"Note: {n}", lines=True), err=True)
    for c in inputs.changes:
        click.echo(visible(f"Aligned: {c}", lines=True), err=True)


@contextlib.contextmanager
def measure_warnings(quiet: bool) -> Iterator[list[str]]:
    """Collect the :class:`~capkit.errors.CapkitWarning` s the measures give (e.g. a
    continuous target), each once, into the list yielded (filled on exit), and print them on
    stderr as ``Warning:`` lines unless ``quiet``. Other warnings pass through unchanged."""
    found: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CapkitWarning)
        yield found
    for w in caught:
        if issubclass(w.category, CapkitWarning):
            if str(w.message) not in found:
                found.append(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if not quiet:
        for text in found:
            click.echo(visible(f"Warning: {text}", lines=True), err=True)
