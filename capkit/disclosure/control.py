"""The membership control for synthpop's measures: DiSCO and DCAP of a holdout.

Raab, Nowok & Dibben's DiSCO (the share of original records whose target is disclosed correctly
by a key whose synthetic records all share one target) and DCAP (the average probability the
synthetic data gives a record's true target, synthpop's CAP of the original) are computed for
the members, the records the synthetic data was made from. Run with the same options on a
**holdout** of records that were not used for the synthesis, they say what the synthetic data
reveals about any record of the population. The members' value above the holdout's is what the
synthesis disclosed about its own records; the comparison (Wilson intervals on both rates, the
risk (m - c) / (1 - c) with its interval, the advantage m - c) is
:func:`capkit.control.compare_to_control`, on the counts ``measure / 100 * n``.

baseCAPd (100 x the sum of squared target shares) is each group's no-information level.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Iterator

import pandas as pd

from capkit.control import compare_to_control
from capkit.counts.encode import kind_of_series
from capkit.data.align import column_difference
from capkit.errors import CapkitError, ContinuousTargetWarning, DisjointLevelsError

#: Measures compared, in percent of each group's records.
CONTROLLED = ("DiSCO", "DCAP")


def _row(measure: str, members: float, n_members: int, holdout: float, n_holdout: int,
         confidence: float) -> dict[str, float | str]:
    row: dict[str, float | str] = {"measure": measure, "members": members, "holdout": holdout,
                                   "difference": members - holdout}
    if measure == "baseCAPd" or pd.isna(members) or pd.isna(holdout):
        return {**row, "risk": float("nan"), "risk_low": float("nan"),
                "risk_high": float("nan")}
    comparison = compare_to_control(members / 100 * n_members, n_members,
                                    holdout / 100 * n_holdout, n_holdout, confidence=confidence)
    low, high = comparison.risk_ci
    return {**row, "risk": comparison.risk, "risk_low": low, "risk_high": high}


def _measure(frame_attrib: pd.DataFrame, frame_caps: pd.DataFrame, measure: str) -> pd.Series:
    return frame_attrib[measure] if measure in frame_attrib.columns else frame_caps[measure]


def control_table(members: object, holdout: object, confidence: float = 0.95) -> pd.DataFrame:
    """DiSCO, DCAP and baseCAPd of members and holdout, one row per synthesis and measure.

    Parameters
    ----------
    members, holdout
        :class:`capkit.disclosure.result.DisclosureResult` of the same syntheses, keys, target
        and options, with the members and with the holdout as the original data.
    confidence
        Confidence level of the risk's interval.

    Returns
    -------
    pandas.DataFrame
        Columns ``synthesis``, ``measure``, ``members`` and ``holdout`` (percent, as synthpop
        prints them), ``difference`` (percentage points), ``risk``, ``risk_low``,
        ``risk_high`` (on [0, 1]; NaN for baseCAPd).
    """
    if members.m != holdout.m:
        raise CapkitError("members and holdout results must cover the same syntheses")
    rows = []
    for j in members.attrib.index:
        for measure in (*CONTROLLED, "baseCAPd"):
            m_value = float(_measure(members.attrib, members.allcaps, measure).loc[j])
            h_value = float(_measure(holdout.attrib, holdout.allcaps, measure).loc[j])
            rows.append({"synthesis": j, **_row(measure, m_value, members.n_orig, h_value,
                                                  holdout.n_orig, confidence)})
    return pd.DataFrame(rows)


def summary_control(members: object, holdout: object, confidence: float = 0.95
                    ) -> pd.DataFrame:
    """:func:`control_table` per target of a disclosure summary, averaged over syntheses.

    Parameters
    ----------
    members, holdout
        :class:`capkit.disclosure.result.DisclosureSummary` of the same call with the members
        and with the holdout as the original data.

    Returns
    -------
    pandas.DataFrame
        One row per (target, measure), targets in the order given: ``members``, ``holdout``,
        ``difference``, ``risk``, ``risk_low``, ``risk_high`` (the risk of the mean rates).
    """
    rows = []
    for target in members.targets:
        m_res, h_res = members.per_target[target], holdout.per_target[target]
        for measure in (*CONTROLLED, "baseCAPd"):
            m_value = float(_measure(m_res.attrib, m_res.allcaps, measure).mean())
            h_value = float(_measure(h_res.attrib, h_res.allcaps, measure).mean())
            rows.append({"target": target, **_row(measure, m_value, m_res.n_orig, h_value,
                                                   h_res.n_orig, confidence)})
    return pd.DataFrame(rows)


def check_holdout(original: object, holdout: object) -> None:
    """A DataFrame holdout must have the original's columns (a CapkitError naming it)."""
    if isinstance(original, pd.DataFrame) and isinstance(holdout, pd.DataFrame):
        missing, extra = column_difference(original, holdout)
        if missing or extra:
            raise CapkitError(
                "holdout must have the columns of the original data: missing from holdout "
                f"{missing}, only in holdout {extra}")
        for column in original.columns:
            if kind_of_series(original[column]) != kind_of_series(holdout[column]):
                raise CapkitError(
                    f"holdout column {column!r} has type {holdout[column].dtype} but the "
                    f"original data has {original[column].dtype}; convert one of them first")


#: The members' data while the holdout's run is measured: a numeric target or key grouped
#: into classes (``ngroups_target``, ``ngroups_keys``) takes its breaks from the members and the
#: syntheses, exactly as in the members' run, and the holdout is assigned to those classes.
#: Breaks rebuilt from the holdout would make the control measure other classes than the
#: members' (a synthesis whose distribution differs from the original's would then look
#: disclosive though members and holdout are alike).
BREAKS_FROM: contextvars.ContextVar[pd.DataFrame | None] = contextvars.ContextVar(
    "capkit_breaks_from", default=None)


@contextlib.contextmanager
def holdout_run(members: object = None) -> Iterator[None]:
    """Around the measures' second run, with the holdout as the original: the members' run has
    already warned about a continuous target, and the holdout's own counts would repeat it; a
    grouped numeric variable takes the members' breaks (:data:`BREAKS_FROM`, when ``members``
    is a DataFrame)."""
    token = BREAKS_FROM.set(members if isinstance(members, pd.DataFrame) else None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ContinuousTargetWarning)
            yield
    except DisjointLevelsError as exc:  # the holdout is the "original" of this run: say so
        raise DisjointLevelsError(
            _as_holdout(str(exc)), column=exc.column, role=exc.role,
            reason=None if exc.reason is None else _as_holdout(exc.reason)) from exc
    finally:
        BREAKS_FROM.reset(token)


def _as_holdout(text: str) -> str:
    """A message of the holdout's run, where the holdout stands in the original's place,
    with each file named by its role."""
    return (text.replace("original records", "holdout records")
            .replace("original levels", "holdout levels")
            .replace("between the original and", "between the holdout and")
            .replace("original data", "holdout"))


def breaks_reference(name: str) -> object:
    """The members' values of ``name`` when the holdout's run is measured (else None)."""
    members = BREAKS_FROM.get()
    if members is None or name not in members.columns:
        return None
    return members[name]


__all__ = ["BREAKS_FROM", "CONTROLLED", "breaks_reference", "check_holdout", "control_table",
           "holdout_run", "summary_control"]
