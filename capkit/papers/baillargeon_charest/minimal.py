"""Minimal average CAP (Baillargeon & Charest, Sec. 3.2): the public names of
:mod:`~capkit.papers.baillargeon_charest.minimal_core` (o_min, o*_min, the sets B, C, D, Lemma 1,
Theorems 2-3) and :mod:`~capkit.papers.baillargeon_charest.minimal_search` (the exhaustive check).
Names only."""

from capkit.papers.baillargeon_charest.minimal_core import (
    column_minima,
    lemma1_dataset,
    minimal_average_cap,
    minimal_dataset,
    o_min,
    o_star_min,
    set_b,
    set_c,
    set_cj,
    set_d,
)
from capkit.papers.baillargeon_charest.minimal_search import (
    CHECKS,
    Counterexample,
    SearchReport,
    SyntheticFamily,
    all_originals,
    check_original,
    exact_average_cap_stack,
    exhaustive_search,
    random_originals,
    synthetic_family,
)

__all__ = [
    "CHECKS",
    "Counterexample",
    "SearchReport",
    "SyntheticFamily",
    "all_originals",
    "check_original",
    "column_minima",
    "exact_average_cap_stack",
    "exhaustive_search",
    "lemma1_dataset",
    "minimal_average_cap",
    "minimal_dataset",
    "o_min",
    "o_star_min",
    "random_originals",
    "set_b",
    "set_c",
    "set_cj",
    "set_d",
    "synthetic_family",
]
