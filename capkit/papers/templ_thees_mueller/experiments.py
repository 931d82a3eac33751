"""RAPID's simulations and Adult illustration, run with capkit, and the paper's printed numbers.

Templ, Thees & Müller (arXiv 2602.09235, 2026): Simulation 2 (RAPID against tau for kappa in
{0, 5, 10, 20, 50}, 10 replications of n = 1,000, synthpop CART, random forest attacker),
Simulation 4 (kappa = 10, tau = 0.3, 50 replications, attackers CART, GBM, random forest) and
the Adult illustration (the 32,561 records of the UCI training file without fnlwgt and
education, income the sensitive attribute, the other 12 variables quasi-identifiers, m = 5
CART syntheses, random forest, tau = 0.3, 500 bootstrap resamples). The printed numbers were
read from the paper's source (``inst/doc/paper/rapid.tex`` and ``dev/Simulation2.R`` of
github.com/qwertzlbry/RAPID). Here each replication is: :func:`simulate_microdata`, capkit's
CART :func:`capkit.synth.syn`, then :func:`capkit.attacks.rapid.rapid` per attacker.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.attacks.attackers import Attacker
from capkit.attacks.rapid import rapid
from capkit.papers.templ_thees_mueller.simulate import simulate_microdata
from capkit.synth import syn

KEYS = ("gender", "age", "education", "income", "health_score")
TARGET = "disease_status"

#: Simulation 2, mean (sd) over 10 replications: {kappa: {tau: (mean, sd)}}.
SIM2 = {
    0: {0.2: (0.327, 0.032), 0.3: (0.235, 0.039), 0.4: (0.160, 0.037), 0.5: (0.099, 0.029)},
    5: {0.2: (0.803, 0.018), 0.3: (0.763, 0.015), 0.4: (0.722, 0.016), 0.5: (0.678, 0.019)},
    10: {0.2: (0.887, 0.010), 0.3: (0.866, 0.008), 0.4: (0.838, 0.010), 0.5: (0.807, 0.014)},
    20: {0.2: (0.931, 0.008), 0.3: (0.918, 0.010), 0.4: (0.901, 0.012), 0.5: (0.879, 0.014)},
    50: {0.2: (0.962, 0.005), 0.3: (0.952, 0.006), 0.4: (0.941, 0.011), 0.5: (0.925, 0.012)},
}

#: Simulation 4 (kappa 10, tau 0.3, 50 replications): attacker -> (RAPID mean, sd, accuracy
#: mean, sd).
SIM4 = {"cart": (0.876, 0.013, 0.879, 0.011), "gbm": (0.875, 0.011, 0.881, 0.011),
        "rf": (0.864, 0.010, 0.891, 0.010)}

#: Adult, tau = 0.3: per synthetic replicate (RAPID, bootstrap 95% CI low, high, n at risk).
ADULT = ((0.719, 0.716, 0.721, 23414), (0.720, 0.717, 0.722, 23438),
         (0.721, 0.716, 0.724, 23472), (0.716, 0.713, 0.722, 23327),
         (0.728, 0.723, 0.732, 23697))

#: The Adult columns the paper drops.
ADULT_DROPPED = ("fnlwgt", "education")


def band(mean: float, sd: float, width: float = 2.0) -> tuple[float, float]:
    """The paper's mean -/+ ``width`` standard deviations of one replication, rounded to 3
    decimals: where a replication of the paper lands about 95% of the time."""
    return round(mean - width * sd, 3), round(mean + width * sd, 3)


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def simulation_runs(kappas: Sequence[float], replications: int,
                    attackers: dict[str, str | Attacker] | None = None,
                    taus: Sequence[float] = (0.2, 0.3, 0.4, 0.5), n: int = 1000,
                    seed: int = 2025) -> pd.DataFrame:
    """RAPID at each tau for each kappa, replication and attacker (the paper's Simulations 1,
    2 and 4): one row per (kappa, replication, attacker, tau) with ``rapid`` and the attacker's
    ``accuracy``. Data, synthesis and attacker of replication r at kappa get seeds derived
    from (seed, kappa, r), so a run is reproducible and replications are independent."""
    attackers = attackers or {"rf": "ranger"}
    rows = []
    for kappa in kappas:
        for rep in range(int(replications)):
            data = simulate_microdata(kappa, n=n, seed=_seed(seed, round(kappa * 1000), rep, 1))
            synthetic = syn(data, seed=_seed(seed, round(kappa * 1000), rep, 2) % 2**31,
                            progress=False).syn[0]
            for name, attacker in attackers.items():
                result = rapid(data, synthetic, list(KEYS), TARGET, attacker=attacker,
                               seed=_seed(seed, round(kappa * 1000), rep, 3) % 2**31,
                               n_bootstrap=0, n_permutations=0)
                curve = result.curve(list(taus))
                rows += [{"kappa": kappa, "replication": rep + 1, "attacker": name, "tau": tau,
                          "rapid": float(value), "accuracy": result.scores["accuracy"]}
                         for tau, value in curve.items()]
    return pd.DataFrame(rows)


def simulation_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd (n - 1) of RAPID and accuracy over replications, by kappa, attacker, tau."""
    grouped = runs.groupby(["kappa", "attacker", "tau"], sort=True)
    return grouped.agg(rapid_mean=("rapid", "mean"), rapid_sd=("rapid", "std"),
                       accuracy_mean=("accuracy", "mean"), accuracy_sd=("accuracy", "std"),
                       replications=("rapid", "size")).reset_index()


def adult_frame(adult: pd.DataFrame) -> pd.DataFrame:
    """The paper's Adult: the records with an income (the UCI training file), without fnlwgt
    and education."""
    keep = adult[adult["income"].notna()].drop(columns=list(ADULT_DROPPED))
    return keep.reset_index(drop=True)


def adult_runs(frame: pd.DataFrame, m: int = 5, seed: int = 1,
               attacker: str | Attacker = "ranger", tau: float = 0.3,
               n_bootstrap: int = 500) -> pd.DataFrame:
    """RAPID of each of ``m`` CART syntheses of ``frame`` (income the target, every other
    column a quasi-identifier): one row per replicate with ``rapid``, the bootstrap interval
    (``low``, ``high``), ``at_risk``, the Wilson interval and the chosen threshold."""
    keys = [c for c in frame.columns if c != "income"]
    syntheses = syn(frame, m=m, seed=seed, progress=False).syn
    rows = []
    for replicate, synthetic in enumerate(syntheses, start=1):
        result = rapid(frame, synthetic, keys, "income", attacker=attacker, tau=tau,
                       seed=seed + replicate, n_bootstrap=n_bootstrap)
        choice = result.threshold_choice
        rows.append({"replicate": replicate, "rapid": result.rapid,
                     "low": result.bootstrap_ci[0], "high": result.bootstrap_ci[1],
                     "at_risk": result.at_risk, "wilson_low": result.ci[0],
                     "wilson_high": result.ci[1], "accuracy": result.scores["accuracy"],
                     "tau_chosen": choice.chosen if choice else None})
    return pd.DataFrame(rows)


__all__ = ["ADULT", "ADULT_DROPPED", "KEYS", "SIM2", "SIM4", "TARGET", "adult_frame",
           "adult_runs", "band", "simulation_runs", "simulation_summary"]
