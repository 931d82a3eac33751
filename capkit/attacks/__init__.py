"""Attacks: an intruder's inference as a classifier, singling out and linkability, each with the
membership control that tells disclosure from inference anyone could make. Names only."""

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
