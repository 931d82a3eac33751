"""SDMetrics 0.32's single-table privacy metrics, number for number, from count tables.

Every class here has the name, the ``compute`` / ``compute_breakdown`` signature and the return
shape of its SDMetrics namesake (``sdmetrics.single_table.privacy``), so that code written for
SDMetrics runs unchanged; SDMetrics' known bugs are reproduced and named in each class docstring
and in ``docs/sdmetrics-differences.md``. The modules:

* :mod:`~capkit.sdmetrics.cap_family`: CategoricalCAP, CategoricalZeroCAP,
  CategoricalGeneralizedCAP;
* :mod:`~capkit.sdmetrics.disclosure_protection`: DisclosureProtection,
  DisclosureProtectionEstimate;
* :mod:`~capkit.sdmetrics.dcr_distance`: SDMetrics' distance to closest record
  (``calculate_dcr``), exact, on :mod:`capkit.distance.nearest`;
* :mod:`~capkit.sdmetrics.dcr`: DCRBaselineProtection, DCROverfittingProtection;
* :mod:`~capkit.sdmetrics.encoding`, :mod:`~capkit.sdmetrics.attackers`: SDMetrics' attackers
  (CAPAttacker, CategoricalNBAttacker, ...KNN, ...RF, ...SVM) on capkit's attacker registry;
* :mod:`~capkit.sdmetrics.categorical`: CategoricalKNN, CategoricalNB, CategoricalRF,
  CategoricalSVM, CategoricalEnsemble;
* :mod:`~capkit.sdmetrics.numerical`: NumericalLR, NumericalMLP, NumericalSVR,
  NumericalRadiusNearestNeighbor, with the CDF loss of :mod:`~capkit.sdmetrics.loss`
  (InverseCDFDistance, InverseCDFCutoff; copulas);
* :mod:`~capkit.sdmetrics.inputs`: the input rules they share.
"""

from capkit.sdmetrics.attackers import (
    CAPAttacker,
    CategoricalKNNAttacker,
    CategoricalNBAttacker,
    CategoricalRFAttacker,
    CategoricalSVMAttacker,
)
from capkit.sdmetrics.cap_family import (
    CHUNK_CELLS,
    CategoricalCAP,
    CategoricalGeneralizedCAP,
    CategoricalZeroCAP,
    generalized_cap_probabilities,
)
from capkit.sdmetrics.categorical import (
    CategoricalEnsemble,
    CategoricalKNN,
    CategoricalNB,
    CategoricalRF,
    CategoricalSVM,
)
from capkit.sdmetrics.dcr import DCRBaselineProtection, DCROverfittingProtection
from capkit.sdmetrics.disclosure_protection import (
    DisclosureProtection,
    DisclosureProtectionEstimate,
)
from capkit.sdmetrics.loss import InverseCDFCutoff, InverseCDFDistance
from capkit.sdmetrics.numerical import (
    NumericalLR,
    NumericalMLP,
    NumericalRadiusNearestNeighbor,
    NumericalSVR,
)

__all__ = [
    "CAPAttacker",
    "CHUNK_CELLS",
    "CategoricalCAP",
    "CategoricalEnsemble",
    "CategoricalGeneralizedCAP",
    "CategoricalKNN",
    "CategoricalKNNAttacker",
    "CategoricalNB",
    "CategoricalNBAttacker",
    "CategoricalRF",
    "CategoricalRFAttacker",
    "CategoricalSVM",
    "CategoricalSVMAttacker",
    "CategoricalZeroCAP",
    "DCRBaselineProtection",
    "DCROverfittingProtection",
    "DisclosureProtection",
    "DisclosureProtectionEstimate",
    "InverseCDFCutoff",
    "InverseCDFDistance",
    "NumericalLR",
    "NumericalMLP",
    "NumericalRadiusNearestNeighbor",
    "NumericalSVR",
    "generalized_cap_probabilities",
]
