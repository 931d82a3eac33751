"""The k nearest records found level by level in numpy (:mod:`capkit.distance._bylevel`) are the
brute force's floats and rows, and k_nearest through it equals k_nearest through the compiled
kernel."""

from __future__ import annotations

import numpy as np
import pytest
from search_cases import drawn_search

from capkit.distance import _brute, _bylevel
from capkit.distance.neighbours import Encoded, Weights, k_nearest


@pytest.mark.parametrize("share", [_bylevel.MAX_SHARE, 10.0])
def test_by_level_equals_the_brute_force(monkeypatch, share) -> None:
    monkeypatch.setattr(_bylevel, "MAX_SHARE", share)
    rng = np.random.default_rng(20261129)
    answered = 0
    for _ in range(150):
        case = drawn_search(rng, rows=150, cat_columns=(0, 1, 3, 5, 9), self_share=0.3, with_k=True)
        case["k"] = min(case["k"], len(case["cat_r"]))
        assert _bylevel.usable(case["num_s"], case["num_r"], case["w_cat"])
        got = _bylevel.bylevel_k(**case)
        if got is None:  # more pairs to visit than MAX_SHARE of them
            continue
        answered += 1
        want = _brute.brute_k(case["cat_s"], case["cat_r"], case["num_s"], case["num_r"],
                              case["w_cat"], None, case["exclude"], case["k"])
        # the same additions in the same order: bit equality, and the same tie rule
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert answered >= (150 if share > 1 else 30)


def test_by_level_gives_up_beyond_its_budget(monkeypatch) -> None:
    rng = np.random.default_rng(1)
    case = drawn_search(rng, rows=150, cat_columns=(0, 1, 3, 5, 9), self_share=0.3, with_k=True)
    monkeypatch.setattr(_bylevel, "MAX_PAIRS", 0)
    assert _bylevel.bylevel_k(**case) is None


@pytest.mark.parametrize("self_rule", ["identity", "content"])
def test_k_nearest_by_level_equals_the_kernel(monkeypatch, self_rule) -> None:
    rng = np.random.default_rng(8)
    for _ in range(10):
        n, m = int(rng.integers(2, 120)), int(rng.integers(1, 120))
        a = Encoded(rng.integers(0, 3, (n, 4)), np.round(rng.random((n, 2)), 1))
        b = Encoded(rng.integers(0, 3, (m, 4)), np.round(rng.random((m, 2)), 1))
        weights = (Weights(rng.random(4) + 0.5, rng.random(2) + 0.5) if rng.random() < 0.5
                   else None)
        for other, same in ((b, False), (a, True)):
            got = k_nearest(a, other, 2, weights=weights, self_rule=self_rule, same=same)
            with monkeypatch.context() as patch:
                patch.setattr(_bylevel, "BYLEVEL_PAIRS", 0)
                patch.setattr(_brute, "BRUTE_PAIRS", 0)
                patch.setattr(_brute, "BRUTE_PAIRS_UNEQUAL", 0)
                want = k_nearest(a, other, 2, weights=weights, self_rule=self_rule, same=same)
            np.testing.assert_array_equal(got, want)  # same rows, same formula: same floats
