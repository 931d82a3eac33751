"""Sequential CART synthesis in the style of synthpop 1.9-2's ``syn()`` (default method "cart").

Nowok, Raab & Dibben (2016), *synthpop: Bespoke creation of synthetic data in R*, and the spec
``synthpop-syn-cart.md``: the first variable of the visit sequence is a bootstrap of its marginal
("sample"); every later variable is drawn from a CART model fitted on the original data with the
variables before it as predictors and evaluated on the already synthesised values (sections 2-4).
Categorical missing values are the extra level "NAtemp"; a numeric variable with missing or
special (``cont_na``) values is synthesised in two steps, an indicator ``v.NA`` and the ordinary
values ``v.0`` (section 2.7). The trees are an rpart-like numpy CART (:mod:`capkit.synth._cart`,
deviations listed there); random draws follow the fixed order of spec 7.3 from one
``numpy.random.Generator`` seeded once, so the same inputs give the same syntheses.

Only :func:`syn` and :class:`SynResult` are public.
"""

from __future__ import annotations

import secrets
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.synth import _cart

__all__ = ["SynResult", "syn"]

NATEMP = "NAtemp"
MAXFACLEVELS = 60
SMOOTHING = ("spline", "rmean")


@dataclass
class SynResult:
    """The result of :func:`syn` (synthpop's ``synds`` object, spec section 5).

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


@dataclass
class _Var:
    """One working variable (an original column, or v.NA / v.0 of a padded numeric)."""

    name: str
    kind: str                     # "cat" or "num"
    nlev: int = 0
    method: str = ""
    preds: list[int] = field(default_factory=list)
    rule_var: int = -1            # v.0: index of v.NA; records with v.NA != rule_code get 0
    rule_code: int = -1
    smoothing: str | None = None
    leader: int = -1              # collinear: index of the leading original column


def _column_kind(name: str, s: pd.Series) -> tuple[str, list]:
    """("cat", levels) or ("num", []) for a column; CapkitError for an unsupported type."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "cat", list(s.cat.categories)
    if pd.api.types.is_bool_dtype(s.dtype):
        return "cat", [False, True]
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_complex_dtype(s.dtype):
        return "num", []
    if pd.api.types.is_string_dtype(s.dtype) or s.dtype == object:
        values = s.dropna()
        if not values.map(lambda v: isinstance(v, str)).all():
            raise CapkitError(f"column {name!r} has dtype object with non-string values; "
                              "expected numbers, strings, booleans or a categorical")
        return "cat", sorted(values.unique())
    raise CapkitError(f"column {name!r} has unsupported dtype {s.dtype}; expected numeric, "
                      "categorical, string or boolean")


