"""Equivalence classes of a table and the counts of a sensitive attribute within them.

Every anonymity level of :mod:`capkit.anonymity.levels` is a min or a max, over the equivalence
classes (records that share their quasi-identifier values), of a function of the counts of the
sensitive values in the class and in the whole table. So the table is counted once, with one
``GROUP BY quasi-identifiers, sensitive attributes``
(:func:`capkit.counts.groups.group_rows`, on pandas, DuckDB or Spark), and every class and
value count comes from those grouped rows; no record is visited in Python.

pycanon 1.3.6 (Sainz-Pardo Díaz & López García, "A Python library to check the level of
anonymity of a dataset", Scientific Data 9, 2022) differs from this in two ways a user would
not expect (read from pycanon 1.3.6's ``pycanon/anonymity`` source):

- rows with a missing quasi-identifier belong to no class and silently drop out of every level;
  capkit keeps them, a missing value being a value of its own (as in
  :func:`capkit.counts.tables.crosstab`);
- the classes hold the rows' *index labels*, which pycanon then reads as *positions*: with an
  index other than 0..n-1 the sensitive values of the wrong rows are used (or IndexError);
  capkit uses each row's own values.

``pycanon=True`` reproduces both, and a :class:`PycanonDifferenceWarning` says so whenever the
input is one where the two differ.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pandas.api.types as pdt

from capkit.counts.encode import as_list
from capkit.counts.engines import COUNT_COLUMN
from capkit.counts.groups import group_rows
from capkit.errors import CapkitError, CapkitWarning


class PycanonDifferenceWarning(CapkitWarning):
    """capkit's number differs from what pycanon 1.3.6 would return on this input, because
    pycanon errs here; the message says what each does and how to get pycanon's number."""


class IdentifyingKeysWarning(CapkitWarning):
    """Every record is alone in its equivalence class: the quasi-identifiers act as an
    identifier."""


#: Prefix of the copies of sensitive columns read by position (``pycanon=True`` only).
SHIFTED = "__capkit_pycanon_position__"


@dataclass(frozen=True)
class Grouped:
    """A table counted once by quasi-identifiers and sensitive attributes.

    ``rows`` has one row per distinct combination of ``qi + sas`` (plus, in pycanon's
    index-as-position mode, the copies named in ``value_column``) and its number of records
    in ``COUNT_COLUMN``. ``n`` is the number of records. ``drop_missing_qi`` says whether rows
    with a missing quasi-identifier belong to no class (pycanon) or to a class of their own.
    ``kinds`` maps each sensitive column to ``"numeric"`` or ``"text"`` (t-closeness).
    """

    rows: pd.DataFrame
    n: int
    qi: list[str]
    sas: list[str]
    value_column: dict[str, str]
    kinds: dict[str, str]
    drop_missing_qi: bool


def column_list(columns: object, argument: str) -> list[str]:
    """pycanon accepts a list or an array of names (read as text, as pycanon does); capkit also
    a single name (:func:`capkit.counts.encode.as_list` checks the rest)."""
    if not isinstance(columns, str) and isinstance(columns, np.ndarray | list | tuple):
        columns = [str(c) for c in np.asarray(columns, dtype=object).ravel()]
    return as_list(columns, argument)


def _kind(series: pd.Series, pycanon: bool) -> str:
    """pycanon picks t-closeness's distance from the column's dtype (spec section 2.3)."""
    dtype = series.dtype
    if pdt.is_numeric_dtype(dtype) or pdt.is_bool_dtype(dtype):
        return "numeric"
    if pdt.is_string_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype):
        if isinstance(dtype, pd.CategoricalDtype) and not pdt.is_string_dtype(
                dtype.categories.dtype):
            return "numeric" if pdt.is_numeric_dtype(dtype.categories.dtype) else "other"
        return "text"
    if not pycanon and pdt.is_object_dtype(dtype):
        present = series.dropna()
        if present.map(lambda v: isinstance(v, str)).all():
            return "text"
    return "other"


