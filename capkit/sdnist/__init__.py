"""SDNist's deidentified-data report, number for number: :func:`report`.

Modules: ``dictionary`` (the excerpts' data dictionary), ``data`` (reading, checking and
coding both files as SDNist does), ``kmarginal``, ``privacy`` (unique exact matches, apparent
matches), ``propensity`` (pMSE), ``correlation`` (Kendall and Pearson differences, the
regressions), ``report``.
"""

from capkit.sdnist.report import report

__all__ = ["report"]
