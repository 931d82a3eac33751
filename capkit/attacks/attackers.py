"""The attackers of Hittmeir, Mayer & Ekelhart (2020): a registry of specifications.

"A Baseline for Attribute Disclosure Risk in Synthetic Data" (ACM CODASPY 2020, 133-143,
doi 10.1145/3374664.3375722) treats the intruder who knows the keys of a real record and holds
the synthetic data as a **classifier** trained on the synthetic data and applied to the real
records, and asks for the strongest reasonable one as the baseline of a risk assessment.

An attacker here is a specification, not code: *how it predicts* (``method``) and, for a
scikit-learn estimator, *how the keys are encoded* and *how it is fitted*. A variant of another
tool (SDMetrics' CategoricalKNN, say: one-hot keys fitted on the synthetic data, numeric keys as
categories, scikit-learn defaults, fitted on the records) is a choice of these parameters, not a
second implementation.

Methods
-------
``"cap"``       majority target among the synthetic records with the same key (none without one)
``"gcap"``      majority target of the nearest keys by Hamming distance (the paper's GCAP)
``"nn"``        target of the nearest synthetic record by capkit's exact Gower distance
                (``distance="gower"``) or by anonymeter's mixed-type distance
                (``distance="anonymeter"``: anonymeter's inference attack, Giomi et al.
                2022), lowest row index on ties
``"estimator"`` a scikit-learn classifier (categorical target) or regressor (numeric target)
``"ensemble"``  hard majority vote (categorical) or mean (numeric) of other attackers
``"dummy"``     majority target (categorical) of the whole training file, or (numeric) its value
                within the tolerance of the most training records (:func:`fit.best_constant`)

For a numeric target, ``"cap"`` and ``"gcap"`` predict the mean target of their pool (the
paper's radius nearest neighbours with a Hamming radius, every pooled record weighted once).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sklearn.base import BaseEstimator, clone, is_classifier, is_regressor
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.naive_bayes import CategoricalNB
from sklearn.neural_network import MLPRegressor
from sklearn.svm import SVC, SVR

from capkit.attacks.knn import ExactKNeighborsClassifier, ExactKNeighborsRegressor
from capkit.attacks.logistic import TiedLogisticRegression
from capkit.errors import CapkitError

METHODS = ("cap", "gcap", "nn", "estimator", "ensemble", "dummy")
KEY_ENCODINGS = ("onehot", "ordinal")
NUMERIC_ENCODINGS = ("scaled", "raw", "category")
DISTANCES = ("gower", "anonymeter")
CATEGORICAL, NUMERIC = "categorical", "numeric"


@dataclass(frozen=True)
class Attacker:
    """How one attacker predicts a target from the keys.

    Attributes
    ----------
    name
        Shown in results.
    method
        One of :data:`METHODS`.
    estimator
        The scikit-learn estimator (``method="estimator"``); cloned before each fit, its
        ``random_state`` (if any) set to the attack's seed.
    keys_as
        ``"onehot"`` (one column per level of a categorical key seen in the training data; an
        unseen level is all zeros) or ``"ordinal"`` (the level's code).
    numeric_as
        ``"scaled"`` (min-max by the training records' range; a constant key scales by 1),
        ``"raw"`` (values as they are) or ``"category"`` (each value a level, encoded as
        ``keys_as``).
    compress
        Fit on the distinct (key combination, target) cells with their counts as
        ``sample_weight`` instead of on the records. The loss of linear models, naive Bayes
        and SVMs is a sum over records, so this is the same fitted model (for an SVM with
        ``gamma="scale"`` the gamma is taken from the records' variance); a random forest then
        bootstraps cells instead of records and an MLP batches cells: the same family of
        models, not the same draws. Much faster when keys repeat.
    members
        The attackers an ensemble combines (names or specifications).
    scale_target
        Numeric target: fit on the standardised target (mean 0, standard deviation 1 over the
        training records) and transform the predictions back. SVR's epsilon-tube and an MLP's
        optimiser are not scale-free; linear regression, forests and k-NN are.
    sparse
        Give the estimator a ``scipy.sparse`` matrix instead of a dense array, as SDMetrics'
        one-hot encoders do. Same numbers, but scikit-learn's k-NN breaks ties between equally
        distant neighbours differently on sparse input, and one-hot keys tie a lot (Adult,
        2,000 records, 3 keys, income: 1 - accuracy 0.2200 sparse, 0.2415 dense).
    distance
        ``method="nn"`` only: ``"gower"`` (capkit's Gower distance, numeric ranges of the
        training records) or ``"anonymeter"`` (anonymeter's sum of range-scaled absolute
        differences and 0/1 mismatches, ranges over the synthetic and the attacked records:
        :mod:`capkit.attacks.nearest_record`). Each attacked group (members, holdout) is then
        searched with its own ranges, as anonymeter attacks each set in its own call.
    """

    name: str
    method: str
    estimator: BaseEstimator | None = None
    keys_as: str = "onehot"
    numeric_as: str = "scaled"
    compress: bool = False
    members: tuple[str | Attacker, ...] = ()
    scale_target: bool = False
    sparse: bool = False
    distance: str = "gower"

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise CapkitError(f"attacker method must be one of {METHODS}, got {self.method!r}")
        if self.keys_as not in KEY_ENCODINGS:
            raise CapkitError(f"keys_as must be one of {KEY_ENCODINGS}, got {self.keys_as!r}")
        if self.numeric_as not in NUMERIC_ENCODINGS:
            raise CapkitError(
                f"numeric_as must be one of {NUMERIC_ENCODINGS}, got {self.numeric_as!r}")
        if self.distance not in DISTANCES:
            raise CapkitError(f"distance must be one of {DISTANCES}, got {self.distance!r}")
        if self.distance != "gower" and self.method != "nn":
            raise CapkitError("distance applies to the 'nn' attacker only")
        if (self.method == "estimator") != (self.estimator is not None):
            raise CapkitError("an attacker has an estimator exactly when its method is "
                              "'estimator'")
        if self.method == "ensemble" and not self.members:
            raise CapkitError(f"ensemble attacker {self.name!r} has no members")


def _fast(name: str, estimator: BaseEstimator, **options: object) -> Attacker:
    return Attacker(name, "estimator", estimator, compress=True, **options)


#: capkit's attackers by target kind. Classifiers follow the paper's set (random forest, SVM,
#: naive Bayes, k-NN, logistic regression, their hard vote); regressors its numeric set
#: (linear regression, SVR, MLP, their mean) plus random forest and k-NN. ``"ranger"`` is the
#: forest of R's ranger with its defaults, as RAPID (Templ, Thees & Müller 2026) uses it: 500
#: trees fitted on the records, floor(sqrt(p)) keys tried per split, no split of a node under
#: 10 records (classification; 5 for regression), categorical keys as ordered level codes
#: (ranger's ``respect.unordered.factors = "ignore"``), numbers as they are.
REGISTRY: dict[str, dict[str, Attacker]] = {
    CATEGORICAL: {
        "cap": Attacker("cap", "cap"),
        "gcap": Attacker("gcap", "gcap"),
        "nn": Attacker("nn", "nn"),
        "nn_anonymeter": Attacker("nn_anonymeter", "nn", distance="anonymeter"),
        "rf": _fast("rf", RandomForestClassifier(n_estimators=100)),
        "svm": _fast("svm", SVC()),
        "nb": _fast("nb", CategoricalNB(alpha=1.0), keys_as="ordinal", numeric_as="category"),
        "knn": Attacker("knn", "estimator", ExactKNeighborsClassifier(n_neighbors=5)),
        "lr": _fast("lr", TiedLogisticRegression()),
        "ensemble": Attacker("ensemble", "ensemble", members=("rf", "svm", "nb", "knn", "lr")),
        "dummy": Attacker("dummy", "dummy"),
        "ranger": Attacker("ranger", "estimator", RandomForestClassifier(
            n_estimators=500, max_features="sqrt", min_samples_split=10),
            keys_as="ordinal", numeric_as="raw"),
    },
    NUMERIC: {
        "cap": Attacker("cap", "cap"),
        "gcap": Attacker("gcap", "gcap"),
        "nn": Attacker("nn", "nn"),
        "nn_anonymeter": Attacker("nn_anonymeter", "nn", distance="anonymeter"),
        "rf": _fast("rf", RandomForestRegressor(n_estimators=100)),
        "svm": _fast("svm", SVR(), scale_target=True),
        "mlp": _fast("mlp", MLPRegressor(max_iter=500), scale_target=True),
        "knn": Attacker("knn", "estimator", ExactKNeighborsRegressor(n_neighbors=5)),
        "lr": _fast("lr", LinearRegression()),
        "ensemble": Attacker("ensemble", "ensemble", members=("lr", "svm", "mlp")),
        "dummy": Attacker("dummy", "dummy"),
        "ranger": Attacker("ranger", "estimator", RandomForestRegressor(
            n_estimators=500, max_features="sqrt", min_samples_split=5),
            keys_as="ordinal", numeric_as="raw"),
    },
}

#: The attackers of :func:`capkit.attacks.baseline.baseline_table` by default, by target kind
#: (the dummy is always added).
DEFAULT_ATTACKERS: dict[str, tuple[str, ...]] = {
    CATEGORICAL: ("cap", "gcap", "nn", "rf", "svm", "nb", "knn", "lr", "ensemble"),
    NUMERIC: ("cap", "gcap", "nn", "rf", "svm", "mlp", "knn", "lr", "ensemble"),
}


def resolve(attacker: str | BaseEstimator | Attacker, kind: str) -> Attacker:
    """The specification of ``attacker`` for a ``kind`` ("categorical"/"numeric") target.

    A name is looked up in :data:`REGISTRY`; a scikit-learn estimator becomes an
    ``"estimator"`` attacker named after its class (one-hot keys, scaled numeric keys, fitted
    on the records); an :class:`Attacker` is used as it is.

    Raises
    ------
    CapkitError
        An unknown name, a name without a variant for the target's kind (naive Bayes for a
        numeric target), a classifier for a numeric target or a regressor for a categorical one.
    """
    if isinstance(attacker, Attacker):
        spec = attacker
    elif isinstance(attacker, str):
        table = REGISTRY[kind]
        if attacker not in table:
            other = NUMERIC if kind == CATEGORICAL else CATEGORICAL
            if attacker in REGISTRY[other]:
                raise CapkitError(
                    f"attacker {attacker!r} has no variant for a {kind} target; for a {kind} "
                    f"target use one of {sorted(table)}")
            raise CapkitError(f"attacker must be one of {sorted(table)} or a scikit-learn "
                              f"estimator, got {attacker!r}")
        spec = table[attacker]
    elif hasattr(attacker, "fit") and hasattr(attacker, "predict"):
        spec = Attacker(type(attacker).__name__, "estimator", attacker)
    else:
        raise CapkitError(f"attacker must be a name, a scikit-learn estimator or an Attacker, "
                          f"got {type(attacker).__name__}")
    if spec.method == "estimator":
        classifier, regressor = is_classifier(spec.estimator), is_regressor(spec.estimator)
        if kind == NUMERIC and classifier:
            raise CapkitError(
                f"attacker {spec.name!r} is a classifier but the target is numeric: use a "
                "regressor, or pass kind='categorical' to treat the target's values as classes")
        if kind == CATEGORICAL and regressor:
            raise CapkitError(f"attacker {spec.name!r} is a regressor but the target is "
                              "categorical: use a classifier")
    return spec


def seeded(spec: Attacker, seed: int) -> BaseEstimator:
    """A fresh clone of the attacker's estimator with ``random_state`` set to ``seed``."""
    model = clone(spec.estimator)
    if "random_state" in model.get_params():
        model.set_params(random_state=seed)
    return model


def with_options(spec: Attacker, **changes: object) -> Attacker:
    """A copy of ``spec`` with some fields changed (e.g. ``compress=False``)."""
    return replace(spec, **changes)


__all__ = ["DEFAULT_ATTACKERS", "REGISTRY", "Attacker", "resolve", "seeded", "with_options"]
