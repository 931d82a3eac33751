"""synthpop's printed forms of ``disclosure`` and ``multi.disclosure`` results (Raab, Nowok &
Dibben's synthpop 1.9-2, ``print.disclosure`` and ``print.multi.disclosure``).

Rounding happens here only; the result objects hold unrounded values. The printers read what
they print through two protocols (the attributes of
:class:`capkit.disclosure.result.DisclosureResult` and ``DisclosureSummary``), so this module
imports nothing of the results that call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from capkit.errors import CapkitError


class PrintableResult(Protocol):
    """What :func:`format_disclosure` prints: a
    :class:`capkit.disclosure.result.DisclosureResult`."""

    ident: pd.DataFrame
    attrib: pd.DataFrame
    allcaps: pd.DataFrame
    check_1way: list
    check_2way: list
    check1: list
    check2: list
    nexclusions: list
    keys: list[str]
    target: str
    m: int
    n_orig: int
    digits: int

    @property
    def any_excluded(self) -> bool: ...


class PrintableSummary(Protocol):
    """What :func:`format_summary` prints: a
    :class:`capkit.disclosure.result.DisclosureSummary`."""

    attrib_table: pd.DataFrame
    ident_orig: object
    ident_syn: object
    ident_meas: str
    attrib_meas: str
    keys: list[str]
    m: int
    n_orig: int
    digits: int

PRINT_CHOICES = ("short", "ident", "attrib", "allcaps", "check_1way", "check_2way", "all",
                 "exclusions")


def _decimals(value: float, digits: int) -> int:
    """Decimals R shows for ``round(value, digits)``: trailing zeros dropped."""
    text = f"{value:.{digits}f}"
    if "." not in text:
        return 0
    return len(text.rstrip("0").split(".")[1])


def _format_column(values: pd.Series, digits: int) -> list[str]:
    if values.dtype.kind in "iub":
        return [str(int(v)) for v in values]
    if values.dtype.kind != "f":
        return [str(v) for v in values]
    rounded = np.round(values.to_numpy(dtype=float), digits)
    finite = rounded[np.isfinite(rounded)]
    dec = max((_decimals(float(v), digits) for v in finite), default=0)
    return ["NaN" if np.isnan(v) else ("Inf" if v > 0 else "-Inf") if np.isinf(v)
            else f"{v:.{dec}f}" for v in rounded]


def r_table(frame: pd.DataFrame, digits: int = 2) -> str:
    """A data frame printed the way R's ``print.data.frame`` does after ``round(digits)``.

    Each numeric column gets the fewest decimals (at most ``digits``) that show all its
    rounded values; columns are right-justified and separated by one space; row names are
    left-justified.
    """
    names = [str(i) for i in frame.index]
    width = max((len(n) for n in names), default=0)
    columns = []
    for col in frame.columns:
        cells = _format_column(frame[col], digits)
        w = max([len(str(col))] + [len(c) for c in cells])
        columns.append([str(col).rjust(w)] + [c.rjust(w) for c in cells])
    lines = [" " * width + "".join(" " + c[0] for c in columns)]
    for i, name in enumerate(names):
        lines.append(name.ljust(width) + "".join(" " + c[i + 1] for c in columns))
    return "\n".join(lines)


def _per_synthesis(tables: Sequence[pd.DataFrame | None], digits: int) -> list[str]:
    """One block per synthesis: "Synthesis j: none", or the heading and the check table."""
    lines = []
    for j, table in enumerate(tables, start=1):
        lines.append(f"Synthesis {j}: " + ("none" if table is None else ""))
        if table is not None:
            lines.append(r_table(table, digits))
    return lines


def format_disclosure(result: PrintableResult, to_print: str | Sequence[str] = "short") -> str:
    """The text synthpop's ``print.disclosure`` writes (spec 8)."""
    choices = [to_print] if isinstance(to_print, str) else list(to_print)
    bad = [c for c in choices if c not in PRINT_CHOICES]
    if bad:
        raise CapkitError(f"to_print must be among {PRINT_CHOICES}, got {bad}")
    if "short" in choices and len(choices) > 1:
        raise CapkitError("to_print 'short' cannot be combined with other choices")
    if "all" in choices:
        choices = ["ident", "attrib", "allcaps", "check_1way", "check_2way", "exclusions"]
    digits = result.digits
    keys = " ".join(result.keys)
    lines = [f"Disclosure measures from synthesis for {result.n_orig} records in original "
             "data."]
    if result.any_excluded:
        lines.append("Some records excluded from the measures: see to_print='exclusions'.")
    if choices == ["short"]:
        short = pd.DataFrame(
            [[result.ident["UiO"].iloc[0], result.attrib["Dorig"].iloc[0]]]
            + [[result.ident["repU"].iloc[j], result.attrib["DiSCO"].iloc[j]]
               for j in range(result.m)],
            index=["Original"] + [f"Synthesis {j + 1}" for j in range(result.m)],
            columns=["Identity (UiO/repU)", "Attrib (Dorig/DiSCO)"])
        lines += ["", f"Identity and attribute disclosure measures for target {result.target} "
                  f"from keys: {keys}", r_table(short, digits)]
    if "ident" in choices:
        lines += ["", f"Identity disclosure measures for {result.m} synthetic data set(s) from "
                  f"keys:", f" {keys} ", "", r_table(result.ident, digits)]
    if "attrib" in choices:
        lines += ["", f"Attribute disclosure measures for {result.target} from keys: {keys} ",
                  r_table(result.attrib, digits)]
    if "allcaps" in choices:
        lines += ["", f"CAP measures for the target {result.target} with keys", f"{keys} ", "",
                  r_table(result.allcaps, digits)]
    if "check_1way" in choices:
        lines += ["", "Details of target level contributing disproportionately to disclosure"]
        lines += _per_synthesis(result.check_1way, digits)
    elif result.check1:
        lines += ["", f"{result.check1}: a level of the target contributes disproportionately "
                  "to disclosure; print with to_print='check_1way' for details"]
    if "check_2way" in choices:
        lines += ["", "Details of target-key combinations contributing disproportionately to "
                  "disclosure"]
        lines += _per_synthesis(result.check_2way, digits)
    elif result.check2:
        lines += ["", f"{result.check2}: some target-key pairs contribute disproportionately "
                  "to disclosure; print with to_print='check_2way' for details"]
    if "exclusions" in choices:
        if not result.any_excluded:
            lines += ["", "No records excluded from attribute disclosure measures"]
        for j, table in enumerate(result.nexclusions, start=1):
            lines += ["", f"Records excluded from attribute exclusion measures for synthesis "
                      f"{j} ", r_table(table, digits)]
    return "\n".join(lines)


def format_summary(summary: PrintableSummary) -> str:
    """The text synthpop's ``print.multi.disclosure`` writes (spec 9.4)."""
    digits = summary.digits
    keys = " ".join(summary.keys)
    orig_name = {"DiSCO": "Dorig", "DiSDiO": "Dorig", "DCAP": "CAPd"}[summary.attrib_meas]

    def fmt(v: float) -> str:
        return "NA" if not np.isfinite(v) else _format_column(pd.Series([float(v)]), digits)[0]

    lines = [f"Disclosure risk for {summary.n_orig} records in the original data"]
    if summary.m > 1:
        lines.append(f"Results are averaged over {summary.m} syntheses")
    lines += ["Identity disclosure measures", f"from keys: {keys} ",
              f"For original  ( UiO )  {fmt(summary.ident_orig.iloc[0])} %",
              f"For synthetic ( {summary.ident_meas} ) {fmt(summary.ident_syn.iloc[0])} %.", "",
              f"Table of attribute disclosure measures for {keys} ",
              f"Original measure is  {orig_name} and synthetic measure is "
              f"{summary.attrib_meas} ",
              "Variables Ordered by synthetic disclosure measure", ""]
    lines.append(r_table(summary.attrib_table, digits))
    return "\n".join(lines)
