"""The ``capkit`` command.

Subcommands:

* ``capkit reproduce``: run the experiments' notebooks and write the claims ledger.
* ``capkit disclosure ORIGINAL SYNTHETIC [SYNTHETIC ...] --keys ...``: synthpop's disclosure
  measures (identity, attribute, the CAP family and the 1-way / 2-way checks) on the user's
  CSV / Parquet / .rda / .rds files, as text, markdown, json or a self-contained html page.
* ``capkit cap ORIGINAL SYNTHETIC [SYNTHETIC ...] --keys ... --targets ...``: Baillargeon &
  Charest's average CAP (Definitions 2 and 3), the baseline, the intruder's correct
  predictions, and optionally the CAP of every original record (``--records FILE``).

Every problem with the inputs is reported as ``Error: <message>`` with a non-zero exit code,
before anything is written: results are computed in full first, files written last.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import platform
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click
import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.plots.disclosure import plot_summary

#: Counting engines of ``capkit disclosure``: ``auto`` lets
#: :func:`capkit.counts.engines.engine_for` choose (DuckDB for Parquet/CSV files over
#: :data:`capkit.counts.engines.FILE_SIZE_THRESHOLD`, pandas otherwise).
ENGINES = ("auto", "pandas", "duckdb", "spark")
#: Counting engines of ``capkit cap``: those of ``capkit.counts.tables.crosstab(..., engine=...)``.
CAP_ENGINES = ("pandas", "duckdb", "spark")

_VERSIONED = ("capkit", "numpy", "pandas", "scipy", "pyarrow", "pyreadr", "matplotlib")


class _Group(click.Group):
    """Keeps the raw command-line arguments, so that reports can print the exact command."""

    def make_context(self, info_name, args, parent=None, **extra):  # noqa: ANN001, ANN201
        raw = list(args)
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        ctx.meta["capkit.argv"] = raw
        return ctx


@click.group(cls=_Group)
@click.version_option(package_name="capkit")
def main() -> None:
    """capkit: disclosure risk of synthetic data (CAP, synthpop's measures), reproduced."""


@main.command()
@click.option("--quick", is_flag=True, help="Use each experiment's quick parameters.")
@click.option("--only", metavar="NAME", help="Run only this experiment.")
@click.option("--store", is_flag=True,
              help="Execute the notebooks in place, refreshing their stored outputs.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Project folder with experiments/ and notebooks/.")
def reproduce(quick: bool, only: str | None, store: bool, root: Path) -> None:
    """Execute the experiments' notebooks and write figures/claims.md."""
    from capkit import reproduce as reproduce_mod

    try:
        ledgers = reproduce_mod.run(root.resolve(), quick=quick, only=only, store=store)
    except CapkitError as exc:
        raise click.ClickException(str(exc)) from exc
    if store:
        click.echo("notebooks refreshed in place")
        return
    failed = [c for lg in ledgers for c in lg.claims if not c.ok]
    total = sum(len(lg.claims) for lg in ledgers)
    click.echo(f"{total} claims checked, {len(failed)} not reproduced; ledger: figures/claims.md")
    for c in failed:
        click.echo(f"  NOT reproduced: {c.id}: paper {c.paper}, reproduced {c.reproduced}",
                   err=True)
    if failed:
        sys.exit(1)


# ------------------------------------------------------------------------------------------
# Shared by `disclosure` and `cap`: reading, checking and aligning the input files


@dataclass
class Inputs:
    """The aligned data of a command, and what the user should be told about it."""

    original: pd.DataFrame
    synthetics: list[pd.DataFrame]
    keys: list[str]
    targets: list[str]
    lines: list[str]
    changes: list[str]
    warnings: list[str] = field(default_factory=list)


def _split(value: str | None, option: str) -> list[str] | None:
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


def _pairs(values: Sequence[str], option: str) -> list[tuple[str, str]]:
    out = []
    for v in values:
        if "=" not in v:
            raise CapkitError(f"{option} takes column=value, got {v!r}")
        column, _, value = v.partition("=")
        if not column.strip():
            raise CapkitError(f"{option} takes column=value, got {v!r}")
        out.append((column.strip(), value))
    return out


def _levels(series: pd.Series) -> int:
    return int(series.nunique(dropna=False))


def _targets_with_levels(targets: list[str], levels: dict[str, int], min_levels: int,
                         explicit: bool, warnings: list[str],
                         values: dict[str, object] | None = None) -> list[str]:
    """The targets with at least ``min_levels`` levels in the original; the others raise (if
    the user named them) or are skipped with a warning."""
    kept = []
    for t in targets:
        if levels[t] < min_levels:
            shown = f" ({values[t]!r})" if values is not None else ""
            message = (f"target column {t!r} has a single level{shown} in the original file: "
                       "attribute disclosure needs at least two")
            if explicit:
                raise CapkitError(message)
            warnings.append(message + "; skipped")
        else:
            kept.append(t)
    if not kept:
        raise CapkitError("no target left: every candidate target has a single level")
    return kept


def _check_file_arguments(synthetic: list[Path], keys: list[str], targets: list[str] | None
                          ) -> None:
    """At least one synthetic file; no target among the keys."""
    if not synthetic:
        raise CapkitError("give at least one synthetic file after the original file")
    clash = [t for t in targets or [] if t in keys]
    if clash:
        raise CapkitError(f"target column {clash[0]!r} is also a key; a target cannot be a key")


def _check_same_columns(synthetic: list[Path], headers: list[list[str]]) -> None:
    """Every synthesis must have the columns of the first one."""
    for p, h in zip(synthetic[1:], headers[1:], strict=True):
        if set(h) != set(headers[0]):
            missing = [c for c in headers[0] if c not in h]
            extra = [c for c in h if c not in headers[0]]
            raise CapkitError(
                f"synthetic file {p.name!r} has different columns from {synthetic[0].name!r}"
                f" (missing: {missing}, extra: {extra}); every synthesis must have the same "
                "columns")


def _default_targets(synthetic_columns: Sequence[str], original_columns: Sequence[str],
                     keys: list[str]) -> list[str]:
    """Every synthetic column that is not a key and is in the original (when its columns are
    known: ``original_columns`` empty means unknown)."""
    targets = [c for c in synthetic_columns
               if c not in keys and (not original_columns or c in original_columns)]
    if not targets:
        raise CapkitError("no target: the synthetic files have no column besides the keys "
                          "that is also in the original file; give --targets")
    return targets


def _check_keys_present(label: str, present: dict[str, int]) -> None:
    """A key with no non-missing value (``present``: key -> non-missing count) raises."""
    for k, count in present.items():
        if count == 0:
            raise CapkitError(f"key column {k!r} is missing (NA) in every record of "
                              f"{label}; a key must have values")


def _unique_key_warnings(n: int, distinct: dict[str, int]) -> list[str]:
    """A warning per key with as many distinct values as the ``n`` original records."""
    return [f"key {k!r} has {d} distinct values in the {n} original records: every record is "
            "unique on it, so every record is an identity-disclosure risk (is it an "
            "identifier?)" for k, d in distinct.items() if n > 1 and d >= n]


def load_inputs(
    original: Path,
    synthetic: Sequence[Path],
    keys: list[str],
    targets: list[str] | None,
    na_values: Sequence[str],
    *,
    min_target_levels: int = 2,
) -> Inputs:
    """Read, check and align the files of a command (the input hardening of issue 8).

    Raises :class:`CapkitError` for: a missing / unreadable / empty file; duplicated column
    names; a key or target absent from a file; synthetic files with different columns; a key
    that is missing in every record; an explicitly requested target with a single level; types
    that cannot be aligned. Warns (``Inputs.warnings``) when a key has as many distinct values
    as there are records (every record unique), and when a default target is skipped.
    """
    from capkit.data import io
    from capkit.data.align import align_frames

    _check_file_arguments(synthetic, keys, targets)
    headers = [io.read_columns(p) if io.exists(p) else None for p in synthetic]
    for p, h in zip(synthetic, headers, strict=True):
        if h is None:
            raise CapkitError(f"synthetic file {str(p)!r} does not exist")
    _check_same_columns(synthetic, headers)
    explicit = targets is not None
    if targets is None:
        orig_header = io.read_columns(original) if io.exists(original) else []
        targets = _default_targets(headers[0], orig_header, keys)
    roles = {**{k: "key" for k in keys}, **{t: "target" for t in targets}}
    needed = keys + targets
    orig_file = io.read_table(original, needed, role="original", na_values=na_values,
                              column_roles=roles)
    syn_files = [io.read_table(p, needed, role="synthetic", na_values=na_values,
                               column_roles=roles) for p in synthetic]
    for f in [orig_file, *syn_files]:
        _check_keys_present(f.label, {k: int(f.frame[k].count()) for k in keys})
    n = len(orig_file.frame)
    warnings = _unique_key_warnings(
        n, {k: int(orig_file.frame[k].nunique(dropna=True)) for k in keys})
    kept = _targets_with_levels(
        targets, {t: _levels(orig_file.frame[t]) for t in targets}, min_target_levels, explicit,
        warnings, {t: orig_file.frame[t].iloc[0] for t in targets})
    aligned = align_frames(orig_file.frame, [f.frame for f in syn_files], keys + kept)
    lines = [f"original: {orig_file.path.name} ({n} records, {len(orig_file.columns)} columns)"]
    lines += [f"synthetic {j}: {f.path.name} ({len(f.frame)} records)"
              for j, f in enumerate(syn_files, start=1)]
    lines.append(f"columns read: {', '.join(keys + kept)}")
    return Inputs(aligned.original, aligned.synthetics, keys, kept, lines, aligned.changes,
                  warnings)


def _file_stats(rel: object, role: str, keys: list[str], targets: list[str]
                ) -> tuple[int, dict[str, int], dict[str, int], dict[str, int]]:
    """One DuckDB pass over a file's relation: records, non-missing and distinct values of
    the keys, number of levels (missing counted as one) of the targets."""
    from capkit.counts.engines import duckdb as duck

    q = duck.quote
    exprs = ["count(*)"] + [f"count({q(k)})" for k in keys]
    exprs += [f"count(DISTINCT {q(k)})" for k in keys]
    exprs += [f"count(DISTINCT {q(t)}) + (count({q(t)}) < count(*))::INTEGER" for t in targets]
    try:
        row = rel.aggregate(", ".join(exprs)).fetchall()[0]  # type: ignore[attr-defined]
    except Exception as exc:  # duckdb's own exception hierarchy
        raise CapkitError(f"{role} data could not be read by DuckDB: {exc}") from exc
    n_k = len(keys)
    values = [int(v) for v in row]
    return (values[0], dict(zip(keys, values[1:1 + n_k], strict=True)),
            dict(zip(keys, values[1 + n_k:1 + 2 * n_k], strict=True)),
            dict(zip(targets, values[1 + 2 * n_k:], strict=True)))


def load_engine_inputs(
    original: Path,
    synthetic: Sequence[Path],
    keys: list[str],
    targets: list[str] | None,
    *,
    min_target_levels: int = 2,
) -> Inputs:
    """The checks and notes of :func:`load_inputs` for a DuckDB/Spark run, without reading the
    records into Python: headers from the file schemas, counts from one DuckDB pass per file
    (one DuckDB relation per file serves both).

    ``Inputs.original`` / ``Inputs.synthetics`` are then the paths (globs allowed), for the
    engine to count. Columns are not type-aligned: a column must have the same kind (number,
    text, date) in every file, else the engine raises a :class:`CapkitError` naming it.
    """
    from capkit.counts.engines import duckdb as duck
    from capkit.data import io

    _check_file_arguments(synthetic, keys, targets)
    orig_src, syn_src = str(original), [str(p) for p in synthetic]
    con = duck.connect()
    try:
        orig_rel = duck.relation(orig_src, con, "original")
        syn_rels = [duck.relation(s, con, "synthetic") for s in syn_src]
        orig_header = [str(c) for c in orig_rel.columns]
        headers = [[str(c) for c in rel.columns] for rel in syn_rels]
        _check_same_columns(synthetic, headers)
        explicit = targets is not None
        if targets is None:
            targets = _default_targets(headers[0], orig_header, keys)
        roles = {**{k: "key" for k in keys}, **{t: "target" for t in targets}}
        for role, path, header in [("original", original, orig_header),
                                   *[("synthetic", p, h) for p, h in
                                     zip(synthetic, headers, strict=True)]]:
            io.check_columns(header, keys + targets, f"{role} file {path.name!r}", roles)
        n, present, distinct, levels = _file_stats(orig_rel, "original", keys, targets)
        orig_label = f"original file {original.name!r}"
        syn_counts = []
        for p, rel in zip(synthetic, syn_rels, strict=True):
            n_s, present_s, _, _ = _file_stats(rel, "synthetic", keys, [])
            syn_counts.append(n_s)
            for label, count, nonmissing in [(orig_label, n, present),
                                             (f"synthetic file {p.name!r}", n_s, present_s)]:
                if count == 0:
                    raise CapkitError(f"{label} is empty: it has a header but no rows")
                _check_keys_present(label, nonmissing)
    finally:
        con.close()
    warnings = _unique_key_warnings(n, distinct)
    kept = _targets_with_levels(targets, levels, min_target_levels, explicit, warnings)
    lines = [f"original: {original.name} ({n} records, {len(orig_header)} columns)"]
    lines += [f"synthetic {j}: {p.name} ({n_s} records)"
              for j, (p, n_s) in enumerate(zip(synthetic, syn_counts, strict=True), start=1)]
    lines.append(f"columns read: {', '.join(keys + kept)}")
    return Inputs(orig_src, syn_src, keys, kept, lines, [], warnings)  # type: ignore[arg-type]


def choose_disclosure_engine(engine: str, original: Path, synthetic: Sequence[Path]) -> str:
    """The engine of a ``capkit disclosure`` run: ``engine`` unless it is ``auto``.

    ``auto``: :func:`capkit.counts.engines.engine_for` on the files (DuckDB above
    :data:`capkit.counts.engines.FILE_SIZE_THRESHOLD` bytes of Parquet/CSV, pandas otherwise); R
    files, and files with a problem, go to pandas, whose reader reports the problem.
    """
    if engine != "auto":
        return engine
    from capkit.counts import engines

    try:
        return engines.engine_for(str(original), [str(p) for p in synthetic])
    except CapkitError:
        return "pandas"


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def _command_line() -> str:
    ctx = click.get_current_context()
    raw = ctx.meta.get("capkit.argv")
    if raw is None:
        raw = sys.argv[1:]
    return "capkit " + shlex.join(raw)


def _progress(total: int, quiet: bool, unit: str):  # noqa: ANN202 - tqdm
    from tqdm import tqdm

    # shown only when the work takes more than a second (delay), never with --quiet
    return tqdm(total=total, disable=quiet, delay=1.0, unit=unit, file=sys.stderr,
                leave=False, dynamic_ncols=True)


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")


def _check_output(path: Path | None, option: str, suffixes: tuple[str, ...] | None = None
                  ) -> None:
    if path is None:
        return
    if path.exists() and path.is_dir():
        raise CapkitError(f"{option} {str(path)!r} is a folder; give a file name")
    if not path.parent.exists():
        raise CapkitError(f"{option} {str(path)!r}: folder {str(path.parent)!r} does not exist")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise CapkitError(f"{option} must end in {' or '.join(suffixes)}, got {path.name!r}")


def _run(body: Callable[[], None]) -> None:
    try:
        body()
    except CapkitError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:  # writing the report / plot / records failed
        raise click.ClickException(f"cannot write {exc.filename!r}: {exc.strerror}") from exc


_FILES = click.argument("files", nargs=-1, required=True,
                        type=click.Path(path_type=Path, dir_okay=True))
_COMMON = [
    click.option("--keys", required=True, metavar="K1,K2,...",
                 help="Key columns (quasi-identifiers), comma-separated."),
    click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json", "html"]),
                 default="text", show_default=True, help="Output format."),
    click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
                 help="Write the report to this file instead of standard output."),
    click.option("--na-values", default=",NA", show_default=True, metavar="V1,V2",
                 help="CSV only: texts read as missing (comma-separated; the empty field is "
                      "the empty text)."),
    click.option("--quiet", "-q", is_flag=True, help="No progress bar, no notes on stderr."),
]


