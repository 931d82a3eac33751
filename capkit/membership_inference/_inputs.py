"""Checks and preparation of the frames every membership-inference attack takes.

Members (the records the synthesis was made from), scored non-members (records not used for
it), the synthetic records and the reference records (population data standing in for the
attacker's knowledge, never scored). When no reference is given, it is split off the
non-members with a seeded permutation; the rest of the non-members are scored.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.data.labels import is_numeric
from capkit.data.overlap import record_overlap
from capkit.errors import CapkitError

NO_NONMEMBERS = (
    "membership inference needs records not used for the synthesis (non-members, e.g. the "
    "holdout): without them no attack can be judged, since nothing says how often it flags "
    "records that were never in the training data")


@dataclass(frozen=True)
class Prepared:
    """The four frames on the same columns (copies), and what was done to them."""

    members: pd.DataFrame
    nonmembers: pd.DataFrame
    synthetic: pd.DataFrame
    reference: pd.DataFrame
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    #: positions (in the caller's non-members) of the scored non-members
    scored_positions: np.ndarray
    notes: tuple[str, ...]

    @property
    def scored(self) -> pd.DataFrame:
        return pd.concat([self.members, self.nonmembers], ignore_index=True)

    @property
    def member(self) -> np.ndarray:
        return np.r_[np.ones(len(self.members), bool), np.zeros(len(self.nonmembers), bool)]


def _frame(frame: object, name: str, *, minimum: int = 1) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    if frame.columns.duplicated().any():
        raise CapkitError(f"{name} has duplicated column names")
    if len(frame) < minimum:
        raise CapkitError(f"{name} has {len(frame)} record(s); membership inference needs at "
                          f"least {minimum}")
    return frame


OVERLAPS = ("refuse", "strict", "allow")

#: Share of the scored records identical to a member above which (with an excess over the
#: twins' rate) the non-members are taken to be the members themselves.
MOSTLY = 0.5


def _overlap_rule(a: pd.DataFrame, b: pd.DataFrame, columns: list[str], overlap: str,
                  what: str, to: str, whose: str) -> str | None:
    """Apply the overlap rule to the records of ``b`` identical to a record of ``a``.

    Different people can share every value (population twins: SD2011 and Adult have them),
    and domias 0.0.5 scores such records as they are. So, with ``overlap="refuse"``, they are
    scored, and only non-members that *are* the members are refused: more than
    :data:`MOSTLY` of them identical to a record of ``a`` and significantly more than the
    data's own duplicates predict (:func:`capkit.data.overlap.record_overlap`: exact binomial
    test against ``a``'s leave-one-out duplicate rate). ``"strict"``: any identical record is
    an error. ``"allow"``: never. Returns the note for the output (None: no shared record).
    """
    found = record_overlap(a, b, columns)
    if not found.shared:
        return None
    counted = (f"{found.shared} {what} record(s) of {found.n_other} are identical to {to} "
               f"(the duplicates within {whose}, {found.member_duplicates} of "
               f"{found.n_members} records equal to another, predict about "
               f"{found.expected:.1f})")
    if overlap == "strict":
        raise CapkitError(f"{counted}; overlap='strict' refuses any. Pass overlap='refuse' to "
                          "score population twins, or overlap='allow'")
    if overlap == "refuse" and found.excess and found.share > MOSTLY:
        raise CapkitError(
            f"{counted}: the {what} records are mostly those of {whose} themselves, not "
            "population twins. Pass records kept out of the synthesis, or pass "
            "overlap='allow' if they are different people with the same values")
    if found.excess:
        return (f"{counted}: more than chance, so some may be the same people; scored as "
                "they are (as domias), the report sets them aside")
    return f"{counted}: population twins, scored as they are (as domias)"


def prepare(members, nonmembers, synthetic, reference, *, seed: int,
            reference_fraction: float, overlap: str, need_reference: bool) -> Prepared:
    """Validate the frames and split off the reference when it is not given.

    Raises
    ------
    CapkitError
        No non-members; fewer than two members or scored non-members; frames that are not
        DataFrames or whose columns differ or change kind (numeric vs categorical); records
        present in both members and non-members, or in both the reference and the scored
        non-members beyond what population twins explain (:func:`_overlap_rule`; the message
        gives how many; ``overlap="allow"`` accepts them, ``"strict"`` refuses any).
    """
    if nonmembers is None or (isinstance(nonmembers, pd.DataFrame) and len(nonmembers) == 0):
        raise CapkitError(NO_NONMEMBERS)
    if overlap not in OVERLAPS:
        raise CapkitError(f"overlap must be one of {OVERLAPS}, got {overlap!r}")
    members = _frame(members, "members", minimum=2)
    nonmembers = _frame(nonmembers, "nonmembers", minimum=2)
    synthetic = _frame(synthetic, "synthetic", minimum=1)
    columns = list(members.columns)
    if not columns:
        raise CapkitError("members has no columns")
    named = {"nonmembers": nonmembers, "synthetic": synthetic}
    if reference is not None:
        named["reference"] = _frame(reference, "reference", minimum=2)
    for name, frame in named.items():
        absent = [c for c in columns if c not in frame.columns]
        extra = [c for c in frame.columns if c not in set(columns)]
        if absent or extra:
            raise CapkitError(f"members and {name} must have the same columns: missing from "
                              f"{name} {absent}, only in {name} {extra}")
    numeric, categorical = [], []
    for column in columns:
        kinds = {"members": is_numeric(members[column])}
        kinds.update({name: is_numeric(frame[column]) for name, frame in named.items()})
        if len(set(kinds.values())) > 1:
            desc = ", ".join(f"{'numeric' if v else 'categorical'} in {k}"
                             for k, v in kinds.items())
            raise CapkitError(f"column {column!r} has different kinds: {desc}; convert it first")
        (numeric if kinds["members"] else categorical).append(column)
    members = members[columns].reset_index(drop=True)
    nonmembers = nonmembers[columns].reset_index(drop=True)
    synthetic = synthetic[columns].reset_index(drop=True)

    notes = []
    note = _overlap_rule(members, nonmembers, columns, overlap, "non-member", "a member",
                         "the members")
    if note:
        notes.append(note)

    positions = np.arange(len(nonmembers))
    if reference is None:
        if need_reference:
            if not 0 < reference_fraction < 1:
                raise CapkitError("reference_fraction must be in (0, 1), got "
                                  f"{reference_fraction!r}")
            order = np.random.default_rng(seed).permutation(len(nonmembers))
            n_ref = int(round(reference_fraction * len(nonmembers)))
            if n_ref < 2 or len(nonmembers) - n_ref < 2:
                raise CapkitError(
                    f"nonmembers has {len(nonmembers)} records: too few to split off a "
                    "reference set and keep at least 2 to score; give reference explicitly")
            ref_pos, positions = np.sort(order[:n_ref]), np.sort(order[n_ref:])
            reference = nonmembers.iloc[ref_pos].reset_index(drop=True)
            nonmembers = nonmembers.iloc[positions].reset_index(drop=True)
            notes.append(f"reference: {n_ref} of the non-members, split off with seed {seed}; "
                         f"the other {len(positions)} are scored")
        else:
            reference = nonmembers.iloc[:0]
    else:
        reference = reference[columns].reset_index(drop=True)
        note = _overlap_rule(reference, nonmembers, columns, overlap, "scored non-member",
                             "a reference record", "the reference")
        if note:
            notes.append(note)
    for name, frame in (("members", members), ("nonmembers", nonmembers),
                        ("synthetic", synthetic), ("reference", reference)):
        for column in numeric:
            values = frame[column]
            if values.isna().any():
                notes.append(f"numeric column {column!r} has missing values in {name}: 0 "
                             "from another missing value, the largest difference (1) from a "
                             "number in the Gower distance; left out of the density (DOMIAS)")
                break
    return Prepared(members, nonmembers, synthetic, reference, tuple(numeric),
                    tuple(categorical), positions, tuple(dict.fromkeys(notes)))


__all__ = ["MOSTLY", "NO_NONMEMBERS", "OVERLAPS", "Prepared", "prepare"]
