"""SDMetrics' categorical attacker metrics: CategoricalKNN, NB, RF, SVM and Ensemble.

SDMetrics 0.32 (``single_table/privacy/categorical_sklearn.py``, ``ensemble.py``, ``base.py``;
docs/sdmetrics-differences.md): an attacker fitted on the synthetic data
predicts the sensitive tuple of every real record from its key tuple, and

    score = 1 - (real records whose predicted tuple equals their true tuple) / n_real,

a record without a prediction (a key value unseen in the synthetic data) counting as wrong, as
does a record whose true sensitive value is missing. capkit fits once and predicts all records
in one batch (:mod:`capkit.sdmetrics.attackers`); SDMetrics fetches every real row with pandas
and predicts it alone (Adult, 45,222 records: about 900 s for CategoricalRF).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.attacks.fit import vote
from capkit.counts.encode import encode_columns
from capkit.errors import CapkitError
from capkit.sdmetrics.attackers import (
    ATTACKERS,
    CategoricalKNNAttacker,
    CategoricalNBAttacker,
    CategoricalRFAttacker,
    CategoricalSVMAttacker,
)
from capkit.sdmetrics.encoding import SensitiveSpace
from capkit.sdmetrics.inputs import attack_fields, random_state

#: The sdtypes the categorical attacker metrics accept (numbers are treated as categories).
CATEGORICAL_SDTYPES = ("numerical", "categorical", "boolean")


def _accuracy_score(predicted: np.ndarray, space: SensitiveSpace) -> float:
    """``1 - share of real records predicted right`` (no prediction, -1, is wrong)."""
    return 1.0 - float((predicted == space.truth).sum()) / len(space.truth)


class _CategoricalMetric:
    """SDMetrics' ``CategoricalPrivacyMetric`` with an accuracy score (ACCURACY_BASE)."""

    name: str
    goal = "maximize"
    min_value = 0.0
    max_value = 1.0
    ATTACKER: type

    @classmethod
    def _attackers(cls, model_kwargs: dict | None) -> list[type]:
        if model_kwargs:
            raise CapkitError(
                f"{cls.__name__}: SDMetrics' attacker takes no arguments (model_kwargs raises "
                "TypeError there, so its estimator always runs with scikit-learn's defaults); "
                "capkit's seed= sets the random state")
        return [cls.ATTACKER]

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
        *,
        seed: int | np.random.RandomState | None = None,
        allow_disjoint_levels: bool = False,
    ) -> float:
        """Score ``1 - accuracy`` of the attacker on the real records (higher = safer).

        Parameters
        ----------
        real_data, synthetic_data
            Tables with the same columns (any index). Neither is modified.
        metadata, table_name
            SDMetrics' metadata (optional): column sdtypes, and possibly ``key_fields`` /
            ``sensitive_fields``. Without it the sdtypes come from the real data's dtypes.
        key_fields
            Columns the attacker knows (numerical, categorical or boolean; numbers are
            categories).
        sensitive_fields
            Columns it predicts, jointly.
        model_kwargs
            Must be empty or None (SDMetrics' attackers take none); the Ensemble's
            ``{"attackers": [...]}``.
        seed
            Random state of estimators that draw (the random forest): None is NumPy's global
            legacy state, as SDMetrics (``numpy.random.seed(s)`` reproduces its numbers); an
            int s is ``RandomState(s)``, the same draws.
        allow_disjoint_levels
            A key or sensitive column whose real and synthetic values barely overlap is an
            error by default (coded differently: SDMetrics would find no key and call the data
            safe; :func:`capkit.counts.encode.check_levels`); ``True`` gives SDMetrics' number.

        Returns
        -------
        float
            In [0, 1].
        """
        keys, sensitive = attack_fields(real_data, synthetic_data, metadata, table_name,
                                        key_fields, sensitive_fields, CATEGORICAL_SDTYPES,
                                        cls.__name__)
        for role, columns in (("key", keys), ("target", sensitive)):
            for column in columns:
                encode_columns(real_data, synthetic_data, [column], role=role,
                               allow_disjoint_levels=allow_disjoint_levels)
        attackers = cls._attackers(model_kwargs)
        state = random_state(seed)
        space = SensitiveSpace(real_data, synthetic_data, sensitive)
        predictions = []
        for attacker_class in attackers:
            attacker = attacker_class(state)
            attacker.fit(synthetic_data, keys, sensitive)
            predictions.append(attacker.predict_tuples(real_data, space))
        predicted = predictions[0] if len(predictions) == 1 else vote(predictions)
        return _accuracy_score(predicted, space)


