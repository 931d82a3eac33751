"""Adult's synthetic side of Table 1 over seeds: synthpop's own band, capkit's, compared.

The paper's synthetic-side numbers (DiSCO in Table 1, the targets check_1way and check_2way flag)
come from one synthpop synthesis of Adult whose seed is not published, measured by synthpop's own
``multi.disclosure``. They can only be compared with a *band*: the spread of a measure over
syntheses made with different seeds. This module provides

* :func:`load_adult_band`: synthpop 1.9-2's own ten syntheses of Adult (``reference/synthpop/
  adult_band``: ``syn(adult, seed = s, visit.sequence = c(1:12, 14, 13))``, s = 1..10) as
  frames with R's schema;
* :func:`synthesise_adult`: capkit's synthesis with the same visit sequence;
* :func:`exclusion_tables` and :func:`band_rows`: Table 1 of one synthesis in both measuring
  modes, ``"compat"`` (``synthpop_compat=True``: synthpop's rules, quirks included, as the
  paper's numbers were made) and ``"default"`` (capkit's corrected rules), as long rows;
  :func:`same_as_band` checks a stored band file against a recomputed synthesis;
* :func:`paper_in_band` and :func:`band_range`: the printed values against a band;
  :func:`absent_values`: whether quirk Q4 mis-pairs a numeric target's rows;
* :func:`permutation_test`, :func:`holm` and :func:`compare_sources`: capkit's syntheses against
  synthpop's, cell by cell, as a two-sample test.

The bands themselves are computed by ``benchmarks/adult_band.py`` (one row per source, mode,
seed, target, exclusion and side) and read by ``notebooks/06_adult.ipynb``.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from capkit.data import datasets
from capkit.errors import CapkitError
from capkit.papers.raab_nowok_dibben.adult_table1 import (
    ADULT_NOT_TARGETLEV,
    ADULT_TABLE1,
    ADULT_TARGETS,
    EXCLUSIONS,
    ExclusionTable,
    exclusion_table,
)
from capkit.synth import syn

__all__ = [
    "ADULT_VISIT_SEQUENCE",
    "absent_counts",
    "absent_values",
    "BAND_COLUMNS",
    "MODES",
    "band_range",
    "band_rows",
    "band_rows_of",
    "compare_sources",
    "exclusion_tables",
    "holm",
    "load_adult_band",
    "paper_in_band",
    "permutation_test",
    "read_band",
    "same_as_band",
    "synthesise_adult",
    "table_rows",
]

#: synthpop's ``visit.sequence = c(1:12, 14, 13)`` on the paper's 14 Adult columns: the data
#: order, except that income (14) is synthesised before native.country (13), which comes last.
ADULT_VISIT_SEQUENCE: tuple[str, ...] = (
    *datasets.ADULT_PAPER_VARIABLES[:12], "income", "native.country",
)

#: Measuring modes: name -> ``synthpop_compat``.
MODES: dict[str, bool] = {"compat": True, "default": False}

#: Columns of a band file (one row per value).
BAND_COLUMNS: tuple[str, ...] = ("source", "mode", "seed", "target", "exclusion", "side", "value")


def load_adult_band(folder: str | os.PathLike, seeds: Sequence[int] | None = None
                    ) -> dict[int, pd.DataFrame]:
    """synthpop's own syntheses of Adult, one frame per seed, with R's schema.

    Parameters
    ----------
    folder
        ``reference/synthpop/adult_band`` (or the oracle's ``adult_band``): ``results.json``
        (plain or gzipped) with ``schema`` and ``syntheses``, and ``syn_seed<s>.csv`` (plain or
        gzipped) per seed.
    seeds
        Seeds to read (default: all, in increasing order).

    Returns
    -------
    dict
        seed -> frame with the columns in the schema's order: factors as categoricals with R's
        levels in R's order (ordered where R's class is ``ordered``), integers as ``int64``
        (``Int64`` if missing), other numbers as ``float64``; only the empty field is missing.
    """
    meta = datasets.read_reference_json(folder)
    if "schema" not in meta or "syntheses" not in meta:
        raise CapkitError(f"{str(folder)!r} is not an adult_band case: its results.json has no "
                          "'schema' and 'syntheses'")
    available = sorted(int(s) for s in meta["syntheses"])
    wanted = available if seeds is None else [int(s) for s in seeds]
    missing = [s for s in wanted if s not in available]
    if missing:
        raise CapkitError(f"seeds {missing} are not in {str(folder)!r} (it has {available})")
    out = {}
    for seed in wanted:
        path = datasets.reference_file(folder, meta["syntheses"][str(seed)]["file"])
        raw = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=str)
        out[seed] = _typed(raw, meta["schema"])
    return out


def _typed(raw: pd.DataFrame, schema: dict) -> pd.DataFrame:
    """``raw`` (text) with R's column classes and factor levels."""
    unknown = sorted(set(raw.columns) ^ set(schema))
    if unknown:
        raise CapkitError(f"columns {unknown} are not both in the file and in the schema")
    columns = {}
    for name, spec in schema.items():
        values = raw[name]
        classes = spec["class"]
        if spec["levels"] is not None:
            strays = sorted(set(values.dropna()) - set(spec["levels"]))
            if strays:
                raise CapkitError(f"column {name!r} has values {strays[:5]} outside its levels")
            columns[name] = pd.Categorical(values, categories=spec["levels"],
                                           ordered="ordered" in classes)
        elif "integer" in classes:
            number = pd.to_numeric(values)
            columns[name] = number.astype("Int64" if number.isna().any() else "int64")
        else:
            columns[name] = pd.to_numeric(values).astype(float)
    return pd.DataFrame(columns)


