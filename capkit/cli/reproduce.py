"""``capkit reproduce``: run the experiments' notebooks and write the claims ledger."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from capkit import reproduce as reproduce_mod
from capkit.errors import CapkitError


@click.command()
@click.option("--quick", is_flag=True, help="Use each experiment's quick parameters (figures "
              "and ledger go to build/quick/, not figures/).")
@click.option("--only", metavar="NAME", help="Run only this experiment.")
@click.option("--store", is_flag=True,
              help="Execute the notebooks in place, refreshing their stored outputs.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Project folder with experiments/ and notebooks/.")
def reproduce(quick: bool, only: str | None, store: bool, root: Path) -> None:
    """Execute the experiments' notebooks and write figures/claims.md.

    Prints one line per notebook: its name, the seconds it took and its claims reproduced.
    A --quick run writes its figures and ledger under build/quick/ instead of figures/.
    """

    def line(exp: reproduce_mod.Experiment, seconds: float, ledger: object) -> None:
        if ledger is None:
            click.echo(f"{exp.name:<24} {seconds:6.1f} s  stored outputs refreshed")
            return
        ok = sum(c.ok for c in ledger.claims)  # type: ignore[attr-defined]
        total = len(ledger.claims)  # type: ignore[attr-defined]
        click.echo(f"{exp.name:<24} {seconds:6.1f} s  {ok}/{total} claims as declared")

    try:
        ledgers = reproduce_mod.run(root.resolve(), quick=quick, only=only, store=store,
                                    on_notebook=line)
    except CapkitError as exc:
        raise click.ClickException(str(exc)) from exc
    if store:
        return
    failed = [f"{lg.name}: {text}" for lg in ledgers for text in lg.failures()]
    total = sum(len(lg.claims) for lg in ledgers)
    ledger = reproduce_mod.output_folder(Path("."), quick) / "claims.md"
    click.echo(f"{total} claims checked, {len(failed)} without their declared verdict; "
               f"ledger: {ledger}")
    for text in failed:
        click.echo(f"  {text}", err=True)
    if failed:
        sys.exit(1)
