"""The compiled steps of capkit's MLP training (capkit.attacks._mlp_kernel) against the numpy
expressions of scikit-learn's MLPClassifier they replace: equal bits on varied shapes and
magnitudes, and data on which a reordered operation gives other bits (so each equality test
would fail if a kernel changed the order of its floating-point operations)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from capkit.attacks import _mlp_kernel as k

ALPHA, BETA_1, BETA_2, EPSILON = 0.0001, 0.9, 0.999, 1e-8


def _spread(rng, shape):
    """Values over many magnitudes and both signs (sums of these round differently when
    reordered), with exact zeros."""
    out = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6, size=shape)
    out[rng.random(shape) < 0.1] = 0.0
    return out


def _sequential_sum(a):
    out = np.zeros(a.shape[1])
    for row in a:
        out += row
    return out


@pytest.mark.parametrize("rows", [1, 5, 7, 8, 9, 16, 127, 128, 129, 136, 199, 200, 255, 256,
                                  257, 513, 1000, 2049])
@pytest.mark.parametrize("cols", [1, 2, 50])
def test_column_means_are_numpys_sum_then_division(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    block = _spread(rng, (rows, cols))
    got = np.empty(cols)
    k.column_means(block, float(rows), got)
    # numpy's own reduction (pairwise over one contiguous column, rows in turn otherwise):
    # bit equality, no tolerance
    assert np.array_equal(got, np.sum(block, axis=0) / rows)


def test_column_means_data_tell_the_summation_orders_apart():
    """On the data above, summing a column in another order (sequentially, or pairwise where
    numpy adds rows in turn) gives other bits: the equality test detects a reordered sum."""
    rng = np.random.default_rng(200 * 100 + 1)
    column = _spread(rng, (200, 1))
    assert not np.array_equal(_sequential_sum(column), np.sum(column, axis=0))
    rng = np.random.default_rng(200 * 100 + 50)
    wide = _spread(rng, (200, 50))
    by_column = np.array([np.sum(np.ascontiguousarray(wide[:, j])) for j in range(50)])
    assert not np.array_equal(by_column, np.sum(wide, axis=0))


@pytest.mark.parametrize("shape", [(1, 1), (200, 100), (37, 50), (200, 1)])
def test_bias_relu_and_relu_mask_are_numpys(shape):
    rng = np.random.default_rng(shape[0] + shape[1])
    a, intercept = rng.standard_normal(shape), rng.standard_normal(shape[1])
    want = a + intercept
    np.maximum(want, 0, out=want)
    got = a.copy()
    k.bias_relu(got, intercept)
    assert np.array_equal(got, want)
    delta = _spread(rng, shape)
    want_delta = delta.copy()
    want_delta[want == 0] = 0
    got_delta, grad = delta.copy(), np.empty(shape[1])
    k.relu_mask(got_delta, got, float(shape[0]), grad)
    assert np.array_equal(got_delta, want_delta)
    assert np.array_equal(grad, np.sum(want_delta, axis=0) / shape[0])


def test_output_delta_is_numpys():
    rng = np.random.default_rng(5)
    out = expit(rng.standard_normal((200, 1)) * 3)
    y = rng.random((500, 1)) < 0.5
    rows = rng.permutation(500)[:200]
    delta, grad = np.empty((200, 1)), np.empty(1)
    k.output_delta(out, y, rows, delta, 200.0, grad)
    want = out - y[rows]
    assert np.array_equal(delta, want)
    assert np.array_equal(grad, np.sum(want, axis=0) / 200)


def _numpy_adam(params, raw, m, v, n_coef, n, t):
    """scikit-learn's expressions: the L2 term and mean on the coefficients' products, then
    AdamOptimizer._get_updates and the in-place addition."""
    grad = raw.copy()
    g = grad[:n_coef]
    g += ALPHA * params[:n_coef]
    g /= n
    m = BETA_1 * m + (1 - BETA_1) * grad
    v = BETA_2 * v + (1 - BETA_2) * (grad ** 2)
    rate = 0.001 * np.sqrt(1 - BETA_2 ** t) / (1 - BETA_1 ** t)
    params = params + -rate * m / (np.sqrt(v) + EPSILON)
    return params, m, v, rate


@pytest.mark.parametrize("size,n_coef", [(1, 0), (1, 1), (17, 9), (6601, 6450), (1000, 1000)])
def test_adam_step_is_scikit_learns_update(size, n_coef):
    rng = np.random.default_rng(size + n_coef)
    params, raw = _spread(rng, size), _spread(rng, size)
    m, v = _spread(rng, size), np.abs(_spread(rng, size))
    got_p, got_m, got_v = params.copy(), m.copy(), v.copy()
    for t in (1, 2, 40):  # three steps in a row, the rate of each step
        want_p, want_m, want_v, rate = _numpy_adam(got_p, raw, got_m, got_v, n_coef, 37.0, t)
        k.adam_step(got_p, raw, got_m, got_v, n_coef, ALPHA, 37.0, BETA_1, 1 - BETA_1, BETA_2,
                    1 - BETA_2, float(-rate), EPSILON)
        assert np.array_equal(got_m, want_m) and np.array_equal(got_v, want_v)
        assert np.array_equal(got_p, want_p)


def test_adam_data_tell_reordered_operations_apart():
    """On the data of the test above, the L2 term divided separately, the moment update
    without its own rounding of each product (a fused multiply-add stand-in: computed in
    extended precision) or the update as rate * (m / denominator) give other bits."""
    rng = np.random.default_rng(6601 + 6450)
    params, raw = _spread(rng, 6601), _spread(rng, 6601)
    m = _spread(rng, 6601)
    want = (raw + ALPHA * params) / 37.0
    assert not np.array_equal(raw / 37.0 + ALPHA * params / 37.0, want)
    exact = (np.longdouble(BETA_1) * m.astype(np.longdouble)
             + np.longdouble(1 - BETA_1) * want.astype(np.longdouble)).astype(np.float64)
    assert not np.array_equal(exact, BETA_1 * m + (1 - BETA_1) * want)
    denominator = np.sqrt(np.abs(want)) + EPSILON
    assert not np.array_equal(-0.001 * (m / denominator), -0.001 * m / denominator)


@pytest.mark.parametrize("rows,cols", [(200, 50), (1, 50), (37, 1), (151, 100)])
def test_outer_product_is_numpys_column_times_row(rows, cols):
    rng = np.random.default_rng(rows + cols)
    column, row = _spread(rng, (rows, 1)), _spread(rng, (cols, 1)).T  # a row: a column's .T
    column[:3] = -0.0  # negative zeros: numpy's 0 + (-0.0 * r) is +0.0
    got = np.empty((rows, cols))
    k.outer_product(column, row, got)
    want = column @ row
    assert np.array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))  # the sign of every zero too
