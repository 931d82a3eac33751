"""The exception type capkit raises for bad input, and the warning type it gives for input it
measures but whose numbers may mislead."""

from __future__ import annotations


class CapkitError(ValueError):
    """Bad input to a capkit function.

    The message names the argument or column at fault and what was expected, e.g.
    ``key column 'age' is missing from synthetic data``.
    """


class CapkitWarning(UserWarning):
    """Input capkit measures as asked, but whose numbers may mislead; the message names the
    column and what to do instead."""


class ContinuousTargetWarning(CapkitWarning):
    """A numeric target with many distinct values, matched by exact value (DiSCO, CAP, ...)."""


class DisjointLevelsError(CapkitError):
    """A key or target whose original and synthetic levels barely overlap (the two data sets
    almost surely code it differently); ``allow_disjoint_levels=True`` measures anyway.

    ``column``, ``role`` (``"key"`` or ``"target"``) and ``reason`` (what was found, without the
    options that fix it) let a command name its own options in the message it prints.
    """

    def __init__(self, message: str, *, column: str | None = None, role: str | None = None,
                 reason: str | None = None) -> None:
        super().__init__(message)
        self.column, self.role, self.reason = column, role, reason