def _warn(message: str) -> None:
    warnings.warn(message, PycanonDifferenceWarning, stacklevel=4)


def group(data: object, quasi_ident: object, sens_att: object = (), *, pycanon: bool = False,
          engine: str | None = None) -> Grouped:
    """Count ``data`` once by quasi-identifiers and sensitive attributes (see module note).

    Raises :class:`CapkitError` for a missing column (pycanon raises ValueError "Values not
    defined"), a sensitive attribute that is also a quasi-identifier, an empty table, or, with
    ``pycanon=True``, an input on which pycanon 1.3.6 raises (an index label that is not a row
    position; a missing sensitive value).
    """
    qi = column_list(quasi_ident, "quasi_ident")
    sas = [] if (not isinstance(sens_att, str) and len(list(sens_att)) == 0) else column_list(
        sens_att, "sens_att")
    both = [c for c in sas if c in qi]
    if both:
        raise CapkitError(f"sensitive attribute {both[0]!r} is also a quasi-identifier")
    columns = qi + sas
    value_column = {sa: sa for sa in sas}
    kinds: dict[str, str] = {}
    if isinstance(data, pd.DataFrame) and engine in (None, "pandas"):
        missing = [c for c in columns if c not in data.columns]
        if missing:
            raise CapkitError(f"column(s) {missing} are missing from the data: cannot be "
                              "quasi-identifiers or sensitive attributes")
        kinds = {sa: _kind(data[sa], pycanon) for sa in sas}
        frame = data
        index = data.index
        positional = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
        if not positional and sas:
            if pycanon:
                labels = np.asarray(index)
                if not pdt.is_integer_dtype(labels) or (labels < 0).any() or (
                        labels >= len(data)).any():
                    raise CapkitError(
                        "pycanon=True: the index holds labels that are not row positions "
                        "0..n-1; pycanon 1.3.6 reads index labels as positions and raises "
                        "IndexError here (reset the index, or use pycanon=False)")
                frame = data[columns].copy()
                for sa in sas:
                    value_column[sa] = SHIFTED + sa
                    frame[SHIFTED + sa] = data[sa].iloc[labels].to_numpy()
                columns = columns + [value_column[sa] for sa in sas]
                _warn("pycanon=True: sensitive values read at the positions named by the index "
                      "labels, as pycanon 1.3.6 does (the rows' own values are not used)")
            else:
                _warn("the index is not 0..n-1: capkit uses each row's own values; pycanon "
                      "1.3.6 would read the index labels as row positions (other rows' values, "
                      "or IndexError); pycanon=True reproduces it")
        if sas and frame[[value_column[sa] for sa in sas]].isna().any().any():
            if pycanon:
                raise CapkitError(
                    "pycanon=True: a sensitive attribute has missing values; pycanon 1.3.6 "
                    "raises here (TypeError from numpy.unique, or ValueError in t-closeness)")
            _warn("a sensitive attribute has missing values: counted as a value of their own "
                  "(pycanon 1.3.6 raises an error on them)")
    else:
        if pycanon:
            raise CapkitError("pycanon=True needs a pandas DataFrame counted by pandas (its "
                              "quirks are about pandas indexes)")
        frame = data
    grouped = group_rows(frame, columns, engine=engine)
    rows = grouped.frame
    if not kinds:
        kinds = {sa: _kind(rows[sa], pycanon) for sa in sas}
    missing_qi = int(rows.loc[rows[qi].isna().any(axis=1), COUNT_COLUMN].sum())
    if missing_qi:
        if pycanon:
            _warn(f"pycanon=True: {missing_qi} record(s) with a missing quasi-identifier belong "
                  "to no class and are left out of every level, as pycanon 1.3.6 does")
        else:
            _warn(f"{missing_qi} record(s) have a missing quasi-identifier: a missing value is "
                  "a value of its own here; pycanon 1.3.6 silently leaves these records out "
                  "(pycanon=True reproduces it)")
    return Grouped(rows, grouped.records, qi, sas, value_column, kinds, pycanon)


