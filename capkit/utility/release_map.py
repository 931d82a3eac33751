"""The risk-utility map across releases (Duncan, Keller-McNulty & Stokes, "Disclosure risk vs.
data utility: the R-U confidentiality map", 2001): each candidate release of one original (its
syntheses, their treated versions) as a point with a disclosure risk and a utility, and the
releases no other release beats on both (the Pareto front).

This module reads numbers computed elsewhere (a risk measure of the custodian's report, a
utility measure of this package) and computes only the comparison between releases; the
figure is :func:`capkit.plots.utility_map.risk_utility_map`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

#: synthpop's reading of S_pMSE (Raab, Nowok & Dibben 2021): below 10 good, below 3 very good.
S_PMSE_GOOD, S_PMSE_VERY_GOOD = 10.0, 3.0


def _triple(value: Any, what: str, name: str) -> tuple[float, float, float]:
    """(value, low, high) from a number or a (value, low, high) triple."""
    if np.isscalar(value):
        v = float(value)
        return v, np.nan, np.nan
    parts = [float(x) for x in value]
    if len(parts) != 3:
        raise CapkitError(f"{what} of release {name!r}: give a number or (value, low, high), "
                          f"got {value!r}")
    return parts[0], parts[1], parts[2]


def pareto_front(risk: np.ndarray, badness: np.ndarray) -> np.ndarray:
    """True for the points no other point dominates (risk and badness both lower or equal, one
    strictly lower); points with a missing value are never on the front."""
    r = np.asarray(risk, dtype=float)
    b = np.asarray(badness, dtype=float)
    ok = ~(np.isnan(r) | np.isnan(b))
    le = (r[None, :] <= r[:, None]) & (b[None, :] <= b[:, None])
    lt = (r[None, :] < r[:, None]) | (b[None, :] < b[:, None])
    dominated = (le & lt & ok[None, :]).any(axis=1)
    return ok & ~dominated


def risk_utility_table(risk: Mapping[str, Any], utility: Mapping[str, Any], *,
                       risk_name: str = "risk", utility_name: str = "S_pMSE",
                       higher_utility_is_better: bool = False, risk_limit: float | None = None,
                       utility_limit: float | None = S_PMSE_GOOD) -> pd.DataFrame:
    """One row per release: its risk and utility (with intervals when given), whether it is on
    the Pareto front, and the region of the map it falls in.

    Parameters
    ----------
    risk, utility
        {release: value or (value, low, high)}; the same releases in both.
    risk_name, utility_name
        Names of the measures (column labels of the figure).
    higher_utility_is_better
        False for S_pMSE and pMSE (smaller is better), True for e.g. a k-marginal score.
    risk_limit
        Risk above which a release is "flagged" (e.g. the report's threshold); None: no region.
    utility_limit
        Utility beyond which a release is not "useful" (default: S_pMSE 10, synthpop's reading).

    Returns
    -------
    pandas.DataFrame
        Indexed by release: ``risk``, ``risk_low``, ``risk_high``, ``utility``,
        ``utility_low``, ``utility_high``, ``pareto``, ``flagged``, ``useful``, ``region``
        ("not flagged and useful", "not flagged, not useful", "flagged, useful",
        "flagged, not useful"), with ``attrs`` naming the measures.
    """
    if set(risk) != set(utility):
        raise CapkitError(f"risk and utility must name the same releases: only in risk "
                          f"{sorted(set(risk) - set(utility))}, only in utility "
                          f"{sorted(set(utility) - set(risk))}")
    if not risk:
        raise CapkitError("no releases given")
    names = list(risk)
    r = np.array([_triple(risk[n], "risk", n) for n in names])
    u = np.array([_triple(utility[n], "utility", n) for n in names])
    badness = -u[:, 0] if higher_utility_is_better else u[:, 0]
    table = pd.DataFrame({"risk": r[:, 0], "risk_low": r[:, 1], "risk_high": r[:, 2],
                          "utility": u[:, 0], "utility_low": u[:, 1], "utility_high": u[:, 2]},
                         index=pd.Index(names, name="release"))
    table["pareto"] = pareto_front(r[:, 0], badness)
    table["flagged"] = (r[:, 0] > risk_limit) if risk_limit is not None else False
    if utility_limit is None:
        table["useful"] = True
    elif higher_utility_is_better:
        table["useful"] = u[:, 0] >= utility_limit
    else:
        table["useful"] = u[:, 0] <= utility_limit
    region = np.where(table["flagged"], "flagged", "not flagged")
    region = np.char.add(region, np.where(table["useful"], ", useful", ", not useful"))
    table["region"] = np.where(region == "not flagged, useful", "not flagged and useful", region)
    table.attrs.update(risk_name=risk_name, utility_name=utility_name,
                       higher_utility_is_better=higher_utility_is_better,
                       risk_limit=risk_limit, utility_limit=utility_limit)
    return table
