"""SDMetrics-compatible CategoricalCAP, CategoricalZeroCAP and CategoricalGeneralizedCAP.

SDMetrics (``sdmetrics.single_table``; its documentation of CategoricalCAP, CategoricalZeroCAP
and CategoricalGeneralizedCAP) scores the CAP attack as
``1 - probability``: an intruder who knows the ``key_fields`` of a real record looks up the
synthetic records with the same key (the synthetic *equivalence class*) and lets their
``sensitive_fields`` vote; the probability is the share of votes for the record's true sensitive
value, averaged over the real records. Several key fields form one joint key and several
sensitive fields one joint sensitive value (tuples).

As measured against SDMetrics 0.32 (its source, ``single_table/privacy/cap.py`` and ``base.py``):

* :class:`CategoricalCAP` ignores real records whose key has no synthetic match: it is
  ``1 - average CAP version 2`` (Baillargeon & Charest, Definition 3). When no real key matches
  at all SDMetrics returns NaN, and so does capkit with ``allow_disjoint_levels=True``.

One deliberate difference: a key or sensitive field whose real and synthetic values barely
overlap (fewer than half of the real records with a value of it have a value found in the
synthetic data) is an error by default, as everywhere in capkit
(:func:`capkit.counts.encode.check_levels`): the two frames almost surely code it differently,
and SDMetrics would score it as perfectly safe. ``allow_disjoint_levels=True`` gives
SDMetrics' number.
* :class:`CategoricalZeroCAP` counts such records as a failed attack (probability 0): it is
  ``1 - average CAP version 1`` (Definition 2).
* :class:`CategoricalGeneralizedCAP` replaces an empty equivalence class by all synthetic records
  whose key is at the minimal Hamming distance (number of differing key fields) from the real
  key, pooling the synthetic records of every tied key (Taub et al. 2018, "closest matches").

capkit computes the same numbers from count tables (:func:`capkit.counts.tables.crosstab`) instead
of one Python lookup per record, so it is orders of magnitude faster (see
``benchmarks/bench_compat.py``). The Generalized score pools with the GCAP attacker's code
(:func:`capkit.attacks.gcap.nearest_pools`): per distinct key combination, a grouping per key
field for distance 1 and chunked Hamming distances beyond, never on all record pairs.

Missing values (the one documented difference)
----------------------------------------------
SDMetrics compares Python objects, so whether a missing value "matches" depends on where it
sits and how it is compared:

* exact lookups (CategoricalCAP, CategoricalZeroCAP) and the vote count (all three) compare
  tuples, where ``numpy.nan`` stored in an object column is the same object in both frames and
  matches (``nan is nan``), while a NaN in a float column is boxed anew for every row and never
  equals anything; ``None`` matches ``None`` but not ``nan``;
* the Hamming distance of CategoricalGeneralizedCAP compares values with ``!=``, so a missing
  key value differs from everything, itself included, in every column type.

capkit treats every missing value (NaN, None, pd.NA, NaT) as one level of its own in every
column type, as synthpop does: a missing key matches a missing key and a missing sensitive value
matches a missing one. Results therefore equal SDMetrics' when missing values sit in object or
categorical columns as ``numpy.nan`` (for the Generalized score: in the sensitive fields only),
and equal SDMetrics' run on the frames with every missing value replaced by a string level;
``tests/test_compat.py`` tests the agreement and the difference separately.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from pandas.api import types as pdt
from scipy import sparse

from capkit import cap
from capkit.attacks import gcap
from capkit.counts.encode import validate_frames
from capkit.counts.tables import crosstab
from capkit.errors import CapkitError
from capkit.sdmetrics.inputs import check_frames, field_list, single_table_metadata

#: Cells (unmatched real keys x synthetic keys) handled at once by the Generalized score.
CHUNK_CELLS = gcap.CHUNK_CELLS


def _validate(
    real_data: pd.DataFrame,
    synthetic_data: pd.DataFrame,
    metadata: dict | None,
    table_name: str | None,
    key_fields: str | Sequence[str] | None,
    sensitive_fields: str | Sequence[str] | None,
    model_kwargs: dict | None,
) -> tuple[list[str], list[str]]:
    """SDMetrics' input rules, as CapkitError: same columns, supported dtypes, non-empty lists;
    ``metadata["key_fields"]`` / ``metadata["sensitive_fields"]`` override the arguments."""
    if model_kwargs:
        raise CapkitError(f"model_kwargs must be None or empty: the CAP attacker takes no "
                          f"model arguments, got {model_kwargs!r}")
    if metadata is not None:
        meta = single_table_metadata(metadata, table_name)
        key_fields = meta.get("key_fields", key_fields)
        sensitive_fields = meta.get("sensitive_fields", sensitive_fields)
    keys = field_list(key_fields, "key_fields")
    sensitive = field_list(sensitive_fields, "sensitive_fields")
    check_frames({"real_data": real_data, "synthetic_data": synthetic_data})
    overlap = [c for c in sensitive if c in keys]
    if overlap:
        raise CapkitError(
            f"sensitive field {overlap[0]!r} is also in key_fields; a target cannot be a key"
        )
    validate_frames(real_data, synthetic_data, keys, sensitive)
    for column in keys + sensitive:
        for name, frame in (("real_data", real_data), ("synthetic_data", synthetic_data)):
            dtype = frame[column].dtype
            if pdt.is_datetime64_any_dtype(dtype) or pdt.is_timedelta64_dtype(dtype):
                raise CapkitError(
                    f"column {column!r} of {name} has dtype {dtype}; the categorical CAP metrics "
                    "take categorical, boolean, integer or text columns (as SDMetrics does)"
                )
    return keys, sensitive


class CategoricalCAP:
    """SDMetrics' ``CategoricalCAP``: ``1 - average CAP version 2``.

    Real records whose key does not occur in the synthetic data are left out of the average
    (Baillargeon & Charest, Definition 3; SDMetrics' attacker returns ``None`` for them).
    """

    name = "CategoricalCAP"
    version = 2

    @classmethod
    def compute(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        metadata: dict | None = None,
        table_name: str | None = None,
        key_fields: str | Sequence[str] | None = None,
        sensitive_fields: str | Sequence[str] | None = None,
        model_kwargs: dict | None = None,
        *,
        allow_disjoint_levels: bool = False,
    ) -> float:
        """Score ``1 - probability`` of the CAP attack (higher = safer), as SDMetrics 0.32.

        Parameters
        ----------
        real_data, synthetic_data
            Frames with the same columns. Neither is modified.
        metadata, table_name
            SDMetrics' metadata (optional): its ``key_fields`` / ``sensitive_fields`` entries,
            when present, take precedence over the arguments (as in SDMetrics 0.32).
        key_fields
            Columns the intruder knows; together they form one key.
        sensitive_fields
            Columns the intruder guesses; together they form one sensitive value.
        model_kwargs
            Must be None or empty (SDMetrics' CAP attacker takes none).
        allow_disjoint_levels
            Score even a field whose real and synthetic values barely overlap (an error by
            default; see the module note).

        Returns
        -------
        float
            In [0, 1]. NaN when no real key occurs in the synthetic data (SDMetrics' value).

        Raises
        ------
        CapkitError
            For different column sets, a missing column, a sensitive field that is also a key,
            a column numeric in one frame and text in the other, datetime columns, empty frames,
            a field coded differently in the two frames.
        """
        keys, sensitive = _validate(real_data, synthetic_data, metadata, table_name, key_fields,
                                    sensitive_fields, model_kwargs)
        table = crosstab(real_data, synthetic_data, keys, sensitive,
                         allow_disjoint_levels=allow_disjoint_levels)
        return one_minus_cap(table.original, table.synthetic, cls.version)


class CategoricalZeroCAP(CategoricalCAP):
    """SDMetrics' ``CategoricalZeroCAP`` (``0CAP``): ``1 - average CAP version 1``.

    A real record whose key does not occur in the synthetic data counts as a failed attack,
    probability 0 (Baillargeon & Charest, Definition 2).
    """

    name = "0CAP"
    version = 1


class CategoricalGeneralizedCAP:
    """SDMetrics' ``CategoricalGeneralizedCAP``: CAP with a Hamming-distance fallback.

    For a real record whose key has synthetic matches this is the individual CAP (Definition 1).
    Otherwise the equivalence class is the set of synthetic records whose key is at the minimal
    Hamming distance (count of differing key fields, missing = a level) from the real key, all
    tied keys pooled; the record's probability is the share of that pool carrying its sensitive
    value. The score is ``1 - mean`` over all real records.
    """

    name = "Categorical GeneralizedCAP"

    @classmethod
    def compute(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        metadata: dict | None = None,
        table_name: str | None = None,
        key_fields: str | Sequence[str] | None = None,
        sensitive_fields: str | Sequence[str] | None = None,
        model_kwargs: dict | None = None,
        *,
        allow_disjoint_levels: bool = False,
    ) -> float:
        """Score ``1 - probability`` of the generalized CAP attack, as SDMetrics 0.32.

        Parameters and errors as :meth:`CategoricalCAP.compute`. Never NaN: every real record
        has a non-empty pool.
        """
        keys, sensitive = _validate(real_data, synthetic_data, metadata, table_name, key_fields,
                                    sensitive_fields, model_kwargs)
        probabilities = generalized_cap_probabilities(
            real_data, synthetic_data, keys, sensitive,
            allow_disjoint_levels=allow_disjoint_levels)
        return 1.0 - float(probabilities.mean())


def one_minus_cap(o: cap.Table, s: cap.Table, version: int) -> float:
    """``1 - average CAP`` (version 1 or 2) of two count tables, SDMetrics' score; NaN for
    version 2 when no real key occurs in the synthetic data (SDMetrics' value)."""
    m_j = np.asarray(s.sum(axis=0)).ravel()
    covered = np.asarray(o.sum(axis=0)).ravel()[m_j > 0].sum()
    if version == 2 and covered == 0:
        return float("nan")
    return 1.0 - cap.average_cap(o, s, version=version)


def generalized_cap_probabilities(
    real_data: pd.DataFrame,
    synthetic_data: pd.DataFrame,
    key_fields: Sequence[str],
    sensitive_fields: Sequence[str],
    *,
    chunk_cells: int = CHUNK_CELLS,
    allow_disjoint_levels: bool = False,
) -> np.ndarray:
    """Per real record, the generalized CAP probability (SDMetrics' ``GeneralizedCAPAttacker``).

    Parameters
    ----------
    real_data, synthetic_data, key_fields, sensitive_fields
        As :meth:`CategoricalGeneralizedCAP.compute` (validated there).
    chunk_cells
        At most this many (unmatched real key x synthetic key) Hamming distances are held at once.
    allow_disjoint_levels
        As for :meth:`CategoricalCAP.compute`.

    Returns
    -------
    (n,) float array in the row order of ``real_data``.
    """
    table = crosstab(real_data, synthetic_data, list(key_fields), list(sensitive_fields),
                     allow_disjoint_levels=allow_disjoint_levels)
    return generalized_probabilities_of_cells(
        gcap.key_parts(table.keys), table.record_cell, table.synthetic, chunk_cells=chunk_cells)


def count_cells(cells: np.ndarray, shape: tuple[int, int]) -> sparse.csr_array:
    """(I, J) sparse count table of records given as (target, key) cells."""
    ones = np.ones(len(cells), dtype=np.int64)
    return sparse.coo_array((ones, (cells[:, 0], cells[:, 1])), shape=shape).tocsr()


def protection_of_cells(
    method: str,
    cells_r: np.ndarray,
    cells_s: np.ndarray,
    parts: np.ndarray,
    n_targets: int,
    *,
    chunk_cells: int = CHUNK_CELLS,
) -> float:
    """The score of SDMetrics' ``CategoricalCAP`` (``method="cap"``), ``CategoricalZeroCAP``
    (``"zero_cap"``) or ``CategoricalGeneralizedCAP`` (``"generalized_cap"``) of records given
    as cells of one count grid.

    Parameters
    ----------
    method
        ``"cap"``, ``"zero_cap"`` or ``"generalized_cap"``.
    cells_r, cells_s
        (n, 2) and (m, 2) (target, key) cells of the real and synthetic records (e.g. rows of a
        :class:`~capkit.counts.table.KeyTargetTable`'s ``record_cell``), any subset of them.
    parts
        (J, p) per-column codes of the key combinations (:func:`capkit.attacks.gcap.key_parts`).
    n_targets
        Number of target levels I of the grid.
    """
    shape = (n_targets, len(parts))
    s = count_cells(cells_s, shape)
    if method == "generalized_cap":
        probability = generalized_probabilities_of_cells(parts, cells_r, s,
                                                         chunk_cells=chunk_cells)
        return 1.0 - float(probability.mean())
    return one_minus_cap(count_cells(cells_r, shape), s, 2 if method == "cap" else 1)


def generalized_probabilities_of_cells(
    parts: np.ndarray,
    cells_r: np.ndarray,
    s: cap.Table,
    *,
    chunk_cells: int = CHUNK_CELLS,
) -> np.ndarray:
    """Per real record (a row of ``cells_r``), the generalized CAP probability.

    ``s`` is the synthetic count table; ``parts`` as :func:`capkit.attacks.gcap.key_parts`. One
    pool per distinct real key: its synthetic class when present, else every synthetic key at
    the minimal Hamming distance (:func:`capkit.attacks.gcap.nearest_pools`, the GCAP
    attacker's pools).
    """
    tgt_r, key_r = cells_r.T
    query, position = np.unique(key_r, return_inverse=True)
    pools = gcap.nearest_pools(s, parts, query, chunk_cells=chunk_cells)
    size = np.asarray(pools.sum(axis=0)).ravel()
    hits = np.asarray(pools.tocsr()[tgt_r, position]).ravel()
    return hits / size[position]


__all__ = [
    "CHUNK_CELLS",
    "CategoricalCAP",
    "CategoricalGeneralizedCAP",
    "CategoricalZeroCAP",
    "count_cells",
    "generalized_cap_probabilities",
    "generalized_probabilities_of_cells",
    "one_minus_cap",
    "protection_of_cells",
]
