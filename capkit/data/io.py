"""Reading the user's data files: CSV, Parquet and R's .rda / .rds, only the columns needed.

Used by the ``capkit disclosure`` and ``capkit cap`` commands. Every problem with a file is a
:class:`capkit.errors.CapkitError` whose message names the file (and the column), never a raw
pandas / pyarrow / pyreadr traceback:

* a file that does not exist, is a folder, cannot be read or has an unknown extension;
* an empty file (0 bytes, or a header and no rows);
* duplicated column names (checked on the raw header, before pandas renames them ``a.1``);
* a requested column that the file does not have;
* a requested Parquet column of a nested type (a list, a structure, a map: values that are not
  single values, which no measure can count or compare): :func:`nested_columns`;
* a file too large for memory even when reading only the needed columns.

The index that pandas stores in a Parquet file (``__index_level_0__``) is not a column.

Only the requested columns are parsed: ``usecols`` for CSV, a column projection for Parquet
(the other columns are never decoded). R files are read whole by pyreadr (the format has no
column projection) and then cut down to the needed columns.

A path may be a glob (``"syn/part-*.parquet"``, quoted so that the shell leaves it alone): the
matching files, in name order, are read as one data set and must have the same columns.

Missing values in CSV files: by default only an empty field and the text ``NA`` (what R's
``write.csv`` writes) are missing; every other text, "None" or "NaN" included, is a value.

The field delimiter of a CSV file is ``sep`` when given, else ``,`` (a tab for ``.tsv``). A
header read that way as one single column holding ``;``, a tab or ``|`` is an error naming the
delimiter seen (a ``;``-separated file read with ``,`` would otherwise fail later with a
confusing "column missing").
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from capkit.data.rdata import read_r
from capkit.errors import CapkitError

#: Values read as missing in CSV files by default (R's ``write.csv`` writes NA as ``NA``).
DEFAULT_NA_VALUES: tuple[str, ...] = ("", "NA")

_CSV = (".csv", ".csv.gz", ".csv.bz2", ".csv.zip", ".csv.xz", ".tsv", ".tsv.gz", ".txt")
_PARQUET = (".parquet", ".pq")
_RDATA = (".rda", ".rdata")
_RDS = (".rds",)


@dataclass(frozen=True)
class DataFile:
    """A data file read for a measure.

    Attributes
    ----------
    path
        The file.
    role
        ``"original"`` or ``"synthetic"`` (used in messages).
    columns
        All column names of the file, in file order (from its header / schema).
    frame
        The requested columns only, in the requested order.
    """

    path: Path
    role: str
    columns: tuple[str, ...]
    frame: pd.DataFrame

    @property
    def label(self) -> str:
        """How messages name this file: ``original file 'orig.csv'``."""
        return f"{self.role} file {self.path.name!r}"


def file_format(path: Path) -> str:
    """``"csv"``, ``"parquet"``, ``"rdata"`` or ``"rds"`` from the file name's extension."""
    name = path.name.lower()
    for fmt, suffixes in (("csv", _CSV), ("parquet", _PARQUET), ("rdata", _RDATA),
                          ("rds", _RDS)):
        if name.endswith(suffixes):
            return fmt
    raise CapkitError(
        f"cannot tell the format of {path.name!r} from its extension: use .csv (.csv.gz, .tsv), "
        ".parquet, .rda/.RData or .rds"
    )


