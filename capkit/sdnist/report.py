"""SDNist's deidentified-data report, number for number: :func:`report`.

NIST CRC's SDNist 2.4 (usnistgov/SDNist; "SDNist v2: Deidentified Data Report Tool", 2023)
scores a deidentified file against one of NIST's Diverse Communities Data Excerpts with
``python -m sdnist.report deid.csv MA|TX|NATIONAL``. :func:`report` gives the same numbers, in
SDNist's order of computation, under the names SDNist's ``report.json`` uses:

* utility: the k-marginal score overall and per PUMA with the sub-sample baselines
  (:mod:`capkit.sdnist.kmarginal`), the propensity mean square error and its distribution
  (:mod:`capkit.sdnist.propensity`), the Kendall and Pearson correlation differences and the
  education-income regressions (:mod:`capkit.sdnist.correlation`);
* privacy: the unique exact matches and the apparent-match distribution
  (:mod:`capkit.sdnist.privacy`).

Left out: the univariate plots and their divergences, the PCA (its components are the
target's alone: nothing in them measures the deidentified file, which SDNist only projects for
a picture) and the inconsistency counts (edit rules on the deidentified file alone). SDNist 2.4
has no k-DiSCO; :func:`capkit.disclosure.sweep` gives SDNist 2.5's.

SDNist's random parts (the sub-samples, the propensity tree's tie-breaking) draw from numpy's
global ``RandomState``; ``seed`` is the value SDNist's process was seeded with, and the draws
are made in SDNist's order, so a report run after ``numpy.random.seed(seed)`` is reproduced
exactly. The deidentified file's own scores (k-marginal, unique exact matches, apparent
matches, correlations, regressions) do not depend on the seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from capkit.errors import CapkitError
from capkit.sdnist.correlation import correlation_differences, regressions
from capkit.sdnist.data import prepare
from capkit.sdnist.kmarginal import FRACTIONS, kmarginal, subsample_baselines
from capkit.sdnist.privacy import apparent_match, unique_exact_matches, unique_exact_matches_duckdb
from capkit.sdnist.propensity import pmse

__all__ = ["report"]


def _closest_fraction(scores: dict[int, int], score: int) -> int:
    """SDNist's sub-sampling equivalent: the first fraction whose score is closest."""
    errors = [abs(scores[i] - score) for i in FRACTIONS]
    return FRACTIONS[int(np.argmin(errors))]


def report(target: object, deid: object, *, seed: int = 0, baselines: bool = True,
           engine: str = "pandas", config: dict[str, Any] | None = None) -> dict[str, Any]:
    """SDNist 2.4's report numbers for ``deid`` scored against ``target``.

    Parameters
    ----------
    target, deid
        The paths of the two CSV (or Parquet) files, as ``python -m sdnist.report`` takes them
        (the target is one of NIST's excerpts, e.g. ``ma2019.csv``), or DataFrames as
        ``pandas.read_csv`` reads those files. Never modified.
    seed
        The seed of numpy's global ``RandomState`` in SDNist's run (the sub-sample baselines
        and the propensity tree's ties); 0 gives the numbers of a run after
        ``numpy.random.seed(0)``.
    baselines
        Compute the k-marginal sub-sample baselines (16 more k-marginal scores). Without them
        the propensity tree gets ``RandomState(seed)`` itself, so pMSE may differ from
        SDNist's in the last bits when the tree meets equally good splits.
    engine
        ``"pandas"`` or ``"duckdb"``: who counts the unique exact matches (DuckDB reads the
        files itself, for files past memory).
    config
        DuckDB settings for ``engine="duckdb"``.

    Returns
    -------
    dict
        ``k_marginal_score`` (int), ``k_marginal_score_in_each_puma`` (PUMA code -> int),
        ``unique_exact_matches`` (SDNist's four figures under its labels), ``apparent_match``
        (``quasi_identifiers``, ``records_matched_on_quasi_identifiers`` = [count, percent],
        ``percent_match_counts`` = percentage -> count), ``pmse`` (float),
        ``propensity_score_shown`` (as SDNist prints it), ``propensity_distribution``
        (DataFrame), ``correlation_difference`` (``kendall``/``pearson`` DataFrames),
        ``linear_regression`` (group -> target / deidentified [slope, intercept]); with
        ``baselines``: ``k_marginal_subsample_scores`` ("1%" ... "90%" -> int),
        ``sub_sampling_equivalent`` (percent), ``k_marginal_puma_40pct_subsample_baseline``
        (PUMA code -> int); and ``features`` (the features scored, sorted).

    Raises
    ------
    CapkitError
        A column not in the data dictionary or a value it does not allow (named with its
        column), missing values, no common feature, an unknown engine.
    """
    if engine not in ("pandas", "duckdb"):
        raise CapkitError(f"engine must be 'pandas' or 'duckdb', got {engine!r}")
    coded = prepare(target, deid)
    features, pumas = coded.features, coded.pumas
    out: dict[str, Any] = {"features": list(features)}
    state = np.random.RandomState(seed)  # SDNist's global stream (see the module docstring)
    km = kmarginal(coded.d_target, coded.d_deid, features)
    out["k_marginal_score"] = km.score
    out["k_marginal_score_in_each_puma"] = {pumas[g]: v for g, v in km.puma_scores().items()}
    if baselines:
        sub, puma_base = subsample_baselines(coded.d_target, features, state)
        out["k_marginal_subsample_scores"] = {f"{i}%": v for i, v in sub.items()}
        out["sub_sampling_equivalent"] = _closest_fraction(sub, km.score)
        out["k_marginal_puma_40pct_subsample_baseline"] = {pumas[g]: int(v)
                                                           for g, v in puma_base.items()}
    score, distribution = pmse(coded.x_target, coded.x_deid, state)
    out["pmse"] = score
    out["propensity_score_shown"] = int(score) if score > 100 else round(score, 3)
    out["propensity_distribution"] = distribution
    out["correlation_difference"] = correlation_differences(coded.x_target, coded.x_deid,
                                                            features)
    out["linear_regression"] = regressions(coded.c_target, coded.c_deid, features)
    if engine == "duckdb":
        out["unique_exact_matches"] = unique_exact_matches_duckdb(target, deid, config=config)
    else:
        out["unique_exact_matches"] = unique_exact_matches(coded.c_target, coded.c_deid)
    am = apparent_match(coded.c_target, coded.c_deid, features)
    if am is not None:
        am = {k: v for k, v in am.items() if k != "percent_match"}
    out["apparent_match"] = am
    return out
