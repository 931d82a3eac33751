"""capkit: the disclosure risk of synthetic data, measured and reproduced.

Modules (import the one you need, e.g. ``from capkit import cap, paper``):
``tables`` (aligned target x key counts), ``cap`` (Baillargeon & Charest's CAP), ``paper``
(the paper's tables), ``claims`` (paper vs reproduced values), ``plots`` (figures),
``reproduce`` (run the notebooks).
"""

from capkit.errors import CapkitError

__all__ = ["CapkitError", "__version__"]
__version__ = "0.1.0"