class CategoricalKNN(_CategoricalMetric):
    """SDMetrics' ``CategoricalKNN``: a 5-nearest-neighbour classifier on one-hot keys.

    Reproduced from SDMetrics 0.32 (``docs/sdmetrics-differences.md``): the estimator always
    runs with scikit-learn's defaults (SDMetrics raises TypeError on any ``model_kwargs``;
    capkit a CapkitError); fewer than 5 synthetic records fail (scikit-learn's error).
    Corrected: a synthetic table whose index is not 0..n-1 works (SDMetrics: KeyError); a
    missing value in a numeric or ``string`` key is a level (SDMetrics: TypeError); a column
    coded differently in the two tables is an error unless ``allow_disjoint_levels=True``
    (SDMetrics finds no key and scores 1.0).
    """

    name = "K-Nearest Neighbors"
    ATTACKER = CategoricalKNNAttacker


class CategoricalNB(_CategoricalMetric):
    """SDMetrics' ``CategoricalNB``: one categorical naive Bayes (alpha 1) per sensitive
    column, on ordinal key codes. Differences as :class:`CategoricalKNN`."""

    name = "Categorical NaiveBayesian"
    ATTACKER = CategoricalNBAttacker


class CategoricalRF(_CategoricalMetric):
    """SDMetrics' ``CategoricalRF``: one random forest (100 trees, multi-output) on one-hot
    keys.

    SDMetrics builds it with ``random_state=None``, so its result depends on NumPy's global
    legacy state (bug: no seed can be passed). capkit draws from the same state by default
    (``numpy.random.seed(s)`` before the call gives SDMetrics' number) and takes ``seed=``.
    Other differences as :class:`CategoricalKNN`.
    """

    name = "Categorical Random Forest"
    ATTACKER = CategoricalRFAttacker


class CategoricalSVM(_CategoricalMetric):
    """SDMetrics' ``CategoricalSVM``: one ``SVC()`` per sensitive column on one-hot keys; a
    sensitive column with one value fails (one class). Differences as
    :class:`CategoricalKNN`."""

    name = "Support Vector Classifier"
    ATTACKER = CategoricalSVMAttacker


class CategoricalEnsemble(_CategoricalMetric):
    """SDMetrics' ``CategoricalEnsemble``: the majority vote of ``model_kwargs["attackers"]``.

    Each attacker (``CAPAttacker``, ``CategoricalNBAttacker``, ``CategoricalKNNAttacker``,
    ``CategoricalRFAttacker``, ``CategoricalSVMAttacker``: capkit's or SDMetrics' classes, by
    name) is fitted on the synthetic data; a record's prediction is the most frequent of the
    attackers' predictions, ignoring "no prediction"; a tie goes to the value that first
    reaches the winning count scanning the attackers in list order
    (:func:`capkit.attacks.fit.vote`).

    Bug reproduced: without ``attackers`` (also the default call without ``model_kwargs``)
    the metric **returns** a ``ValueError`` (here a :class:`~capkit.errors.CapkitError`)
    instead of raising it. An Ensemble holding the random forest draws from the same state as
    :class:`CategoricalRF` (``seed=``).
    """

    name = "Ensemble"

    @classmethod
    def _attackers(cls, model_kwargs: dict | None) -> list[type]:
        attackers = (model_kwargs or {}).get("attackers")
        unknown = [a for a in attackers or [] if getattr(a, "__name__", None) not in ATTACKERS]
        if unknown:
            raise CapkitError(f"CategoricalEnsemble: unknown attackers {unknown}; use "
                              f"{sorted(ATTACKERS)}")
        return [ATTACKERS[a.__name__] for a in attackers]

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
        *,
        seed: int | np.random.RandomState | None = None,
        allow_disjoint_levels: bool = False,
    ) -> float | CapkitError:
        """Score ``1 - accuracy`` of the majority vote (:meth:`CategoricalKNN.compute`)."""
        attackers = (model_kwargs or {}).get("attackers")
        if attackers is None:
            return CapkitError("No attackers specified.")
        if not isinstance(attackers, list) or not attackers:
            return CapkitError("Zero attackers specified")
        return super().compute(real_data, synthetic_data, metadata, table_name, key_fields,
                               sensitive_fields, model_kwargs, seed=seed,
                               allow_disjoint_levels=allow_disjoint_levels)


__all__ = ["CategoricalEnsemble", "CategoricalKNN", "CategoricalNB", "CategoricalRF",
           "CategoricalSVM"]
