"""SDMetrics' numerical attacker metrics: NumericalLR, NumericalMLP, NumericalSVR and
NumericalRadiusNearestNeighbor.

SDMetrics 0.32 (``single_table/privacy/numerical_sklearn.py``, ``radius_nearest_neighbor.py``,
``base.py``; docs/sdmetrics-differences.md): a regressor fitted on the
synthetic data (raw key values, no scaling) predicts the sensitive values of every real record,
and the score is the mean over the real records of the CDF loss of
:class:`capkit.sdmetrics.loss.InverseCDFDistance` (on [0, |T|], higher = safer, no ``1 - x``).
capkit fits once and predicts all records in one batch; SDMetrics predicts record by record.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.sdmetrics.attackers import SPECS, SklearnAttacker
from capkit.sdmetrics.inputs import attack_fields, random_state
from capkit.sdmetrics.loss import InverseCDFCutoff, InverseCDFDistance, cdf_values

#: (real rows x synthetic rows) neighbour tests held at once by the radius attacker.
RADIUS_CELLS = 2**22


def _check_complete(frames: dict[str, pd.DataFrame], columns: list[str]) -> None:
    for name, frame in frames.items():
        missing = [c for c in columns if frame[c].isna().any()]
        if missing:
            raise CapkitError(f"{name} has missing values in {missing}; SDMetrics' numerical "
                              "attackers need complete keys and sensitive values")


def _loss(loss_function: type | None, loss_function_kwargs: dict | None) -> InverseCDFDistance:
    loss_class = InverseCDFDistance if loss_function is None else loss_function
    if not (isinstance(loss_class, type) and issubclass(loss_class, InverseCDFDistance)):
        raise CapkitError("loss_function must be capkit.sdmetrics.InverseCDFDistance or a "
                          f"subclass, got {loss_function!r}")
    return loss_class(**({"p": 2} if loss_function_kwargs is None else loss_function_kwargs))


class _NumericalMetric:
    """SDMetrics' ``NumericalPrivacyMetric``."""

    name: str
    goal = "maximize"
    min_value = 0.0
    max_value = np.inf
    SPEC: str
    PER_COLUMN = False

    @classmethod
    def _predict(cls, real: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                 sensitive: list[str], model_kwargs: dict | None,
                 state: np.random.RandomState) -> np.ndarray:
        if model_kwargs:
            raise CapkitError(
                f"{cls.__name__}: SDMetrics' attacker takes no arguments (model_kwargs raises "
                "TypeError there); capkit's seed= sets the random state")
        attacker = SklearnAttacker(SPECS[cls.SPEC], cls.PER_COLUMN, state)
        return attacker.fit(synthetic, keys, sensitive).predict_values(real)

    @classmethod
    def compute(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        metadata: dict | None = None,
        table_name: str | None = None,
        key_fields: Sequence[str] | None = None,
        sensitive_fields: Sequence[str] | None = None,
        model_kwargs: dict | None = None,
        loss_function: type | None = None,
        loss_function_kwargs: dict | None = None,
        *,
        seed: int | np.random.RandomState | None = None,
    ) -> float:
        """Mean CDF loss of the attacker's predictions on the real records (higher = safer).

        Parameters
        ----------
        real_data, synthetic_data
            Tables with the same columns (any index). Neither is modified.
        metadata, table_name
            SDMetrics' metadata (optional), as :meth:`capkit.sdmetrics.CategoricalKNN.compute`.
        key_fields, sensitive_fields
            Numerical columns, complete (no missing value).
        model_kwargs
            Empty or None for LR / MLP / SVR (SDMetrics' attackers take none); the radius
            attacker's ``weight_func`` / ``weight_func_kwargs``.
        loss_function, loss_function_kwargs
            :class:`~capkit.sdmetrics.loss.InverseCDFDistance` (default, ``p=2``) or a subclass.
        seed
            Random state of the MLP: None is NumPy's global legacy state, as SDMetrics; an
            int s is ``RandomState(s)``, the same draws.

        Returns
        -------
        float
            On [0, |sensitive_fields|].
        """
        keys, sensitive = attack_fields(real_data, synthetic_data, metadata, table_name,
                                        key_fields, sensitive_fields, ("numerical",),
                                        cls.__name__)
        _check_complete({"real_data": real_data, "synthetic_data": synthetic_data},
                        keys + sensitive)
        loss = _loss(loss_function, loss_function_kwargs)
        predicted = cls._predict(real_data, synthetic_data, keys, sensitive, model_kwargs,
                                 random_state(seed))
        loss.fit(real_data, sensitive)
        truth = real_data[sensitive].to_numpy(dtype=np.float64)
        return float(loss.measure_all(predicted, truth).mean())


