"""The original's own exposure: anonymity levels with pycanon's calls, and the record-level
re-identification risk statistics offices use (sample uniques, Benedetti & Franconi's
individual risk as sdcMicro computes it, expected re-identifications).

Names only: :mod:`capkit.anonymity.levels` (k-anonymity and its relatives),
:mod:`capkit.anonymity.individual` (individual risk), :mod:`capkit.anonymity.classes` (the one
count every level comes from).
"""

from capkit.anonymity.classes import IdentifyingKeysWarning, PycanonDifferenceWarning
from capkit.anonymity.individual import (
    IndividualRisk,
    benedetti_franconi,
    individual_risk,
    sample_uniques,
    wildcard_counts,
)
from capkit.anonymity.levels import (
    AnonymityLevels,
    alpha_k_anonymity,
    anonymity_levels,
    basic_beta_likeness,
    delta_disclosure,
    enhanced_beta_likeness,
    entropy_l_diversity,
    k_anonymity,
    l_diversity,
    recursive_c_l_diversity,
    t_closeness,
)

__all__ = [
    "AnonymityLevels",
    "IdentifyingKeysWarning",
    "IndividualRisk",
    "PycanonDifferenceWarning",
    "alpha_k_anonymity",
    "anonymity_levels",
    "basic_beta_likeness",
    "benedetti_franconi",
    "delta_disclosure",
    "enhanced_beta_likeness",
    "entropy_l_diversity",
    "individual_risk",
    "k_anonymity",
    "l_diversity",
    "recursive_c_l_diversity",
    "sample_uniques",
    "t_closeness",
    "wildcard_counts",
]
