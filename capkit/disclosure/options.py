"""Argument checks of synthpop's ``disclosure()`` (spec section 2), as :class:`CapkitError`.

Each error names the argument or column at fault.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Collection, Sequence

import numpy as np
import pandas as pd

from capkit.errors import CapkitError


def as_frames(synthetic: object) -> list[pd.DataFrame]:
    """A DataFrame or a non-empty list of DataFrames, as a list."""
    if isinstance(synthetic, pd.DataFrame):
        return [synthetic]
    if isinstance(synthetic, (list, tuple)) and synthetic and all(
            isinstance(x, pd.DataFrame) for x in synthetic):
        return list(synthetic)
    if synthetic is None:
        raise CapkitError("synthetic is required: a DataFrame or a list of DataFrames")
    raise CapkitError(
        f"synthetic must be a DataFrame or a non-empty list of DataFrames, got "
        f"{type(synthetic).__name__}")


def check_original(original: object) -> pd.DataFrame:
    """``original`` must be a DataFrame with at least one row."""
    if not isinstance(original, pd.DataFrame):
        raise CapkitError(f"original must be a DataFrame, got {type(original).__name__}")
    if len(original) == 0:
        raise CapkitError("original has no rows")
    dup = original.columns[original.columns.duplicated()].tolist()
    if dup:
        raise CapkitError(f"original has duplicated column names: {dup}")
    return original


def make_names(names: Sequence[object]) -> list[str]:
    """R's ``make.names(unique = TRUE)``: syntactic, unique column names (quirk Q15)."""
    out: list[str] = []
    for name in names:
        text = re.sub(r"[^A-Za-z0-9._]", ".", str(name))
        if not text or not re.match(r"[A-Za-z.]", text[0]) or re.match(r"\.[0-9]", text):
            text = "X" + text
        out.append(text)
    seen: dict[str, int] = {}
    result = []
    for text in out:
        if text in seen:
            seen[text] += 1
            candidate = f"{text}.{seen[text]}"
            while candidate in out:
                seen[text] += 1
                candidate = f"{text}.{seen[text]}"
            result.append(candidate)
        else:
            seen[text] = 0
            result.append(text)
    return result


def normalise_cont_na(cont_na: object, original: pd.DataFrame) -> dict[str, list[float]]:
    """``cont_na``: a dict {column: code or list of codes} of special / missing codes."""
    if cont_na is None:
        return {}
    if not isinstance(cont_na, dict) or any(not isinstance(k, str) or not k for k in cont_na):
        raise CapkitError("cont_na must be a dict with a column name for every entry, e.g. "
                          "{'income': [-8]}")
    out = {}
    for name, codes in cont_na.items():
        if name not in original.columns:
            raise CapkitError(f"cont_na names column {name!r}, which is not in original")
        values = list(codes) if isinstance(codes, (list, tuple, np.ndarray)) else [codes]
        cleaned: list[float] = []
        for v in values:
            if v is None or (isinstance(v, float) and np.isnan(v)):
                continue
            if not isinstance(v, numbers.Real):
                raise CapkitError(f"cont_na codes for {name!r} must be numbers, got {v!r}")
            if float(v) not in cleaned:
                cleaned.append(float(v))
        out[name] = cleaned
    return out


def resolve_columns(spec: object, original: pd.DataFrame, argument: str) -> list[str]:
    """Column names from names or 1-based column numbers (spec 2 item 3)."""
    if isinstance(spec, (str, numbers.Integral)):
        items = [spec]
    else:
        try:
            items = list(spec)  # type: ignore[arg-type]
        except TypeError as exc:
            raise CapkitError(f"{argument} must be a column name, a column number or a list "
                              "of them") from exc
    if not items:
        raise CapkitError(f"{argument} is empty")
    names = []
    p = original.shape[1]
    for item in items:
        if isinstance(item, numbers.Integral) and not isinstance(item, bool):
            if not 1 <= int(item) <= p:
                raise CapkitError(f"if {argument} are numeric they must be in range 1 to {p}, "
                                  f"got {item}")
            names.append(str(original.columns[int(item) - 1]))
        elif isinstance(item, str):
            names.append(item)
        else:
            raise CapkitError(f"{argument} must hold column names or numbers, got {item!r}")
    return names


def check_in_columns(names: Sequence[str], sides: Sequence[tuple[str, Collection[object]]],
                     what: str = "keys and target") -> None:
    """Every name must be among the columns of every (label, columns) side, checked in order."""
    for name in names:
        for label, columns in sides:
            if name not in columns:
                raise CapkitError(f"{what} must be columns of original and synthetic data: "
                                  f"{name!r} is not in {label}")


