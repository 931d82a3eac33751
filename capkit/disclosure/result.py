"""What ``disclosure()`` and ``disclosure_summary()`` return: :class:`DisclosureResult` and
:class:`DisclosureSummary` (synthpop 1.9-2's ``disclosure`` and ``multi.disclosure`` objects,
with capkit's names; Raab, Nowok & Dibben, Section 2 and Table 1).

Their printed forms come from :mod:`capkit.disclosure.printing`; their figure from
:func:`capkit.plots.disclosure.plot_summary` (measures draw no figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from capkit.counts.cells import CellTable
from capkit.disclosure.printing import format_disclosure, format_summary


@dataclass
class DisclosureResult:
    """What synthpop's ``disclosure()`` returns, with capkit's names.

    Attributes
    ----------
    ident, attrib, allcaps
        One row per synthesis (index 1..m), unrounded, percentages on a 0-100 scale:
        ``ident`` UiO, UiS, UiOiS, repU; ``attrib`` Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO,
        max_denom, mean_denom; ``allcaps`` baseCAPd, CAPd, CAPs, DCAP, TCAP.
    check_1way, check_2way
        One entry per synthesis: the flagged table, or ``None``.
    check1, check2
        synthpop's messages, from the last synthesis that was flagged ("" if none).
    nexclusions
        One 8 x 6 table per synthesis: records removed from each cell table by each exclusion.
    keys, target, n_orig, m
        Keys in data order, the target, the number of original records and of syntheses.
    holdout, control
        With ``disclosure(..., holdout=...)``: the same measures with the holdout as the
        original data, and the membership control of DiSCO and DCAP
        (:func:`capkit.disclosure.control.control_table`); None otherwise.
    """

    ident: pd.DataFrame
    attrib: pd.DataFrame
    allcaps: pd.DataFrame
    check_1way: list[pd.DataFrame | None]
    check_2way: list[pd.DataFrame | None]
    check1: str
    check2: str
    nexclusions: list[pd.DataFrame]
    keys: list[str]
    target: str
    n_orig: int
    m: int
    digits: int = 2
    messages: list[str] = field(default_factory=list)
    cells: list[CellTable] = field(default_factory=list, repr=False)
    holdout: DisclosureResult | None = field(default=None, repr=False)
    control: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def any_excluded(self) -> bool:
        """Whether some exclusion removed records from some table."""
        return any(int(t.iloc[:, :5].to_numpy().sum()) > 0 for t in self.nexclusions)

    def to_string(self, to_print: str | Sequence[str] = "short") -> str:
        """synthpop's printed form (``print.disclosure``, spec 8), rounded to ``digits``."""
        return format_disclosure(self, to_print)

    def __str__(self) -> str:
        return self.to_string("short")

    def print(self, to_print: str | Sequence[str] = "short") -> None:
        """Print like synthpop's ``print(x, to.print = ...)``."""
        print(self.to_string(to_print))


@dataclass
class DisclosureSummary:
    """What synthpop's ``multi.disclosure()`` returns, with capkit's names.

    Attributes
    ----------
    attrib_table
        One row per target, sorted by ``attrib.syn`` (ascending, stable, NaN last), with
        synthpop's row names ("1 income", "5 workab 1&2way checks", ...).
    ident_orig, ident_syn
        Identity measures per target, in ``targets`` order.
    per_target
        The full :class:`DisclosureResult` of each target.
    holdout, control
        With ``disclosure_summary(..., holdout=...)``: the summary with the holdout as the
        original data, and the membership control per target and measure
        (:func:`capkit.disclosure.control.summary_control`); None otherwise.
    """

    attrib_table: pd.DataFrame
    ident_orig: pd.Series
    ident_syn: pd.Series
    keys: list[str]
    targets: list[str]
    n_orig: int
    m: int
    ident_meas: str
    attrib_meas: str
    per_target: dict[str, DisclosureResult] = field(repr=False)
    digits: int = 2
    holdout: DisclosureSummary | None = field(default=None, repr=False)
    control: pd.DataFrame | None = field(default=None, repr=False)

    def to_string(self) -> str:
        """synthpop's printed form (``print.multi.disclosure``, spec 9.4)."""
        return format_summary(self)

    def __str__(self) -> str:
        return self.to_string()
