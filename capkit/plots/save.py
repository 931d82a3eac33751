"""The one figure saver: PNG and SVG with fixed metadata, so a rerun with the same inputs writes
byte-identical files."""

from __future__ import annotations

import io
import os
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from capkit.errors import CapkitError

#: Default folder for figures: $CAPKIT_FIGURES, else ./figures.
DEFAULT_FOLDER = "figures"

_PNG_METADATA = {"Software": "capkit"}
_SVG_METADATA = {"Date": None, "Creator": "capkit"}

plt.rcParams["svg.hashsalt"] = "capkit"
plt.rcParams["svg.fonttype"] = "path"


def figures_folder(folder: str | Path | None = None) -> Path:
    """The folder figures go to: ``folder``, else ``$CAPKIT_FIGURES``, else ``./figures``."""
    return Path(folder or os.environ.get("CAPKIT_FIGURES") or DEFAULT_FOLDER)


def save(fig: Figure, name: str, folder: str | Path | None = None, *, dpi: int = 120) -> list[Path]:
    """Save ``fig`` as ``NAME.png`` and ``NAME.svg`` with deterministic metadata.

    Parameters
    ----------
    fig
        The figure.
    name
        File stem, e.g. ``"fig1_individual_cap"`` (no folder, no extension).
    folder
        Target folder (created if missing); default :func:`figures_folder`.

    Returns
    -------
    The two paths written.
    """
    if not name or "/" in name or "." in Path(name).suffix:
        raise CapkitError(f"figure name must be a plain file stem, got {name!r}")
    target = figures_folder(folder)
    target.mkdir(parents=True, exist_ok=True)
    with plt.rc_context({"svg.hashsalt": "capkit"}):
        png, svg = target / f"{name}.png", target / f"{name}.svg"
        fig.savefig(png, dpi=dpi, metadata=_PNG_METADATA, bbox_inches="tight")
        fig.savefig(svg, metadata=_SVG_METADATA, bbox_inches="tight")
    return [png, svg]


def svg_bytes(fig: Figure) -> bytes:
    """``fig`` as SVG bytes with the same fixed metadata as :func:`save` (for a page that
    embeds the figure): the same figure gives the same bytes on every run."""
    buffer = io.BytesIO()
    with plt.rc_context({"svg.hashsalt": "capkit"}):
        fig.savefig(buffer, format="svg", metadata=_SVG_METADATA, bbox_inches="tight")
    return buffer.getvalue()
