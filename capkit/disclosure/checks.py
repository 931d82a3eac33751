"""synthpop's checks for disproportionate disclosure (spec sections 5 and 6).

* :func:`check_1way`: is most of the disclosure (DiSCO) due to one target level?
* :func:`check_2way`: which (target level, key level) pairs have many disclosive records, and
  does that key level nearly always carry that target level in the original data?

Both work on the excluded cell tables of :mod:`capkit.disclosure.measures`; check_2way's key
totals come from one grouped count of the full original (:class:`KeyMargins`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from capkit.counts.cells import CellTable
from capkit.counts.rows import unique_rows
from capkit.data.labels import Coded, SortKey, collation_order

CHECK1_COLUMNS = ["Level", "All", "PctLevelAll", "totalDisclosive", "nLevelDis", "PctLevelDis"]
CHECK2_COLUMNS = ["target_key_levs", "npairs", "key", "key_target_total", "key_total",
                  "PctTargetKeyLevel"]


@dataclass(frozen=True)
class KeyMargins:
    """Counts of (target label, key label) over the full original data, one table per key.

    Built once per call from the processed original (spec 6 step 7: no exclusions).
    """

    target_labels: tuple[str, ...]
    key_labels: tuple[tuple[str, ...], ...]
    counts: tuple[np.ndarray, ...]

    @classmethod
    def from_coded(cls, target: Coded, keys: Sequence[Coded]) -> KeyMargins:
        """One bincount per key of (target code, key code) over the original records."""
        n_t = len(target.labels)
        counts = []
        for key in keys:
            n_k = len(key.labels)
            flat = np.bincount(target.codes * n_k + key.codes, minlength=n_t * n_k)
            counts.append(flat.reshape(n_t, n_k))
        return cls(target.labels, tuple(k.labels for k in keys), tuple(counts))

    def lookup(self, key_index: int, target_levels: Sequence[str], key_levels: Sequence[str]
               ) -> tuple[np.ndarray, np.ndarray]:
        """(key_target_total, key_total) for label pairs of key ``key_index``."""
        t_pos = {lab: i for i, lab in enumerate(self.target_labels)}
        k_pos = {lab: i for i, lab in enumerate(self.key_labels[key_index])}
        table = self.counts[key_index]
        key_tot = table.sum(axis=0)
        ti = np.array([t_pos.get(t, -1) for t in target_levels], dtype=np.int64)
        ki = np.array([k_pos.get(k, -1) for k in key_levels], dtype=np.int64)
        ok_k = ki >= 0
        both = ok_k & (ti >= 0)
        kt = np.zeros(len(ti), dtype=np.int64)
        kt[both] = table[ti[both], ki[both]]
        tot = np.zeros(len(ki), dtype=np.int64)
        tot[ok_k] = key_tot[ki[ok_k]]
        return kt, tot


def check_1way(cells: CellTable, excluded: dict[str, np.ndarray],
               thresh_1way: Sequence[float] = (50, 90)) -> pd.DataFrame | None:
    """Spec 5: the target level with most DiSCO records, if it dominates.

    Returns the one-row table (columns Level, All, PctLevelAll, totalDisclosive, nLevelDis,
    PctLevelDis; row name = the level) when nLevelDis > thresh_1way[0] and PctLevelDis >
    thresh_1way[1] (both strict), else ``None``.
    """
    n_rows = cells.shape[0]
    if n_rows == 0:
        return None
    tot = np.bincount(cells.row, weights=excluded["original"], minlength=n_rows)
    dis = np.bincount(cells.row, weights=excluded["DiSCO"], minlength=n_rows)
    total_dis = float(dis.sum())
    most = int(np.argsort(-dis, kind="stable")[0])
    n_level = float(dis[most])
    pct_dis = 100 * n_level / total_dis if total_dis > 0 else float("nan")
    all_ = float(tot.sum())
    pct_all = 100 * float(tot[most]) / all_ if all_ > 0 else float("nan")
    if not (n_level > thresh_1way[0] and pct_dis > thresh_1way[1]):
        return None
    level = cells.row_labels[most]
    return pd.DataFrame(
        [[level, int(all_), pct_all, int(total_dis), int(n_level), pct_dis]],
        columns=CHECK1_COLUMNS, index=pd.Index([level]))


def _label_codes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes of labels equal as pandas groups them (missing values one group) and equal as
    text (1, 1.0 and True are three); each label's text; and its text as the key margins read
    it (a missing label reads "nan")."""
    series = pd.Series(labels, dtype=object)
    text = series.astype(str).to_numpy(dtype=object)
    missing = series.isna().to_numpy()
    by_value = pd.factorize(series, use_na_sentinel=False)[0]
    by_text = pd.factorize(pd.Series(text, dtype=object))[0]
    read = np.where(missing, "nan", text).astype(object) if missing.any() else text
    return unique_rows(np.column_stack([by_value, by_text]))[1], text, read


class PairSums(NamedTuple):
    """Disclosive counts per (target level, key level) pair (:func:`_pair_sums`): the pair's
    text ``s = "t|k"``, the target and key labels as the key margins read them (``t``, ``k``;
    a missing label "nan") and the summed count ``v``."""

    s: np.ndarray
    t: np.ndarray
    k: np.ndarray
    v: np.ndarray


