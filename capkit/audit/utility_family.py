"""What each release is worth, beside what it discloses: the utility family of the custodian's
report and the risk-utility map across its releases.

For every synthesis, on the columns the report measures, compared with the original:

* the general utility of synthpop's ``utility.gen`` (Snoke, Raab, Nowok, Dibben & Slavkovic,
  "General and specific utility measures for synthetic data", 2018) with its default CART
  propensity model: pMSE, SPECKS, PO50, and S_pMSE from synthpop's permutation null
  (``nperms`` refits of the tree to permuted labels, :data:`NPERMS` by default, seeded;
  ``nperms=0``: no null, S_pMSE NA);
* the one- and two-way tables of synthpop's ``utility.tables`` (Raab, Nowok & Dibben,
  "Assessing, visualizing and improving the utility of synthetic data", 2021): each table's
  S_pMSE, the ``nworst`` that fit worst, and the mean S_pMSE over the two-way tables, the
  release's S_pMSE in the report and on the map; synthpop's reading (Raab et al. 2021): below
  10 good, below 3 very good;
* the k-marginal score of NIST's SDNist (``sdnist/metrics/kmarginal.py``; NIST CRC, "SDNist v2:
  Deidentified Data Report Tool"): ``(2 - mean over pairs of columns of the L1 distance between
  the two files' 2-way marginals) x 500``, 0 to 1000, higher is better. SDNist bins its ACS
  excerpts by its data dictionary; for arbitrary columns each column is coded as the tables
  code it (a category by its levels, a number by ``ngroups`` quantile groups, missing values as
  a level of their own) and the score is SDNist's on those codes
  (:func:`capkit.sdnist.kmarginal.kmarginal`, no PUMA).

Each number of the map's utility axis carries a standard error of the number as computed, and
the map an interval ``value +- 1.96 SE`` (cut at the measure's range):

* the CART S_pMSE = pMSE / m, m the mean of the ``nperms`` null values: its Monte Carlo error,
  from the null's standard deviation sd, by the delta method: ``SE = S_pMSE x (sd / sqrt(nperms))
  / m``;
* the mean two-way S_pMSE: the standard error of a mean over the T tables, ``sd over the tables
  / sqrt(T)`` (the tables share variables, so this reads how much the mean depends on which
  relations are counted, not a sampling error of independent parts);
* the k-marginal score: a seeded bootstrap over records (each file's coded records drawn with
  replacement, :data:`KMARGINAL_REPLICATES` times, the score recomputed exactly), SE = the
  replicates' standard deviation.

Each release is measured on its own (m = 1), as a separate candidate, not as one of m
syntheses of one model. :func:`release_map` puts the releases on Duncan, Keller-McNulty &
Stokes's risk-utility map ("Disclosure risk vs. data utility: the R-U confidentiality map",
2001) with :func:`capkit.utility.risk_utility_table`: the risk of one finding of the report
(by default the one with the worst verdict) against a utility measure, each release "flagged"
when that finding's verdict is not "not flagged".
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from capkit import utility
from capkit.audit.findings import Finding
from capkit.audit.verdicts import LEVELS, NOT_MEASURED, flag
from capkit.control import Z95
from capkit.data.coding import mismatches
from capkit.errors import CapkitError
from capkit.sdnist.kmarginal import kmarginal
from capkit.utility.one_table import code_variable
from capkit.utility.release_map import S_PMSE_GOOD, S_PMSE_VERY_GOOD

#: The utility axes of the map: the mean two-way S_pMSE and the CART propensity S_pMSE
#: (smaller is better), or the k-marginal score (higher).
UTILITY_AXES = ("S_pMSE", "S_pMSE (CART)", "k-marginal")

#: Permutations of the CART propensity model for its S_pMSE in the report: fewer than
#: synthpop's 50 to keep the report's cost a few seconds (on Adult, 23,258 records and three
#: syntheses, each permutation is one tree of about 0.1 s of CPU); the null's standard error
#: is printed beside S_pMSE, and ``nperms=50`` gives synthpop's.
NPERMS = 20

#: Bootstrap replicates of the k-marginal score for its standard error.
KMARGINAL_REPLICATES = 20



def reading(s_pmse: float) -> str:
    """synthpop's reading of an S_pMSE (Raab, Nowok & Dibben 2021): below 3 very good, below
    10 good, else poor."""
    if s_pmse is None or math.isnan(s_pmse):
        return "NA"
    if s_pmse < S_PMSE_VERY_GOOD:
        return "very good"
    return "good" if s_pmse < S_PMSE_GOOD else "poor"


@dataclass
class SynthesisUtility:
    """The utility of one release (every value as capkit.utility returns it, m = 1)."""

    pMSE: float
    S_pMSE_general: float
    SPECKS: float
    PO50: float
    separated: bool
    oneway: pd.DataFrame
    twoway: pd.DataFrame
    worst_oneway: pd.Series
    worst_twoway: pd.Series
    kmarginal: int
    kmarginal_exact: float
    warnings: list[str] = field(default_factory=list)
    #: The CART null: its mean and standard deviation, and the SE of S_pMSE_general.
    null_mean: float = float("nan")
    null_sd: float = float("nan")
    S_pMSE_general_se: float = float("nan")
    #: SE of the k-marginal score (bootstrap over records).
    kmarginal_se: float = float("nan")

    @property
    def S_pMSE_se(self) -> float:
        """SE of :attr:`S_pMSE`: the standard deviation over the tables / sqrt(tables)."""
        return tables_se((self.twoway if len(self.twoway) else self.oneway)["S_pMSE"])

    def interval(self, axis: str) -> tuple[float, float, float]:
        """(value, low, high) on a utility axis of the map: value +- 1.96 SE, cut at 0 (and
        at 1000 for the k-marginal score); NaN bounds where the SE is NaN."""
        value, se, top = {"S_pMSE": (self.S_pMSE, self.S_pMSE_se, np.inf),
                          "S_pMSE (CART)": (self.S_pMSE_general, self.S_pMSE_general_se,
                                            np.inf),
                          "k-marginal": (float(self.kmarginal), self.kmarginal_se, 1000.0)}[axis]
        return (float(value), float(max(value - Z95 * se, 0.0)),
                float(min(value + Z95 * se, top)))

    @property
    def S_pMSE(self) -> float:
        """The release's S_pMSE: the mean over its two-way tables (one-way with one column)."""
        tabs = self.twoway if len(self.twoway) else self.oneway
        return float(tabs["S_pMSE"].mean())


