"""SDNist's privacy figures: unique exact matches and the apparent-match distribution.

SDNist 2.4 (usnistgov/SDNist; NIST CRC, "SDNist v2: Deidentified Data Report Tool"):

* **Unique exact matches** (``sdnist/metrics/unique_exact_matches.py``): the target records
  whose full combination of features occurs once in the target, and how many of them occur in
  the deidentified file (percent of those unique records), on the validated data (DENSITY as
  its bin; weights and INDP included).
* **Apparent matches** (``sdnist/metrics/apparent_match_dist.py: cellchange, match``): records
  unique on the quasi-identifiers SEX, MSP, RAC1P, OWN_RENT, EDU, PUMA, INDP_CAT, HISP in the
  deidentified file and in the target, paired when those agree; for each pair the percentage
  of the other features that are equal. SDNist reports the number of pairs (and its percent of
  the target records) and the distribution of the percentages.

Both are counts of combinations of columns: the pandas path codes the rows of both files once
(:func:`capkit.counts.rows.unique_rows`) and counts with ``np.bincount``; the DuckDB path
(:func:`unique_exact_matches_duckdb`) does the unique-exact-match count in SQL on files of any
size, normalising each value as SDNist's validation does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from capkit.counts.engines import duckdb as duckdb_engine
from capkit.counts.engines.common import is_path, require
from capkit.counts.rows import unique_rows
from capkit.errors import CapkitError
from capkit.sdnist.dictionary import CODES, DENSITY_MAX, FEATURES, HAS_N, PUMAS, density_bins

__all__ = ["QUASI_IDENTIFIERS", "UEM_LABELS", "apparent_match", "unique_exact_matches",
           "unique_exact_matches_duckdb"]

#: SDNist's quasi-identifiers for the apparent-match distribution.
QUASI_IDENTIFIERS = ("SEX", "MSP", "RAC1P", "OWN_RENT", "EDU", "PUMA", "INDP_CAT", "HISP")
#: SDNist's labels of its four unique-exact-match figures (report.json).
UEM_LABELS = ("records matched in target data", "percent records matched in target data",
              "unique target records", "percent unique target records")


def _uem_figures(matched: int, unique: int, n_target: int) -> dict[str, Any]:
    # SDNist's own expressions and rounding (Python's round of the float)
    percent_matched = round(matched / unique * 100, 2) if unique > 0 else 0
    return dict(zip(UEM_LABELS, (matched, percent_matched, unique,
                                 round(unique / n_target * 100, 2)), strict=True))


def unique_exact_matches(c_target: np.ndarray, c_deid: np.ndarray) -> dict[str, Any]:
    """SDNist's four unique-exact-match figures from the C versions of both files (records x
    features, the same features), under SDNist's labels (:data:`UEM_LABELS`)."""
    n_t = len(c_target)
    _, code = unique_rows(np.concatenate([c_target, c_deid]) + 0.0)  # -0.0 equals 0.0
    groups = int(code.max()) + 1
    t_count = np.bincount(code[:n_t], minlength=groups)
    s_count = np.bincount(code[n_t:], minlength=groups)
    unique = t_count == 1
    return _uem_figures(int((unique & (s_count > 0)).sum()), int(unique.sum()), n_t)


def apparent_match(c_target: np.ndarray, c_deid: np.ndarray, features: tuple[str, ...]
                   ) -> dict[str, Any] | None:
    """SDNist's apparent-match figures from the C versions: ``quasi_identifiers`` (those the
    files hold), ``records_matched_on_quasi_identifiers`` = [pairs, percent of the target's
    records], ``percent_match_counts`` (percentage -> number of pairs, by percentage) and
    ``percent_match`` (each pair's percentage, pairs in the deidentified file's record order).
    ``None`` when the files hold no quasi-identifier (SDNist skips the section)."""
    qi = [j for j, f in enumerate(features) if f in QUASI_IDENTIFIERS]
    if not qi:
        return None
    other = [j for j in range(len(features)) if j not in qi]
    n_t = len(c_target)
    _, code = unique_rows(np.concatenate([c_target[:, qi], c_deid[:, qi]]) + 0.0)
    groups = int(code.max()) + 1
    t_count = np.bincount(code[:n_t], minlength=groups)
    s_count = np.bincount(code[n_t:], minlength=groups)
    target_row = np.full(groups, -1, dtype=np.int64)
    target_row[code[:n_t]] = np.arange(n_t)
    deid_rows = np.flatnonzero((s_count[code[n_t:]] == 1) & (t_count[code[n_t:]] == 1))
    pair_target = target_row[code[n_t:][deid_rows]]
    equal = (c_deid[deid_rows][:, other] + 0.0 == c_target[pair_target][:, other] + 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):  # no other feature: NaN, as SDNist
        percent = (equal.sum(axis=1) / len(other)) * 100
    values, counts = np.unique(percent, return_counts=True)
    matched = len(deid_rows)
    return {
        "quasi_identifiers": [features[j] for j in qi],
        "records_matched_on_quasi_identifiers": [matched, round(matched / n_t * 100, 2)],
        "percent_match_counts": {float(v): int(c) for v, c in zip(values, counts, strict=True)},
        "percent_match": percent,
    }