def _pair_sums(rows: np.ndarray, row_labels: np.ndarray, components: np.ndarray,
               cols: np.ndarray, values: np.ndarray, by_text: bool) -> PairSums:
    """The disclosive counts ``values`` summed per (target level, key level) pair, the pairs in
    order of first appearance: the groups of ``DataFrame.groupby(["s", "t", "k"], sort=False,
    dropna=False)``, counted on integer codes with the text built once per pair. ``by_text``:
    per text ``s`` alone (pairs whose texts are equal are one group, as synthpop's ``paste``
    makes them; ``t`` and ``k`` are then the text split at its first two "|", as synthpop's
    ``strsplit`` reads them)."""
    used_t, rows = np.unique(rows, return_inverse=True)  # only the labels in use are coded
    used_k, cols = np.unique(cols, return_inverse=True)
    row_code, row_text, row_read = _label_codes(row_labels[used_t])
    col_code, col_text, col_read = _label_codes(components[used_k])
    first, pair = unique_rows(np.column_stack([row_code[rows], col_code[cols]]))
    seen = np.argsort(first, kind="stable")  # pairs by first appearance
    rank = np.empty(len(first), dtype=np.int64)
    rank[seen] = np.arange(len(first))
    total = np.bincount(rank[pair], weights=values, minlength=len(first))
    at_t, at_k = rows[first[seen]], cols[first[seen]]
    text = row_text[at_t] + "|" + col_text[at_k]
    if not by_text:
        return PairSums(text, row_read[at_t], col_read[at_k], total)
    code, texts = pd.factorize(pd.Series(text, dtype=object))
    texts = np.asarray(texts, dtype=object)
    parts = pd.Series(texts, dtype=object).str.split("|", n=2, expand=True, regex=False)
    return PairSums(texts, parts[0].to_numpy(dtype=object),
                    parts[1].to_numpy(dtype=object) if parts.shape[1] > 1
                    else np.full(len(texts), "", dtype=object),
                    np.bincount(code, weights=total, minlength=len(texts)))


def check_2way(cells: CellTable, excluded: dict[str, np.ndarray], keys: Sequence[str],
               margins: KeyMargins, thresh_2way: Sequence[float] = (4, 80), *,
               parse_labels: bool = False, sort_key: SortKey = None) -> pd.DataFrame | None:
    """Spec 6: (target level, key level) pairs holding many disclosive records.

    Parameters
    ----------
    cells, excluded
        The aligned cells and the excluded tables (DiSCO' is used).
    keys
        Key names in data order.
    margins
        Key totals of the full original (:meth:`KeyMargins.from_coded`).
    thresh_2way
        (cell count, percent); both comparisons strict.
    parse_labels
        Recover target and key levels by splitting "t|k" at "|" as synthpop does (quirk Q19);
        ``False`` uses the true labels.
    sort_key
        Collation for the row order within a key.

    Returns
    -------
    The flagged rows (columns target_key_levs, npairs, key, key_target_total, key_total,
    PctTargetKeyLevel; row names synthpop's row numbers as text), or ``None``. Counted on
    arrays; a table is built only for the rows kept.
    """
    disco = excluded["DiSCO"]
    big = disco > thresh_2way[0]
    if not big.any():
        return None
    idx = np.flatnonzero(big)
    idx = idx[np.lexsort((cells.row[idx], cells.col[idx]))]  # column-major order
    values = disco[idx]
    row_labels = np.asarray(cells.row_labels, dtype=object)
    texts, npairs, key, key_target, key_total = [], [], [], [], []
    for k, name in enumerate(keys):
        pairs = _pair_sums(cells.row[idx], row_labels,
                           np.asarray(cells.col_components[k], dtype=object), cells.col[idx],
                           values, parse_labels)
        order = collation_order(pairs.s, sort_key)
        kt, tot = margins.lookup(k, pairs.t[order].tolist(), pairs.k[order].tolist())
        texts.append(pairs.s[order])
        npairs.append(pairs.v[order].astype(np.int64))
        key.append(np.full(len(order), name, dtype=object))
        key_target.append(kt)
        key_total.append(tot)
    npairs_ = np.concatenate(npairs)
    order = np.argsort(-npairs_, kind="stable")
    key_target_, key_total_ = np.concatenate(key_target)[order], np.concatenate(key_total)[order]
    with np.errstate(invalid="ignore", divide="ignore"):
        pct = 100 * key_target_ / key_total_
    kept = pct > thresh_2way[1]
    if not kept.any():
        return None
    at = order[kept]
    return pd.DataFrame(
        {"target_key_levs": np.concatenate(texts)[at], "npairs": npairs_[at],
         "key": np.concatenate(key)[at], "key_target_total": key_target_[kept],
         "key_total": key_total_[kept], "PctTargetKeyLevel": pct[kept]},
        columns=CHECK2_COLUMNS, index=pd.Index([str(i + 1) for i in at], dtype=object))
