"""``SynthEval``: SynthEval 1.7.3's evaluation object for its privacy metrics, number for number.

``SynthEval(real, holdout_dataframe=..., cat_cols=..., nn_distance='gower', ...)`` and
``evaluate(synthetic, <metric>={options}, analysis_target=..., presets_file=...)`` take
SynthEval's arguments (Lautrup et al., "SynthEval: a framework for detailed utility and privacy
evaluation of tabular synthetic data", Data Mining and Knowledge Discovery 2025) and return its
"key results" table (columns ``metric, dim, val, err, n_val, n_err``); the raw outputs are in
``raw_results`` (also ``_raw_results``, SynthEval's name), with SynthEval's keys.

The metrics are computed by capkit's measures: :mod:`capkit.distance.neighbour_risk` (``dcr``,
``nndr``, ``nnaa``, ``hit_rate``, ``eps_risk``), :mod:`capkit.attacks.forest_disclosure`
(``att_discl``) and :mod:`capkit.syntheval.mia` (``mia``). With ``compat=True`` (the default)
they run with SynthEval's choices, bugs included, so the numbers equal SynthEval's
(``docs/syntheval-differences.md``); ``compat=False`` uses capkit's corrected defaults.

Randomness: SynthEval draws from NumPy's global random state; here every call takes ``seed``
(default 0), a legacy ``RandomState`` that flows through the metrics in call order as the global
state does, so ``numpy.random.seed(s); SE.evaluate(...)`` in SynthEval equals
``evaluate(..., seed=s)`` here. Errors are raised (SynthEval prints them and drops the metric).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from capkit.distance import neighbour_risk as nr
from capkit.distance.neighbours import Encoded, joint_encode, legacy_state
from capkit.errors import CapkitError
from capkit.syntheval.config import PRESETS, UTILITY_ENTRIES, sensitive_columns, target_columns

NN_DISTANCES = ("gower", "euclid")
METRICS = ("dcr", "nndr", "nnaa", "hit_rate", "eps_risk", "mia", "att_discl")
OPTIONS = {"dcr": (), "nndr": (), "nnaa": ("n_resample",), "hit_rate": ("thres_percent",),
           "eps_risk": (), "mia": ("num_eval_iter", "classifier"),
           "att_discl": ("numerical_dist_thresh", "all_sensitive_fallback")}
COLUMNS = ["metric", "dim", "val", "err", "n_val", "n_err"]
NAN = float("nan")


def categorical_columns(real: pd.DataFrame, unique_threshold: int) -> list[str]:
    """SynthEval's inference: text, object and categorical columns, and numeric (or boolean)
    columns with fewer than ``unique_threshold`` distinct values."""
    out = []
    for column in real.columns:
        series = real[column]
        if not pd.api.types.is_numeric_dtype(series) or isinstance(series.dtype,
                                                                   pd.CategoricalDtype):
            out.append(column)
        elif series.nunique() < unique_threshold:
            out.append(column)
    return out


def _missing(frame: pd.DataFrame, name: str, directive: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    if len(frame) == 0:
        raise CapkitError(f"{name} is empty (0 rows)")
    if frame.columns.duplicated().any():
        raise CapkitError(f"{name} has duplicated column names")
    if not frame.isna().to_numpy().any():
        return frame
    if directive == "drop":
        kept = frame.dropna().reset_index(drop=True)
        if len(kept) == 0:
            raise CapkitError(f"{name} has a missing value in every row")
        return kept
    columns = frame.columns[frame.isna().any()].tolist()
    raise CapkitError(f"{name} has missing values in {columns}; impute them or pass "
                      "missing_directive='drop'")


class SynthEval:
    """SynthEval 1.7.3's ``SynthEval`` for its privacy metrics.

    Parameters
    ----------
    real_dataframe
        The real (training) data.
    holdout_dataframe
        Real records not used to make the synthetic data (needed by ``mia``; with it ``nndr``,
        ``nnaa`` and ``eps_risk`` also report a privacy loss).
    cat_cols
        Categorical columns (default: inferred as SynthEval does, see
        :func:`categorical_columns`).
    nn_distance
        ``'gower'`` (SynthEval's default) or ``'euclid'`` (:mod:`capkit.syntheval.euclid`:
        every encoded column, categorical codes unscaled, as SynthEval). SynthEval's
        ``'EXPERIMENTAL_gower'`` is not measured by capkit (an error).
    unique_threshold
        For the inference of categorical columns.
    missing_directive
        ``'raise'`` (an error naming the columns) or ``'drop'`` (rows with a missing value are
        dropped). SynthEval's ``'ignore'`` breaks its encoding; capkit refuses it.
    verbose, enable_plots, console, timeout, show_warnings
        Accepted for compatibility; capkit prints and plots nothing and runs no timer.
    compat
        True: SynthEval's choices, its bugs included (the same numbers; ``mia`` with
        SynthEval's LightGBM classifier). False: capkit's corrected choices
        (``docs/syntheval-differences.md``; ``mia`` with scikit-learn's histogram gradient
        boosting unless ``mia={"classifier": ...}`` says otherwise).
    """

    def __init__(self, real_dataframe: pd.DataFrame, holdout_dataframe: pd.DataFrame | None = None,
                 cat_cols: list[str] | None = None, nn_distance: str = "gower",
                 unique_threshold: int = 10, missing_directive: str = "raise",
                 verbose: bool = True, enable_plots: bool = True, console: str = "rich",
                 timeout: int | None = None, show_warnings: bool = True, *,
                 compat: bool = True) -> None:
        if nn_distance not in NN_DISTANCES:
            raise CapkitError(f"nn_distance={nn_distance!r} is not measured by capkit; use "
                              "'gower' (SynthEval's default) or 'euclid'")
        if missing_directive not in ("raise", "drop"):
            raise CapkitError("missing_directive must be 'raise' or 'drop', got "
                              f"{missing_directive!r}")
        self.missing_directive = missing_directive
        self.real = _missing(real_dataframe, "real_dataframe", missing_directive)
        columns = list(self.real.columns)
        if holdout_dataframe is not None:
            _missing(holdout_dataframe, "holdout_dataframe", "drop")
            if sorted(map(str, holdout_dataframe.columns)) != sorted(map(str, columns)):
                raise CapkitError("holdout_dataframe must have the columns of real_dataframe: "
                                  f"{columns}")
            self.hold_out = _missing(holdout_dataframe[columns], "holdout_dataframe",
                                     missing_directive)
        else:
            self.hold_out = None
        if cat_cols is None:
            cat_cols = categorical_columns(real_dataframe, unique_threshold)
        unknown = [c for c in cat_cols if c not in columns]
        if unknown:
            raise CapkitError(f"cat_cols names {unknown[0]!r}, not a column of real_dataframe")
        self.categorical_columns = list(cat_cols)
        self.numerical_columns = [c for c in columns if c not in set(cat_cols)]
        self.nn_dist = nn_distance
        self.compat = bool(compat)
        self.verbose, self.enable_plots, self.console = verbose, enable_plots, console
        self.timeout, self.show_warnings = timeout, show_warnings
        self._raw_results: dict[str, dict] = {}

    @property
    def raw_results(self) -> dict[str, dict]:
        """The last call's raw outputs, by metric keyword (SynthEval's ``_raw_results``)."""
        return self._raw_results

    def _encode(self, synthetic: pd.DataFrame) -> tuple[Encoded, Encoded, Encoded | None]:
        columns = list(self.real.columns)
        cats = [c for c in columns if c in set(self.categorical_columns)]
        frames = [self.real, synthetic] + ([self.hold_out] if self.hold_out is not None else [])
        encoded = joint_encode(frames, cats, self.numerical_columns)
        return encoded[0], encoded[1], encoded[2] if self.hold_out is not None else None

    def evaluate(self, synthetic_dataframe: pd.DataFrame, analysis_target: object = None,
                 presets_file: str | None = None, *, seed: int | np.random.RandomState = 0,
                 **kwargs: Mapping) -> pd.DataFrame:
        """Run the privacy metrics named by keyword (``dcr={}``, ``nnaa={'n_resample': 30}``,
        ...) and the privacy entries of ``presets_file`` ('privacy', 'full_eval',
        'fast_eval'), presets first, in keyword order.

        Returns
        -------
        pandas.DataFrame
            SynthEval's key results: one or two rows per metric, columns
            ``metric, dim, val, err, n_val, n_err`` (NaN where SynthEval leaves a cell empty).

        Raises
        ------
        CapkitError
            An unknown metric keyword or option, a synthetic table with other columns, a metric
            that cannot run (``mia`` without holdout, ``att_discl`` without sensitive
            variables), bad option values.
        """
        if "analysis_target_var" in kwargs:  # SynthEval's deprecated alias
            alias = kwargs.pop("analysis_target_var")
            analysis_target = alias if analysis_target is None else analysis_target
        columns = list(self.real.columns)
        if isinstance(analysis_target, (str, list, tuple)):
            target_columns(analysis_target, columns)  # SynthEval parses it for every metric
        synthetic = _missing(synthetic_dataframe, "synthetic_dataframe", self.missing_directive)
        if sorted(map(str, synthetic.columns)) != sorted(map(str, columns)):
            raise CapkitError(f"synthetic_dataframe must have the columns of real_dataframe: "
                              f"{columns}")
        synthetic = synthetic[columns]  # by name (SynthEval compares by position)
        config = self._config(presets_file, kwargs)
        real, syn, hold = self._encode(synthetic)
        state = legacy_state(seed)
        raw: dict[str, dict] = {}
        rows: list[dict] = []
        for metric, options in config.items():
            result, key = self._run(metric, dict(options), real, syn, hold, synthetic,
                                    analysis_target, state)
            raw[metric] = result
            rows.extend(key)
        self._raw_results = raw
        table = pd.DataFrame(rows, columns=COLUMNS)
        return table.astype({c: float for c in COLUMNS[2:]})

    def _config(self, presets_file: str | None, kwargs: Mapping) -> dict[str, dict]:
        loaded: dict[str, dict] = {}
        if presets_file is not None:
            if presets_file not in PRESETS:
                raise CapkitError(f"presets_file must be one of {sorted(PRESETS)}, got "
                                  f"{presets_file!r}")
            loaded = {k: dict(v) for k, v in PRESETS[presets_file].items()}
            warnings.warn(f"capkit.syntheval measures privacy metrics only; the preset's "
                          f"utility entries {list(UTILITY_ENTRIES[presets_file])} are skipped",
                          stacklevel=3)
        config = {**loaded, **kwargs}
        for metric, options in config.items():
            if metric not in METRICS:
                raise CapkitError(f"unknown metric keyword {metric!r}: capkit.syntheval "
                                  f"measures SynthEval's privacy metrics {list(METRICS)}")
            if not isinstance(options, Mapping):
                raise CapkitError(f"{metric} needs a dict of options, got {options!r}")
            bad = [o for o in options if o not in OPTIONS[metric]]
            if bad:
                raise CapkitError(f"{metric}: unknown option {bad[0]!r}; options are "
                                  f"{list(OPTIONS[metric])}")
        return config

    def _run(self, metric: str, options: dict, real: Encoded, syn: Encoded,
             hold: Encoded | None, synthetic: pd.DataFrame, analysis_target: object,
             state: np.random.RandomState) -> tuple[dict, list[dict]]:
        rule = "content" if self.compat else "identity"
        if self.nn_dist == "euclid" and metric in ("dcr", "nndr", "nnaa", "eps_risk"):
            return self._run_euclid(metric, options, real, syn, hold, state, rule)
        if metric == "dcr":
            value = nr.median_dcr_ratio(real, syn, self_rule=rule,
                                        zero_internal="syntheval" if self.compat else "inf")
            return {"mDCR": value}, [_row("median_DCR", value, NAN, float(np.tanh(value)), NAN)]
        if metric == "nndr":
            out = nr.nndr(real, syn, hold, per="real" if self.compat else "synthetic",
                          self_rule=rule)
            return out, self._nndr_rows(out, hold is not None)
        if metric == "nnaa":
            out = nr.nnaa(real, syn, hold, n_resample=options.get("n_resample", 30),
                          seed=state, self_rule=rule)
            return out, self._nnaa_rows(out, hold is not None)
        if metric == "hit_rate":
            value = nr.hitting_rate(real, syn, options.get("thres_percent", 1 / 30))
            return {"hit rate": value}, [_row("hit_rate", value, NAN, 1 - value, NAN)]
        if metric == "eps_risk":
            return self._eps(real, syn, hold)
        if metric == "mia":
            if hold is None:
                raise CapkitError("mia needs holdout_dataframe (SynthEval 1.7.3 prints an error "
                                  "and drops the metric)")
            from capkit.syntheval.mia import mia_classifier  # scikit-learn: imported when used

            order = [[c for c in self.real.columns if c in set(self.categorical_columns)]
                     .index(c) for c in self.categorical_columns]
            out = mia_classifier(real, syn, hold, cat_order=order,
                                 num_eval_iter=options.get("num_eval_iter", 5),
                                 classifier=options.get(
                                     "classifier",
                                     "lightgbm" if self.compat else "hist_gradient_boosting"),
                                 seed=state)
            precision, recall = out["MIA precision"], out["MIA recall"]
            return out, [_row("mia_recall", recall, out["MIA recall se"], 1 - recall,
                              out["MIA recall se"]),
                         _row("mia_precision", precision, out["MIA precision se"],
                              1 - 2 * abs(0.5 - precision), out["MIA precision se"])]
        return self._att_discl(options, synthetic, analysis_target, state)

    def _data_order(self) -> np.ndarray:
        columns = list(self.real.columns)
        cats = [c for c in columns if c in set(self.categorical_columns)]
        position = {c: i for i, c in enumerate(cats + self.numerical_columns)}
        return np.array([position[c] for c in columns])

    def _run_euclid(self, metric: str, options: dict, real: Encoded, syn: Encoded,
                    hold: Encoded | None, state: np.random.RandomState, rule: str
                    ) -> tuple[dict, list[dict]]:
        from capkit.syntheval import euclid as eu  # scipy.stats: imported when used

        if metric == "eps_risk":
            if hold is not None:
                raise CapkitError(
                    "eps_risk with nn_distance='euclid' and a holdout fails in SynthEval 1.7.3 "
                    "(its weights are sized for the numeric columns, the holdout is not cut to "
                    "them); run eps_risk without holdout_dataframe, or with 'gower'")
            value = eu.eps_risk(real.num, syn.num, self_rule=rule)["eps_risk"]
            return {"eps_risk": value}, [_row("eps_identif_risk", value, NAN, 1 - value, NAN)]
        order = self._data_order()
        r, s = eu.columns(real, order), eu.columns(syn, order)
        h = None if hold is None else eu.columns(hold, order)
        if metric == "dcr":
            value = eu.median_dcr_ratio(r, s, self_rule=rule,
                                        zero_internal="syntheval" if self.compat else "inf")
            return {"mDCR": value}, [_row("median_DCR", value, NAN, float(np.tanh(value)), NAN)]
        if metric == "nndr":
            out = eu.nndr(r, s, h, per="real" if self.compat else "synthetic", self_rule=rule)
            return out, self._nndr_rows(out, hold is not None)
        out = eu.nnaa(r, s, h, n_resample=options.get("n_resample", 30), seed=state,
                      self_rule=rule)
        return out, self._nnaa_rows(out, hold is not None)

    def _nndr_rows(self, out: dict, holdout: bool) -> list[dict]:
        key = [_row("avg_nndr", out["avg"], out["err"], out["avg"], out["err"])]
        if holdout:
            key.append(_row("priv_loss_nndr", out["priv_loss"], out["priv_loss_err"],
                            1 - abs(out["priv_loss"]),
                            out["err"] if self.compat else out["priv_loss_err"]))
        return key

    @staticmethod
    def _nnaa_rows(out: dict, holdout: bool) -> list[dict]:
        key = [_row("nnaa", out["avg"], out["err"], 1 - out["avg"], out["err"], dim="u")]
        if holdout:
            key.append(_row("priv_loss_nnaa", out["priv_loss"], out["priv_loss_err"],
                            1 - abs(out["priv_loss"]), out["priv_loss_err"]))
        return key

    def _eps(self, real: Encoded, syn: Encoded, hold: Encoded | None
             ) -> tuple[dict, list[dict]]:
        order = self._data_order()
        raw_numeric = None if self.compat else self.real[self.numerical_columns].to_numpy()
        weights, total = nr.entropy_weights(real, order, raw_numeric=raw_numeric)
        out = nr.epsilon_identifiability(
            real, syn, hold, weights=weights, total=total,
            self_rule="content" if self.compat else "identity",
            holdout_denominator="real" if self.compat else "holdout")
        key = [_row("eps_identif_risk", out["eps_risk"], NAN, 1 - out["eps_risk"], NAN)]
        if hold is not None:
            key.append(_row("priv_loss_eps", out["priv_loss"], NAN, 1 - abs(out["priv_loss"]),
                            NAN))
        return out, key

    def _att_discl(self, options: dict, synthetic: pd.DataFrame, analysis_target: object,
                   state: np.random.RandomState) -> tuple[dict, list[dict]]:
        sensitive = sensitive_columns(analysis_target, list(self.real.columns),
                                      options.get("all_sensitive_fallback", True))
        names = {"accuracy": "Attr Dis accuracy", "precision": "Attr Dis precision",
                 "recall": "Attr Dis recall", "f1": "Attr Dis macro F1"}
        if not sensitive:
            warnings.warn(f"att_discl: analysis_target={analysis_target!r} names the analysis "
                          "target, not a sensitive variable, so every output is NaN (as in "
                          "SynthEval 1.7.3); pass AnalysisConfig(real, target_vars=..., "
                          "sensitive_vars=[...]) to measure attribute disclosure", stacklevel=4)
            out = {n + suffix: NAN for n in names.values() for suffix in ("", " se")}
            return out, [_row("att_discl_risk", NAN, NAN, NAN, NAN)]
        from capkit.attacks.forest_disclosure import forest_disclosure  # scikit-learn

        result = forest_disclosure(self.real, synthetic, sensitive, self.categorical_columns,
                                   holdout=self.hold_out,
                                   numeric_tolerance=options.get("numerical_dist_thresh",
                                                                 1 / 30),
                                   seed=state)
        summary = result.summary()
        out = {}
        for key, name in names.items():
            out[name] = summary[key]
            out[name + " se"] = summary[key + " se"]
        accuracy, se = out["Attr Dis accuracy"], out["Attr Dis accuracy se"]
        return out, [_row("att_discl_risk", accuracy, se, 1 - accuracy, se)]


def _row(metric: str, val: float, err: float, n_val: float, n_err: float, dim: str = "p"
         ) -> dict:
    return {"metric": metric, "dim": dim, "val": val, "err": err, "n_val": n_val,
            "n_err": n_err}


__all__ = ["COLUMNS", "METRICS", "SynthEval", "categorical_columns"]
