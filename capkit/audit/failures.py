"""A measure family that could not be measured on one synthesis: what went wrong, in words that
name the options of the report (never those of another command).

The report judges every synthesis that can be judged; a family that fails on one synthesis
(a key coded differently in that file, say) is listed with its error and what fixes it, and the
other families and syntheses are judged as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from capkit.errors import CapkitError, DisjointLevelsError

__all__ = ["Failure", "describe", "without_failing_targets"]

T = TypeVar("T")


@dataclass(frozen=True)
class Failure:
    """A family not measured on a synthesis, and why (``reason``, with what fixes it)."""

    synthesis: str
    family: str
    reason: str

    def text(self) -> str:
        """The failure in one line."""
        return f"{self.family} not measured on {self.synthesis}: {self.reason}"


def describe(exc: CapkitError, synthesis: str, family: str, families: Sequence[str]
             ) -> Failure:
    """The :class:`Failure` of ``family`` on ``synthesis``: the error's finding and the
    report's own ways out (``keys=`` / ``--keys``, ``allow_disjoint_levels=`` /
    ``--allow-disjoint-levels``, ``families=`` / ``--family``)."""
    others = [f for f in families if f != family]
    run_others = (f"; the other families ran (families= / --family chooses them: "
                  f"{', '.join(repr(f) for f in others)})" if others else "")
    if isinstance(exc, DisjointLevelsError) and exc.reason is not None:
        reason = (f"{exc.role} column {exc.column!r}: {exc.reason}. Recode one file to the "
                  "other's levels, leave the column out (keys= / --keys, targets= / "
                  "--targets), or measure it anyway (allow_disjoint_levels=True / "
                  "--allow-disjoint-levels)")
    else:
        reason = str(exc)
    return Failure(synthesis, family, reason + run_others)


def without_failing_targets(run: Callable[[list[str]], T], targets: Sequence[str],
                            synthesis: str, family: str) -> tuple[T, list[Failure]]:
    """``run(targets)``, leaving out each target whose levels the synthesis barely shares (a
    :class:`~capkit.errors.DisjointLevelsError` naming it) so that one such target does not
    leave every other target of the family unmeasured; each one left out is a
    :class:`Failure` of ``family`` for that target. Any other error, or the last target
    failing, is raised."""
    left, failed = list(targets), []
    while True:
        try:
            return run(left), failed
        except DisjointLevelsError as exc:
            if exc.role != "target" or exc.column not in left or len(left) == 1:
                raise
            left.remove(exc.column)
            one = describe(exc, synthesis, family, [family])
            failed.append(Failure(synthesis, f"{family} for target {exc.column!r}",
                                  f"{one.reason}; the other targets were measured"))
