"""Table 1 of the synthpop disclosure paper (Adult, different exclusions) as data and as a call.

Raab, Nowok & Dibben, "Practical privacy metrics for synthetic data", Section 5 and Table 1:
``disclosure.summary`` on the Adult data (arules' ``AdultUCI``, ``education-num`` dropped) with
keys ``age, occupation, race, sex`` and the other 10 variables as targets, under five
exclusion settings; for each target the original measure Dorig and the synthetic measure DiSCO
(spec ``synthpop-disclosure.md`` 4.4):

=================================== ==================================================
column                              ``disclosure_summary`` options
=================================== ==================================================
``No excl``                         none
``not.tlev``                        ``not_targetslev``: the level flagged by check_1way
``NAs out + not.tlev``              ... plus ``usetargets_na=False, usekeys_na=False``
``denom_lim 1 + NAs out + not.tlev`` ... plus ``denom_lim=1, exclude_ov_denom_lim=True``
``denom_lim 1``                     ``denom_lim=1, exclude_ov_denom_lim=True`` only
=================================== ==================================================

:data:`ADULT_TABLE1` holds the printed values; :func:`exclusion_table` computes the same table
for any data, keys and targets (it only calls :func:`capkit.disclosure.disclosure_summary`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from capkit.disclosure import DisclosureSummary, disclosure_summary
from capkit.errors import CapkitError

__all__ = [
    "ADULT_CHECK_1WAY",
    "ADULT_CHECK_2WAY",
    "ADULT_KEYS",
    "ADULT_NOT_TARGETLEV",
    "ADULT_TABLE1",
    "ADULT_TARGETS",
    "EXCLUSIONS",
    "ExclusionTable",
    "exclusion_options",
    "exclusion_table",
]

#: The paper's keys for Adult (Section 5: "the keys age, occupation, race and sex").
ADULT_KEYS: tuple[str, ...] = ("age", "occupation", "race", "sex")

#: The 10 targets, in the row order of Table 1.
ADULT_TARGETS: tuple[str, ...] = (
    "capital.gain", "capital.loss", "education", "fnlwgt", "hours.per.week", "income",
    "marital.status", "native.country", "relationship", "workclass",
)

#: The levels flagged by check_1way in the paper (Section 5: "zeros for the first two and
#: United-States for native.country"), excluded with ``not.targetslev``.
ADULT_NOT_TARGETLEV: dict[str, str] = {
    "capital.gain": "0", "capital.loss": "0", "native.country": "United-States",
}

#: Targets the paper reports as flagged by check_1way and by check_2way (Section 5).
ADULT_CHECK_1WAY: tuple[str, ...] = ("capital.gain", "capital.loss", "native.country")
ADULT_CHECK_2WAY: tuple[str, ...] = ("marital.status", "relationship", "workclass")

#: Exclusion settings of Table 1: short name -> the paper's column heading.
EXCLUSIONS: dict[str, str] = {
    "no_excl": "No excl",
    "not_tlev": "not.tlev",
    "nas_out": "NAs out + not.tlev",
    "denom1_nas_out": "denom_lim 1 + NAs out + not.tlev",
    "denom1": "denom_lim 1",
}

_PRINTED = {  # Table 1 as printed: per target, (orig, syn) for each column of EXCLUSIONS
    "capital.gain": (22.55, 19.87, 0.21, 0.00, 0.21, 0.00, 0.19, 0.00, 2.68, 1.17),
    "capital.loss": (30.61, 27.71, 0.08, 0.00, 0.08, 0.00, 0.08, 0.00, 2.68, 1.26),
    "education": (3.71, 0.93, 3.71, 0.93, 3.71, 0.93, 2.45, 0.46, 2.68, 0.50),
    "fnlwgt": (2.70, 0.00, 2.70, 0.00, 2.70, 0.00, 2.45, 0.00, 2.68, 0.00),
    "hours.per.week": (4.36, 0.19, 4.36, 0.19, 4.36, 0.19, 2.45, 0.12, 2.68, 0.13),
    "income": (4.97, 2.10, 4.97, 2.10, 4.97, 2.10, 1.58, 0.50, 2.68, 0.82),
    "marital.status": (8.23, 5.27, 8.23, 5.27, 8.23, 5.27, 2.45, 0.68, 2.68, 0.74),
    "native.country": (17.09, 13.55, 0.94, 0.08, 0.94, 0.08, 0.67, 0.04, 2.68, 0.87),
    "relationship": (5.17, 2.64, 5.17, 2.64, 5.17, 2.64, 2.45, 0.69, 2.68, 0.73),
    "workclass": (14.27, 11.64, 14.27, 11.64, 14.27, 11.64, 2.45, 0.85, 2.68, 0.96),
}

_COLUMNS = pd.MultiIndex.from_product([list(EXCLUSIONS), ["orig", "syn"]],
                                      names=["exclusion", "side"])

#: Table 1 as printed (percent, 2 decimals): rows = targets, columns = (exclusion, side) with
#: side "orig" (Dorig) or "syn" (DiSCO).
ADULT_TABLE1: pd.DataFrame = pd.DataFrame.from_dict(_PRINTED, orient="index",
                                                    columns=_COLUMNS)
ADULT_TABLE1.index.name = "target"


def exclusion_options(exclusion: str, targets: Sequence[str],
                      not_targetlev: Mapping[str, str]) -> dict[str, Any]:
    """The ``disclosure_summary`` options of one column of Table 1.

    Parameters
    ----------
    exclusion
        A key of :data:`EXCLUSIONS`.
    targets
        The targets, in the order passed to ``disclosure_summary``.
    not_targetlev
        ``{target: level}`` excluded by ``not.targetslev`` (targets not named: none).

    Returns
    -------
    dict
        Keyword arguments for :func:`capkit.disclosure.disclosure_summary`.
    """
    if exclusion not in EXCLUSIONS:
        raise CapkitError(f"exclusion must be one of {list(EXCLUSIONS)}, got {exclusion!r}")
    options: dict[str, Any] = {}
    if exclusion in ("not_tlev", "nas_out", "denom1_nas_out"):
        options["not_targetslev"] = [not_targetlev.get(t, "") for t in targets]
    if exclusion in ("nas_out", "denom1_nas_out"):
        options["usetargets_na"] = False
        options["usekeys_na"] = False
    if exclusion in ("denom1_nas_out", "denom1"):
        options["denom_lim"] = 1
        options["exclude_ov_denom_lim"] = True
    return options


@dataclass
class ExclusionTable:
    """Dorig and DiSCO per target under the five exclusion settings of Table 1.

    Attributes
    ----------
    values
        Rows = targets, columns = (exclusion, side); side "orig" is Dorig, "syn" is DiSCO
        (mean over the syntheses), unrounded percentages.
    not_targetlev
        The ``{target: level}`` excluded in the ``not.tlev`` columns.
    levels_1way
        ``{target: level}`` flagged by check_1way without exclusions (equal to
        ``not_targetlev`` unless levels were given).
    flagged_1way, flagged_2way
        Targets flagged by check_1way / check_2way without exclusions (in ``targets`` order).
    npairs
        Number of target|key pairs flagged by check_2way without exclusions, per target.
    summaries
        The :class:`~capkit.disclosure.DisclosureSummary` of each exclusion setting.
    """

    values: pd.DataFrame
    not_targetlev: dict[str, str]
    levels_1way: dict[str, str]
    flagged_1way: list[str]
    flagged_2way: list[str]
    npairs: pd.Series
    summaries: dict[str, DisclosureSummary] = field(repr=False)


def _flagged_levels(summary: DisclosureSummary) -> dict[str, str]:
    """The level check_1way flags for each target (first flagged synthesis)."""
    levels = {}
    for target, result in summary.per_target.items():
        tables = [t for t in result.check_1way if t is not None]
        if tables:
            levels[target] = str(tables[0]["Level"].iloc[0])
    return levels


def exclusion_table(
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    original: pd.DataFrame,
    keys: Sequence[str] = ADULT_KEYS,
    targets: Sequence[str] = ADULT_TARGETS,
    *,
    not_targetlev: Mapping[str, str] | None = None,
    **options: Any,
) -> ExclusionTable:
    """Table 1 of the synthpop paper for any data: Dorig and DiSCO under five exclusions.

    Runs :func:`capkit.disclosure.disclosure_summary` once per column of :data:`EXCLUSIONS`.

    Parameters
    ----------
    synthetic, original
        As for ``disclosure_summary`` (one synthetic frame, or a list of m).
    keys, targets
        Default: the paper's Adult keys and targets.
    not_targetlev
        ``{target: level}`` to exclude in the ``not.tlev`` columns. ``None`` (default) uses the
        levels flagged by check_1way in the run without exclusions, the paper's procedure.
    **options
        Further options of ``disclosure_summary`` (``compare_synorig``, ``thresh_1way``, ...);
        the five settings' own options (``not_targetslev``, ``usetargets_na``,
        ``usekeys_na``, ``denom_lim``, ``exclude_ov_denom_lim``) may not be given.

    Returns
    -------
    ExclusionTable
    """
    targets = list(targets)
    reserved = {"not_targetslev", "usetargets_na", "usekeys_na", "denom_lim",
                "exclude_ov_denom_lim", "targets", "attrib_meas"}
    clash = sorted(reserved & set(options))
    if clash:
        raise CapkitError(f"options {clash} are set by the exclusion settings of Table 1; "
                          "they cannot be given to exclusion_table")
    if not_targetlev is not None:
        unknown = [t for t in not_targetlev if t not in targets]
        if unknown:
            raise CapkitError(f"not_targetlev names {unknown}, which are not among the "
                              f"targets {targets}")
    summaries: dict[str, DisclosureSummary] = {}
    summaries["no_excl"] = disclosure_summary(synthetic, original, list(keys), targets,
                                              **options)
    flagged = _flagged_levels(summaries["no_excl"])
    levels = dict(flagged if not_targetlev is None else not_targetlev)
    for name in list(EXCLUSIONS)[1:]:
        summaries[name] = disclosure_summary(
            synthetic, original, list(keys), targets,
            **exclusion_options(name, targets, levels), **options)
    data = {}
    for name, summary in summaries.items():
        data[(name, "orig")] = [float(summary.per_target[t].attrib["Dorig"].mean())
                                for t in targets]
        data[(name, "syn")] = [float(summary.per_target[t].attrib["DiSCO"].mean())
                               for t in targets]
    values = pd.DataFrame(data, index=pd.Index(targets, name="target"))
    values.columns = pd.MultiIndex.from_tuples(values.columns, names=["exclusion", "side"])
    base = summaries["no_excl"]
    flagged_2way = [t for t in targets
                    if any(c is not None for c in base.per_target[t].check_2way)]
    npairs = pd.Series({t: max([0] + [len(c) for c in base.per_target[t].check_2way
                                      if c is not None]) for t in targets}, name="Npairs")
    return ExclusionTable(values=values, not_targetlev=levels, levels_1way=flagged,
                          flagged_1way=[t for t in targets if t in flagged],
                          flagged_2way=flagged_2way, npairs=npairs, summaries=summaries)
