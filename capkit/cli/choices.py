"""The values the commands' options offer or default to, written out here so that ``capkit
<command> --help`` imports none of the measures (tests/test_cli.py checks that each equals the
measures' own)."""

from __future__ import annotations

#: :data:`capkit.audit.utility_family.NPERMS`: permutations of the CART propensity model.
NPERMS = 20

#: :data:`capkit.audit.utility_family.UTILITY_AXES`: the utility axes of the risk-utility map.
UTILITY_AXES = ("S_pMSE", "S_pMSE (CART)", "k-marginal")

#: :data:`capkit.audit.run.FAMILIES`: the report's families of findings.
FAMILIES = ("synthpop measures", "distance", "attribute attacks", "singling out",
            "linkability", "membership inference")

#: :data:`capkit.membership_inference.ATTACKS`: every membership attack, in its order.
ATTACKS = ("dcr", "dcr_diff", "gan_leaks", "gan_leaks_cal", "mc", "dpi", "domias",
           "domias_density", "classifier")

__all__ = ["ATTACKS", "FAMILIES", "NPERMS", "UTILITY_AXES"]
