"""Linkability (Giomi et al. 2022, anonymeter): can the synthetic data join two halves of a
member's record?

An attacker holds two data sets about the same people, one with the columns ``cols_a``, the
other with ``cols_b``. For each record they look up the ``n_neighbors`` nearest synthetic records
of each half (anonymeter's mixed-type distance, :mod:`capkit.distance.mixed_knn`); the record is
**linked** when the two sets share a synthetic record. capkit attacks every record (anonymeter
samples 500 by default), keeps each record's neighbours and distances (``.records``), runs the
same attack on a control set (holdout records not used for the synthesis) and a seeded random
baseline (two random draws of ``n_neighbors`` synthetic records intersect), and compares them
with :mod:`capkit.control`.

Ties: when several synthetic records share the k-th distance, which of them are "the k nearest"
is a convention (anonymeter takes numba's quicksort order). A fixed rule such as "the lowest
synthetic positions" in both halves makes the two halves pick the *same* tied record and link
where no attacker could know to: it inflates the count. capkit therefore scores each record by
what its ties imply, the probability ``p_link`` that its two k nearest sets meet when each half
orders its ties uniformly at random, independently of the other (the expected link over tie
orders; :func:`_link_probability` gives the closed form), and counts ``n_success`` as the sum
of these probabilities (a real number, the expected links). Each record also gets
``link_possible`` (a link under some tie order) and ``link_certain`` (under every tie order):
the links of *any* tie order, anonymeter's included, lie in ``links_range``, and ``n_tied``
records are the ones a tie decides. ``docs/anonymeter.md`` says why this rule.

Cost: each half is searched once per distinct row of its columns (identical rows share their
neighbours) and the links are worked out once per distinct pair of rows. A distinct row is
compared with the synthetic records sharing its non-numeric values; in a group of many of them
only with those within a k-d tree bound of its k-th distance on one numeric column
(:func:`capkit.distance.mixed_knn.nearest`), so the search costs about ``n log m`` plus the
candidates near each record, not ``n x m``; the ties' bands cost their sizes. On a bootstrap of
Adult with 1% noise, 1M members, 500k holdout and 1M synthetic records take 21 to 25 CPU
seconds (``benchmarks/bench_growth.py --family linkability``). Rows whose nearest synthetic
records all differ in a non-numeric value (k-th distance >= 1 in their group) are compared
with every synthetic record: ``n_far x m``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.attacks._sampling import sample_rows
from capkit.control import (
    AnonymeterResults,
    ControlComparison,
    attack_risks,
)
from capkit.counts.rows import unique_rows
from capkit.counts.runs import concatenated_ranges
from capkit.distance.mixed_knn import CELLS, encode, nearest
from capkit.errors import CapkitError

__all__ = ["LinkabilityResult", "linkability"]


@dataclass(frozen=True)
class LinkabilityResult:
    """Result of :func:`linkability`.

    Attributes
    ----------
    records
        One row per attacked original record: ``row`` (position in ``original``), ``p_link``
        (probability of a link over random tie orders), ``link_possible``, ``link_certain``,
        ``nn_a1..k`` / ``nn_b1..k`` (positions in ``synthetic``, nearest first, ties listed by
        lowest position) with distances ``d_a1..k`` / ``d_b1..k``,
        ``n_at_kth_a`` / ``n_at_kth_b`` (synthetic records at the k-th distance) and
        ``tie_a`` / ``tie_b`` (the k nearest set depends on the tie order).
    control_records
        The same for the control records, or None.
    aux_cols, n_neighbors
        The halves and k.
    n_attacks, n_success, links_range, n_tied
        Records attacked, expected links over random tie orders (the sum of ``p_link``, a
        float), (certain, possible) number of links over all tie orders, records whose link
        a tie decides.
    n_baseline
        Links of the seeded random baseline (one per attacked record).
    n_control_attacks, n_control, control_links_range
        The same for the control (None without one).
    risk, risk_ci, risk_reference
        Headline risk: against the control ("control") or, without one, against the random
        baseline ("baseline").
    control, baseline
        :class:`~capkit.control.ControlComparison` of the members with the control, and with
        the baseline.
    anonymeter
        anonymeter's rates and risks on these counts (n_attacks = (members, members, control)).
    """

    records: pd.DataFrame
    control_records: pd.DataFrame | None
    aux_cols: tuple[tuple[str, ...], tuple[str, ...]]
    n_neighbors: int
    n_attacks: int
    n_success: float
    links_range: tuple[int, int]
    n_tied: int
    n_baseline: int
    n_control_attacks: int | None
    n_control: float | None
    control_links_range: tuple[int, int] | None
    risk: float
    risk_ci: tuple[float, float]
    risk_reference: str
    control: ControlComparison
    baseline: ControlComparison
    anonymeter: AnonymeterResults


def linkability(original: pd.DataFrame, synthetic: pd.DataFrame,
                aux_cols: tuple[list[str], list[str]], *, n_neighbors: int = 1,
                control: pd.DataFrame | None = None, n_attacks: int | None = None,
                seed: int | None = 0, confidence: float = 0.95, progress: bool = False
                ) -> LinkabilityResult:
    """Linkability attack of Giomi et al. (2022, anonymeter, PoPETs 2023) on every record.

    Parameters
    ----------
    original
        The members (records the synthetic data was made from).
    synthetic
        The synthetic records (any index; neighbours are reported as positions).
    aux_cols
        ``(cols_a, cols_b)``: the columns of the attacker's two data sets.
    n_neighbors
        k: a record is linked when the k nearest synthetic records of its two halves meet.
    control
        Holdout records, attacked the same way, or None.
    n_attacks
        None (default): every record of ``original`` and ``control``. Otherwise a seeded sample
        of that many records of each (all of a smaller control). As in anonymeter, the numeric
        scaling ranges are taken over the synthetic and the attacked records.
    seed
        Seed of ``numpy.random.default_rng`` (the baseline draws, the optional sample).
    confidence
        Confidence level of the intervals.
    progress
        Show progress bars.

    Returns
    -------
    LinkabilityResult

    Raises
    ------
    CapkitError
        Non-frame or empty input, malformed ``aux_cols``, a column missing or numeric in one
        frame only, ``n_neighbors`` outside 1..len(synthetic), ``n_attacks`` larger than the
        original.
    """
    halves = _check(original, synthetic, control, aux_cols)
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, int | np.integer) or not (
            1 <= n_neighbors <= len(synthetic)):
        raise CapkitError(f"n_neighbors must be an integer from 1 to len(synthetic) "
                          f"({len(synthetic)}), got {n_neighbors!r}")
    if n_attacks is not None and (isinstance(n_attacks, bool) or not isinstance(
            n_attacks, int | np.integer) or not 1 <= n_attacks <= len(original)):
        raise CapkitError(f"n_attacks must be None or from 1 to len(original) "
                          f"({len(original)}), got {n_attacks!r}")
    rng = np.random.default_rng(seed)
    syn = synthetic.reset_index(drop=True)
    rows = sample_rows(len(original), n_attacks, rng)
    records = _attack(original.iloc[rows].reset_index(drop=True), syn, halves, n_neighbors,
                      "original", progress)
    records.insert(0, "row", rows)
    control_records = None
    if control is not None:
        control_rows = sample_rows(len(control), n_attacks, rng)
        control_records = _attack(control.iloc[control_rows].reset_index(drop=True), syn,
                                  halves, n_neighbors, "control", progress)
        control_records.insert(0, "row", control_rows)
    n = len(records)
    n_success = _expected_count(records)
    n_baseline = _baseline_links(len(syn), n, n_neighbors, rng)
    n_ctl = k_ctl = None
    if control_records is not None:
        n_ctl, k_ctl = len(control_records), _expected_count(control_records)
    risks = attack_risks(n_success, n, n_baseline, k_ctl, n_ctl, confidence=confidence)
    return LinkabilityResult(
        records=records, control_records=control_records,
        aux_cols=(tuple(halves[0]), tuple(halves[1])), n_neighbors=int(n_neighbors),
        n_attacks=n, n_success=n_success, links_range=_range(records),
        n_tied=int((records["link_possible"] != records["link_certain"]).sum()),
        n_baseline=n_baseline, n_control_attacks=n_ctl, n_control=k_ctl,
        control_links_range=None if control_records is None else _range(control_records),
        risk=risks.risk, risk_ci=risks.risk_ci, risk_reference=risks.reference,
        control=risks.control, baseline=risks.baseline, anonymeter=risks.anonymeter)


def _expected_count(records: pd.DataFrame) -> float:
    """Expected number of links: the sum of the records' link probabilities, summed in record
    order (a fixed order of IEEE additions; numpy's pairwise sum of a fixed-length array)."""
    return float(np.sum(records["p_link"].to_numpy()))


def _range(records: pd.DataFrame) -> tuple[int, int]:
    return int(records["link_certain"].sum()), int(records["link_possible"].sum())


def _check(original, synthetic, control, aux_cols) -> tuple[list[str], list[str]]:
    for frame, name in ((original, "original"), (synthetic, "synthetic"), (control, "control")):
        if name == "control" and frame is None:
            continue
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        if len(frame) == 0:
            raise CapkitError(f"{name} is empty (0 rows)")
        if frame.columns.has_duplicates:
            raise CapkitError(f"{name} has duplicated column names")
    if (not isinstance(aux_cols, tuple | list) or len(aux_cols) != 2
            or any(isinstance(h, str) or not isinstance(h, tuple | list | pd.Index) or not len(h)
                   for h in aux_cols)):
        raise CapkitError("aux_cols must be a pair (cols_a, cols_b) of non-empty lists of "
                          f"column names, got {aux_cols!r}")
    halves = [list(aux_cols[0]), list(aux_cols[1])]
    for half in halves:
        if len(set(half)) != len(half):
            raise CapkitError(f"aux_cols half {half} names a column twice")
    return halves[0], halves[1]


def _attack(targets: pd.DataFrame, syn: pd.DataFrame, halves: tuple[list[str], list[str]],
            k: int, name: str, progress: bool) -> pd.DataFrame:
    """Neighbours of both halves, the expected link over tie orders and its range.

    Records with the same values in a half share that half's neighbours, so each half is
    searched once per distinct row, and the links are worked out once per distinct pair of
    rows (a "joint" row) before being spread back to the records.
    """
    data_a, rows_a = encode(targets, syn, halves[0], (name, "synthetic")).distinct_queries()
    data_b, rows_b = encode(targets, syn, halves[1], (name, "synthetic")).distinct_queries()
    pairs = np.column_stack([rows_a, rows_b])
    first, rows = unique_rows(pairs)
    ja, jb = pairs[first, 0], pairs[first, 1]
    band_a, band_b = _Band(data_a.n_candidates), _Band(data_b.n_candidates)
    near_a = nearest(data_a, k, on_band=band_a.add, progress=progress)
    near_b = nearest(data_b, k, on_band=band_b.add, progress=progress)
    meet = _meet(band_a.done(data_a.n_queries), band_b.done(data_b.n_queries), ja, jb)
    below_a, at_a = near_a.n_below[ja], near_a.n_at_kth[ja]
    below_b, at_b = near_b.n_below[jb], near_b.n_at_kth[jb]
    possible, certain = _link_range(meet, below_a, at_a, below_b, at_b, k)
    expected = _link_probability(meet, below_a, at_a, below_b, at_b, k)
    out = {"p_link": expected[rows], "link_possible": possible[rows],
           "link_certain": certain[rows]}
    for tag, near, at in (("a", near_a, rows_a), ("b", near_b, rows_b)):
        for j in range(k):
            out[f"nn_{tag}{j + 1}"] = near.index[at, j]
        for j in range(k):
            out[f"d_{tag}{j + 1}"] = near.distance[at, j]
        out[f"n_at_kth_{tag}"] = near.n_at_kth[at]
        out[f"tie_{tag}"] = (near.n_below + near.n_at_kth > k)[at]
    return pd.DataFrame(out)


@dataclass
class _Band:
    """The (query, candidate, at k-th distance) pairs :func:`nearest` hands over, gathered and
    then sorted by query and candidate (:meth:`done`), so that a query's band is one run."""

    n_candidates: int
    keys: np.ndarray | None = None
    at: np.ndarray | None = None
    starts: np.ndarray | None = None

    def __post_init__(self) -> None:
        self._parts: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, queries: np.ndarray, cands: np.ndarray, at: np.ndarray) -> None:
        self._parts.append((queries.astype(np.int64) * self.n_candidates + cands, at))

    def done(self, n_queries: int) -> _Band:
        keys = np.concatenate([key for key, _ in self._parts])
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.at = np.concatenate([at for _, at in self._parts])[order]
        self.starts = np.searchsorted(self.keys, np.arange(n_queries + 1) * self.n_candidates)
        self._parts = []
        return self


