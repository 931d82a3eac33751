"""The seeded sample of records the report scores when every record would cost too much.

An exact nearest-record search costs about ``n_records x n_synthetic`` record-pair
evaluations (:func:`capkit.distance.nearest.nearest` prunes many of them, but not on every
table), and so, in the same proportion, do the attribute attacks and anonymeter's linkability
(Giomi et al. 2022, "A Unified Framework for Quantifying Privacy Risk in Synthetic Data",
PoPETs 2023) when they attack every record. Past a budget of pairs the report therefore
scores a seeded simple random sample (without replacement) of the members and of the holdout
against ALL synthetic records, as anonymeter itself does with its ``n_attacks``:

* the rule: every record when ``n_records x n_synthetic <= budget`` (exact, the result is the
  same as without this module); otherwise ``max(minimum, budget // n_synthetic)`` records
  (never more than there are);
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

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

#: Record pairs (records scored x synthetic records) the report evaluates exactly.
PAIR_BUDGET = 2_000_000_000
#: The smallest sample the report scores (its intervals stay a few points wide).
MIN_SAMPLE = 1_000
#: One random stream per role, so the members' draw does not move with the holdout's.
STREAMS = {"members": 1, "holdout": 2}


@dataclass(frozen=True)
class RecordSample:
    """Which records of one role (members or holdout) the report scores.

    Attributes
    ----------
    role
        ``"members"`` or ``"holdout"``.
    total
        Records of that role.
    rows
        Sorted positions (0-based) of the scored records, or None for every record.
    seed
        The seed of the draw.
    """

    role: str
    total: int
    rows: np.ndarray | None
    seed: int

    @property
    def sampled(self) -> bool:
        """Whether only part of the records is scored."""
        return self.rows is not None

    @property
    def size(self) -> int:
        """Number of records scored."""
        return self.total if self.rows is None else len(self.rows)

    def take(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The scored records of ``frame`` (the frame itself when nothing is sampled)."""
        if len(frame) != self.total:
            raise CapkitError(f"the {self.role} sample was drawn from {self.total:,} records, "
                              f"the frame has {len(frame):,}")
        return frame if self.rows is None else frame.iloc[self.rows]

    def describe(self) -> str:
        """``"on a sample of N of M members"`` (empty when every record is scored)."""
        if not self.sampled:
            return ""
        return f"on a sample of {self.size:,} of {self.total:,} {self.role}"


def sample_size(n_records: int, n_synthetic: int, budget: int = PAIR_BUDGET,
                minimum: int | None = None) -> int:
    """Records to score: all when ``n_records x n_synthetic <= budget``, else
    ``max(minimum, budget // n_synthetic)``, at most ``n_records`` (``minimum`` defaults to
    :data:`MIN_SAMPLE`).

    Raises
    ------
    CapkitError
        A count below 1, a budget or minimum below 1.
    """
    minimum = MIN_SAMPLE if minimum is None else minimum
    for name, value in (("n_records", n_records), ("n_synthetic", n_synthetic),
                        ("budget", budget), ("minimum", minimum)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise CapkitError(f"{name} must be a positive integer, got {value!r}")
    if int(n_records) * int(n_synthetic) <= budget:
        return int(n_records)
    return int(min(n_records, max(minimum, budget // n_synthetic)))


def record_sample(role: str, n_records: int, n_synthetic: int, seed: int,
                  budget: int = PAIR_BUDGET, minimum: int | None = None) -> RecordSample:
    """The records of ``role`` the report scores against ``n_synthetic`` synthetic records.

    Parameters
    ----------
    role
        ``"members"`` or ``"holdout"`` (each has its own random stream).
    n_records, n_synthetic
        Records of that role, and of the largest synthesis.
    seed
        Seeds the draw (``numpy.random.default_rng([seed, stream])``).
    budget, minimum
        See :func:`sample_size`.

    Returns
    -------
    RecordSample
        ``rows`` None when every record is scored; otherwise sorted positions drawn without
        replacement.
    """
    if role not in STREAMS:
        raise CapkitError(f"role must be one of {sorted(STREAMS)}, got {role!r}")
    size = sample_size(n_records, n_synthetic, budget, minimum)
    if size >= n_records:
        return RecordSample(role, int(n_records), None, seed)
    rng = np.random.default_rng([int(seed), STREAMS[role]])
    rows = np.sort(rng.choice(int(n_records), size=size, replace=False))
    return RecordSample(role, int(n_records), rows, seed)


def note(samples: list[RecordSample], budget: int = PAIR_BUDGET) -> str | None:
    """The report's note on the samples drawn (None when every record was scored)."""
    drawn = [s for s in samples if s.sampled]
    if not drawn:
        return None
    which = " and ".join(f"{s.size:,} of {s.total:,} {s.role}" for s in drawn)
    return (f"distances, the attribute attacks and linkability were scored on a "
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


__all__ = ["MIN_SAMPLE", "PAIR_BUDGET", "RecordSample", "for_audit", "note", "record_sample",
           "sample_size", "sampled_text"]
