"""The result of :func:`capkit.synth.syn`: synthpop's ``synds`` object (spec section 5)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from capkit.synth.cart import Tree


@dataclass
class SynResult:
    """The result of :func:`capkit.synth.syn` (synthpop's ``synds`` object, spec section 5).

    Attributes
    ----------
    syn
        The m synthetic DataFrames (k rows each; the input's columns, dtypes and levels).
    m, n, k, seed
        Number of syntheses, original and synthetic row counts, the seed used.
    method
        Per original column: "sample", "cart", "constant", "collinear" or "" (not synthesised).
    visit_sequence
        Column names in visit order, without the v.NA / v.0 expansion.
    predictor_matrix
        0/1 DataFrame (rows: synthesised column, columns: predictors) after the checks.
    cont_na
        The ``cont_na`` given (one entry per column, None where none was given).
    smoothing
        Per column, the smoothing used (None for none).
    expanded
        The working visit sequence: (name, method, predictors) with v.NA / v.0 expanded, the
        predictors in the order they reach the tree (spec 2.7).
    models
        With ``models=True``: the fitted :class:`~capkit.synth.cart.Tree` of every working
        variable synthesised by CART, by working name (``"income.NA"``, ``"income.0"``, ...).
        The trees depend only on the original data, so the m syntheses share them; with
        ``proper=True`` each synthesis fits its own, and this is a list of m such dicts.
        None without ``models=True``.
    """

    syn: list[pd.DataFrame]
    m: int
    n: int
    k: int
    seed: int
    method: dict[str, str]
    visit_sequence: list[str]
    predictor_matrix: pd.DataFrame
    cont_na: dict[str, list | None]
    smoothing: dict[str, str | None]
    proper: bool
    expanded: list[tuple[str, str, list[str]]] = field(default_factory=list)
    models: dict[str, Tree] | list[dict[str, Tree]] | None = None
