"""synthpop's disclosure measures, number for number: ``disclosure`` and ``disclosure_summary``.

Raab, Nowok & Dibben, "Practical privacy metrics for synthetic data" (synthpop 1.9-2's
``disclosure()`` and ``multi.disclosure()``, the paper's ``disclosure.summary()``). The semantics
follow the specification ``synthpop-disclosure.md``; conformance against real synthpop output is
tested to 1e-9.

Modules: :mod:`.core` (``disclosure``), :mod:`.summary` (``disclosure_summary``),
:mod:`.result` (what they return), :mod:`.per_synthesis` (measures and checks of each
synthesis), :mod:`.measures` (formulas on cells), :mod:`.checks` (check_1way / check_2way),
:mod:`.options` (argument checks), :mod:`.engine_path` (counting by DuckDB / Spark),
:mod:`.printing` (synthpop's printed form), :mod:`.sweep` (DiSCO over every combination of k keys
from a pool, SDNist's k-DiSCO view). The count step (aligned cells) is
:mod:`capkit.counts.cells`; R labels and ``synorig.compare`` are :mod:`capkit.data.labels` and
:mod:`capkit.data.synorig`. Names only.
"""

from capkit.counts.cells import CellTable, build_cells, count_cells
from capkit.disclosure.core import disclosure
from capkit.disclosure.measures import Exclusions, compute
from capkit.disclosure.result import DisclosureResult, DisclosureSummary
from capkit.disclosure.summary import disclosure_summary
from capkit.disclosure.sweep import SweepResult, sweep

__all__ = [
    "CellTable",
    "DisclosureResult",
    "DisclosureSummary",
    "SweepResult",
    "Exclusions",
    "build_cells",
    "compute",
    "count_cells",
    "disclosure",
    "disclosure_summary",
    "sweep",
]
