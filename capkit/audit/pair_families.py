"""The record-pair families of the custodian's audit (distance to closest record, singling out,
linkability), one synthesis at a time: their work grows with members x synthetic records, so
:mod:`capkit.audit.parallel` may run them in a second process, which imports this module, the
membership family (:mod:`capkit.audit.membership_family`) and what they need, not the rest of
the audit. Each returns its findings (:mod:`capkit.audit.findings`), judged by the rules of
:mod:`capkit.audit.verdicts`; the module note of :mod:`capkit.audit.run` says what each family
measures.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.attacks.linkability import linkability
from capkit.attacks.singling_out import singling_out
from capkit.audit import at_risk, verdicts
from capkit.audit.copies import synthetic_side
from capkit.audit.findings import (
    Finding,
    from_comparison,
    from_duplicates,
    uncompared,
)
from capkit.audit.sampling import RecordSample, sampled_text
from capkit.control import compare_to_control
from capkit.data.labels import is_numeric
from capkit.data.overlap import record_overlap
from capkit.distance.dcr import dcr
from capkit.errors import CapkitError

#: Fewest singling-out queries whose success rate is judged: with fewer (a synthesis with a
#: handful of records unique on 3 columns) singling out is "not measured", with the reason.
MIN_QUERIES = 10

#: Quantile of the holdout's distances to the synthetic data below which a record is a near
#: copy.
NEAR_COPY_QUANTILE = 0.05


def distance_family(name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
                    holdout: pd.DataFrame | None, confidence: float,
                    samples: tuple[RecordSample, RecordSample | None], progress: bool = False,
                    keep: at_risk.Evidence | None = None
                    ) -> tuple[list[Finding], tuple[str, ...]]:
    """Exact and near copies: each member's (and holdout record's) DCR to the synthetic data;
    and the numeric columns whose missing values were scored as a level (``keep`` keeps the
    members' distances and the near-copy threshold). Past the pair budget, the sampled members
    and holdout records (:mod:`capkit.audit.sampling`) against every synthetic record."""
    cols = list(original.columns)
    # R_k is the synthetic data's range (dcr's default); where a synthesis holds a single value
    # of a numeric column, the members' range (constant columns were left out)
    ranges = {c: float(original[c].max() - original[c].min()) for c in cols
              if is_numeric(synthetic[c]) and not synthetic[c].max() > synthetic[c].min()}
    on = sampled_text(samples)
    copies = None if holdout is not None else record_overlap(original[cols], synthetic[cols],
                                                              other_name=name)
    side = None if holdout is None else synthetic_side(name, original[cols], synthetic[cols],
                                                       holdout[cols], confidence)
    original = samples[0].take(original)
    holdout = None if holdout is None else samples[1].take(holdout)
    to_members = dcr(original[cols], synthetic[cols], missing="level", ranges=ranges,
                     progress=f"distance: {name}, members" if progress else False)
    d_m, gaps = to_members.distance, to_members.columns.missing_level
    n_m, k_m = len(d_m), int((d_m == 0).sum())
    if keep is not None:
        keep.distance = d_m
    if copies is not None:  # no holdout: the members' own duplicates are a copy's chance rate
        chance = compare_to_control(copies.shared, copies.n_other, copies.member_duplicates,
                                    copies.n_members, confidence=confidence, warn=False)
        exact = from_duplicates(name, "exact copies", chance,
                                f"{copies.shared:,} of {copies.n_other:,} synthetic records "
                                f"copy a member; {k_m:,} of {n_m:,} members have a copy{on}")
        near = uncompared(name, "copies", "median distance to closest record", "all columns",
                          100.0 * float(np.median(d_m)), "%", verdicts.not_judged("copies"),
                          f"Gower distance, 0-100 within the columns' ranges, above "
                          f"100 for values beyond them{on}")
        return [exact, near], gaps
    to_holdout = dcr(holdout[cols], synthetic[cols], missing="level", ranges=ranges,
                     progress=f"distance: {name}, holdout" if progress else False)
    d_h, gaps = to_holdout.distance, tuple(dict.fromkeys(gaps + to_holdout.columns.missing_level))
    n_h, k_h = len(d_h), int((d_h == 0).sum())
    exact = from_comparison(name, "copies", "exact copies", "all columns",
                            compare_to_control(k_m, n_m, k_h, n_h, confidence=confidence,
                                               warn=False), None,
                            detail=f"{k_m:,} of {n_m:,} members, {k_h:,} of {n_h:,} holdout{on}")
    cut = float(np.quantile(d_h, NEAR_COPY_QUANTILE))
    if keep is not None:
        keep.near_cut, keep.holdout_distance = cut, d_h
    k_m2, k_h2 = int((d_m <= cut).sum()), int((d_h <= cut).sum())
    near = from_comparison(name, "copies", "near copies", "all columns",
                           compare_to_control(k_m2, n_m, k_h2, n_h, confidence=confidence,
                                              warn=False), None,
                           detail=f"Gower distance <= {cut:.4g}, the holdout's 5% quantile{on}")
    return [exact, side, near], gaps


def anonymeter_family(name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
                      holdout: pd.DataFrame | None, keys: list[str], seed: int,
                      confidence: float, family: str,
                      samples: tuple[RecordSample, RecordSample | None],
                      keep: at_risk.Evidence | None = None, progress: bool = False) -> Finding:
    """Singling out (multivariate, every synthetic record) or linkability (keys | the rest).
    Past the pair budget (:mod:`capkit.audit.sampling`) linkability attacks the sampled members
    and holdout records; singling out always uses every record (a query must single out among
    every member)."""
    cols = list(original.columns)
    control = None if holdout is None else holdout[cols]
    if family == "singling out":
        res = singling_out(original[cols], synthetic[cols], control=control, seed=seed,
                           confidence=confidence, progress=progress)
        if keep is not None:  # what the queries matched stays, measured or not
            keep.queries = res.queries
        if res.n_queries < MIN_QUERIES:
            raise CapkitError(
                f"only {res.n_queries:,} singling-out queries could be made from the synthetic "
                f"records ({res.count_text}): a rate of fewer than {MIN_QUERIES} queries tells "
                "nothing either way, so singling out is not measured (the synthesis has few "
                "records unique on any 3 columns)")
        detail = res.count_text
        measure, base_name = "multivariate singling out", "random queries"
    else:
        rest = [c for c in cols if c not in keys]
        members = samples[0].take(original)
        control = None if control is None else samples[1].take(control)
        res = linkability(members[cols], synthetic[cols], (keys, rest), control=control,
                          seed=seed, confidence=confidence, progress=progress)
        detail = (f"{res.n_success:,.1f} of {res.n_attacks:,} members linked "
                  f"(expected over tie orders){sampled_text(samples)}")
        measure, base_name = "linkability (keys | other columns)", "random links"
    return from_comparison(name, family, measure, "all columns",
                           res.control if holdout is not None else None, res.baseline,
                           base_name, detail)


__all__ = ["MIN_QUERIES", "NEAR_COPY_QUANTILE", "anonymeter_family", "distance_family"]
