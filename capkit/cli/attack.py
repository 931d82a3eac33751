"""``capkit attack ORIGINAL SYNTHETIC... --keys ... --targets ...``: attribute disclosure as
classification (Hittmeir, Mayer & Ekelhart, "A Baseline for Attribute Disclosure Risk in
Synthetic Data", ACM CODASPY 2020) with the membership control (``--holdout``), as text,
markdown, json or a self-contained html page with the figure.

Every attacker (:mod:`capkit.attacks.attackers`) is trained on each synthetic file and on the
original file (the upper bound), next to the dummy, on every combination of ``--key-length`` of
the ``--keys``; each predicts the target of every original record, and of every holdout record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from capkit.cli import options as opts
from capkit.cli.figures import figure
from capkit.cli.privacy import parse_halves, run_privacy
from capkit.errors import CapkitError

if TYPE_CHECKING:
    import pandas as pd

    from capkit.cli.files import Inputs


@dataclass
class AttackRun:
    """Results of ``capkit attack``: the baseline table (one row per synthesis, key set,
    target, attacker, training and scored group), how it was run, and the measures'
    warnings."""

    table: pd.DataFrame
    inputs: Inputs
    key_length: int
    seed: int
    tolerance: float
    warnings: list[str] = field(default_factory=list)


def _attackers(value: str | None) -> list[str] | None:
    """The names of ``--attackers``, each known for some target kind."""
    names = opts.split(value, "--attackers")
    if names is None:
        return None
    from capkit.attacks.attackers import REGISTRY

    known = sorted({*REGISTRY["categorical"], *REGISTRY["numeric"]})
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CapkitError(f"--attackers: unknown attacker {unknown[0]!r}; choose from "
                          f"{', '.join(known)}")
    return names


def run_attack(inputs: Inputs, *, key_length: int | None, attackers: list[str] | None,
               seed: int, tolerance: float, allow_disjoint_levels: bool, quiet: bool,
               kinds: dict[str, str] | None = None) -> AttackRun:
    """:func:`capkit.attacks.baseline_table` on the inputs (every synthesis), its progress
    bar unless ``quiet``, the measures' warnings collected."""
    from capkit.attacks import baseline_table

    length = len(inputs.keys) if key_length is None else key_length
    if not 1 <= length <= len(inputs.keys):
        raise CapkitError(f"--key-length must be from 1 to the number of --keys "
                          f"({len(inputs.keys)}), got {key_length}")
    with opts.measure_warnings(quiet) as found:
        table = baseline_table(inputs.original, inputs.synthetics, inputs.keys, inputs.targets,
                               key_length=length, attackers=attackers, holdout=inputs.holdout,
                               seed=seed, tolerance=tolerance, progress=not quiet,
                               allow_disjoint_levels=allow_disjoint_levels,
                               check_overlap=False,  # load_inputs checked the holdout
                               kinds=kinds)
    return AttackRun(table, inputs, length, seed, tolerance, found)


@click.command()
@opts.common_options
@click.option("--targets", "--target", "targets", required=True, metavar="T1,T2,...",
              help="Target column(s) the intruder predicts; each is attacked on its own.")
@click.option("--holdout", type=click.Path(path_type=Path), default=None,
              help="Records of the same population that were NOT used to make the synthetic "
                   "data (same columns as the original): every attack is scored on them too, "
                   "and the report compares members with holdout (the membership control).")
@click.option("--attackers", default=None, metavar="A1,A2,...",
              help="Attackers to run [default: cap,gcap,nn,rf,svm,nb,knn,lr,ensemble; nb is "
                   "replaced by mlp for a numeric target]; the dummy is always added.")
@click.option("--key-length", type=int, default=None, metavar="K",
              help="Attack every combination of K of the --keys [default: all keys at once].")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the estimators and of the tie draws.")
@click.option("--tolerance", type=float, default=0.05, show_default=True,
              help="Numeric target: a guess within tolerance x |true value| is right.")
@opts.NUMERIC_TARGETS
@click.option("--plot", "plot_path", type=click.Path(path_type=Path), default=None,
              help="Draw the success rates into this .png or .svg file.")
@click.option("--singling-out", "singling", is_flag=True, default=False,
              help="Also run anonymeter's multivariate singling-out attack (one query per "
                   "synthetic record) on the columns read (keys, targets, --linkability "
                   "halves), against the holdout or the random baseline.")
@click.option("--linkability", "link", default=None, metavar="A1,A2;B1,B2",
              help="Also run anonymeter's linkability attack with these two halves of "
                   "columns (separated by ';').")
@click.option("--sdmetrics", "sdm", is_flag=True, default=False,
              help="Also compute SDMetrics 0.32's DisclosureProtection (keys known, each "
                   "target sensitive) and, with --holdout, DCROverfittingProtection.")
def attack(files: tuple[Path, ...], keys: str, fmt: str, output: Path | None, na_values: str,
           sep: str | None, allow_disjoint_levels: bool, quiet: bool, targets: str,
           holdout: Path | None, attackers: str | None, key_length: int | None, seed: int,
           tolerance: float, numeric_targets: str | None, plot_path: Path | None,
           singling: bool, link: str | None, sdm: bool) -> None:
    """Attribute attacks on SYNTHETIC file(s) made from the ORIGINAL file.

    An intruder who knows the keys of a real record and holds the synthetic data predicts the
    record's target with a classifier trained on the synthetic data (Hittmeir, Mayer &
    Ekelhart 2020): the CAP majority vote, the generalized CAP, the nearest record, random
    forest, SVM, naive Bayes, k-NN, logistic regression and their vote; the same attackers
    trained on the original data (upper bound) and the dummy (lower bound). With --holdout,
    the report says whether the attack does better on the members than on people who were
    not in the data.
    """

    def body() -> None:
        from capkit.cli.files import load_inputs
        from capkit.plots.attacks import attack_rates
        from capkit.report import render
        from capkit.report.attack import attack_report
        from capkit.report.privacy import privacy_sections

        original, synthetic = opts.original_and_synthetic(files)
        key_list = opts.split(keys, "--keys")
        target_list = opts.split(targets, "--targets")
        chosen = _attackers(attackers)
        halves = parse_halves(link)
        opts.check_outputs([*files, holdout], ("--output", output, None),
                           ("--plot", plot_path, (".png", ".svg")))
        opts.check_holdout(holdout, "pandas")
        inputs = load_inputs(original, synthetic, key_list, target_list, na_values.split(","),
                             sep=sep, holdout=holdout,
                             extra_columns=[c for h in halves or () for c in h])
        opts.notes(inputs, quiet)
        numeric = opts.split(numeric_targets, "--numeric-targets") or []
        unknown = [t for t in numeric if t not in inputs.targets]
        if unknown:
            raise CapkitError(f"--numeric-targets names {unknown}, which are not --targets")
        result = run_attack(inputs, key_length=key_length, attackers=chosen, seed=seed,
                            tolerance=tolerance, allow_disjoint_levels=allow_disjoint_levels,
                            quiet=quiet, kinds={t: "numeric" for t in numeric})
        with opts.measure_warnings(quiet):
            privacy = run_privacy(inputs, singling=singling, halves=halves, sdmetrics=sdm,
                                  seed=seed, quiet=quiet)
        with figure(plot_path, fmt, "attack_rates", lambda: attack_rates(result.table)) as svg:
            report = attack_report(result, opts.command_line(), opts.versions(), svg,
                                   privacy_sections(privacy))
            opts.emit(render(report, fmt), output)  # everything computed: now write

    opts.run_reporting_errors(body)
