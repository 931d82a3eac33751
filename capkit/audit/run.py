"""The custodian's audit: every measure family of capkit on one release, judged finding by
finding (docs/custodian-report.md).

:func:`audit` takes the original records (the members), one or more syntheses and, ideally, a
holdout of records not used for the synthesis, and runs on each synthesis:

* synthpop's measures (Raab, Nowok & Dibben): identity (UiO, repU), attribute (DiSCO, DCAP =
  100 x CAP v1, CAP v2, TCAP) per target and the 1-way / 2-way checks
  (:func:`capkit.disclosure.disclosure_summary`, with the holdout as its control);
* distance to closest record (Minieri 2022, :func:`capkit.distance.dcr`): the members with an
  exact copy in the synthetic data, and with a near copy (closer to a synthetic record than
  95% of the holdout records are), each against the holdout's share; a missing number is 1
  from any number and 0 from another missing one (``missing="level"``, said in the notes);
* the attribute attack of Hittmeir, Mayer & Ekelhart (2020) per target, with its dummy
  baseline and the holdout (:func:`capkit.attacks.baseline_table`);
* singling out and linkability of Giomi et al. (2022, anonymeter) on every record
  (:func:`capkit.attacks.singling_out`, :func:`capkit.attacks.linkability`);
* membership inference (:mod:`capkit.audit.membership_family`): the members an attack on the
  synthesis flags against the holdout records it flags, at a threshold chosen on another half.

Each family runs in :mod:`capkit.audit.families`, :mod:`capkit.audit.pair_families` or
:mod:`capkit.audit.membership_family`, one synthesis at a time. Each value becomes
a :class:`~capkit.audit.findings.Finding` judged by the rules of
:mod:`capkit.audit.verdicts`; the members-vs-holdout comparison is always
:func:`capkit.control.compare_to_control`. Default keys and targets:
:mod:`capkit.audit.defaults`. What each measure returned record by record is kept (an
:class:`capkit.audit.at_risk.Evidence` per synthesis) for the people at risk
(:attr:`Audit.records_at_risk`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd
from tqdm import tqdm

from capkit import processes
from capkit.audit import (
    at_risk,
    caveats,
    defaults,
    display,
    exposure,
    parallel,
    sampling,
    utility_family,
    verdicts,
)
from capkit.audit.failures import Failure, describe, without_failing_targets
from capkit.audit.families import (
    ATTACKERS,
    WIDE_TOLERANCE,
    attack_family,
    synthpop_family,
)
from capkit.audit.findings import Finding
from capkit.audit.inputs import as_categories as _as_categories
from capkit.audit.inputs import check_frames as _check_frames
from capkit.audit.inputs import infinite_as_missing
from capkit.audit.inputs import syntheses as _syntheses
from capkit.audit.pair_families import NEAR_COPY_QUANTILE
from capkit.data.coding import mismatches
from capkit.data.labels import is_coded_category
from capkit.data.overlap import check_holdout, copies_of_holdout, size_note
from capkit.errors import CapkitError

#: The measure families, in the order they run (and the progress bar counts).
FAMILIES = ("synthpop measures", "distance", "attribute attacks", "singling out",
            "linkability", "membership inference")

@dataclass
class Audit:
    """What :func:`audit` found.

    Attributes
    ----------
    findings
        Every finding, synthesis by synthesis, family by family.
    measures
        synthpop's measures per (synthesis, target), in percent: members' Dorig, DiSCO, DCAP
        (= 100 x CAP v1), CAP v2, TCAP, baseCAPd, and the holdout's DiSCO and DCAP.
    keys, targets, syntheses
        What was measured.
    n_members, n_holdout
        Records of the original data and of the holdout (None without).
    notes
        How keys and targets were chosen, which targets were grouped, and why.
    warnings
        What makes a verdict less than it seems: a holdout that holds members (set aside, or
        no control at all), files whose coding disagrees, a synthesis that could not be judged.
        The report prints them before the findings.
    failures
        The families that could not be measured on a synthesis, with why and what fixes it
        (the others are judged as usual).
    timings
        Seconds per family (summed over syntheses).
    """

    findings: list[Finding]
    measures: pd.DataFrame
    keys: list[str]
    targets: list[str]
    syntheses: list[str]
    n_members: int
    n_holdout: int | None
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    #: One row per member and synthesis: the measures that flag it and its score
    #: (:func:`capkit.audit.at_risk.records_at_risk`).
    records_at_risk: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Synthesis -> the distances to closest record of members and holdout and the near-copy
    #: threshold, as the distance family measured them (absent when it did not run).
    distances: dict[str, at_risk.Distances] = field(default_factory=dict)
    #: The original's own exposure on the keys (None when not asked).
    exposure: exposure.Exposure | None = None
    #: The worst combinations of k of the keys, per synthesis (None when not asked).
    worst_combinations: exposure.WorstCombinations | None = None
    #: :attr:`records_at_risk` with only the flags beyond the control
    #: (:func:`capkit.audit.at_risk.kept_flags`): what the report lists and draws.
    records_flagged: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: What each synthesis is worth (:mod:`capkit.audit.utility_family`; None when not asked).
    utility: utility_family.UtilityFamily | None = None

    def __repr__(self) -> str:
        return display.short_repr(self)

    def summary(self) -> str:
        """Verdict counts per synthesis, keys and targets, in a few lines."""
        return display.summary_text(self)

    def _repr_html_(self) -> str:
        return display.summary_html(self)

    def verdicts(self) -> pd.DataFrame:
        """Number of findings of each verdict level per synthesis (rows) and level (columns)."""
        frame = pd.DataFrame([(f.synthesis, f.verdict) for f in self.findings],
                             columns=["synthesis", "verdict"])
        table = pd.crosstab(frame["synthesis"], frame["verdict"])
        levels = [lv for lv in verdicts.LEVELS  # "not measured" (rule M1) only when it occurs
                  if lv != verdicts.NOT_MEASURED or lv in set(frame["verdict"])]
        return table.reindex(index=self.syntheses, columns=levels, fill_value=0)

    def to_frame(self) -> pd.DataFrame:
        """Every finding as a row (the fields of :class:`Finding` and its ``message``)."""
        return pd.DataFrame([f.to_dict() for f in self.findings])


def audit(original: pd.DataFrame,
          synthetic: pd.DataFrame | Sequence[pd.DataFrame] | Mapping[str, pd.DataFrame],
          *, holdout: pd.DataFrame | None = None, keys: Sequence[str] | None = None,
          targets: Sequence[str] | None = None, seed: int = 0, confidence: float = 0.95,
          families: Sequence[str] = FAMILIES, progress: bool = False,
          allow_disjoint_levels: bool = False, numeric_targets: Sequence[str] = (),
          pair_budget: int | None = sampling.PAIR_BUDGET, weights: str | pd.Series | None = None,
          original_exposure: bool = True, sweep_size: int | None = 2,
          workers: int | None = None, utility: bool = False,
          utility_nperms: int = utility_family.NPERMS) -> Audit:
    """Run every measure family on every synthesis and judge each finding.

    Parameters
    ----------
    original
        The members: the records the syntheses were made from. Not modified.
    synthetic
        One synthesis, a list (named ``synthesis 1..m``) or a dict name -> synthesis; each
        must have the original's columns. Each is judged on its own.
    holdout
        Records of the same population not used for any synthesis (the membership control);
        without one, verdicts are at most ``review`` (:mod:`capkit.audit.verdicts`).
    keys, targets
        Key and target columns; defaults: :func:`capkit.audit.defaults.choose`.
    seed
        Seeds the attacks (the same inputs and seed give the same findings).
    confidence
        Confidence level of every interval.
    families
        A subset of :data:`FAMILIES` to run.
    progress
        A tqdm bar over families x syntheses, on stderr.
    allow_disjoint_levels
        Measure even keys or targets whose levels barely overlap (an error by default).
    numeric_targets
        Numeric targets with at most 20 distinct values that the attack should treat as
        numbers (by default such a target is a category stored as numbers).
    pair_budget
        Record pairs (records scored x synthetic records) scored exactly; past it, distances,
        attacks, linkability and membership inference score a seeded sample of the members and
        of the holdout, said in the findings and the notes (:mod:`capkit.audit.sampling`).
        None: every record, however long it takes.
    weights
        Sampling weights of the original's records for the expected re-identifications: a
        column of the original (left out of every other measure, and of the syntheses) or a
        Series, one weight per record in the original's order.
    original_exposure, sweep_size
        The original's own exposure (:func:`capkit.audit.exposure.original_exposure`) and the
        sweep of every ``sweep_size``-key combination of the keys
        (:func:`capkit.audit.exposure.worst_combinations`); False / None: not measured (nor
        when ``families`` leaves out the synthpop measures, the counts they go with).
    workers
        Processes: 1 runs everything here; 2 runs the steps of the distance, singling-out,
        linkability and membership-inference families in a second process while this one runs
        the others (:mod:`capkit.audit.parallel`); None (default) uses 2 when the machine has
        two cores or more and the work is large enough to pay for starting it. The result is
        the same either way.
    utility
        Also measure what each synthesis is worth (:mod:`capkit.audit.utility_family`:
        synthpop's pMSE and one- and two-way table S_pMSE, SDNist's k-marginal score) on the
        columns the measures use; the report then has a utility section and, with several
        syntheses, the risk-utility map.
    utility_nperms
        Permutations of the CART propensity model for its S_pMSE (capkit's default 20,
        synthpop's 50; 0: none, S_pMSE NA), seeded by ``seed``.

    Returns
    -------
    Audit

    Raises
    ------
    CapkitError
        Bad frames, missing columns, an unknown family, and the errors of each measure.
    """
    named = _syntheses(synthetic)
    original, (holdout, *frames), weight = exposure.split_weights(
        original, [holdout, *named.values()], weights)
    named = dict(zip(named, frames, strict=True))
    _check_frames(original, named, holdout)
    finite, infinite = infinite_as_missing({"the original": original, "the holdout": holdout,
                                            **{f"synthesis {n!r}": f for n, f in named.items()}})
    original, holdout = finite["the original"], finite["the holdout"]
    named = {n: finite[f"synthesis {n!r}"] for n in named}
    two = parallel.workers_for(workers, original, named, families) > 1
    if two:
        processes.warm()  # the second process imports while the inputs are checked
    warns: list[str] = []
    if holdout is not None:  # one check for every command (capkit.data.overlap)
        checked = check_holdout(original, holdout)
        holdout = checked.holdout
        warns += [checked.warning] if checked.warning else []
    # a synthesis that copies holdout records was made from them (or they leaked): the control
    # is contaminated for it, and it is judged as without a holdout
    tainted = {} if holdout is None else copies_of_holdout(holdout, named)
    warns += list(tainted.values())
    warns += [w for n, f in named.items()
              if (w := size_note(len(original), len(f), f"synthesis {n!r}")) is not None]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or not families:
        raise CapkitError(f"families must be a non-empty subset of {FAMILIES}, got {unknown}")
    choice = defaults.choose(original, keys, targets)
    keys_, targets_ = choice.keys, choice.targets
    warns += choice.warnings
    unknown_numeric = [t for t in numeric_targets if t not in targets_]
    if unknown_numeric:
        raise CapkitError(f"numeric_targets (--numeric-targets) names {unknown_numeric}, which "
                          "are not targets")
    kinds = {t: "numeric" for t in numeric_targets}
    if choice.identifiers or choice.constants:  # left out of every measure (see the notes)
        used = [c for c in original.columns
                if c not in choice.identifiers + choice.constants]
        original, named = original[used], {n: f[used] for n, f in named.items()}
        holdout = None if holdout is None else holdout[used]
    # the measures read text columns as categories (coded once, the same findings); the checks
    # of coding at the end read the frames as given
    given_original, given_named = original, named
    original, named, holdout = _as_categories(original, named, holdout)
    options = {"allow_disjoint_levels": True} if allow_disjoint_levels else {}
    tables, timings = [], {f: 0.0 for f in families}
    wide: list[str] = []  # numeric targets whose attack tolerance is too wide
    steps = [(f, n) for f in families for n in (named if f != "attribute attacks" else
                                                ["all"])]
    samples = sampling.for_audit(original, list(named.values()), holdout, seed, pair_budget)

    def hold(name: str) -> pd.DataFrame | None:
        """The control of one synthesis ("all": the attack run of the untainted ones)."""
        return None if name in tainted else holdout
    whole = not any(s is not None and s.sampled for s in samples)
    evidence = {n: at_risk.Evidence() for n in named}  # per-record outputs, for at_risk
    keep = {n: e if whole else None for n, e in evidence.items()}  # a sample keeps no record
    # the steps of the searches over record pairs go to a second process when that pays
    # (capkit.audit.parallel); every step's outcome is put back in the order of ``steps``
    away = None
    if two:
        away = parallel.Away(
            sorted((s for s in steps if s[0] in parallel.AWAY),
                   key=lambda s: parallel.SENT_FIRST.index(s[0])),
            lambda f, n: (f, n, original, named[n], hold(n), keys_, seed, confidence, samples,
                          keep[n] is not None, families))

    def schedule() -> Iterator[tuple[str, str]]:
        """The steps in the order they run here: all of them; or, with a second process,
        the others first, then the last steps it has not started yet (taken back one at a
        time), then what it ran, in the order it ran them (the bar moves as each ends)."""
        if away is None:
            yield from steps
            return
        yield from (s for s in steps if s[0] not in parallel.AWAY)
        while (stolen := away.steal()) is not None:
            yield stolen
        yield from (s for s in away.sent if s not in found_in)  # as it finishes them

    # the original's exposure and the key sweep need no family: counted while the second
    # process works (an error is raised where it would be after the families)
    timings["records at risk"] = 0.0
    synthpop = "synthpop measures" in families  # the exposure and sweep go with its counts
    try:
        own, worst = exposure.both(original, named, holdout, keys_, targets_, choice.groups,
                                   weight, original_exposure and synthpop,
                                   sweep_size if synthpop else None, confidence,
                                   allow_disjoint_levels, timings)
        late: CapkitError | None = None
    except CapkitError as exc:
        late = exc
    # the coding checks read the frames as given (counted here, while the second process works)
    differs = {n: mismatches(given_original, frame, keys_ + targets_, name=f"synthesis {n!r}",
                             keys=keys_)
               for n, frame in given_named.items()}
    found_in: dict[tuple[str, str], list[Finding]] = {}
    failed_in: dict[tuple[str, str], list[Failure]] = {}
    gaps_in: dict[tuple[str, str], tuple[str, ...]] = {}  # numeric columns with missing values
    bar = tqdm(schedule(), desc="capkit report", unit="step", total=len(steps),
               disable=not progress, leave=False)
    for family, name in bar:
        bar.set_postfix_str(f"{family}: {name}")
        start = time.perf_counter()
        found: list[Finding] = []
        failed: list[Failure] = []
        found_in[(family, name)], failed_in[(family, name)] = found, failed
        if family in parallel.AWAY:
            def here(f: str = family, n: str = name) -> parallel.Step:
                return parallel.run_step(f, n, original, named[n], hold(n), keys_, seed,
                                         confidence, samples, keep[n], families, progress)
            step = here() if away is None else away.take(family, name, here, keep[name])
            found += step.found
            failed += [step.failure] if step.failure else []
            gaps_in[(family, name)] = step.gaps
            timings[family] += step.seconds  # where it ran
            continue
        clean = {n: f for n, f in named.items() if n not in tainted}
        runs = [(name, named)] if family != "attribute attacks" else (
            ([("all", clean)] if clean else []) + [(n, {n: named[n]}) for n in tainted])
        while runs:
            which, frames = runs.pop(0)
            try:
                if family == "synthpop measures":
                    (found_, table), skipped = without_failing_targets(
                        lambda ts, w=which: synthpop_family(w, original, named[w], hold(w), keys_,
                                                      ts, choice.groups, options, evidence[w]),
                        targets_, which, family)
                    failed += skipped
                    tables.append(table)
                else:
                    found_, wide_ = attack_family(frames, original, hold(which), keys_, targets_,
                                                  seed, confidence, allow_disjoint_levels, kinds,
                                                  samples, evidence if whole else None)
                    wide += [t for t in wide_ if t not in wide]
            except CapkitError as exc:  # judge the others; list this one with its error
                if which == "all" and len(clean) > 1:  # find the synthesis that fails
                    runs += [(n, {n: f}) for n, f in clean.items()]
                    continue
                failed.append(describe(exc, which if which != "all" else next(iter(clean)),
                                       family, families))
                continue
            found += found_
        timings[family] += time.perf_counter() - start
    findings = [f for s in steps for f in found_in[s]]
    failures = [f for s in steps for f in failed_in[s]]
    gaps = dict.fromkeys(c for s in steps for c in gaps_in.get(s, ()))
    if not findings and failures:
        raise CapkitError(failures[0].text())
    if late is not None:
        raise late
    warns += [f.text() for f in failures]
    warns += [m.text() for found_ in differs.values() for m in found_]
    findings = [caveats.caveat(f, differs[f.synthesis], allow_disjoint_levels, keys_,
                               given_original, list(kinds))
                for f in findings]
    order = {n: j for j, n in enumerate(named)}
    findings.sort(key=lambda f: order[f.synthesis])  # stable: families keep their order
    measures = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    notes = list(choice.notes) + ([infinite] if infinite else [])
    sample_note = sampling.note([s for s in samples if s is not None], pair_budget or 0)
    if sample_note and set(families) & {"distance", "attribute attacks", "linkability",
                                        "membership inference"}:
        notes.append(sample_note)
    coded = [t for t in targets_ if t not in kinds and is_coded_category(given_original[t])]
    notes += caveats.notes(coded if "attribute attacks" in families else [], list(gaps), wide,
                           WIDE_TOLERANCE)
    start = time.perf_counter()
    exposed, unmeasured = at_risk.records_at_risk(original, keys_, targets_, evidence, holdout)
    beyond, _ = at_risk.records_at_risk(original, keys_, targets_, evidence, holdout, findings)
    timings["records at risk"] = time.perf_counter() - start
    if unmeasured:
        notes.append(f"records at risk: not flagged by {', '.join(unmeasured)} (a family not "
                     "run or failed, or no holdout: near copies and the attack flag need one)")
    worth = None
    if utility:  # what each synthesis is worth; a failure is said, the verdicts stand
        try:
            worth = utility_family.measure(original, named, seed=seed,
                                           nperms=utility_nperms)
            timings["utility"] = worth.seconds
        except CapkitError as exc:
            warns.append(f"utility not measured: {exc}")
    return Audit(findings, measures, keys_, targets_, list(named), len(original),
                 None if holdout is None else len(holdout), notes, timings, warns, failures,
                 exposed, at_risk.distances(evidence), own, worst, beyond, worth)


__all__ = ["ATTACKERS", "FAMILIES", "NEAR_COPY_QUANTILE", "Audit", "audit"]