def _check_path(path: Path, role: str) -> None:
    if not path.exists():
        raise CapkitError(f"{role} file {str(path)!r} does not exist")
    if path.is_dir():
        raise CapkitError(f"{role} file {str(path)!r} is a folder, not a data file")
    try:
        with open(path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise CapkitError(f"{role} file {str(path)!r} cannot be read: {exc.strerror}") from exc
    if path.stat().st_size == 0:
        raise CapkitError(f"{role} file {str(path)!r} is empty (0 bytes)")


def _duplicates(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    dup: list[str] = []
    for n in names:
        if n in seen and n not in dup:
            dup.append(n)
        seen.add(n)
    return dup


#: Delimiters recognised in a one-column header, and how messages name them.
_OTHER_DELIMITERS = {";": "';'", "\t": "a tab", "|": "'|'"}


def separator(path: Path, sep: str | None = None) -> str:
    """The field delimiter of a CSV file: ``sep`` if given, else a tab for ``.tsv``, else ``,``.

    ``sep`` may be ``"tab"`` or ``"\\t"`` (as typed on a command line) for a tab.
    """
    if sep is not None:
        if sep in ("tab", "\\t"):
            return "\t"
        if len(sep) != 1:
            raise CapkitError(f"sep must be one character (or 'tab'), got {sep!r}")
        return sep
    return "\t" if path.name.lower().endswith((".tsv", ".tsv.gz")) else ","


def _csv_header(path: Path, role: str, sep: str | None = None) -> list[str]:
    delimiter = separator(path, sep)
    try:
        head = pd.read_csv(path, sep=delimiter, header=None, nrows=1, dtype=str,
                           keep_default_na=False)
    except pd.errors.EmptyDataError as exc:
        raise CapkitError(f"{role} file {str(path)!r} is empty (no header line)") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError, ValueError) as exc:
        raise CapkitError(f"{role} file {str(path)!r} cannot be read as CSV: {exc}") from exc
    header = [str(v) for v in head.iloc[0].tolist()]
    if len(header) == 1:  # one column: the file may be separated by another delimiter
        named = _OTHER_DELIMITERS if sep is None else {",": "','", **_OTHER_DELIMITERS}
        seen = [d for d in named if d != delimiter and d in header[0]]
        if seen:
            shown, what = ("tab" if seen[0] == "\t" else seen[0]), named[seen[0]]
            if sep is not None:
                raise CapkitError(
                    f"with --sep {sep!r} the {role} file {path.name!r} reads as one single "
                    f"column {header[0]!r}, whose name holds {what}: the file looks separated "
                    f"by {what}; give --sep {shown!r} (sep={shown!r} in Python) or leave --sep "
                    "out")
            raise CapkitError(
                f"{role} file {path.name!r} reads as one single column {header[0]!r} with "
                f"{delimiter!r} as the delimiter, but its header holds {what}: it looks like a "
                f"file separated by {what}; give --sep {shown!r} (sep={shown!r} in Python), "
                f"or --sep {delimiter!r} if it really is one column")
    return header


def _read_csv(path: Path, role: str, columns: list[str], na_values: Sequence[str],
              sep: str | None = None) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, sep=separator(path, sep), usecols=columns,
                            keep_default_na=False, na_values=list(na_values),
                            low_memory=False)
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, ValueError) as exc:
        raise CapkitError(f"{role} file {str(path)!r} cannot be read as CSV: {exc}") from exc
    return frame


def _parquet_schema(path: Path, role: str):  # noqa: ANN202 - pyarrow.Schema
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise CapkitError(f"{role} file {str(path)!r} cannot be read as Parquet: {exc}") from exc


def _pandas_index(schema) -> set[str]:  # noqa: ANN001 - pyarrow.Schema
    """The columns that hold the index pandas stored with the frame (not data)."""
    meta = schema.pandas_metadata or {}
    return {c for c in meta.get("index_columns", []) if isinstance(c, str)}


def _parquet_header(path: Path, role: str) -> list[str]:
    schema = _parquet_schema(path, role)
    index = _pandas_index(schema)
    return [n for n in schema.names if n not in index]


def nested_columns(path: str | Path, role: str = "data") -> dict[str, str]:
    """The columns of a Parquet file (the first a glob matches) whose values are not single
    values, name -> type (a list, a structure, a map, a union); empty for other formats."""
    import pyarrow as pa

    p = expand(path, role)[0]
    if file_format(p) != "parquet" or not p.is_file():
        return {}
    schema = _parquet_schema(p, role)
    return {f.name: str(f.type) for f in schema
            if pa.types.is_nested(f.type) and f.name not in _pandas_index(schema)}