def _meet(band_a: _Band, band_b: _Band, ja: np.ndarray, jb: np.ndarray) -> np.ndarray:
    """Per joint row (ja, jb): |S_a & S_b|, |S_a & T_b|, |T_a & S_b|, |T_a & T_b|, where S is
    the set of candidates below a half's k-th distance and T the set at it.

    Each joint row walks the smaller of its two bands and looks every candidate up in the
    other band (a binary search over sorted integer keys): the work is the sum over joint rows
    of the smaller band (a half made of one binary column ties half the synthetic records).
    """
    meet = np.zeros((4, len(ja)), dtype=np.int64)
    size_a = band_a.starts[ja + 1] - band_a.starts[ja]
    size_b = band_b.starts[jb + 1] - band_b.starts[jb]
    from_a = size_a <= size_b
    for walk, other, q_walk, q_other, sizes, mine in (
            (band_a, band_b, ja, jb, size_a, from_a), (band_b, band_a, jb, ja, size_b, ~from_a)):
        ids = np.flatnonzero(mine)
        if len(ids) == 0:
            continue
        reps = sizes[ids]
        ends = np.cumsum(reps)
        bounds = np.unique(np.searchsorted(ends, np.arange(0, int(ends[-1]), CELLS),
                                           side="right"))
        for lo, hi in zip(bounds, [*bounds[1:], len(ids)], strict=True):
            part, r = ids[lo:hi], reps[lo:hi]
            pair = np.repeat(np.arange(len(r)), r)
            position = concatenated_ranges(r, walk.starts[q_walk[part]])
            key = (q_other[part][pair] * other.n_candidates
                   + walk.keys[position] % walk.n_candidates)
            found_at = np.minimum(np.searchsorted(other.keys, key), len(other.keys) - 1)
            found = other.keys[found_at] == key
            at_a, at_b = walk.at[position], other.at[found_at]
            if walk is band_b:
                at_a, at_b = at_b, at_a
            for slot, hit in enumerate((~at_a & ~at_b, ~at_a & at_b, at_a & ~at_b,
                                        at_a & at_b)):
                meet[slot] += np.bincount(part[pair[found & hit]], minlength=len(ja))
    return meet


