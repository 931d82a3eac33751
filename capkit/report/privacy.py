"""The anonymeter and SDMetrics sections of ``capkit attack``'s report: singling out and
linkability (Giomi et al., PoPETs 2023) with the membership control, and SDMetrics 0.32's
protection scores, laid out from a ``PrivacyRun`` (:mod:`capkit.cli.privacy`)."""

from __future__ import annotations

from capkit.report.model import Section, Table

_PERCENT = ("members rate", "compared rate", "risk", "risk_low", "risk_high")


def privacy_sections(run) -> list[Section]:  # noqa: ANN001 - a capkit.cli.privacy.PrivacyRun
    """Sections for the anonymeter attacks and the SDMetrics scores that were run."""
    sections = []
    if not run.attacks.empty:
        frame = run.attacks.copy()
        for column in _PERCENT:
            frame[column] = 100 * frame[column]
        reference = ("the holdout (records not used for the synthesis)" if run.has_holdout
                     else "the random baseline (no --holdout: the rates cannot tell "
                          "disclosure about the members from inference about anyone)")
        paragraphs = [
            "anonymeter's attacks (Giomi et al., PoPETs 2023) on every record, compared with "
            f"{reference}. Risk = (m - c) / (1 - c) of the members' rate m and the compared "
            "rate c, with its interval."]
        if run.halves is not None:
            paragraphs.append(f"Linkability halves: {', '.join(run.halves[0])} | "
                              f"{', '.join(run.halves[1])}; a record is linked when the nearest "
                              "synthetic records of its two halves are the same (ties: the "
                              "expected link over random tie orders; the tie range bounds the "
                              "links of any tie order).")
        sections.append(Section("Singling out and linkability (anonymeter)",
                                 paragraphs=paragraphs, tables=[Table(
                                     "anonymeter's attacks", frame, index=False,
                                     units={c: "%" for c in _PERCENT})]))
    if not run.scores.empty or run.notes:
        tables = [] if run.scores.empty else [Table(
            "SDMetrics 0.32 protection scores (1 = safe)", run.scores, index=False, digits=4,
            note="DisclosureProtection: the keys known, each target sensitive (CAP attack, "
                 "normalised by random guessing). DCROverfittingProtection: synthetic records "
                 "closer to a member than to a holdout record.")]
        sections.append(Section("SDMetrics scores", items=list(run.notes), tables=tables))
    return sections


__all__ = ["privacy_sections"]
