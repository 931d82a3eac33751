"""The custodian's audit: every measure family on a release, each finding judged. Names only.

:mod:`~capkit.audit.run` runs the measures (:func:`audit`), :mod:`~capkit.audit.defaults`
chooses keys and targets, :mod:`~capkit.audit.findings` holds a finding and says it in words,
:mod:`~capkit.audit.verdicts` holds every verdict rule, :mod:`~capkit.audit.at_risk` lays out
the people at risk (each member's flags and score).
"""

import lazy_loader

# Names resolved on first use (lazy_loader): the second process of capkit.audit.parallel
# imports the record-pair families without the rest of the audit.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "findings": ["Finding"],
    "run": ["FAMILIES", "Audit", "audit"],
    "verdicts": ["LEVELS", "RULES", "Verdict"],
})
