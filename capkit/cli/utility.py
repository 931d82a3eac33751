"""``capkit utility SYNTHETIC... --original FILE``: what each synthesis is worth
(:mod:`capkit.audit.utility_family`: synthpop's pMSE and the one- and two-way tables that fit
worst, SDNist's k-marginal score), as text, markdown, json or html.

A command of its own rather than a flag of ``capkit report``: it needs no keys, targets or
holdout and runs in seconds, where the report runs every disclosure measure; ``capkit report``
gives the same section (and, with several syntheses, the risk-utility map) beside its
verdicts. :func:`map_picture` draws the map for the report's html page.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from capkit.cli import options as opts
from capkit.cli.choices import NPERMS
from capkit.errors import CapkitError

if TYPE_CHECKING:
    import pandas as pd

    from capkit.report import Picture


def map_picture(table: pd.DataFrame) -> Picture:
    """The risk-utility map of :func:`capkit.audit.utility_family.release_map`'s table as a
    picture of the html page."""
    import matplotlib.pyplot as plt

    from capkit.plots.save import svg_bytes
    from capkit.plots.utility_map import risk_utility_map
    from capkit.report import Picture

    shown = table.copy()  # each point named with its verdict on the risk axis's finding
    shown.index = [f"{n} ({v})" for n, v in zip(table.index, table["verdict"], strict=True)]
    shown.attrs = dict(table.attrs)
    fig = risk_utility_map(shown)
    try:
        svg = svg_bytes(fig)
    finally:
        plt.close(fig)
    good = [str(n) for n in table.index[(table["region"] == "not flagged and useful")
                                        .to_numpy(bool)]]
    region = ("" if table.attrs.get("axis") == "k-marginal" else
              " Shaded: useful (S_pMSE below 10); ringed: the releases in it that their "
              "verdict does not flag.")
    unmeasured = table["verdict"] == "not measured"
    if unmeasured.any():
        missing = [str(n) for n in table.index[unmeasured.to_numpy(bool)
                                               & table["risk"].isna().to_numpy(bool)]]
        region += (" Grey cross: not measured there (neither flagged nor not flagged, off the "
                   "Pareto front)" + (f"; without a risk, not drawn: {', '.join(missing)}"
                                      if missing else "") + ".")
    return Picture(f"Risk-utility map: the risk of {table.attrs.get('risk_measure')} (x) "
                   f"against {table.attrs.get('utility_name')} (y, better upwards), each with "
                   "its 95% interval; red: the Pareto front." + region +
                   " Not flagged and useful: " + (", ".join(good) or "no release") + ".", svg)


def _check_headers(original: Path, synthetic: list[Path], sep: str | None) -> None:
    """Every synthetic file has the original's columns (a column in one only is named)."""
    from capkit.data.io import read_columns

    wanted = read_columns(original, "original", sep)
    for path in synthetic:
        have = read_columns(path, "synthetic", sep)
        only_o = [c for c in wanted if c not in have]
        only_s = [c for c in have if c not in wanted]
        if only_o or only_s:
            parts = ([f"column(s) {only_o} of the original are not in {path.name!r}"]
                     if only_o else []) + (
                [f"column(s) {only_s} of {path.name!r} are not in the original"]
                if only_s else [])
            raise CapkitError("; ".join(parts) + ": utility compares the same columns")


@click.command()
@click.argument("synthetic", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--original", "original_path", required=True, type=click.Path(path_type=Path),
              help="The original file the syntheses were made from.")
@click.option("--nworst", type=int, default=5, show_default=True,
              help="Tables listed per synthesis as fitting worst (one-way and two-way each).")
@click.option("--nperms", type=int, default=NPERMS, show_default=True,
              help="Permutations of the CART propensity model for its S_pMSE (synthpop's "
                   "default is 50; 0: pMSE only, S_pMSE NA), seeded by --seed; its standard "
                   "error is printed beside it.")
@click.option("--ngroups", type=int, default=5, show_default=True,
              help="Quantile groups of a numeric column in the tables and the k-marginal.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the permutations and of the k-marginal bootstrap.")
@opts.FORMAT
@opts.OUTPUT
@opts.NA_VALUES
@opts.SEP
@opts.QUIET
def utility(synthetic: tuple[Path, ...], original_path: Path, nworst: int, nperms: int,
            ngroups: int, seed: int, fmt: str, output: Path | None, na_values: str,
            sep: str | None, quiet: bool) -> None:
    """What each SYNTHETIC file made from the --original file is worth: synthpop's pMSE and
    S_pMSE of the one- and two-way tables (the worst listed), SDNist's k-marginal score.

    Each synthetic file is a release measured on its own against the original, on every
    column (both files must have the same columns). S_pMSE below 10 is good and below 3 very
    good (synthpop's reading).
    """
    def body() -> None:
        from capkit.audit.inputs import as_categories
        from capkit.audit.utility_family import measure
        from capkit.cli.files import load_inputs
        from capkit.data.overlap import size_note
        from capkit.report import Report, render
        from capkit.report.utility import utility_sections

        files = list(synthetic)
        opts.check_outputs([original_path, *files], ("--output", output, None))
        for option, value in (("--nworst", nworst), ("--ngroups", ngroups)):
            if value < 1:
                raise CapkitError(f"{option} must be at least 1, got {value}")
        if nperms < 0:
            raise CapkitError(f"--nperms must be 0 or more, got {nperms}")
        _check_headers(original_path, files, sep)
        inputs = load_inputs(original_path, files, [], None, na_values.split(","), sep=sep,
                             all_columns=True, target_na_option=None, check_overlaps=False)
        inputs.warnings.extend(w for p, frame in zip(files, inputs.synthetics, strict=True)
                               if (w := size_note(len(inputs.original), len(frame),
                                                  f"synthetic file {p.name}")) is not None)
        opts.notes(inputs, quiet)
        names = {f"{j}: {p.name}": frame for j, (p, frame) in
                 enumerate(zip(files, inputs.synthetics, strict=True), start=1)}
        original, named, _ = as_categories(inputs.original, names, None)
        with opts.measure_warnings(quiet):
            family = measure(original, named, nworst=nworst, nperms=nperms, seed=seed,
                             ngroups=ngroups)
        report = Report(title="Utility report", command=opts.command_line(),
                        versions=opts.versions(), inputs=[*inputs.lines, *inputs.remarks()],
                        sections=utility_sections(family), extra={"utility": family.to_dict()})
        opts.emit(render(report, fmt), output)

    opts.run_reporting_errors(body)
