"""The data-generating process of RAPID's simulations: :func:`simulate_microdata`.

Templ, Thees & Müller (arXiv 2602.09235, 2026), Section 5.2 and Appendix (data generation), as
the authors' ``dev/simulate_microdata.R`` writes it: six variables of n people driven by a
latent socio-economic status (SES), with a dependency strength kappa >= 0 that sets the signal
and noise weights

    w_sig = sqrt(kappa / (1 + kappa)),   w_noise = sqrt(1 / (1 + kappa)).

* age: normal(45, 15) truncated to [18, 90] (values outside are redrawn); z(age) standardised
  with the sample standard deviation (R's ``scale``);
* education E in {0, 1, 2} ("low", "medium", "high"): w_sig (0.8 SES - 0.4 z(age)) + w_noise e
  cut at -0.3 and 0.7 (intervals closed on the right, as R's ``cut``);
* income = exp(10 + w_sig (0.5 SES + 0.3 z(age) + 0.25 E) + w_noise e);
* health_score = 100 logistic(w_sig (0.6 SES - 0.5 z(age) + 0.2 E + 0.2 z(log income))
  + w_noise e);
* disease_status, multinomial logit with "healthy" as reference (linear predictor 0):
  diabetic -1.5 + kappa (0.8 z(age) - 0.3 z(log income) - 0.2 E), hypertensive
  -1.3 + kappa (1.0 z(age) - 0.2 z(log income) - 0.1 E);
* gender: "male" with probability logistic(w_sig (0.3 SES - 0.2 z(age) + 0.2 E)).

The draws come from numpy's generator, not R's, so a seed gives other records than the R code
with the same seed; the distribution is the same.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from capkit.errors import CapkitError

DISEASES = ("healthy", "diabetic", "hypertensive")
EDUCATION = ("low", "medium", "high")


def _z(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / x.std(ddof=1)


def _truncated_normal(rng: np.random.Generator, n: int, mean: float, sd: float, low: float,
                      high: float) -> np.ndarray:
    x = rng.normal(mean, sd, n)
    out = (x < low) | (x > high)
    while out.any():  # redraw the values outside (a few rounds; not a loop over records)
        x[out] = rng.normal(mean, sd, int(out.sum()))
        out = (x < low) | (x > high)
    return x


def simulate_microdata(kappa: float, n: int = 1000, seed: int = 0) -> pd.DataFrame:
    """n simulated people with dependency strength ``kappa`` (see the module docstring).

    Parameters
    ----------
    kappa
        Dependency strength, >= 0 (the paper uses 0 to 100).
    n
        Number of records (the paper's 1,000), >= 2.
    seed
        Seed of numpy's generator.

    Returns
    -------
    DataFrame with columns gender, age, education, income, health_score, disease_status
    (gender, education and disease_status categorical with the R code's levels).

    Raises
    ------
    CapkitError
        kappa negative or not a number, n below 2.
    """
    if isinstance(kappa, bool) or not isinstance(kappa, numbers.Real) or not kappa >= 0 or \
            not np.isfinite(kappa):
        raise CapkitError(f"kappa must be a number >= 0, got {kappa!r}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
        raise CapkitError(f"n must be a whole number >= 2, got {n!r}")
    rng = np.random.default_rng(seed)
    kappa, n = float(kappa), int(n)
    signal, noise = np.sqrt(kappa / (1 + kappa)), np.sqrt(1 / (1 + kappa))
    age = _truncated_normal(rng, n, 45.0, 15.0, 18.0, 90.0)
    age_z = _z(age)
    ses = rng.normal(size=n)
    edu_latent = signal * (0.8 * ses - 0.4 * age_z) + noise * rng.normal(size=n)
    education = np.searchsorted([-0.3, 0.7], edu_latent, side="left")  # (-inf,-0.3], (-0.3,0.7]
    income = np.exp(10 + signal * (0.5 * ses + 0.3 * age_z + 0.25 * education)
                    + noise * rng.normal(size=n))
    log_income_z = _z(np.log(income))
    health_lin = (signal * (0.6 * ses - 0.5 * age_z + 0.2 * education + 0.2 * log_income_z)
                  + noise * rng.normal(size=n))
    health = 100.0 / (1.0 + np.exp(-health_lin))
    eta = np.column_stack([
        np.zeros(n),
        -1.5 + kappa * (0.8 * age_z - 0.3 * log_income_z - 0.2 * education),
        -1.3 + kappa * (1.0 * age_z - 0.2 * log_income_z - 0.1 * education)])
    eta -= eta.max(axis=1, keepdims=True)  # the same probabilities, no overflow at large kappa
    prob = np.exp(eta)
    prob /= prob.sum(axis=1, keepdims=True)
    disease = (rng.random(n)[:, None] > np.cumsum(prob, axis=1)[:, :-1]).sum(axis=1)
    male = rng.random(n) < 1.0 / (1.0 + np.exp(-signal * (0.3 * ses - 0.2 * age_z
                                                          + 0.2 * education)))
    return pd.DataFrame({
        "gender": pd.Categorical.from_codes(male.astype(np.int64), ["female", "male"]),
        "age": age,
        "education": pd.Categorical.from_codes(education, list(EDUCATION)),
        "income": income,
        "health_score": health,
        "disease_status": pd.Categorical.from_codes(disease, list(DISEASES)),
    })


__all__ = ["DISEASES", "EDUCATION", "simulate_microdata"]
