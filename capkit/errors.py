"""The one exception type capkit raises for bad input."""

from __future__ import annotations


class CapkitError(ValueError):
    """Bad input to a capkit function.

    The message names the argument or column at fault and what was expected, e.g.
    ``key column 'age' is missing from synthetic data``.
    """
