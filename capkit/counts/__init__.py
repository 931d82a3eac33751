"""The counting waist: aligned key x target counts, and the cell tables synthpop's measures use.

Names only. :mod:`capkit.counts.tables` (``crosstab``, the public entry point),
:mod:`capkit.counts.table` (the pandas count), :mod:`capkit.counts.encode` (coding of columns),
:mod:`capkit.counts.cells` (synthpop's aligned cells), :mod:`capkit.counts.engines` (DuckDB, Spark).
Nothing above this layer counts records.
"""

from capkit.counts.table import KeyTargetTable
from capkit.counts.tables import crosstab

__all__ = ["KeyTargetTable", "crosstab"]