# ---- the DuckDB path ---------------------------------------------------------------------

def _value(name: str) -> str:
    """SQL for one feature's C value: N as +inf, numbers truncated (PINCP apart), DENSITY's bin,
    PUMA its text."""
    q = duckdb_engine.quote(name)
    text = f"CAST({q} AS VARCHAR)"
    if name == "PUMA":
        return text
    number = f"TRY_CAST({text} AS DOUBLE)"
    if name != "PINCP":
        number = f"trunc({number})"
    if name == "DENSITY":
        edges, top = density_bins(), repr(DENSITY_MAX + 500)
        v = (f"CASE WHEN {number} > CAST('{top}' AS DOUBLE) "
             f"THEN CAST('{top}' AS DOUBLE) - 100 ELSE greatest({number}, 0.0) END")
        number = " + ".join(f"CAST(({v}) > CAST('{float(e)!r}' AS DOUBLE) AS INTEGER)"
                            for e in edges[1:-1])
        number = f"CAST(({number}) AS DOUBLE)"
    if name in HAS_N:
        return f"CASE WHEN {text} = 'N' THEN CAST('inf' AS DOUBLE) ELSE {number} END"
    return number


def _bad(name: str) -> str:
    """SQL true for a value SDNist's validation rejects (capkit raises on it)."""
    q = duckdb_engine.quote(name)
    text = f"CAST({q} AS VARCHAR)"
    if name == "PUMA":
        codes = ", ".join(f"'{p}'" for p in PUMAS)
        return f"({text} IS NULL OR {text} NOT IN ({codes}))"
    number = f"TRY_CAST({text} AS DOUBLE)"
    not_n = f"{text} <> 'N'" if name in HAS_N else "TRUE"
    bad = f"{text} IS NULL OR ({not_n} AND ({number} IS NULL OR isinf({number}) " \
          f"OR isnan({number})"
    if name in CODES:
        codes = ", ".join(str(c) for c in sorted(CODES[name]))
        bad += f" OR trunc({number}) NOT IN ({codes})"
    return f"({bad})))"


def _checked_columns(rel: Any, role: str) -> list[str]:
    names = [str(c) for c in rel.columns]
    unknown = [c for c in names if c not in FEATURES and c != "Unnamed: 0"]
    if unknown:
        raise CapkitError(f"column {unknown[0]!r} of the {role} data is not in the data "
                          f"dictionary of NIST's Diverse Communities Data Excerpts")
    return [c for c in names if c in FEATURES]


def _validate(rel: Any, features: list[str], role: str) -> None:
    checks = ", ".join(f"count(*) FILTER (WHERE {_bad(f)})" for f in features)
    counts = rel.aggregate(checks).fetchall()[0]
    for f, bad in zip(features, counts, strict=True):
        if bad:
            raise CapkitError(f"column {f!r} of the {role} data holds {bad} values the data "
                              f"dictionary does not allow (or missing values)")


def unique_exact_matches_duckdb(target: object, deid: object, *,
                                config: dict[str, Any] | None = None) -> dict[str, Any]:
    """SDNist's four unique-exact-match figures counted by DuckDB, for files past memory.

    Parameters
    ----------
    target, deid
        CSV/Parquet paths or globs (read as text and converted as SDNist's validation
        converts), DuckDB relations or DataFrames.
    config
        DuckDB settings (e.g. ``{"memory_limit": "4GB"}``).

    Raises
    ------
    CapkitError
        A column not in the data dictionary, a value it does not allow, no common feature.
    """
    require("duckdb")
    con = duckdb_engine.connect(config)
    try:
        rels = []
        for source, role in ((target, "target"), (deid, "deidentified")):
            if is_path(source):
                files, fmt = duckdb_engine.expand_paths(source, role)
                rel = (con.read_parquet(files) if fmt == "parquet"
                       else con.read_csv(files, header=True, all_varchar=True))
            elif isinstance(source, pd.DataFrame):
                rel = con.from_df(source)
            else:
                rel = duckdb_engine.relation(source, con, role)
            rels.append(rel)
        t_cols = _checked_columns(rels[0], "target")
        d_cols = _checked_columns(rels[1], "deidentified")
        features = sorted(set(t_cols) & set(d_cols))
        if not features:
            raise CapkitError("the target and deidentified data have no feature in common")
        _validate(rels[0], features, "target")
        _validate(rels[1], features, "deidentified")
        values = ", ".join(f"{_value(f)} AS {duckdb_engine.quote(f)}" for f in features)
        cols = ", ".join(duckdb_engine.quote(f) for f in features)
        con.register("capkit_target", rels[0])
        con.register("capkit_deid", rels[1])
        sql = (f"WITH t AS (SELECT {values} FROM capkit_target), "
               f"u AS (SELECT {cols} FROM t GROUP BY {cols} HAVING count(*) = 1), "
               f"d AS (SELECT DISTINCT {values} FROM capkit_deid) "
               f"SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM u), "
               f"(SELECT count(*) FROM u JOIN d USING ({cols}))")
        n_t, unique, matched = con.execute(sql).fetchall()[0]
    finally:
        con.close()
    return _uem_figures(int(matched), int(unique), int(n_t))
