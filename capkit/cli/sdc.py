"""``capkit sdc ORIGINAL SYNTHETIC -o TREATED --keys ...``: synthpop's ``sdc()`` treatments
(:func:`capkit.synth.sdc.sdc`) of a synthetic file, written as a new file, printing what was
removed and recoded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from capkit.cli import options as opts
from capkit.cli.options import visible
from capkit.errors import CapkitError

if TYPE_CHECKING:
    from capkit.synth.sdc import SdcResult

#: Formats the treated file can be written in, by its extension.
WRITERS = (".csv", ".parquet")

#: Removed rows listed by number in the printed summary.
SHOWN_ROWS = 20


def _codes(values: tuple[str, ...], option: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for column, text in opts.pairs(values, option):
        try:
            out[column] = float(text)
        except ValueError as exc:
            raise CapkitError(f"{option} {column}={text!r}: the value must be a number") from exc
    return out


def summary(result: SdcResult, n_before: int, keys: list[str]) -> str:
    """What ``capkit sdc`` prints: the treatment's messages and the records kept."""
    lines = [f"keys: {', '.join(keys)}", *result.messages,
             f"synthetic uniques on the keys that are unique in the original (replicated "
             f"uniques) before treatment: {result.replicated_uniques}",
             f"synthetic uniques on the keys whose keys occur in the original before "
             f"treatment: {result.uniques_in_original}",
             f"records: {n_before} -> {len(result.data)} ({len(result.removed)} removed)"]
    if len(result.removed):
        shown = ", ".join(str(i) for i in result.removed[:SHOWN_ROWS])
        more = f", ... ({len(result.removed)} rows)" if len(result.removed) > SHOWN_ROWS else ""
        lines.append(f"rows removed (0-based rows of the synthetic file, header excluded): "
                     f"{shown}{more}")
    return "\n".join(lines) + "\n"


@click.command()
@click.argument("original", type=click.Path(path_type=Path))
@click.argument("synthetic", type=click.Path(path_type=Path))
@click.option("--output", "-o", type=click.Path(path_type=Path), required=True,
              help="The treated synthetic file to write (.csv or .parquet).")
@opts.KEYS
@click.option("--rm-replicated-uniques", is_flag=True,
              help="Remove synthetic records unique on the keys whose keys are unique in the "
                   "original too (synthpop's rm.replicated.uniques).")
@click.option("--rm-uniques-in-original", is_flag=True,
              help="Remove synthetic records unique on the keys whose keys occur in the "
                   "original at all (synthpop's rm.uniques.in.orig; includes the replicated "
                   "uniques).")
@click.option("--top-code", multiple=True, metavar="COL=VALUE",
              help="Numbers of COL above VALUE become VALUE (repeatable).")
@click.option("--bottom-code", multiple=True, metavar="COL=VALUE",
              help="Numbers of COL below VALUE become VALUE (repeatable).")
@click.option("--recode-exclude", multiple=True, metavar="COL=VALUE",
              help="A value of a coded column left alone, e.g. a special code (repeatable).")
@opts.NA_VALUES
@opts.SEP
def sdc(original: Path, synthetic: Path, output: Path, keys: str,
        rm_replicated_uniques: bool, rm_uniques_in_original: bool,
        top_code: tuple[str, ...], bottom_code: tuple[str, ...],
        recode_exclude: tuple[str, ...], na_values: str, sep: str | None) -> None:
    """synthpop's sdc() treatments of the SYNTHETIC file made from the ORIGINAL file: remove
    replicated uniques or uniques found in the original, cap numbers; write the result to
    --output and print what was removed."""

    def body() -> None:
        from capkit.data.io import read_table
        from capkit.report.safe import csv_quoting, formula_cells
        from capkit.synth.sdc import sdc as treat

        key_list = opts.split(keys, "--keys") or []
        opts.check_outputs([original, synthetic], ("--output", output, WRITERS))
        tops, bottoms = _codes(top_code, "--top-code"), _codes(bottom_code, "--bottom-code")
        excluded: dict[str, list[float]] = {}
        for column, value in _codes(recode_exclude, "--recode-exclude").items():
            excluded.setdefault(column, []).append(value)
        nas = na_values.split(",")
        orig = read_table(original, None, role="original", na_values=nas, sep=sep).frame
        syn = read_table(synthetic, None, role="synthetic", na_values=nas, sep=sep).frame
        opts.record_sizes([f"original: {original.name} ({len(orig):,} records, "
                           f"{orig.shape[1]} columns)",
                           f"synthetic: {synthetic.name} ({len(syn):,} records)"])
        result = treat(syn, orig, key_list, rm_replicated_uniques=rm_replicated_uniques,
                     rm_uniques_in_original=rm_uniques_in_original, bottom_code=bottoms,
                     top_code=tops, recode_exclude=excluded)
        with opts.replacing(output, "--output") as part:
            if output.suffix.lower() == ".parquet":
                result.data.to_parquet(part, index=False)
            else:
                result.data.to_csv(part, index=False, **csv_quoting(result.data))
        click.echo(visible(summary(result, len(syn), key_list), lines=True), nl=False)
        formulas, columns = formula_cells(result.data)
        if formulas:  # the treated file is data: kept as it was, but the user is told
            click.echo(visible(
                f"Warning: {formulas} cell{'s' if formulas > 1 else ''} of {output.name} (in "
                f"{', '.join(repr(c) for c in columns)}) begin with =, +, -, @, a tab or a "
                "carriage return: a spreadsheet opening the file may run them as formulas "
                "(CSV injection). capkit keeps the data as it was; import the file as text, "
                "or quote those cells, before opening it in a spreadsheet."), err=True)

    opts.run_reporting_errors(body)
