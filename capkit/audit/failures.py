"""A measure family that could not be measured on one synthesis: what went wrong, in words that
name the options of the report (never those of another command).

The report judges every synthesis that can be judged; a family that fails on one synthesis
(a key coded differently in that file, say) is listed with its error and what fixes it, and the
other families and syntheses are judged as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from capkit.errors import CapkitError, DisjointLevelsError

__all__ = ["Failure", "describe"]


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