def _common(fn: Callable) -> Callable:
    for decorator in reversed(_COMMON):
        fn = decorator(fn)
    return _FILES(fn)


def _files(files: tuple[Path, ...]) -> tuple[Path, list[Path]]:
    if len(files) < 2:
        raise CapkitError("give the original file and at least one synthetic file: "
                          "ORIGINAL SYNTHETIC [SYNTHETIC ...]")
    return files[0], list(files[1:])


def _notes(inputs: Inputs, quiet: bool) -> None:
    if quiet:
        return
    for w in inputs.warnings:
        click.echo(f"Warning: {w}", err=True)
    for c in inputs.changes:
        click.echo(f"Aligned: {c}", err=True)


# ------------------------------------------------------------------------------------------
# capkit disclosure


def _thresholds(value: str | None, option: str) -> tuple[float, float] | None:
    if value is None:
        return None
    parts = value.split(",")
    try:
        count, pct = (float(p) for p in parts)
    except ValueError as exc:
        raise CapkitError(f"{option} takes COUNT,PERCENT (e.g. 50,90), got {value!r}") from exc
    return count, pct


def _cont_na(pairs: list[tuple[str, str]], inputs: Inputs) -> dict[str, list[float]] | None:
    if not pairs:
        return None
    out: dict[str, list[float]] = {}
    for column, text in pairs:
        if column not in inputs.keys + inputs.targets:
            raise CapkitError(f"--cont-na {column}={text}: column {column!r} is not a key or a "
                              "target")
        series = inputs.original[column]
        if not pd.api.types.is_numeric_dtype(series.dtype) or \
                pd.api.types.is_bool_dtype(series.dtype):
            raise CapkitError(f"--cont-na {column}={text}: column {column!r} is not numeric in "
                              "the original file; special codes apply to numeric columns")
        try:
            value = float(text)
        except ValueError as exc:
            raise CapkitError(f"--cont-na {column}={text}: {text!r} is not a number") from exc
        count = int((series == value).sum())
        if count == 0:
            raise CapkitError(f"--cont-na {column}={text}: value {text} does not occur in "
                              f"column {column!r} of the original file")
        out.setdefault(column, []).append(value)
    return out