def check_not_nested(nested: dict[str, str], wanted: Sequence[str], label: str,
                     column_roles: dict[str, str] | None = None) -> None:
    """Raise a :class:`CapkitError` naming the first column of ``wanted`` of a nested type
    (``nested``: :func:`nested_columns`)."""
    roles = column_roles or {}
    for column in wanted:
        if column in nested:
            what = roles.get(column, "column")
            what = what if what == "column" else f"{what} column"
            raise CapkitError(
                f"{what} {column!r} of {label} holds {nested[column]} values (a nested Parquet "
                "type: several values per record), which no measure can count or compare; "
                "leave it out (--keys, --targets, --columns) or store it as columns of single "
                "values")


def _read_parquet(path: Path, role: str, columns: list[str]) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=columns)
    except MemoryError:
        raise
    except Exception as exc:
        raise CapkitError(f"{role} file {str(path)!r} cannot be read as Parquet: {exc}") from exc
    return table.to_pandas()


def _read_r(path: Path, role: str, fmt: str) -> pd.DataFrame:
    try:
        objects = read_r(path)
    except MemoryError:
        raise
    except Exception as exc:  # pyreadr.LibrdataError and friends
        raise CapkitError(f"{role} file {str(path)!r} cannot be read as an R "
                          f"{'.rds' if fmt == 'rds' else '.rda'} file: {exc}") from exc
    frames = {name: obj for name, obj in objects.items() if isinstance(obj, pd.DataFrame)}
    if len(frames) != 1:
        names = list(objects)
        raise CapkitError(
            f"{role} file {str(path)!r} must hold exactly one data frame, it holds "
            f"{len(frames)} (objects: {names}); save one data frame per file"
        )
    return next(iter(frames.values()))


def is_glob(path: str | Path) -> bool:
    """Whether ``path`` is a glob pattern (``*``, ``?`` or ``[...]``)."""
    return glob.has_magic(str(path))


def exists(path: str | Path) -> bool:
    """Whether ``path`` is an existing file or folder, or a glob that matches something."""
    if is_glob(path):
        return bool(glob.glob(str(path), recursive=True))
    return Path(path).exists()


def expand(path: str | Path, role: str = "data") -> list[Path]:
    """The files a path or glob names, in name order (a plain path: itself)."""
    if not is_glob(path):
        return [Path(path)]
    files = sorted(glob.glob(str(path), recursive=True))
    if not files:
        raise CapkitError(f"{role} file pattern {str(path)!r} matches no file")
    return [Path(f) for f in files]


def check_files(path: str | Path, role: str = "data") -> list[Path]:
    """The files a path or glob names, each checked to exist, be readable and not be empty
    (0 bytes); a :class:`CapkitError` names the file and its ``role`` otherwise."""
    files = expand(path, role)
    for p in files:
        _check_path(p, role)
    return files


def read_columns(path: str | Path, role: str = "data", sep: str | None = None) -> list[str]:
    """Column names of a data file in file order, reading only its header (or whole R file).

    For a glob, the columns of the first matching file. ``role`` names the file in messages
    (``"original"``, ``"synthetic"``); ``sep`` is the CSV delimiter (see :func:`separator`).
    """
    p = expand(path, role)[0]
    _check_path(p, role)
    fmt = file_format(p)
    if fmt == "csv":
        return _csv_header(p, role, sep)
    if fmt == "parquet":
        return _parquet_header(p, role)
    return [str(c) for c in _read_r(p, role, fmt).columns]


def check_columns(header: Sequence[str], wanted: Sequence[str], label: str,
                  column_roles: dict[str, str] | None = None) -> None:
    """Raise a :class:`CapkitError` for the first column of ``wanted`` not in ``header``.

    ``label`` names the file (``"original file 'orig.csv'"``); ``column_roles`` (``{column:
    "key" | "target"}``) says what the missing column is ("requested" otherwise).
    """
    roles = column_roles or {}
    for column in wanted:
        if column not in header:
            what = roles.get(column, "requested")
            shown = list(header) if len(header) <= 20 else list(header[:20]) + ["..."]
            raise CapkitError(f"{what} column {column!r} is missing from {label} (its "
                              f"columns: {shown})")


