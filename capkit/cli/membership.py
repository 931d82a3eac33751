"""``capkit membership MEMBERS SYNTHETIC --holdout HOLDOUT``: membership inference on one
release, every member and holdout record scored by every attack
(:mod:`capkit.membership_inference`), as text, markdown, json or a self-contained html page
with the ROC curves on log-log axes and the score distributions.
"""

from __future__ import annotations

from pathlib import Path

import click

from capkit.cli import options as opts
from capkit.cli.choices import ATTACKS
from capkit.cli.figures import figure
from capkit.cli.options import visible
from capkit.errors import CapkitError


def _read(paths: dict[str, Path], columns: list[str] | None, na_values: str,
          sep: str | None) -> tuple[dict, list[str], list[str]]:
    """Read the files (role -> path; "members" first) on the same columns, aligned to the
    members' types like a synthesis (:func:`capkit.data.align.align_frames`).

    Infinite numbers are read as missing values in every file (the rule of every command,
    :func:`capkit.audit.inputs.infinite_as_missing`), said once in the notes.

    Returns the frames by role, the input lines of the report and the notes (type alignments,
    infinite values).
    """
    from capkit.audit.inputs import infinite_as_missing
    from capkit.data import io
    from capkit.data.align import align_frames

    header = io.read_columns(paths["members"], "members", sep)
    wanted = header if columns is None else columns
    missing = [c for c in wanted if c not in header]
    if missing:
        raise CapkitError(f"--columns: {missing} not in the members file")
    files = {role: io.read_table(path, wanted, role=role, na_values=na_values.split(","),
                                 sep=sep) for role, path in paths.items()}
    others = [role for role in files if role != "members"]
    aligned = align_frames(files["members"].frame, [files[r].frame for r in others], wanted,
                           names=[f"the {r} file" for r in others])
    frames = {"members": aligned.original} | dict(zip(others, aligned.synthetics, strict=True))
    lines = [f"{role}: {files[role].path.name} ({len(frames[role])} records)" for role in files]
    lines.append(f"columns: {', '.join(wanted)}")
    finite, infinite = infinite_as_missing({f"the {role} file": frame
                                            for role, frame in frames.items()})
    frames = dict(zip(frames, finite.values(), strict=True))
    return frames, lines, [f"Type alignment: {c}" for c in aligned.changes] + (
        [infinite] if infinite else [])


def _score_sample(text: str, check) -> int | str | None:
    """``--score-sample``: ``auto`` (None), ``all`` or a whole number >= 2 (checked by
    :func:`capkit.membership_inference.score_sample.check`, naming the option)."""
    value = text.strip().lower()
    if value == "auto":
        return None
    if value != "all":
        try:
            value = int(value)
        except ValueError:
            raise CapkitError(f"--score-sample must be auto, all or a whole number >= 2, got "
                              f"{text!r}") from None
    return check(value, "--score-sample")


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--holdout", type=click.Path(path_type=Path), default=None,
              help="Records of the same population that were NOT used to make the synthetic "
                   "data (required: membership is judged against them).")
@click.option("--reference", type=click.Path(path_type=Path), default=None,
              help="Population records the attacker holds, neither members nor holdout "
                   "[default: half of the holdout, drawn with --seed; the other half is "
                   "scored].")
@click.option("--columns", default=None, metavar="C1,C2,...",
              help="Columns the attacks use [default: every column of the members file].")
@click.option("--attacks", "attack_names", default=None, metavar="A1,A2,...",
              help=f"Attacks to run [default: all: {','.join(ATTACKS)}].")
@click.option("--compat", type=click.Choice(["domias"]), default=None,
              help="domias 0.0.5's conventions (numeric columns only; squared Euclidean "
                   "distances, its KDE ratio with the additive 1e-10).")
@click.option("--distance", type=click.Choice(["gower", "squared_euclidean"]), default=None,
              help="Distance of the distance attacks [default: gower; squared_euclidean with "
                   "--compat domias]; squared_euclidean needs numeric columns only.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the reference split, the classifier and the epsilon bound's halves.")
@click.option("--k", "k", type=int, default=20, show_default=True,
              help="Neighbours of DPI.")
@click.option("--top", type=int, default=10, show_default=True,
              help="Members most exposed to list.")
@click.option("--exposed-by", default="dcr", show_default=True,
              help="The attack that ranks the members most exposed.")
@click.option("--allow-overlap", is_flag=True, default=False,
              help="Accept a holdout that is mostly the members' records. By default holdout "
                   "records identical to a member are scored as population twins (different "
                   "people with the same values), and only a holdout made mostly of members, "
                   "beyond the data's own duplicate rate, is an error.")
@click.option("--score-sample", "score_sample", default="auto", show_default=True,
              metavar="auto|all|N",
              help="Which scored records DOMIAS's densities score (n x (m + r) kernel terms, "
                   "the only attacks costlier than n log n): auto = every record up to "
                   "2,000,000,000 record pairs per role, past it a seeded sample (--seed) of "
                   "the members and of the scored holdout; N = a seeded sample of N of each; "
                   "all = every record. A sample is of the scored records only (each compared "
                   "with every synthetic and reference record) and the report says so.")
