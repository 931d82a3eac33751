"""Attack-style disclosure measures on record level, each with the membership control."""

from capkit.attacks.linkability import LinkabilityResult, linkability
from capkit.attacks.queries import match_counts
from capkit.attacks.singling_out import SinglingOutResult, singling_out

__all__ = [
    "LinkabilityResult",
    "SinglingOutResult",
    "linkability",
    "match_counts",
    "singling_out",
]
