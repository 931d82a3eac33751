"""Short public names of modules that live deeper in the house.

``import capkit.tables`` finds :mod:`capkit.counts.tables`, ``from capkit.paper import ORIGINALS``
finds :mod:`capkit.papers.baillargeon_charest.tables`, and so on: the names users and the papers'
notebooks have always used keep working wherever a module moves (docs/architecture.md, "Public
names"). A meta-path finder hands back the module at its place in the house, as the same object.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

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
    # The members-vs-holdout statistics were capkit.membership before the membership-inference
    # attacks (capkit.membership_inference) arrived; the old name keeps working.
    "membership": "capkit.control",
}

#: Modules that sit at the top of the package.
MODULES = ("anonymity", "attacks", "audit", "cap", "cli", "control", "counts", "data",
           "disclosure", "distance", "membership_inference", "papers", "plots", "priveval",
           "report", "reproduce", "sdmetrics", "sdnist", "synth", "syntheval", "utility")


class ShortNameFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
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


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, ShortNameFinder) for f in sys.meta_path):
        sys.meta_path.append(ShortNameFinder())


def module(name: str) -> ModuleType:
    """``capkit.<name>`` for a short or top-level name (the package's ``__getattr__``)."""
    if name in SHORT_NAMES:
        return importlib.import_module(SHORT_NAMES[name])
    if name in MODULES:
        return importlib.import_module(f"capkit.{name}")
    raise AttributeError(f"module 'capkit' has no attribute {name!r}")
