"""``capkit disclosure ORIGINAL SYNTHETIC... --keys ...``: synthpop's disclosure measures
(Raab, Nowok & Dibben: identity, attribute, the CAP family, the 1-way / 2-way checks) on the
user's files, as text, markdown, json or a self-contained html page.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from capkit.cli import options as opts
from capkit.cli.figures import figure
from capkit.errors import CapkitError

if TYPE_CHECKING:
    import pandas as pd

    from capkit.cli.files import Inputs

#: Counting engines of ``capkit disclosure``: ``auto`` lets
#: :func:`capkit.counts.engines.engine_for` choose (DuckDB for Parquet/CSV files over
#: :data:`capkit.counts.engines.FILE_SIZE_THRESHOLD`, pandas otherwise).
ENGINES = ("auto", "pandas", "duckdb", "spark")


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
    import pandas as pd

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


def _no_targets() -> pd.Series:
    import pandas as pd

    return pd.Series(dtype=float)


@dataclass
class DisclosureRun:
    """Everything the disclosure report shows.

    ``cap_v2`` is Baillargeon & Charest's average CAP version 2 of each target in percent,
    averaged over the syntheses (:func:`capkit.disclosure.measures.cap_v2`); ``warnings``
    are the measures' warnings (e.g. a continuous target).
    """

    summary: object  # capkit.disclosure.DisclosureSummary
    inputs: Inputs
    options: dict[str, object]
    cap_v2: pd.Series = field(default_factory=_no_targets)
    warnings: list[str] = field(default_factory=list)


def run_disclosure(inputs: Inputs, options: dict[str, object], quiet: bool,
                   engine: str = "pandas", sep: str | None = None) -> DisclosureRun:
    """``disclosure_summary`` over all targets, with its progress bar unless ``quiet``, and
    the average CAP version 2 of each target; with ``inputs.holdout`` the summary carries the
    membership control (``summary.control``).

    With ``engine`` "duckdb" or "spark", ``inputs`` come from :func:`load_engine_inputs` (file
    paths) and the engine counts. The measures' warnings are collected (and printed on stderr
    unless ``quiet``) into ``DisclosureRun.warnings``.
    """
    import numpy as np
    import pandas as pd

    from capkit.disclosure import disclosure_summary
    from capkit.disclosure.measures import cap_v2

    per = dict(options)
    not_lev = per.pop("not_targetlev", {})
    if not_lev:
        per["not_targetslev"] = [not_lev.get(t, "") for t in inputs.targets]
    if inputs.holdout is not None:
        if engine != "pandas":
            raise CapkitError(f"--holdout needs --engine pandas, got the {engine} engine")
        per["holdout"] = inputs.holdout
    if engine == "pandas":
        sources = contextlib.nullcontext((inputs.original, inputs.synthetics))
    else:
        sources = _engine_sources(inputs, engine, sep)
        per["engine"] = engine
    with sources as (original, synthetics), opts.measure_warnings(quiet) as found:
        summary = disclosure_summary(synthetics, original, inputs.keys, list(inputs.targets),
                                     compare_synorig=False, progress=not quiet, **per)
    with np.errstate(invalid="ignore"):
        v2 = pd.Series({t: float(np.mean(cap_v2(r.allcaps["DCAP"], r.attrib["iS"])))
                        for t, r in summary.per_target.items()}, dtype=float)
    return DisclosureRun(summary, inputs, options, v2, found)


@contextlib.contextmanager
def _engine_sources(inputs: Inputs, engine: str, sep: str | None = None
                    ) -> Iterator[tuple[object, list[object]]]:
    """The files as the engine's tables of the needed columns, keys first in --keys order
    (CSV files read with ``sep`` when given).

    This is the column order the pandas path reads, so both give the keys in the same order
    (the data order of ``disclosure``).
    """
    from capkit.counts.engines import duckdb as duck
    from capkit.counts.engines import spark as spark_engine

    columns = list(inputs.keys) + list(inputs.targets)
    paths = [inputs.original, *inputs.synthetics]
    roles = ["original"] + ["synthetic"] * len(inputs.synthetics)
    if engine == "duckdb":
        con = duck.connect()
        try:
            select = ", ".join(duck.quote(c) for c in columns)
            tables = [duck.relation(p, con, r, sep=sep).select(select)
                      for p, r in zip(paths, roles, strict=True)]
            yield tables[0], tables[1:]
        finally:
            con.close()
    else:
        spark = spark_engine.session()
        tables = [spark_engine.spark_frame(p, spark, r, columns, sep=sep).select(
            *[spark_engine._col(c) for c in columns]) for p, r in zip(paths, roles, strict=True)]
        yield tables[0], tables[1:]


@click.command()
@opts.common_options
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
@opts.HOLDOUT
@click.option("--plot", "plot_path", type=click.Path(path_type=Path), default=None,
              help="Draw the summary plot into this .png or .svg file.")
def disclosure(files: tuple[Path, ...], keys: str, fmt: str, output: Path | None,
               na_values: str, sep: str | None, allow_disjoint_levels: bool, engine: str,
               quiet: bool, targets: str | None, denom_lim: int,
               exclude_over_denom_lim: bool, not_targetlev: tuple[str, ...], no_keys_na: bool,
               no_target_na: bool, ngroups_targets: int | None, ngroups_keys: int | None,
               thresh_1way: str | None, thresh_2way: str | None, cont_na: tuple[str, ...],
               holdout: Path | None, plot_path: Path | None) -> None:
    """synthpop's disclosure measures of SYNTHETIC file(s) made from the ORIGINAL file.

    FILES are the original file, then one synthetic file per synthesis (CSV, Parquet, .rda or
    .rds; a quoted glob such as 'syn1/*.parquet' is one data set). Prints the identity
    measures (UiO, repU), the attribute table of disclosure_summary (Dorig and DiSCO per
    target), the CAP family (baseline, CAP versions 1 and 2, DCAP, TCAP) and the targets or
    target-key pairs flagged by the 1-way and 2-way checks. ``--holdout FILE`` adds DiSCO
    and DCAP of records that were not used for the synthesis (the membership control).
    """

    def body() -> None:
        from capkit.cli.files import choose_disclosure_engine, load_engine_inputs, load_inputs
        from capkit.plots.disclosure import plot_summary
        from capkit.report import render
        from capkit.report.disclosure import disclosure_report

        original, synthetic = opts.original_and_synthetic(files)
        key_list = opts.split(keys, "--keys")
        target_list = opts.split(targets, "--targets")
        opts.check_outputs([*files, holdout], ("--output", output, None),
                           ("--plot", plot_path, (".png", ".svg")))
        t1 = _thresholds(thresh_1way, "--thresh-1way")
        t2 = _thresholds(thresh_2way, "--thresh-2way")
        not_lev = dict(opts.pairs(not_targetlev, "--not-targetlev"))
        cont_pairs = opts.pairs(cont_na, "--cont-na")
        opts.check_holdout(holdout, engine)
        chosen = "pandas" if holdout is not None else choose_disclosure_engine(
            engine, original, synthetic)
        if chosen == "pandas":
            inputs = load_inputs(original, synthetic, key_list, target_list,
                                 na_values.split(","), sep=sep, holdout=holdout)
        else:
            for used, option in ((cont_pairs, "--cont-na"), (ngroups_targets, "--ngroups-targets"),
                                 (ngroups_keys, "--ngroups-keys"),
                                 (na_values != ",NA", "--na-values")):
                if used:
                    raise CapkitError(f"{option} needs --engine pandas: the {chosen} engine "
                                      "counts the files without reading their records into "
                                      "Python")
            inputs = load_engine_inputs(original, synthetic, key_list, target_list, sep=sep)
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
        if allow_disjoint_levels:
            options["allow_disjoint_levels"] = True
        if not_lev:
            options["not_targetlev"] = not_lev
        if t1 is not None:
            options["thresh_1way"] = t1
        if t2 is not None:
            options["thresh_2way"] = t2
        opts.notes(inputs, quiet)
        result = run_disclosure(inputs, options, quiet, engine=chosen, sep=sep)
        with figure(plot_path, fmt, "disclosure_summary",
                    lambda: plot_summary(result.summary.attrib_table,
                                         attrib_meas=result.summary.attrib_meas)) as svg:
            report = disclosure_report(result, opts.command_line(), opts.versions(), svg)
            opts.emit(render(report, fmt), output)  # everything computed: now write

    opts.run_reporting_errors(body)