def _falling_ratio(top: np.ndarray, bottom: np.ndarray, length: np.ndarray, k: int
                   ) -> np.ndarray:
    """prod_{i < length} (top - i) / (bottom - i), elementwise (length <= k; 0 once top - i
    reaches 0). A fixed sequence of IEEE operations, so the same on every machine."""
    out = np.ones(np.broadcast(top, bottom, length).shape)
    for i in range(k):
        use = i < length
        out = np.where(use, out * (top - i) / np.where(use, bottom - i, 1), out)
    return out


def _link_probability(meet: np.ndarray, below_a: np.ndarray, at_a: np.ndarray,
                      below_b: np.ndarray, at_b: np.ndarray, k: int) -> np.ndarray:
    """Probability that the two k nearest sets meet when each half orders its ties at random.

    Each half takes its ``below`` candidates (S) and ``need = k - below`` of the ``at``
    candidates at its k-th distance (T), a uniformly random subset C, independently of the
    other half. With ss, st, ts, tt the sizes of S_a & S_b, S_a & T_b, T_a & S_b, T_a & T_b:
    if ss > 0 the halves always meet; otherwise they miss each other iff C_a avoids T_a & S_b,
    C_b avoids S_a & T_b and C_a & C_b is empty, so, summing over j = |C_a & T_a & T_b|,

        P(miss) = sum_j  C(need_a, j) (tt)_j (x_a)_(need_a - j) / (at_a)_need_a
                        * (at_b - st - j)_need_b / (at_b)_need_b,

    with x_a = at_a - ts - tt and (n)_r the falling factorial n (n-1) ... (n-r+1).
    """
    ss, st, ts, tt = meet
    need_a, need_b = k - below_a, k - below_b
    x_a = at_a - ts - tt
    pascal = np.array([[math.comb(n, j) for j in range(k + 1)] for n in range(k + 1)], float)
    miss = np.zeros(len(ss))
    for j in range(k + 1):
        rest = need_a - j
        ok = rest >= 0
        term = (pascal[need_a, j]
                * _falling_ratio(tt, at_a, np.where(ok, j, 0), k)
                * _falling_ratio(x_a, at_a - j, np.maximum(rest, 0), k)
                * _falling_ratio(at_b - st - j, at_b, need_b, k))
        miss = miss + np.where(ok, term, 0.0)
    return np.where(ss > 0, 1.0, 1.0 - miss)


