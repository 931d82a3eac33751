"""The reproduction: the claims ledger (:mod:`~capkit.reproduce.claims`: paper value vs
reproduced value) and the papermill runner (:mod:`~capkit.reproduce.runner`). Names only."""

from capkit.reproduce.runner import (
    Experiment,
    Finished,
    load_experiments,
    output_folder,
    run,
    strip_run_metadata,
    write_ledger,
)

__all__ = ["Experiment", "Finished", "load_experiments", "output_folder", "run",
           "strip_run_metadata", "write_ledger"]
