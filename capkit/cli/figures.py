"""The one figure a command draws: only when ``--plot`` or the html format asks for it, its SVG
embedded in the report, and the PNG or SVG copied to ``--plot`` once the report is written."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from capkit.cli.options import replacing
from capkit.errors import CapkitError

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@contextlib.contextmanager
def figure(plot_path: Path | None, fmt: str, name: str, draw: Callable[[], Figure]
           ) -> Iterator[bytes | None]:
    """Yield the SVG bytes of ``draw()`` saved by :func:`capkit.plots.save` (None when neither
    ``--plot`` nor ``--format html`` wants it); after the block, copy the PNG or SVG (by
    ``plot_path``'s suffix) to ``plot_path`` (:func:`capkit.cli.options.replacing`: whole or
    not at all). The pictures are drawn in a temporary folder beside ``plot_path`` (the system
    one for the html page only), removed afterwards."""
    from capkit import plots  # matplotlib: imported when a figure is drawn

    if plot_path is None and fmt != "html":
        yield None
        return
    folder = None if plot_path is None else os.path.dirname(os.path.realpath(plot_path))
    what = "the picture" if plot_path is None else f"--plot {str(plot_path)!r}"
    try:
        tmp_folder = tempfile.TemporaryDirectory(dir=folder, prefix=".capkit-plot.")
    except OSError as exc:
        raise CapkitError(f"cannot write {what}: {exc.strerror or exc}") from exc
    with tmp_folder as tmp:
        try:
            png, svg = plots.save(draw(), name, tmp)
        except OSError as exc:
            raise CapkitError(f"cannot write {what}: {exc.strerror or exc}; "
                              + ("the file is left as it was" if plot_path and plot_path.exists()
                                 else "nothing was written")) from exc
        yield svg.read_bytes()
        if plot_path is not None:
            with replacing(plot_path, "--plot") as part:
                shutil.copyfile(png if plot_path.suffix.lower() == ".png" else svg, part)


__all__ = ["figure"]