@dataclass
class DisclosureRun:
    """Everything the disclosure report shows."""

    summary: object  # capkit.disclosure.DisclosureSummary
    inputs: Inputs
    options: dict[str, object]


def run_disclosure(inputs: Inputs, options: dict[str, object], quiet: bool,
                   engine: str = "pandas") -> DisclosureRun:
    """``disclosure_summary`` over all targets, with its progress bar unless ``quiet``.

    With ``engine`` "duckdb" or "spark", ``inputs`` come from :func:`load_engine_inputs` (file
    paths) and the engine counts.
    """
    from capkit.disclosure import disclosure_summary

    per = dict(options)
    not_lev = per.pop("not_targetlev", {})
    if not_lev:
        per["not_targetslev"] = [not_lev.get(t, "") for t in inputs.targets]
    if engine == "pandas":
        sources = contextlib.nullcontext((inputs.original, inputs.synthetics))
    else:
        sources = _engine_sources(inputs, engine)
        per["engine"] = engine
    with sources as (original, synthetics):
        summary = disclosure_summary(synthetics, original, inputs.keys, list(inputs.targets),
                                     compare_synorig=False, progress=not quiet, **per)
    return DisclosureRun(summary, inputs, options)


@contextlib.contextmanager
def _engine_sources(inputs: Inputs, engine: str) -> Iterator[tuple[object, list[object]]]:
    """The files as the engine's tables of the needed columns, keys first in --keys order.

    This is the column order the pandas path reads, so both give the keys in the same order
    (the data order of ``disclosure``).
    """
    columns = list(inputs.keys) + list(inputs.targets)
    paths = [inputs.original, *inputs.synthetics]
    roles = ["original"] + ["synthetic"] * len(inputs.synthetics)
    if engine == "duckdb":
        from capkit.counts.engines import duckdb as duck

        con = duck.connect()
        try:
            select = ", ".join(duck.quote(c) for c in columns)
            tables = [duck.relation(p, con, r).select(select)
                      for p, r in zip(paths, roles, strict=True)]
            yield tables[0], tables[1:]
        finally:
            con.close()
    else:
        from capkit.counts.engines import spark as spark_engine

        spark = spark_engine.session()
        tables = [spark_engine.spark_frame(p, spark, r, columns).select(
            *[spark_engine._col(c) for c in columns]) for p, r in zip(paths, roles, strict=True)]
        yield tables[0], tables[1:]