def synthesise_adult(adult: pd.DataFrame, seed: int) -> pd.DataFrame:
    """capkit's synthesis of Adult as the band's R call makes it.

    ``syn(adult, seed=seed, visit_sequence=ADULT_VISIT_SEQUENCE)``: the first variable (age)
    sampled, every other one by CART (rpart's trees), income before native.country.

    Parameters
    ----------
    adult
        The paper's 14 columns of :func:`capkit.data.datasets.load_adult`, in that order.
    seed
        The synthesis seed.
    """
    if list(adult.columns) != list(datasets.ADULT_PAPER_VARIABLES):
        raise CapkitError("adult must hold the paper's 14 columns in the data's order "
                          f"{list(datasets.ADULT_PAPER_VARIABLES)} (R's data frame; the order of "
                          f"predictors breaks ties between splits), got {list(adult.columns)}")
    result = syn(adult, m=1, seed=seed, visit_sequence=list(ADULT_VISIT_SEQUENCE),
                 progress=False)
    return result.syn[0]


def table_rows(table: ExclusionTable) -> pd.DataFrame:
    """Table 1 of one synthesis as long rows ``target, exclusion, side, value``.

    Side ``orig`` is Dorig and ``syn`` DiSCO (per exclusion); ``flags`` (exclusion ``no_excl``)
    is 1 if check_1way flagged the target + 2 if check_2way did, and ``npairs`` the number of
    target|key pairs check_2way flagged, both without exclusions.
    """
    long = table.values.stack(["exclusion", "side"], future_stack=True).rename("value")
    long = long.reset_index()
    targets = list(table.values.index)
    flags = pd.DataFrame({
        "target": targets, "exclusion": "no_excl", "side": "flags",
        "value": [float(2 * (t in table.flagged_2way) + (t in table.flagged_1way))
                  for t in targets]})
    npairs = pd.DataFrame({
        "target": targets, "exclusion": "no_excl", "side": "npairs",
        "value": table.npairs.reindex(targets).to_numpy(dtype=float)})
    return pd.concat([long, flags, npairs], ignore_index=True)


