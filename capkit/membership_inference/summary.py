"""What a report shows of membership inference on one release: per attack, the numbers the
field reports with an interval, and the members most exposed.

* :func:`summary`: :func:`~capkit.membership_inference.scores.scores` then
  :func:`~capkit.membership_inference.metrics.metrics` for every attack, with a confidence
  interval of the AUC (Hanley & McNeil, "The meaning and use of the area under a receiver
  operating characteristic (ROC) curve", Radiology 143 (1982), eq. 2 for its standard error)
  and of each TPR at a fixed FPR (Clopper-Pearson on the members flagged);
* :func:`exposed_members`: the members an attack ranks highest, each with its closest synthetic
  record (Gower distance, :func:`capkit.distance.dcr`) and the columns on which the two agree,
  which is what makes the member stand out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.control import two_sided_z
from capkit.distance import dcr
from capkit.errors import CapkitError
from capkit.membership_inference.metrics import FPRS, clopper_pearson, metrics, tpr_column
from capkit.membership_inference.scores import ATTACKS, scores


def auc_interval(auc: float, n_members: int, n_nonmembers: int,
                 confidence: float = 0.95) -> tuple[float, float]:
    """Hanley & McNeil's (1982) normal interval of an AUC, clipped to [0, 1].

    SE^2 = [A(1 - A) + (n_m - 1)(Q1 - A^2) + (n_n - 1)(Q2 - A^2)] / (n_m n_n), with
    Q1 = A / (2 - A) and Q2 = 2 A^2 / (1 + A).
    """
    a = float(auc)
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    var = (a * (1 - a) + (n_members - 1) * (q1 - a * a)
           + (n_nonmembers - 1) * (q2 - a * a)) / (n_members * n_nonmembers)
    half = two_sided_z(confidence) * np.sqrt(max(var, 0.0))
    return max(0.0, a - half), min(1.0, a + half)


def summary(members: pd.DataFrame, holdout: pd.DataFrame, synthetic: pd.DataFrame,
            reference: pd.DataFrame | None = None, *, attacks: Sequence[str] = ATTACKS,
            seed: int = 0, confidence: float = 0.95, return_scores: bool = False,
            **options) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Per attack: AUC with its interval, TPR at FPR 0 / 0.001 / 0.01 / 0.1 with intervals,
    advantage and the epsilon lower bound.

    Parameters
    ----------
    members, holdout, synthetic, reference
        As :func:`~capkit.membership_inference.scores.scores` (``holdout`` are its
        non-members). Without a holdout there is no membership verdict: the function raises
        (a :class:`~capkit.errors.CapkitError` saying so).
    attacks, seed, options
        Passed to :func:`~capkit.membership_inference.scores.scores` (``compat``, ``k``,
        ``overlap``, ``classifier``, ``reference_fraction``, ``score_sample``).
    confidence
        Of the intervals and of the epsilon bound.
    return_scores
        Also return the per-record scores.

    Returns
    -------
    pandas.DataFrame
        Index ``attack``; columns ``auc``, ``auc_low``, ``auc_high``, for each FPR f
        ``tpr_at_fpr_f``, ``tpr_at_fpr_f_low``, ``tpr_at_fpr_f_high``, then ``advantage``,
        ``epsilon_lower``, ``n_members``, ``n_nonmembers``. ``attrs["notes"]`` and
        ``attrs["settings"]`` are those of the scores. An attack without scores (DOMIAS with no
        numeric column) is left out, and a note says so; so is an attack that cannot run on
        these data (a singular covariance for DOMIAS's densities), named in a note with the
        error, the others reported. With ``return_scores``, the pair (table, per-record
        scores). An attack scored on a sample (``score_sample``, DOMIAS's densities past
        the pair budget; :mod:`capkit.membership_inference.score_sample`) is measured on the
        sampled records: its ``n_members`` and ``n_nonmembers`` are the sample's, its
        intervals the sample's, and the first note says it is a sample estimate.
    """
    per_record, skipped = _scores_skipping(members, holdout, synthetic, reference,
                                           list(attacks), seed, options)
    attacks = [a for a in attacks if a not in skipped]
    notes = list(per_record.attrs["notes"])
    notes += [f"{a}: could not run ({why}); skipped, the other attacks are reported (choose "
              "the attacks with --attacks / attacks=)" for a, why in skipped.items()]
    usable = [a for a in attacks if not per_record[a].isna().all()]
    for attack in attacks:
        if attack not in usable:
            notes.append(f"{attack}: no scores (left out)")
    if not usable:
        raise CapkitError("no attack produced scores: see the notes of scores()")
    table = _metrics(per_record, usable, confidence, seed)
    low, high = zip(*(auc_interval(a, m, n, confidence) for a, m, n in
                      zip(table["auc"], table["n_members"], table["n_nonmembers"],
                          strict=True)), strict=True)
    table.insert(1, "auc_low", low)
    table.insert(2, "auc_high", high)
    for fpr in FPRS:
        column = tpr_column(fpr)
        k = np.round(table[column].to_numpy() * table["n_members"].to_numpy())
        lo, hi = clopper_pearson(k, table["n_members"].to_numpy(), confidence)
        at = table.columns.get_loc(column) + 1
        table.insert(at, f"{column}_low", lo)
        table.insert(at + 1, f"{column}_high", hi)
    table.attrs["notes"] = notes
    table.attrs["settings"] = per_record.attrs["settings"]
    return (table, per_record) if return_scores else table


