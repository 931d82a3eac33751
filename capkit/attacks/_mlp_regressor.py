"""scikit-learn's ``MLPRegressor`` as capkit's ``"mlp"`` attacker fits it (ReLU hidden layers,
an identity output, half the squared error weighted by ``sample_weight``, Adam, L2 penalty,
mini-batches of ``min(200, n)`` shuffled each epoch, stopped when the training loss has not
fallen by ``tol`` for ``n_iter_no_change`` epochs), trained by the same floating-point
operations in the same order as scikit-learn 1.9's, so that its weights, loss curve and
predictions are scikit-learn's bit for bit (a test compares them), without the per-batch
checks of scikit-learn's loop.

The training step is :mod:`capkit.attacks._mlp`'s (the same matrix products on arrays of the
same shapes and order, the elementwise rest compiled in :mod:`capkit.attacks._mlp_kernel`); what
differs from the classifier is the output (no logistic), the output error ``(out - y) * w``, the
divisor of the gradients (the batch's weight sum, numpy's pairwise sum) and the loss each batch
(``0.5 * sum(w (y - out)^2) / sum(w)`` plus ``alpha / 2`` times the squared coefficients' dot
products over the weight sum), which the stopping rule reads.

:func:`covered` says which estimators this repeats; anything else (early stopping, another
solver, activation, batch size, a sparse input or another scikit-learn version) is fitted by
scikit-learn itself.

Kingma & Ba, "Adam: a method for stochastic optimization", ICLR 2015; scikit-learn,
``sklearn/neural_network/_multilayer_perceptron.py`` and ``_base.py`` (``squared_loss``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sklearn
from numba import njit
from scipy.sparse import issparse
from sklearn.neural_network import MLPRegressor
from sklearn.utils import check_random_state, gen_batches

from capkit.attacks import _mlp_kernel as _k
from capkit.attacks._mlp import (
    _Adam,
    _Buffers,
    _Net,
    backward_batch,
    forward_batch,
    glorot_net,
    out_of_patience,
)

__all__ = ["FittedMLP", "covered", "fit"]

#: scikit-learn versions (major.minor) whose MLPRegressor training :func:`fit` repeats.
VERIFIED = ("1.9",)

#: the parameters :func:`fit` repeats, at these values (the rest are read from the estimator)
_FIXED = {"activation": "relu", "solver": "adam", "batch_size": "auto", "learning_rate_init":
          0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-8, "shuffle": True,
          "early_stopping": False, "warm_start": False, "loss": "squared_error"}


def covered(model: object, x: object) -> bool:
    """Whether ``model.fit(x, ...)`` is one :func:`fit` repeats: an ``MLPRegressor`` (not a
    subclass) with the parameters of :data:`_FIXED`, a dense ``x``, scikit-learn 1.9."""
    if type(model) is not MLPRegressor or issparse(x):
        return False
    if ".".join(sklearn.__version__.split(".")[:2]) not in VERIFIED:
        return False
    params = model.get_params()
    if any(not isinstance(params[k], type(v)) or params[k] != v for k, v in _FIXED.items()):
        return False
    seed = params["random_state"]
    return (isinstance(seed, int | np.integer) and not isinstance(seed, bool)
            and params["verbose"] is False)


class FittedMLP:
    """The fitted network: scikit-learn's ``coefs_``, ``intercepts_``, ``n_iter_``,
    ``loss_curve_`` and ``predict``."""

    def __init__(self, net: _Net, n_iter: int, loss_curve: list[float]) -> None:
        self.coefs_, self.intercepts_ = net.coefs, net.intercepts
        self.n_iter_ = n_iter
        self.loss_curve_ = loss_curve

    def predict(self, x: np.ndarray) -> np.ndarray:
        """``MLPRegressor.predict`` (one output): ``_forward_pass_fast``, raveled."""
        a = np.asarray(x, dtype=np.float64)
        last = len(self.coefs_) - 1
        for i, (coef, intercept) in enumerate(zip(self.coefs_, self.intercepts_,
                                                  strict=True)):
            a = a @ coef
            a += intercept
            if i != last:
                np.maximum(a, 0, out=a)
        return a.ravel()


@njit(cache=True, nogil=True, error_model="numpy")
def _output_delta(out: np.ndarray, y: np.ndarray, w: np.ndarray, rows: np.ndarray,
                  delta: np.ndarray, w_batch: np.ndarray, weighted_sq: np.ndarray
                  ) -> None:  # pragma: no cover - compiled
    """``delta = out - y[rows]`` then ``delta *= w[rows]``; beside it the batch's weights and
    ``(y - out) ** 2 * w`` (``squared_loss``'s terms, one output)."""
    for i in range(out.shape[0]):
        r = rows[i]
        d = out[i, 0] - y[r]
        e = y[r] - out[i, 0]
        delta[i, 0] = d * w[r]
        w_batch[i] = w[r]
        weighted_sq[i] = (e * e) * w[r]


def _batch(x: np.ndarray, y: np.ndarray, w: np.ndarray, weighted: bool, rows: np.ndarray,
           net: _Net, grads: _Net, adam: _Adam, buf: _Buffers, w_batch: np.ndarray,
           weighted_sq: np.ndarray, alpha: float) -> float:
    """One mini-batch of ``_backprop`` and Adam's update; returns the batch loss."""
    b = len(rows)
    last = len(net.coefs) - 1
    acts = [a[:b] for a in buf.acts]
    deltas = [d[:b] for d in buf.deltas]
    forward_batch(x, rows, net, acts, None)
    _output_delta(acts[-1], y, w, rows, deltas[last], w_batch, weighted_sq)
    # sample_weight.sum() (also np.average's scale), or the batch size; without weights every
    # weight is 1 and the products by it exact. The loss: 0.5 * average(...).mean() of one
    # output (the mean of one value: itself)
    sw_sum = _k._pairwise(w_batch, b) if weighted else float(b)
    loss = 0.5 * (_k._pairwise(weighted_sq, b) / sw_sum)
    values = 0.0
    for coef in net.coefs:
        s = coef.ravel()
        values += np.dot(s, s)
    loss += (0.5 * alpha) * values / sw_sum
    _k.column_means(deltas[last], sw_sum, grads.intercepts[last])
    backward_batch(net, grads, acts, deltas, sw_sum)
    adam.step(net.flat, grads.flat, grads.n_coef, sw_sum)
    return float(loss)


def fit(model: MLPRegressor, x_train: np.ndarray, y_train: np.ndarray,
        sample_weight: np.ndarray | None = None) -> FittedMLP:
    """``model.fit(x_train, y_train, sample_weight)`` for a :func:`covered` model, bit for bit,
    one output. Run it under one BLAS thread, as the caller does scikit-learn's."""
    params = model.get_params()
    hidden = params["hidden_layer_sizes"]
    hidden: Sequence[int] = list(hidden) if hasattr(hidden, "__iter__") else [hidden]
    x = np.ascontiguousarray(x_train, dtype=np.float64)
    y = np.ascontiguousarray(np.asarray(y_train, dtype=np.float64).ravel())
    n = x.shape[0]
    if y.shape != (n,) or x.ndim != 2 or n == 0 or not np.isfinite(x).all() \
            or not np.isfinite(y).all():
        raise ValueError("fit needs finite 2-d x and one finite target per row")
    weighted = sample_weight is not None
    w = np.ones(n) if not weighted else \
        np.ascontiguousarray(np.asarray(sample_weight, dtype=np.float64))
    if w.shape != (n,):
        raise ValueError("sample_weight needs one weight per row")
    alpha, tol = float(params["alpha"]), float(params["tol"])
    max_iter, n_no_change = int(params["max_iter"]), int(params["n_iter_no_change"])
    units = [x.shape[1], *hidden, 1]
    rng = check_random_state(params["random_state"])
    net, grads = glorot_net(units, rng), _Net(units)
    order = np.arange(n, dtype=int)
    batch = min(200, n)
    parts = list(gen_batches(n, batch))  # the same slices every epoch
    adam = _Adam(net.flat.size, alpha)
    buf = _Buffers(units, batch)
    w_batch, weighted_sq = np.empty(batch), np.empty(batch)
    best_loss, no_improvement, n_iter, curve = np.inf, 0, 0, []
    for _ in range(max_iter):
        # sklearn.utils.shuffle(order, random_state=rng): resample's draws (a shuffled
        # arange) taken from order, without its parameter checks
        drawn = np.arange(n)
        rng.shuffle(drawn)
        order = order[drawn]
        accumulated = 0.0
        for part in parts:
            loss = _batch(x, y, w, weighted, order[part], net, grads, adam, buf, w_batch,
                          weighted_sq, alpha)
            accumulated += loss * (part.stop - part.start)
        n_iter += 1
        curve.append(accumulated / n)
        no_improvement = no_improvement + 1 if curve[-1] > best_loss - tol else 0
        if curve[-1] < best_loss:
            best_loss = curve[-1]
        if out_of_patience(no_improvement, n_no_change, n_iter, max_iter):
            break
    if not np.isfinite(net.flat).all():
        raise ValueError("Solver produced non-finite parameter weights. The input data may "
                         "contain large values and need to be preprocessed.")
    return FittedMLP(net, n_iter, curve)
