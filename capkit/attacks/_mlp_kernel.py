"""Compiled kernels (numba) of :func:`capkit.attacks._mlp.mlp_probability`'s training step: the
elementwise parts of one mini-batch of scikit-learn's ``MLPClassifier`` (the biases and ReLU of
the forward pass, the output error, the ReLU derivative, the intercept gradients, the L2 term
and Adam's update), each the same floating-point operations in the same order as numpy's
expression in scikit-learn's code, so the same bits; the matrix products stay numpy's (BLAS),
but for the product of a column by a row, which numpy computes without BLAS, one product per
element (:func:`outer_product`).

Two reductions follow numpy's own order: the column sums of a (rows x 1) block are numpy's
pairwise sum of one contiguous run (eight running sums over blocks of at most 128, halves
above), those of a wider block add the rows one after another (numpy's reduction over the outer
axis). No fast-math: every product and sum is rounded on its own (no fused multiply-add); numpy's
error model (a division by zero gives an infinity or NaN, as numpy's, and lets loops vectorise).

Kingma & Ba, "Adam: a method for stochastic optimization", ICLR 2015; scikit-learn,
``sklearn/neural_network/_multilayer_perceptron.py`` and ``_stochastic_optimizers.py``; numpy,
``numpy/_core/src/umath/loops_utils.h.src`` (``pairwise_sum``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["adam_step", "bias_relu", "column_means", "outer_product", "output_delta",
           "relu_mask"]


@njit(cache=True, nogil=True, error_model="numpy")
def _block(a: np.ndarray, start: int, n: int) -> float:  # pragma: no cover - compiled
    """numpy's ``pairwise_sum`` of a run of at most 128: eight running sums, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[start + i]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    last = n - n % 8
    for i in range(8, last, 8):
        at = start + i
        r0 += a[at]
        r1 += a[at + 1]
        r2 += a[at + 2]
        r3 += a[at + 3]
        r4 += a[at + 4]
        r5 += a[at + 5]
        r6 += a[at + 6]
        r7 += a[at + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(last, n):
        res += a[start + i]
    return res


@njit(cache=True, nogil=True, error_model="numpy")
def _pairwise(a: np.ndarray, n: int) -> float:  # pragma: no cover - compiled
    """numpy's ``pairwise_sum`` of ``a[:n]`` (1-d, contiguous): a run above 128 is split at
    half its length rounded down to a multiple of 8 and the halves' sums added. Written with
    an explicit stack (numba's cache does not keep recursive functions safely)."""
    if n <= 128:
        return _block(a, 0, n)
    starts = np.empty(64, np.int64)
    lengths = np.empty(64, np.int64)
    stage = np.empty(64, np.int64)
    values = np.empty(64)
    top, kept = 0, 0
    starts[0], lengths[0], stage[0] = 0, n, 0
    while top >= 0:
        s, m = starts[top], lengths[top]
        half = m // 2
        half -= half % 8
        if m <= 128:
            values[kept] = _block(a, s, m)
            kept += 1
            top -= 1
        elif stage[top] == 0:
            stage[top] = 1
            top += 1
            starts[top], lengths[top], stage[top] = s, half, 0
        elif stage[top] == 1:
            stage[top] = 2
            top += 1
            starts[top], lengths[top], stage[top] = s + half, m - half, 0
        else:
            kept -= 1
            values[kept - 1] = values[kept - 1] + values[kept]
            top -= 1
    return values[0]


@njit(cache=True, nogil=True, error_model="numpy")
def column_means(block: np.ndarray, n: float, out: np.ndarray) -> None:  # pragma: no cover
    """``out[:] = np.sum(block, axis=0) / n`` for a C-ordered ``block``, numpy's order."""
    rows, cols = block.shape
    if cols == 1:
        out[0] = _pairwise(block.ravel(), rows) / n
        return
    for j in range(cols):
        out[j] = block[0, j]
    for i in range(1, rows):
        for j in range(cols):
            out[j] += block[i, j]
    for j in range(cols):
        out[j] /= n


@njit(cache=True, nogil=True, error_model="numpy")
def bias_relu(a: np.ndarray, intercept: np.ndarray) -> None:  # pragma: no cover - compiled
    """``a += intercept; np.maximum(a, 0, out=a)`` in place (NaN kept, as numpy's maximum)."""
    rows, cols = a.shape
    for i in range(rows):
        for j in range(cols):
            v = a[i, j] + intercept[j]
            a[i, j] = v if (v >= 0.0 or v != v) else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def output_delta(out: np.ndarray, y: np.ndarray, rows: np.ndarray, delta: np.ndarray,
                 n: float, intercept_grad: np.ndarray) -> None:  # pragma: no cover - compiled
    """``delta = out - y[rows]`` (booleans as 0/1) and the intercept gradient
    ``np.sum(delta, axis=0) / n``."""
    b, cols = out.shape
    for i in range(b):
        r = rows[i]
        for j in range(cols):
            delta[i, j] = out[i, j] - (1.0 if y[r, j] else 0.0)
    column_means(delta, n, intercept_grad)


@njit(cache=True, nogil=True, error_model="numpy")
def outer_product(column: np.ndarray, row: np.ndarray, out: np.ndarray
                  ) -> None:  # pragma: no cover - compiled
    """``out = column @ row`` for a (b x 1) ``column`` and a (1 x p) ``row``, not both of one
    element: numpy's matmul without BLAS for an inner dimension of 1 (``matmul_inner_noblas``:
    each output set to 0, then the one product added), so ``0.0 + c * r``."""
    b, p = out.shape
    for i in range(b):
        c = column[i, 0]
        for j in range(p):
            out[i, j] = 0.0 + c * row[0, j]


@njit(cache=True, nogil=True, error_model="numpy")
def relu_mask(delta: np.ndarray, a: np.ndarray, n: float, intercept_grad: np.ndarray
              ) -> None:  # pragma: no cover - compiled
    """``delta[a == 0] = 0`` (the ReLU derivative) and ``np.sum(delta, axis=0) / n``."""
    rows, cols = delta.shape
    for i in range(rows):
        for j in range(cols):
            if a[i, j] == 0.0:
                delta[i, j] = 0.0
    column_means(delta, n, intercept_grad)


@njit(cache=True, nogil=True, error_model="numpy")
def adam_step(params: np.ndarray, grad: np.ndarray, m: np.ndarray, v: np.ndarray,
              n_coef: int, alpha: float, n: float, beta_1: float, one_minus_beta_1: float,
              beta_2: float, one_minus_beta_2: float, neg_rate: float, epsilon: float
              ) -> None:  # pragma: no cover - compiled
    """One Adam step over the flat parameters. The first ``n_coef`` entries of ``grad`` are the
    raw products ``a.T @ delta``, made gradients here as scikit-learn does (``g += alpha * coef;
    g /= n``, with the coefficient before this step); the rest are the intercept gradients.
    Then ``m = beta_1 * m + (1 - beta_1) * g``, ``v = beta_2 * v + (1 - beta_2) * g ** 2`` and
    ``params += -rate * m / (sqrt(v) + epsilon)``, each element as numpy computes it."""
    for i in range(n_coef):
        g = (grad[i] + alpha * params[i]) / n
        mi = beta_1 * m[i] + one_minus_beta_1 * g
        vi = beta_2 * v[i] + one_minus_beta_2 * (g * g)
        m[i] = mi
        v[i] = vi
        params[i] += neg_rate * mi / (np.sqrt(vi) + epsilon)
    for i in range(n_coef, params.size):
        g = grad[i]
        mi = beta_1 * m[i] + one_minus_beta_1 * g
        vi = beta_2 * v[i] + one_minus_beta_2 * (g * g)
        m[i] = mi
        v[i] = vi
        params[i] += neg_rate * mi / (np.sqrt(vi) + epsilon)