@main.command()
@_common
@click.option("--engine", type=click.Choice(ENGINES), default="auto", show_default=True,
              help="Counting engine: auto = DuckDB for Parquet/CSV files over 1 GiB, pandas "
                   "otherwise (duckdb/spark: only counts reach Python; no --cont-na, "
                   "--ngroups-*).")
@click.option("--targets", metavar="T1,T2,...", default=None,
              help="Target columns (default: every synthetic column that is not a key).")
@click.option("--denom-lim", type=int, default=5, show_default=True,
              help="Cell-count limit, used with --exclude-over-denom-lim.")
@click.option("--exclude-over-denom-lim", is_flag=True,
              help="Exclude cells with more than --denom-lim records.")
@click.option("--not-targetlev", multiple=True, metavar="TARGET=LEVEL",
              help="Exclude this level of this target (repeatable).")
@click.option("--no-keys-na", is_flag=True,
              help="Exclude records with a missing key (synthpop usekeysNA = FALSE).")
@click.option("--no-target-na", is_flag=True,
              help="Exclude records with a missing target (usetargetNA = FALSE).")
@click.option("--ngroups-targets", type=int, default=None,
              help="Group numeric targets into about this many classes.")
@click.option("--ngroups-keys", type=int, default=None,
              help="Group numeric keys into about this many classes.")
