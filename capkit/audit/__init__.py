"""The custodian's audit: every measure family on a release, each finding judged. Names only.

:mod:`~capkit.audit.run` runs the measures (:func:`audit`), :mod:`~capkit.audit.defaults`
chooses keys and targets, :mod:`~capkit.audit.findings` holds a finding and says it in words,
:mod:`~capkit.audit.verdicts` holds every verdict rule, :mod:`~capkit.audit.at_risk` lays out
the people at risk (each member's flags and score).
"""

from capkit.audit.findings import Finding
from capkit.audit.run import FAMILIES, Audit, audit
from capkit.audit.verdicts import LEVELS, RULES, Verdict

__all__ = ["FAMILIES", "LEVELS", "RULES", "Audit", "Finding", "Verdict", "audit"]
