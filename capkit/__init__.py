"""capkit: the disclosure risk of synthetic data, measured and reproduced.

The package is read top-down (docs/architecture.md): what a user calls (``cli``), what it
writes (``reproduce``, ``report``, ``plots``), one paper's code (``papers``), the measures
(``attacks``; ``cap``, ``disclosure``, ``sdmetrics``, ``distance``, ``synth``; ``membership``),
what they count on (``counts``) and what comes in (``data``).

Modules are imported when first used, so ``import capkit`` stays light:
``from capkit import cap, paper`` works, and so do the short names of modules that live deeper in
the house (``capkit.tables`` is :mod:`capkit.counts.tables`, ``capkit.paper`` is
:mod:`capkit.papers.baillargeon_charest.tables`, ...; see :data:`SHORT_NAMES`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType

from capkit.errors import CapkitError, CapkitWarning

__version__ = "0.1.0"

#: Short public names of modules that live deeper in the house, and where they live.
SHORT_NAMES: dict[str, str] = {
    "tables": "capkit.counts.tables",
    "engines": "capkit.counts.engines",
    "io": "capkit.data.io",
    "align": "capkit.data.align",
    "datasets": "capkit.data.datasets",
    "paper": "capkit.papers.baillargeon_charest.tables",
    "minimal": "capkit.papers.baillargeon_charest.minimal",
    "symbolic": "capkit.papers.baillargeon_charest.symbolic",
    "sampling": "capkit.papers.baillargeon_charest.sampling",
    "random_syntheses": "capkit.papers.baillargeon_charest.random_syntheses",
    "paper_tables": "capkit.papers.raab_nowok_dibben.adult_table1",
    "compat": "capkit.sdmetrics",
    "inference": "capkit.attacks.inference",
    "claims": "capkit.reproduce.claims",
}

#: Modules that sit at the top of the package.
MODULES = ("attacks", "cap", "cli", "counts", "data", "disclosure", "distance", "membership",
           "papers", "plots", "report", "reproduce", "sdmetrics", "synth")


class _ShortNameFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Lets ``import capkit.tables`` (and ``from capkit.tables import crosstab``) find the module
    at its place in the house, as the same module object."""

    def find_spec(self, fullname: str, path: object = None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        prefix, _, short = fullname.partition(".")
        if prefix != "capkit" or short not in SHORT_NAMES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(SHORT_NAMES[spec.name.partition(".")[2]])
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module is already executed; give it back its own spec (the import system set
        the short name's)."""
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(f, _ShortNameFinder) for f in sys.meta_path):
    sys.meta_path.append(_ShortNameFinder())


def __getattr__(name: str) -> ModuleType:
    if name in SHORT_NAMES:
        return importlib.import_module(SHORT_NAMES[name])
    if name in MODULES:
        return importlib.import_module(f"capkit.{name}")
    raise AttributeError(f"module 'capkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *SHORT_NAMES, *MODULES])


__all__ = ["CapkitError", "CapkitWarning", "__version__"]
