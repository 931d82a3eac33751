"""The ``capkit`` command. Names only: the group is built in :mod:`capkit.cli.main`."""

from capkit.cli.main import main

__all__ = ["main"]
