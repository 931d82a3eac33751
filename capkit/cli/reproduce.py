"""``capkit reproduce``: run the experiments' notebooks and write the claims ledger."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from capkit.errors import CapkitError


@click.command()
@click.option("--quick", is_flag=True, help="Use each experiment's quick parameters (figures "
              "and ledger go to build/quick/, not figures/).")
@click.option("--only", metavar="NAME", help="Run only this experiment.")
@click.option("--store", is_flag=True,
              help="Execute the notebooks in place, refreshing their stored outputs.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Project folder with experiments/ and notebooks/.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Notebooks run at once, each in its own kernel, the longest first "
              "(the results are the same for every value).")
@click.option("--no-cache", "no_cache", is_flag=True,
              help="Neither take runs from nor keep runs in build/cache/ (a notebook's entry "
              "is keyed by its bytes, its parameters, capkit's code, the installed "
              "packages and the data, so any change to them runs it again).")
def reproduce(quick: bool, only: str | None, store: bool, root: Path, jobs: int,
              no_cache: bool) -> None:
    """Execute the experiments' notebooks and write figures/claims.md.

    Prints one line per notebook to stderr as it ends: its name, the seconds it took (with the
    CPU seconds of its kernel, or the run it came from when cached), its claims reproduced,
    and at the end the total. With --jobs 2 or more, a line first for each family of numba
    kernels the notebooks share, compiled once before the notebooks needing it start. A
    --quick run writes its figures and ledger under build/quick/ instead of figures/.
    """
    from capkit import reproduce as reproduce_mod  # here, not for --help

    start = time.perf_counter()
    cpu = {"total": 0.0, "cached": 0, "notebooks": 0, "warm": 0.0}

    def warmed(w: Any) -> None:
        cpu["warm"] += w.cpu
        how = (f"failed ({w.error}): the notebooks compile it" if w.error
               else "compiled or loaded once")
        click.echo(f"{'kernels ' + w.name:<24} {w.seconds:6.1f} s  {how}  [cpu {w.cpu:.1f} s]",
                   err=True)

    def line(exp: reproduce_mod.Experiment, end: reproduce_mod.Finished) -> None:
        cpu["notebooks"] += 1
        if end.cpu is None:
            how = f"cached: its run took {end.ran:.1f} s"
            cpu["cached"] += 1
        else:
            how = f"cpu {end.cpu:.1f} s"
            cpu["total"] += end.cpu
        if end.ledger is None:
            what = "stored outputs refreshed"
        else:
            ok = sum(c.ok for c in end.ledger.claims)
            what = f"{ok}/{len(end.ledger.claims)} claims as declared"
        click.echo(f"{exp.name:<24} {end.seconds:6.1f} s  {what}  "
                   f"[{how}; {end.done}/{end.total}]", err=True)

    try:
        ledgers = reproduce_mod.run(root.resolve(), quick=quick, only=only, store=store,
                                    jobs=jobs, cache=not no_cache, on_notebook=line,
                                    on_warm=warmed)
    except CapkitError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"total {time.perf_counter() - start:.1f} s for {cpu['notebooks']} "
               f"notebooks with {jobs} job{'s' if jobs > 1 else ''} (kernels' cpu "
               f"{cpu['total']:.1f} s; {cpu['cached']} from the cache"
               + (f"; shared kernels compiled once: cpu {cpu['warm']:.1f} s" if cpu["warm"]
                  else "") + ")", err=True)
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
