"""Which scored records the attacks costlier than n log n score: every one, or a seeded sample.

DOMIAS's densities (``domias``, ``domias_density``) sum a kernel term over every synthetic and
every reference record for each scored record: ``n x (m + r)`` terms, and no exact method does
less (:mod:`capkit.membership_inference.kde`). Every other attack of
:func:`capkit.membership_inference.scores` is a nearest-record search, a ball count or a
classifier, about ``(n + m) log m`` on the tables they are built for (their module notes), and
scores every record. So only the density attacks (:data:`SAMPLED`) take a sample, and only of
the **scored** records (members and scored non-members): the densities are still fitted on every
synthetic and reference record, and each sampled record's score is the very number the full run
gives it (each record's density is summed on its own).

``score_sample`` (of :func:`~capkit.membership_inference.scores`, ``--score-sample`` of
``capkit membership``):

* ``None`` (default, "auto"): every record while ``records x (m + r) <=``
  :data:`capkit.data.record_sample.PAIR_BUDGET` (2,000,000,000) for the members and for the
  scored non-members; past it, a seeded sample of ``max(1,000, budget // (m + r))`` records of
  that role (:func:`capkit.data.record_sample.record_sample`, the rule and draw of the custodian's
  report). Below the budget nothing is drawn: the scores are exactly those of a run without
  this module;
* an integer N >= 2: a seeded sample of N members and N scored non-members (every record of a
  role with at most N);
* ``"all"``: every record, whatever the cost.

The draw is :func:`capkit.data.record_sample.draw`: ``numpy.random.default_rng([seed, 1])``
for the members and ``[seed, 2]`` for the non-members, without replacement. On a sample the
metrics of a sampled attack (:func:`capkit.membership_inference.summary`) are computed on the
sampled records only, so its AUC interval (Hanley & McNeil 1982) and TPR intervals
(Clopper-Pearson) are those of the sample's sizes, and every output says so (:func:`note`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from capkit.data import record_sample as _records
from capkit.data.record_sample import PAIR_BUDGET, RecordSample, draw, record_sample
from capkit.errors import CapkitError

#: The attacks scored on the sample: their cost is n x (m + r) kernel terms.
SAMPLED = ("domias", "domias_density")
#: The smallest explicit sample (a class needs two records for the epsilon bound's halves).
LEAST = 2


def check(score_sample: object, name: str = "score_sample") -> int | str | None:
    """``score_sample`` checked: None, ``"all"`` or an integer >= 2.

    Raises
    ------
    CapkitError
        Anything else, naming ``name``.
    """
    if score_sample is None or score_sample == "all":
        return score_sample
    if (isinstance(score_sample, bool) or not isinstance(score_sample, numbers.Integral)
            or score_sample < LEAST):
        raise CapkitError(f"{name} must be auto/None (a sample past {PAIR_BUDGET:,} record "
                          f"pairs), 'all' or an integer >= {LEAST} (scored records per role), "
                          f"got {score_sample!r}")
    return int(score_sample)


@dataclass(frozen=True)
class ScoreSample:
    """The sampled scored records of one :func:`~capkit.membership_inference.scores` call.

    Attributes
    ----------
    members, nonmembers
        The sample of each role (``nonmembers``: of the scored non-members, role
        ``"holdout"``).
    compared
        Records each scored record is compared with (synthetic + reference).
    given
        Whether the size was given (``score_sample=N``) rather than chosen by the budget.
    """

    members: RecordSample
    nonmembers: RecordSample
    compared: int
    given: bool

    @property
    def rows(self) -> np.ndarray:
        """Positions of the sampled records among the scored records (members first)."""
        m = self.members
        held = self.nonmembers
        first = np.arange(m.total) if m.rows is None else m.rows
        second = np.arange(held.total) if held.rows is None else held.rows
        return np.concatenate([first, m.total + second]).astype(np.int64)

    def settings(self, attacks: list[str]) -> dict:
        """What ``attrs["settings"]["score_sample"]`` holds."""
        return {"attacks": attacks, "seed": self.members.seed,
                "members": self.members.size, "of_members": self.members.total,
                "nonmembers": self.nonmembers.size, "of_nonmembers": self.nonmembers.total,
                "compared": self.compared, "rule": "given" if self.given else "budget",
                "budget": None if self.given else _records.PAIR_BUDGET}


def plan(score_sample: int | str | None, n_members: int, n_nonmembers: int, compared: int,
         seed: int) -> ScoreSample | None:
    """The sample of scored records for :data:`SAMPLED` (module note), None when every record
    is scored."""
    if score_sample == "all" or compared < 1:
        return None
    if score_sample is None:
        budget = _records.PAIR_BUDGET  # read when called
        members = record_sample("members", n_members, compared, seed, budget)
        nonmembers = record_sample("holdout", n_nonmembers, compared, seed, budget)
    else:
        members = draw("members", n_members, score_sample, seed)
        nonmembers = draw("holdout", n_nonmembers, score_sample, seed)
    if not (members.sampled or nonmembers.sampled):
        return None
    return ScoreSample(members, nonmembers, int(compared), score_sample is not None)


def note(settings: dict) -> str:
    """The loud note of a sampled run (every output format prints it)."""
    why = ("as asked (score_sample / --score-sample)" if settings["rule"] == "given" else
           f"because scoring every record would take more than {settings['budget']:,} record "
           "pairs (score_sample='all' / --score-sample all scores every record)")
    return (f"SAMPLE ESTIMATE: {', '.join(settings['attacks'])} scored on a seeded sample of "
            f"{settings['members']:,} of {settings['of_members']:,} members and "
            f"{settings['nonmembers']:,} of {settings['of_nonmembers']:,} scored non-members "
            f"(seed {settings['seed']}; numpy default_rng([seed, 1]) and [seed, 2], without "
            f"replacement), {why}. Each sampled record is compared with all "
            f"{settings['compared']:,} synthetic and reference records (the densities are "
            "fitted on every one of them). These attacks' AUC, TPRs, advantage and epsilon bound "
            "are estimates from the sample; their intervals (AUC: Hanley-McNeil; TPR: "
            "Clopper-Pearson) are computed on the sample's sizes; records outside the sample "
            "have no score (NaN). The other attacks score every record.")


__all__ = ["LEAST", "SAMPLED", "ScoreSample", "check", "note", "plan"]
