"""The one figure a command draws: only when ``--plot`` or the html format asks for it, its SVG
embedded in the report, and the PNG or SVG copied to ``--plot`` once the report is written."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from matplotlib.figure import Figure

from capkit import plots
from capkit.cli.options import replacing


@contextlib.contextmanager
def figure(plot_path: Path | None, fmt: str, name: str, draw: Callable[[], Figure]
           ) -> Iterator[bytes | None]:
    """Yield the SVG bytes of ``draw()`` saved by :func:`capkit.plots.save` (None when neither
    ``--plot`` nor ``--format html`` wants it); after the block, copy the PNG or SVG (by
    ``plot_path``'s suffix) to ``plot_path`` (:func:`capkit.cli.options.replacing`: whole or
    not at all)."""
    if plot_path is None and fmt != "html":
        yield None
        return
    with tempfile.TemporaryDirectory() as tmp:
        png, svg = plots.save(draw(), name, tmp)
        yield svg.read_bytes()
        if plot_path is not None:
            with replacing(plot_path, "--plot") as part:
                shutil.copyfile(png if plot_path.suffix.lower() == ".png" else svg, part)


__all__ = ["figure"]
