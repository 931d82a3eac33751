"""synthpop's disclosure measures, number for number: ``disclosure`` and ``disclosure_summary``.

Raab, Nowok & Dibben, "Practical privacy metrics for synthetic data" (synthpop 1.9-2's
``disclosure()`` and ``multi.disclosure()``, the paper's ``disclosure.summary()``). The semantics
follow the specification ``synthpop-disclosure.md``; conformance against real synthpop output is
tested to 1e-9.

Modules: :mod:`.core` (``disclosure``), :mod:`.summary` (``disclosure_summary``),
:mod:`.counts` (the count step: aligned cells), :mod:`.measures` (formulas on cells),
:mod:`.checks` (check_1way / check_2way), :mod:`.labels` (R factor labels, grouping),
:mod:`.compare` (``synorig.compare``), :mod:`.printing` (synthpop's printed form).
"""

from capkit.disclosure.core import DisclosureResult, disclosure
from capkit.disclosure.counts import CellTable, build_cells, count_cells
from capkit.disclosure.measures import Exclusions, compute
from capkit.disclosure.summary import DisclosureSummary, disclosure_summary

__all__ = [
    "CellTable",
    "DisclosureResult",
    "DisclosureSummary",
    "Exclusions",
    "build_cells",
    "compute",
    "count_cells",
    "disclosure",
    "disclosure_summary",
]