@click.option("--thresh-1way", default=None, metavar="COUNT,PCT",
              help="1-way check thresholds [default: 50,90].")
@click.option("--thresh-2way", default=None, metavar="COUNT,PCT",
              help="2-way check thresholds [default: 4,80].")
@click.option("--cont-na", multiple=True, metavar="COLUMN=VALUE",
              help="A special/missing code of a numeric column (repeatable).")
@click.option("--plot", "plot_path", type=click.Path(path_type=Path), default=None,
              help="Draw the summary plot into this .png or .svg file.")
def disclosure(files: tuple[Path, ...], keys: str, fmt: str, output: Path | None,
               na_values: str, engine: str, quiet: bool, targets: str | None, denom_lim: int,
               exclude_over_denom_lim: bool, not_targetlev: tuple[str, ...], no_keys_na: bool,
               no_target_na: bool, ngroups_targets: int | None, ngroups_keys: int | None,
               thresh_1way: str | None, thresh_2way: str | None, cont_na: tuple[str, ...],
               plot_path: Path | None) -> None:
    """synthpop's disclosure measures of SYNTHETIC file(s) made from the ORIGINAL file.

    FILES are the original file, then one synthetic file per synthesis (CSV, Parquet, .rda or
    .rds; a quoted glob such as 'syn1/*.parquet' is one data set). Prints the identity
    measures (UiO, repU), the attribute table of disclosure_summary (Dorig and DiSCO per
    target), the CAP family (baseline, CAP versions 1 and 2, DCAP, TCAP) and the targets or
    target-key pairs flagged by the 1-way and 2-way checks.
    """

    def body() -> None:
        original, synthetic = _files(files)
        key_list = _split(keys, "--keys")
        target_list = _split(targets, "--targets")
        _check_output(output, "--output")
        _check_output(plot_path, "--plot", (".png", ".svg"))
        t1 = _thresholds(thresh_1way, "--thresh-1way")
        t2 = _thresholds(thresh_2way, "--thresh-2way")
        not_lev = dict(_pairs(not_targetlev, "--not-targetlev"))
        cont_pairs = _pairs(cont_na, "--cont-na")
        chosen = choose_disclosure_engine(engine, original, synthetic)
        if chosen == "pandas":
            inputs = load_inputs(original, synthetic, key_list, target_list,
                                 na_values.split(","))
        else:
            for used, option in ((cont_pairs, "--cont-na"), (ngroups_targets, "--ngroups-targets"),
                                 (ngroups_keys, "--ngroups-keys"),
                                 (na_values != ",NA", "--na-values")):
                if used:
                    raise CapkitError(f"{option} needs --engine pandas: the {chosen} engine "
                                      "counts the files without reading their records into "
                                      "Python")
            inputs = load_engine_inputs(original, synthetic, key_list, target_list)
        unknown = [t for t in not_lev if t not in inputs.targets]
        if unknown:
            raise CapkitError(f"--not-targetlev names {unknown[0]!r}, which is not a target "
                              f"(targets: {inputs.targets})")
        options: dict[str, object] = {
            "denom_lim": denom_lim, "exclude_ov_denom_lim": exclude_over_denom_lim,
            "usekeys_na": not no_keys_na, "usetargets_na": not no_target_na,
            "ngroups_targets": ngroups_targets, "ngroups_keys": ngroups_keys,
            "cont_na": _cont_na(cont_pairs, inputs) if chosen == "pandas" else None,
        }
        if not_lev:
            options["not_targetlev"] = not_lev
        if t1 is not None:
            options["thresh_1way"] = t1
        if t2 is not None:
            options["thresh_2way"] = t2
        _notes(inputs, quiet)
        result = run_disclosure(inputs, options, quiet, engine=chosen)
        figure_svg = None
        fig = None
        if (plot_path is not None or fmt == "html"):
            fig = plot_summary(result.summary.attrib_table,
                               attrib_meas=result.summary.attrib_meas)
        from capkit.report import render
        from capkit.report.disclosure import disclosure_report

        with tempfile.TemporaryDirectory() as tmp:
            saved: list[Path] = []
            if fig is not None:
                from capkit import plots

                saved = plots.save(fig, "disclosure_summary", tmp)
                figure_svg = saved[1].read_bytes()
            report = disclosure_report(result, _command_line(), _versions(), figure_svg)
            text = render(report, fmt)
            # everything computed: now write
            _emit(text, output)
            if plot_path is not None and saved:
                source = saved[0] if plot_path.suffix.lower() == ".png" else saved[1]
                shutil.copyfile(source, plot_path)

    _run(body)