@dataclass
class UtilityFamily:
    """The utility of every release of an audit."""

    releases: dict[str, SynthesisUtility]
    columns: list[str]
    nworst: int
    nperms: int
    ngroups: int
    seconds: float = 0.0
    seed: int = 0

    def table(self) -> pd.DataFrame:
        """One row per release: pMSE (CART), S_pMSE of the CART model (NA without
        permutations) and its SE, the mean one- and two-way S_pMSE and the SE of the two-way
        mean, its reading, the k-marginal score and its bootstrap SE."""
        rows = {n: {"pMSE": u.pMSE, "S_pMSE (CART)": u.S_pMSE_general,
                    "SE (CART)": u.S_pMSE_general_se,
                    "S_pMSE 1-way": float(u.oneway["S_pMSE"].mean()),
                    "S_pMSE 2-way": (float(u.twoway["S_pMSE"].mean()) if len(u.twoway)
                                     else np.nan),
                    "SE (2-way)": u.S_pMSE_se if len(u.twoway) else np.nan,
                    "reading": reading(u.S_pMSE), "k-marginal": float(u.kmarginal),
                    "SE (k-marginal)": u.kmarginal_se}
                for n, u in self.releases.items()}
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("synthesis")

    def to_dict(self) -> dict[str, object]:
        """Plain values for the JSON document."""
        return {"columns": self.columns, "nworst": self.nworst, "nperms": self.nperms,
                "seed": self.seed, "ngroups": self.ngroups,
                "kmarginal_replicates": KMARGINAL_REPLICATES, "releases": {
                    n: {"pMSE": u.pMSE, "S_pMSE_general": u.S_pMSE_general,
                        "S_pMSE_general_se": u.S_pMSE_general_se, "null_pMSE_mean": u.null_mean,
                        "null_pMSE_sd": u.null_sd, "S_pMSE_se": u.S_pMSE_se,
                        "k_marginal_se": u.kmarginal_se,
                        "SPECKS": u.SPECKS, "PO50": u.PO50, "separated": u.separated,
                        "S_pMSE": u.S_pMSE, "reading": reading(u.S_pMSE),
                        "k_marginal": u.kmarginal, "k_marginal_exact": u.kmarginal_exact,
                        "worst_oneway": u.worst_oneway.to_dict(),
                        "worst_twoway": u.worst_twoway.to_dict(), "warnings": u.warnings}
                    for n, u in self.releases.items()}}


