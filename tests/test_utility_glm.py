"""The logit's deviances (capkit.utility.glm): one deviance function for the fits and the null
model, and the warning of a fit above the null deviance only beyond the IRLS's tolerance."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from capkit import utility
from capkit.utility import glm


def test_null_deviance_is_the_deviance_of_the_constant_fit_bit_for_bit() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 7, 40, 999, 5000):
        t = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(float)
        t[:2] = (0.0, 1.0)
        c = float(np.mean(t))
        # the same function as every fit's deviance (R's glm.fit: sum of dev.resids at wtdmu)
        assert glm.null_deviance(t) == glm._deviance(t, np.full(n, c))
        # and the closed form -2 (n1 log c + n0 log(1 - c)) up to the rounding of a sum of n
        # terms: n eps relative
        n1 = float(t.sum())
        closed = -2.0 * (n1 * math.log(c) + (n - n1) * math.log(1.0 - c))
        assert abs(glm.null_deviance(t) - closed) <= n * np.finfo(float).eps * closed


def test_an_intercept_only_fit_is_never_above_the_null_deviance() -> None:
    """In exact arithmetic the intercept-only fit's deviance is the null deviance: rounding may
    put it a few ulps above, which is no departure from the maximum likelihood."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        n = int(rng.integers(20, 2000))
        t = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(float)
        t[:2] = (0.0, 1.0)
        fit = glm.fit_logit(np.ones((n, 1)), t)
        assert not glm.above_null(fit["deviance"], t)
    # a fit far above the null deviance (R's diverged fits: 24 times it) is still told
    assert glm.above_null(2.0 * glm.null_deviance(t), t)


def test_a_copy_of_the_original_gives_no_maximum_likelihood_warning() -> None:
    """A synthesis identical to the original: the logit's predictors tell nothing, its MLE is
    the intercept-only fit, and no warning says the IRLS left the maximum likelihood (the code
    before compared the two deviances without tolerance and warned on about half the seeds)."""
    rng = np.random.default_rng(1)
    for _ in range(8):
        n = 300
        frame = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 3, n)),
                              "b": rng.normal(size=n),
                              "c": pd.Categorical(rng.integers(0, 2, n))})
        got = utility.gen(frame.copy(), frame, method="logit", maxorder=0)
        assert not [w for w in got.warnings if "maximum likelihood" in w]
