"""Sequential CART synthesis in the style of synthpop 1.9-2's ``syn()``, with rpart's own trees.

Public names only; the modules: :mod:`~capkit.synth.syn` (the driver), :mod:`~capkit.synth.prepare`
(types, methods, predictors, v.NA / v.0), :mod:`~capkit.synth.cart` and
:mod:`~capkit.synth._rpart_kernel` (rpart's tree growth), :mod:`~capkit.synth.screening`
(predictor screening), :mod:`~capkit.synth.smoothing`, :mod:`~capkit.synth.result`.
"""

from capkit.synth.cart import Tree
from capkit.synth.result import SynResult
from capkit.synth.syn import syn

__all__ = ["SynResult", "Tree", "syn"]