def check_columns(original: pd.DataFrame, synthetic: pd.DataFrame, name: str) -> None:
    """The release must have the original's columns: a column in one file only is an error
    naming it."""
    only_o = [c for c in original.columns if c not in synthetic.columns]
    only_s = [c for c in synthetic.columns if c not in original.columns]
    if only_o or only_s:
        parts = ([f"column(s) {only_o} of the original are not in {name}"] if only_o else []) + (
            [f"column(s) {only_s} of {name} are not in the original"] if only_s else [])
        raise CapkitError("; ".join(parts) + ": utility compares the same columns")


def tables_se(values: pd.Series) -> float:
    """Standard error of a mean over tables: ``sd (ddof 1) / sqrt(tables)``; NaN for fewer
    than two tables."""
    v = np.asarray(values, dtype=float)
    return float(np.std(v, ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")


def null_se(s_pmse: float, null_mean: float, null_sd: float, nperms: int) -> float:
    """Monte Carlo standard error of S_pMSE = pMSE / m, m the mean of ``nperms`` null values
    with standard deviation ``null_sd``: ``S_pMSE x (null_sd / sqrt(nperms)) / m`` (delta
    method); NaN without a null or with one permutation."""
    if nperms < 2 or not (null_mean > 0):
        return float("nan")
    return float(s_pmse * null_sd / np.sqrt(nperms) / null_mean)


def _coded(original: pd.DataFrame, synthetic: pd.DataFrame, columns: Sequence[str],
           ngroups: int) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    coded = [code_variable(original, [synthetic], c, ngroups=ngroups, codes=(), useNA=True,
                           compat=None) for c in columns]
    target = np.column_stack([k.original + 1 for k in coded]).astype(np.int64)
    deid = np.column_stack([k.syntheses[0] + 1 for k in coded]).astype(np.int64)
    # neutral feature names: a user's column called PUMA is not SDNist's PUMA
    return target, deid, tuple(f"f{j}" for j in range(len(columns)))


def general_kmarginal(original: pd.DataFrame, synthetic: pd.DataFrame, columns: Sequence[str],
                      ngroups: int = 5) -> tuple[int, float]:
    """SDNist's k-marginal score (its integer, and the exact value as a float) of
    ``synthetic`` against ``original`` on ``columns``, each coded as synthpop's tables code it
    (numbers in ``ngroups`` quantile groups, missing values a level)."""
    target, deid, names = _coded(original, synthetic, columns, ngroups)
    score = kmarginal(target, deid, names)
    return score.score, float(score.exact)


def kmarginal_bootstrap(original: pd.DataFrame, synthetic: pd.DataFrame,
                        columns: Sequence[str], ngroups: int = 5,
                        replicates: int = KMARGINAL_REPLICATES, seed: int = 0) -> np.ndarray:
    """The k-marginal score (exact, as floats) of ``replicates`` bootstrap replicates: the
    records of each file, coded once as :func:`general_kmarginal` codes them, drawn with
    replacement (``numpy.random.default_rng(seed)``: the original's draw, then the
    synthesis', replicate after replicate)."""
    return _bootstrap(*_coded(original, synthetic, columns, ngroups), replicates, seed)


def _bootstrap(target: np.ndarray, deid: np.ndarray, names: tuple[str, ...], replicates: int,
               seed: int) -> np.ndarray:
    """:func:`kmarginal_bootstrap` on records already coded (:func:`_coded`)."""
    rng = np.random.default_rng(seed)
    out = np.empty(int(replicates))
    for b in range(int(replicates)):  # replicates, not records: each is one compiled count
        it = rng.integers(0, len(target), len(target))
        ids = rng.integers(0, len(deid), len(deid))
        out[b] = float(kmarginal(target[it], deid[ids], names).exact)
    return out


def measure(original: pd.DataFrame, named: Mapping[str, pd.DataFrame], *, nworst: int = 5,
            nperms: int = NPERMS, seed: int = 0, ngroups: int = 5) -> UtilityFamily:
    """The utility of every release in ``named`` against ``original`` (frames not modified).

    ``nperms`` refits of the CART propensity model to permuted labels give its S_pMSE (0:
    none, S_pMSE NA); ``seed`` seeds them and the k-marginal bootstrap.

    Raises
    ------
    CapkitError
        A release whose columns differ from the original's (naming the column), and the
        errors of :mod:`capkit.utility`.
    """
    start = time.perf_counter()
    columns = list(original.columns)
    out: dict[str, SynthesisUtility] = {}
    for name, frame in named.items():
        check_columns(original, frame, f"synthesis {name!r}")
        frame = frame[columns]
        gen = utility.gen(frame, original, method="cart",
                          resamp_method="perm" if nperms > 0 else "none",
                          nperms=max(int(nperms), 1), seed=seed)
        one = utility.tables(frame, original, tables="oneway", nworst=nworst, ngroups=ngroups)
        two = (utility.tables(frame, original, tables="twoway", nworst=nworst, ngroups=ngroups)
               if len(columns) > 1 else None)
        coded = _coded(original, frame, columns, ngroups)  # once: the score and its bootstrap
        score = kmarginal(*coded)
        km, exact = score.score, float(score.exact)
        boot = _bootstrap(*coded, KMARGINAL_REPLICATES, seed)
        s_gen = float(gen.S_pMSE[0])
        mean, sd = float(gen.null_pMSE_mean[0]), float(gen.null_pMSE_sd[0])
        out[name] = SynthesisUtility(
            pMSE=float(gen.pMSE[0]), S_pMSE_general=s_gen,
            SPECKS=float(gen.SPECKS[0]), PO50=float(gen.PO50[0]),
            separated=bool(gen.separated[0]), oneway=one.tabs,
            twoway=two.tabs if two is not None else pd.DataFrame(columns=one.tabs.columns),
            worst_oneway=one.worstn,
            worst_twoway=two.worstn if two is not None else pd.Series(dtype=float),
            kmarginal=km, kmarginal_exact=exact, null_mean=mean, null_sd=sd,
            S_pMSE_general_se=null_se(s_gen, mean, sd, nperms),
            kmarginal_se=float(np.std(boot, ddof=1)),
            warnings=_coding_warnings(original, frame, columns, name) + sorted(
                set(list(gen.get("warnings", [])) + list(one.warnings)
                    + (list(two.warnings) if two is not None else []))))
    return UtilityFamily(out, columns, int(nworst), int(nperms), int(ngroups),
                         time.perf_counter() - start, int(seed))


def _coding_warnings(original: pd.DataFrame, frame: pd.DataFrame, columns: list[str],
                     name: str) -> list[str]:
    """The columns the release codes differently from the original, by the rule of the report
    and the disclosure commands (:func:`capkit.data.coding.mismatches`), said for utility: a
    code written off the original's values (an age class 25.1 for 22 or 27) is a cell of its
    own in the one- and two-way tables, so their S_pMSE measures the coding, not the fit."""
    return [f"{m.text()}. For utility: the one- and two-way tables put those values in cells "
            f"the original does not have, so the S_pMSE of the tables with {m.column!r} "
            "measures the coding, not the fit"
            for m in mismatches(original, frame, columns, name=f"synthesis {name!r}")]


def _label(f: Finding) -> str:
    return f"{f.family}: {f.measure} ({f.subject})"


def risk_axis(findings: Sequence[Finding], syntheses: Sequence[str], measure: str | None = None
              ) -> tuple[str, dict[str, tuple[float, float, float]], dict[str, str]]:
    """The map's risk axis: one finding of the report, in every release.

    By default the finding (family, measure, subject) with the worst verdict over the releases,
    ties by the largest risk, then by the report's order; ``measure`` names another: a label
    ``"family: measure (subject)"``, ``"measure (subject)"`` or a measure's name (its worst
    subject). Returns the label, release -> (risk, low, high) in percent (NaN where the
    release lacks it) and release -> that finding's verdict.
    """
    judged = [f for f in findings if f.risk is not None and f.unit == "%"
              and not (isinstance(f.risk, float) and math.isnan(f.risk))]
    if measure is not None:
        wanted = measure.strip()
        judged = [f for f in judged if wanted in (_label(f), f.measure,
                                                  f"{f.measure} ({f.subject})")]
        if not judged:
            known = sorted({f.measure for f in findings if f.risk is not None})
            raise CapkitError(f"--map-risk {measure!r} names no finding with a risk; measures "
                              f"with one: {known}")
    if not judged:
        raise CapkitError("no finding of the report has a risk: the map needs one")
    best = min(range(len(judged)),
               key=lambda j: (LEVELS.index(judged[j].verdict), -float(judged[j].risk), j))
    label = _label(judged[best])
    risk: dict[str, tuple[float, float, float]] = {}
    verdict: dict[str, str] = {}
    for name in syntheses:
        mine = [f for f in judged if f.synthesis == name and _label(f) == label]
        if mine:
            f = mine[0]
            low = np.nan if f.risk_low is None else float(f.risk_low)
            high = np.nan if f.risk_high is None else float(f.risk_high)
            risk[name], verdict[name] = (float(f.risk), low, high), f.verdict
        else:
            risk[name], verdict[name] = (np.nan, np.nan, np.nan), NOT_MEASURED
    return label, risk, verdict


def release_map(family: UtilityFamily, findings: Sequence[Finding], syntheses: Sequence[str], *,
                risk_measure: str | None = None, axis: str = "S_pMSE") -> pd.DataFrame:
    """The risk-utility table of the releases (:func:`capkit.utility.risk_utility_table`):
    the risk of :func:`risk_axis`'s finding (with its 95% interval) against ``axis`` with the
    95% interval of :meth:`SynthesisUtility.interval` (S_pMSE: the mean two-way S_pMSE;
    "S_pMSE (CART)": the propensity S_pMSE from the permutation null; both useful below 10;
    k-marginal: SDNist's score, no threshold, so no release is called useful or not).
    ``flagged``: whether that finding's verdict in the release flags it, by the report's rule
    (:func:`capkit.audit.verdicts.flag`: True for disclosive or review, False for not flagged,
    None where it is not measured); the region follows ("flagged", "not flagged" or "not
    measured", then useful or not; ``verdict`` column: the verdict itself). A release whose
    finding is not measured is left off the Pareto front and does not push others off it: its
    risk (understated, or missing) cannot show it safer than another."""
    if axis not in UTILITY_AXES:
        raise CapkitError(f"the map's utility axis must be one of {UTILITY_AXES}, got {axis!r}")
    label, risk, verdict = risk_axis(findings, syntheses, risk_measure)
    names = [n for n in syntheses if n in family.releases]
    values = {n: family.releases[n].interval(axis) for n in names}
    if axis == "S_pMSE (CART)" and family.nperms < 1:
        raise CapkitError("the map's utility axis 'S_pMSE (CART)' needs permutations "
                          "(nperms > 0)")
    named_as = {"S_pMSE": "S_pMSE (mean of the 2-way tables)",
                "S_pMSE (CART)": "S_pMSE (CART propensity)", "k-marginal": "k-marginal score"}
    higher = axis == "k-marginal"
    table = utility.risk_utility_table({n: risk[n] for n in names}, values,
                                       risk_name=f"{label} risk (%)",
                                       utility_name=named_as[axis],
                                       higher_utility_is_better=higher,
                                       **({"utility_limit": None} if higher else {}))
    words = np.array([flag(verdict[n]) for n in names])
    measured = words != NOT_MEASURED
    if not measured.all():  # the front of the measured releases only
        badness = table["utility"].to_numpy(float)
        table["pareto"] = utility.pareto_front(
            np.where(measured, table["risk"].to_numpy(float), np.nan),
            -badness if higher else badness)
    table["flagged"] = [None if w == NOT_MEASURED else bool(w == "flagged") for w in words]
    table["verdict"] = [verdict[n] for n in names]
    if not higher:
        useful = table["useful"].to_numpy(bool)
        region = np.char.add(words, np.where(useful, ", useful", ", not useful"))
        table["region"] = np.where(region == "not flagged, useful", "not flagged and useful",
                                   region)
    else:
        table["useful"] = None
        table["region"] = words
    table.attrs.update(risk_measure=label, axis=axis)
    return table


__all__ = ["KMARGINAL_REPLICATES", "NPERMS", "UTILITY_AXES", "Z95", "SynthesisUtility",
           "UtilityFamily", "check_columns", "general_kmarginal", "kmarginal_bootstrap",
           "measure", "null_se", "reading", "release_map", "risk_axis", "tables_se"]
