"""scikit-learn's ``MLPClassifier`` as :func:`capkit.attacks.detection.mlp_detection_auc` uses it
(ReLU hidden layers, a logistic output, Adam, L2 penalty, mini-batches of 200, shuffled each
epoch, early stopping on a validation split), trained by the same floating-point operations in
the same order, so that its weights and probabilities are scikit-learn's bit for bit (a test
compares them), without the per-batch bookkeeping of scikit-learn's loop.

scikit-learn spends most of a small network's fit outside the matrix products: input checks
each batch, the loss (only reported when the stopping rule reads the validation score), and
Adam's update as about seventy small array operations a batch. Here the weights and intercepts
live in one flat vector (each layer's matrix a C-ordered view of it); each matrix product is
numpy's on arrays of the same shape, order and values as scikit-learn's (so the same BLAS call
with the same result), written into arrays allocated once per fit, and the elementwise rest of
a batch (biases, ReLU and its derivative, the output error, the gradients' sums and L2 term,
Adam's update) is a few compiled loops doing scikit-learn's operations in numpy's order
(:mod:`capkit.attacks._mlp_kernel`). The validation score is the exact count of right guesses
``accuracy_score`` divides.
The random draws (Glorot's initial weights, the stratified validation split, each epoch's
shuffle) are scikit-learn's own functions on the same ``RandomState``.

Kingma & Ba, "Adam: a method for stochastic optimization", ICLR 2015; Glorot & Bengio,
"Understanding the difficulty of training deep feedforward neural networks", AISTATS 2010;
scikit-learn, ``sklearn/neural_network/_multilayer_perceptron.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils import check_random_state, gen_batches, shuffle

from capkit.attacks import _mlp_kernel as _k

__all__ = ["mlp_probability"]

# scikit-learn's defaults for the parameters mlp_detection_auc does not set
ALPHA = 0.0001
LEARNING_RATE = 0.001
BETA_1, BETA_2, EPSILON = 0.9, 0.999, 1e-8
TOL = 1e-4
N_ITER_NO_CHANGE = 10


class _Net:
    """Weights and intercepts of each layer as views of one flat vector (coefficients first,
    then intercepts: scikit-learn's ``coefs_ + intercepts_`` order)."""

    def __init__(self, units: Sequence[int]) -> None:
        self.shapes = list(zip(units[:-1], units[1:], strict=True))
        self.n_coef = sum(a * b for a, b in self.shapes)
        self.flat = np.zeros(self.n_coef + sum(b for _, b in self.shapes))
        self.coefs, self.intercepts = self.views(self.flat)

    def views(self, flat: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        coefs, intercepts, at = [], [], 0
        for a, b in self.shapes:
            coefs.append(flat[at:at + a * b].reshape(a, b))
            at += a * b
        for _, b in self.shapes:
            intercepts.append(flat[at:at + b])
            at += b
        return coefs, intercepts


def out_of_patience(no_improvement: int, n_no_change: int, n_iter: int, max_iter: int) -> bool:
    """scikit-learn's stochastic solvers' stop rule after an epoch (``BaseMultilayerPerceptron.
    _fit_stochastic``): stop once ``n_no_change`` epochs in a row did not improve; otherwise,
    at the last allowed epoch, warn that the optimisation has not converged."""
    if no_improvement > n_no_change:
        return True
    if n_iter == max_iter:
        warnings.warn(f"Stochastic Optimizer: Maximum iterations ({max_iter}) reached and "
                      "the optimization hasn't converged yet.", ConvergenceWarning, stacklevel=3)
    return False


def _forward(x: np.ndarray, coefs: list[np.ndarray], intercepts: list[np.ndarray]
             ) -> list[np.ndarray]:
    """Every layer's activations (``_forward_pass``): ReLU hidden, logistic output."""
    activations = [x]
    last = len(coefs) - 1
    for i, (coef, intercept) in enumerate(zip(coefs, intercepts, strict=True)):
        a = activations[i] @ coef
        a += intercept
        if i != last:
            np.maximum(a, 0, out=a)
        else:
            expit(a, out=a)
        activations.append(a)
    return activations


class _Buffers:
    """Every array one mini-batch writes, allocated once: the batch's inputs and each layer's
    activations and errors (rows x units, the first b rows used by a batch of b)."""

    def __init__(self, units: Sequence[int], batch: int) -> None:
        self.acts = [np.empty((batch, u)) for u in units]
        self.deltas = [np.empty((batch, u)) for u in units[1:]]


def _train_batch(x_fit: np.ndarray, y_fit: np.ndarray, rows: np.ndarray, net: _Net, grads: _Net,
                 adam: _Adam, buf: _Buffers) -> None:
    """One mini-batch: scikit-learn's ``_forward_pass``, ``_backprop`` (with
    ``_compute_loss_grad`` and ``inplace_relu_derivative``) and Adam's update. Each matrix
    product is numpy's on arrays of the shapes and memory order scikit-learn's has (so the same
    BLAS call); the elementwise rest is :mod:`capkit.attacks._mlp_kernel`, the same operations
    in the same order. The products ``a.T @ delta`` are written into the gradient vector and
    made gradients inside Adam's step."""
    b = len(rows)
    n = float(b)
    last = len(net.coefs) - 1
    acts = [a[:b] for a in buf.acts]
    deltas = [d[:b] for d in buf.deltas]
    forward_batch(x_fit, rows, net, acts, expit)
    _k.output_delta(acts[-1], y_fit, rows, deltas[last], n, grads.intercepts[last])
    backward_batch(net, grads, acts, deltas, n)
    adam.step(net.flat, grads.flat, grads.n_coef, n)


def glorot_net(units: Sequence[int], rng: np.random.RandomState) -> _Net:
    """A network of ``units`` with scikit-learn's ``_init_coef`` starting weights: each layer's
    coefficients, then its intercepts, uniform within Glorot's bound for ReLU, from ``rng``."""
    net = _Net(units)
    for (fan_in, fan_out), coef, intercept in zip(net.shapes, net.coefs, net.intercepts,
                                                  strict=True):
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        coef[...] = rng.uniform(-bound, bound, (fan_in, fan_out))
        intercept[...] = rng.uniform(-bound, bound, fan_out)
    return net


def forward_batch(x: np.ndarray, rows: np.ndarray, net: _Net, acts: list,
                  output: Callable | None) -> None:
    """scikit-learn's ``_forward_pass`` of the rows ``rows`` of ``x`` into the activation
    buffers ``acts``: ReLU hidden layers, then the last layer's product plus its intercept and
    ``output`` in place (``expit`` for the logistic output, None for the identity)."""
    last = len(net.coefs) - 1
    np.take(x, rows, axis=0, out=acts[0])
    for i, (coef, intercept) in enumerate(zip(net.coefs, net.intercepts, strict=True)):
        np.matmul(acts[i], coef, out=acts[i + 1])
        if i != last:
            _k.bias_relu(acts[i + 1], intercept)
        else:
            acts[i + 1] += intercept
            if output is not None:
                output(acts[i + 1], out=acts[i + 1])


def backward_batch(net: _Net, grads: _Net, acts: list, deltas: list, scale: float) -> None:
    """scikit-learn's ``_backprop`` from the output error ``deltas[-1]`` (its intercept
    gradient already made): each hidden layer's error (a column times a row is numpy's product
    without BLAS, element by element), ``inplace_relu_derivative`` and the intercept gradients
    divided by ``scale`` (the batch size, or its weight sum), and the products ``a.T @ delta``
    written into the gradient vector (made gradients inside Adam's step)."""
    last = len(net.coefs) - 1
    for layer in range(last, -1, -1):
        if layer != last:
            if net.coefs[layer + 1].shape[1] == 1 and deltas[layer].size > 1:
                _k.outer_product(deltas[layer + 1], net.coefs[layer + 1].T, deltas[layer])
            else:
                np.matmul(deltas[layer + 1], net.coefs[layer + 1].T, out=deltas[layer])
            _k.relu_mask(deltas[layer], acts[layer + 1], scale, grads.intercepts[layer])
        np.matmul(acts[layer].T, deltas[layer], out=grads.coefs[layer])


class _Adam:
    """scikit-learn's ``AdamOptimizer`` over the flat vector: the same elementwise expressions
    (:func:`capkit.attacks._mlp_kernel.adam_step`)."""

    def __init__(self, size: int, alpha: float = ALPHA) -> None:
        self.alpha = alpha
        self.t = 0
        self.m = np.zeros(size)
        self.v = np.zeros(size)

    def step(self, params: np.ndarray, grad: np.ndarray, n_coef: int, n: float) -> None:
        self.t += 1
        rate = LEARNING_RATE * np.sqrt(1 - BETA_2 ** self.t) / (1 - BETA_1 ** self.t)
        _k.adam_step(params, grad, self.m, self.v, n_coef, self.alpha, n, BETA_1, 1 - BETA_1,
                     BETA_2, 1 - BETA_2, float(-rate), EPSILON)


def mlp_probability(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, *,
                    hidden: Sequence[int] = (100, 50), max_iter: int = 300,
                    validation_fraction: float = 0.1, seed: int = 42) -> np.ndarray:
    """``MLPClassifier(hidden_layer_sizes=hidden, max_iter=max_iter, random_state=seed,
    early_stopping=True, validation_fraction=validation_fraction).fit(x_train, y_train)
    .predict_proba(x_test)[:, 1]``, bit for bit, for two classes (module docstring).

    ``x_train`` and ``x_test``: float64 arrays; ``y_train``: two distinct labels. Run it under
    one BLAS thread, as the caller does scikit-learn's.
    """
    x = np.ascontiguousarray(x_train, dtype=np.float64)
    binarizer = LabelBinarizer().fit(y_train)
    if len(binarizer.classes_) != 2:
        raise ValueError("mlp_probability needs exactly two classes")
    y = binarizer.transform(y_train).astype(bool)
    units = [x.shape[1], *hidden, 1]
    rng = check_random_state(seed)
    net, grads = glorot_net(units, rng), _Net(units)
    best = net.flat.copy()
    # stratified on the flags as a vector: the classes and class indices scikit-learn draws
    # from are those of its stratify=y (a column, read as the strings "False" and "True"),
    # without a string per record
    x_fit, x_val, y_fit, y_val = train_test_split(x, y, random_state=rng,
                                                  test_size=validation_fraction,
                                                  stratify=y.ravel())
    y_val = binarizer.inverse_transform(y_val)
    # the validation accuracy (accuracy_score of the classes predicted at 1/2, an exact count
    # over the records) from the positive-class flags, when no class is a NaN or infinity
    classes = binarizer.classes_
    finite = not np.issubdtype(classes.dtype, np.floating) or bool(np.isfinite(classes).all())
    val_positive = y_val == classes[1]
    n = x_fit.shape[0]
    order = np.arange(n, dtype=int)
    batch = min(200, n)
    adam = _Adam(net.flat.size)
    buf = _Buffers(units, batch)
    best_score, no_improvement, n_iter = -np.inf, 0, 0
    for _ in range(max_iter):
        order = shuffle(order, random_state=rng)
        for part in gen_batches(n, batch):
            _train_batch(x_fit, y_fit, order[part], net, grads, adam, buf)
        n_iter += 1
        out = _forward(x_val, net.coefs, net.intercepts)[-1].ravel()
        if finite:
            score = np.count_nonzero((out > 0.5) == val_positive) / len(val_positive)
        else:
            guess = binarizer.inverse_transform(out)
            score = (np.nan if np.issubdtype(guess.dtype, np.floating)
                     and not np.isfinite(guess).all() else accuracy_score(y_val, guess))
        no_improvement = no_improvement + 1 if score < best_score + TOL else 0
        if score > best_score:
            best_score = score
            best = net.flat.copy()
        if out_of_patience(no_improvement, N_ITER_NO_CHANGE, n_iter, max_iter):
            break
    coefs, intercepts = net.views(best)
    if not np.isfinite(best).all():
        raise ValueError("Solver produced non-finite parameter weights. The input data may "
                         "contain large values and need to be preprocessed.")
    return _forward(np.ascontiguousarray(x_test, dtype=np.float64), coefs, intercepts)[-1].ravel()
