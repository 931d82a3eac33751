"""capkit: the disclosure risk of synthetic data, measured and reproduced.

The package is read top-down (docs/architecture.md): what a user calls (``cli``), what it
writes (``reproduce``, ``report``, ``plots``), one paper's code (``papers``), the measures
(``attacks``; ``cap``, ``disclosure``, ``sdmetrics``, ``distance``, ``synth``; ``control``),
what they count on (``counts``) and what comes in (``data``).

Modules are imported when first used, so ``import capkit`` stays light:
``from capkit import cap, paper`` works, and so do the short names of modules that live deeper in
the house (``capkit.tables`` is :mod:`capkit.counts.tables`, ``capkit.paper`` is
:mod:`capkit.papers.baillargeon_charest.tables`, ``capkit.membership`` is :mod:`capkit.control`,
...; see :data:`SHORT_NAMES`).
"""

from __future__ import annotations

from types import ModuleType

from capkit._short_names import MODULES, SHORT_NAMES, install, module
from capkit.errors import CapkitError, CapkitWarning

__version__ = "0.1.0"

install()


def __getattr__(name: str) -> ModuleType:
    return module(name)


def __dir__() -> list[str]:
    return sorted([*globals(), *SHORT_NAMES, *MODULES])


__all__ = ["CapkitError", "CapkitWarning", "MODULES", "SHORT_NAMES", "__version__"]
