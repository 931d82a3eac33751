"""scikit-learn's ``MLPClassifier`` as :func:`capkit.attacks.detection.mlp_detection_auc` uses it
(ReLU hidden layers, a logistic output, Adam, L2 penalty, mini-batches of 200, shuffled each
epoch, early stopping on a validation split), trained by the same floating-point operations in
the same order, so that its weights and probabilities are scikit-learn's bit for bit (a test
compares them), without the per-batch bookkeeping of scikit-learn's loop.

scikit-learn spends most of a small network's fit outside the matrix products: input checks
each batch, the loss (only reported when the stopping rule reads the validation score), and
Adam's update as about seventy small array operations a batch. Here the weights and intercepts
live in one flat vector (each layer's matrix a C-ordered view of it), so Adam's elementwise
update is a dozen operations over that vector; each product, sum and quotient is scikit-learn's
own on arrays of the same shape, order and values, so the same BLAS call with the same result.
The random draws (Glorot's initial weights, the stratified validation split, each epoch's
shuffle) are scikit-learn's own functions on the same ``RandomState``.

Kingma & Ba, "Adam: a method for stochastic optimization", ICLR 2015; Glorot & Bengio,
"Understanding the difficulty of training deep feedforward neural networks", AISTATS 2010;
scikit-learn, ``sklearn/neural_network/_multilayer_perceptron.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils import check_random_state, gen_batches, shuffle

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
        size = sum(a * b for a, b in self.shapes) + sum(b for _, b in self.shapes)
        self.flat = np.zeros(size)
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


def _backprop(activations: list[np.ndarray], y: np.ndarray, net: _Net,
              grads: _Net) -> None:
    """The gradient of the mean log loss plus the L2 penalty into ``grads`` (``_backprop``,
    ``_compute_loss_grad``, ``inplace_relu_derivative``)."""
    n = activations[0].shape[0]
    last = len(net.coefs) - 1
    delta = activations[-1] - y
    for layer in range(last, -1, -1):
        if layer != last:
            delta = delta @ net.coefs[layer + 1].T
            delta[activations[layer + 1] == 0] = 0
        g = activations[layer].T @ delta
        g += ALPHA * net.coefs[layer]
        g /= n
        grads.coefs[layer][...] = g
        grads.intercepts[layer][...] = np.sum(delta, axis=0) / n


class _Adam:
    """scikit-learn's ``AdamOptimizer`` over the flat vector: the same elementwise expressions."""

    def __init__(self, size: int) -> None:
        self.t = 0
        self.m = np.zeros(size)
        self.v = np.zeros(size)

    def step(self, params: np.ndarray, grad: np.ndarray) -> None:
        self.t += 1
        self.m = BETA_1 * self.m + (1 - BETA_1) * grad
        self.v = BETA_2 * self.v + (1 - BETA_2) * (grad ** 2)
        rate = LEARNING_RATE * np.sqrt(1 - BETA_2 ** self.t) / (1 - BETA_1 ** self.t)
        params += -rate * self.m / (np.sqrt(self.v) + EPSILON)


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
    net, grads = _Net(units), _Net(units)
    for (fan_in, fan_out), coef, intercept in zip(net.shapes, net.coefs, net.intercepts,
                                                  strict=True):
        bound = np.sqrt(6.0 / (fan_in + fan_out))  # Glorot's uniform bound for ReLU
        coef[...] = rng.uniform(-bound, bound, (fan_in, fan_out))
        intercept[...] = rng.uniform(-bound, bound, fan_out)
    best = net.flat.copy()
    x_fit, x_val, y_fit, y_val = train_test_split(x, y, random_state=rng,
                                                  test_size=validation_fraction, stratify=y)
    y_val = binarizer.inverse_transform(y_val)
    n = x_fit.shape[0]
    order = np.arange(n, dtype=int)
    batch = min(200, n)
    adam = _Adam(net.flat.size)
    best_score, no_improvement, n_iter = -np.inf, 0, 0
    for _ in range(max_iter):
        order = shuffle(order, random_state=rng)
        for part in gen_batches(n, batch):
            rows = order[part]
            _backprop(_forward(x_fit[rows], net.coefs, net.intercepts), y_fit[rows], net,
                      grads)
            adam.step(net.flat, grads.flat)
        n_iter += 1
        guess = binarizer.inverse_transform(_forward(x_val, net.coefs, net.intercepts)[-1].ravel())
        score = (np.nan if np.issubdtype(guess.dtype, np.floating) and not np.isfinite(guess).all()
                 else accuracy_score(y_val, guess))
        no_improvement = no_improvement + 1 if score < best_score + TOL else 0
        if score > best_score:
            best_score = score
            best = net.flat.copy()
        if no_improvement > N_ITER_NO_CHANGE:
            break
        if n_iter == max_iter:
            warnings.warn(f"Stochastic Optimizer: Maximum iterations ({max_iter}) reached and "
                          "the optimization hasn't converged yet.", ConvergenceWarning,
                          stacklevel=2)
    coefs, intercepts = net.views(best)
    if not np.isfinite(best).all():
        raise ValueError("Solver produced non-finite parameter weights. The input data may "
                         "contain large values and need to be preprocessed.")
    return _forward(np.ascontiguousarray(x_test, dtype=np.float64), coefs, intercepts)[-1].ravel()
