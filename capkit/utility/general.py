"""synthpop's ``utility.gen``: general utility of syntheses from a propensity-score model.

Snoke, Raab, Nowok, Dibben & Slavkovic, "General and specific utility measures for synthetic
data" (J. R. Statist. Soc. A, 2018), and synthpop 1.9-2's ``utility.gen``. For each synthesis
the model of :mod:`capkit.utility.propensity` is fitted to it stacked on the original and
pMSE, SPECKS, PO50 and U are read from the scores. The standardised ``S_pMSE`` divides pMSE by
its expectation under the hypothesis that both files come from one distribution:

* logit, ``resamp_method=None``: ``(k - 1)(1 - c)^2 c / N`` with k - 1 the model's non-aliased
  coefficients minus one (Snoke et al. 2018, section 3.2);
* ``"perm"`` (CART's default): the mean over ``nperms`` refits to permuted labels of
  ``sum((p - c)^2) / N / 2`` (synthpop halves the permutation pMSE: a permuted fit compares two
  halves of the same stacked data, where a synthesis is compared with the data it was fitted
  to, Snoke et al. 2018, section 3.3);
* ``"pairs"`` (m > 1): the same model fitted to every pair of syntheses;
  ``S_x = x * 2 / mean(null x)`` for pMSE, SPECKS, PO50 and U;
* ``"none"``: no standardisation (NA).

The permutations draw from ``numpy.random.default_rng(seed)``: R's Mersenne-Twister stream
(``sample()`` interleaved with rpart's cross-validation draws) is not replayed, so S_pMSE from
permutations agrees with synthpop's within the spread of the null values, not digit for digit.
Everything else (the fits, pMSE, SPECKS, PO50, U, the logit S_pMSE) is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from capkit import processes
from capkit.errors import CapkitError
from capkit.utility import glm, inputs
from capkit.utility.grouping import group_num
from capkit.utility.propensity import (
    cart_null_pmse,
    cart_scores,
    logit_scores,
    score_stats,
    stack,
)
from capkit.utility.result import UtilityResult

#: The level missing values of a factor become (R's addNA).
NA_LEVEL = "<NA>"


def _distinct(series: pd.Series) -> int:
    return int(series.dropna().nunique())


def _factor(series: pd.Series) -> pd.Series:
    """R's ``factor(x)`` of a factor: unused levels dropped, order and orderedness kept."""
    return series.cat.remove_unused_categories()


def _add_na(series: pd.Series) -> pd.Series:
    """R's ``addNA``: missing values become the last level."""
    s = series.cat.add_categories([NA_LEVEL]) if NA_LEVEL not in series.cat.categories \
        else series
    return s.fillna(NA_LEVEL)


