"""Utility of synthetic data: synthpop's general and table utility measures.

Names only. :mod:`~capkit.utility.gen` (``utility.gen``: propensity-score pMSE, S_pMSE,
SPECKS, PO50, U), :mod:`~capkit.utility.tab` (``utility.tab``: one table's VW, FT, JSD, G ...),
:mod:`~capkit.utility.tables` (``utility.tables``: every one-, two- or three-way table),
:mod:`~capkit.utility.compare` (``compare``: each variable alone), with
:mod:`~capkit.utility.propensity` (the propensity models and ``propensity_pmse``),
:mod:`~capkit.utility.glm` (R's ``glm`` logit fit), :mod:`~capkit.utility.grouping`
(``group_num``), :mod:`~capkit.utility.ranks`, :mod:`~capkit.utility.inputs`,
:mod:`~capkit.utility.result`.
"""

from capkit.utility.gen import gen
from capkit.utility.propensity import propensity_pmse
from capkit.utility.result import UtilityResult
from capkit.utility.tab import tab
from capkit.utility.tables import compare, tables

__all__ = ["UtilityResult", "compare", "gen", "propensity_pmse", "tab", "tables"]
