"""The seeded sample of records the report scores when every record would cost too much.

An exact nearest-record search costs about ``n_records x n_synthetic`` record-pair
evaluations (:func:`capkit.distance.nearest.nearest` prunes many of them, but not on every
table), and so, in the same proportion, do the attribute attacks and anonymeter's linkability
(Giomi et al. 2022, "A Unified Framework for Quantifying Privacy Risk in Synthetic Data",
PoPETs 2023) when they attack every record. Past a budget of pairs the report therefore
scores a seeded simple random sample (without replacement) of the members and of the holdout
against ALL synthetic records, as anonymeter itself does with its ``n_attacks``. The rule, the
draw and the sample are :mod:`capkit.data.record_sample`'s (shared with
:func:`capkit.membership_inference.scores`' sample of DOMIAS's scored records):

* the rule: every record when ``n_records x n_synthetic <= budget`` (exact, the result is the
  same as without this module); otherwise ``max(minimum, budget // n_synthetic)`` records
  (never more than there are), ``n_synthetic`` the largest synthesis;
* what the sample changes: each rate is the share of the sampled records, and its interval is
  the binomial (Wilson score) interval of :func:`capkit.control.wilson` on the sample's size,
  so a finding on a sample says "on a sample of N of M records" and its interval is wider than
  the whole table's would be. The count-based measures (synthpop's, CAP) never sample, nor
  does singling out (its queries come from the synthetic records and must single out among
  every member).

The draws come from ``numpy.random.default_rng([seed, stream])`` with one stream per role, so
the same seed gives the same records whatever else the report runs.
"""

from __future__ import annotations

import pandas as pd

from capkit.data.record_sample import (
    MIN_SAMPLE,
    PAIR_BUDGET,
    STREAMS,
    RecordSample,
    record_sample,
    sample_size,
)


def note(samples: list[RecordSample], budget: int = PAIR_BUDGET) -> str | None:
    """The report's note on the samples drawn (None when every record was scored)."""
    drawn = [s for s in samples if s.sampled]
    if not drawn:
        return None
    which = " and ".join(f"{s.size:,} of {s.total:,} {s.role}" for s in drawn)
    return (f"distances, the attribute attacks, linkability and membership inference were "
            f"scored on a "
            f"seeded sample of records ({which}, seed {drawn[0].seed}) against every synthetic "
            f"record: scoring every record would take more than {budget:,} record pairs; "
            "their rates are shares of the sample and their intervals are the sample's "
            "binomial (Wilson) intervals; the count-based measures use every record")


def for_audit(members: pd.DataFrame, syntheses: list[pd.DataFrame],
              holdout: pd.DataFrame | None, seed: int, budget: int | None
              ) -> tuple[RecordSample, RecordSample | None]:
    """The members and holdout records an audit scores against every synthetic record: all of
    them within the budget (``None``: always all), else :func:`record_sample`'s seeded draw."""
    n_syn = max(len(frame) for frame in syntheses)

    def draw(role: str, frame: pd.DataFrame | None) -> RecordSample | None:
        if frame is None:
            return None
        if budget is None:
            return RecordSample(role, len(frame), None, seed)
        return record_sample(role, len(frame), n_syn, seed, budget)

    return draw("members", members), draw("holdout", holdout)


def sampled_text(samples: tuple[RecordSample, RecordSample | None]) -> str:
    """``", on a sample of N of M members and N' of M' holdout"`` (empty without a sample)."""
    parts = [s.describe() for s in samples if s is not None and s.sampled]
    if not parts:
        return ""
    return ", " + " and ".join(parts[:1] + [p.removeprefix("on a sample of ") for p in parts[1:]])


__all__ = ["MIN_SAMPLE", "PAIR_BUDGET", "STREAMS", "RecordSample", "for_audit", "note",
           "record_sample", "sample_size", "sampled_text"]
