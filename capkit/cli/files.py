"""The one reader of the ``capkit`` commands: read, check and align the original and synthetic
files (CSV, Parquet, .rda/.rds) into an :class:`Inputs`, or check them for a DuckDB/Spark run.

Every problem with the inputs is a :class:`~capkit.errors.CapkitError` naming the file, column
or option, raised before anything is computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from capkit.audit.defaults import is_identifier
from capkit.audit.inputs import infinite_as_missing
from capkit.counts import engines
from capkit.counts.engines import duckdb as duck
from capkit.data import coding, io, overlap
from capkit.data.align import align_frames, file_names
from capkit.errors import CapkitError


@dataclass
class Inputs:
    """The aligned data of a command, and what the user should be told about it.

    ``warnings`` are problems the user should look at (a key unique for every record),
    ``notes`` facts about the data worth knowing (missing target values, unused columns),
    ``changes`` the type alignment of :func:`capkit.data.align.align_frames`; ``holdout`` the
    records not used for the synthesis (``--holdout``, aligned like a synthesis), or None;
    ``coded_differently`` the keys and targets that some synthetic file codes differently
    from the original (:func:`capkit.data.coding.mismatches`: rule M1 for the verdicts).
    """

    original: pd.DataFrame
    synthetics: list[pd.DataFrame]
    keys: list[str]
    targets: list[str]
    lines: list[str]
    changes: list[str]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    holdout: pd.DataFrame | None = None
    coded_differently: list[str] = field(default_factory=list)

    def remarks(self) -> list[str]:
        """The warnings, notes and type alignments as the reports list them, one line each."""
        return ([f"Warning: {w}" for w in self.warnings] + [f"Note: {n}" for n in self.notes]
                + [f"Type alignment: {c}" for c in self.changes])


def _value_text(value: object) -> str:
    """A data value for a message: text quoted, a missing value as ``nan``."""
    if isinstance(value, str):
        return repr(str(value))
    if value is None or (not isinstance(value, (list, tuple)) and bool(pd.isna(value))):
        return "nan"
    return str(value)


def _missing_target_notes(counts_o: dict[str, int], counts_s: list[dict[str, int]], n: int,
                          option: str | None, role: str = "target") -> list[str]:
    """A note per target with missing values in some file, with the counts (and the command's
    ``option`` that leaves them out, if it has one); ``role`` names the columns ("column"
    when the command has not chosen its keys and targets yet: the report's defaults)."""
    notes = []
    for t, c_o in counts_o.items():
        c_s = [c[t] for c in counts_s]
        if c_o == 0 and not any(c_s):
            continue
        where = (f"{c_s[0]} in the synthetic file" if len(c_s) == 1 else
                 f"{', '.join(str(c) for c in c_s)} in synthetic files 1-{len(c_s)}")
        notes.append(
            f"{role} {t!r} has {c_o} missing value{'s' if c_o != 1 else ''} in the original "
            f"file ({100 * c_o / n:.1f}% of {n} records) and {where}; a missing value is "
            "counted as a level of its own (synthpop's 'Missing')"
            + (f"; {option} leaves those records out" if option else ""))
    return notes


def _extra_column_note(synthetic_columns: Sequence[str], original_columns: Sequence[str]
                       ) -> list[str]:
    """A note when the synthetic files have columns the original file lacks."""
    extra = [c for c in synthetic_columns if c not in set(original_columns)]
    if not extra:
        return []
    return [f"the synthetic files have column{'s' if len(extra) > 1 else ''} {extra} that "
            "are not in the original file: not used (synthpop's synorig.compare drops them "
            "too)"]


def _levels(series: pd.Series) -> int:
    return int(series.nunique(dropna=False))


def _targets_with_levels(targets: list[str], levels: dict[str, int], min_levels: int,
                         explicit: bool, warnings: list[str],
                         values: dict[str, object] | None = None) -> list[str]:
    """The targets with at least ``min_levels`` levels in the original; the others raise (if
    the user named them) or are skipped with a warning."""
    kept = []
    for t in targets:
        if levels[t] < min_levels:
            shown = ""
            if values is not None:
                shown = (" (nan: every value is missing)" if _value_text(values[t]) == "nan"
                         else f" ({_value_text(values[t])})")
            message = (f"target column {t!r} has a single level{shown} in the original file: "
                       "attribute disclosure needs at least two")
            if explicit:
                raise CapkitError(message)
            warnings.append(message + "; skipped")
        else:
            kept.append(t)
    if not kept:
        raise CapkitError("no target left: every candidate target has a single level")
    return kept


def _check_file_arguments(synthetic: list[Path], keys: list[str], targets: list[str] | None
                          ) -> None:
    """At least one synthetic file; no target among the keys."""
    if not synthetic:
        raise CapkitError("give at least one synthetic file after the original file")
    clash = [t for t in targets or [] if t in keys]
    if clash:
        raise CapkitError(f"target column {clash[0]!r} is also a key; a target cannot be a key")


def _check_same_columns(synthetic: list[Path], headers: list[list[str]]) -> None:
    """Every synthesis must have the columns of the first one."""
    for p, h in zip(synthetic[1:], headers[1:], strict=True):
        if set(h) != set(headers[0]):
            missing = [c for c in headers[0] if c not in h]
            extra = [c for c in h if c not in headers[0]]
            raise CapkitError(
                f"synthetic file {p.name!r} has different columns from {synthetic[0].name!r}"
                f" (missing: {missing}, extra: {extra}); every synthesis must have the same "
                "columns")


def _default_targets(synthetic_columns: Sequence[str], original_columns: Sequence[str],
                     keys: list[str], nested: Sequence[str] = ()) -> list[str]:
    """Every synthetic column that is not a key, nor ``nested`` (lists, structures), and is in
    the original (when its columns are known: ``original_columns`` empty means unknown)."""
    targets = [c for c in synthetic_columns
               if c not in keys and c not in nested
               and (not original_columns or c in original_columns)]
    if not targets:
        raise CapkitError("no target: the synthetic files have no column besides the keys "
                          "that is also in the original file; give --targets")
    return targets


def _check_keys_present(label: str, present: dict[str, int]) -> None:
    """A key with no non-missing value (``present``: key -> non-missing count) raises."""
    for k, count in present.items():
        if count == 0:
            raise CapkitError(f"key column {k!r} is missing (NA) in every record of "
                              f"{label}; a key must have values")


def _unique_key_warnings(n: int, distinct: dict[str, int]) -> list[str]:
    """A warning per key with as many distinct values as the ``n`` original records."""
    return [f"key {k!r} has {d} distinct values in the {n} original records: every record is "
            "unique on it, so every record is an identity-disclosure risk (is it an "
            "identifier?)" for k, d in distinct.items() if n > 1 and d >= n]


def load_inputs(
    original: Path,
    synthetic: Sequence[Path],
    keys: list[str],
    targets: list[str] | None,
    na_values: Sequence[str],
    *,
    min_target_levels: int = 2,
    sep: str | None = None,
    target_na_option: str | None = "--no-target-na",
    holdout: Path | None = None,
    all_columns: bool = False,
    extra_columns: Sequence[str] = (),
    check_overlaps: bool = True,
    exclude: Sequence[str] = (),
) -> Inputs:
    """Read, check and align the files of a command (docs/own-data.md, "When the files disagree").

    ``exclude``: columns of the original left unread with ``all_columns`` (a column of sampling
    weights that ``capkit report --weights`` reads on its own).

    ``holdout``: a file of records not used for the synthesis, read and aligned like the
    synthetic files (``Inputs.holdout``). ``all_columns``: read and align every column of the
    original file, not only the keys and targets (``capkit report``). ``extra_columns`` are
    read and aligned too, beside the keys and targets (e.g. the halves of ``capkit attack
    --linkability``).

    Raises :class:`CapkitError` for: a missing / unreadable / empty file; a CSV file read with
    the wrong delimiter (``sep``, :func:`capkit.data.io.separator`); duplicated column names;
    a key or target absent from a file; synthetic files with different columns; a key that is
    missing in every record; an explicitly requested target with a single level; types that
    cannot be aligned. Warns (``Inputs.warnings``) when a key has as many distinct values as
    there are records (every record unique), and when a default target is skipped. Notes
    (``Inputs.notes``) the missing values of each target (with ``target_na_option``, the
    command's option that leaves them out, if any) and synthetic columns the original lacks. A
    ``holdout`` file (records of the same population not used for the synthesis) is read with
    the same columns and aligned to the original's types like a synthesis, and checked for
    members (:func:`capkit.data.overlap.check_holdout`, on every column the two files share):
    shared records beyond chance are set aside with a warning, or the whole holdout when too few
    are left (``Inputs.holdout`` is then None). A synthetic file whose records copy the
    original's beyond chance (the same test, on the columns read) gets a warning.
    ``check_overlaps=False`` leaves both to the caller (``capkit report``:
    :func:`capkit.audit.audit` checks them on every column).
    """
    _check_file_arguments(synthetic, keys, targets)
    headers = [io.read_columns(p, "synthetic", sep) if io.exists(p) else None
               for p in synthetic]
    for p, h in zip(synthetic, headers, strict=True):
        if h is None:
            raise CapkitError(f"synthetic file {str(p)!r} does not exist")
    _check_same_columns(synthetic, headers)
    explicit = targets is not None
    orig_header = io.read_columns(original, "original", sep) if (
        targets is None or all_columns) and io.exists(original) else []
    # columns of lists or structures: not read unless named (read_table refuses them then)
    lists = {*io.nested_columns(synthetic[0], "synthetic"),
             *(io.nested_columns(original, "original") if io.exists(original) else {})} \
        if targets is None or all_columns else set()
    if targets is None:
        targets = _default_targets(headers[0], orig_header, keys, sorted(lists))
    roles = {**{k: "key" for k in keys}, **{t: "target" for t in targets}}
    extra = [c for c in dict.fromkeys(extra_columns) if c not in {*keys, *targets}]
    needed = keys + targets + extra
    nested = [c for c in dict.fromkeys([*orig_header, *headers[0]])
              if c in lists and c not in needed]
    if all_columns:
        needed += [c for c in orig_header
                   if c not in needed and c not in exclude and c not in nested]
    orig_file = io.read_table(original, needed, role="original", na_values=na_values,
                              column_roles=roles, sep=sep)
    # an identifier of the original that the synthetic files lack: synthesisers drop it
    named = {*keys, *targets, *extra}
    dropped = [c for c in needed if all_columns and c not in named
               and c not in set(headers[0]) and is_identifier(orig_file.frame[c])]
    needed = [c for c in needed if c not in dropped]
    syn_files = [io.read_table(p, needed, role="synthetic", na_values=na_values,
                               column_roles=roles, sep=sep) for p in synthetic]
    hold_file = None if holdout is None else io.read_table(
        holdout, needed, role="holdout", na_values=na_values, column_roles=roles, sep=sep)
    for f in [orig_file, *syn_files, *([hold_file] if hold_file else [])]:
        _check_keys_present(f.label, {k: int(f.frame[k].count()) for k in keys})
    n = len(orig_file.frame)
    warnings = _unique_key_warnings(
        n, {k: int(orig_file.frame[k].nunique(dropna=True)) for k in keys})
    kept = _targets_with_levels(
        targets, {t: _levels(orig_file.frame[t]) for t in targets}, min_target_levels, explicit,
        warnings, {t: orig_file.frame[t].iloc[0] for t in targets})
    frames = [f.frame for f in syn_files] + ([hold_file.frame] if hold_file else [])
    names = None if hold_file is None else [*file_names(len(syn_files))[1:], "the holdout file"]
    columns = [c for c in needed if c in keys + kept + extra or all_columns]
    aligned = align_frames(orig_file.frame, frames, columns, names=names)
    warnings += aligned.warnings
    syntheses = aligned.synthetics[:len(syn_files)]
    sizes = [len(f.frame) for f in syn_files]
    if len(sizes) > 1 and max(sizes) > 1.5 * min(sizes):
        warnings.append(f"the synthetic files differ in size ({', '.join(f'{n:,}' for n in sizes)}"
                        " records): files of different sizes are hardly replicates of one "
                        "synthesiser, so their mean says little; each file is judged on its "
                        "own and the worst given")
    coded: list[str] = []
    if check_overlaps:  # capkit report's audit notes the sizes itself
        warnings += [w for f in syn_files if (w := overlap.size_note(
            n, len(f.frame), f"synthetic file {f.path.name}")) is not None]
    if check_overlaps:  # capkit report's audit checks the coding itself
        for f, frame in zip(syn_files, syntheses, strict=True):
            found = coding.mismatches(aligned.original, frame,
                                      [c for c in columns if c in keys + kept],
                                      name=f"synthetic file {f.path.name}", keys=keys)
            warnings += [m.text() for m in found]
            coded += [m.column for m in found if m.column not in coded]
    held = aligned.synthetics[len(syn_files)] if hold_file else None
    whole: dict[str, pd.DataFrame] = {}  # the original on all its columns, read once
    if check_overlaps:  # identity is all of a record's values: compare every shared column
        for path, f in zip(synthetic, syn_files, strict=True):
            warnings += _copy_warning(*_on_shared_columns(
                original, path, "synthetic", orig_file.frame, f.frame, na_values, sep,
                path.name, whole), path.name)
    if held is not None and check_overlaps:
        keep = _holdout_rows(*_on_shared_columns(
            original, holdout, "holdout", orig_file.frame, hold_file.frame, na_values, sep,
            "the holdout file", whole), holdout.name, warnings)
        held = None if keep is None else held.iloc[keep]
    if held is not None and check_overlaps:  # a synthesis made from the holdout: no control
        tainted = overlap.copies_of_holdout(
            held, {f.path.name: frame for f, frame in zip(syn_files, syntheses, strict=True)})
        if tainted:
            warnings += list(tainted.values())
            warnings.append("the holdout is therefore not used as a control: nothing is "
                            "compared with it")
            held = None
    notes = _extra_column_note(headers[0], orig_file.columns)
    if nested:
        notes.append(f"column{'s' if len(nested) > 1 else ''} {', '.join(map(repr, nested))} "
                     f"hold{'' if len(nested) > 1 else 's'} several values per record (a nested "
                     "Parquet type): left out")
    if dropped:
        many = len(dropped) > 1
        notes.append(f"{'columns' if many else 'column'} {', '.join(dropped)} of the original "
                     f"file ({'identifiers' if many else 'an identifier'}: a different value on "
                     f"every record) {'are' if many else 'is'} not in the synthetic file(s): "
                     "left out")
    notes += _missing_target_notes(
        {t: int(orig_file.frame[t].isna().sum()) for t in kept},
        [{t: int(f.frame[t].isna().sum()) for t in kept} for f in syn_files], n,
        target_na_option, "target" if explicit or keys else "column")
    lines = [f"original: {orig_file.path.name} ({n} records, {len(orig_file.columns)} columns)"]
    lines += [f"synthetic {j}: {f.path.name} ({len(f.frame)} records)"
              for j, f in enumerate(syn_files, start=1)]
    if hold_file is not None:
        lines.append(f"holdout: {hold_file.path.name} ({len(hold_file.frame)} records)")
    lines.append(f"columns read: {', '.join(columns)}")
    finite, infinite = infinite_as_missing(
        {f"original file {orig_file.path.name}": aligned.original,
         **{f"synthetic file {f.path.name} ({j})": frame for j, (f, frame) in
            enumerate(zip(syn_files, syntheses, strict=True), start=1)},
         "the holdout file": held})
    if infinite:  # one rule for every command and family: a missing value
        frames = list(finite.values())
        original_frame, syntheses, held = frames[0], frames[1:-1], frames[-1]
        notes.append(infinite)
    else:
        original_frame = aligned.original
    return Inputs(original_frame, syntheses, keys, kept, lines, aligned.changes,
                  warnings, notes, held, coded)


def _on_shared_columns(original: Path, other: Path, role: str, orig_frame: pd.DataFrame,
                       other_frame: pd.DataFrame, na_values: Sequence[str], sep: str | None,
                       name: str, whole: dict[str, pd.DataFrame]
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The original and another file on every column they share, aligned to the original's
    types: what identifies a record is all its values, not the few a command reads. Frames
    already read are used when they hold those columns; the original's other columns are read
    once for every file compared (``whole`` keeps them)."""
    read = [c for c in orig_frame.columns if c in set(other_frame.columns)]
    header = io.read_columns(original, "original", sep)
    shared = [c for c in header if c in set(io.read_columns(other, role, sep))]
    try:
        if not set(shared) <= set(read):
            if "original" not in whole:
                whole["original"] = io.read_table(original, header, role="original",
                                                  na_values=na_values, sep=sep).frame
            orig_frame = whole["original"][shared]
            other_frame = io.read_table(other, shared, role=role, na_values=na_values,
                                        sep=sep).frame
        aligned = align_frames(orig_frame, [other_frame], shared, names=[name])
    except CapkitError:  # a column the command does not read cannot be aligned: those read
        aligned = align_frames(orig_frame[read], [other_frame[read]], read, names=[name])
    return aligned.original, aligned.synthetics[0]


def _copy_warning(original: pd.DataFrame, synthetic: pd.DataFrame, name: str) -> list[str]:
    """A warning when the records of a synthetic file are identical to original records far
    beyond the data's own duplicate rate (:func:`capkit.data.overlap.record_overlap`; at least
    5 records in 100 more than chance): a copy of the original, or close to it."""
    copies = overlap.record_overlap(original, synthetic, other_name=name)
    if copies.excess and copies.share - copies.expected / copies.n_other >= 0.05:
        asked = (" (is it the original file itself?)"
                 if copies.share >= overlap.ORIGINAL_ITSELF else "")
        return [f"synthetic file {name}: {copies.shared:,} of its {copies.n_other:,} records "
                f"({100 * copies.share:.1f}%) are identical to an original record on "
                f"{copies.where_text()}, where {copies.chance_text()}: it copies the original"
                f"{asked}, an identity disclosure whatever the measures below say"]
    return []


def _holdout_rows(original: pd.DataFrame, holdout: pd.DataFrame, name: str,
                  warnings: list[str]) -> np.ndarray | None:
    """The positions of the holdout's records to use as the control (None: no control), by
    :func:`capkit.data.overlap.check_holdout`; its warning, if any, appended to ``warnings``."""
    checked = overlap.check_holdout(original, holdout, name=f"the holdout file {name}")
    if checked.warning:
        warnings.append(checked.warning)
    if checked.holdout is None:
        return None
    return checked.rows


def _file_stats(rel: object, role: str, keys: list[str], targets: list[str]
                ) -> tuple[int, dict[str, int], dict[str, int], dict[str, int], dict[str, int]]:
    """One DuckDB pass over a file's relation: records, non-missing and distinct values of
    the keys, number of levels (missing counted as one) and of missing values of the
    targets."""
    q = duck.quote
    exprs = ["count(*)"] + [f"count({q(k)})" for k in keys]
    exprs += [f"count(DISTINCT {q(k)})" for k in keys]
    exprs += [f"count(DISTINCT {q(t)}) + (count({q(t)}) < count(*))::INTEGER" for t in targets]
    exprs += [f"count(*) - count({q(t)})" for t in targets]
    try:
        row = rel.aggregate(", ".join(exprs)).fetchall()[0]  # type: ignore[attr-defined]
    except Exception as exc:  # duckdb's own exception hierarchy
        raise CapkitError(f"{role} data could not be read by DuckDB: {exc}") from exc
    n_k, n_t = len(keys), len(targets)
    values = [int(v) for v in row]
    cut = 1 + 2 * n_k
    return (values[0], dict(zip(keys, values[1:1 + n_k], strict=True)),
            dict(zip(keys, values[1 + n_k:cut], strict=True)),
            dict(zip(targets, values[cut:cut + n_t], strict=True)),
            dict(zip(targets, values[cut + n_t:], strict=True)))


def load_engine_inputs(
    original: Path,
    synthetic: Sequence[Path],
    keys: list[str],
    targets: list[str] | None,
    *,
    min_target_levels: int = 2,
    sep: str | None = None,
    target_na_option: str | None = "--no-target-na",
) -> Inputs:
    """The checks and notes of :func:`load_inputs` for a DuckDB/Spark run, without reading the
    records into Python: headers from the file schemas, counts from one DuckDB pass per file
    (one DuckDB relation per file serves both).

    ``Inputs.original`` / ``Inputs.synthetics`` are then the paths (globs allowed), for the
    engine to count. Columns are not type-aligned: a column must have the same kind (number,
    text, date) in every file, else the engine raises a :class:`CapkitError` naming it.
    """
    _check_file_arguments(synthetic, keys, targets)
    io.check_files(original, "original")
    for p in synthetic:
        io.check_files(p, "synthetic")
    orig_src, syn_src = str(original), [str(p) for p in synthetic]
    con = duck.connect()
    try:
        orig_rel = duck.relation(orig_src, con, "original", sep=sep)
        syn_rels = [duck.relation(s, con, "synthetic", sep=sep) for s in syn_src]
        orig_header = [str(c) for c in orig_rel.columns]
        headers = [[str(c) for c in rel.columns] for rel in syn_rels]
        _check_same_columns(synthetic, headers)
        explicit = targets is not None
        if targets is None:
            targets = _default_targets(
                headers[0], orig_header, keys,
                [str(c) for c, t in zip(syn_rels[0].columns, syn_rels[0].types, strict=True)
                 if getattr(t, "id", "") in ("list", "struct", "map", "union", "array")])
        roles = {**{k: "key" for k in keys}, **{t: "target" for t in targets}}
        for role, path, header, rel in [("original", original, orig_header, orig_rel),
                                        *[("synthetic", p, h, r) for p, h, r in
                                          zip(synthetic, headers, syn_rels, strict=True)]]:
            io.check_columns(header, keys + targets, f"{role} file {path.name!r}", roles)
            io.check_not_nested(
                {str(c): str(t) for c, t in zip(rel.columns, rel.types, strict=True)
                 if getattr(t, "id", "") in ("list", "struct", "map", "union", "array")},
                keys + targets, f"{role} file {path.name!r}", roles)
        n, present, distinct, levels, missing = _file_stats(orig_rel, "original", keys,
                                                            targets)
        orig_label = f"original file {original.name!r}"
        syn_counts, syn_missing = [], []
        for p, rel in zip(synthetic, syn_rels, strict=True):
            n_s, present_s, _, _, missing_s = _file_stats(rel, "synthetic", keys, targets)
            syn_counts.append(n_s)
            syn_missing.append(missing_s)
            for label, count, nonmissing in [(orig_label, n, present),
                                             (f"synthetic file {p.name!r}", n_s, present_s)]:
                if count == 0:
                    raise CapkitError(f"{label} is empty: it has a header but no rows")
                _check_keys_present(label, nonmissing)
    finally:
        con.close()
    warnings = _unique_key_warnings(n, distinct)
    kept = _targets_with_levels(targets, levels, min_target_levels, explicit, warnings)
    warnings += [w for p, n_s in zip(synthetic, syn_counts, strict=True)
                 if (w := overlap.size_note(n, n_s, f"synthetic file {p.name}")) is not None]
    notes = _extra_column_note(headers[0], orig_header)
    notes += _missing_target_notes({t: missing[t] for t in kept},
                                   [{t: m[t] for t in kept} for m in syn_missing], n,
                                   target_na_option)
    lines = [f"original: {original.name} ({n} records, {len(orig_header)} columns)"]
    lines += [f"synthetic {j}: {p.name} ({n_s} records)"
              for j, (p, n_s) in enumerate(zip(synthetic, syn_counts, strict=True), start=1)]
    lines.append(f"columns read: {', '.join(keys + kept)}")
    return Inputs(orig_src, syn_src, keys, kept, lines, [], warnings,  # type: ignore[arg-type]
                  notes)


def choose_disclosure_engine(engine: str, original: Path, synthetic: Sequence[Path]) -> str:
    """The engine of a ``capkit disclosure`` run: ``engine`` unless it is ``auto``.

    ``auto``: :func:`capkit.counts.engines.engine_for` on the files (DuckDB above
    :data:`capkit.counts.engines.FILE_SIZE_THRESHOLD` bytes of Parquet/CSV, pandas otherwise); R
    files, and files with a problem, go to pandas, whose reader reports the problem.
    """
    if engine != "auto":
        return engine
    try:
        return engines.engine_for(str(original), [str(p) for p in synthetic])
    except CapkitError:
        return "pandas"