# ------------------------------------------------------------------------------------------
# capkit cap


@dataclass
class CapRun:
    """Results of ``capkit cap``: one row per (target, synthesis), and per-record CAPs."""

    table: pd.DataFrame
    inputs: Inputs
    dropna: bool
    records: pd.DataFrame | None = None


def compute_cap(inputs: Inputs, *, dropna: bool = False, engine: str = "pandas",
                quiet: bool = True, with_records: bool = False) -> CapRun:
    """Average CAP v1/v2 (Definitions 2-3), baseline and correct predictions per target and
    synthesis, from one :func:`capkit.counts.tables.crosstab` per pair; per-record CAP (Definition
    1)
    when ``with_records``."""
    from capkit import cap as capm
    from capkit.counts.tables import crosstab

    if engine not in CAP_ENGINES:
        raise CapkitError(f"engine must be one of {CAP_ENGINES}, got {engine!r}")
    if with_records and engine != "pandas":
        raise CapkitError("--records needs --engine pandas: the other engines count without "
                          "bringing records back to Python")
    count_options = {} if engine == "pandas" else {"engine": engine}
    m = len(inputs.synthetics)
    rows = []
    record_columns: dict[str, np.ndarray] = {}
    with _progress(len(inputs.targets) * m, quiet, "target x synthesis") as bar:
        for target in inputs.targets:
            bar.set_description_str(target, refresh=False)
            for j, syn in enumerate(inputs.synthetics, start=1):
                table = crosstab(inputs.original, syn, inputs.keys, target, dropna=dropna,
                                 **count_options)
                o, s = table.original, table.synthetic
                n = int(o.sum())
                if n == 0:
                    raise CapkitError(f"target {target!r}: no original record left after "
                                      "--dropna")
                if int(s.sum()) == 0:
                    raise CapkitError(f"target {target!r}: no record of synthetic file {j} "
                                      "left after --dropna")
                m_j = np.asarray(s.sum(axis=0)).ravel()
                covered = int(np.asarray(o.sum(axis=0)).ravel()[m_j > 0].sum())
                v2 = capm.average_cap(o, s, 2) if covered > 0 else float("nan")
                rows.append({
                    "target": target, "synthesis": j, "records": n,
                    "baseline": capm.baseline_cap(o),
                    "CAP v1": capm.average_cap(o, s, 1), "CAP v2": v2,
                    "correct predictions": capm.correct_predictions(o, s) / n,
                    "key not in synthetic": 1 - covered / n,
                })
                if with_records:
                    individual = capm.individual_cap(o, s)
                    i, jj = table.record_cell[:, 0], table.record_cell[:, 1]
                    values = np.full(len(i), np.nan)
                    kept = i >= 0
                    if hasattr(individual, "tocsr"):
                        values[kept] = np.asarray(individual.tocsr()[i[kept], jj[kept]]).ravel()
                    else:
                        values[kept] = individual[i[kept], jj[kept]]
                    name = f"CAP_{target}" if m == 1 else f"CAP_{target}_{j}"
                    record_columns[name] = values
                bar.update(1)
    records = None
    if with_records:
        records = inputs.original[inputs.keys + inputs.targets].copy()
        records.insert(0, "record", np.arange(1, len(records) + 1))
        for name, values in record_columns.items():
            records[name] = values
    return CapRun(pd.DataFrame(rows), inputs, dropna, records)