def exclusion_tables(synthetic: pd.DataFrame, original: pd.DataFrame,
                     modes: Sequence[str] = tuple(MODES)) -> dict[str, ExclusionTable]:
    """Table 1 of one synthesis of Adult in each measuring mode.

    Parameters
    ----------
    synthetic, original
        One synthetic Adult and the original (the paper's 14 columns).
    modes
        Keys of :data:`MODES`.

    Returns
    -------
    dict
        mode -> :class:`~capkit.papers.raab_nowok_dibben.adult_table1.ExclusionTable`, the
        synthesis measured as a ``synds`` object (``compare_synorig=False``) with the paper's
        ``not.targetslev`` levels and ``synthpop_compat=MODES[mode]``.
    """
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise CapkitError(f"modes must be among {list(MODES)}, got {unknown}")
    return {mode: exclusion_table(synthetic, original, not_targetlev=ADULT_NOT_TARGETLEV,
                                  compare_synorig=False, synthpop_compat=MODES[mode])
            for mode in modes}


def band_rows_of(tables: dict[str, ExclusionTable], *, source: str, seed: int,
                 absent: Mapping[str, int] | None = None) -> pd.DataFrame:
    """The rows of a band file (columns :data:`BAND_COLUMNS`) for the tables of one synthesis.

    Parameters
    ----------
    tables
        mode -> table, as :func:`exclusion_tables` returns.
    source
        ``"r"`` (synthpop's synthesis) or ``"capkit"``: written in the ``source`` column.
    seed
        The synthesis seed: written in the ``seed`` column.
    absent
        ``{target: count}`` of :func:`absent_counts`, written (in every mode) as side
        ``absent``, exclusion ``no_excl``; None writes none.
    """
    parts = []
    for mode, table in tables.items():
        rows = table_rows(table)
        if absent is not None:
            rows = pd.concat([rows, pd.DataFrame({
                "target": list(absent), "exclusion": "no_excl", "side": "absent",
                "value": [float(v) for v in absent.values()]})], ignore_index=True)
        rows.insert(0, "seed", int(seed))
        rows.insert(0, "mode", mode)
        rows.insert(0, "source", source)
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)[list(BAND_COLUMNS)]


def band_rows(synthetic: pd.DataFrame, original: pd.DataFrame, *, source: str, seed: int,
              modes: Sequence[str] = tuple(MODES)) -> pd.DataFrame:
    """Table 1 of one synthesis of Adult in each measuring mode, as rows of a band file.

    :func:`exclusion_tables`, :func:`absent_counts`, then :func:`band_rows_of`: one row per
    (mode, target, exclusion, side), columns :data:`BAND_COLUMNS`.
    """
    return band_rows_of(exclusion_tables(synthetic, original, modes), source=source, seed=seed,
                        absent=absent_counts(synthetic, original))


def same_as_band(band: pd.DataFrame, rows: pd.DataFrame, tol: float = 1e-9) -> bool:
    """Whether ``band`` holds exactly ``rows`` for their (source, mode, seed)s, within ``tol``.

    The check a notebook makes on a stored band file by recomputing one synthesis: False when a
    row is missing from either side or a value differs by more than ``tol``.
    """
    keys = ["source", "mode", "seed", "target", "exclusion", "side"]
    groups = rows[["source", "mode", "seed"]].drop_duplicates()
    stored = band.merge(groups, on=["source", "mode", "seed"])
    if len(stored) != len(rows):
        return False
    joined = rows.merge(stored, on=keys, how="outer", suffixes=("", "_stored"),
                        indicator=True)
    if not (joined["_merge"] == "both").all():
        return False
    return bool(((joined["value"] - joined["value_stored"]).abs() <= tol).all())


def absent_values(synthetic: pd.DataFrame, original: pd.DataFrame, column: str) -> int:
    """How many distinct values of ``original[column]`` the synthesis lacks.

    For a numeric target without missing values, synthpop's ``disclosure()`` pairs the original
    and synthetic tables by position after re-sorting, as text, only the side that lacks values
    of the other (quirk Q4, ``docs/synthpop-differences.md``). A synthesis drawn from observed
    values has no value the original lacks, so its rows are mis-paired exactly when this count
    is above 0.
    """
    for frame, name in ((synthetic, "synthetic"), (original, "original")):
        if column not in frame.columns:
            raise CapkitError(f"the {name} data has no column {column!r}")
    return len(set(original[column].dropna()) - set(synthetic[column].dropna()))