def _check_args(data: Any, m: int, k: int | None, minbucket: int) -> None:
    if not isinstance(data, pd.DataFrame):
        raise CapkitError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if data.shape[0] == 0 or data.shape[1] == 0:
        raise CapkitError(f"data is empty ({data.shape[0]} rows x {data.shape[1]} columns)")
    if not data.columns.is_unique:
        raise CapkitError("data has duplicate column names")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise CapkitError(f"m must be an integer >= 1, got {m!r}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise CapkitError(f"k must be an integer >= 1 or None, got {k!r}")
    if isinstance(minbucket, bool) or not isinstance(minbucket, (int, np.integer)) or minbucket < 1:
        raise CapkitError(f"minbucket must be an integer >= 1, got {minbucket!r}")


def _visit(data: pd.DataFrame, visit_sequence: Any) -> list[str]:
    cols = list(data.columns)
    if visit_sequence is None:
        return cols
    if isinstance(visit_sequence, (str, int)):
        visit_sequence = [visit_sequence]
    out = []
    for v in visit_sequence:
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            if not 0 <= v < len(cols):
                raise CapkitError(f"visit_sequence position {v} is out of range 0..{len(cols) - 1}")
            v = cols[v]
        if v not in cols:
            raise CapkitError(f"visit_sequence names column {v!r}, which is not in data")
        if v in out:
            raise CapkitError(f"visit_sequence repeats column {v!r}")
        out.append(v)
    if not out:
        raise CapkitError("visit_sequence is empty")
    return out


def _per_column(option: Any, name: str, cols: list[str], allowed: tuple) -> dict[str, Any]:
    if option is None or isinstance(option, str):
        if option is not None and option not in allowed:
            raise CapkitError(f"{name} must be one of {allowed} or None, got {option!r}")
        return dict.fromkeys(cols, option)
    if not isinstance(option, dict):
        raise CapkitError(f"{name} must be a string, a dict or None, got {type(option).__name__}")
    for c, v in option.items():
        if c not in cols:
            raise CapkitError(f"{name} names column {c!r}, which is not in data")
        if v is not None and v not in allowed:
            raise CapkitError(f"{name}[{c!r}] must be one of {allowed} or None, got {v!r}")
    return {c: option.get(c) for c in cols}


def _lindep(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """synthpop's remove.lindep screening (spec 4.1): indices of the predictors kept."""
    keep = np.arange(X.shape[1])
    if len(X) < 2 or X.shape[1] == 0:
        return keep[:0] if len(X) < 2 else keep
    var = X.var(axis=0, ddof=1)
    keep = keep[np.nan_to_num(var, nan=0.0) > 1e-5]
    if not len(keep):
        return keep
    Xk = X[:, keep]
    with np.errstate(invalid="ignore", divide="ignore"):
        yc = y - y.mean()
        xc = Xk - Xk.mean(axis=0)
        r = (xc * yc[:, None]).sum(0) / np.sqrt((xc ** 2).sum(0) * (yc ** 2).sum())
    keep = keep[~(np.nan_to_num(r, nan=0.0) >= 0.99999)]
    if len(keep) < 2:
        return keep
    C = np.corrcoef(X[:, keep], rowvar=False)
    vals, vecs = np.linalg.eigh(C)
    order = np.argsort(-vals, kind="stable")
    vals, vecs = vals[order], vecs[:, order]
    kept = list(keep)
    r_ = len(vals) - 1
    while r_ > 0 and vals[r_] / vals[0] < 1e-5:
        pos = int(np.argmax(np.abs(vecs[:, r_])))
        if pos < len(kept):
            kept.pop(pos)
        r_ -= 1
    return np.array(kept, dtype=np.int64)


def _smooth(values: np.ndarray, how: str, original: np.ndarray) -> np.ndarray:
    """Smooth drawn numeric values (spec 4.6; "spline" uses scipy's GCV spline, approximate)."""
    if len(values) < 5:
        return values
    order = np.argsort(values, kind="stable")
    sv = values[order]
    if how == "rmean":
        cs = np.concatenate(([0.0], np.cumsum(sv)))
        idx = np.arange(len(sv))
        lo, hi = np.maximum(idx - 2, 0), np.minimum(idx + 3, len(sv))
        fitted = (cs[hi] - cs[lo]) / (hi - lo)
    else:
        from scipy.interpolate import make_smoothing_spline

        ranks = np.arange(1.0, len(sv) + 1)
        fitted = make_smoothing_spline(ranks, sv)(ranks)
    dec = _decimals(original)
    out = np.empty_like(values)
    out[order] = np.round(fitted, dec)
    return out


def _decimals(x: np.ndarray) -> int:
    x = x[np.isfinite(x)]
    for d in range(0, 10):
        if np.allclose(x, np.round(x, d), rtol=0, atol=1e-9):
            return d
    return 10


def syn(data: pd.DataFrame, m: int = 1, seed: int | None = None, method: str = "cart",
        visit_sequence: list | None = None, cont_na: dict[str, Any] | None = None,
        k: int | None = None, minbucket: int = 5, smoothing: str | dict | None = None, *,
        cp: float = 1e-8, proper: bool = False, max_exhaustive: int = 10,
        progress: bool = True) -> SynResult:
    """Synthesise ``data`` m times by sequential CART (synthpop's ``syn()``, spec sections 2-4).

    Parameters
    ----------
    data
        The original data: numeric, categorical, string or boolean columns.
    m
        Number of synthetic data sets (>= 1), all drawn from one random stream.
    seed
        Integer seed; None draws one (stored in the result).
    method
        "cart" (the only model method; the first visited variable always gets "sample").
    visit_sequence
        Column names (or 0-based positions) in synthesis order; default: data column order.
        Columns left out are not synthesised (method "") and keep their original values.
    cont_na
        ``{column: [codes]}``: special values of numeric columns (e.g. ``{"income": [-8]}``),
        synthesised as categories with the missing values (spec 2.7). Every code must occur.
    k
        Rows per synthetic set (default: as many as ``data``).
    minbucket
        rpart's minimum leaf size (minsplit is 3 x minbucket; cp = ``cp``).
    smoothing
        None, "spline" or "rmean", for all numeric columns or as ``{column: ...}``.
    proper
        Fit every model to a bootstrap sample of the original records.
    max_exhaustive
        Largest number of levels of a categorical predictor searched exhaustively for a
        3+-class target (more levels: ordered-split heuristic, see :mod:`capkit.synth._cart`).
    progress
        tqdm progress bar over syntheses and variables.

    Returns
    -------
    SynResult
    """
    _check_args(data, m, k, minbucket)
    if method != "cart":
        raise CapkitError(f"method must be 'cart', got {method!r}")
    cols = list(data.columns)
    n = len(data)
    k = n if k is None else int(k)
    visit = _visit(data, visit_sequence)
    smooth = _per_column(smoothing, "smoothing", cols, SMOOTHING)
    kinds: dict[str, tuple[str, list]] = {c: _column_kind(c, data[c]) for c in cols}
    for c, s in smooth.items():
        if s is not None and kinds[c][0] != "num":
            raise CapkitError(f"smoothing given for column {c!r}, which is not numeric")
    cont = {} if cont_na is None else cont_na
    if not isinstance(cont, dict):
        raise CapkitError(f"cont_na must be a dict of column -> codes, got {type(cont).__name__}")
    cont_codes: dict[str, list[float]] = {}
    for c, codes in cont.items():
        if c not in cols:
            raise CapkitError(f"cont_na names column {c!r}, which is not in data")
        if kinds[c][0] != "num":
            raise CapkitError(f"cont_na column {c!r} is not numeric")
        codes = [codes] if np.isscalar(codes) or codes is None else list(codes)
        vals = []
        for code in codes:
            if code is None or (isinstance(code, float) and np.isnan(code)):
                continue  # NA is always a special value
            if not (data[c] == code).any():
                raise CapkitError(f"cont_na value {code!r} of column {c!r} does not occur in data")
            vals.append(float(code))
        cont_codes[c] = sorted(set(vals))

    # ---- original columns as codes / floats, with NAtemp (spec 2.5) -------------------------
    kind, levels, values = {}, {}, {}
    for c in cols:
        kd, lev = kinds[c]
        s = data[c]
        if kd == "cat":
            codes = pd.Categorical(s, categories=lev).codes.astype(np.int64)
            if (codes < 0).any():
                lev = lev + [NATEMP]
                codes = np.where(codes < 0, len(lev) - 1, codes)
            kind[c], levels[c], values[c] = "cat", lev, codes.astype(float)
        else:
            x = pd.to_numeric(s).to_numpy(dtype=float, na_value=np.nan)
            kind[c], levels[c], values[c] = "num", [], x

    # ---- methods and predictors (spec 2.2-2.6) -----------------------------------------------
    meth = dict.fromkeys(cols, "")
    preds: dict[str, list[str]] = {c: [] for c in cols}
    for i, c in enumerate(visit):
        meth[c] = "sample" if i == 0 else "cart"
        preds[c] = list(visit[:i])
    in_pred = {c for c in cols if (preds[c] and meth[c] not in ("", "sample"))
               or any(c in preds[o] for o in cols)}
    num_as_cat: set[str] = set()
    for c in cols:  # single-valued numerics in prediction become categorical (minnumlevels=1)
        if kind[c] == "num" and c in in_pred:
            x = values[c]
            distinct = np.unique(x[~np.isnan(x)])
            if len(distinct) == 1 and np.isnan(x).any() and c not in cont_codes:
                num_as_cat.add(c)
                levels[c] = [distinct[0], NATEMP]
                kind[c] = "cat"
                values[c] = np.where(np.isnan(x), 1.0, 0.0)
    for c in cols:  # constants
        x = values[c]
        if kind[c] == "num":
            fin = x[~np.isnan(x)]
            const = len(fin) < 2 or fin.var(ddof=1) < 1000 * np.finfo(float).eps
            const = const and not (np.isnan(x).any() and len(fin) > 0)
        else:
            const = len(np.unique(x)) == 1
        if const and meth[c] != "":
            meth[c] = "constant"
        if const:
            for o in cols:
                if c in preds[o]:
                    preds[o].remove(c)
    for c in visit:
        if meth[c] == "cart" and not preds[c]:
            meth[c] = "sample"
    # collinear variables (spec 2.6.3)
    used = [c for c in visit if meth[c] not in ("", "constant")
            and (any(c in preds[o] for o in cols) or preds[c])]
    leader_of: dict[str, str] = {}
    if len(used) > 1:
        codes = np.column_stack([values[c] for c in used])
        corr = pd.DataFrame(codes).corr().to_numpy()
        for j in range(1, len(used)):
            for i in range(j):
                if used[i] in leader_of:
                    continue
                if np.isfinite(corr[i, j]) and abs(corr[i, j]) >= 0.99999:
                    leader_of[used[j]] = used[i]
                    break
        for c, lead in leader_of.items():
            meth[c] = "collinear"
            for o in cols:
                if c in preds[o]:
                    preds[o].remove(c)
            preds[c] = [lead]
    for c in cols:  # too many levels in a predictor
        if kind[c] == "cat" and len(levels[c]) > MAXFACLEVELS \
                and any(c in preds[o] for o in cols if meth[o] == "cart") \
                and meth[c] not in ("sample", "constant"):
            raise CapkitError(f"column {c!r} has {len(levels[c])} levels (> {MAXFACLEVELS}) and is "
                              "used as a predictor; group its levels or move it first in "
                              "visit_sequence")
    pred_matrix = pd.DataFrame(0, index=cols, columns=cols)
    for c in cols:
        for q in preds[c]:
            pred_matrix.loc[c, q] = 1
    if meth[visit[0]] == "sample" and len(visit) == 1:
        in_pred = set()

    # ---- working variables, with the two-step padding of numerics (spec 2.7) ----------------
    wvars: list[_Var] = []
    windex: dict[str, int] = {}
    xo_cols: list[np.ndarray] = []
    for c in cols:
        wvars.append(_Var(c, kind[c], len(levels[c]), meth[c], smoothing=smooth[c]))
        windex[c] = len(wvars) - 1
        xo_cols.append(values[c])
    padded: dict[str, dict] = {}
    for c in cols:
        if kind[c] != "num" or c not in in_pred or meth[c] in ("constant", "collinear", ""):
            continue
        x = values[c]
        codes_c = cont_codes.get(c, [])
        special = np.isin(x, codes_c) | np.isnan(x)
        if not special.any():
            continue
        fin = x[~np.isnan(x)]
        cv = 10.0 ** (len(str(int(np.round(fin.max())))) + 1) - 1 if len(fin) else 9.0
        present = sorted(set(x[np.isin(x, codes_c)].tolist()))
        lev: list = sorted(present + [cv])
        if np.isnan(x).any():
            lev.append(NATEMP)
        info = padded[c] = {"levels": lev, "cv_code": lev.index(cv)}
        # v.0 then v.NA, appended in data column order
        na_code = np.full(n, float(info["cv_code"]))
        for j, code in enumerate(lev):
            if code != NATEMP and j != info["cv_code"]:
                na_code[x == code] = j
        if lev[-1] == NATEMP:
            na_code[np.isnan(x)] = len(lev) - 1
        wvars.append(_Var(f"{c}.0", "num", 0, meth[c], smoothing=smooth[c]))
        info["zero"] = len(wvars) - 1
        xo_cols.append(np.where(special, 0.0, x))
        wvars.append(_Var(f"{c}.NA", "cat", len(lev), meth[c]))
        info["na"] = len(wvars) - 1
        xo_cols.append(na_code)
        wvars[info["zero"]].rule_var = info["na"]
        wvars[info["zero"]].rule_code = info["cv_code"]

    def expand(names: list[str]) -> list[int]:
        out = []
        for q in names:
            if q in padded:
                out += [padded[q]["zero"], padded[q]["na"]]
            else:
                out.append(windex[q])
        return sorted(out)

    steps: list[int] = []
    for c in visit:
        if c in padded:
            wn, wz = padded[c]["na"], padded[c]["zero"]
            wvars[wn].preds = expand(preds[c])
            wvars[wz].preds = expand(preds[c])
            steps += [wn, wz]
        else:
            wv = wvars[windex[c]]
            if meth[c] == "collinear":
                wv.leader = windex[leader_of[c]]
            else:
                wv.preds = expand(preds[c])
            steps.append(windex[c])
    Xo = np.column_stack(xo_cols)
    is_cat = np.array([v.kind == "cat" for v in wvars])
    nlev = np.array([v.nlev for v in wvars])

    # ---- synthesis (random draws in the order of spec 7.3) ----------------------------------
    if seed is None:
        seed = secrets.randbelow(10 ** 9) + 1
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise CapkitError(f"seed must be an integer or None, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    init_rows = np.arange(n) if k == n else rng.integers(0, n, size=k)
    from tqdm import tqdm

    out_frames = []
    bar = tqdm(total=m * len(steps), desc="syn", unit="var", disable=not progress)
    try:
        for _ in range(m):
            Xs = Xo[init_rows].copy()
            for w in steps:
                v = wvars[w]
                bar.set_postfix_str(v.name, refresh=False)
                _synthesise(v, w, Xo, Xs, is_cat, nlev, rng, minbucket, cp, proper,
                            max_exhaustive)
                bar.update(1)
            out_frames.append(_output(data, cols, kind, levels, num_as_cat, padded, Xs, windex,
                                      meth, init_rows, k))
    finally:
        bar.close()
    expanded = [(wvars[w].name, wvars[w].method, [wvars[q].name for q in wvars[w].preds])
                for w in steps]
    return SynResult(
        syn=out_frames, m=int(m), n=n, k=k, seed=int(seed), method=meth, visit_sequence=visit,
        predictor_matrix=pred_matrix,
        cont_na={c: (list(cont[c]) if not np.isscalar(cont[c]) else [cont[c]]) if c in cont
                 else None for c in cols},
        smoothing=smooth, proper=proper, expanded=expanded,
    )


def _synthesise(v: _Var, w: int, Xo: np.ndarray, Xs: np.ndarray, is_cat: np.ndarray,
                nlev: np.ndarray, rng: np.random.Generator, minbucket: int, cp: float,
                proper: bool, max_exhaustive: int) -> None:
    """Synthesise working variable ``w`` into ``Xs`` (in place)."""
    n, k = len(Xo), len(Xs)
    if v.method == "constant":
        col = Xo[:, w]
        if k <= n:
            Xs[:, w] = col[:k]
        else:
            vals, cnt = np.unique(col[~np.isnan(col)] if not is_cat[w] else col,
                                  return_counts=True)
            Xs[:, w] = np.concatenate([col, np.full(k - n, vals[np.argmax(cnt)])])
        return
    if v.method == "collinear":
        lead = v.leader
        first = pd.Index(Xo[:, lead]).drop_duplicates(keep="first")
        first_pos = pd.Series(np.arange(n), index=Xo[:, lead]).groupby(level=0, dropna=False
                                                                        ).first()
        idx = first.get_indexer(Xs[:, lead])
        src = first_pos.reindex(first[np.maximum(idx, 0)]).to_numpy()
        Xs[:, w] = np.where(idx >= 0, Xo[src.astype(np.int64), w], np.nan)
        return
    avail = np.ones(n, dtype=bool)
    target = np.ones(k, dtype=bool)
    if v.rule_var >= 0:
        avail = Xo[:, v.rule_var] == v.rule_code
        target = Xs[:, v.rule_var] == v.rule_code
        Xs[~target, w] = 0.0
    yo = Xo[avail, w]
    tgt = np.flatnonzero(target)
    if not len(tgt):
        return
    boot = rng.integers(0, len(yo), size=len(yo)) if proper else None
    method = v.method
    preds = np.array(v.preds, dtype=np.int64)
    x_fit = Xo[avail][:, preds] if method == "cart" else None
    if method == "cart":
        keep = _lindep(x_fit, yo)
        if not len(keep):
            warnings.warn(f"no usable predictor for {v.name!r}; sampled instead", stacklevel=3)
            method = "sample"
        else:
            preds = preds[keep]
            x_fit = x_fit[:, keep]
    if boot is not None:
        yo = yo[boot]
        if x_fit is not None:
            x_fit = x_fit[boot]
    if method == "sample":
        draw = yo[rng.integers(0, len(yo), size=len(tgt))]
        if v.smoothing and not is_cat[w]:
            draw = _smooth(draw, v.smoothing, yo)
        Xs[tgt, w] = draw
        return
    xp = Xs[np.ix_(tgt, preds)]
    pc = is_cat[preds]
    if is_cat[w]:
        classes, ycode = np.unique(yo.astype(np.int64), return_inverse=True)
        tree = _cart.fit(x_fit, pc, nlev[preds], ycode, True, n_classes=len(classes),
                         minbucket=minbucket, cp=cp, max_exhaustive=max_exhaustive)
        node = _cart.route(tree, xp, pc)
        counts = tree.counts[node]
        cum = np.cumsum(counts, axis=1)
        u = rng.random(len(tgt)) * cum[:, -1]
        cls = np.minimum((u[:, None] >= cum).sum(1), len(classes) - 1)
        Xs[tgt, w] = classes[cls]
        return
    tree = _cart.fit(x_fit, pc, nlev[preds], yo, False, minbucket=minbucket, cp=cp,
                     max_exhaustive=max_exhaustive)
    node = _cart.route(tree, xp, pc)
    stopped = np.unique(node[tree.left[node] >= 0])
    for s in stopped:  # one random descent per distinct stopping node (node order)
        cur = s
        while tree.left[cur] >= 0:
            cur = tree.left[cur] if rng.random() < 0.5 else tree.right[cur]
        node[node == s] = cur
    leaf_train = _cart.route(tree, x_fit, pc)
    order = np.argsort(leaf_train, kind="stable")
    donors = yo[order]
    sizes = np.bincount(leaf_train, minlength=len(tree.left))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    uniq, first = np.unique(node, return_index=True)
    appearance = np.empty(len(tree.left), dtype=np.int64)
    appearance[uniq[np.argsort(first)]] = np.arange(len(uniq))
    perm = np.argsort(appearance[node], kind="stable")  # leaf by leaf, first appearance
    leaves = node[perm]
    u = rng.integers(0, sizes[leaves])
    draw = np.empty(len(tgt))
    draw[perm] = donors[starts[leaves] + u]
    if v.smoothing:
        draw = _smooth(draw, v.smoothing, yo)
    Xs[tgt, w] = draw


def _output(data, cols, kind, levels, num_as_cat, padded, Xs, windex, meth, init_rows, k):
    """The synthetic working frame back to the input's columns, dtypes and levels (spec 2.10)."""
    out = {}
    for c in cols:
        s = data[c]
        if meth[c] == "":
            out[c] = s.iloc[init_rows].reset_index(drop=True)
            continue
        if c in padded:
            info = padded[c]
            na = Xs[:, info["na"]].astype(np.int64)
            lev = info["levels"]
            special = np.array([np.nan if lv == NATEMP else float(lv) for lv in lev])
            x = np.where(na == info["cv_code"], Xs[:, info["zero"]], special[na])
        else:
            x = Xs[:, windex[c]]
        if c in num_as_cat:
            x = np.where(x.astype(np.int64) == 1, np.nan, levels[c][0])
        if kind[c] == "cat" and c not in num_as_cat:
            codes = x.astype(np.int64)
            lev = levels[c]
            if lev and lev[-1] == NATEMP:
                codes = np.where(codes == len(lev) - 1, -1, codes)
                lev = lev[:-1]
            if isinstance(s.dtype, pd.CategoricalDtype):
                out[c] = pd.Series(pd.Categorical.from_codes(codes, dtype=s.dtype))
            else:
                arr = np.array(lev + [None], dtype=object)[codes]
                ser = pd.Series(arr, dtype=object)
                if pd.api.types.is_bool_dtype(s.dtype) and not (codes < 0).any():
                    ser = ser.astype(bool)
                elif not pd.api.types.is_bool_dtype(s.dtype) and s.dtype != object:
                    ser = ser.astype(s.dtype)
                out[c] = ser
        else:
            ser = pd.Series(x)
            try:
                out[c] = ser.astype(s.dtype) if not np.isnan(x).any() or s.hasnans else ser
            except (TypeError, ValueError):
                out[c] = ser
    frame = pd.DataFrame(out, columns=cols)
    frame.index = pd.RangeIndex(k)
    return frame
