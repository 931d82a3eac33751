"""The ``capkit`` command group: one module per command (:mod:`~capkit.cli.reproduce`,
:mod:`~capkit.cli.disclosure`, :mod:`~capkit.cli.cap`, :mod:`~capkit.cli.attack`,
:mod:`~capkit.cli.membership`, :mod:`~capkit.cli.report`), the shared file reader
(:mod:`~capkit.cli.files`) and options (:mod:`~capkit.cli.options`).

A command's module is imported when that command runs (``capkit --help`` and ``capkit cap``
do not pay for scikit-learn, which ``attack`` and ``report`` need): click's lazily loaded
subcommands. A command's module imports only click, its options (:mod:`~capkit.cli.options`,
:mod:`~capkit.cli.choices`) and the errors; what its work needs (pandas, the readers, the
measures, the reports) is imported in its body, so ``capkit <command> --help`` takes a tenth of
a CPU second. Every problem with the inputs is reported as ``Error: <message>`` with a non-zero
exit code, before anything is written: results are computed in full first, files written last.
An interrupted command (Ctrl-C) exits with status 130 (128 + SIGINT, the shell's convention),
its outputs left as they were (:func:`capkit.cli.options.replacing`).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path

import click

#: command name -> (module holding the command of that name, first sentence of its help, which
#: ``capkit --help`` lists without importing the module; tests/test_cli.py checks it matches).
COMMANDS: dict[str, tuple[str, str]] = {
    "attack": ("capkit.cli.attack",
               "Attribute attacks on SYNTHETIC file(s) made from the ORIGINAL file."),
    "cap": ("capkit.cli.cap",
            "Baillargeon & Charest's CAP of SYNTHETIC file(s) made from the ORIGINAL file."),
    "disclosure": ("capkit.cli.disclosure",
                   "synthpop's disclosure measures of SYNTHETIC file(s) made from the ORIGINAL "
                   "file."),
    "membership": ("capkit.cli.membership",
                   "Membership inference on the SYNTHETIC file made from the MEMBERS file."),
    "report": ("capkit.cli.report",
               "The custodian's report: every disclosure measure on SYNTHETIC file(s) made from "
               "the ORIGINAL file, with a verdict per finding."),
    "reproduce": ("capkit.cli.reproduce",
                  "Execute the experiments' notebooks and write figures/claims.md."),
    "sdc": ("capkit.cli.sdc",
            "synthpop's sdc() treatments of the SYNTHETIC file made from the ORIGINAL file: "
            "remove replicated uniques or uniques found in the original, cap numbers; write the "
            "result to --output and print what was removed."),
    "utility": ("capkit.cli.utility",
                "What each SYNTHETIC file made from the --original file is worth: synthpop's "
                "pMSE and S_pMSE of the one- and two-way tables (the worst listed), SDNist's "
                "k-marginal score."),
}


#: Exit status of a command interrupted by Ctrl-C: 128 + SIGINT, as the shell sets it.
INTERRUPTED = 130


#: Bytes of the first file times bytes of the others from which ``capkit report`` starts its
#: second process (:mod:`capkit.processes`) before it imports the measures and reads the files:
#: about the work at which the audit uses one (:data:`capkit.audit.parallel.PARALLEL_CELLS`;
#: Adult's CSV files, 2.5 MB of members and 7.6 MB of syntheses, give 1.9e13).
WARM_BYTES = 10**12


def _warm_for_report(argv: list[str]) -> None:
    """Start the second process of a large report now, so that it is ready (its 1.4 s of
    imports on another core) when the audit begins; the audit decides whether to use it. For
    an html page it imports the pictures too (it draws some of them)."""
    if any(a in ("--help", "-h") for a in argv):
        return
    files = [Path(a) for a in argv if not a.startswith("-") and Path(a).is_file()]
    sizes = [f.stat().st_size for f in files]
    if len(sizes) >= 2 and sizes[0] * sum(sizes[1:]) >= WARM_BYTES:
        from capkit import processes

        page = "--format=html" in argv or any(
            a == "--format" and b == "html" for a, b in zip(argv, argv[1:], strict=False))
        processes.warm(("capkit.audit.parallel",) + (("capkit.plots.custodian",) if page
                                                     else ()))


class _Group(click.Group):
    """Loads each command's module on first use, and keeps the raw command-line arguments so
    that reports can print the exact command."""

    def make_context(self, info_name, args, parent=None, **extra):  # noqa: ANN001, ANN201
        raw = list(args)
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        ctx.meta["capkit.argv"] = raw
        return ctx

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; Ctrl-C ends it with status :data:`INTERRUPTED` (click's own
        handling exits with 1)."""
        if "--help" in ctx.meta.get("capkit.argv", []):
            return super().invoke(ctx)  # a command's help: nothing of its work is imported
        from capkit.data.arrow import arrow_allocator

        arrow_allocator()  # before pandas imports pyarrow, and the second process starts
        from capkit.report.safe import visible  # after --help: the report's modules are not light

        shown = warnings.showwarning

        def escaped(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001, ANN202
            # a library's warning may quote a name or value: its control characters escaped
            text = visible(warnings.formatwarning(message, category, filename, lineno, line),
                           lines=True)
            (file or sys.stderr).write(text)

        warnings.showwarning = escaped
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\nInterrupted: no output file is left half-written.", err=True)
            raise click.exceptions.Exit(INTERRUPTED) from None
        finally:
            warnings.showwarning = shown

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        if cmd_name == "report":
            _warm_for_report(ctx.meta.get("capkit.argv", []))
        return getattr(importlib.import_module(COMMANDS[cmd_name][0]), cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, click.Command(name, help=summary).get_short_help_str(limit))
                for name, (_, summary) in sorted(COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_Group)
@click.version_option(package_name="capkit")
def main() -> None:
    """capkit: disclosure risk of synthetic data (CAP, synthpop's measures), reproduced."""
