"""Figures. Every figure is saved through :func:`save`, as PNG and SVG with fixed metadata, so a
rerun with the same inputs writes byte-identical files.

Plot functions live in the submodules of this package, one per topic (e.g.
``capkit.plots.random_syntheses``). They take results (arrays, small frames), never raw data, and
return the matplotlib ``Figure``; they do not save it themselves. Names only.
"""

from capkit.plots.save import DEFAULT_FOLDER, figures_folder, save, svg_bytes

__all__ = ["DEFAULT_FOLDER", "figures_folder", "save", "svg_bytes"]
