"""Utility of synthetic data: synthpop's general and table utility measures.

Names only. :mod:`~capkit.utility.general` (``gen``, synthpop's ``utility.gen``: propensity
pMSE, S_pMSE, SPECKS, PO50, U), :mod:`~capkit.utility.one_table` (``tab``, ``utility.tab``: one
table's VW, FT, JSD, G ...), :mod:`~capkit.utility.table_sets` (``tables``, ``utility.tables``:
every one-, two- or three-way table; ``compare``: each variable alone), with
:mod:`~capkit.utility.propensity` (the propensity models and ``propensity_pmse``),
:mod:`~capkit.utility.glm` (R's ``glm`` logit fit), :mod:`~capkit.utility.grouping`
(``group_num``), :mod:`~capkit.utility.ranks`, :mod:`~capkit.utility.inputs`,
:mod:`~capkit.utility.result`; :mod:`~capkit.utility.release_map` (the risk-utility map's
table and Pareto front).
"""

from capkit.utility.general import gen
from capkit.utility.one_table import tab
from capkit.utility.propensity import propensity_pmse
from capkit.utility.release_map import pareto_front, risk_utility_table
from capkit.utility.result import UtilityResult
from capkit.utility.table_sets import compare, tables

__all__ = ["UtilityResult", "compare", "gen", "pareto_front", "propensity_pmse",
           "risk_utility_table", "tab", "tables"]
