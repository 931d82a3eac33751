"""Symbolic (sympy) checks of Baillargeon & Charest's Theorem 1, Lemma 1 and Theorems 2-3.

Every check builds the average CAP from its definition (Definitions 1-3) on tables of sympy
symbols, carries out the step of the paper's proof, and asks sympy whether the result is what
the paper says: an identity (``simplify(lhs - rhs) == 0``) or a sign under stated assumptions
(sympy's assumption system: ``expr.is_positive`` / ``is_nonnegative``). Each function returns a
:class:`Derivation` whose steps can be shown as LaTeX (:meth:`Derivation.to_latex`).

Counts are symbols declared ``nonnegative`` (o_ij) or ``positive`` (synthetic cells of non-empty
keys, key totals o_.j of keys present in O), so every sign conclusion is a proof for all values
satisfying the declared assumptions, not a numerical spot check. Where a statement needs a
general number of rows I the check uses ``sympy.Sum``; elsewhere it is proved for explicit table
sizes (listed in the derivation), with every cell a free symbol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy as sp

from capkit.errors import CapkitError


@dataclass
class Derivation:
    """A statement of the paper, the symbolic steps that check it and the verdict."""

    name: str
    source: str
    statement: str
    steps: list[tuple[str, sp.Basic]] = field(default_factory=list)
    holds: bool = True
    assumptions: str = ""
    note: str = ""

    def step(self, label: str, expr: sp.Basic, *, holds: bool | None = None) -> None:
        """Record one step; a step with ``holds=False`` makes the whole derivation fail."""
        self.steps.append((label, expr))
        if holds is False:
            self.holds = False

    def to_latex(self) -> str:
        """The steps as a LaTeX ``aligned`` block (for ``IPython.display.Math``)."""
        lines = [rf"\text{{{label}}}: & \quad {sp.latex(expr)}" for label, expr in self.steps]
        return r"\begin{aligned}" + r"\\ ".join(lines) + r"\end{aligned}"


# --- building blocks --------------------------------------------------------------------------


def symbol_table(prefix: str, rows: int, cols: int, **assumptions: bool) -> sp.Matrix:
    """An I x J matrix of fresh symbols ``prefix_ij`` (1-based indices) with assumptions."""
    if rows < 1 or cols < 1:
        raise CapkitError(f"table size must be at least 1 x 1, got {rows} x {cols}")
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{prefix}_{i + 1}{j + 1}",
                                                         **assumptions))


def _is_zero_column(s: sp.Matrix, j: int) -> bool:
    return all(entry == 0 for entry in s[:, j])


def average_cap_expr(o: sp.Matrix, s: sp.Matrix, version: int = 1) -> sp.Expr:
    """Average CAP (Definition 2 or 3) of symbolic tables, built from Definition 1.

    Record x in cell (i, j) has ``CAP_x(S) = s_ij / m_j``, or 0 when key K_j is absent from S,
    which is decided structurally: a column of S whose entries are all literal zeros. The sum
    over the n records is ``sum_ij o_ij CAP_ij``; version 1 divides by n, version 2 by
    ``n - |A|``, |A| being the records of O whose key is absent from S.
    """
    if o.shape != s.shape:
        raise CapkitError(f"o and s must have the same shape, got {o.shape} and {s.shape}")
    if version not in (1, 2):
        raise CapkitError(f"version must be 1 or 2 (Definitions 2 and 3), got {version!r}")
    rows, cols = o.shape
    total = sp.Integer(0)
    n = sum(o)
    absent = sp.Integer(0)
    for j in range(cols):  # symbolic construction over a handful of keys, not a measure
        if _is_zero_column(s, j):
            absent += sum(o[:, j])
            continue
        m_j = sum(s[:, j])
        total += sum(o[i, j] * s[i, j] for i in range(rows)) / m_j
    return total / (n if version == 1 else n - absent)


def _zero(expr: sp.Expr) -> bool:
    return sp.simplify(sp.cancel(sp.together(expr))) == 0


# --- Theorem 1 --------------------------------------------------------------------------------


def theorem1(explicit_sizes: Sequence[int] = range(1, 9)) -> Derivation:
    """Theorem 1: the individual CAPs of one key, summed over the I targets, equal 1.

    Checked for a general number of targets I (``sympy.Sum`` over an indexed base s_i, the
    synthetic counts of key K_0 with total m_0 > 0), and with explicit positive symbols for each
    I in ``explicit_sizes``. With some counts zero but m_0 > 0 the identity is the same (the
    explicit check substitutes zeros).
    """
    d = Derivation(
        "theorem1", "Baillargeon & Charest, Theorem 1 (Sec. 2.4)",
        "For a key K_0 present in S, sum_i s_{i0} / m_0 = 1 over all I targets.",
        assumptions="m_0 = sum_i s_i0 > 0",
    )
    i, k = sp.symbols("i k", integer=True)
    big_i = sp.Symbol("I", integer=True, positive=True)
    s = sp.IndexedBase("s")
    m0 = sp.Sum(s[k], (k, 1, big_i))
    lhs = sp.Sum(s[i] / m0, (i, 1, big_i))
    d.step("sum of the individual CAPs of key K_0", lhs)
    pulled = sp.simplify(lhs)  # the constant 1/m_0 leaves the sum
    # rename the bound index of every Sum to one canonical symbol (alpha-equivalence)
    canonical = pulled.replace(
        lambda e: isinstance(e, sp.Sum),
        lambda e: sp.Sum(e.function.subs(e.variables[0], i), (i, *e.limits[0][1:])),
    )
    general = sp.simplify(canonical)
    d.step("general I: after taking 1/m_0 out of the sum", general, holds=general == 1)
    for size in explicit_sizes:
        cells = sp.symbols(f"s_1:{size + 1}", nonnegative=True)
        total = sum(cells)
        value = sp.simplify(sum(c / total for c in cells))
        ok = value == 1
        # zeros allowed while m_0 > 0: set all but the last count to 0
        ok = ok and sp.simplify(value.subs({c: 0 for c in cells[:-1]})) == 1
        d.step(f"I = {size}", sp.Eq(sp.Add(*[c / sp.Symbol('m_0') for c in cells]), value),
               holds=ok)
    return d


# --- Lemma 1 ----------------------------------------------------------------------------------


def lemma1_move(
    version: int = 1,
    rows: int = 3,
    keys: int = 2,
    empty_keys: int = 1,
    alpha: int = 0,
    beta: int = 0,
    eta: int = 1,
) -> Derivation:
    """Lemma 1's key step: moving one synthetic record of key K_alpha from T_beta to T_eta.

    Builds ``CAP(S_1) - CAP(S_0)`` from the definition on an original table of free symbols o_ij
    (``rows`` targets, ``keys + empty_keys`` keys) and a synthetic table S_0 of positive symbols
    on the first ``keys`` keys and zeros on the last ``empty_keys`` (keys absent from S, which
    make |A| > 0). S_1 is S_0 with s_{beta alpha} - 1 and s_{eta alpha} + 1. The difference must
    be ``(o_{eta alpha} - o_{beta alpha}) / (n m_alpha)`` (version 1) or the same over
    ``(n - |A|) m_alpha`` (version 2). Indices are 0-based.
    """
    if not (0 <= alpha < keys and 0 <= beta < rows and 0 <= eta < rows and beta != eta):
        raise CapkitError("need 0 <= alpha < keys and two different targets beta, eta < rows")
    cols = keys + empty_keys
    o = symbol_table("o", rows, cols, nonnegative=True, integer=True)
    s0 = symbol_table("s", rows, cols, positive=True, integer=True)
    for j in range(keys, cols):
        s0[:, j] = sp.zeros(rows, 1)
    s1 = s0.copy()
    s1[beta, alpha] -= 1
    s1[eta, alpha] += 1
    diff = average_cap_expr(o, s1, version) - average_cap_expr(o, s0, version)
    n = sum(o)
    absent = sum(o[:, keys:]) if empty_keys else sp.Integer(0)
    m_alpha = sum(s0[:, alpha])
    denominator = n if version == 1 else n - absent
    claimed = (o[eta, alpha] - o[beta, alpha]) / (denominator * m_alpha)
    names = {1: "n", 2: "n - |A|"}
    d = Derivation(
        f"lemma1_move_v{version}", "Baillargeon & Charest, Lemma 1, proof (Sec. 3.2)",
        f"Moving one record of key K_alpha from T_beta to T_eta changes the version-{version} "
        f"average CAP by (o_eta,alpha - o_beta,alpha) / (({names[version]}) m_alpha).",
        assumptions=f"{rows} targets, {keys} keys present in S (positive counts), "
                    f"{empty_keys} key(s) absent from S; alpha={alpha + 1}, beta={beta + 1}, "
                    f"eta={eta + 1}",
    )
    d.step("CAP(S_1) - CAP(S_0), simplified", sp.factor(sp.cancel(sp.together(diff))))
    d.step("paper's value", claimed)
    d.step("difference", sp.simplify(diff - claimed), holds=_zero(diff - claimed))
    d.note = ("the change is 0 when the two cells tie (o_eta,alpha = o_beta,alpha): moving a "
              "record inside C_alpha never changes the CAP")
    return d


# --- Theorem 2 --------------------------------------------------------------------------------


def theorem2(rows: int = 3, cols: int = 3) -> Derivation:
    """Theorem 2 (version 1): single-cell tables and the effect of emptying a key.

    (a) A table with all m records in cell (i, j) has CAP_O = o_ij / n for every cell of a
    ``rows`` x ``cols`` table of symbols, whatever m > 0; in a cell of C_j this is o^j_min / n.
    (b) A table with all records in C on the non-empty keys N has
    CAP_O = sum_{j in N} o^j_min / n, independent of the key totals m_j (tables with the same
    empty keys have the same CAP), and moving all records of key K_alpha to another non-empty
    key lowers CAP_O by exactly o^alpha_min / n. That drop is > 0 only when o^alpha_min > 0
    (the authors' margin note): sympy cannot prove it positive from non-negative counts, and it
    is 0 when o^alpha_min = 0.
    """
    d = Derivation(
        "theorem2", "Baillargeon & Charest, Theorem 2 and its proof (Sec. 3.2)",
        "A single-cell table has CAP_O = o_ij / n; emptying a key of a C-table lowers CAP_O by "
        "o^alpha_min / n, which is > 0 only if o^alpha_min > 0.",
        assumptions=f"{rows} x {cols} original of non-negative symbols; m > 0",
    )
    o = symbol_table("o", rows, cols, nonnegative=True, integer=True)
    m = sp.Symbol("m", positive=True, integer=True)
    n = sum(o)
    ok = True
    for i in range(rows):
        for j in range(cols):
            s = sp.zeros(rows, cols)
            s[i, j] = m
            ok = ok and _zero(average_cap_expr(o, s, 1) - o[i, j] / n)
    s = sp.zeros(rows, cols)
    s[0, 0] = m
    d.step("single cell (1,1) holding all m records: CAP_O", average_cap_expr(o, s, 1),
           holds=ok)
    d.step(f"equals o_ij / n for all {rows * cols} cells", sp.true if ok else sp.false)

    # (b) a C-table: key j's minimum in row 1 (which row holds it does not matter)
    mins = sp.symbols(f"omin_1:{cols + 1}", nonnegative=True, integer=True)
    rest = symbol_table("r", rows, cols, nonnegative=True, integer=True)
    oc = rest.copy()
    for j in range(cols):
        oc[0, j] = mins[j]
    totals = sp.symbols(f"m_1:{cols + 1}", positive=True, integer=True)
    s1 = sp.zeros(rows, cols)
    for j in range(cols):
        s1[0, j] = totals[j]
    nc = sum(oc)
    value1 = average_cap_expr(oc, s1, 1)
    claimed = sum(mins) / nc
    d.step("C-table with every key non-empty: CAP_O", sp.simplify(value1),
           holds=_zero(value1 - claimed))
    free_of_totals = all(_zero(sp.diff(value1, t)) for t in totals)
    d.step("d CAP_O / d m_j = 0 for every j (same empty keys, same CAP)",
           sp.true if free_of_totals else sp.false, holds=free_of_totals)
    s3 = s1.copy()
    s3[0, 1] = totals[0] + totals[1]  # all records of key 1 moved to key 2
    s3[0, 0] = 0
    drop = sp.simplify(value1 - average_cap_expr(oc, s3, 1))
    d.step("CAP_O(S_1) - CAP_O(S_3), key 1 emptied into key 2", drop,
           holds=_zero(drop - mins[0] / nc))
    positive = drop.is_positive
    d.step("is the drop > 0 for non-negative counts? (sympy)", sp.Symbol(str(positive)))
    at_zero = sp.simplify(drop.subs(mins[0], 0))
    d.step("drop when o^1_min = 0", at_zero, holds=at_zero == 0)
    strict = drop.subs(mins[0], sp.Symbol("p", positive=True)).is_positive
    d.step("drop when o^1_min > 0 is positive (sympy)", sp.Symbol(str(strict)),
           holds=strict is True)
    d.note = ("the proof's strict inequality o^alpha_min / n > 0 needs o^alpha_min > 0; with "
              "o^alpha_min = 0 emptying the key changes nothing, as the margin note says")
    return d


# --- Theorem 3 --------------------------------------------------------------------------------


def theorem3(n_keys: int = 3) -> Derivation:
    """Theorem 3's proof: its final chain of inequalities, under its stated assumptions.

    Symbols for k = ``n_keys`` non-empty keys N (key alpha is the first, j0 the second): key
    totals t_j = o_.j > 0 (keys present in O), minima a_j = o^j_min >= 0, with
    a_j / t_j = a_alpha / t_alpha - d_j, d_j >= 0 (alpha has the largest ratio) and
    d_{j0} > 0 (a strictly smaller ratio exists). Checked:

    1. inequality (1), sum_{j in N} (t_j a_alpha - t_alpha a_j) > 0, follows (sympy sign);
    2. each "=>" of the chain is an identity: the expressions differ by a positive factor;
    3. the first and last lines are CAP*(S~) - CAP*(S~_2), both built from Definition 3 on
       a 2 x k table (row 1 holds the key minima, synthetic records all in row 1);
    4. the direct bound behind the theorem (mediant inequality): any C-table has
       CAP* = sum a_j / sum t_j >= min_j a_j / t_j = o*_min.
    """
    if n_keys < 2:
        raise CapkitError(f"n_keys must be >= 2 (the proof's case with several keys), got {n_keys}")
    d = Derivation(
        f"theorem3_k{n_keys}", "Baillargeon & Charest, Theorem 3, proof (Sec. 3.2)",
        "Under the proof's assumptions, inequality (1) holds and implies "
        "CAP*(S~) > CAP*(S~_2), through the displayed chain of equivalent inequalities.",
        assumptions=f"|N| = {n_keys} non-empty keys, all present in O (o_.j > 0); alpha has the "
                    "largest o^j_min / o_.j, some j0 a strictly smaller one",
    )
    k = n_keys
    t = sp.symbols(f"t_1:{k + 1}", positive=True)
    r_alpha = sp.Symbol("r_alpha", nonnegative=True)
    gaps = [sp.Integer(0), sp.Symbol("d_2", positive=True)]
    gaps += [sp.Symbol(f"d_{j + 1}", nonnegative=True) for j in range(2, k)]
    a = [(r_alpha - gaps[j]) * t[j] for j in range(k)]  # a_j = o^j_min
    a_sym = sp.symbols(f"a_1:{k + 1}", nonnegative=True)
    n_star = sum(t)

    eq1 = sum(t[j] * a_sym[0] - t[0] * a_sym[j] for j in range(k))
    d.step("(1)", sp.StrictGreaterThan(eq1, 0))
    eq1_sub = sp.expand(eq1.subs(dict(zip(a_sym, a, strict=True))))
    d.step("(1) with a_j = (r_alpha - d_j) t_j", eq1_sub, holds=eq1_sub.is_positive is True)

    line1 = n_star * a_sym[0] - t[0] * sum(a_sym)
    line2 = (n_star - t[0]) * sum(a_sym) - n_star * sum(a_sym[1:])
    line3 = sum(a_sym) / n_star - sum(a_sym[1:]) / (n_star - t[0])
    d.step("chain lines 1-3: (1) minus [n* a_alpha - t_alpha sum_N a_j]", sp.expand(eq1 - line1),
           holds=sp.expand(eq1 - line1) == 0)
    d.step("chain lines 3-4: difference of the two sides", sp.expand(line1 - line2),
           holds=sp.expand(line1 - line2) == 0)
    factor = n_star * (n_star - t[0])
    d.step("chain lines 4-5: line 5 x n*(n* - t_alpha) minus line 4",
           sp.simplify(line3 * factor - line2),
           holds=_zero(line3 * factor - line2))
    d.step("n*(n* - t_alpha) > 0 (sympy)", sp.Symbol(str(sp.expand(factor).is_positive)),
           holds=sp.expand(factor).is_positive is True)

    # line 4 from Definition 3: a 2 x k original, row 1 = minima, row 2 = t_j - a_j
    o = sp.Matrix(2, k, lambda i, j: a_sym[j] if i == 0 else sp.Symbol(f"c_{j + 1}",
                                                                        nonnegative=True))
    m = sp.symbols(f"m_1:{k + 1}", positive=True)
    s_tilde = sp.Matrix(2, k, lambda i, j: m[j] if i == 0 else 0)
    s_two = s_tilde.copy()
    s_two[0, 1] = m[0] + m[1]
    s_two[0, 0] = 0
    diff = average_cap_expr(o, s_tilde, 2) - average_cap_expr(o, s_two, 2)
    totals = {t[j]: a_sym[j] + sp.Symbol(f"c_{j + 1}", nonnegative=True) for j in range(k)}
    d.step("chain lines 5-6: CAP*(S~) - CAP*(S~_2) from Definition 3 minus line 5",
           sp.simplify(diff - line3.subs(totals)), holds=_zero(diff - line3.subs(totals)))

    r_min = sp.Symbol("r_min", nonnegative=True)
    e = sp.symbols(f"e_1:{k + 1}", nonnegative=True)
    mediant = sum((r_min + e[j]) * t[j] for j in range(k)) / n_star - r_min
    mediant = sp.simplify(mediant)
    d.step("CAP*(C-table) - o*_min with a_j / t_j = o*_min + e_j", mediant,
           holds=mediant.is_nonnegative is True)
    d.note = ("the chain needs o_.j > 0 for j in N (the ratios o^j_min / o_.j are 0/0 for a "
              "key absent from O) and n* - o_.alpha > 0 (true since j0 is in L)")
    return d


def all_derivations(theorem3_sizes: Sequence[int] = (2, 3, 4)) -> list[Derivation]:
    """Every symbolic check of this module, in the paper's order."""
    out = [theorem1()]
    for version in (1, 2):
        out.append(lemma1_move(version))
    out.append(theorem2())
    out += [theorem3(k) for k in theorem3_sizes]
    return out