def prepare(original: pd.DataFrame, frames: list[pd.DataFrame], names: list[str],
            codes: dict[str, tuple[float, ...]], ngroups: int | None, compat: str | None
            ) -> tuple[pd.DataFrame, list[pd.DataFrame], list[str]]:
    """synthpop's preparation of the files for the propensity model (copies; inputs kept).

    Returns the original and the syntheses with factors re-levelled, missing values coded and
    the indicator columns ``<v>_NA`` and ``<v>_cna_<j>`` appended, and the columns excluded
    because they hold a single value (or none) in the original and the first synthesis.
    """
    data = original[names].copy()
    syns = [f[names].copy() for f in frames]
    for v in names:
        if not inputs.is_numeric(data[v]):
            data[v] = pd.Series(inputs.as_categorical(data[v]), index=data.index)
            for s in syns:
                s[v] = pd.Series(inputs.as_categorical(s[v]), index=s.index)
        else:
            data[v] = data[v].astype(float)
            for s in syns:
                s[v] = s[v].astype(float)
    excluded = [v for v in names if _distinct(data[v]) <= 1 and _distinct(syns[0][v]) <= 1]
    kept = [v for v in names if v not in excluded]
    if not kept:
        raise CapkitError(f"every column ({names}) holds a single value or none in both files: "
                          "nothing to compare")
    data = data[kept]
    syns = [s[kept] for s in syns]
    for v, c in codes.items():
        if v in kept and inputs.is_numeric(data[v]):
            absent = [x for x in c if not (data[v] == x).any()]
            if absent:
                raise CapkitError(f"cont_na[{v!r}]: code(s) {absent} do not occur in the "
                                  "original (synthpop stops here)")
    numvars = [v for v in kept if inputs.is_numeric(data[v])]
    if ngroups is not None:
        data0 = data.copy()
        allsyn = {v: np.concatenate([s[v].to_numpy() for s in syns]) for v in numvars}
        for v in numvars:
            use = codes.get(v, ())
            for s in syns:
                xsyn = s[v].to_numpy() if len(syns) == 1 else allsyn[v]
                g1, g2 = group_num(data0[v].to_numpy(), s[v].to_numpy(), xsyn, ngroups,
                                   codes=use)
                data[v] = pd.Series(g1, index=data.index)
                s[v] = pd.Series(g2, index=s.index)
    for v in kept:
        if isinstance(data[v].dtype, pd.CategoricalDtype):
            data[v] = _factor(data[v])
            for s in syns:
                s[v] = _factor(s[v])
            na_o = bool(data[v].isna().any())
            na_s = any(s[v].isna().any() for s in syns)
            if na_s and not na_o and compat == "synthpop":
                raise CapkitError(f"column {v!r}: the synthetic data have missing values and "
                                  "the original none; synthpop would hand them to the model as "
                                  "missing (rpart's surrogate splits), not reproduced")
            if na_o or na_s:
                data[v] = _add_na(data[v])
                for s in syns:
                    s[v] = _add_na(s[v])
    if ngroups is None:
        for v in numvars:
            na_o = bool(data[v].isna().any())
            na_s = any(s[v].isna().any() for s in syns)
            if na_s and not na_o and compat == "synthpop":
                raise CapkitError(f"column {v!r}: the synthetic data have missing values and "
                                  "the original none (synthpop would drop those records "
                                  "from the model)")
            frames_all = [data, *syns]
            if na_o or na_s:
                for f in frames_all:
                    miss = f[v].isna()
                    f[f"{v}_NA"] = miss.astype(float)
                    f[v] = f[v].where(~miss, 0.0)
            for j, code in enumerate(codes.get(v, ()), start=1):
                for f in frames_all:
                    hit = f[v] == code
                    f[f"{v}_cna_{j}"] = hit.astype(float)
                    f[v] = f[v].where(~hit, 0.0)
    return data, syns, excluded


def _levels_for_count(frame: pd.DataFrame) -> list[int]:
    return [len(frame[c].cat.categories) if isinstance(frame[c].dtype, pd.CategoricalDtype)
            else 0 for c in frame.columns]


class _Model:
    """One propensity model's settings, applied to a synthesis against a reference file."""

    def __init__(self, method: str, maxorder: int, cp: float, minbucket: int, maxit: int,
                 k_syn: bool, compat: str | None = None) -> None:
        self.method, self.maxorder, self.cp = method, maxorder, cp
        self.minbucket, self.maxit, self.k_syn = minbucket, maxit, k_syn
        self.compat = compat

    def scores(self, frame: pd.DataFrame, t: np.ndarray) -> tuple[np.ndarray, Any, int]:
        if self.method == "cart":
            score, tree = cart_scores(frame, t, self.cp, self.minbucket)
            return score, tree, -1
        score, fit = logit_scores(frame, t, self.maxorder, self.maxit, self.compat)
        return score, fit, fit["rank"] - 1

    def null(self, frame: pd.DataFrame, labels: list[np.ndarray], cc: float, workers: int
             ) -> np.ndarray:
        """The model refitted to each label vector: ``sum((p - c)^2) / N / 2`` of each."""
        if self.method == "cart":
            return cart_null_pmse(frame, labels, cc, self.cp, self.minbucket, workers)
        return np.array([np.sum((self.scores(frame, t)[0] - cc) ** 2) / len(t) / 2
                         for t in labels])

    def run(self, syn: pd.DataFrame, ref: pd.DataFrame) -> dict[str, Any]:
        n1, n2 = len(ref), len(syn)
        frame = stack(syn, ref)
        t = np.r_[np.ones(n2, dtype=np.int64), np.zeros(n1, dtype=np.int64)]
        cc = 0.5 if self.k_syn else n2 / (n1 + n2)
        score, fit, km1 = self.scores(frame, t)
        out = score_stats(score, t.astype(bool), cc)
        out.update(score=score, fit=fit, km1=km1 + (1 if self.k_syn else 0), frame=frame, t=t,
                   cc=cc)
        return out