def value_codes(values: pd.Series) -> tuple[np.ndarray, int]:
    """Codes of a column's values in ``numpy.unique`` order (sorted; missing values last, as
    one value), and the number of distinct values."""
    present = pd.unique(values.dropna())
    try:
        ordered = np.sort(np.asarray(present))
    except TypeError:  # mixed types: order by type, then value
        ordered = np.asarray(sorted(present, key=lambda v: (type(v).__name__, v)), dtype=object)
    index = pd.Index(ordered)
    if not index.is_unique:  # e.g. 1 and 1.0 in one object column are one value for numpy
        index = index.unique()
    codes = index.get_indexer(values)
    m = len(index)
    if (codes < 0).any():
        codes = np.where(codes < 0, m, codes)
        m += 1
    return codes.astype(np.int64), m


def class_codes(g: Grouped, columns: list[str]) -> tuple[np.ndarray, int]:
    """For each grouped row its class over ``columns`` (-1: no class, pycanon's dropped rows),
    and the number of classes."""
    if not columns:
        return np.zeros(len(g.rows), dtype=np.int64), 1
    numbered = g.rows.groupby(columns, dropna=g.drop_missing_qi, observed=True, sort=False
                              ).ngroup()
    codes = numbered.fillna(-1).to_numpy(dtype=np.int64)
    return codes, int(codes.max()) + 1


def class_sizes(g: Grouped, columns: list[str]) -> np.ndarray:
    """Number of records in each class over ``columns`` (classes with a record only)."""
    codes, n_classes = class_codes(g, columns)
    keep = codes >= 0
    counts = g.rows[COUNT_COLUMN].to_numpy(dtype=np.int64)
    return np.bincount(codes[keep], weights=counts[keep], minlength=n_classes).astype(np.int64)


@dataclass(frozen=True)
class Cells:
    """Counts of one sensitive attribute within classes, as non-empty (class, value) cells.

    Cells are sorted by class, then value (values in ``numpy.unique`` order). ``start`` holds
    the first cell of each class (for ``numpy.ufunc.reduceat``); ``size[c]`` is the number of
    records of class c, ``p[v]`` the share of value v in the whole table; ``m`` the number of
    values; ``numeric`` whether t-closeness uses the ordered distance.
    """

    cls: np.ndarray
    value: np.ndarray
    count: np.ndarray
    start: np.ndarray
    size: np.ndarray
    p: np.ndarray
    m: int
    numeric: bool

    @property
    def q(self) -> np.ndarray:
        """Share of each cell's value in its class: q_E(s) = count / |E|."""
        return self.count / self.size[self.cls]

    @property
    def p_cell(self) -> np.ndarray:
        """Share of each cell's value in the whole table: p(s)."""
        return self.p[self.value]


def cells(g: Grouped, class_columns: list[str], sa: str) -> Cells:
    """The (class, value) counts of sensitive attribute ``sa`` on the classes over
    ``class_columns`` (the quasi-identifiers, or with ``gen=False`` the quasi-identifiers and
    the other sensitive attributes)."""
    rows = g.rows
    counts = rows[COUNT_COLUMN].to_numpy(dtype=np.int64)
    value, m = value_codes(rows[g.value_column[sa]])
    totals = np.bincount(value, weights=counts, minlength=m)
    p = totals / g.n  # pycanon: count of the value in the whole table / number of rows
    cls, n_classes = class_codes(g, class_columns)
    keep = cls >= 0
    flat = cls[keep] * m + value[keep]
    uniq, inverse = np.unique(flat, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=counts[keep]).astype(np.int64)
    cell_cls, cell_value = np.divmod(uniq, m)
    size = np.bincount(cell_cls, weights=summed, minlength=n_classes).astype(np.int64)
    start = np.flatnonzero(np.r_[True, cell_cls[1:] != cell_cls[:-1]])
    return Cells(cell_cls, cell_value, summed, start, size, p, m,
                 g.kinds.get(sa) == "numeric")
