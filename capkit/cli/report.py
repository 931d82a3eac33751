"""``capkit report ORIGINAL SYNTHETIC... [--holdout FILE]``: every measure family of capkit on
the user's files, each finding judged in plain words (docs/custodian-report.md), as text,
markdown, json or a self-contained html page.

The measures run through :func:`capkit.audit.audit` (the verdict rules are
:mod:`capkit.audit.verdicts`); the report is arranged by :mod:`capkit.report.custodian`. The
exit status is 0 whatever the verdicts, unless ``--fail-on`` names a level that was reached
(then 2, after the report is written).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from capkit import processes
from capkit.cli import options as opts
from capkit.cli.choices import FAMILIES, NPERMS, UTILITY_AXES
from capkit.cli.options import visible
from capkit.errors import CapkitError

if TYPE_CHECKING:
    from capkit.audit import Audit
    from capkit.report import Picture

#: Exit status when a --fail-on level was reached.
FAIL_STATUS = 2


#: Pictures drawn in the audit's second process when it runs (:mod:`capkit.processes`): the
#: forest plot of every finding and the heatmaps, about half of the drawing.
AWAY_PICTURES = ("forest", "heatmap")


def pictures(result: Audit) -> list[Picture]:
    """The html page's pictures of an audit: the forest plot of every finding's risk, the
    verdict grid, (when the distance family ran) the distances to closest record, the records
    at risk and (when the sweep ran) the key x target heatmap of each synthesis. Where the
    audit started a second process, it draws the forest plot and the heatmaps meanwhile (the
    same bytes: tests/test_report_exposure_html.py)."""
    import numpy as np

    from capkit.plots.custodian import page_svg  # only a page with pictures needs matplotlib
    from capkit.report import Picture
    from capkit.report.custodian import TOP_RECORDS

    wanted: list[tuple[str, str, tuple, dict]] = []
    if any(f.risk is not None for f in result.findings):
        wanted.append(("Every finding's risk (m - c) / (1 - c) with its 95% interval, one row "
                       "per finding; colour, marker (square disclosive, triangle review, circle "
                       "not flagged) and the word at the right give the verdict.",
                       "forest", (result.findings,), {}))
    if result.findings:
        wanted.append(("The worst verdict of each synthesis (rows) and measure family "
                       "(columns).", "grid", (result.findings, result.syntheses), {}))
    if result.distances:
        wanted.append(("Gower distance of each member (hatched) and holdout record (dashed) "
                       "to the closest synthetic record, in % of each group; dotted: the "
                       "near-copy threshold (the holdout's 5% quantile).", "distances",
                       (result.distances,), {}))
    table = result.records_flagged  # flags beyond the control only
    if not table.empty and (table["score"] > 0).any():
        wanted.append((f"The {TOP_RECORDS} members most exposed by each synthesis (rows, by "
                       "rank) and the measures flagging them (columns): each flagged cell names "
                       "its flag and is coloured by its weight in the score (vermillion 5, "
                       "orange 3, blue 2, grey 1); the score at the right. Row numbers only, no "
                       "values.", "records", (table, TOP_RECORDS), {}))
    worst = result.worst_combinations
    matrices = {} if worst is None else worst.matrices
    # one colour scale for every synthesis: one colour, one value
    cells = [m.to_numpy(dtype=float) for m in matrices.values()]
    finite = np.concatenate([c[np.isfinite(c)] for c in cells]) if cells else np.array([])
    bound = float(np.max(np.abs(finite))) if finite.size else 1.0
    control = worst is not None and worst.by == "advantage"
    what = ("DiSCO of the members less DiSCO of the holdout (percentage points, the control)"
            if control else "DiSCO - Dorig (percentage points)")
    colours = ("red: the synthesis discloses more about its members than about the holdout on "
               "those keys, blue: less" if control else
               "red: the synthesis discloses more than the original on those keys, blue: less")
    for name, matrix in matrices.items():
        wanted.append((f"{name}: {what} of each key (rows) and target (columns), the mean over "
                       f"the {worst.size}-key combinations containing the key (SDNist's "
                       f"k-DiSCO heatmap); {colours}; one colour scale for every synthesis "
                       f"(+/-{bound:.1f} points); each cell written.", "heatmap", (matrix,),
                       {"title": name, "bound": bound,
                        "label": ("members' - holdout's DiSCO (points)" if control else
                                  "DiSCO - Dorig (percentage points)")}))
    away = {}
    if processes.started() and len(wanted) > 1:
        try:
            pool = processes.executor()
            away = {j: pool.submit(page_svg, kind, args, options)
                    for j, (_, kind, args, options) in enumerate(wanted)
                    if kind in AWAY_PICTURES}
        except Exception:  # noqa: BLE001 (no second process: drawn here)
            away = {}
    drawn = {j: page_svg(kind, args, options) for j, (_, kind, args, options) in enumerate(wanted)
             if j not in away}
    for j, future in away.items():
        try:
            drawn[j] = future.result()
        except Exception:  # noqa: BLE001 - not drawn there (the process died, say): here
            _, kind, args, options = wanted[j]
            drawn[j] = page_svg(kind, args, options)
    return [Picture(caption, drawn[j]) for j, (caption, *_) in enumerate(wanted)]


@click.command()
@opts.FILES
@click.option("--keys", default=None, metavar="K1,K2,...",
              help="Key columns (default: 4 columns with 2 to 20 levels, demographic-looking "
                   "names first, few missing values; the report says why).")
@click.option("--targets", default=None, metavar="T1,T2,...",
              help="Target columns (default: every other column with at least two levels).")
@click.option("--holdout", "holdout_path", type=click.Path(path_type=Path), default=None,
              help="Records of the same population NOT used for the synthesis: the control "
                   "that tells disclosure from inference (without it no finding is called "
                   "disclosive).")
@opts.NUMERIC_TARGETS
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the attacks.")
@click.option("--fail-on", type=click.Choice(["disclosive", "review"]), default=None,
              help="Exit with status 2 when some finding reaches this verdict (default: "
                   "exit 0 whatever the verdicts).")
@click.option("--family", "families", multiple=True, type=click.Choice(FAMILIES),
              help="Run only this measure family (repeatable; default: all).")
@click.option("--records", "records_path", type=click.Path(path_type=Path), default=None,
              help="Write every member's row of the records at risk to this CSV file: the "
                   "measures that flag it, its score and rank, per synthesis (key and target "
                   "values masked unless --show-values).")
@click.option("--show-values", is_flag=True,
              help="Show the key values and disclosed target values of the records at risk "
                   "(default: rare key values and every target value masked).")
@click.option("--compare-treated", "treated_path", type=click.Path(path_type=Path),
              default=None, metavar="TREATED",
              help="A treated version of the one SYNTHETIC file (e.g. written by capkit sdc): "
                   "both are judged in one run and the report adds their findings side by "
                   "side (before, after, change).")
@click.option("--weights", default=None, metavar="COLUMN",
              help="A column of the original holding sampling weights: the expected "
                   "re-identifications of the original's own exposure use them; the column is "
                   "left out of every other measure.")
@click.option("--no-exposure", is_flag=True,
              help="Leave out the original's own exposure (k-anonymity, sample uniques, "
                   "expected re-identifications, l-diversity on the keys; measured with the "
                   "synthpop measures family).")
@click.option("--sweep-size", type=int, default=2, show_default=True, metavar="K",
              help="Keys per combination of the worst key combinations (the k-key sweep of "
                   "DiSCO - Dorig over the report's keys).")
@click.option("--no-sweep", is_flag=True,
              help="Leave out the worst key combinations (the k-key sweep; measured with the "
                   "synthpop measures family).")
@click.option("--utility/--no-utility", "with_utility", default=True, show_default=True,
              help="Add what each synthesis is worth (synthpop's pMSE and table S_pMSE, "
                   "SDNist's k-marginal) and, with several syntheses or --compare-treated, the "
                   "risk-utility map.")
@click.option("--map-risk", default=None, metavar="MEASURE",
              help="The map's risk: a finding's measure ('DiSCO', 'DiSCO (income)' or "
                   "'attribute: DiSCO (income)'); default: the finding with the worst verdict.")
@click.option("--map-utility", type=click.Choice(list(UTILITY_AXES)), default="S_pMSE",
              show_default=True, help="The map's utility axis: the mean two-way S_pMSE, the "
                                      "CART propensity S_pMSE, or SDNist's k-marginal score.")
@click.option("--nperms", type=int, default=NPERMS, show_default=True,
              help="Permutations of the CART propensity model for its S_pMSE in the utility "
                   "section (synthpop's default is 50; 0: none, S_pMSE NA), seeded by --seed; "
                   "its standard error is printed beside it.")
@opts.ESCAPE_FORMULAS
@opts.FORMAT
@opts.OUTPUT
@opts.NA_VALUES
@opts.SEP
@opts.ALLOW_DISJOINT_LEVELS
@opts.QUIET
def report(files: tuple[Path, ...], keys: str | None, targets: str | None,
           holdout_path: Path | None, numeric_targets: str | None, seed: int, fail_on: str | None,
           families: tuple[str, ...], records_path: Path | None, show_values: bool,
           treated_path: Path | None, weights: str | None, no_exposure: bool, sweep_size: int,
           no_sweep: bool, with_utility: bool, map_risk: str | None, map_utility: str,
           nperms: int,
           escape_formulas: bool, fmt: str,
           output: Path | None, na_values: str, sep: str | None, allow_disjoint_levels: bool,
           quiet: bool) -> None:
    """The custodian's report: every disclosure measure on SYNTHETIC file(s) made from the
    ORIGINAL file, with a verdict per finding.

    Runs synthpop's identity and attribute measures and checks, distance to closest record
    (exact and near copies), the attribute attack with its dummy baseline, singling out and
    linkability, on every synthesis; with --holdout each compares the members with the
    holdout. Each finding gets a verdict (disclosive, review, not flagged) with the rule
    behind it and what to do. The records most exposed are listed (--records FILE writes
    them all), with the original's own exposure on the keys and the worst combinations of
    --sweep-size of the keys.
    """
    reached: list[str] = []

    def body() -> None:
        from capkit.audit import at_risk, audit
        from capkit.audit.compare import before_after
        from capkit.audit.utility_family import release_map
        from capkit.audit.verdicts import LEVELS
        from capkit.cli.files import load_inputs
        from capkit.cli.utility import map_picture
        from capkit.data.io import read_table
        from capkit.report import render
        from capkit.report.custodian import custodian_report

        original, synthetic = opts.original_and_synthetic(files)
        if treated_path is not None:
            if len(synthetic) != 1:
                raise CapkitError(f"--compare-treated compares one SYNTHETIC file with its "
                                  f"treated version; {len(synthetic)} synthetic files given")
            synthetic = [*synthetic, treated_path]
        key_list = opts.split(keys, "--keys")
        target_list = opts.split(targets, "--targets")
        if nperms < 0:
            raise CapkitError(f"--nperms must be 0 or more, got {nperms}")
        opts.check_outputs([*files, holdout_path, treated_path],
                           ("--output", output, None), ("--records", records_path, (".csv",)))
        opts.check_holdout(holdout_path, "pandas")
        inputs = load_inputs(original, synthetic, key_list or [], target_list,
                             na_values.split(","), sep=sep, holdout=holdout_path,
                             all_columns=True, target_na_option=None,
                             check_overlaps=False, exclude=[weights] if weights else [])
        weight = None if weights is None else read_table(
            original, [weights], role="original", na_values=na_values.split(","),
            sep=sep).frame[weights]
        opts.notes(inputs, quiet)
        names = {f"{j}: {p.name}": frame for j, (p, frame) in
                 enumerate(zip(synthetic, inputs.synthetics, strict=True), start=1)}
        if treated_path is not None:
            names = dict(zip([f"before: {synthetic[0].name}", f"after: {treated_path.name}"],
                             names.values(), strict=True))
        with opts.measure_warnings(quiet) as found:
            result = audit(inputs.original, names, holdout=inputs.holdout, keys=key_list,
                           targets=target_list, seed=seed,
                           families=list(families) if families else FAMILIES,
                           progress=not quiet, allow_disjoint_levels=allow_disjoint_levels,
                           numeric_targets=opts.split(numeric_targets, "--numeric-targets")
                           or (), weights=weight, original_exposure=not no_exposure,
                           sweep_size=None if no_sweep else sweep_size,
                           utility=with_utility, utility_nperms=nperms)
        result.notes.extend(found)
        if not quiet:
            for w in result.warnings:
                click.echo(visible(f"Warning: {w}", lines=True), err=True)
        drawn = pictures(result) if fmt == "html" else []  # only the html page shows them
        rumap = None
        if result.utility is not None and len(result.syntheses) > 1:
            try:
                rumap = release_map(result.utility, result.findings, result.syntheses,
                                    risk_measure=map_risk, axis=map_utility)
            except CapkitError as exc:
                if map_risk is not None:  # the user's measure: an error
                    raise
                result.notes.append(f"risk-utility map not drawn: {exc}")
            drawn += [map_picture(rumap)] if fmt == "html" and rumap is not None else []
        pair = None if treated_path is None else (
            *result.syntheses, before_after(result, *result.syntheses))
        text = render(custodian_report(result, opts.command_line(), opts.versions(),
                                       [*inputs.lines, *inputs.remarks()], show_values,
                                       drawn, pair, rumap, map_risk is not None), fmt)
        opts.emit(text, output)
        if records_path is not None:
            opts.write_csv(at_risk.masked(result.records_at_risk, result.keys,
                                          show=show_values), records_path, "--records",
                           escape_formulas)
        if fail_on is not None:
            worst = LEVELS.index(fail_on)
            reached.extend(f.verdict for f in result.findings
                           if LEVELS.index(f.verdict) <= worst)

    try:
        opts.run_reporting_errors(body)
    finally:
        processes.stop()  # the audit's second process, if any: done with
    if reached:
        click.echo(f"capkit report: {len(reached)} finding(s) at or above --fail-on "
                   f"{fail_on}", err=True)
        sys.exit(FAIL_STATUS)