def read_table(
    path: str | Path,
    columns: Sequence[str] | None = None,
    *,
    role: str = "data",
    na_values: Sequence[str] = DEFAULT_NA_VALUES,
    column_roles: dict[str, str] | None = None,
    sep: str | None = None,
) -> DataFile:
    """Read the given columns of a CSV, Parquet, .rda or .rds file.

    Parameters
    ----------
    path
        The file; its format comes from the extension (:func:`file_format`).
    columns
        The columns to read, in the order wanted; ``None`` reads all of them.
    role
        ``"original"`` or ``"synthetic"``: how error messages name the file.
    na_values
        CSV only: the texts read as missing (default: empty field and ``NA``).
    column_roles
        Optional ``{column: "key" | "target"}`` so that a missing column is reported as
        "key column 'age' is missing from ...".
    sep
        CSV only: the field delimiter (default ``,``, a tab for ``.tsv``; see
        :func:`separator`).

    Returns
    -------
    DataFile
        With ``frame`` holding only the requested columns.

    Raises
    ------
    CapkitError
        For a missing, unreadable, empty or unknown-format file, duplicated column names, a
        requested column the file lacks or of a nested Parquet type, or a file too large for
        memory.
    """
    if is_glob(path):
        return _read_glob(path, columns, role=role, na_values=na_values,
                          column_roles=column_roles, sep=sep)
    p = Path(path)
    _check_path(p, role)
    fmt = file_format(p)
    r_frame = None
    if fmt == "csv":
        header = _csv_header(p, role, sep)
    elif fmt == "parquet":
        header = _parquet_header(p, role)
    else:
        r_frame = _read_r(p, role, fmt)
        header = [str(c) for c in r_frame.columns]
    duplicated = _duplicates(header)
    if duplicated:
        raise CapkitError(f"{role} file {p.name!r} has duplicated column names: {duplicated}; "
                          "rename them so that each column has one name")
    wanted = list(header) if columns is None else list(columns)
    check_columns(header, wanted, f"{role} file {p.name!r}", column_roles)
    if fmt == "parquet":
        check_not_nested(nested_columns(p, role), wanted, f"{role} file {p.name!r}",
                         column_roles)
    try:
        if fmt == "csv":
            frame = _read_csv(p, role, wanted, na_values, sep)
        elif fmt == "parquet":
            frame = _read_parquet(p, role, wanted)
        else:
            frame = r_frame
    except MemoryError as exc:
        raise CapkitError(
            f"{role} file {p.name!r} is too large for memory even reading only the "
            f"{len(wanted)} needed columns {wanted}; use fewer keys/targets or a bigger machine"
        ) from exc
    frame = frame.loc[:, wanted]
    if len(frame) == 0:
        raise CapkitError(f"{role} file {p.name!r} is empty: it has a header but no rows")
    return DataFile(path=p, role=role, columns=tuple(header), frame=frame)


def _read_glob(pattern: str | Path, columns: Sequence[str] | None, *, role: str,
               na_values: Sequence[str], column_roles: dict[str, str] | None,
               sep: str | None = None) -> DataFile:
    """Every file a glob matches, read as one data set (rows in file-name order)."""
    parts = [read_table(f, columns, role=role, na_values=na_values, column_roles=column_roles,
                        sep=sep) for f in expand(pattern, role)]
    first = parts[0]
    for part in parts[1:]:
        if set(part.columns) != set(first.columns):
            raise CapkitError(f"{role} files of {str(pattern)!r}: {part.path.name!r} has "
                              f"different columns from {first.path.name!r}")
    frame = pd.concat([part.frame for part in parts], ignore_index=True) if len(parts) > 1 \
        else first.frame
    return DataFile(path=Path(pattern), role=role, columns=first.columns, frame=frame)