def gen(synthetic: Any, original: pd.DataFrame, *, method: str = "cart", maxorder: int = 1,
        k_syn: bool = False, tree_method: str = "rpart", max_params: int = 400,
        resamp_method: str | None = None, nperms: int = 50, cp: float = 1e-3,
        minbucket: int = 5, vars: Sequence[str] | None = None, maxit: int = 200,
        ngroups: int | None = None, cont_na: Mapping[str, Any] | None = None,
        seed: int | None = 0, compat: str | None = None, workers: int | None = None
        ) -> UtilityResult:
    """synthpop's ``utility.gen(synthetic, original, ...)``: propensity-score utility.

    Parameters
    ----------
    synthetic
        A DataFrame or a list of m DataFrames.
    original
        The original data; the columns of the syntheses (or ``vars``) must be in it.
    method
        ``"cart"`` (rpart classification tree, ``cp``, ``minbucket``) or ``"logit"``
        (main effects and interactions up to ``maxorder`` + 1 variables).
    max_params
        A logit model with more parameters is refused, as synthpop refuses it.
    resamp_method
        None (CART: "perm"; logit: the analytic expectation), ``"perm"``, ``"pairs"`` (m > 1)
        or ``"none"``.
    nperms
        Permutations for ``"perm"``.
    k_syn
        Synthetic share taken as 0.5 and one more degree of freedom (syntheses of k = n
        records).
    ngroups
        Group numeric variables first (as :func:`capkit.utility.one_table` does).
    cont_na
        {column: [codes]}: codes of a numeric column that mean "missing": an indicator column
        each, the value set to 0.
    seed
        Seed of the permutations (numpy's generator).
    workers
        Threads the permutation refits of the CART model run on (None: the cores this
        process may use); the values do not depend on it.
    compat
        None, or ``"synthpop"`` to reproduce synthpop's quirks (docs/synthpop-differences.md);
        for ``method="logit"`` it fits the model with R's own arithmetic
        (:func:`capkit.utility.glm_r.fit_logit_r`), which reproduces R's fit also where its
        iterations leave the maximum likelihood (flagged in ``warnings``).

    Returns
    -------
    UtilityResult
        ``pMSE S_pMSE SPECKS S_SPECKS PO50 S_PO50 U S_U`` (one value per synthesis), ``df``
        (logit), ``nnosplits``, ``null`` (the simulated null values with their mean and sd),
        ``null_pMSE_mean`` and ``null_pMSE_sd`` (per synthesis: the null distribution's mean,
        by which S_pMSE divides, and its sd; NaN with ``resamp_method="none"``),
        ``scores``, ``fits``, ``excluded`` (single-valued columns), ``separated`` (per
        synthesis: the model puts every record on its own side, so pMSE is at its maximum
        c(1 - c)^2 + (1 - c)c^2 = c(1 - c): the files are told apart perfectly; this is the
        answer, not a failure) and ``warnings``.
    """
    inputs.check_compat(compat)
    frames = inputs.syntheses(synthetic)
    original = inputs.original_frame(original)
    m = len(frames)
    if method not in ("cart", "logit"):
        raise CapkitError(f"method must be 'cart' or 'logit', got {method!r}")
    if tree_method != "rpart":
        raise CapkitError(f"tree_method must be 'rpart' (party's ctree is not implemented), "
                          f"got {tree_method!r}")
    if resamp_method not in (None, "perm", "pairs", "none"):
        raise CapkitError("resamp_method must be None, 'perm', 'pairs' or 'none', got "
                          f"{resamp_method!r}")
    if resamp_method == "pairs" and m == 1:
        raise CapkitError("resamp_method='pairs' needs m > 1 syntheses (10 suggested)")
    if k_syn and resamp_method == "pairs":
        raise CapkitError("resamp_method='pairs' gives the wrong answer when k_syn is True")
    if int(nperms) < 1:
        raise CapkitError(f"nperms must be at least 1, got {nperms}")
    names = inputs.select_vars(frames, original, vars)
    inputs.check_types(frames, original, names)
    codes = inputs.cont_na_codes(cont_na, original)
    data, syns, excluded = prepare(original, frames, names, codes, ngroups, compat)
    if resamp_method is None and method == "cart":
        resamp_method = "perm"
    if method == "logit":
        if maxorder >= data.shape[1]:
            raise CapkitError(f"maxorder ({maxorder}) must be below the number of variables "
                              f"({data.shape[1]})")
        nparams = glm.n_params(_levels_for_count(data), maxorder)
        if nparams > max_params:
            raise CapkitError(
                f"the logit model would have {nparams} parameters, more than max_params = "
                f"{max_params} (synthpop stops here): choose fewer variables with vars=, a "
                "lower maxorder, or raise max_params")
    model = _Model(method, int(maxorder), float(cp), int(minbucket), int(maxit), bool(k_syn),
                   compat)
    rng = np.random.default_rng(seed)
    workers = processes.cores() if workers is None else max(1, int(workers))
    keys = ("pMSE", "SPECKS", "PO50", "U")
    res: dict[str, list] = {k: [] for k in keys}
    s_vals = {f"S_{k}": [np.nan] * m for k in keys}
    scores, fits, separated, nulls, nnosplits = [], [], [], [], []
    warnings: list[str] = []
    null_mean, null_sd = np.full(m, np.nan), np.full(m, np.nan)
    df = np.nan
    for j, syn in enumerate(syns):
        run = model.run(syn, data)
        for k in keys:
            res[k].append(run[k])
        scores.append(run["score"])
        fits.append(run["fit"])
        separated.append(bool(np.max(np.abs(run["score"] - run["t"])) < 1e-6))
        if method == "logit" and glm.above_null(run["fit"]["deviance"], run["t"]):
            warnings.append(f"synthesis {j + 1}: the logit fit's deviance "
                            f"({run['fit']['deviance']:.6g}) is above the null deviance "
                            f"({glm.null_deviance(run['t']):.6g}): the IRLS iterations left the "
                            "maximum likelihood (R's glm does so on some large models; "
                            "compat='synthpop' reproduces it) and the scores mean little")
        if method == "logit" and resamp_method in (None, "none"):
            df = run["km1"]
        if resamp_method is None:  # logit: the expectation
            expect = run["km1"] * (1 - run["cc"]) ** 2 * run["cc"] / len(run["t"])
            s_vals["S_pMSE"][j] = run["pMSE"] / expect
            # Snoke et al. (2018): pMSE / ((1 - c)^2 c / N) ~ chi-square on k - 1 df
            null_mean[j], null_sd[j] = expect, expect * np.sqrt(2.0 / run["km1"])
        elif resamp_method == "perm":
            labels = [rng.permutation(run["t"]) if not k_syn else
                      rng.binomial(1, 0.5, len(run["t"])) for _ in range(int(nperms))]
            sim = model.null(run["frame"], labels, run["cc"], workers)
            nulls.append({"simpMSE": sim, "mean": float(sim.mean()),
                          "sd": float(sim.std(ddof=1)) if len(sim) > 1 else np.nan})
            null_mean[j], null_sd[j] = nulls[-1]["mean"], nulls[-1]["sd"]
            nnosplits.append([int((sim < 1e-8).sum()), len(sim)])
            s_vals["S_pMSE"][j] = run["pMSE"] / sim.mean()
    if resamp_method == "pairs":
        sims: dict[str, list[float]] = {k: [] for k in keys}
        for j in range(m):
            for jj in range(j + 1, m):
                pair = model.run(syns[j], syns[jj])
                for k in keys:
                    sims[k].append(pair[k])
        null_of = {k: k for k in keys}
        if compat == "synthpop":
            null_of["PO50"] = "SPECKS"  # synthpop copies the null SPECKS into simPO50
        for k in keys:
            mean = float(np.mean(sims[null_of[k]]))
            s_vals[f"S_{k}"] = list(np.asarray(res[k]) * 2 / mean)
        nulls.append({f"sim{k}": np.asarray(sims[null_of[k]]) for k in keys})
        for k in keys:
            nulls[0][f"mean_{k}"] = float(np.mean(sims[null_of[k]]))
            nulls[0][f"sd_{k}"] = float(np.std(sims[null_of[k]], ddof=1)) \
                if len(sims[k]) > 1 else np.nan
        # the pairs compare two syntheses, so their pMSE is twice a synthesis' null (synthpop)
        null_mean[:] = nulls[0]["mean_pMSE"] / 2
        null_sd[:] = nulls[0]["sd_pMSE"] / 2
        nnosplits = [[int((np.asarray(sims["pMSE"]) < 1e-8).sum()), len(sims["pMSE"])]]
    if excluded:
        warnings.append(f"columns with a single value or none in both files left out: "
                        f"{excluded}")
    if any(separated):
        warnings.append("the propensity model separates the files perfectly for synthesis "
                        f"{[i + 1 for i, s in enumerate(separated) if s]}: pMSE is at its "
                        "maximum, c(1 - c); every record is told apart (the answer, not an error)")
    out = UtilityResult({k: np.asarray(v, dtype=float) for k, v in res.items()})
    out.update({k: np.asarray(v, dtype=float) for k, v in s_vals.items()})
    out.update(m=m, method=method, tree_method=tree_method, resamp_method=resamp_method,
               maxorder=maxorder, vars=[v for v in names if v not in excluded], k_syn=k_syn,
               ngroups=ngroups, nperms=nperms, df=df, nnosplits=nnosplits, null=nulls,
               null_pMSE_mean=null_mean, null_pMSE_sd=null_sd,
               scores=scores, fits=fits, excluded=excluded,
               separated=np.asarray(separated), warnings=warnings)
    return out
