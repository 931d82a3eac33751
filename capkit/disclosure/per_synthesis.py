"""Measures and checks of each synthesis' aligned cells, gathered into one
:class:`~capkit.disclosure.result.DisclosureResult` (spec sections 4-6 per synthesis).

Shared by the pandas path (:mod:`capkit.disclosure.core`) and the counting engines
(:mod:`capkit.disclosure.engine_path`), so both give the same numbers from the same cells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import pandas as pd

from capkit.counts.cells import CellTable
from capkit.data.labels import SortKey
from capkit.disclosure.checks import KeyMargins, check_1way, check_2way
from capkit.disclosure.measures import ALLCAPS, ATTRIB, IDENT, Exclusions, compute
from capkit.disclosure.result import DisclosureResult


def measure_syntheses(
    per_synthesis: Iterable[tuple[CellTable, KeyMargins]],
    exclusions: Exclusions | Callable[[CellTable, KeyMargins], Exclusions],
    *,
    keys: list[str],
    target: str,
    thresh_1way: tuple[float, float],
    thresh_2way: tuple[float, float],
    parse_labels: bool,
    sort_key: SortKey | None,
    digits: int,
    messages: list[str],
    compat: bool = False,
) -> DisclosureResult:
    """Measures and checks of each synthesis' aligned cells, gathered into one result.

    Shared by the pandas path (:func:`disclosure`) and the counting engines
    (:mod:`capkit.disclosure.engine_path`): spec sections 4-6 per synthesis.

    Parameters
    ----------
    per_synthesis
        For each synthesis, its aligned cells and the original's key margins (for check_2way).
    exclusions
        The exclusions, or a function building them from the first synthesis' cells and
        margins (the engine path learns the original's labels from the counts).
    keys, target, digits, messages
        Stored in the result as given (``n_orig`` and ``m`` come from the cells).
    thresh_1way, thresh_2way, parse_labels, sort_key
        Passed to :func:`check_1way` / :func:`check_2way`.
    compat
        synthpop_compat: keep synthpop's words "1 pairs need checks" ("1 pair needs checks"
        otherwise).
    """
    rows: dict[str, list[dict[str, float]]] = {"ident": [], "attrib": [], "allcaps": []}
    c1: list[pd.DataFrame | None] = []
    c2: list[pd.DataFrame | None] = []
    nexcl, all_cells = [], []
    check1 = check2 = ""
    for cells, margins in per_synthesis:
        if callable(exclusions):
            exclusions = exclusions(cells, margins)
        result = compute(cells, exclusions)
        rows["ident"].append(result.ident)
        rows["attrib"].append(result.attrib)
        rows["allcaps"].append(result.allcaps)
        nexcl.append(result.nexclusions)
        one = check_1way(cells, result.tables, thresh_1way)
        two = check_2way(cells, result.tables, keys, margins, thresh_2way,
                         parse_labels=parse_labels, sort_key=sort_key)
        if one is not None:
            check1 = f"Check  {target}  level  {one['Level'].iloc[0]}"
        if two is not None:
            check2 = (f"{len(two)} pairs need checks" if compat or len(two) != 1
                      else "1 pair needs checks")
        c1.append(one)
        c2.append(two)
        all_cells.append(cells)
    index = pd.RangeIndex(1, len(all_cells) + 1)

    def frame(name: str, columns: Sequence[str]) -> pd.DataFrame:
        return pd.DataFrame(rows[name], columns=list(columns), index=index)

    return DisclosureResult(
        ident=frame("ident", IDENT), attrib=frame("attrib", ATTRIB),
        allcaps=frame("allcaps", ALLCAPS), check_1way=c1, check_2way=c2, check1=check1,
        check2=check2, nexclusions=nexcl, keys=list(keys), target=target,
        n_orig=all_cells[0].n_orig, m=len(all_cells), digits=digits, messages=messages,
        cells=all_cells)