class NumericalLR(_NumericalMetric):
    """SDMetrics' ``NumericalLR``: ``LinearRegression()`` on the raw keys (multi-output).

    As SDMetrics: no seed and no model arguments (TypeError there, CapkitError here), the score
    is a sum of squared CDF differences, not a norm. Corrected: missing values are a
    CapkitError (SDMetrics: scikit-learn's ValueError), any index works.
    """

    name = "Numerical Linear Regression"
    SPEC = "lr"


class NumericalMLP(_NumericalMetric):
    """SDMetrics' ``NumericalMLP``: ``MLPRegressor()`` (100 ReLU units, adam, 200 iterations)
    on the raw keys.

    SDMetrics builds it with ``random_state=None`` (bug: no seed can be passed), so its result
    follows NumPy's global legacy state; capkit draws from the same state by default and takes
    ``seed=``. Otherwise as :class:`NumericalLR`.
    """

    name = "Multi-layer Perceptron Regression"
    SPEC = "mlp"


class NumericalSVR(_NumericalMetric):
    """SDMetrics' ``NumericalSVR``: one ``SVR()`` (RBF, C = 1, epsilon = 0.1) per sensitive
    column on the raw keys. Otherwise as :class:`NumericalLR`."""

    name = "Numerical Support-vector Regression"
    SPEC = "svr"
    PER_COLUMN = True


def _neighbour_counts(u_real: np.ndarray, u_syn: np.ndarray, p: float, cutoff: float
                      ) -> np.ndarray:
    """Per real row, the synthetic rows with ``sum_k |u_real - u_syn| ** p < cutoff``."""
    counts = np.zeros(len(u_real), dtype=np.int64)
    step = max(1, RADIUS_CELLS // max(len(u_syn), 1))
    for start in range(0, len(u_real), step):
        block = u_real[start : start + step]
        distance = np.zeros((len(block), len(u_syn)))
        for k in range(u_real.shape[1]):
            distance += np.abs(block[:, k][:, None] - u_syn[:, k][None, :]) ** p
        counts[start : start + step] = (distance < cutoff).sum(axis=1)
    return counts


class NumericalRadiusNearestNeighbor(_NumericalMetric):
    """SDMetrics' ``NumericalRadiusNearestNeighbor``, bug included.

    A synthetic record is a neighbour of a real key tuple x when
    ``sum_k |G_k(x_k) - G_k(s_k)| ** 2 < |K| * 0.3 ** 2`` (:class:`InverseCDFCutoff`, G_k
    fitted on the synthetic keys). The intended prediction is the neighbours' mean sensitive
    value; **SDMetrics' actual prediction, reproduced here, is the sum of the sensitive values
    of all synthetic records divided by the number of neighbours** (its loop adds every
    record's value and only the weights are 0/1); 0 without a neighbour. The score is then the
    CDF loss of :class:`NumericalLR`. SDMetrics loops over real x synthetic records in Python
    (2,000 x 2,000 would take hours); capkit counts the neighbours in blocks of arrays.
    """

    name = "Numerical Radius Nearest Neighbor"

    @classmethod
    def _predict(cls, real: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                 sensitive: list[str], model_kwargs: dict | None,
                 state: np.random.RandomState) -> np.ndarray:
        del state
        options = {"weight_func": InverseCDFCutoff,
                   "weight_func_kwargs": {"p": 2, "cutoff": 0.3}} if model_kwargs is None else (
            dict(model_kwargs))
        weight_class = options.get("weight_func")
        if not (isinstance(weight_class, type) and issubclass(weight_class, InverseCDFCutoff)):
            raise CapkitError("NumericalRadiusNearestNeighbor: weight_func must be capkit's "
                              f"InverseCDFCutoff, got {weight_class!r}")
        weight = weight_class(**(options.get("weight_func_kwargs") or {}))
        weight.fit(synthetic, keys)
        u_real = np.column_stack([cdf_values(g, real[k]) for g, k in zip(weight.cdfs, keys,
                                                                         strict=True)])
        u_syn = np.column_stack([cdf_values(g, synthetic[k]) for g, k in zip(weight.cdfs, keys,
                                                                            strict=True)])
        counts = _neighbour_counts(u_real, u_syn, weight.p, weight.cutoff)
        values = synthetic[sensitive]
        if all(np.issubdtype(d, np.integer) for d in values.dtypes):
            total = values.to_numpy().sum(axis=0).astype(np.float64)  # exact, as SDMetrics'
        else:  # SDMetrics adds record after record
            total = np.cumsum(values.to_numpy(dtype=np.float64), axis=0)[-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            predicted = total[None, :] / counts[:, None]
        predicted[counts == 0] = 0.0
        return predicted


__all__ = ["NumericalLR", "NumericalMLP", "NumericalRadiusNearestNeighbor", "NumericalSVR"]
