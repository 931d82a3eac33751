"""The ``capkit`` command group: one module per command (:mod:`~capkit.cli.reproduce`,
:mod:`~capkit.cli.disclosure`, :mod:`~capkit.cli.cap`, :mod:`~capkit.cli.attack`), the shared
file reader (:mod:`~capkit.cli.files`) and options (:mod:`~capkit.cli.options`).

Every problem with the inputs is reported as ``Error: <message>`` with a non-zero exit code,
before anything is written: results are computed in full first, files written last.
"""

from __future__ import annotations

import click

from capkit.cli.attack import attack
from capkit.cli.cap import cap
from capkit.cli.disclosure import disclosure
from capkit.cli.report import report
from capkit.cli.reproduce import reproduce


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


main.add_command(reproduce)
main.add_command(disclosure)
main.add_command(cap)
main.add_command(attack)
main.add_command(report)
