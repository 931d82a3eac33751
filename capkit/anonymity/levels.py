"""Anonymity levels of a table, with pycanon's calls: k-anonymity, (alpha, k)-anonymity,
l-diversity (distinct, entropy, recursive (c, l)), basic and enhanced beta-likeness,
delta-disclosure privacy and t-closeness.

The definitions are those of pycanon 1.3.6 (Sainz-Pardo Díaz & López García, "A Python library
to check the level of anonymity of a dataset", Scientific Data 9, 2022), written out in
``docs/anonymity.md``; their sources are Sweeney (2002, k-anonymity), Wong et al. (2006,
(alpha, k)), Machanavajjhala et al. (2007, l-diversity, Definitions 4.1-4.3), Li, Li &
Venkatasubramanian (2007, t-closeness, Earth Mover's Distance), Brickell & Shmatikov (2008,
delta-disclosure) and Cao & Karras (2012, beta-likeness). Notation: an equivalence class E is
the set of records sharing their quasi-identifier values, q_E(s) the share of sensitive value
s in E, p(s) its share in the whole table.

Every function counts the table once (:func:`capkit.anonymity.classes.group`, one ``GROUP BY``)
and computes each level from the class x value counts with numpy; no loop over records or
classes. :func:`anonymity_levels` gives all of them from a single count.

Where pycanon errs, capkit's default is right and ``pycanon=True`` gives pycanon's number; a
:class:`~capkit.anonymity.classes.PycanonDifferenceWarning` says when the two differ:

- missing quasi-identifiers and index labels: see :mod:`capkit.anonymity.classes`;
- entropy l-diversity: pycanon truncates ``numpy.float64(e) ** H``, which is
  1.9999999999999998 for two equally frequent values, so an exactly uniform class loses one
  level; capkit counts an entropy within 1e-9 (relative) of ln l as ln l;
- recursive (c, l)-diversity: pycanon sorts the class's counts ascending, so its c compares the
  *least* frequent value where the definition (r_1 < c (r_l + ... + r_m), r_1 the *most*
  frequent) needs the largest; and its l is always the gen=True l-diversity. capkit follows the
  definition, with the l-diversity of the same ``gen``;
- t-closeness of a numeric attribute with one value: pycanon divides by zero; capkit gives 0.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from capkit.anonymity.classes import (
    Cells,
    Grouped,
    IdentifyingKeysWarning,
    PycanonDifferenceWarning,
    cells,
    class_sizes,
    group,
)
from capkit.counts.runs import concatenated_ranges
from capkit.errors import CapkitError

#: Relative distance of e**H from an integer l under which capkit counts H as ln l.
ENTROPY_TOLERANCE = 1e-9


def _note(message: str) -> None:
    warnings.warn(message, PycanonDifferenceWarning, stacklevel=4)


def _class_runs(c: Cells) -> np.ndarray:
    """Number of distinct values in each class."""
    return np.diff(np.r_[c.start, len(c.cls)])


def _reduce_max(c: Cells, x: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(x, c.start)


def _entropies(c: Cells) -> np.ndarray:
    """H(E) = -sum_s q_E(s) ln q_E(s) over the values present in each class, with pycanon's
    floating-point steps (shares in value order, ``numpy.sum`` of each class's terms)."""
    q = c.q
    terms = q * np.log(q)
    runs = _class_runs(c)
    out = np.empty(len(runs))
    for m in np.unique(runs):  # a loop over class widths (at most the number of values)
        which = np.flatnonzero(runs == m)
        idx = c.start[which][:, None] + np.arange(m)[None, :]
        out[which] = -np.sum(terms[idx], axis=1)
    return out


def _t_closeness(c: Cells, pycanon: bool, sa: str) -> float:
    """Largest Earth Mover's Distance between a class's and the table's distribution of the
    attribute (Li, Li & Venkatasubramanian 2007, Section 4.2): ordered distance
    (1/(m-1)) sum_i |r_1 + ... + r_i| for a numeric attribute, half the total variation
    (1/2) sum_i |r_i| otherwise, r_i = q_E(v_i) - p(v_i)."""
    n_classes = len(c.start)
    if not c.numeric:
        # values absent from a class add p(s); those present |q - p|
        present = np.add.reduceat(np.abs(c.q - c.p_cell), c.start)
        absent = 1.0 - np.add.reduceat(c.p_cell, c.start)
        return float(np.max(0.5 * (present + np.maximum(absent, 0.0))))
    if c.m == 1:
        if pycanon:
            raise CapkitError(f"pycanon=True: sensitive attribute {sa!r} has one value; pycanon "
                              "1.3.6 raises ZeroDivisionError in t-closeness (capkit gives 0)")
        _note(f"t-closeness: numeric attribute {sa!r} has one value, so every class has the "
              "table's distribution (t = 0); pycanon 1.3.6 raises ZeroDivisionError here")
        return 0.0
    best = -np.inf
    chunk = max(1, 2**22 // c.m)
    q = c.q
    for first in range(0, n_classes, chunk):  # blocks of classes, to bound memory
        last = min(n_classes, first + chunk)
        lo, hi = c.start[first], (c.start[last] if last < n_classes else len(c.cls))
        dense = np.zeros((last - first, c.m))
        dense[c.cls[lo:hi] - first, c.value[lo:hi]] = q[lo:hi]
        dense -= c.p[None, :]
        emd = np.abs(np.cumsum(dense, axis=1)).sum(axis=1) / (c.m - 1)
        best = max(best, float(emd.max()))
    return best


def _recursive_c(c: Cells, l_value: int, pycanon: bool) -> float:
    """Per class c_E = floor(r_1 / (r_l + ... + r_m) + 1), the smallest integer c with
    r_1 < c (r_l + ... + r_m) (Machanavajjhala et al. 2007, Definition 4.3), r_1 >= r_2 >= ...
    the class's value counts; with ``pycanon`` the counts sorted ascending, as pycanon does."""
    order = np.lexsort((c.count if pycanon else -c.count, c.cls))
    counts = c.count[order].astype(float)
    rank = concatenated_ranges(_class_runs(c))  # each value's place in its class
    tail = np.add.reduceat(np.where(rank >= l_value - 1, counts, 0.0), c.start)
    first = counts[c.start]
    with np.errstate(divide="ignore"):
        ratio = np.floor(first / tail + 1)
    if pycanon and np.isinf(ratio).any():
        raise CapkitError("pycanon=True: a class has fewer distinct values than l; pycanon "
                          "1.3.6 raises OverflowError (int of infinity) here")
    return float(np.max(ratio))


@dataclass(frozen=True)
class _PerAttribute:
    k: int
    alpha: float
    distinct: int
    entropy: float  # min over classes of H
    entropy_power: float  # min over classes of numpy.float64(e) ** H (pycanon's arithmetic)
    beta: float
    beta_enhanced: float
    delta: float
    cells: Cells


def _per_attribute(c: Cells) -> _PerAttribute:
    q, p = c.q, c.p_cell
    h = _entropies(c)
    beta = float(np.max(_reduce_max(c, (q - p) / p)))
    return _PerAttribute(
        k=int(c.size.min()),
        alpha=float(np.max(q)),
        distinct=int(_class_runs(c).min()),
        entropy=float(h.min()),
        entropy_power=float(np.min(np.power(np.exp(1), h))),
        beta=beta,
        beta_enhanced=min(beta, float(-np.log(c.p.min()))),
        delta=float(np.max(np.abs(np.log(q / p)))),
        cells=c,
    )


def _attributes(g: Grouped, gen: bool) -> list[_PerAttribute]:
    if not g.sas:
        raise CapkitError("sens_att is empty: give at least one sensitive attribute")
    out = []
    for sa in g.sas:  # a loop over the sensitive columns
        columns = g.qi if gen else g.qi + [s for s in g.sas if s != sa]
        c = cells(g, columns, sa)
        if len(c.cls) == 0:
            raise CapkitError("no record belongs to a class (every record has a missing "
                              "quasi-identifier)")
        out.append(_per_attribute(c))
    return out


def _entropy_l(per: list[_PerAttribute], pycanon: bool) -> int:
    truncated = int(min(a.entropy_power for a in per))
    x = math.exp(min(a.entropy for a in per))
    right = math.floor(x)
    if (right + 1) - x <= ENTROPY_TOLERANCE * x:
        right += 1
    if pycanon:
        return truncated
    if right != truncated:
        _note(f"entropy l-diversity is {right}; pycanon 1.3.6 reports {truncated} here (it "
              "truncates e**H, which falls just below the integer for equally frequent "
              "values); pycanon=True reproduces it")
    return right


def _check_identifying(g: Grouped) -> int:
    sizes = class_sizes(g, g.qi)
    if len(sizes) == 0:
        raise CapkitError("no record belongs to a class (every record has a missing "
                          "quasi-identifier)")
    if g.n > 1 and len(sizes) == int(sizes.sum()) and sizes.max() == 1:
        warnings.warn(f"every one of the {g.n} records is alone in its class over {g.qi}: these "
                      "quasi-identifiers act as an identifier (k = 1, l = 1)",
                      IdentifyingKeysWarning, stacklevel=3)
    return int(sizes.min())


# ------------------------------------------------------------------------------------------
# pycanon's calls


def k_anonymity(data: object, quasi_ident: object, *, pycanon: bool = False,
                engine: str | None = None) -> int:
    """k of k-anonymity: the size of the smallest equivalence class (Sweeney 2002).

    Parameters
    ----------
    data
        pandas DataFrame, Parquet/CSV path or glob or DuckDB relation (counted by DuckDB), or
        PySpark DataFrame (counted by Spark). Never modified.
    quasi_ident
        The quasi-identifier columns (a list, as pycanon, or one name).
    pycanon
        ``True`` leaves records with a missing quasi-identifier out, as pycanon 1.3.6 does.
    engine
        ``"pandas"``, ``"duckdb"``, ``"spark"`` or ``None`` (from the input).

    Returns
    -------
    int

    Raises
    ------
    CapkitError
        A missing column, an empty table.
    """
    return _check_identifying(group(data, quasi_ident, (), pycanon=pycanon, engine=engine))


def alpha_k_anonymity(data: object, quasi_ident: object, sens_att: object, gen: bool = True, *,
                      pycanon: bool = False, engine: str | None = None) -> tuple[float, int]:
    """(alpha, k)-anonymity (Wong et al. 2006): alpha = the largest share of one sensitive value
    in a class, max over classes (and attributes) of max_s q_E(s); k = k-anonymity.

    ``gen=False`` evaluates each attribute on the classes over the quasi-identifiers and the
    other sensitive attributes (pycanon's convention); k stays that of the quasi-identifiers.
    Other parameters as :func:`k_anonymity`; returns ``(alpha, k)``.
    """
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    k = _check_identifying(g)
    return max(a.alpha for a in _attributes(g, gen)), k


def l_diversity(data: object, quasi_ident: object, sens_att: object, gen: bool = True, *,
                pycanon: bool = False, engine: str | None = None) -> int:
    """Distinct l-diversity (Machanavajjhala et al. 2007, Definition 4.1 in its distinct form):
    the smallest number of distinct sensitive values in a class (min over attributes)."""
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    _check_identifying(g)
    return min(a.distinct for a in _attributes(g, gen))


def entropy_l_diversity(data: object, quasi_ident: object, sens_att: object, gen: bool = True,
                        *, pycanon: bool = False, engine: str | None = None) -> int:
    """Entropy l-diversity (Machanavajjhala et al. 2007, Definition 4.2): the largest integer l
    with H(E) >= ln l for every class, H(E) = -sum_s q_E(s) ln q_E(s); i.e. floor(e**min H).

    pycanon truncates ``numpy.float64(e) ** H`` as computed, so exactly uniform classes lose a
    level (e**ln 2 = 1.9999999999999998 -> 1); capkit counts e**H within 1e-9 (relative) of an
    integer as that integer and warns when this differs from pycanon; ``pycanon=True`` gives
    pycanon's number.
    """
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    _check_identifying(g)
    return _entropy_l(_attributes(g, gen), pycanon)


def recursive_c_l_diversity(data: object, quasi_ident: object, sens_att: object,
                            imp: bool = False, gen: bool = True, *, pycanon: bool = False,
                            engine: str | None = None) -> tuple[float, int]:
    """Recursive (c, l)-diversity (Machanavajjhala et al. 2007, Definition 4.3): l =
    l-diversity; c = the smallest integer with r_1 < c (r_l + ... + r_m) in every class, r_1 >=
    ... >= r_m its value counts; per class floor(r_1 / (r_l + ... + r_m) + 1), max over classes
    and attributes. ``(nan, l)`` when l = 1 (pycanon prints a note when ``imp``).

    pycanon sorts the counts ascending (its r_1 is the least frequent count, so its c is 1 or 2)
    and always takes the gen=True l; ``pycanon=True`` reproduces both, the default follows the
    definition with the l-diversity of the same ``gen`` and warns when the two differ.
    """
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    _check_identifying(g)
    per_gen = _attributes(g, True)
    l_gen = min(a.distinct for a in per_gen)
    per = per_gen if gen else _attributes(g, False)
    l_value = l_gen if (pycanon or gen) else min(a.distinct for a in per)
    c = math.nan if l_value <= 1 else _recursive_c_all(per, l_value, pycanon)
    if not pycanon:
        try:
            theirs = (math.nan if l_gen <= 1 else _recursive_c_all(per, l_gen, True), l_gen)
        except CapkitError:
            theirs = None
        if theirs is None or theirs[1] != l_value or not (
                theirs[0] == c or (math.isnan(c) and math.isnan(theirs[0]))):
            said = "raises OverflowError" if theirs is None else f"reports {theirs}"
            _note(f"recursive (c, l)-diversity is {(c, l_value)}; pycanon 1.3.6 {said} here (it "
                  "sorts the counts ascending and takes the gen=True l); pycanon=True "
                  "reproduces it")
    if l_value <= 1 and imp:
        print("c for (c,l)-diversity cannot be calculated as l=1")
    return c, l_value


def _recursive_c_all(per: list[_PerAttribute], l_value: int, pycanon: bool) -> int:
    return int(max(_recursive_c(a.cells, l_value, pycanon) for a in per))


def basic_beta_likeness(data: object, quasi_ident: object, sens_att: object, gen: bool = True,
                        *, pycanon: bool = False, engine: str | None = None) -> float:
    """Basic beta-likeness (Cao & Karras 2012, Definition 2): the largest relative gain
    (q_E(s) - p(s)) / p(s) over classes, values and attributes."""
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    _check_identifying(g)
    return max(a.beta for a in _attributes(g, gen))


def enhanced_beta_likeness(data: object, quasi_ident: object, sens_att: object,
                           gen: bool = True, *, pycanon: bool = False,
                           engine: str | None = None) -> float:
    """Enhanced beta-likeness (Cao & Karras 2012, Definition 3) as pycanon computes it: per
    attribute min(beta, -ln min_s p(s)) with beta the basic value; max over attributes."""
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    _check_identifying(g)
    return max(a.beta_enhanced for a in _attributes(g, gen))


def delta_disclosure(data: object, quasi_ident: object, sens_att: object, gen: bool = True, *,
                     pycanon: bool = False, engine: str | None = None) -> float:
    """delta-disclosure privacy (Brickell & Shmatikov 2008): the largest |ln(q_E(s) / p(s))|
    over classes and the values present in them (absent values are skipped, as pycanon)."""
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    _check_identifying(g)
    return max(a.delta for a in _attributes(g, gen))


def t_closeness(data: object, quasi_ident: object, sens_att: object, gen: bool = True, *,
                pycanon: bool = False, engine: str | None = None) -> float:
    """t-closeness (Li, Li & Venkatasubramanian 2007): the largest Earth Mover's Distance
    between a class's distribution of the attribute and the table's. As pycanon, the distance
    follows the column's type: numeric (and bool) columns use the ordered distance
    (1/(m-1)) sum_i |sum_{j<=i} r_j| over the m sorted values, text and categorical columns
    half the total variation; r_j = q_E(v_j) - p(v_j)."""
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    _check_identifying(g)
    return _t_all(g, _attributes(g, gen), pycanon)


def _t_all(g: Grouped, per: list[_PerAttribute], pycanon: bool) -> float:
    for sa in g.sas:
        if g.kinds[sa] == "other":
            raise CapkitError(f"t-closeness: sensitive attribute {sa!r} is neither numeric nor "
                              "text (pycanon 1.3.6 raises 'invalid sens_att value type')")
    return max(_t_closeness(a.cells, pycanon, sa) for a, sa in zip(per, g.sas, strict=True))


# ------------------------------------------------------------------------------------------
# all levels from one count


@dataclass(frozen=True)
class AnonymityLevels:
    """All levels of one table for one set of quasi-identifiers and sensitive attributes, in
    the order of pycanon's ``get_report_values``. ``c`` and ``l_c`` are those of recursive
    (c, l)-diversity computed with the ``gen`` asked for; with ``pycanon=True`` with gen=True,
    as pycanon's report does whatever ``gen`` is. ``records`` and ``classes`` count the table's
    records and its equivalence classes over the quasi-identifiers."""

    k: int
    alpha: float
    l_diversity: int
    entropy_l: int
    c: int | float
    l_c: int
    beta_basic: float
    beta_enhanced: float
    delta: float
    t: float
    records: int
    classes: int

    def as_dict(self) -> dict[str, float | int]:
        """The levels by name."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def anonymity_levels(data: object, quasi_ident: object, sens_att: object, gen: bool = True, *,
                     pycanon: bool = False, engine: str | None = None) -> AnonymityLevels:
    """Every level of this module from one count of the table (one ``GROUP BY`` on pandas,
    DuckDB or Spark): the way to measure a file larger than memory. Parameters as the functions
    above.
    """
    g = group(data, quasi_ident, sens_att, pycanon=pycanon, engine=engine)
    k = _check_identifying(g)
    per_gen = _attributes(g, True)
    per = per_gen if gen else _attributes(g, False)
    l_gen = min(a.distinct for a in per_gen)
    l_value = min(a.distinct for a in per)
    # pycanon's report computes (c, l) with gen=True whatever gen is (spec section 4)
    per_c, l_c = (per_gen, l_gen) if pycanon else (per, l_value)
    c = math.nan if l_c <= 1 else _recursive_c_all(per_c, l_c, pycanon)
    return AnonymityLevels(
        k=k, alpha=max(a.alpha for a in per), l_diversity=l_value,
        entropy_l=_entropy_l(per, pycanon),
        c=c, l_c=l_c, beta_basic=max(a.beta for a in per),
        beta_enhanced=max(a.beta_enhanced for a in per), delta=max(a.delta for a in per),
        t=_t_all(g, per, pycanon), records=g.n, classes=len(class_sizes(g, g.qi)))