def check_flag(value: object, argument: str) -> bool:
    """A single boolean."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise CapkitError(f"{argument} must be a single True or False, got {value!r}")


def check_flags(value: object, n: int, argument: str) -> list[bool]:
    """One boolean, recycled, or one per key."""
    if isinstance(value, (bool, np.bool_)):
        return [bool(value)] * n
    try:
        flags = list(value)  # type: ignore[arg-type]
    except TypeError as exc:
        raise CapkitError(f"{argument} must be True/False or a list of them") from exc
    if len(flags) != n or not all(isinstance(f, (bool, np.bool_)) for f in flags):
        raise CapkitError(f"{argument} must be one True/False or {n} of them (one per key), "
                          f"got {value!r}")
    return [bool(f) for f in flags]


def check_thresholds(value: object, argument: str) -> tuple[float, float]:
    """Two numbers (count, percent)."""
    try:
        pair = [float(v) for v in value]  # type: ignore[union-attr]
    except (TypeError, ValueError) as exc:
        raise CapkitError(f"{argument} must be two numbers (count, percent)") from exc
    if len(pair) != 2:
        raise CapkitError(f"{argument} must be two numbers (count, percent), got {value!r}")
    return pair[0], pair[1]


def check_denom_lim(value: object) -> int | None:
    """``denom_lim``: None or a positive whole number (spec 2 item 9)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value <= 0 or \
            float(value) != int(value):
        raise CapkitError(f"denom_lim must be an integer > 0, got {value!r}")
    return int(value)


def check_ngroups_target(value: object) -> int:
    """``ngroups_target``: None or one number, not 1 (spec 2 item 10)."""
    if value is None:
        return 0
    if isinstance(value, (list, tuple, np.ndarray)):
        if len(value) != 1:
            raise CapkitError(f"ngroups_target must be a single number, got {value!r}")
        value = value[0]
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise CapkitError(f"ngroups_target must be a number, got {value!r}")
    if value == 1:
        raise CapkitError("ngroups_target must not be 1 (grouping into one class)")
    return int(value)


def recycle(value: object, n: int, argument: str, per: str) -> list[object]:
    """One value (recycled) or a list of ``n`` values, one per ``per`` (key, target)."""
    values = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise CapkitError(f"{argument} must have one entry or one per {per} ({n}), got "
                          f"{len(values)}")
    return values


def check_ngroups_keys(value: object, n_keys: int) -> list[int]:
    """``ngroups_keys``: None, one number (recycled) or one per key, none equal to 1."""
    if value is None:
        return [0] * n_keys
    values = recycle(value, n_keys, "ngroups_keys", "key")
    for v in values:
        if not isinstance(v, numbers.Real) or isinstance(v, bool):
            raise CapkitError(f"ngroups_keys entries must be numbers, got {v!r}")
        if v == 1:
            raise CapkitError("ngroups_keys entries must not be 1 (grouping into one class)")
    return [int(v) for v in values]


def check_excludes(exclude_keys: object, exclude_keylevs: object, exclude_targetlevs: object,
                   keys: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """Parallel exclude_* lists of (key, key level, target level) (spec 2 item 8)."""
    if exclude_keys is None:
        return [], [], []

    def as_list(v: object, arg: str) -> list[str]:
        if v is None:
            return []
        if isinstance(v, str):
            return [v]
        try:
            return [str(x) for x in v]  # type: ignore[union-attr]
        except TypeError as exc:
            raise CapkitError(f"{arg} must be a string or a list of strings") from exc

    k = as_list(exclude_keys, "exclude_keys")
    kl = as_list(exclude_keylevs, "exclude_keylevs")
    tl = as_list(exclude_targetlevs, "exclude_targetlevs")
    if not len(k) == len(kl) == len(tl):
        raise CapkitError(
            "exclude_keys, exclude_keylevs and exclude_targetlevs must be the same length, got "
            f"{len(k)}, {len(kl)} and {len(tl)}")
    for name in k:
        if name not in keys:
            raise CapkitError(f"exclude_keys entry {name!r} is not one of the keys {list(keys)}")
    return k, kl, tl


def check_keys_target(keys: list[str], target: str) -> None:
    """Keys must not repeat a column, and the target must not be a key (spec 2)."""
    if len(set(keys)) != len(keys):
        raise CapkitError(f"keys must not repeat a column, got {keys}")
    if target in keys:
        raise CapkitError(f"target {target!r} is also one of the keys")


def check_not_targetlev(not_targetlev: object) -> None:
    """``not_targetlev`` is one target level (a string) or None."""
    if not_targetlev is not None and not isinstance(not_targetlev, str):
        raise CapkitError(f"not_targetlev must be a single target level (a string), got "
                          f"{not_targetlev!r}")


def exclusion_triples(ex_k: list[str], ex_kl: list[str], ex_tl: list[str], data_keys: list[str],
                      target: str, target_labels: list[str],
                      key_labels: dict[int, Collection[str]]
                      ) -> list[tuple[int, str, str]]:
    """(key position in ``data_keys``, key level, target level) of each excluded combination.

    The levels must be levels of the original data (spec 2): ``target_labels`` of the target,
    ``key_labels[i]`` of key ``data_keys[i]``.
    """
    bad_t = [t for t in ex_tl if t not in target_labels]
    if bad_t:
        raise CapkitError(f"exclude_targetlevs must be levels of target {target!r}: "
                          f"{bad_t} are not among {list(target_labels)}")
    triples = []
    for i, (k, kl, tl) in enumerate(zip(ex_k, ex_kl, ex_tl, strict=True)):
        index = data_keys.index(k)
        if kl not in key_labels[index]:
            raise CapkitError(f"exclude_keylevs position {i + 1} ({kl!r}) must be one of the "
                              f"levels of key {k!r}")
        triples.append((index, kl, tl))
    return triples
