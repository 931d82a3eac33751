"""Baillargeon & Charest (2020), "A Closer Look at the CAP Risk Measure for Synthetic Datasets"
(PSD 2020): the paper's tables (:mod:`~.tables`), minimal average CAP, Lemma 1 and Theorems 2-3
(:mod:`~.minimal`, :mod:`~.minimal_search`, :mod:`~.symbolic`), exact uniform sampling of tables
(:mod:`~.sampling`) and the random syntheses of Figures 1-2 (:mod:`~.random_syntheses`).
Names only."""

__all__: list[str] = []
