"""The logistic-regression attacker ("lr"): its class is the objective's minimum's under a
stated tie rule, not the solver's stopping point and rounding, checked against a
slow record-by-record Newton fit on a frame built to have an exact tie between two classes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit import attacks
from capkit.attacks.logistic import TIE


def tied_frame(order_seed: int) -> pd.DataFrame:
    """Key ``a`` (levels p, q, r), target ``t``: classes x and y have the same count at every
    level, so the minimum gives them equal decision values everywhere (an exact tie); z wins
    at q only. Rows in a shuffled order."""
    counts = {"p": {"x": 3, "y": 3, "z": 1}, "q": {"x": 1, "y": 1, "z": 4},
              "r": {"x": 2, "y": 2, "z": 1}}
    rows = [(a, t) for a, by_t in counts.items() for t, n in by_t.items() for _ in range(n)]
    frame = pd.DataFrame(rows, columns=["a", "t"]).astype("category")
    return frame.sample(frac=1.0, random_state=order_seed).reset_index(drop=True)


def reference_decisions(frame: pd.DataFrame, c: float = 1.0) -> tuple[list, dict]:
    """Decision values per key level at the minimum of sum_i -log softmax(W x_i + b)[y_i]
    + ||W||^2 / (2 C) (scikit-learn's objective up to a constant factor), by Newton's method
    with the gradient and Hessian summed record by record."""
    levels = sorted(frame["a"].unique())
    classes = sorted(frame["t"].unique())
    p, k = len(levels), len(classes)
    n_par = (p + 1) * k  # per class: one weight per level, then the intercept

    def design(level: str) -> np.ndarray:
        return np.array([1.0 if level == v else 0.0 for v in levels] + [1.0])

    theta = np.zeros(n_par)
    for _ in range(50):
        grad, hess = np.zeros(n_par), np.zeros((n_par, n_par))
        for j in range(k):  # the penalty (weights only, not the intercepts)
            for i in range(p):
                grad[j * (p + 1) + i] += theta[j * (p + 1) + i] / c
                hess[j * (p + 1) + i, j * (p + 1) + i] += 1.0 / c
        for level, target in zip(frame["a"], frame["t"], strict=True):
            x = design(level)
            z = np.array([theta[j * (p + 1):(j + 1) * (p + 1)] @ x for j in range(k)])
            prob = np.exp(z - z.max())
            prob /= prob.sum()
            for j in range(k):
                err = prob[j] - (1.0 if classes[j] == target else 0.0)
                grad[j * (p + 1):(j + 1) * (p + 1)] += err * x
                for m in range(k):
                    h = prob[j] * ((1.0 if j == m else 0.0) - prob[m])
                    hess[j * (p + 1):(j + 1) * (p + 1), m * (p + 1):(m + 1) * (p + 1)] += \
                        h * np.outer(x, x)
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]  # the intercepts' common shift is free
        theta -= step
        if np.abs(grad).max() < 1e-13:
            break
    decisions = {level: np.array([theta[j * (p + 1):(j + 1) * (p + 1)] @ design(level)
                                  for j in range(k)]) for level in levels}
    return classes, decisions


def test_lr_class_is_the_minimum_with_the_tie_rule() -> None:
    synthetic = tied_frame(order_seed=3)
    original = tied_frame(order_seed=4)
    classes, decisions = reference_decisions(synthetic)
    # the built tie: x and y equal at every level (Newton's rounding only)
    for d in decisions.values():
        assert abs(d[0] - d[1]) < 1e-12
    # the rule: the first class (sorted) within TIE of the largest decision value
    expected = {level: classes[int(np.argmax(d >= d.max() - TIE))]
                for level, d in decisions.items()}
    assert expected == {"p": "x", "q": "z", "r": "x"}
    result = attacks.attribute_attack(original, synthetic, ["a"], "t", attacker="lr",
                                      check_overlap=False)
    got = result.records["predicted"].astype(str).to_numpy()
    want = original["a"].astype(str).map(expected).to_numpy()
    np.testing.assert_array_equal(got, want)

