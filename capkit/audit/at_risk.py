"""The people at risk: one row per member saying which measures flag the record, and a score
that ranks records across measures.

Nothing here measures again. :func:`capkit.audit.audit` keeps what each measure already
returned record by record (an :class:`Evidence` per synthesis) and :func:`records_at_risk` lays
it out; every flag is a vectorised look-up into those outputs:

``sample unique``
    The record's key combination occurs once in the original (synthpop's UiO records; Raab,
    Nowok & Dibben 2024, "Practical privacy metrics for synthetic data", Appendix), read from
    the record -> cell map of the disclosure measures' count cells
    (:class:`capkit.counts.cells.CellTable`).
``replicated unique``
    Unique in the original and in the synthesis on the keys (synthpop's repU records).
``DiSCO``
    For some target, the record's key combination has a single target value in the synthesis
    and it is the record's (the DiSCO cells of Raab, Nowok & Dibben; numeric targets as the
    audit grouped them). ``DiSCO targets`` names the targets.
``exact copy``
    Gower distance to the closest synthetic record 0 (Minieri 2022, :func:`capkit.distance.dcr`).
``near copy``
    Distance to the closest synthetic record at most the holdout's 5% quantile and above 0, the
    threshold of the report's near-copy finding (needs a holdout).
``singled out``
    A successful multivariate singling-out query (Giomi et al. 2022, anonymeter) matches this
    member alone: the query's ``original_row``.
``attack``
    For some target, the attribute attack of Hittmeir, Mayer & Ekelhart (2020) guesses this
    member's value right while it guesses wrong for every one of the holdout's look-alikes
    (the holdout records with the same key combination; there must be at least one). The
    attack's guess is a function of the keys alone, so the member and its look-alikes get the
    same guess: right for the member and wrong for all of them is what the synthesis told about
    this member beyond what it tells about anyone with its keys. A weaker rule (the look-alikes'
    rate merely below the members' rate in the combination) flags about half the right guesses
    of a synthesis that learnt nothing, by chance; a combination no holdout record has gives no
    evidence either way and is not flagged (its members' exposure shows as sample and
    replicated uniques and DiSCO). Needs a holdout. ``attack targets`` names the targets.

**Beyond the control only.** A flag says what a measure found about one record; whether that
is disclosure is what the measure's finding says, against the holdout or its no-information
baseline. A flag whose finding is "not flagged" by a control or baseline (an independent
synthesis's chance copies, a DP release's DiSCO cells that the holdout's records get as often)
is chance, and is dropped (:func:`kept_flags`); a finding not judged (no holdout, no baseline)
keeps its flags. ``sample unique`` is the original's exposure, not the synthesis's: it adds to
the score of a record that some other measure flags, and lists no record on its own.

The score is a weighted count of the flags, weights by severity (:data:`WEIGHTS`): an exact
copy 5; a near copy 3; a replicated unique 3; DiSCO, attack and singled out 2 each; a sample
unique 1 (on its own it is the original's exposure, not the synthesis's); plus
:data:`EXTRA_TARGET` for every further target disclosed by DiSCO or the attack beyond the first
of each. A near copy counts only when the record is not an exact copy (an exact copy is near by
definition). Ranks order the members of one synthesis by score, ties by row (the smaller first):
the same inputs give the same ranks on any machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from capkit.audit.verdicts import FLAGGED
from capkit.counts.cells import CellTable
from capkit.counts.rows import unique_rows
from capkit.disclosure.measures import cell_tables

__all__ = ["EXTRA_TARGET", "FLAGS", "FLAG_FINDINGS", "MASK", "RARE_VALUE", "WEIGHTS",
           "Distances", "Evidence", "flag_lists", "kept_flags", "masked", "records_at_risk",
           "top"]

#: The findings (family, measure) whose verdict decides whether a flag counts (module note).
FLAG_FINDINGS = {
    "exact copy": (("copies", "exact copies"), ("copies", "synthetic records copying a member")),
    "near copy": (("copies", "near copies"),),
    "replicated unique": (("identity", "repU"),),
    "DiSCO": (("attribute", "DiSCO"),),
    "attack": (("attack", "knn attack"),),
    "singled out": (("singling out", "multivariate singling out"),),
}

#: The measures that can flag a record, in the table's column order.
FLAGS = ("exact copy", "near copy", "replicated unique", "DiSCO", "attack", "singled out",
         "sample unique")

#: Weight of each flag in the score (by severity).
WEIGHTS = {"exact copy": 5.0, "near copy": 3.0, "replicated unique": 3.0, "DiSCO": 2.0,
           "attack": 2.0, "singled out": 2.0, "sample unique": 1.0}

#: Added to the score for each target disclosed beyond the first (DiSCO and attack each).
EXTRA_TARGET = 0.25

#: A key value held by fewer members than this is masked in a report (unless asked to show).
RARE_VALUE = 10

#: What a masked value is shown as.
MASK = "***"


@dataclass
class Evidence:
    """What the audit's measures returned record by record, for one synthesis.

    Attributes
    ----------
    cells
        Target -> the disclosure measures' count cells (with their record -> cell map).
    distance
        Each member's Gower distance to the closest synthetic record (row order), or None.
    near_cut
        The near-copy threshold (the holdout's 5% quantile), None without a holdout.
    holdout_distance
        Each holdout record's Gower distance to the closest synthetic record, or None.
    attack
        Target -> the attribute attack's ``records`` frame (members and holdout by position).
    queries
        Singling out's ``queries`` frame, or None.
    """

    cells: dict[str, CellTable] = field(default_factory=dict)
    distance: np.ndarray | None = None
    near_cut: float | None = None
    holdout_distance: np.ndarray | None = None
    attack: dict[str, pd.DataFrame] = field(default_factory=dict)
    queries: pd.DataFrame | None = None


@dataclass(frozen=True)
class Distances:
    """The distances to closest record the audit measured on one synthesis (nothing
    recomputed): what :func:`capkit.plots.custodian.distance_distributions` draws.

    Attributes
    ----------
    members
        Each member's Gower distance (0-1) to the closest synthetic record, in row order.
    holdout
        Each holdout record's, or None without a holdout.
    near_cut
        The near-copy threshold (the holdout's 5% quantile), None without a holdout.
    """

    members: np.ndarray
    holdout: np.ndarray | None = None
    near_cut: float | None = None


def distances(evidence: Mapping[str, Evidence]) -> dict[str, Distances]:
    """Synthesis -> its :class:`Distances`, for the syntheses whose distances were measured."""
    return {name: Distances(e.distance, e.holdout_distance, e.near_cut)
            for name, e in evidence.items() if e.distance is not None}


def _key_codes(original: pd.DataFrame, holdout: pd.DataFrame | None, keys: list[str]
               ) -> tuple[np.ndarray, np.ndarray]:
    """One code per key combination over members and holdout (a missing value is a value)."""
    frames = [original[keys]] + ([holdout[keys]] if holdout is not None else [])
    both = pd.concat(frames, ignore_index=True)
    both = both.astype({c: object for c in keys if isinstance(both[c].dtype,
                                                                pd.CategoricalDtype)})
    codes = both.groupby(keys, dropna=False, sort=False).ngroup().to_numpy()
    return codes[:len(original)], codes[len(original):]


def _cell_flags(cells: CellTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample unique, replicated unique and DiSCO of every member, from its cell."""
    k = cells.record_cell
    n_cols = cells.shape[1]
    dq = np.bincount(cells.col, weights=cells.d, minlength=n_cols)
    sq = np.bincount(cells.col, weights=cells.s, minlength=n_cols)
    col = cells.col[k]
    unique = dq[col] == 1
    return unique, unique & (sq[col] == 1), cell_tables(cells)["DiSCO"][k] > 0


def _attack_flag(records: pd.DataFrame, codes_m: np.ndarray, codes_h: np.ndarray
                 ) -> np.ndarray:
    """Members the attack guesses right while it guesses wrong for every holdout record with
    their key combination (at least one)."""
    n, size = len(codes_m), int(max(codes_m.max(initial=-1), codes_h.max(initial=-1))) + 1
    groups = np.asarray(records.index.get_level_values("group"), dtype=object)
    record = records.index.get_level_values("record").to_numpy(dtype=np.int64)
    right = records["correct"].to_numpy(dtype=bool)
    is_m, is_h = groups == "member", groups == "holdout"
    at_m, at_h, right_m, right_h = record[is_m], record[is_h], right[is_m], right[is_h]
    look_alikes = np.bincount(codes_h[at_h], minlength=size)
    right_alikes = np.bincount(codes_h[at_h[right_h]], minlength=size)
    cell = codes_m[at_m]
    flag = np.zeros(n, dtype=bool)
    flag[at_m] = right_m & (look_alikes[cell] > 0) & (right_alikes[cell] == 0)
    return flag


def _targets_text(per_target: dict[str, np.ndarray], n: int,
                  values: dict[str, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Names of the flagged targets per record (", "-joined; ``name=value`` with ``values``)
    and how many."""
    if values is None and per_target:  # the names alone: one text per pattern of flags
        names = list(per_target)
        flags = np.column_stack([np.asarray(per_target[t], dtype=bool) for t in names])
        first, code = unique_rows(flags)
        said = np.array([", ".join(t for t, on in zip(names, row, strict=True) if on)
                         for row in flags[first].tolist()], dtype=object)
        return said[code], flags.sum(axis=1).astype(np.int64)
    text = np.full(n, "", dtype=object)
    count = np.zeros(n, dtype=np.int64)
    for t, flag in per_target.items():  # one pass per target, over the records it flags
        at = np.flatnonzero(flag)
        said = t if values is None else t + "=" + values[t][at]
        text[at] = np.where(count[at] > 0, text[at] + ", " + said, said)
        count[at] += 1
    return text, count


def kept_flags(findings: Sequence[object], synthesis: str, targets: Sequence[str]
               ) -> set[tuple[str, str | None]]:
    """The flags of ``synthesis`` that count (module note): (flag, target) for DiSCO and the
    attack, (flag, None) for the others. A flag counts when no finding judges its measure (a
    family not run), or some finding of it is flagged or not judged (rule N0); it is dropped
    when every finding of its measure is "not flagged" against a control or baseline."""
    mine = [f for f in findings if f.synthesis == synthesis]
    kept: set[tuple[str, str | None]] = set()
    for flag, measures in FLAG_FINDINGS.items():
        for subject in (targets if flag in ("DiSCO", "attack") else [None]):
            related = [f for f in mine if (f.family, f.measure) in measures
                       and (subject is None or f.subject == subject)]
            if not related or any(f.verdict in FLAGGED or f.rule.startswith("N0")
                                  for f in related):
                kept.add((flag, subject))
    return kept


def _one(name: str, ev: Evidence, original: pd.DataFrame, keys: list[str],
         targets: list[str], codes: tuple[np.ndarray, np.ndarray] | None,
         texts: dict[str, np.ndarray], kept: set[tuple[str, str | None]] | None = None
         ) -> tuple[pd.DataFrame, set[str]]:
    """One synthesis's rows; ``texts`` keeps each target's values as text, for the next;
    ``kept`` (:func:`kept_flags`): the flags that count, None for all."""
    n = len(original)
    flags = {f: np.zeros(n, dtype=bool) for f in FLAGS}
    measured: set[str] = set()
    disco: dict[str, np.ndarray] = {}
    for t, cells in ev.cells.items():
        if cells.record_cell is None:
            continue
        unique, replicated, disco[t] = _cell_flags(cells)
        flags["sample unique"], flags["replicated unique"] = unique, replicated
        measured |= {"sample unique", "replicated unique", "DiSCO"}
    if ev.distance is not None:
        flags["exact copy"] = ev.distance == 0
        measured.add("exact copy")
        if ev.near_cut is not None:
            flags["near copy"] = (ev.distance <= ev.near_cut) & (ev.distance > 0)
            measured.add("near copy")
    if ev.queries is not None:
        hit = ev.queries[(ev.queries["kind"] == "main") & ev.queries["singles_out_original"]
                         .astype(bool)]["original_row"].to_numpy(dtype=np.int64)
        flags["singled out"][hit[hit >= 0]] = True
        measured.add("singled out")
    attack: dict[str, np.ndarray] = {}
    if codes is not None:
        for t, records in ev.attack.items():
            attack[t] = _attack_flag(records, *codes)
            measured.add("attack")
    if kept is not None:  # beyond the control only (module note)
        for f in ("exact copy", "near copy", "replicated unique", "singled out"):
            if (f, None) not in kept:
                flags[f] = np.zeros(n, dtype=bool)
        disco = {t: v for t, v in disco.items() if ("DiSCO", t) in kept}
        attack = {t: v for t, v in attack.items() if ("attack", t) in kept}
    disco_text, n_disco = _targets_text(disco, n)
    attack_text, n_attack = _targets_text(attack, n)
    flags["DiSCO"], flags["attack"] = n_disco > 0, n_attack > 0
    either = {t: disco.get(t, np.zeros(n, bool)) | attack.get(t, np.zeros(n, bool))
              for t in targets if t in disco or t in attack}
    for t in either:  # each target's values as text, once for every synthesis
        if t not in texts:
            texts[t] = original[t].astype(object).astype(str).to_numpy(dtype=object)
    shown = {t: texts[t] for t in either}
    named, _ = _targets_text(either, n)
    with_values, _ = _targets_text(either, n, shown)
    score = sum(WEIGHTS[f] * flags[f] for f in FLAGS) + EXTRA_TARGET * (
        np.maximum(n_disco - 1, 0) + np.maximum(n_attack - 1, 0))
    if kept is not None:  # a sample unique alone is the original's exposure: no score
        others = np.any([flags[f] for f in FLAGS if f != "sample unique"], axis=0)
        score = np.where(others, score, 0.0)
    frame = pd.DataFrame({"row": np.arange(n), "synthesis": name, **flags,
                          "DiSCO targets": disco_text, "attack targets": attack_text,
                          "disclosed targets": named, "disclosed values": with_values,
                          "score": score.astype(float)})
    order = np.lexsort((frame["row"].to_numpy(), -frame["score"].to_numpy()))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(1, n + 1)
    frame["rank"] = rank
    for k in keys:
        frame[k] = original[k].to_numpy()
    return frame, measured


def records_at_risk(original: pd.DataFrame, keys: Sequence[str], targets: Sequence[str],
                    evidence: Mapping[str, Evidence], holdout: pd.DataFrame | None = None,
                    findings: Sequence[object] | None = None
                    ) -> tuple[pd.DataFrame, list[str]]:
    """The table of the people at risk (the module note): one row per member and synthesis.

    Parameters
    ----------
    original
        The members, in file order (the audit's frame; not modified).
    keys, targets
        The key and target columns (the keys' values are copied into the table, the values
        of the targets a record is flagged for into ``disclosed values``).
    evidence
        Synthesis name -> what the audit's measures returned record by record.
    holdout
        The holdout the audit compared with (the attack flag needs it), or None.
    findings
        The audit's findings: only flags beyond the control count (:func:`kept_flags`);
        None keeps every flag.

    Returns
    -------
    (pandas.DataFrame, list of str)
        The table: ``row`` (0-based position in the original, header excluded),
        ``synthesis``, one boolean column per flag of :data:`FLAGS`, ``DiSCO targets``,
        ``attack targets``, ``disclosed targets`` (either), ``disclosed values``
        (``target=value``, ", "-joined), ``score``, ``rank`` (1 = most exposed within the
        synthesis) and the key values; syntheses one after another, members in file order.
        And the flags that could not be measured (a family not run, or no holdout).
    """
    keys = list(keys)
    codes = None
    if holdout is not None and any(ev.attack for ev in evidence.values()):
        codes = _key_codes(original, holdout, keys)
    parts, measured, texts = [], set(), {}
    for name, ev in evidence.items():
        kept = None if findings is None else kept_flags(findings, name, list(targets))
        frame, found = _one(name, ev, original, keys, list(targets), codes, texts, kept)
        parts.append(frame)
        measured |= found
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    missing = [f for f in FLAGS if f not in measured]
    return table, missing


def flag_lists(table: pd.DataFrame) -> list[list[str]]:
    """The names of the flags of each row of ``table`` (for JSON)."""
    on = table[list(FLAGS)].to_numpy(dtype=bool)
    names = np.array(FLAGS, dtype=object)
    return [list(names[row]) for row in on]


def top(table: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The ``n`` most exposed records of each synthesis with a score above 0, by rank
    (syntheses in the table's order)."""
    if table.empty:
        return table
    order = {v: j for j, v in enumerate(pd.unique(table["synthesis"]))}
    chosen = table[(table["score"] > 0) & (table["rank"] <= n)]
    where = chosen["synthesis"].map(order).to_numpy()
    return chosen.iloc[np.lexsort((chosen["rank"].to_numpy(), where))]


def masked(table: pd.DataFrame, keys: Sequence[str], show: bool = False,
           rare: int = RARE_VALUE) -> pd.DataFrame:
    """``table`` as a report shows it, unless ``show``: a key value held by fewer than ``rare``
    members (counted over every member, in the first synthesis's rows) is shown as
    :data:`MASK`, and every disclosed target value as ``target=***``. A rare value is what
    identifies a person (an age of 97, a rare occupation); a common one says little on its
    own. The row numbers always show: the custodian finds the record in the original file.
    ``table`` is not modified."""
    out = table.copy()
    if show or out.empty:
        return out
    first = out[out["synthesis"] == out["synthesis"].iloc[0]]
    for k in keys:
        values = out[k].astype(object)
        held = values.map(first[k].astype(object).value_counts(dropna=False))
        out[k] = np.where(held.fillna(0).to_numpy() < rare, MASK, values.astype(str))
    named = out["disclosed targets"].astype(str)
    out["disclosed values"] = np.where(named != "", named.str.replace(
        ", ", f"={MASK}, ", regex=False) + f"={MASK}", "")
    return out
