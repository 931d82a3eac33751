"""SDMetrics' attribute-inference attackers, as parameterisations of capkit's attacker registry.

SDMetrics 0.32 (``single_table/privacy/cap.py``, ``categorical_sklearn.py``,
``numerical_sklearn.py``; docs/sdmetrics-differences.md) fits each attacker on
the synthetic data and predicts the sensitive columns of every real record from its keys
(Hittmeir, Mayer & Ekelhart 2020). Each attacker here is a :class:`capkit.attacks.Attacker`
specification (how it predicts, how keys are encoded, the scikit-learn estimator with
SDMetrics' defaults) plus SDMetrics' two conventions that capkit's registry does not model:

* encoders fitted on the synthetic data only, an unseen real key value meaning no prediction
  (:mod:`capkit.sdmetrics.encoding`; the one-hot matrix is sparse, the registry's ``sparse``,
  which changes how k-NN breaks ties);
* several sensitive columns predicted either by one estimator per column (``per_column``:
  SDMetrics' NB and SVM wrappers) or by one multi-output estimator (KNN, random forest).

The core (:class:`SklearnAttacker`) fits once and predicts every real record in one batch; per
key combination the prediction is the same as SDMetrics' record-by-record loop (which costs a
pandas row lookup and an encoder call per record). The CAP attacker votes with SDMetrics' tie
rule (the sensitive tuple that first reaches the top count in synthetic row order), which
capkit's own CAP attacker (:mod:`capkit.attacks.gcap`, ties drawn uniformly) does not use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression
from sklearn.naive_bayes import CategoricalNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPRegressor
from sklearn.svm import SVC, SVR

from capkit.attacks.attackers import Attacker, seeded
from capkit.counts.encode import encode_columns
from capkit.counts.rows import unique_rows
from capkit.errors import CapkitError
from capkit.sdmetrics.encoding import (
    Levels,
    SensitiveSpace,
    fit_levels,
    key_codes,
    one_hot,
    ordinal,
)

#: SDMetrics' attackers as registry specifications (scikit-learn defaults, keys as categories,
#: fitted on the synthetic records in row order).
SPECS: dict[str, Attacker] = {
    "cap": Attacker("sdmetrics-cap", "cap"),
    "nb": Attacker("sdmetrics-nb", "estimator", CategoricalNB(), keys_as="ordinal",
                   numeric_as="category"),
    "knn": Attacker("sdmetrics-knn", "estimator", KNeighborsClassifier(),
                    numeric_as="category", sparse=True),
    "rf": Attacker("sdmetrics-rf", "estimator", RandomForestClassifier(), numeric_as="category",
                   sparse=True),
    "svm": Attacker("sdmetrics-svm", "estimator", SVC(), numeric_as="category", sparse=True),
    "lr": Attacker("sdmetrics-lr", "estimator", LinearRegression(), numeric_as="raw"),
    "mlp": Attacker("sdmetrics-mlp", "estimator", MLPRegressor(), numeric_as="raw"),
    "svr": Attacker("sdmetrics-svr", "estimator", SVR(), numeric_as="raw"),
}


class SklearnAttacker:
    """Fit one of SDMetrics' scikit-learn attackers on the synthetic data, predict in a batch.

    Parameters
    ----------
    spec
        The registry specification (estimator, ``keys_as``, ``numeric_as``).
    per_column
        One estimator per sensitive column (else one multi-output estimator).
    state
        Given as ``random_state`` to estimators that have one (SDMetrics leaves it None: NumPy's
        global legacy state, :func:`capkit.sdmetrics.inputs.random_state`).
    """

    def __init__(self, spec: Attacker, per_column: bool,
                 state: np.random.RandomState | None = None) -> None:
        self.spec, self.per_column, self.state = spec, per_column, state
        self.models: list = []
        self.key_levels: list[Levels] = []
        self.sensitive_levels: list[Levels] = []

    def _features(self, codes: np.ndarray) -> object:
        if self.spec.numeric_as == "raw":
            return codes
        if self.spec.keys_as == "ordinal":
            return ordinal(codes)
        matrix = one_hot(codes, self.key_levels)
        return matrix if self.spec.sparse else matrix.toarray()

    def fit(self, synthetic: pd.DataFrame, keys: Sequence[str], sensitive: Sequence[str]
            ) -> SklearnAttacker:
        """Fit the encoders and the estimator(s) on the synthetic records, in row order."""
        self.keys, self.sensitive = list(keys), list(sensitive)
        if self.spec.numeric_as == "raw":  # numerical attackers: raw values, no encoding
            x = synthetic[self.keys].to_numpy(dtype=np.float64)
            y = synthetic[self.sensitive].to_numpy(dtype=np.float64)
        else:
            self.key_levels = fit_levels(synthetic, self.keys)
            self.sensitive_levels = fit_levels(synthetic, self.sensitive)
            x = self._features(key_codes(synthetic, self.keys, self.key_levels))
            y = ordinal(key_codes(synthetic, self.sensitive, self.sensitive_levels))
        targets = [y[:, c] for c in range(y.shape[1])] if self.per_column else [
            y[:, 0] if y.shape[1] == 1 else y]
        try:
            self.models = [seeded(self.spec, self.state).fit(x, t) for t in targets]
        except ValueError as exc:  # e.g. one class for an SVM
            raise CapkitError(f"{self.spec.name} cannot be fitted on the synthetic data "
                              f"(scikit-learn: {exc})") from exc
        return self

    def predict_codes(self, real: pd.DataFrame) -> np.ndarray:
        """(n, t) predicted codes of the synthetic categories; rows of -1 where a key value is
        not in the synthetic data (no prediction)."""
        codes = key_codes(real, self.keys, self.key_levels)
        known = (codes >= 0).all(axis=1)
        out = np.full((len(real), len(self.sensitive)), -1, dtype=np.int64)
        if known.any():
            out[known] = self._predict(self._features(codes[known]))
        return out

    def predict_values(self, real: pd.DataFrame) -> np.ndarray:
        """(n, t) predicted values (numerical attackers)."""
        return self._predict(real[self.keys].to_numpy(dtype=np.float64), numeric=True)

    def _predict(self, x: object, numeric: bool = False) -> np.ndarray:
        try:
            parts = [np.asarray(m.predict(x)) for m in self.models]
        except ValueError as exc:  # e.g. fewer synthetic records than k-NN's 5 neighbours
            raise CapkitError(f"{self.spec.name} cannot predict (scikit-learn: {exc})") from exc
        y = np.column_stack(parts) if self.per_column else parts[0].reshape(x.shape[0], -1)
        return y if numeric else np.rint(y).astype(np.int64)

    def predict_tuples(self, real: pd.DataFrame, space: SensitiveSpace) -> np.ndarray:
        """Tuple codes of :class:`SensitiveSpace` of the predictions (-1: none)."""
        codes = self.predict_codes(real)
        mapped = np.full(codes.shape, -1, dtype=np.int64)
        for c, levels in enumerate(self.sensitive_levels):
            known = codes[:, c] >= 0
            mapped[known, c] = space.from_levels(c, levels)[codes[known, c]]
        return space.combine(mapped)


def cap_predictions(real: pd.DataFrame, synthetic: pd.DataFrame, keys: Sequence[str],
                    space: SensitiveSpace) -> np.ndarray:
    """SDMetrics' ``CAPAttacker.predict`` for every real record, as tuple codes (-1: none).

    The prediction for a key is the most frequent sensitive tuple among the synthetic records
    with that key; a tie goes to the tuple whose count reaches the top first in synthetic row
    order, i.e. whose last record (at the top count) comes first. No synthetic record with the
    key: no prediction. A missing key value matches a missing one.
    """
    key_r, key_s, _ = encode_columns(real, synthetic, list(keys), allow_disjoint_levels=True)
    target = space.synthetic
    rows = np.arange(len(synthetic))
    pairs = np.column_stack([key_s, target])
    first, inverse = unique_rows(pairs)
    cells = pairs[first]
    count = np.bincount(inverse, minlength=len(cells))
    last = np.full(len(cells), -1, dtype=np.int64)
    np.maximum.at(last, inverse, rows)
    order = np.lexsort((last, -count, cells[:, 0]))  # per key: top count, then earliest last
    first = np.ones(len(order), dtype=bool)
    first[1:] = cells[order[1:], 0] != cells[order[:-1], 0]
    winners = order[first]
    n_keys = int(max(key_r.max(initial=-1), key_s.max(initial=-1))) + 1
    prediction = np.full(n_keys, -1, dtype=np.int64)
    prediction[cells[winners, 0]] = cells[winners, 1]
    return prediction[key_r]


class _Attacker:
    """SDMetrics' attacker interface: ``fit(synthetic_data, key_fields, sensitive_fields)`` and
    ``predict(key_data)`` for one key tuple; capkit's metrics call ``predict_tuples`` for all
    real records at once."""

    def __init__(self, state: np.random.RandomState | None = None) -> None:
        self.state = state

    def fit(self, synthetic_data: pd.DataFrame, key_fields: Sequence[str],
            sensitive_fields: Sequence[str]) -> None:
        self.synthetic = synthetic_data
        self.keys, self.sensitive = list(key_fields), list(sensitive_fields)
        self._fit()

    def _fit(self) -> None:
        """Fit after ``synthetic``, ``keys`` and ``sensitive`` are set."""

    def predict_tuples(self, real: pd.DataFrame, space: SensitiveSpace) -> np.ndarray:
        """Tuple codes of the prediction for every real record (-1: none)."""
        raise NotImplementedError

    def predict(self, key_data: Sequence[object]) -> tuple | None:
        """The predicted sensitive tuple of one key tuple (None: no prediction)."""
        row = pd.DataFrame([list(key_data)], columns=self.keys)
        for column in self.sensitive:
            row[column] = np.nan
        space = SensitiveSpace(row, self.synthetic, self.sensitive)
        return space.decode(int(self.predict_tuples(row, space)[0]))


class CAPAttacker(_Attacker):
    """SDMetrics' ``CAPAttacker``: the most frequent sensitive tuple among the synthetic records
    with the same key (:func:`cap_predictions`: ties to the tuple that first reaches the top
    count in synthetic row order); no prediction for a key absent from the synthetic data."""

    SPEC = SPECS["cap"]

    def predict_tuples(self, real: pd.DataFrame, space: SensitiveSpace) -> np.ndarray:
        return cap_predictions(real, self.synthetic, self.keys, space)


class _Sklearn(_Attacker):
    SPEC: Attacker
    PER_COLUMN: bool

    def _fit(self) -> None:
        self.core = SklearnAttacker(self.SPEC, self.PER_COLUMN, self.state).fit(
            self.synthetic, self.keys, self.sensitive)

    def predict_tuples(self, real: pd.DataFrame, space: SensitiveSpace) -> np.ndarray:
        return self.core.predict_tuples(real, space)


class CategoricalNBAttacker(_Sklearn):
    """SDMetrics' naive Bayes attacker: ordinal keys, one ``CategoricalNB()`` (alpha 1) per
    sensitive column."""

    SPEC, PER_COLUMN = SPECS["nb"], True


class CategoricalKNNAttacker(_Sklearn):
    """SDMetrics' k-NN attacker: sparse one-hot keys, one ``KNeighborsClassifier()`` (k = 5,
    Euclidean) for all sensitive columns."""

    SPEC, PER_COLUMN = SPECS["knn"], False


class CategoricalRFAttacker(_Sklearn):
    """SDMetrics' random forest attacker: sparse one-hot keys, one ``RandomForestClassifier()``
    (100 trees, multi-output); its draws come from ``state`` (NumPy's global legacy state by
    default, as in SDMetrics)."""

    SPEC, PER_COLUMN = SPECS["rf"], False


class CategoricalSVMAttacker(_Sklearn):
    """SDMetrics' SVM attacker: sparse one-hot keys, one ``SVC()`` (RBF, C = 1,
    gamma = "scale") per sensitive column."""

    SPEC, PER_COLUMN = SPECS["svm"], True


#: The attacker classes by name (SDMetrics' names, so its own classes can be named too).
ATTACKERS: dict[str, type[_Attacker]] = {
    cls.__name__: cls for cls in (CAPAttacker, CategoricalNBAttacker, CategoricalKNNAttacker,
                                  CategoricalRFAttacker, CategoricalSVMAttacker)}


__all__ = ["ATTACKERS", "CAPAttacker", "CategoricalKNNAttacker", "CategoricalNBAttacker",
           "CategoricalRFAttacker", "CategoricalSVMAttacker", "SPECS", "SklearnAttacker",
           "cap_predictions"]