def _metrics(per_record: pd.DataFrame, usable: list[str], confidence: float, seed: int
             ) -> pd.DataFrame:
    """:func:`metrics` of each attack on the records it scored: every record, or for the
    attacks scored on a sample (:mod:`capkit.membership_inference.score_sample`) the sampled
    records only, so that their counts, and the intervals built on them, are the sample's."""
    drawn = per_record.attrs["settings"].get("score_sample")
    on_sample = [a for a in usable if drawn is not None and a in drawn["attacks"]]
    every = [a for a in usable if a not in on_sample]
    parts = []
    if every:
        parts.append(metrics(per_record[["member", *every]], confidence=confidence, seed=seed))
    if on_sample:
        rows = np.asarray(per_record.attrs["settings"]["score_sample_rows"], dtype=np.int64)
        parts.append(metrics(per_record[["member", *on_sample]].iloc[rows],
                             confidence=confidence, seed=seed))
    return parts[0] if len(parts) == 1 else pd.concat(parts).loc[usable]


def _scores_skipping(members: pd.DataFrame, holdout: pd.DataFrame, synthetic: pd.DataFrame,
                     reference: pd.DataFrame | None, attacks: list[str], seed: int,
                     options: dict) -> tuple[pd.DataFrame, dict[str, str]]:
    """:func:`scores` of every attack; when that fails, each attack on its own, so that one
    attack that cannot run on these data (DOMIAS's density on columns constant or collinear in
    the synthesis: a singular covariance) is skipped and named, and the others are scored. An
    error every attack meets (the inputs themselves) is raised."""
    try:
        return scores(members, holdout, synthetic, reference, attacks=attacks, seed=seed,
                      **options), {}
    except CapkitError:
        if len(attacks) == 1:
            raise
    parts, skipped, first = [], {}, None
    for attack in attacks:  # a handful of attacks, each scored on its own
        try:
            parts.append(scores(members, holdout, synthetic, reference, attacks=[attack],
                                seed=seed, **options))
        except CapkitError as exc:
            skipped[attack] = str(exc)
            first = first or exc
    if not parts:
        raise first
    frame = pd.concat([parts[0][["member"]], *[p.drop(columns="member") for p in parts]],
                      axis=1)
    notes = list(dict.fromkeys(n for p in parts for n in p.attrs["notes"]))
    settings = {}
    for p in parts:
        settings.update(p.attrs["settings"])
    frame.attrs["notes"], frame.attrs["settings"] = notes, settings
    return frame, skipped


def exposed_members(per_record: pd.DataFrame, members: pd.DataFrame,
                    synthetic: pd.DataFrame, *, attack: str = "dcr",
                    top: int = 10) -> pd.DataFrame:
    """The ``top`` members an attack scores highest, with what makes them stand out.

    Parameters
    ----------
    per_record
        The output of :func:`~capkit.membership_inference.scores.scores` for these members.
    members, synthetic
        The frames given to it.
    attack
        Which score ranks the members.
    top
        How many members.

    Returns
    -------
    pandas.DataFrame
        One row per member, most exposed first: ``member`` (its position in ``members``),
        ``score``, ``rank`` (1 = highest score among all scored records, ties share the best
        rank; for an attack scored on a sample, among the sampled records),
        ``nearest_synthetic`` (position of its closest synthetic record, Gower),
        ``distance`` (that Gower distance), ``matching`` (the columns where the two records hold
        the same value) and ``n_matching``.
    """
    if attack not in per_record.columns:
        raise CapkitError(f"attack {attack!r} is not a column of the scores: "
                          f"{[c for c in per_record.columns if c != 'member']}")
    flags = per_record["member"].to_numpy()
    if int(flags.sum()) != len(members):
        raise CapkitError(f"the scores hold {int(flags.sum())} members, members has "
                          f"{len(members)} records: pass the frames given to scores()")
    values = per_record[attack].to_numpy()
    ranks = pd.Series(values).rank(ascending=False, method="min").to_numpy()
    member_scores = values[flags]
    order = np.lexsort((np.arange(len(member_scores)), -member_scores))
    # an attack scored on a sample ranks the sampled records only (NaN: not scored)
    order = order[~np.isnan(member_scores[order])][:max(0, int(top))]
    chosen = members.iloc[order].reset_index(drop=True)
    columns = list(members.columns)
    nearest = dcr(chosen, synthetic[columns], missing="level",
                  ranges=_ranges(members, synthetic, columns))
    matched = []
    for i, j in enumerate(nearest.index):
        a, b = chosen.iloc[i], synthetic[columns].iloc[int(j)]
        matched.append([c for c in columns if a[c] == b[c] or (pd.isna(a[c]) and pd.isna(b[c]))])
    return pd.DataFrame({
        "member": order, "score": member_scores[order],
        "rank": ranks[np.flatnonzero(flags)[order]].astype(int),
        "nearest_synthetic": nearest.index, "distance": nearest.distance,
        "matching": matched, "n_matching": [len(m) for m in matched]})


def _ranges(members: pd.DataFrame, synthetic: pd.DataFrame, columns) -> dict[str, float]:
    """Numeric ranges over members and synthetic records together (1 for a constant column)."""
    out = {}
    for c in columns:
        both = pd.concat([members[c], synthetic[c]], ignore_index=True)
        if pd.api.types.is_numeric_dtype(both) and not pd.api.types.is_bool_dtype(both):
            span = float(both.max()) - float(both.min()) if both.notna().any() else 0.0
            out[c] = span if np.isfinite(span) and span > 0 else 1.0
    return out


__all__ = ["auc_interval", "exposed_members", "summary"]
