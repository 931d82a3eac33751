"""Records of one file that are also in another: is a holdout really a holdout, is a synthesis a
copy of its members?

One check, used by every command and by :func:`capkit.audit.audit`: count the records of
``other`` (a holdout, or a synthetic file) identical on every compared column to some member,
and set the count against what the data's own duplicates predict. In a population, different
people can share every value (census extracts with a few coarse columns do); a record drawn from
the population without regard to the members equals some member with about the probability that
a member equals another member. So the members' **leave-one-out duplicate rate** p0 (the share
of members identical to another member) is the chance rate, and

* ``shared`` significantly above ``p0 x len(other)`` (an exact one-sided binomial test at
  :data:`ALPHA`) means the file holds members: a holdout that does is no control for the
  records it shares, a synthesis that does copies its members.

Comparing on every column of the members (not only the keys and targets a command reads) is
what makes the test work: on three coarse columns most records have a twin; on all of them a
real holdout shares few rows.

The counts are exact (the rows are factorised together, column by column: equal values, not
hashes of rows, make a group), vectorised, one pass.
The p-value is scipy's exact binomial tail (``scipy.special.bdtrc``), computed when first read;
whether it is below :data:`ALPHA` is first settled, where they decide it with a wide margin, by
two bounds of that tail computed with the ``math`` module: a count at most ``floor(n p0)`` (the
binomial's median is at least that, so the tail is at least 1/2), the probability of exactly
the count times a geometric sum (a lower bound of the tail's first terms) at least
``2 ALPHA``, or that probability over ``1 - r`` (an upper bound) at most ``ALPHA / 2``: above
the mean the ratio r of each term of the binomial to the one before falls, so the tail lies
between geometric series (Feller, *An Introduction to Probability Theory and Its
Applications*, vol. 1, 1968, ch. VI.3). The factor 2 is far above the rounding of ``lgamma``
and ``log`` (relative errors near 1e-15 of terms below 1e8), so the verdict is the one scipy's
p-value gives; a check the bounds settle never imports ``scipy.special`` (about 0.1 CPU-s in a
fresh process).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

__all__ = ["ALPHA", "MIN_CONTROL", "ORIGINAL_ITSELF", "HoldoutCheck", "Overlap", "check_holdout",
           "SIZE_RATIO", "copies_of_holdout", "record_overlap", "size_note"]

#: Significance of the one-sided test that a file shares more records with the members than
#: the data's own duplicates predict.
ALPHA = 1e-3

#: Share of a synthetic file's records identical to an original record from which a warning
#: asks whether it is the original file itself (a genuine synthesis that copies some records,
#: a CART with 17% copies, is not asked).
ORIGINAL_ITSELF = 0.9

#: A synthetic file this many times larger or smaller than the original gets a note.
SIZE_RATIO = 2.0

#: Fewest holdout records left, after the shared ones are set aside, for a control.
MIN_CONTROL = 20


@dataclass(frozen=True)
class Overlap:
    """The records of a file (``other``) identical to a member, against the chance rate.

    Attributes
    ----------
    columns
        The columns compared (every column of the members that the other file has).
    n_members, n_other
        Records of the members and of the other file.
    shared
        Records of the other file identical to some member on every compared column.
    member_duplicates
        Members identical to another member (the data's own duplicates).
    expected
        The shared records the duplicates predict: ``n_other x p0``, p0 the members'
        leave-one-out duplicate rate (with half a duplicate added, so that data without any
        duplicate does not make one shared record a certainty).
    p_value
        P(at least ``shared`` | the chance rate), exact binomial (a property, computed when
        first read).
    is_shared
        For each record of the other file, whether it is identical to a member.
    member_count
        For each record of the other file, how many members it is identical to (0 when
        none).
    """

    columns: tuple[str, ...]
    n_members: int
    n_other: int
    shared: int
    member_duplicates: int
    expected: float
    is_shared: np.ndarray = field(repr=False)
    member_count: np.ndarray | None = field(default=None, repr=False)

    @property
    def p0(self) -> float:
        """The chance rate: the members' leave-one-out duplicate rate, with half a duplicate
        added (``expected / n_other``)."""
        return (self.member_duplicates + 0.5) / (self.n_members + 1)

    @functools.cached_property
    def p_value(self) -> float:
        """P(at least ``shared`` | the chance rate), exact binomial (scipy's ``bdtrc``)."""
        if self.shared == 0:
            return 1.0
        from scipy.special import bdtrc  # imported when needed (about 0.1 CPU-s)

        return float(bdtrc(self.shared - 1, self.n_other, self.p0))

    @property
    def chance_shared(self) -> int:
        """The shared records that the data's own duplicates explain: the chance rate p0 of
        the records that are not members, ``(n_other - shared) p0 / (1 - p0)`` (solving
        E = (n_other - (shared - E)) p0), rounded down and at most ``shared``."""
        p0 = self.expected / self.n_other if self.n_other else 0.0
        if p0 >= 1:
            return self.shared
        chance = (self.n_other - self.shared) * p0 / (1 - p0)
        return int(min(self.shared, math.floor(chance)))

    @property
    def excess(self) -> bool:
        """The other file shares significantly more records than chance (:data:`ALPHA`):
        ``p_value < ALPHA``, settled by the module note's bounds where they decide it."""
        bound = _tail_decided(self.shared, self.n_other, self.p0)
        return self.p_value < ALPHA if bound is None else bound

    @property
    def share(self) -> float:
        """``shared`` as a share of the other file."""
        return self.shared / self.n_other if self.n_other else 0.0

    @property
    def kept(self) -> int:
        """Records of the other file left when the shared ones are set aside."""
        return self.n_other - self.shared

    def chance_text(self) -> str:
        """What chance predicts, in words."""
        return (f"the members' own duplicates ({self.member_duplicates:,} of "
                f"{self.n_members:,} members equal another member) predict about "
                f"{self.expected:,.1f}")

    def holds_members_text(self, name: str) -> str:
        """The finding that a holdout holds members, in words."""
        return (f"{self.shared:,} of the {self.n_other:,} records of {name} "
                f"({100 * self.share:.1f}%) are identical to a member on {self.where_text()}, "
                f"where {self.chance_text()}: it holds members, and a member in the control "
                "hides the disclosure it should reveal")

    def where_text(self) -> str:
        """The compared columns, in words."""
        names = list(self.columns)
        return (f"every column ({', '.join(names)})" if len(names) <= 6
                else f"all {len(names)} columns")


def _check(frame: object, name: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    return frame


def record_overlap(members: pd.DataFrame, other: pd.DataFrame,
                   columns: Sequence[str] | None = None, *, other_name: str = "other"
                   ) -> Overlap:
    """Count the records of ``other`` identical to a member, and test the count against the
    members' own duplicate rate (the module note).

    Parameters
    ----------
    members
        The records the synthesis was made from. Not modified.
    other
        A holdout or a synthetic data set. Not modified.
    columns
        The columns to compare; default every column of ``members`` that ``other`` has.
    other_name
        How messages name ``other``.

    Returns
    -------
    Overlap

    Raises
    ------
    CapkitError
        A frame that is not a DataFrame, no column in common, or a named column missing.
    """
    members, other = _check(members, "members"), _check(other, other_name)
    if columns is None:
        columns = [c for c in members.columns if c in set(other.columns)]
    columns = list(dict.fromkeys(columns))
    if not columns:
        raise CapkitError(f"{other_name} has no column in common with the members")
    for c in columns:
        for frame, name in ((members, "members"), (other, other_name)):
            if c not in frame.columns:
                raise CapkitError(f"column {c!r} is missing from {name}")
    n_m, n_o = len(members), len(other)
    group = _numeric_groups(members, other, columns)
    if group is None:
        both = pd.concat([members[columns], other[columns]], ignore_index=True)
        # one level per distinct record: a missing value equals a missing value
        both = both.astype({c: object for c in columns if isinstance(both[c].dtype,
                                                                       pd.CategoricalDtype)})
        group = both.groupby(columns, dropna=False, sort=False).ngroup().to_numpy()
    per_group = np.bincount(group[:n_m], minlength=int(group.max()) + 1 if len(group) else 0)
    duplicates = int((per_group[group[:n_m]] > 1).sum())
    is_shared = per_group[group[n_m:]] > 0
    shared = int(is_shared.sum())
    p0 = (duplicates + 0.5) / (n_m + 1)
    return Overlap(tuple(map(str, columns)), n_m, n_o, shared, duplicates, n_o * p0,
                   is_shared, per_group[group[n_m:]])


def _numeric_groups(members: pd.DataFrame, other: pd.DataFrame, columns: list[str]
                    ) -> np.ndarray | None:
    """Each record's group (members first, then ``other``; equal records, a missing value
    equal to a missing value, share a group) when every column has one plain numpy number or
    bool type in both frames, else None. The groups the frame's ``groupby(dropna=False)``
    gives, without its frame machinery: each column's values factorised (``pandas.factorize``,
    the hash table ``groupby`` uses; missing values one code), then the pair (codes so far,
    this column's code) factorised, exact while both are below the record count."""
    for c in columns:
        dtype = members[c].dtype
        if (not isinstance(dtype, np.dtype) or dtype.kind not in "fiub"
                or other[c].dtype != dtype):
            return None
    group = None
    for c in columns:
        values = np.concatenate([members[c].to_numpy(), other[c].to_numpy()])
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        if group is None:
            group = codes.astype(np.int64)
        else:
            group, _ = pd.factorize(group * len(uniques) + codes)
    return group


def _tail_decided(k: int, n: int, p: float) -> bool | None:
    """Whether P(X >= k) < ALPHA for X ~ Binomial(n, p), when the module note's bounds decide
    it (True or False), else None. ``0 < p < 1`` (p0 always is)."""
    if k <= 0 or k <= math.floor(n * p):  # at most the median: the tail is at least 1/2
        return False
    if k > n:
        return None
    log_pmf = (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
               + k * math.log(p) + (n - k) * math.log1p(-p))
    # k > n p: the ratios r_j = P(X = j + 1) / P(X = j) = (n - j) p / ((j + 1)(1 - p)) fall
    # with j and are below 1 from k on. The m terms from k are at least P(X = k) r^i with r the
    # last ratio among them (m about a standard deviation); the whole tail is at most
    # P(X = k) / (1 - r_k).
    def ratio(j: int) -> float:
        return (n - j) * p / ((j + 1) * (1 - p))

    m = max(1, min(math.isqrt(int(n * p * (1 - p))), n - k + 1))
    low = ratio(k + m - 2) if m > 1 else 0.0
    terms = -math.expm1(m * math.log(low)) / (1 - low) if 0 < low < 1 else 1.0
    if log_pmf + math.log(terms) >= math.log(2 * ALPHA):
        return False
    if log_pmf - math.log1p(-ratio(k)) <= math.log(ALPHA / 2):
        return True
    return None


@dataclass(frozen=True)
class HoldoutCheck:
    """What became of a holdout: the part used as the control, and what to tell the user.

    Attributes
    ----------
    overlap
        The holdout's records identical to a member, against chance (:class:`Overlap`).
    holdout
        The records used as the control: the holdout itself; without the shared records in
        excess of chance when it shares more than chance predicts; None when too few records
        are left (:data:`MIN_CONTROL`): then there is no control, and nothing is judged
        against one.
    warning
        Why the holdout was cut or set aside, in words; None when it is used whole.
    rows
        The positions (in the holdout) of the records used as the control; None with no
        control.
    """

    overlap: Overlap
    holdout: pd.DataFrame | None
    warning: str | None
    rows: np.ndarray | None = None

    @property
    def cut(self) -> bool:
        """Whether the control is not the whole holdout."""
        return self.warning is not None


def check_holdout(members: pd.DataFrame, holdout: pd.DataFrame,
                  columns: Sequence[str] | None = None, *, name: str = "the holdout"
                  ) -> HoldoutCheck:
    """Check that a holdout holds no members, and keep the part that is a real holdout.

    A holdout sharing no more records with the members than the data's own duplicates predict
    is used whole. One that shares more (a sample of the members given by mistake, the original
    file itself, a split that leaked) is no control for the members it holds; but some of its
    shared records are chance twins, people of the population who happen to share every value
    with a member, as a real holdout has them. Only the **excess over chance** is set aside:
    of the shared records, the :attr:`Overlap.chance_shared` that the data's own duplicate
    rate predicts for the records that are not members are kept, those whose values are
    commonest among the members first (the likeliest twins; ties in file order), and the
    others are dropped. Dropping every shared record would leave a control without its
    natural twins, closer to nothing than a real holdout, and make copies look like a leak.
    With fewer than :data:`MIN_CONTROL` records left there is no control at all. Either way
    :attr:`HoldoutCheck.warning` says so, with the counts, for the report to print where the
    user sees it.

    Parameters
    ----------
    members, holdout
        The records the synthesis was made from, and the records said not to be. Not modified.
    columns
        The columns to compare (default: every column of ``members`` that ``holdout`` has).
    name
        How the warning names the holdout.
    """
    overlap = record_overlap(members, holdout, columns, other_name="holdout")
    if not overlap.excess:
        return HoldoutCheck(overlap, holdout, None, np.arange(len(holdout)))
    found = overlap.holds_members_text(name)
    twins = overlap.chance_shared
    left = overlap.kept + twins
    if left < MIN_CONTROL:
        return HoldoutCheck(overlap, None, (
            f"{found}. With {_left(left)} it is no control at all: "
            "nothing is compared with a holdout, and the verdicts are those without one. Give "
            "records that were NOT used for the synthesis"))
    shared = np.flatnonzero(overlap.is_shared)
    commonest = shared[np.argsort(-overlap.member_count[shared], kind="stable")[:twins]]
    keep = np.sort(np.concatenate([np.flatnonzero(~overlap.is_shared), commonest]))
    dropped = overlap.shared - twins
    twin_text = (f"; {twins:,} shared records, as many as chance predicts for a real holdout "
                 "(twins of the population), were kept, those commonest among the members"
                 if twins else "")
    return HoldoutCheck(overlap, holdout.iloc[keep], (
        f"{found}. The {dropped:,} shared records in excess of chance were set aside"
        f"{twin_text}: the control is the other {len(keep):,} records"), keep)


def _left(kept: int) -> str:
    """'no record left', 'only 1 record left', 'only 12 records left'."""
    return ("no record left" if kept == 0 else
            f"only {kept:,} record{'s' if kept > 1 else ''} left")


def copies_of_holdout(holdout: pd.DataFrame, named: dict[str, pd.DataFrame],
                      margin: float = 0.05) -> dict[str, str]:
    """The syntheses that copy holdout records beyond chance, each with its warning.

    A synthesis made without the holdout matches a holdout record about as often as a holdout
    record matches another (the holdout's own duplicate rate, the same test as
    :func:`record_overlap`'s). Beyond it, by a significant excess of at least ``margin`` of
    the synthetic records, the holdout was used to make the synthesis (or leaked into it):
    the control is contaminated for that synthesis, and nothing about it may be judged
    against the holdout.
    """
    out = {}
    for name, synthetic in named.items():
        columns = [c for c in holdout.columns if c in set(synthetic.columns)]
        copies = record_overlap(holdout, synthetic, columns, other_name=f"synthesis {name!r}")
        if copies.excess and copies.share - copies.expected / copies.n_other >= margin:
            out[name] = (
                f"THE CONTROL IS CONTAMINATED for synthesis {name!r}: {copies.shared:,} of its "
                f"{copies.n_other:,} records ({100 * copies.share:.1f}%) are identical to a "
                f"holdout record on {copies.where_text()}, where the holdout's own duplicates "
                f"({copies.member_duplicates:,} of {copies.n_members:,} holdout records equal "
                f"another) predict about {copies.expected:,.1f}: the holdout was used to make "
                "it, or leaked into it. Nothing about this synthesis is judged against the "
                "holdout (its verdicts are those without one); give a holdout the synthesiser "
                "never saw")
    return out


def size_note(n_original: int, n_synthetic: int, name: str) -> str | None:
    """A note when a synthesis has more than :data:`SIZE_RATIO` times the original's records,
    or less than 1 / :data:`SIZE_RATIO` of them (None otherwise). Measures that count the
    records unique in the synthesis (repU, DiSCO) find fewer in a larger file and more in a
    smaller one, copies scale with its size, and a rate per synthetic record is diluted or
    concentrated: a synthesis of another size is not measured like for like."""
    if n_original <= 0 or n_synthetic <= 0:
        return None
    ratio = n_synthetic / n_original
    if 1 / SIZE_RATIO <= ratio <= SIZE_RATIO:
        return None
    return (f"{name} has {ratio:.2g} times the original's records ({n_synthetic:,} against "
            f"{n_original:,}): the measures that count records unique in the synthesis (repU, "
            "DiSCO) find fewer in a larger file and more in a smaller one, and copies scale "
            "with its size, so it is not measured like for like; release and measure a "
            "synthesis of the original's size")
