"""What belongs to one paper only: ``baillargeon_charest`` (minimal CAP, symbolic checks,
uniform sampling, random syntheses, the paper's tables) and ``raab_nowok_dibben`` (the
synthpop paper's Adult Table 1, the spec's worked example). Names only."""

__all__: list[str] = []