@click.option("--plot", "plot_path", type=click.Path(path_type=Path), default=None,
              help="Draw the ROC curves and score distributions into this .png or .svg file.")
@opts.FORMAT
@opts.OUTPUT
@opts.NA_VALUES
@opts.SEP
@opts.QUIET
def membership(files: tuple[Path, ...], holdout: Path | None, reference: Path | None,
               columns: str | None, attack_names: str | None, compat: str | None,
               distance: str | None, seed: int,
               k: int, top: int, exposed_by: str, allow_overlap: bool, score_sample: str,
               plot_path: Path | None,
               fmt: str, output: Path | None, na_values: str, sep: str | None,
               quiet: bool) -> None:
    """Membership inference on the SYNTHETIC file made from the MEMBERS file.

    Can an attacker holding the synthetic data tell whether a person's record was used to make
    it? Every member and every holdout record is scored by DCR, DCR-Diff, GAN-Leaks (and its
    calibrated form), MC, DPI, DOMIAS (and its ablated density) and a synthetic-vs-reference
    classifier; the report gives each attack's AUC, TPR at FPR 0, 0.001, 0.01 and 0.1,
    advantage and epsilon lower bound, and the members most exposed. Without --holdout there
    is no membership verdict: records not used for the synthesis are needed.
    """

    def body() -> None:
        from capkit.data.overlap import copies_of_holdout, size_note
        from capkit.membership_inference import exposed_members, summary
        from capkit.membership_inference.score_sample import check
        from capkit.plots.membership import membership_roc
        from capkit.report import render
        from capkit.report.membership import membership_report

        if len(files) != 2:
            raise CapkitError("give the members file and one synthetic file: MEMBERS SYNTHETIC")
        if holdout is None:
            raise CapkitError("--holdout is required: membership inference needs records not "
                              "used for the synthesis, without them there is no verdict")
        members_path, synthetic_path = files
        for path, option in ((holdout, "--holdout"), (reference, "--reference")):
            if path is not None and not path.exists():
                raise CapkitError(f"{option} file {str(path)!r} does not exist")
        chosen = opts.split(attack_names, "--attacks") or list(ATTACKS)
        unknown = [a for a in chosen if a not in ATTACKS]
        if unknown:
            raise CapkitError(f"--attacks: unknown attack {unknown[0]!r}; choose from "
                              f"{', '.join(ATTACKS)}")
        if exposed_by not in chosen:
            raise CapkitError(f"--exposed-by {exposed_by!r} is not among the attacks run")
        sample = _score_sample(score_sample, check)
        opts.check_outputs([*files, holdout, reference], ("--output", output, None),
                           ("--plot", plot_path, (".png", ".svg")))
        column_list = opts.split(columns, "--columns")
        paths = {"members": members_path, "synthetic": synthetic_path, "holdout": holdout}
        if reference is not None:
            paths["reference"] = reference
        frames, lines, changes = _read(paths, column_list, na_values, sep)
        # the holdout records that are no member's twin: a synthesis copying them beyond
        # chance was made with the holdout (twins of members are the overlap check's)
        held = frames["holdout"]
        twin = held.merge(frames["members"].drop_duplicates(), how="left",
                          indicator=True)["_merge"].eq("both").to_numpy()
        tainted = copies_of_holdout(held[~twin].reset_index(drop=True),
                                    {synthetic_path.name: frames["synthetic"]}) if (
            (~twin).any()) else {}
        if tainted:  # membership is judged only against the holdout: none is left
            raise CapkitError(f"{tainted[synthetic_path.name]}. capkit membership judges "
                              "against the holdout only, so it gives no verdict")
        opts.record_sizes(lines)
        if not quiet:
            for change in changes:
                click.echo(visible(change), err=True)
        with opts.measure_warnings(quiet):
            try:
                table, per_record = summary(
                    frames["members"], frames["holdout"], frames["synthetic"],
                    frames.get("reference"), attacks=chosen, seed=seed, compat=compat,
                    distance=distance, k=k, overlap="allow" if allow_overlap else "refuse",
                    score_sample=sample, return_scores=True)
            except CapkitError as exc:  # the overlap message names the CLI's flag
                raise CapkitError(str(exc).replace("pass overlap='allow'",
                                                   "pass --allow-overlap")) from exc
            exposed = exposed_members(per_record, frames["members"], frames["synthetic"],
                                      attack=exposed_by, top=top)
        table.attrs["exposed_attack"] = exposed_by
        sized = size_note(len(frames["members"]), len(frames["synthetic"]),
                          f"synthetic file {synthetic_path.name}")
        table.attrs["notes"] = (list(table.attrs["notes"]) + ([sized] if sized else [])
                                + changes)
        usable = ["member", *[a for a in chosen if a in table.index]]
        with figure(plot_path, fmt, "membership_roc",
                    lambda: membership_roc(per_record[usable])) as svg:
            report = membership_report(table, exposed, opts.command_line(), opts.versions(),
                                       lines, svg)
            opts.emit(render(report, fmt), output)

    opts.run_reporting_errors(body)
