"""What the ``capkit`` commands share besides reading files: the common options, parsing of
list and ``column=value`` options, progress bars, the warnings and notes on stderr, writing the
report, and turning a :class:`~capkit.errors.CapkitError` into one ``Error:`` line and exit
status 1.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import platform
import shlex
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import click
from tqdm import tqdm

from capkit.cli.files import Inputs
from capkit.errors import CapkitError, CapkitWarning

_VERSIONED = ("capkit", "numpy", "pandas", "scipy", "pyarrow", "pyreadr", "matplotlib")


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
    # shown only when the work takes more than a second (delay), never with --quiet
    return tqdm(total=total, disable=quiet, delay=1.0, unit=unit, file=sys.stderr,
                leave=False, dynamic_ncols=True)


def emit(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")


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


def run_reporting_errors(body: Callable[[], None]) -> None:
    try:
        body()
    except CapkitError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:  # writing the report / plot / records failed
        raise click.ClickException(f"cannot write {exc.filename!r}: {exc.strerror}") from exc


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
    if quiet:
        return
    for w in inputs.warnings:
        click.echo(f"Warning: {w}", err=True)
    for n in inputs.notes:
        click.echo(f"Note: {n}", err=True)
    for c in inputs.changes:
        click.echo(f"Aligned: {c}", err=True)


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
            click.echo(f"Warning: {text}", err=True)
