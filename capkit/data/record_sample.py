"""A seeded sample of the *scored* records, for the measures whose cost grows faster than
n log n.

A measure that compares every scored record (a member, a holdout record) with every record of
another set (the synthetic records, the reference records) costs ``n_scored x n_compared``
record-pair evaluations. Past a budget of pairs, the measure is evaluated on a seeded simple
random sample (without replacement) of the scored records, and each sampled record is still
compared with **every** record of the other set: sampling the synthetic or reference records
instead would change what is measured (the nearest synthetic record, a density fitted on the
synthesis), not only how precisely. anonymeter does the same with its ``n_attacks`` (Giomi et
al., "A Unified Framework for Quantifying Privacy Risk in Synthetic Data", PoPETs 2023).

* The rule: every record when ``n_records x n_compared <= budget`` (nothing is drawn, and the
  result is the exact one); otherwise ``max(minimum, budget // n_compared)`` records, never more
  than there are (:func:`sample_size`).
* The draw: ``numpy.random.default_rng([seed, stream])``'s ``choice`` without replacement, one
  stream per role (:data:`STREAMS`), so the members' draw does not move with the holdout's and
  the same seed draws the same records whatever else runs (:func:`draw`).
* What a caller says: the rates are shares of the sample, their intervals are computed on the
  sample's counts, and the output names the sample (:meth:`RecordSample.describe`).

Used by the custodian's report (:mod:`capkit.audit.sampling`: distances, the attribute attacks,
linkability and membership inference) and by
:func:`capkit.membership_inference.scores` (DOMIAS's densities).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

#: Record pairs (records scored x records compared with) evaluated exactly.
PAIR_BUDGET = 2_000_000_000
#: The smallest sample drawn past the budget (its intervals stay a few points wide).
MIN_SAMPLE = 1_000
#: One random stream per role, so the members' draw does not move with the holdout's.
STREAMS = {"members": 1, "holdout": 2}


@dataclass(frozen=True)
class RecordSample:
    """Which records of one role (members or holdout) are scored.

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


def _positive(name: str, value: object, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise CapkitError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(value)


def sample_size(n_records: int, n_synthetic: int, budget: int = PAIR_BUDGET,
                minimum: int | None = None) -> int:
    """Records to score: all when ``n_records x n_synthetic <= budget``, else
    ``max(minimum, budget // n_synthetic)``, at most ``n_records`` (``minimum`` defaults to
    :data:`MIN_SAMPLE`; ``n_synthetic`` is the number of records each scored record is compared
    with).

    Raises
    ------
    CapkitError
        A count below 1, a budget or minimum below 1 (naming the argument).
    """
    minimum = MIN_SAMPLE if minimum is None else minimum
    for name, value in (("n_records", n_records), ("n_synthetic", n_synthetic),
                        ("budget", budget), ("minimum", minimum)):
        _positive(name, value)
    if int(n_records) * int(n_synthetic) <= budget:
        return int(n_records)
    return int(min(n_records, max(minimum, budget // n_synthetic)))


def draw(role: str, n_records: int, size: int, seed: int) -> RecordSample:
    """A seeded simple random sample of ``size`` of the ``n_records`` records of ``role``
    (every record, ``rows`` None, when ``size >= n_records``).

    Raises
    ------
    CapkitError
        An unknown role, a size or count below 1.
    """
    if role not in STREAMS:
        raise CapkitError(f"role must be one of {sorted(STREAMS)}, got {role!r}")
    n_records, size = _positive("n_records", n_records), _positive("size", size)
    if size >= n_records:
        return RecordSample(role, n_records, None, seed)
    rng = np.random.default_rng([int(seed), STREAMS[role]])
    rows = np.sort(rng.choice(n_records, size=size, replace=False))
    return RecordSample(role, n_records, rows, seed)


def record_sample(role: str, n_records: int, n_synthetic: int, seed: int,
                  budget: int = PAIR_BUDGET, minimum: int | None = None) -> RecordSample:
    """The records of ``role`` scored against ``n_synthetic`` records: :func:`draw` of
    :func:`sample_size`'s number.

    Parameters
    ----------
    role
        ``"members"`` or ``"holdout"`` (each has its own random stream).
    n_records, n_synthetic
        Records of that role, and records each is compared with.
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
    return draw(role, n_records, sample_size(n_records, n_synthetic, budget, minimum), seed)


__all__ = ["MIN_SAMPLE", "PAIR_BUDGET", "STREAMS", "RecordSample", "draw", "record_sample",
           "sample_size"]
