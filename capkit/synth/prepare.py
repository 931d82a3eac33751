"""The deterministic plan of a synthpop synthesis: types, methods, predictors, v.NA / v.0.

synthpop 1.9-2, ``R/syn.r``, ``R/padMis.syn.r`` and ``R/padModel.syn.r`` (spec sections 2.2-2.7):
the first visited variable is sampled, every later one predicted by those before it; character
and boolean columns are categorical, and a categorical column's missing values the extra level
"NAtemp"; single-valued columns are "constant", perfectly correlated ones "collinear"; a numeric
predictor with missing or special (``cont_na``) values becomes v.NA (a categorical indicator) and
v.0 (the ordinary values), in the data column order rpart sees. An ordered categorical stays
ordered: rpart splits it as a number (its level codes), as it does R's ordered factors.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.synth.smoothing import METHODS as SMOOTHING

NATEMP = "NAtemp"
MAXFACLEVELS = 60


@dataclass
class WorkVar:
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
    ordered: bool = False         # an ordered categorical (a number to rpart)


@dataclass
class Plan:
    """Everything about a synthesis that does not depend on the random draws."""

    cols: list[str]
    n: int
    k: int
    visit: list[str]
    kind: dict[str, str]
    levels: dict[str, list]
    num_as_cat: set[str]
    meth: dict[str, str]
    pred_matrix: pd.DataFrame
    padded: dict[str, dict]
    windex: dict[str, int]
    wvars: list[WorkVar]
    steps: list[int]
    Xo: np.ndarray
    is_cat: np.ndarray
    nlev: np.ndarray
    smooth: dict[str, str | None]
    cont: dict[str, Any]

    def expanded(self) -> list[tuple[str, str, list[str]]]:
        """(name, method, predictor names) per working variable, in visit order."""
        return [(self.wvars[w].name, self.wvars[w].method,
                 [self.wvars[q].name for q in self.wvars[w].preds]) for w in self.steps]


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


def check_args(data: Any, m: int, k: int | None, minbucket: int) -> None:
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


def plan(data: pd.DataFrame, k: int | None, visit_sequence: Any, cont_na: Any,
         smoothing: Any) -> Plan:
    """The plan of ``syn(data, ...)`` (spec 2.2-2.7); CapkitError on bad input."""
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
            if isinstance(s.dtype, pd.CategoricalDtype):  # lev is its categories, in order
                codes = s.array.codes.astype(np.int64)
            else:
                codes = pd.Categorical(s, categories=lev).codes.astype(np.int64)
            if (codes < 0).any():
                lev = lev + [NATEMP]
                codes = np.where(codes < 0, len(lev) - 1, codes)
            kind[c], levels[c], values[c] = "cat", lev, codes.astype(float)
        else:
            if isinstance(s.dtype, np.dtype):  # NaN is already its missing value
                x = s.to_numpy().astype(float)
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
    position = {c: i for i, c in enumerate(cols)}
    pm = np.zeros((len(cols), len(cols)), dtype=np.int64)
    for c in cols:
        pm[position[c], [position[q] for q in preds[c]]] = 1
    pred_matrix = pd.DataFrame(pm, index=cols, columns=cols)
    if meth[visit[0]] == "sample" and len(visit) == 1:
        in_pred = set()

    # ---- working variables, with the two-step padding of numerics (spec 2.7) ----------------
    wvars: list[WorkVar] = []
    windex: dict[str, int] = {}
    xo_cols: list[np.ndarray] = []
    for c in cols:
        ordered = (isinstance(data[c].dtype, pd.CategoricalDtype) and data[c].cat.ordered
                   and c not in num_as_cat)
        wvars.append(WorkVar(c, kind[c], len(levels[c]), meth[c], smoothing=smooth[c],
                             ordered=bool(ordered)))
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
        wvars.append(WorkVar(f"{c}.0", "num", 0, meth[c], smoothing=smooth[c]))
        info["zero"] = len(wvars) - 1
        xo_cols.append(np.where(special, 0.0, x))
        wvars.append(WorkVar(f"{c}.NA", "cat", len(lev), meth[c]))
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

    return Plan(cols=cols, n=n, k=k, visit=visit, kind=kind, levels=levels,
                num_as_cat=num_as_cat, meth=meth, pred_matrix=pred_matrix, padded=padded,
                windex=windex, wvars=wvars, steps=steps, Xo=Xo, is_cat=is_cat, nlev=nlev,
                smooth=smooth, cont=cont)
