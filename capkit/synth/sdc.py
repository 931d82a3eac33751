"""synthpop's ``sdc()`` treatments of a synthetic data set: what to remove before release.

synthpop 1.9-2 (``R/IO.r``: ``replicated.uniques`` lines 8-88, ``sdc`` lines 93-230,
``bottom.top.recoding`` lines 234-240) offers, in this order:

1. **Bottom and top coding** (``recode.vars``, ``bottom.top.coding``, ``recode.exclude``): in
   each named numeric column of the synthetic data, a value below the bottom code becomes the
   bottom code and a value above the top code becomes the top code; values listed as excluded
   (special codes such as -8) and missing values are left alone. No bottom (or top) code, no
   change on that side.
2. **Removal of records**, on the key combinations of ``keys`` (default every column):
   a synthetic record is *unique* when no other synthetic record has its key combination.

   * ``rm.replicated.uniques``: remove the synthetic uniques whose key combination is also
     unique in the original (the replicated uniques; after removal the repU of
     :func:`capkit.disclosure.disclosure` on the same keys is 0).
   * ``rm.uniques.in.orig``: remove the synthetic uniques whose key combination occurs in the
     original at all, once or more (synthpop's ``uniques_in_syn_in_orig``). This includes every
     replicated unique; when both are asked, synthpop removes these (and says so).

   Recoding comes first, so the removal compares the recoded synthetic values with the
   original's unrecoded ones, as synthpop does.
3. (``smooth.vars``, labels, prefixes: not here; see ``docs/sweep-and-sdc.md``.)

Differences from synthpop: keys are compared as values (synthpop pastes them into text joined
by ``|``, so ``("a|b", "c")`` and ``("a", "b|c")`` are one key, and a missing value and the
text ``"NA"`` too); a missing value is a level of its own in both. A treatment that would leave
no record is refused (synthpop returns an empty data set).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from capkit.counts.encode import encode_frames, kind_of_series
from capkit.errors import CapkitError

__all__ = ["SdcResult", "sdc"]


@dataclass
class SdcResult:
    """A treated synthetic data set and what the treatment did.

    Attributes
    ----------
    data
        The treated synthetic data (a new frame; removed rows dropped, index kept).
    removed
        Positions (0-based rows of the synthetic data given) of the removed records.
    replicated_uniques
        Synthetic records unique on the keys whose key combination is unique in the original.
    uniques_in_original
        Synthetic records unique on the keys whose key combination occurs in the original.
    bottom_coded, top_coded
        Per recoded column, the number of values raised to the bottom code / lowered to the
        top code.
    messages
        What was done, in words (what ``capkit sdc`` prints).
    """

    data: pd.DataFrame
    removed: np.ndarray
    replicated_uniques: int
    uniques_in_original: int
    bottom_coded: dict[str, int] = field(default_factory=dict)
    top_coded: dict[str, int] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


def _codes(codes: Mapping[str, float] | None, argument: str, frame: pd.DataFrame
           ) -> dict[str, float]:
    out: dict[str, float] = {}
    for column, value in (codes or {}).items():
        if column not in frame.columns:
            raise CapkitError(f"{argument} column {column!r} is missing from synthetic data")
        if kind_of_series(frame[column]) != "numeric" or pd.api.types.is_bool_dtype(
                frame[column].dtype) or isinstance(frame[column].dtype, pd.CategoricalDtype):
            raise CapkitError(f"{argument} column {column!r} is not numeric "
                              f"({frame[column].dtype}); only numbers can be capped")
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
            raise CapkitError(f"{argument} value of {column!r} must be a number, got {value!r}")
        out[column] = float(value)
    return out


def _recode(frame: pd.DataFrame, bottom: dict[str, float], top: dict[str, float],
            exclude: Mapping[str, Sequence[float]]) -> tuple[dict[str, int], dict[str, int]]:
    """synthpop's ``bottom.top.recoding`` on ``frame`` (a copy), column by column: a value
    below ``bottom`` becomes ``bottom``, above ``top`` becomes ``top``; excluded values and
    missing values stay."""
    n_bottom: dict[str, int] = {}
    n_top: dict[str, int] = {}
    for column in dict.fromkeys([*bottom, *top]):  # the few coded columns
        values = frame[column]
        kept = values.notna() & ~values.isin(list(exclude.get(column, ())))
        new = values
        n_bottom[column] = n_top[column] = 0
        if column in bottom:
            below = kept & (values < bottom[column])
            n_bottom[column] = int(below.sum())
            new = new.mask(below, _as_value(bottom[column], values))
        if column in top:
            above = kept & (values > top[column])
            n_top[column] = int(above.sum())
            new = new.mask(above, _as_value(top[column], values))
        frame[column] = new
    return n_bottom, n_top


def _as_value(code: float, values: pd.Series) -> float | int:
    """The code as an int for an integer column when it is a whole number (the column keeps
    its type), else as a float."""
    if pd.api.types.is_integer_dtype(values.dtype) and float(code).is_integer():
        return int(code)
    return code


def sdc(
    synthetic: pd.DataFrame,
    original: pd.DataFrame,
    keys: Sequence[str] | None = None,
    *,
    rm_replicated_uniques: bool = False,
    rm_uniques_in_original: bool = False,
    bottom_code: Mapping[str, float] | None = None,
    top_code: Mapping[str, float] | None = None,
    recode_exclude: Mapping[str, Sequence[float]] | None = None,
) -> SdcResult:
    """synthpop's ``sdc()`` on one synthetic data set: cap numbers, remove risky uniques.

    Parameters
    ----------
    synthetic, original
        The synthetic data and the original it was made from. Neither is modified.
    keys
        Columns whose combination identifies a record (synthpop's ``keys``); default every
        column of ``synthetic``.
    rm_replicated_uniques
        Remove synthetic records unique on the keys whose key combination is unique in the
        original too.
    rm_uniques_in_original
        Remove synthetic records unique on the keys whose key combination occurs in the
        original (includes the replicated uniques).
    bottom_code, top_code
        ``{column: value}``: numbers below the bottom code are set to it, numbers above the top
        code to it (synthpop's ``bottom.top.coding``), before any removal.
    recode_exclude
        ``{column: [values]}``: values left alone by the coding (synthpop's
        ``recode.exclude``, e.g. a special code -8).

    Returns
    -------
    SdcResult

    Raises
    ------
    CapkitError
        A key or coded column missing, a key that is a number in one frame and text in the
        other, a coded column that is not numeric, a bottom code above the top code, or a
        treatment that would remove every record.
    """
    for name, frame in (("synthetic", synthetic), ("original", original)):
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} data must be a pandas DataFrame, got "
                              f"{type(frame).__name__}")
        if len(frame) == 0:
            raise CapkitError(f"{name} data is empty (0 rows)")
    bottom = _codes(bottom_code, "bottom_code", synthetic)
    top = _codes(top_code, "top_code", synthetic)
    for column in set(bottom) & set(top):
        if bottom[column] > top[column]:
            raise CapkitError(f"bottom code {bottom[column]:g} of {column!r} is above its top "
                              f"code {top[column]:g}")
    exclude = dict(recode_exclude or {})
    unknown = [c for c in exclude if c not in bottom and c not in top]
    if unknown:
        raise CapkitError(f"recode_exclude names column(s) {unknown} that are not coded")
    key_cols = [str(c) for c in synthetic.columns] if keys is None else list(keys)
    if not key_cols:
        raise CapkitError("keys is empty: give at least one column name")
    for column in key_cols:
        for name, frame in (("synthetic", synthetic), ("original", original)):
            if column not in frame.columns:
                raise CapkitError(f"key column {column!r} is missing from {name} data")
        kind_o, kind_s = kind_of_series(original[column]), kind_of_series(synthetic[column])
        if kind_o != kind_s:  # values would never match: nothing found, silently
            raise CapkitError(f"key column {column!r} is {kind_o} in the original data but "
                              f"{kind_s} in the synthetic data; convert one of them first")

    treated = synthetic.copy()
    messages: list[str] = []
    n_bottom, n_top = _recode(treated, bottom, top, exclude)
    for column in n_bottom:
        parts = [f"{n_bottom[column]} value(s) below {bottom[column]:g} bottom-coded"
                 ] if column in bottom else []
        if column in top:
            parts.append(f"{n_top[column]} value(s) above {top[column]:g} top-coded")
        messages.append(f"{column}: {', '.join(parts)}")

    (codes_o, codes_s), labels = encode_frames([original, treated], key_cols,
                                                allow_disjoint_levels=True)
    n_keys = len(labels)
    in_orig = np.bincount(codes_o, minlength=n_keys)[codes_s]
    unique_syn = np.bincount(codes_s, minlength=n_keys)[codes_s] == 1
    replicated = unique_syn & (in_orig == 1)
    in_original = unique_syn & (in_orig >= 1)
    remove = np.zeros(len(treated), dtype=bool)
    if rm_uniques_in_original:
        if rm_replicated_uniques:
            messages.append("both removals asked: the uniques found in the original are "
                            "removed, which include every replicated unique")
        remove = in_original
        messages.append(f"synthetic uniques whose keys occur in the original removed: "
                        f"{int(remove.sum())}")
    elif rm_replicated_uniques:
        remove = replicated
        messages.append(f"replicated uniques removed: {int(remove.sum())}")
    if remove.all():
        raise CapkitError(
            f"the treatment would remove every one of the {len(treated)} synthetic records "
            f"(each is a synthetic unique on the keys {key_cols} that the chosen rule removes): "
            "refused; give fewer keys")
    removed = np.flatnonzero(remove)
    return SdcResult(data=treated.loc[~remove], removed=removed,
                     replicated_uniques=int(replicated.sum()),
                     uniques_in_original=int(in_original.sum()), bottom_coded=n_bottom,
                     top_coded=n_top, messages=messages)
