"""The utility sections of a report: what each synthesis is worth
(:class:`capkit.audit.utility_family.UtilityFamily`) and, with several releases, the
risk-utility map's table (:func:`capkit.audit.utility_family.release_map`). Nothing here
measures; the map's picture is drawn by the command (:mod:`capkit.plots.utility_map`).
"""

from __future__ import annotations

import pandas as pd

from capkit.audit.utility_family import KMARGINAL_REPLICATES, UtilityFamily, reading
from capkit.audit.verdicts import NOT_MEASURED
from capkit.report.model import Section, Table

_INTRO = (
    "What each synthesis is worth, beside what it discloses: a file of independent columns "
    "discloses almost nothing and is useless, so read these numbers with the verdicts. "
    "S_pMSE (synthpop's utility.tables; Raab, Nowok & Dibben 2021) is a table's propensity "
    "mean squared error over its expected value if both files came from one distribution: "
    "near 1 the two files cannot be told apart; synthpop's reading is below 10 good, below 3 "
    "very good. The release's S_pMSE is the mean over its two-way tables (numbers in {groups} "
    "quantile groups). pMSE is synthpop's utility.gen with its CART propensity model; {perm} "
    "The k-marginal score is NIST SDNist's: (2 - mean over every pair of columns of the L1 "
    "distance between the two files' 2-way marginals) x 500, from 0 to 1000 (1000: every 2-way "
    "marginal exact), on the columns coded as the tables code them.")

_NO_PERM = ("its S_pMSE needs permutations (--nperms; synthpop's default is 50) and is NA "
            "here.")
_PERM = ("its S_pMSE divides pMSE by the mean of {n} refits to permuted labels (synthpop's "
         "permutation null, seed {seed}); SE (CART) is that mean's Monte Carlo error carried "
         "to S_pMSE: S_pMSE x (null sd / sqrt({n})) / null mean.")

_SE = ("Standard errors: of the two-way mean, the standard deviation over the tables / "
       "sqrt(tables); of the k-marginal score, the standard deviation of {b} bootstrap "
       "replicates (each file's records drawn with replacement, seed {seed}).")

_MAP = (
    "Duncan, Keller-McNulty & Stokes's risk-utility map: each release's risk on one finding "
    "of this report ({risk}; {why}) against its utility ({utility}). A release is flagged "
    "when that finding's verdict flags it (disclosive or review), as the verdicts above count "
    "it; where the finding is not measured the release is neither flagged nor not flagged and "
    "is left off the Pareto front. {useful} The Pareto front holds the measured releases no "
    "other release beats on both risk and utility: choose among them, in the region 'not "
    "flagged and useful' when one is there.")


def utility_sections(family: UtilityFamily) -> list[Section]:
    """The summary of every release and the tables that fit worst."""
    perm = (_PERM.format(n=family.nperms, seed=family.seed) if family.nperms > 0
            else _NO_PERM)
    items = []
    for name, u in family.releases.items():
        line = (f"{name}: S_pMSE {u.S_pMSE:.2f} +- {u.S_pMSE_se:.2f} ({reading(u.S_pMSE)}), "
                f"k-marginal {u.kmarginal} +- {u.kmarginal_se:.1f}, pMSE {u.pMSE:.5f}")
        if family.nperms > 0:
            line += (f", S_pMSE (CART) {u.S_pMSE_general:.2f} +- {u.S_pMSE_general_se:.2f} "
                     f"({reading(u.S_pMSE_general)}; null mean {u.null_mean:.3g}, sd "
                     f"{u.null_sd:.3g}, {family.nperms} permutations)")
        if u.separated:
            line += ("; the propensity model separates the files perfectly (pMSE at its "
                     "maximum): the synthesis is told apart from the original record by record")
        items.append(line)
        items += [f"{name}: {w}" for w in u.warnings]
    tables = [Table("Utility per synthesis", family.table(), digits=4,
                    note="S_pMSE 1-way / 2-way: means over the tables; reading: synthpop's, "
                         "of the 2-way mean; k-marginal: 0 to 1000, higher is better; SE: "
                         "standard errors (see above).")]
    for name, u in family.releases.items():
        worst = pd.concat([
            pd.DataFrame({"tables": "1-way", "S_pMSE": u.worst_oneway.to_numpy(float)},
                         index=[str(i) for i in u.worst_oneway.index]),
            pd.DataFrame({"tables": "2-way", "S_pMSE": u.worst_twoway.to_numpy(float)},
                         index=[str(i) for i in u.worst_twoway.index])])
        worst["reading"] = [reading(v) for v in worst["S_pMSE"]]
        worst.index.name = "table"
        tables.append(Table(f"Tables that fit worst: {name}", worst, digits=2,
                            note=f"the {family.nworst} one-way and two-way tables with the "
                                 "largest S_pMSE, as synthpop's utility.tables lists them "
                                 "(nworst)."))
    return [Section("Utility", paragraphs=[_INTRO.format(groups=family.ngroups, perm=perm),
                                           _SE.format(b=KMARGINAL_REPLICATES, seed=family.seed)],
                    items=items, tables=tables)]


