"""The original's own exposure and the worst key combinations, for the custodian's report.

Two questions a custodian asks beside "what does the synthesis disclose?"
(docs/custodian-report.md, "The original's own exposure" and "Worst key combinations"):

* **How exposed is the original itself on the report's keys?** :func:`original_exposure`:
  k-anonymity (Sweeney 2002: the size of the smallest class of records sharing their key
  values), the sample uniques, the expected number of re-identifications
  (sdcMicro's ``global_risk_ER``: the sum of the records' individual risks, Benedetti &
  Franconi 1998, with sampling weights when a column of them is given, else 1 / f_k) and the
  l-diversity of each target (Machanavajjhala et al. 2007, Definition 4.1: the fewest distinct
  target values in a class), all from :mod:`capkit.anonymity`.
* **Which of the keys disclose most when an intruder knows only some of them?**
  :func:`worst_combinations`: the k-key sweep (:func:`capkit.disclosure.sweep.sweep`, NIST
  SDNist's k-DiSCO) over every combination of k of the report's keys and every target, on each
  synthesis, with the holdout's DiSCO as the control; numeric targets grouped as the report's
  synthpop measures group them (:data:`capkit.audit.defaults.TARGET_GROUPS` classes, synthpop's
  ``group_num``), so a combination of every key gives the report's own DiSCO. Its cost is
  bounded (:data:`SWEEP_PAIRS`); past it, or when a key identifies every record, the sweep is
  skipped with a note.

Nothing is counted here: the counts are those of :mod:`capkit.anonymity` and of the sweep.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from capkit.anonymity import IdentifyingKeysWarning, individual_risk, l_diversity
from capkit.anonymity.classes import PycanonDifferenceWarning
from capkit.data.labels import group_num, is_integer, is_numeric
from capkit.disclosure.sweep import sweep
from capkit.errors import CapkitError, CapkitWarning

__all__ = ["SWEEP_PAIRS", "WORST_SHOWN", "Exposure", "WorstCombinations", "both",
           "original_exposure", "split_weights", "worst_combinations"]

#: Most (combination, target) pairs the report's sweep counts, over every synthesis (Adult's 4
#: default keys at k = 2 and 11 targets on 3 syntheses are 198; a pair takes about 2 ms on
#: Adult's 48,842 records).
SWEEP_PAIRS = 2_000
#: Worst combinations listed per synthesis.
WORST_SHOWN = 5


@dataclass
class Exposure:
    """The original's own exposure on the report's keys.

    Attributes
    ----------
    keys
        The key columns (the report's).
    records
        Records of the original.
    k_anonymity
        The size of the smallest class (records sharing their key values).
    classes
        Number of classes (distinct key combinations).
    sample_uniques
        Records alone on their key combination (k = 1 for them).
    expected_reidentifications
        Sum of the records' individual risks (with weights, Benedetti & Franconi's risk as
        sdcMicro's ``indivRisk``; without, 1 / f_k: then it is the number of classes).
    weights
        The column of sampling weights used, or None.
    l_diversity
        Target -> its l-diversity on the keys (the fewest distinct target values in a class;
        a missing value counts as a value).
    notes
        What a reader should know (keys that identify every record, the weights).
    """

    keys: list[str]
    records: int
    k_anonymity: int
    classes: int
    sample_uniques: int
    expected_reidentifications: float
    weights: str | None
    l_diversity: dict[str, int]
    notes: list[str] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """One row per measure: ``measure``, ``value``, ``meaning``."""
        n = self.records
        rows = [("k-anonymity", float(self.k_anonymity),
                 "records in the smallest class sharing their key values"),
                ("key combinations", float(self.classes), "classes of records sharing keys"),
                ("sample uniques", float(self.sample_uniques),
                 f"records alone on their keys ({100 * self.sample_uniques / n:.2f}% of {n:,})"),
                ("expected re-identifications", self.expected_reidentifications,
                 "sum of the records' individual risks (Benedetti & Franconi; sdcMicro's "
                 + (f"global_risk_ER, weights {self.weights!r})" if self.weights else
                    "global_risk_ER without weights: 1 / f_k per record)"))]
        rows += [(f"l-diversity of {t}", float(v),
                  f"fewest distinct {t} values in a class")
                 for t, v in self.l_diversity.items()]
        return pd.DataFrame(rows, columns=["measure", "value", "meaning"])

    def shown(self) -> pd.DataFrame:
        """:meth:`table` with the values as text (counts whole, the expectation to 2
        decimals), for the text, markdown and html reports."""
        frame = self.table()
        frame["value"] = [f"{v:,.2f}" if m == "expected re-identifications" else f"{v:,.0f}"
                          for m, v in zip(frame["measure"], frame["value"], strict=True)]
        return frame

    def to_dict(self) -> dict[str, object]:
        """Plain values for the JSON report."""
        return {"keys": list(self.keys), "records": self.records,
                "k_anonymity": self.k_anonymity, "key_combinations": self.classes,
                "sample_uniques": self.sample_uniques,
                "expected_reidentifications": self.expected_reidentifications,
                "weights": self.weights, "l_diversity": dict(self.l_diversity),
                "notes": list(self.notes)}


def split_weights(original: pd.DataFrame, others: list[pd.DataFrame | None],
                  weights: str | pd.Series | None
                  ) -> tuple[pd.DataFrame, list[pd.DataFrame | None], pd.Series | None]:
    """The sampling weights of the original's records, and the frames without them.

    ``weights`` names a column of the original (taken out of it and of the other frames that
    carry it: it weighs records, it is no key, target or distance column) or is a Series of
    one weight per original record, in the original's row order. Nothing is modified; new
    frames are returned."""
    if weights is None:
        return original, others, None
    if isinstance(weights, pd.Series):
        if len(weights) != len(original):
            raise CapkitError(f"weights has {len(weights):,} values for the original's "
                              f"{len(original):,} records")
        return original, others, weights
    if not isinstance(original, pd.DataFrame) or weights not in original.columns:
        raise CapkitError(f"weights column {weights!r} (--weights) is missing from the "
                          "original data")
    kept = [None if f is None else f.drop(columns=[weights], errors="ignore") for f in others]
    return original.drop(columns=[weights]), kept, original[weights]


def original_exposure(original: pd.DataFrame, keys: list[str], targets: list[str],
                      weights: pd.Series | None = None) -> Exposure:
    """The original's k-anonymity, sample uniques, expected re-identifications and the
    l-diversity of each target on ``keys`` (:mod:`capkit.anonymity`).

    Parameters
    ----------
    original
        The original records (not modified).
    keys, targets
        The report's keys and targets.
    weights
        Sampling weights of the original's records (same index), or None.

    Returns
    -------
    Exposure

    Raises
    ------
    CapkitError
        As :func:`capkit.anonymity.individual_risk` (bad weights, named by their column).
    """
    name = None if weights is None else str(weights.name)
    frame = original[keys] if weights is None else original[keys].assign(
        **{"__weights__": weights.to_numpy()})
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IdentifyingKeysWarning)
        warnings.simplefilter("ignore", PycanonDifferenceWarning)  # capkit's default is right
        try:
            risk = individual_risk(frame, keys, None if weights is None else "__weights__")
        except CapkitError as exc:
            raise CapkitError(str(exc).replace("'__weights__'", repr(name))) from exc
        diversity = {t: int(l_diversity(original[[*keys, t]], keys, [t])) for t in targets}
    if any(issubclass(w.category, IdentifyingKeysWarning) for w in caught):
        notes.append(f"every record of the original is alone on the keys "
                     f"{', '.join(keys)}: they act as an identifier")
    fk = risk.per_key["fk"].to_numpy()
    return Exposure(list(keys), risk.records, int(fk.min()), len(fk), risk.sample_uniques,
                    risk.expected_reidentifications, name, diversity, notes)


@dataclass
class WorstCombinations:
    """The k-key sweep over the report's keys, per synthesis.

    Attributes
    ----------
    size
        Keys per combination (k).
    table
        The worst :data:`WORST_SHOWN` rows of each synthesis (largest ``by``, ties by target and
        keys): ``synthesis`` and the sweep's columns (``target``, ``keys``,
        ``DiSCO``, ``Dorig``, ``excess``, ``identifying`` and, with a holdout, ``holdout
        DiSCO``, ``advantage``, ``risk``, ``risk low``, ``risk high``). Empty when skipped.
    matrices
        Synthesis -> the key x target matrix of the mean ``by`` over the combinations
        containing the key (SDNist's heatmap, :meth:`SweepResult.key_target`).
    by
        What ranks and colours them: ``"advantage"`` (the members' DiSCO less the holdout's,
        points) when there is a holdout, the control; else ``"excess"`` (DiSCO - Dorig, the
        synthesis against the original itself, SDNist's k-DiSCO). A synthesis whose DiSCO is
        high on keys where the holdout's is as high discloses nothing about its members: a
        differentially private release can top an excess ranking with an advantage of 0.
    pairs
        (combination, target) pairs counted, over every synthesis.
    skipped
        Why the sweep did not run (None when it ran).
    notes
        Combinations on which every record is unique, grouped targets.
    """

    size: int
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    matrices: dict[str, pd.DataFrame] = field(default_factory=dict)
    pairs: int = 0
    skipped: str | None = None
    notes: list[str] = field(default_factory=list)
    by: str = "excess"

    def to_dict(self) -> dict[str, object]:
        """Plain values for the JSON report: the worst rows as records."""
        return {"size": self.size, "pairs": self.pairs, "skipped": self.skipped, "by": self.by,
                "notes": list(self.notes),
                "worst": self.table.to_dict("records") if len(self.table) else []}


def _grouped(frames: list[pd.DataFrame], groups: dict[str, int]) -> list[pd.DataFrame]:
    """Numeric targets grouped into classes as the report's synthpop measures group them:
    breaks from the original's and the synthesis's values (synthpop's ``group_num``, the
    'equal' style when quantiles give fewer than 3 classes), the holdout assigned on the same
    breaks (a value past them joins the first or last class); a missing value stays missing.
    New frames."""
    if not groups:
        return frames
    out = [f.copy() for f in frames]
    for column, n in groups.items():
        if not is_numeric(frames[0][column]):
            continue
        values = [f[column].to_numpy(dtype=float, na_value=np.nan) for f in frames]
        both = np.concatenate(values[:2])
        if len(values) > 2 and np.isfinite(both).any():  # a holdout value past the breaks
            lo, hi = np.nanmin(both), np.nanmax(both)  # joins the first or last class
            values[2:] = [np.clip(v, lo, hi) for v in values[2:]]
        rest = np.concatenate(values[1:])
        integer = is_integer(frames[0][column])
        coded_o, coded_r = group_num(values[0], rest, values[1], n, integer=integer)
        if len(coded_o.labels) < 3:
            coded_o, coded_r = group_num(values[0], rest, values[1], n, style="equal",
                                         integer=integer)
        labels = np.asarray(coded_o.labels, dtype=object)
        parts = [coded_o.codes, *np.split(coded_r.codes, np.cumsum([len(v) for v in
                                                                     values[1:]])[:-1])]
        for f, codes in zip(out, parts, strict=True):
            f[column] = np.where(codes >= 0, labels[np.maximum(codes, 0)], None)
    return out


def worst_combinations(original: pd.DataFrame, named: dict[str, pd.DataFrame],
                       holdout: pd.DataFrame | None, keys: list[str], targets: list[str],
                       groups: dict[str, int], size: int = 2, *, confidence: float = 0.95,
                       allow_disjoint_levels: bool = False, budget: int = SWEEP_PAIRS
                       ) -> WorstCombinations:
    """The sweep of every ``size``-key combination of the report's keys on each synthesis,
    its worst combinations and key x target matrices; skipped with a reason (never an error)
    when there are fewer than ``size + 1`` keys, more than ``budget`` pairs, or a key
    identifies every record.

    Parameters
    ----------
    original, named, holdout
        The members, the syntheses by name and the holdout (or None), already stripped of
        identifiers as the audit measures them. Not modified.
    keys, targets, groups
        The report's keys, targets and numeric targets to group (target -> classes).
    size
        Keys per combination (k), a positive whole number.
    confidence
        Confidence level of the members-vs-holdout risk.
    allow_disjoint_levels
        As in :func:`capkit.disclosure.sweep.sweep`.
    budget
        Most (combination, target) pairs over every synthesis.

    Returns
    -------
    WorstCombinations
    """
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1:
        raise CapkitError(f"sweep_size (--sweep-size) must be a positive whole number, got "
                          f"{size!r}")
    out = WorstCombinations(int(size), by="advantage" if holdout is not None else "excess")
    if len(keys) <= size:
        out.skipped = (f"{len(keys)} key(s): a sweep of {size}-key combinations needs at least "
                       f"{size + 1} keys (with {len(keys)} it repeats the report's own keys)")
        return out
    pairs = math.comb(len(keys), size) * len(targets) * len(named)
    if pairs > budget:
        out.skipped = (f"{pairs:,} (combination, target) pairs ({math.comb(len(keys), size)} "
                       f"combinations of {size} of {len(keys)} keys, {len(targets)} targets, "
                       f"{len(named)} syntheses) exceed the report's budget of {budget:,}: run "
                       "capkit.disclosure.sweep on fewer keys or targets")
        return out
    rows, notes = [], []
    for name, synthetic in named.items():
        frames = [original, synthetic] + ([holdout] if holdout is not None else [])
        frames = _grouped([f[keys + targets] for f in frames], groups)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CapkitWarning)
            try:
                result = sweep(frames[1], frames[0], keys, targets, sizes=size,
                               holdout=frames[2] if holdout is not None else None,
                               confidence=confidence,
                               allow_disjoint_levels=allow_disjoint_levels)
            except CapkitError as exc:
                out.skipped = f"the sweep could not run on {name}: {exc}"
                out.table, out.matrices, out.pairs = pd.DataFrame(), {}, 0
                return out
        notes += [str(w.message) for w in caught if issubclass(w.category, CapkitWarning)
                  and str(w.message) not in notes]
        out.pairs += len(result.table)
        rows.append(result.worst(WORST_SHOWN, by=out.by).assign(synthesis=name))
        out.matrices[name] = result.key_target(value=out.by)
    table = pd.concat(rows, ignore_index=True)
    out.table = table[["synthesis", *[c for c in table.columns if c != "synthesis"]]]
    if groups:
        notes.append(f"numeric targets {', '.join(groups)} grouped into classes as for "
                     "synthpop's measures")
    out.notes = notes
    return out


def both(original: pd.DataFrame, named: dict[str, pd.DataFrame], holdout: pd.DataFrame | None,
         keys: list[str], targets: list[str], groups: dict[str, int],
         weights: pd.Series | None, exposure: bool, size: int | None, confidence: float,
         allow_disjoint_levels: bool, timings: dict[str, float]
         ) -> tuple[Exposure | None, WorstCombinations | None]:
    """What :func:`capkit.audit.audit` adds: the original's exposure (when ``exposure``) and the
    worst combinations (unless ``size`` is None), each timed into ``timings``."""
    start = time.perf_counter()
    own = original_exposure(original, keys, targets, weights) if exposure else None
    timings["original's exposure"] = time.perf_counter() - start
    start = time.perf_counter()
    worst = None if size is None else worst_combinations(
        original, named, holdout, keys, targets, groups, size, confidence=confidence,
        allow_disjoint_levels=allow_disjoint_levels)
    timings["key sweep"] = time.perf_counter() - start
    return own, worst