@main.command()
@_common
@click.option("--engine", type=click.Choice(CAP_ENGINES), default="pandas", show_default=True,
              help="Counting engine (duckdb/spark: capkit.counts.tables.crosstab's engines; "
                   "--records needs pandas).")
@click.option("--targets", "--target", "targets", required=True, metavar="T1,T2,...",
              help="Target column(s); each is measured on its own.")
@click.option("--dropna", is_flag=True,
              help="Leave out records with a missing key or target (default: missing is a "
                   "level of its own).")
@click.option("--records", type=click.Path(path_type=Path), default=None,
              help="Write the CAP of every original record to this CSV file.")
def cap(files: tuple[Path, ...], keys: str, fmt: str, output: Path | None, na_values: str,
        engine: str, quiet: bool, targets: str, dropna: bool, records: Path | None) -> None:
    """Baillargeon & Charest's CAP of SYNTHETIC file(s) made from the ORIGINAL file.

    For each target and synthesis: the average CAP version 1 (Definition 2: over all original
    records, an unmatched key counting 0) and version 2 (Definition 3: over records whose key
    appears in the synthetic data), the baseline CAP (sum of squared target shares), and the
    share of original records an intruder predicts right with the most frequent synthetic
    target of their key. ``--records FILE`` writes the individual CAP (Definition 1) of every
    original record.
    """

    def body() -> None:
        original, synthetic = _files(files)
        key_list = _split(keys, "--keys")
        target_list = _split(targets, "--targets")
        _check_output(output, "--output")
        _check_output(records, "--records", (".csv",))
        if records is not None and engine != "pandas":
            raise CapkitError("--records needs --engine pandas: the other engines count "
                              "without bringing records back to Python")
        inputs = load_inputs(original, synthetic, key_list, target_list, na_values.split(","))
        _notes(inputs, quiet)
        from capkit.report import render
        from capkit.report.cap import cap_report

        result = compute_cap(inputs, dropna=dropna, engine=engine, quiet=quiet,
                             with_records=records is not None)
        report = cap_report(result, _command_line(), _versions())
        text = render(report, fmt)
        _emit(text, output)
        if records is not None:
            result.records.to_csv(records, index=False)

    _run(body)


if __name__ == "__main__":
    main()
