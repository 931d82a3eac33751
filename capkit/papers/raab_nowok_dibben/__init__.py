"""Raab, Nowok & Dibben, "Practical privacy metrics for synthetic data" (synthpop's disclosure
vignette): Table 1 on Adult (:mod:`~.adult_table1`), its synthetic side over seeds against
synthpop's own syntheses (:mod:`~.adult_band`) and the spec's hand-worked example
(:mod:`~.spec_example`). Names only."""

__all__: list[str] = []