def _link_range(meet: np.ndarray, below_a: np.ndarray, at_a: np.ndarray, below_b: np.ndarray,
                at_b: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Whether the two k nearest sets meet under some / every choice among tied candidates.

    Each half takes all candidates below its k-th distance (S, ``below_*`` of them) and
    ``need = k - |S|`` of those at it (T, ``at_*`` of them). They can meet iff S_a, S_b already
    meet or a tie can add a common one (S_a & T_b, T_a & S_b, T_a & T_b non-empty). They can
    avoid each other iff S_a, S_b are disjoint and a picks ``need_a`` from T_a minus S_b, b
    picks ``need_b`` from T_b minus S_a, disjointly: with x, y the candidates only one side may
    take and z the shared ones, need_a <= x + z, need_b <= y + z, need_a + need_b <= x + y + z.
    """
    ss, st, ts, tt = meet
    possible = (ss + st + ts + tt) > 0
    need_a, need_b = k - below_a, k - below_b
    x = at_a - ts - tt   # tied in a, in neither band of b
    y = at_b - st - tt   # tied in b, in neither band of a
    z = tt
    avoidable = ((ss == 0) & (need_a <= x + z) & (need_b <= y + z)
                 & (need_a + need_b <= x + y + z))
    return possible, ~avoidable


def _baseline_links(n_syn: int, n: int, k: int, rng: np.random.Generator) -> int:
    """Seeded random baseline: per attacked record two independent draws of k distinct
    synthetic records; a link when they meet (expected rate 1 - C(n-k, k) / C(n, k))."""
    first, second = _distinct_draws(n_syn, n, k, rng), _distinct_draws(n_syn, n, k, rng)
    return int((first[:, :, None] == second[:, None, :]).any(axis=(1, 2)).sum())


def _distinct_draws(n_syn: int, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """n rows of k distinct positions in 0..n_syn-1, uniformly (sequential draws, each skipping
    the positions already taken)."""
    taken = np.empty((n, 0), dtype=np.int64)
    for j in range(k):
        value = rng.integers(0, n_syn - j, size=n)
        for previous in np.sort(taken, axis=1).T:  # shift past taken positions, ascending
            value += value >= previous
        taken = np.column_stack([taken, value])
    return taken