_INTERVAL = {
    "S_pMSE": "the standard error over the two-way tables (sd / sqrt(tables)).",
    "S_pMSE (CART)": "the permutation null's Monte Carlo error (S_pMSE x null sd / "
                     "sqrt(nperms) / null mean).",
    "k-marginal": "the standard deviation of the bootstrap replicates over records.",
}


def map_section(table: pd.DataFrame, chosen_by_user: bool) -> Section:
    """The risk-utility map as a table, with the front and the region named."""
    axis = table.attrs.get("axis", "S_pMSE")
    useful = ("useful: S_pMSE below 10 (synthpop's 'good')." if axis != "k-marginal" else
              "the k-marginal score has no usefulness threshold (SDNist reads it against "
              "sub-samples of the target), so no release is called useful or not.")
    why = "named with --map-risk" if chosen_by_user else "the finding with the worst verdict"
    frame = table[["risk", "risk_low", "risk_high", "utility", "utility_low", "utility_high",
                   "verdict", "pareto", "region"]].copy()
    frame["pareto"] = frame["pareto"].map({True: "yes", False: "no"})
    frame.columns = ["risk", "risk low", "risk high", table.attrs["utility_name"],
                     "utility low", "utility high", "verdict", "Pareto front", "region"]
    front = [str(n) for n in table.index[table["pareto"].to_numpy(bool)]]
    good = [str(n) for n in table.index[(table["region"] == "not flagged and useful")
                                        .to_numpy(bool)]]
    items = [f"Pareto front: {', '.join(front) if front else 'none (a risk is missing)'}"]
    if axis != "k-marginal":
        items.append("not flagged and useful: " + (", ".join(good) if good else
                                                   "no release (none is both)"))
    unmeasured = [str(n) for n in table.index[(table["verdict"] == NOT_MEASURED)
                                              .to_numpy(bool)]]
    if unmeasured:
        items.append("NOT MEASURED (neither flagged nor not flagged, off the Pareto front): "
                     + ", ".join(unmeasured))
    return Section(
        "Risk against utility",
        paragraphs=[_MAP.format(risk=table.attrs.get("risk_measure", "risk"), why=why,
                                utility=table.attrs["utility_name"], useful=useful)],
        items=items,
        tables=[Table("The risk-utility map", frame, digits=2,
                      units={"risk": "%", "risk low": "%", "risk high": "%"},
                      note="risk: (m - c) / (1 - c) of the finding, with its 95% interval; "
                           "utility: with its 95% interval, value +- 1.96 standard errors "
                           "(cut at 0, and at 1000 for the k-marginal score): "
                           + _INTERVAL[axis])])


def map_entries(table: pd.DataFrame) -> dict[str, object]:
    """The map for the JSON document."""
    records = table.reset_index().to_dict("records")
    return {"risk_measure": table.attrs.get("risk_measure"), "axis": table.attrs.get("axis"),
            "utility_name": table.attrs.get("utility_name"), "releases": records}


__all__ = ["map_entries", "map_section", "utility_sections"]