def absent_counts(synthetic: pd.DataFrame, original: pd.DataFrame,
                  targets: Sequence[str] = ADULT_TARGETS) -> dict[str, int]:
    """:func:`absent_values` for every numeric target (those Q4 can mis-pair), in order."""
    return {t: absent_values(synthetic, original, t) for t in targets
            if t in original.columns and pd.api.types.is_numeric_dtype(original[t].dtype)}


def read_band(path: str | os.PathLike) -> pd.DataFrame:
    """A band file written by ``benchmarks/adult_band.py`` (columns :data:`BAND_COLUMNS`)."""
    band = pd.read_csv(Path(path))
    missing = [c for c in BAND_COLUMNS if c not in band.columns]
    if missing:
        raise CapkitError(f"{str(path)!r} is not a band file: it lacks the columns {missing}")
    return band[list(BAND_COLUMNS)]


def _select(band: pd.DataFrame, mode: str, side: str, source: str | None) -> pd.DataFrame:
    rows = band[(band["mode"] == mode) & (band["side"] == side)]
    if source is not None:
        rows = rows[rows["source"] == source]
    if rows.empty:
        raise CapkitError(f"the band has no rows for mode {mode!r}, side {side!r}"
                          + ("" if source is None else f", source {source!r}"))
    return rows


