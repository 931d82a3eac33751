"""Count-table attackers: the CAP majority vote and the generalized CAP (GCAP).

Hittmeir, Mayer & Ekelhart, "A Baseline for Attribute Disclosure Risk in Synthetic Data"
(ACM CODASPY 2020, 133-143, doi 10.1145/3374664.3375722). The CAP attacker of Baillargeon &
Charest (2020, Section 4) predicts, for a record with key K_j, the most frequent target among the
synthetic records with the same key (no prediction when K_j is absent from S). The paper's
**generalized CAP** grows a radius r = 0, 1/|K|, 2/|K|, ... on the normalised Hamming distance
between keys until at least one synthetic record lies within it, and predicts the majority target
of those records, so every record gets a prediction. The records within the first non-empty
radius are exactly the synthetic records whose key is at the minimal Hamming distance from K_j:
its own key when present (r = 0), else every synthetic key at the smallest number of differing
key fields, pooled (Taub et al. 2018's "closest matches", SDMetrics' GeneralizedCAP).

Everything works on the aligned count tables of :func:`capkit.counts.tables.crosstab` (rows =
target levels, columns = key combinations), per key combination, never per record:

* :func:`nearest_pools` gives the pooled synthetic target counts of each queried key combination;
* :func:`majority` the most frequent target of each pool (ties drawn uniformly with a seeded
  generator, so the expected number of correct predictions is :func:`capkit.cap.correct_
  predictions` when pooling exact matches only);
* :func:`pool_means` the mean target of each pool, for a numeric target.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from capkit.counts.encode import combine_codes
from capkit.counts.tables import Table

#: Cells (unmatched keys x synthetic keys) of Hamming distances held at once.
CHUNK_CELLS = 2**22


def key_parts(keys: pd.Index) -> np.ndarray:
    """(J, p) per-column level codes of the key combinations of a crosstab grid.

    A missing value (code -1 in the MultiIndex) becomes a level of its own, so it matches a
    missing value and differs from everything else in the Hamming distance.
    """
    if not isinstance(keys, pd.MultiIndex):
        keys = pd.MultiIndex.from_arrays([keys])
    return np.column_stack([np.asarray(c, dtype=np.int64) for c in keys.codes]) + 1


def _as_csc(table: Table) -> sparse.csc_array:
    return sparse.csc_array(table)


def _distance_one(s_present: sparse.csc_array, syn_parts: np.ndarray, query_parts: np.ndarray
                  ) -> sparse.csc_array:
    """Pooled target counts of the synthetic keys at Hamming distance exactly 1 of each query.

    A synthetic key at distance 1 from an unmatched query key agrees with it on every field but
    one field c, and on all fields but c for that c only (agreeing on all would be a match). So
    the pool is the sum over c of the synthetic counts grouped by the other fields' codes: one
    grouping per key field, no distance matrix. With a single key field every synthetic key is
    at distance 1 (the pool is the whole synthetic file).
    """
    p = syn_parts.shape[1]
    n_syn, n_query = syn_parts.shape[0], query_parts.shape[0]
    cards = np.maximum(syn_parts.max(axis=0, initial=0), query_parts.max(axis=0, initial=0)) + 1
    pooled = sparse.csc_array((s_present.shape[0], n_query), dtype=np.float64)
    for col in range(p):
        others = [k for k in range(p) if k != col]
        if others:
            code_s, code_q, _ = combine_codes([syn_parts[:, k] for k in others],
                                              [query_parts[:, k] for k in others],
                                              [int(cards[k]) for k in others])
        else:
            code_s, code_q = np.zeros(n_syn, dtype=np.int64), np.zeros(n_query, dtype=np.int64)
        n_groups = int(max(code_s.max(initial=0), code_q.max(initial=0))) + 1
        to_group = sparse.csc_array((np.ones(n_syn), (np.arange(n_syn), code_s)),
                                    shape=(n_syn, n_groups))
        grouped = sparse.csc_array(s_present @ to_group)  # (I, groups)
        pooled = pooled + grouped[:, code_q]
    return sparse.csc_array(pooled)


def _minimal_distance(s_present: sparse.csc_array, syn_parts: np.ndarray,
                      query_parts: np.ndarray, chunk_cells: int) -> sparse.csc_array:
    """Pooled target counts of the synthetic keys at the minimal Hamming distance (any)."""
    blocks = []
    step = max(1, chunk_cells // max(len(syn_parts), s_present.shape[0], 1))
    for start in range(0, len(query_parts), step):
        block = query_parts[start : start + step]
        distance = np.zeros((len(syn_parts), len(block)), dtype=np.uint16)
        for col in range(syn_parts.shape[1]):
            distance += syn_parts[:, col][:, None] != block[:, col][None, :]
        nearest = (distance == distance.min(axis=0)).astype(np.float64)
        blocks.append(sparse.csc_array(s_present @ nearest))
    return sparse.csc_array(sparse.hstack(blocks, format="csc"))


def nearest_pools(
    s: Table,
    parts: np.ndarray,
    query: np.ndarray,
    *,
    generalized: bool = True,
    chunk_cells: int = CHUNK_CELLS,
) -> sparse.csc_array:
    """Pooled synthetic target counts of each queried key combination.

    Parameters
    ----------
    s
        (I, J) synthetic counts (rows = targets, columns = key combinations).
    parts
        (J, p) per-column codes of the key combinations (:func:`key_parts`).
    query
        Column indices j of the key combinations to pool for.
    generalized
        ``False``: the CAP's pool, the synthetic records with the same key only (an empty pool
        for a key absent from S). ``True``: the GCAP's pool, the synthetic records whose key is
        at the minimal Hamming distance (Hittmeir et al. 2020; its own key when present).
    chunk_cells
        At most this many (unmatched key x synthetic key) distances are held at once.

    Returns
    -------
    (I, len(query)) sparse float counts: column q counts the pooled synthetic records of each
    target for ``query[q]``.
    """
    s_csc = _as_csc(s).astype(np.float64)
    query = np.asarray(query, dtype=np.int64)
    n_targets = s_csc.shape[0]
    m_j = np.asarray(s_csc.sum(axis=0)).ravel()
    matched = m_j[query] > 0
    blocks = [(np.flatnonzero(matched), s_csc[:, query[matched]])]
    rest = np.flatnonzero(~matched)
    if generalized and len(rest) and m_j.any():
        present = np.flatnonzero(m_j > 0)
        s_present, syn_parts = sparse.csc_array(s_csc[:, present]), parts[present]
        first = _distance_one(s_present, syn_parts, parts[query[rest]])
        found = np.asarray(first.sum(axis=0)).ravel() > 0
        blocks.append((rest[found], first[:, np.flatnonzero(found)]))
        rest = rest[~found]
        if len(rest):
            blocks.append((rest, _minimal_distance(s_present, syn_parts, parts[query[rest]],
                                                   chunk_cells)))
            rest = rest[:0]
    # empty pools (exact matching only) are zero columns after the computed ones
    blocks.append((rest, sparse.csc_array((n_targets, len(rest)))))
    stacked = sparse.csc_array(sparse.hstack([b for _, b in blocks], format="csc"))
    column_of = np.empty(len(query), dtype=np.int64)
    column_of[np.concatenate([q for q, _ in blocks])] = np.arange(len(query))
    return sparse.csc_array(stacked[:, column_of])


def majority(pools: sparse.csc_array | np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row index of the most frequent target of each pool (column); -1 for an empty pool.

    Ties between targets are broken uniformly at random with ``rng`` (one draw per tied
    candidate, in column-major order), so the expected number of correct predictions equals
    :func:`capkit.cap.correct_predictions` (Baillargeon & Charest, Section 4: a tie is a uniform
    choice among the tied targets).
    """
    coo = sparse.coo_array(sparse.csc_array(pools))
    coo.eliminate_zeros()
    n_pools = coo.shape[1]
    winner = np.full(n_pools, -1, dtype=np.int64)
    if coo.nnz == 0:
        return winner
    order = np.lexsort((coo.row, coo.col))
    rows, cols, values = coo.row[order], coo.col[order], coo.data[order]
    top = np.full(n_pools, -np.inf)
    np.maximum.at(top, cols, values)
    tied = values == top[cols]
    rows, cols = rows[tied], cols[tied]
    priority = rng.random(len(rows))
    pick = np.lexsort((-priority, cols))
    first = np.ones(len(pick), dtype=bool)
    first[1:] = cols[pick][1:] != cols[pick][:-1]
    winner[cols[pick][first]] = rows[pick][first]
    return winner


def pool_means(pools: sparse.csc_array | np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mean target value of each pool (column); NaN for an empty pool.

    ``values`` holds the numeric value of each target row; rows with a missing value (NaN) are
    left out of the pools.
    """
    values = np.asarray(values, dtype=np.float64)
    known = ~np.isnan(values)
    weights = sparse.csc_array(pools)[np.flatnonzero(known), :]
    size = np.asarray(weights.sum(axis=0)).ravel()
    total = np.asarray(weights.T @ values[known]).ravel()
    return np.divide(total, size, out=np.full(len(size), np.nan), where=size > 0)


__all__ = ["CHUNK_CELLS", "key_parts", "majority", "nearest_pools", "pool_means"]
