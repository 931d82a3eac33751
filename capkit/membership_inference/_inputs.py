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


def _shared(a: pd.DataFrame, b: pd.DataFrame, columns: list[str]) -> int:
    """Records of b identical (on ``columns``; missing = missing) to some record of a
    (:func:`capkit.data.overlap.record_overlap`)."""
    return record_overlap(a, b, columns).shared


def prepare(members, nonmembers, synthetic, reference, *, seed: int,
            reference_fraction: float, overlap: str, need_reference: bool) -> Prepared:
    """Validate the frames and split off the reference when it is not given.

    Raises
    ------
    CapkitError
        No non-members; fewer than two members or scored non-members; frames that are not
        DataFrames or whose columns differ or change kind (numeric vs categorical); records
        present in both members and non-members, or in both the reference and the scored
        non-members (the message gives how many; ``overlap="allow"`` accepts records that are
        identical but belong to different people).
    """
    if nonmembers is None or (isinstance(nonmembers, pd.DataFrame) and len(nonmembers) == 0):
        raise CapkitError(NO_NONMEMBERS)
    if overlap not in ("refuse", "allow"):
        raise CapkitError(f"overlap must be 'refuse' or 'allow', got {overlap!r}")
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
    n_both = _shared(members, nonmembers, columns)
    if n_both and overlap == "refuse":
        raise CapkitError(
            f"{n_both} non-member record(s) are identical to a member: a record used for the "
            "synthesis cannot be a non-member. Remove them, or pass overlap='allow' if they are "
            "different people with the same values")
    if n_both:
        notes.append(f"{n_both} non-member record(s) identical to a member (overlap='allow')")

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
        n_ref_shared = _shared(reference, nonmembers, columns)
        if n_ref_shared and overlap == "refuse":
            raise CapkitError(
                f"{n_ref_shared} scored non-member record(s) are identical to a reference "
                "record: the reference must not hold the records being scored. Remove them, "
                "or pass overlap='allow' if they are different people with the same values")
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


__all__ = ["NO_NONMEMBERS", "Prepared", "prepare"]