def band_range(band: pd.DataFrame, mode: str, side: str = "syn", source: str | None = None
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Minimum and maximum over seeds: two frames, rows = targets, columns = exclusions."""
    rows = _select(band, mode, side, source)
    wide = rows.pivot_table(index="target", columns="exclusion", values="value",
                            aggfunc=["min", "max"])
    order = [e for e in EXCLUSIONS if e in wide["min"].columns]
    return wide["min"][order], wide["max"][order]


def paper_in_band(band: pd.DataFrame, mode: str = "compat", source: str | None = None,
                  paper: pd.DataFrame = ADULT_TABLE1, decimals: int = 2) -> pd.DataFrame:
    """Each printed synthetic-side value of Table 1 against the band of one mode.

    The band is rounded to ``decimals`` places, as the paper prints; a printed value inside
    ``[low, high]`` is one that the band's synthesiser and measure produce.

    Returns
    -------
    pandas.DataFrame
        One row per (target, exclusion): ``paper``, ``low``, ``high`` (rounded), ``inside``.
    """
    low, high = band_range(band, mode, "syn", source)
    printed = paper.xs("syn", axis=1, level="side")
    out = pd.DataFrame({
        "paper": printed.stack(),
        "low": low.round(decimals).stack(),
        "high": high.round(decimals).stack(),
    })
    out.index.names = ["target", "exclusion"]
    out["inside"] = (out["low"] <= out["paper"]) & (out["paper"] <= out["high"])
    return out.reindex(pd.MultiIndex.from_product([list(printed.index), list(EXCLUSIONS)],
                                                  names=["target", "exclusion"]))


#: Largest number of splits enumerated by :func:`permutation_test` before it samples.
MAX_EXACT_SPLITS = 2_000_000


@functools.cache
def _all_splits(n: int, k: int) -> np.ndarray:
    """Every k-subset of n positions as a 0/1 row (read-only, cached: 10 of 20 is 30 MB)."""
    members = np.zeros((math.comb(n, k), n))
    rows = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), k)),
                       dtype=np.int64).reshape(-1, k)
    np.put_along_axis(members, rows, 1.0, axis=1)
    members.setflags(write=False)
    return members


def permutation_test(x: Sequence[float], y: Sequence[float], *, seed: int = 0,
                     n_resamples: int = 200_000) -> tuple[float, float]:
    """Two-sided permutation test of equal distributions, statistic: difference of means.

    Under the null hypothesis (both samples come from the same synthesiser and measure, seeds
    differing) the pooled values are exchangeable, so every split of them into groups of the
    two sizes is equally likely. The p-value is the share of splits whose
    ``|mean(x') - mean(y')|`` is at least the observed one (up to a relative 1e-9, so that ties
    of sums in floating point count as ties): two-sided by the absolute statistic, which for
    unequal sizes is not twice the smaller one-sided p-value (scipy's "two-sided"). Exact for
    ``C(n_x + n_y, n_x) <=`` :data:`MAX_EXACT_SPLITS` (184,756 splits for 10 and 10; the
    smallest p-value is then 2 / 184,756), otherwise ``n_resamples`` random splits from
    ``seed`` (plus the observed one).
    Tied values need no correction.

    Parameters
    ----------
    x, y
        The two samples (at least one value each, no NaN).
    seed, n_resamples
        Used only when the splits are too many to enumerate.

    Returns
    -------
    (difference of means x - y, p-value)
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.size == 0 or b.size == 0:
        raise CapkitError("permutation_test needs two non-empty one-dimensional samples")
    if np.isnan(a).any() or np.isnan(b).any():
        raise CapkitError("permutation_test: the samples contain NaN")
    pooled = np.concatenate([a, b])
    n, k = pooled.size, a.size
    total = pooled.sum()
    observed = a.mean() - b.mean()
    if math.comb(n, k) <= MAX_EXACT_SPLITS:
        members = _all_splits(n, k)
    else:
        rng = np.random.default_rng(seed)
        members = np.zeros((n_resamples + 1, n))
        members[0, :k] = 1.0
        picks = np.argsort(rng.random((n_resamples, n)), axis=1)[:, :k]
        np.put_along_axis(members[1:], picks, 1.0, axis=1)
    sums = members @ pooled
    stats = sums / k - (total - sums) / (n - k)
    scale = max(float(np.abs(pooled).max()), 1.0)
    p = float(np.mean(np.abs(stats) >= abs(observed) - 1e-9 * scale))
    return float(observed), p


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (valid under any dependence)."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    m = p.size
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def compare_sources(band: pd.DataFrame, mode: str, side: str = "syn", *, source: str = "capkit",
                    reference: str = "r", alpha: float = 0.05) -> pd.DataFrame:
    """capkit's syntheses against synthpop's, per target and exclusion, in one measuring mode.

    For each (target, exclusion) cell the values over the seeds of ``source`` are compared with
    those of ``reference`` by :func:`permutation_test`; the family of all cells of the mode is
    adjusted by :func:`holm`. The band overlap (whether the two ranges intersect) is given too.

    Returns
    -------
    pandas.DataFrame
        One row per (target, exclusion): ``n_<source>``, ``n_<reference>``, ``<source> min``,
        ``<source> max``, ``<source> mean``, the same for ``reference``, ``difference`` (of the
        means), ``p``, ``p_holm``, ``overlap`` and ``same`` (``p_holm >= alpha``).
    """
    rows = _select(band, mode, side, None)
    cells = []
    for (target, exclusion), group in rows.groupby(["target", "exclusion"], sort=False):
        a = group.loc[group["source"] == source, "value"].to_numpy(dtype=float)
        b = group.loc[group["source"] == reference, "value"].to_numpy(dtype=float)
        if a.size == 0 or b.size == 0:
            lacking = source if a.size == 0 else reference
            raise CapkitError(f"cell {target} / {exclusion} has no {lacking} values in mode "
                              f"{mode!r}")
        difference, p = permutation_test(a, b)
        cells.append({
            "target": target, "exclusion": exclusion,
            f"n_{source}": a.size, f"n_{reference}": b.size,
            f"{source} min": a.min(), f"{source} max": a.max(), f"{source} mean": a.mean(),
            f"{reference} min": b.min(), f"{reference} max": b.max(),
            f"{reference} mean": b.mean(),
            "difference": difference, "p": p,
            "overlap": bool(a.min() <= b.max() and b.min() <= a.max()),
        })
    out = pd.DataFrame(cells)
    out.insert(out.columns.get_loc("p") + 1, "p_holm", holm(out["p"].to_numpy()))
    out["same"] = out["p_holm"] >= alpha
    order = {e: i for i, e in enumerate(EXCLUSIONS)}
    out = out.sort_values(["target", "exclusion"], key=lambda s: s.map(order) if
                          s.name == "exclusion" else s, kind="stable")
    return out.set_index(["target", "exclusion"])
