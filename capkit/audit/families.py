"""The measure families of the custodian's audit that count cells and fit attackers (synthpop's
measures, the attribute attacks), one synthesis at a time: each runs its measures and returns its
findings (:mod:`capkit.audit.findings`), judged by the rules of :mod:`capkit.audit.verdicts`.
:func:`capkit.audit.run.audit` calls them in turn and keeps what they return; the module note of
:mod:`capkit.audit.run` says what each family measures. The families that search record pairs
are in :mod:`capkit.audit.pair_families` and :mod:`capkit.audit.membership_family`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from capkit.attacks import baseline_table
from capkit.audit import at_risk, verdicts
from capkit.audit.findings import (
    Finding,
    from_comparison,
    from_percents,
    uncompared,
)
from capkit.audit.sampling import RecordSample, sampled_text
from capkit.control import compare_to_control
from capkit.disclosure import disclosure_summary
from capkit.disclosure.measures import cap_v2

#: Attackers of the attribute attack (besides the dummy baseline and the upper bound that
#: :func:`capkit.attacks.baseline_table` always adds).
ATTACKERS = ("knn",)

#: Share of members the dummy (the mean) guesses within the 5% tolerance from which a numeric
#: target's attack is said to tell nothing (the band is too wide for its values).
WIDE_TOLERANCE = 0.9


def synthpop_family(name: str, original: pd.DataFrame, synthetic: pd.DataFrame,
              holdout: pd.DataFrame | None, keys: list[str], targets: list[str],
              groups: dict[str, int], options: dict, keep: at_risk.Evidence | None = None
              ) -> tuple[list[Finding], pd.DataFrame]:
    """synthpop's measures of one synthesis: findings and the per-target measures table
    (``keep`` keeps each target's count cells, for the records at risk)."""
    cols = keys + targets
    summary = disclosure_summary(
        synthetic[cols], original[cols], keys, targets, compare_synorig=False,
        ngroups_targets=[groups.get(t) for t in targets],
        holdout=None if holdout is None else holdout[cols], **options)
    n_h = None if holdout is None else len(holdout)
    if keep is not None:
        keep.cells = {t: summary.per_target[t].cells[0] for t in targets}
    found, rows = [], []
    first = summary.per_target[targets[0]]
    rep_h = None if holdout is None else float(summary.holdout.per_target[targets[0]]
                                               .ident["repU"].mean())
    found.append(from_percents(name, "identity", "repU", "keys",
                               float(first.ident["repU"].mean()), first.n_orig, rep_h, n_h))
    for t in targets:
        r = summary.per_target[t]
        h = None if holdout is None else summary.holdout.per_target[t]
        disco, dcap = float(r.attrib["DiSCO"].mean()), float(r.allcaps["DCAP"].mean())
        h_disco = None if h is None else float(h.attrib["DiSCO"].mean())
        h_dcap = None if h is None else float(h.allcaps["DCAP"].mean())
        base = float(r.allcaps["baseCAPd"].mean())
        with np.errstate(invalid="ignore", divide="ignore"):
            v2 = float(np.mean(cap_v2(r.allcaps["DCAP"], r.attrib["iS"])))
        found.append(from_percents(name, "attribute", "DiSCO", t, disco, r.n_orig, h_disco,
                                   n_h))
        found.append(from_percents(name, "attribute", "DCAP (CAP v1)", t, dcap, r.n_orig,
                                   h_dcap, n_h, base, "baseCAPd"))
        flagged = sum(0 if c is None else len(c) for c in (*r.check_1way, *r.check_2way))
        found.append(uncompared(name, "checks", "1-way / 2-way checks", t, float(flagged),
                                "count", verdicts.checks(flagged),
                                "entries flagged" if flagged else ""))
        rows.append({"synthesis": name, "target": t, "UiO": float(r.ident["UiO"].mean()),
                     "repU": float(r.ident["repU"].mean()), "Dorig": float(
                         r.attrib["Dorig"].mean()), "DiSCO": disco, "DCAP (CAP v1)": dcap,
                     "CAP v2": v2, "TCAP": float(r.allcaps["TCAP"].mean()),
                     "baseCAPd": base,
                     "holdout DiSCO": np.nan if h_disco is None else h_disco,
                     "holdout DCAP": np.nan if h_dcap is None else h_dcap})
    return found, pd.DataFrame(rows)




def attack_family(named: dict[str, pd.DataFrame], original: pd.DataFrame,
             holdout: pd.DataFrame | None, keys: list[str], targets: list[str], seed: int,
             confidence: float, allow: bool, kinds: dict[str, str],
             samples: tuple[RecordSample, RecordSample | None],
             keep: dict[str, at_risk.Evidence] | None = None
             ) -> tuple[list[Finding], list[str]]:
    """The attribute attack per synthesis and target, against the dummy and the holdout; and
    the numeric targets whose 5% tolerance is too wide to tell anything (:data:`WIDE_TOLERANCE`).
    ``keep`` keeps each attack's per-record outcomes (by synthesis name). Past the pair budget,
    the sampled members and holdout records (:mod:`capkit.audit.sampling`).
    """
    names = list(named)
    cols = keys + targets
    on = sampled_text(samples)
    original = samples[0].take(original)
    holdout = None if holdout is None else samples[1].take(holdout)
    outcomes: dict = {}
    with warnings.catch_warnings():  # a holdout rate of 1 shows as an NA risk in the finding
        warnings.filterwarnings("ignore", message="the control rate is 1")
        table = baseline_table(original[cols], [named[n][cols] for n in names], keys, targets,
                               key_length=len(keys), attackers=list(ATTACKERS),
                               holdout=None if holdout is None else holdout[cols], seed=seed,
                               confidence=confidence, progress=False, check_overlap=False,
                               allow_disjoint_levels=allow, kinds=kinds, records=outcomes)
    for (j, _, t, attacker), frame in outcomes.items():
        if keep is not None and attacker == ATTACKERS[0]:
            keep[names[j - 1]].attack[t] = frame
    found, wide = [], []
    for j, name in enumerate(names, start=1):
        part = table[table["synthesis"] == j]
        for t in targets:
            rows = part[part["target"] == t]
            dummy = rows[(rows["trained_on"] == "dummy") & (rows["scored_on"] == "members")]
            for attacker in ATTACKERS:
                mine = rows[(rows["trained_on"] == "synthetic") & (rows["attacker"] == attacker)]
                mem = mine[mine["scored_on"] == "members"]
                if mem.empty:
                    continue
                m = mem.iloc[0]
                hold = mine[mine["scored_on"] == "holdout"]
                control = compare_to_control(
                    int(m["correct"]), int(m["n"]),
                    None if hold.empty else int(hold.iloc[0]["correct"]),
                    None if hold.empty else int(hold.iloc[0]["n"]), confidence=confidence,
                    warn=False)
                base = None if dummy.empty else compare_to_control(
                    int(m["correct"]), int(m["n"]), int(dummy.iloc[0]["correct"]),
                    int(dummy.iloc[0]["n"]), confidence=confidence, warn=False)
                kind = "within 5%" if m["kind"] == "numeric" else "correct"
                detail = f"{int(m['correct']):,} of {int(m['n']):,} members {kind}{on}"
                if m["kind"] == "numeric" and base is not None and \
                        base.control.rate >= WIDE_TOLERANCE:
                    wide += [t] if t not in wide else []
                    detail += (f"; the dummy (the mean) is within 5% for {base.control.rate:.0%}"
                               " of them: 5% of these values is too wide a band (a year, say) "
                               "for the attack to tell anything")
                found.append(from_comparison(
                    name, "attack", f"{attacker} attack", t,
                    control if holdout is not None else None, base, "dummy predictor",
                    detail=detail))
    return found, wide
