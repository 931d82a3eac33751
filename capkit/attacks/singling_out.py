"""Singling out (Giomi et al. 2022, anonymeter): can the synthetic data tell an attacker a
combination of attributes that exactly one member has?

The attacker writes queries from the synthetic records (conjunctions of conditions such as
``age <= 24 & education == 'Assoc-acdm' & race == 'Black'``) that match exactly one synthetic
record, and bets that each matches exactly one original record. The success rate is the share
of queries that single out in the original data; a baseline attacker writes random queries; a
control (holdout records not used for the synthesis) tells disclosure from what any sample of
the population would give (:mod:`capkit.control`).

capkit differs from anonymeter 1.1 where anonymeter is wrong by design; ``anonymeter_compat``
reproduces anonymeter instead:

======================  ========================================  ===============================
                        capkit (default)                          ``anonymeter_compat=True``
======================  ========================================  ===============================
duplicates              counted as they are: two identical        every frame deduplicated first,
                        members cannot be singled out             so they can
text with quotes        compared as written                       escaped, never match (its bug)
query draws             seeded, vectorised (rule below)           anonymeter's own draws (same
                                                                  seed, same queries)
denominator             the queries made                          ``n_attacks`` asked for
control of other size   exact: the larger set at the smaller      anonymeter's fitted correction
                        one's size (hypergeometric)               (seeded subsets)
risk without control    against the random baseline               the attack rate itself (the
                        (the baseline is subtracted)              baseline never subtracted)
control rate 100%       risk undefined: NaN, a note and a         its warning tests a Wilson
                        RuntimeWarning                            centre for 1: never fires
======================  ========================================  ===============================

Column order: the draws pick columns by position, so capkit first puts the columns in name
order (anonymeter's compatibility mode keeps the frame's order, as anonymeter does): the same
data gives the same queries whatever the order of its columns.

Query rule (multivariate): each synthetic record, in a seeded random order, gives one query on
a seeded random set of ``n_cols`` columns (missing -> ``is_null``; a number -> ``>= v`` above
the synthetic median, else ``<= v``; other values -> ``== v``). ``n_attacks=None`` keeps every
such query that singles out in the synthetic data (every synthetic record attacked once);
``n_attacks=N`` keeps the first N, moving each record on to column sets it has not used when
one pass is not enough; N larger than the number of distinct singling-out queries is an error.
Univariate: one-condition queries (``is_null`` of the only missing value, ``<= min``,
``>= max``, ``== v`` of a value occurring once) that single out in the synthetic data, in a
seeded random order.

Cost: with ``n_attacks=None`` the n synthetic records' candidate queries are counted in one
batch, then the main and baseline queries once per frame (synthetic, members, control). The
queries on one set of columns are counted together from one histogram of the records' cells
(:mod:`capkit.attacks._query_grid`): O(s (n k + G) + q 2^k) per frame for s sets of k columns
(s <= C(columns, n_cols)), grids of G <= 2^22 cells and q queries: linear in the records for a
fixed number of columns, where counting each query over the frame was O(q n k / 64). Sets
whose grid would be larger, and sets with few queries, are counted by bit masks.

Memory: O(N p + q k + G) above the frames, for N records of the three frames, p columns, q
queries of k conditions and the largest grid G: the frames are read, not copied; each column is
coded once per frame in the narrowest integer type that holds its distinct values (1 to 4 bytes
a record); the candidate queries take a few int64 per query and condition; a grid two int64
arrays of G cells; the bit masks held at once at most 16 bytes per record and column of the
frame (at least 64 MB, so that small frames take few blocks, and at most 256 MB), whatever the
number of queries. Measured (``benchmarks/bench_growth.py``, a bootstrap of Adult with 1%
noise, 1,000,000 members and synthetic records and 500,000 holdout records, 15 columns; peak
resident memory of the process, the 0.38 GB of data included): 1.79 GB before these bounds,
0.97 GB with them (69.6 and 62.7 CPU-s in the same minutes), the same results.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.attacks import _query_generation as generation
from capkit.attacks._control_size import anonymeter_correction, matched_singles
from capkit.attacks._sampling import check_n_attacks
from capkit.attacks.queries import ConditionTable, FrameColumns, column_kind, query_text
from capkit.control import (
    AnonymeterResults,
    ControlComparison,
    attack_risks,
)
from capkit.errors import CapkitError

__all__ = ["MODES", "SinglingOutResult", "singling_out"]

MODES = ("multivariate", "univariate")


@dataclass(frozen=True)
class SinglingOutResult:
    """Result of :func:`singling_out`.

    Attributes
    ----------
    mode
        "multivariate" or "univariate".
    queries
        One row per query: ``kind`` ("main" or "baseline"), ``query`` (text), ``conditions``
        (tuple of (column, op, value)), ``source_row`` (the synthetic row it was written from;
        -1 for univariate and baseline queries), ``count_synthetic``, ``count_original``,
        ``count_control`` (matches; <NA> without a control), ``singles_out_original``,
        ``singles_out_control``, ``original_row`` (the member singled out, position in
        ``original``; -1 if none) and, when members and control differ in size,
        ``p_original_matched`` / ``p_control_matched`` (the probability the query singles out at
        the common size).
    n_queries
        Main queries made (capkit's denominator).
    n_success, n_baseline, n_control
        Main queries singling out a member, baseline queries singling out a member, main
        queries singling out a control record (raw counts; n_control None without control).
    risk, risk_ci, risk_reference
        The headline risk and its interval; ``risk_reference`` says what it compares with:
        "control" (members vs control), "baseline" (no control: attack vs random queries) or
        "anonymeter" (compatibility mode: anonymeter's risk).
    control
        Members vs control (plain rates; at the common size when sizes differ), or members only.
    baseline
        The attack vs the random baseline on the members (plain rates).
    anonymeter
        anonymeter's rates and risks (:func:`capkit.control.anonymeter_results`) on these
        counts; in compatibility mode anonymeter's own numbers.
    n_original, n_control_records
        Records counted in (after deduplication in compatibility mode).
    n_control_effective
        The control count entering the comparison (size-matched or anonymeter-corrected).
    anonymeter_compat
        Whether anonymeter's behaviour was reproduced.
    notes
        What the user should know (fewer queries than asked in compatibility mode, ...).
    """

    mode: str
    queries: pd.DataFrame
    n_queries: int
    n_success: int
    n_baseline: int
    n_control: int | None
    risk: float
    risk_ci: tuple[float, float]
    risk_reference: str
    control: ControlComparison
    baseline: ControlComparison
    anonymeter: AnonymeterResults
    n_original: int
    n_control_records: int | None
    n_control_effective: float | None
    anonymeter_compat: bool
    notes: tuple[str, ...] = ()

    @property
    def count_text(self) -> str:
        """The members' count behind the members' rate (``control.members``), in words: the
        rate printed beside it is this count's share. With a control of another size the
        count is the expected number at the common size, and the raw count is said too."""
        members = self.control.members
        k, n = members.k, int(members.n)
        if k == self.n_success and n == self.n_queries:
            return f"{self.n_success:,} of {n:,} queries single out a member"
        if n != self.n_queries:  # anonymeter's denominator: the queries asked for
            head = f"{self.n_success:,} of {n:,} queries asked for single out a member"
            head += f" ({self.n_queries:,} could be made)"
        else:
            head = (f"{k:,.2f} of {n:,} queries expected to single out a member at the "
                    f"common size of {min(self.n_original, self.n_control_records or 0):,} "
                    f"records")
        return head if k == self.n_success else (
            f"{head}; {self.n_success:,} single out one of all {self.n_original:,} members")


def _check_frame(frame: object, argument: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise CapkitError(f"{argument} must be a pandas DataFrame, got {type(frame).__name__}")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise CapkitError(f"{argument} is empty ({frame.shape[0]} rows x {frame.shape[1]} "
                          "columns)")
    if frame.columns.has_duplicates:
        raise CapkitError(f"{argument} has duplicated column names "
                          f"{frame.columns[frame.columns.duplicated()].tolist()}")
    return frame


def prepare_frames(original: pd.DataFrame, synthetic: pd.DataFrame,
                   control: pd.DataFrame | None, columns: list[str] | None = None
                   ) -> tuple[list[str], dict[str, str], dict[str, pd.DataFrame]]:
    """Check the frames and return (columns, kinds, frames restricted to the columns with a
    0..n-1 index). Columns default to the synthetic frame's; every frame must hold them with
    the same kind (numeric, boolean, or text/categorical), else a CapkitError names the column.
    """
    frames = {"synthetic": _check_frame(synthetic, "synthetic"),
              "original": _check_frame(original, "original")}
    if control is not None:
        frames["control"] = _check_frame(control, "control")
    columns = list(synthetic.columns) if columns is None else list(columns)
    kinds: dict[str, str] = {}
    for argument, frame in frames.items():
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise CapkitError(f"column(s) {missing} missing from {argument}")
        for column in columns:
            kind = column_kind(frame[column])
            if kinds.setdefault(column, kind) != kind:
                raise CapkitError(
                    f"column {column!r} is {kinds[column]} in synthetic but {kind} in "
                    f"{argument}; code it the same way in both (e.g. numbers as numbers)")
    for column in columns:
        if kinds[column] != "text":
            continue
        texts = {argument: {isinstance(v, str) for v in pd.unique(frame[column].dropna())}
                 for argument, frame in frames.items()}
        if {True} in texts.values() and {False} in texts.values():
            said = ", ".join(f"{'text' if v == {True} else 'non-text'} in {argument}"
                             for argument, v in texts.items() if len(v) == 1)
            raise CapkitError(f"column {column!r} holds {said} values; code it the same way in "
                              "every frame")
    prepared = {name: columns_view(frame, columns) for name, frame in frames.items()}
    return columns, kinds, prepared


def columns_view(frame: pd.DataFrame, columns: list) -> pd.DataFrame:
    """``frame[columns]`` with a 0..n-1 index, sharing the columns' arrays with ``frame``
    (no copy of the records; the attack only reads them)."""
    return pd.DataFrame({column: frame[column].array for column in columns}, copy=False)


def singling_out(original: pd.DataFrame, synthetic: pd.DataFrame, *,
                 mode: str = "multivariate", n_cols: int = 3, n_attacks: int | None = None,
                 control: pd.DataFrame | None = None, seed: int | None = 0,
                 anonymeter_compat: bool = False, confidence: float = 0.95,
                 progress: bool = False) -> SinglingOutResult:
    """Singling-out attack of Giomi et al. (2022, anonymeter, PoPETs 2023), every query kept.

    Parameters
    ----------
    original
        The members: the records the synthetic data was made from.
    synthetic
        The synthetic records; its columns are the attack's columns (extra columns of the
        other frames are ignored). Any index.
    mode
        "multivariate" (queries on ``n_cols`` columns) or "univariate" (one column).
    n_cols
        Columns per multivariate query (ignored by "univariate"; its baseline uses 1).
    n_attacks
        Queries wanted; None: every synthetic record attacked once (module docstring). In
        compatibility mode the denominator of the rates, as in anonymeter.
    control
        Holdout records (not used for the synthesis), or None.
    seed
        Seed of ``numpy.random.default_rng`` for every random step.
    anonymeter_compat
        Reproduce anonymeter 1.1 (deduplication, its query draws, its denominator, its control
        correction, the quote bug, its risk); see the module docstring.
    confidence
        Confidence level of the intervals.
    progress
        Show a progress bar of the synthetic records tried (on more than one batch of them).

    Returns
    -------
    SinglingOutResult

    Raises
    ------
    CapkitError
        Non-frame or empty input, a column missing or coded differently in a frame, an unknown
        mode, ``n_cols`` outside 1..number of columns, ``n_attacks`` < 1 or (capkit mode) larger
        than the number of distinct singling-out queries.
    """
    if mode not in MODES:
        raise CapkitError(f"mode must be one of {MODES}, got {mode!r}")
    columns, kinds, frames = prepare_frames(original, synthetic, control)
    if not anonymeter_compat:  # draws by column position: name order, whatever the frames' order
        columns = sorted(columns, key=lambda c: (str(c), type(c).__name__))
        frames = {name: columns_view(frame, columns) for name, frame in frames.items()}
    if mode == "multivariate" and (isinstance(n_cols, bool) or not isinstance(
            n_cols, int | np.integer) or not 1 <= n_cols <= len(columns)):
        raise CapkitError(f"n_cols must be an integer from 1 to the number of columns "
                          f"({len(columns)}), got {n_cols!r}")
    check_n_attacks(n_attacks)
    rows = {}
    if anonymeter_compat:  # polars unique(maintain_order=True): first occurrences, in order
        for name, frame in frames.items():
            keep = ~frame.duplicated().to_numpy()
            rows[name] = np.flatnonzero(keep)
            frames[name] = frame[keep].reset_index(drop=True)
    else:
        rows = {name: np.arange(len(frame)) for name, frame in frames.items()}
    prepared = {name: FrameColumns(frame, name) for name, frame in frames.items()}
    rng = np.random.default_rng(seed)
    notes: list[str] = []
    syn = prepared["synthetic"]
    attempts = None

    if mode == "multivariate":
        vocab = generation.Vocabulary(frames["synthetic"], kinds, escape=anonymeter_compat)
        if anonymeter_compat and n_attacks is not None:
            source, ids, attempts = generation.multivariate_anonymeter(
                vocab, syn, n_cols, n_attacks, rng)
        else:
            source, ids = generation.multivariate(vocab, syn, n_cols, n_attacks, rng, progress)
        main = ConditionTable(vocab.conditions, ids)
        source = rows["synthetic"][source]
        base_cols = n_cols
    else:
        main = generation.univariate(frames["synthetic"], kinds, syn, rng)
        if n_attacks is not None and n_attacks < len(main.index):
            main = ConditionTable(main.conditions, main.index[:n_attacks])
        source = np.full(len(main.index), -1, dtype=np.int64)
        base_cols = 1
    n_made = len(main.index)
    if n_made == 0:
        raise CapkitError(f"no {mode} query singles out a synthetic record (every synthetic "
                          "record has a twin on the columns tried)")
    if n_attacks is not None and n_made < n_attacks:
        if not anonymeter_compat:
            raise CapkitError(f"n_attacks={n_attacks} is larger than possible: only {n_made} "
                              f"{mode} queries single out a synthetic record")
        tried = "" if attempts is None else f" in {attempts:,} attempts"
        notes.append(f"only {n_made} of the {n_attacks} queries asked for could be made{tried}; "
                     f"as in anonymeter the rates still divide by {n_attacks}")
        warnings.warn(notes[-1], UserWarning, stacklevel=2)
    denominator = n_attacks if (anonymeter_compat and n_attacks is not None) else n_made

    base = ConditionTable.from_queries(generation.baseline(
        frames["synthetic"], kinds, denominator, base_cols, rng, anonymeter_compat))
    table = _query_table(main, base, source, prepared, rows)
    is_main = (table["kind"] == "main").to_numpy()
    n_success = int(table["singles_out_original"][is_main].sum())
    n_baseline = int(table["singles_out_original"][~is_main].sum())
    n_ori = prepared["original"].n
    n_control = n_ctl = k_control = None
    k_members = float(n_success)
    if "control" in prepared:
        n_ctl = prepared["control"].n
        n_control = int(table["singles_out_control"][is_main].sum())
        if anonymeter_compat:
            k_control = float(n_control)
            if n_ctl != n_ori and n_control > 0:
                k_control *= anonymeter_correction(n_made, n_ctl, n_ori)
        else:
            k_members, k_control = _size_matched(table, is_main, n_ori, n_ctl)
    risks = attack_risks(k_members, denominator, n_baseline, k_control,
                         None if k_control is None else denominator,
                         k_against_baseline=n_success, anonymeter_headline=anonymeter_compat,
                         confidence=confidence)
    return SinglingOutResult(
        mode=mode, queries=table, n_queries=n_made, n_success=n_success,
        n_baseline=n_baseline, n_control=n_control, risk=risks.risk, risk_ci=risks.risk_ci,
        risk_reference=risks.reference, control=risks.control, baseline=risks.baseline,
        anonymeter=risks.anonymeter, n_original=n_ori, n_control_records=n_ctl,
        n_control_effective=k_control, anonymeter_compat=anonymeter_compat,
        notes=tuple(notes))


def _size_matched(table: pd.DataFrame, is_main: np.ndarray, n_ori: int, n_ctl: int
                  ) -> tuple[float, float]:
    """Members' and control's singling-out counts at the smaller of the two sizes (exact
    expectation over random subsets of the larger set; raw counts when sizes are equal)."""
    size = min(n_ori, n_ctl)
    p_ori = matched_singles(table["count_original"].to_numpy(dtype=np.int64), n_ori, size)
    p_ctl = matched_singles(table["count_control"].to_numpy(dtype=np.int64), n_ctl, size)
    if n_ori != n_ctl:
        table["p_original_matched"] = p_ori
        table["p_control_matched"] = p_ctl
    return float(p_ori[is_main].sum()), float(p_ctl[is_main].sum())


def _query_table(main: ConditionTable, base: ConditionTable, source: np.ndarray,
                 prepared: dict[str, FrameColumns], rows: dict[str, np.ndarray]
                 ) -> pd.DataFrame:
    """The ``.queries`` frame: conditions, text and counts of main and baseline queries."""
    # main and baseline queries counted together: one pass per frame and set of columns
    width = max(main.index.shape[1], base.index.shape[1])
    index = np.full((len(main.index) + len(base.index), width), -1, dtype=np.int64)
    index[:len(main.index), :main.index.shape[1]] = main.index
    shifted = np.where(base.index >= 0, base.index + len(main.conditions), -1)
    index[len(main.index):, :base.index.shape[1]] = shifted
    both = ConditionTable(list(main.conditions) + list(base.conditions), index)
    counted = {"synthetic": both.counts(prepared["synthetic"]),
               "original": both.counts(prepared["original"], first=True)}
    if "control" in prepared:
        counted["control"] = both.counts(prepared["control"])
    parts, start = [], 0
    for kind, table, src in (("main", main, source),
                             ("baseline", base, np.full(len(base.index), -1, np.int64))):
        part_rows = slice(start, start + len(table.index))
        start += len(table.index)
        conditions = [tuple(table.conditions[i] for i in row if i >= 0)
                      for row in table.index.tolist()]
        part = pd.DataFrame({"kind": kind, "query": [query_text(c) for c in conditions],
                             "conditions": conditions, "source_row": src})
        part["count_synthetic"] = counted["synthetic"][part_rows]
        counts, first = (x[part_rows] for x in counted["original"])
        part["count_original"] = counts
        part["singles_out_original"] = counts == 1
        part["original_row"] = np.where(counts == 1, rows["original"][first], -1)
        if "control" in prepared:
            counts = counted["control"][part_rows]
            part["count_control"] = counts
            part["singles_out_control"] = counts == 1
        else:
            part["count_control"] = pd.array([pd.NA] * len(part), dtype="Int64")
            part["singles_out_control"] = pd.array([pd.NA] * len(part), dtype="boolean")
        parts.append(part)
    return pd.concat(parts, ignore_index=True)
