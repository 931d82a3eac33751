"""The anonymeter attacks and SDMetrics scores of ``capkit attack`` (``--singling-out``,
``--linkability``, ``--sdmetrics``): computed here for every synthetic file, laid out by
:mod:`capkit.report.privacy`.

Singling out and linkability are anonymeter's (Giomi et al., "A Unified Framework for
Quantifying Privacy Risk in Synthetic Data", PoPETs 2023) as :mod:`capkit.attacks` runs them:
every record attacked, seeded, compared with the holdout (``--holdout``) or, without one, with
the random baseline. The SDMetrics scores are SDMetrics 0.32's ``DisclosureProtection`` (keys
known, each target sensitive) and, with a holdout, ``DCROverfittingProtection``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from capkit.errors import CapkitError, CapkitWarning

if TYPE_CHECKING:
    import pandas as pd

    from capkit.cli.files import Inputs


@dataclass
class PrivacyRun:
    """Results of the privacy options: one row per (synthesis, attack) in ``attacks``, one per
    (synthesis, metric, target) in ``scores``; what was asked; the measures' notes."""

    attacks: pd.DataFrame
    scores: pd.DataFrame
    halves: tuple[list[str], list[str]] | None
    has_holdout: bool
    notes: list[str] = field(default_factory=list)


def parse_halves(value: str | None) -> tuple[list[str], list[str]] | None:
    """``--linkability "A1,A2;B1,B2"`` as two lists of column names."""
    if value is None:
        return None
    parts = value.split(";")
    halves = [[c.strip() for c in part.split(",") if c.strip()] for part in parts]
    if len(halves) != 2 or not all(halves):
        raise CapkitError(f"--linkability needs two column lists separated by ';', e.g. "
                          f"\"age,sex;region,income\", got {value!r}")
    return halves[0], halves[1]


def _row(synthesis: int, attack: str, result) -> dict:  # noqa: ANN001 - either result type
    head = result.control if result.n_control is not None else result.baseline
    reference = head.control
    return {"synthesis": synthesis, "attack": attack,
            "attacks": int(head.members.n), "members": head.members.k,
            "compared with": result.risk_reference, "compared count": reference.k,
            "members rate": head.members.rate, "compared rate": reference.rate,
            "risk": result.risk, "risk_low": result.risk_ci[0], "risk_high": result.risk_ci[1]}


def run_privacy(inputs: Inputs, *, singling: bool, halves: tuple[list[str], list[str]] | None,
                sdmetrics: bool, seed: int, quiet: bool) -> PrivacyRun:
    """The asked-for anonymeter attacks and SDMetrics scores on every synthetic file."""
    import pandas as pd

    from capkit.attacks import linkability, singling_out
    from capkit.data.labels import is_numeric
    from capkit.sdmetrics import DCROverfittingProtection, DisclosureProtection

    rows, scores, notes = [], [], []
    original, holdout = inputs.original, inputs.holdout
    for i, synthetic in enumerate(inputs.synthetics, start=1):
        if singling:
            result = singling_out(original, synthetic, control=holdout, seed=seed)
            rows.append(_row(i, "singling out (multivariate)", result))
        if halves is not None:
            result = linkability(original, synthetic, halves, control=holdout, seed=seed,
                                 progress=not quiet)
            rows.append(_row(i, "linkability", result) | {
                "tie range": f"{result.links_range[0]}-{result.links_range[1]}"})
        if sdmetrics:
            numeric = [c for c in (*inputs.keys, *inputs.targets) if is_numeric(original[c])]
            for target in inputs.targets:
                score = DisclosureProtection.compute(
                    original, synthetic, inputs.keys, [target],
                    continuous_column_names=[c for c in numeric if c in
                                             (*inputs.keys, target)] or None,
                    allow_disjoint_levels=True)
                scores.append({"synthesis": i, "metric": "DisclosureProtection",
                               "target": target, "score": score})
            if holdout is not None:
                meta = {"columns": {c: {"sdtype": "numerical" if is_numeric(original[c])
                                        else "categorical"} for c in original.columns}}
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    score = DCROverfittingProtection.compute(original, synthetic, holdout, meta)
                _as_notes(caught, "DCROverfittingProtection", notes)
                scores.append({"synthesis": i, "metric": "DCROverfittingProtection",
                               "target": "", "score": score})
                blind = _unseen_copies(original, synthetic, holdout, i)
                notes += [blind] if blind and blind not in notes else []
    if sdmetrics and holdout is None:
        notes.append("DCROverfittingProtection needs --holdout; it was not computed.")
    return PrivacyRun(pd.DataFrame(rows), pd.DataFrame(scores), halves, holdout is not None,
                      notes)


def _unseen_copies(original: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame,
                   i: int) -> str | None:
    """What DCROverfittingProtection cannot see, said when it matters: a synthetic record
    identical to a member on the columns read that is also identical to a holdout record is
    at distance 0 from both, a tie, and SDMetrics counts a tie as closer to the holdout (the
    score is SDMetrics' own on these frames). None when no copy of a member ties."""
    from capkit.data.overlap import record_overlap

    to_members = record_overlap(original, synthetic, other_name=f"synthesis {i}")
    if to_members.shared == 0:
        return None
    tied = int((to_members.is_shared & record_overlap(
        holdout, synthetic, list(to_members.columns), other_name=f"synthesis {i}").is_shared)
        .sum())
    if tied == 0:  # every copy is closer to the members: the score sees them
        return None
    return (f"DCROverfittingProtection of synthesis {i}: {to_members.shared:,} of its "
            f"{to_members.n_other:,} records copy a member on the columns read "
            f"({', '.join(to_members.columns)}), and {tied:,} of those copies are also "
            "identical to a holdout record there: a tie, which SDMetrics 0.32 counts as closer "
            "to the holdout (capkit computes the score as SDMetrics does, and SDMetrics gives "
            "the same on these files). This metric cannot see copies of members that have a "
            "twin in the holdout; on few columns most do. Judge copies by capkit report's "
            "exact copies (every column, against the holdout's rate)")


def _as_notes(caught: list[warnings.WarningMessage], metric: str, notes: list[str]) -> None:
    """SDMetrics' warnings (e.g. a holdout under half the members' size) as the report's notes,
    each once, and as one ``Warning:`` line on stderr (a CapkitWarning) instead of Python's
    ``file:line: UserWarning`` text."""
    for w in caught:
        text = f"{metric}: {w.message}"
        if text not in notes:
            notes.append(text)
            warnings.warn(text, CapkitWarning, stacklevel=2)


__all__ = ["PrivacyRun", "parse_halves", "run_privacy"]
