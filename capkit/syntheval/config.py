"""SynthEval 1.7.3's analysis configuration and presets, as far as its privacy metrics read them.

``AnalysisConfig(dataset, target_vars, confounder_vars=None, sensitive_vars=None,
auto_exclusive=False)`` has SynthEval's signature (``syntheval.utils.configuration``); among the
privacy metrics only ``att_discl`` reads it (its ``sensitive_vars``). A plain column name works
as in SynthEval (the target of the utility metrics; ``att_discl`` then has no sensitive
variable and gives NaN). Nothing is written to disk (SynthEval writes
``SE_analysis_config.json`` for a plain-string target).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from capkit.errors import CapkitError

#: The privacy entries of SynthEval's presets, in their order (utility entries are named in
#: :data:`UTILITY_ENTRIES` and skipped with a warning).
PRESETS: dict[str, dict[str, dict]] = {
    "privacy": {"nndr": {}, "nnaa": {"n_resample": 30}, "dcr": {},
                "hit_rate": {"thres_percent": 0.0333}, "eps_risk": {},
                "mia": {"num_eval_iter": 5}, "att_discl": {}},
    "full_eval": {"nndr": {}, "nnaa": {"n_resample": 30}, "dcr": {},
                  "hit_rate": {"thres_percent": 0.0333}, "eps_risk": {},
                  "mia": {"num_eval_iter": 5}},
    "fast_eval": {"nnaa": {"n_resample": 30}, "hit_rate": {"thres_percent": 0.0333}},
}

#: Utility metrics of those presets (not measured by capkit).
UTILITY_ENTRIES = {
    "privacy": ("p_mse",),
    "full_eval": ("dwm", "pca", "cio", "corr_diff", "mi_diff", "ks_test", "h_dist", "p_mse",
                  "q_mse", "auroc_diff", "cls_acc", "fio"),
    "fast_eval": ("dwm", "pca", "cio", "ks_test", "h_dist", "auroc_diff"),
}


class AnalysisConfig:
    """SynthEval's analysis target: target, confounder and sensitive variables.

    Parameters
    ----------
    dataset
        The data the variables belong to (their names are checked against its columns).
    target_vars
        Column name(s) of the analysis target(s) (not used by the privacy metrics).
    confounder_vars
        Column name(s), or a dict target -> list (kept for compatibility).
    sensitive_vars
        Column name(s) whose disclosure ``att_discl`` measures; ``None`` means every column
        (SynthEval's ``all_sensitive_fallback``).
    auto_exclusive
        Kept for compatibility.
    """

    def __init__(self, dataset: pd.DataFrame, target_vars: str | Sequence[str],
                 confounder_vars: str | Sequence[str] | dict | None = None,
                 sensitive_vars: str | Sequence[str] | None = None,
                 auto_exclusive: bool = False) -> None:
        if not isinstance(dataset, pd.DataFrame):
            raise CapkitError(f"dataset must be a pandas DataFrame, got {type(dataset).__name__}")
        self.target_vars = list(target_vars) if isinstance(target_vars, list) else [target_vars]
        for var in self.target_vars:
            if var not in dataset.columns:
                raise CapkitError(f"target variable {var!r} is not a column of dataset")
        if isinstance(confounder_vars, str):
            confounders = {var: [confounder_vars] for var in self.target_vars}
        elif isinstance(confounder_vars, dict):
            confounders = {k: list(v) for k, v in confounder_vars.items()}
        elif confounder_vars is None:
            confounders = {var: [] for var in self.target_vars}
        else:
            confounders = {var: list(confounder_vars) for var in self.target_vars}
        self.confounder_vars = {k: [c for c in v if c != k] for k, v in confounders.items()}
        self.auto_exclusive = auto_exclusive
        if sensitive_vars is None:
            self.sensitive_vars: list = [None]
        else:
            self.sensitive_vars = (list(sensitive_vars) if isinstance(sensitive_vars, list)
                                   else [sensitive_vars])
            unknown = [v for v in self.sensitive_vars if v not in dataset.columns]
            if unknown:
                raise CapkitError(f"sensitive variable {unknown[0]!r} is not a column of dataset")

    def __repr__(self) -> str:
        return (f"AnalysisConfig(target_vars={self.target_vars!r}, "
                f"sensitive_vars={self.sensitive_vars!r})")


def target_columns(analysis_target: object, columns: Sequence[str]) -> list[str]:
    """The columns a plain ``analysis_target`` names (a column name or a list of them).

    SynthEval turns a plain string (or list) into ``AnalysisConfig(target_vars=...,
    sensitive_vars=[])``: it names the analysis target of the utility metrics and no sensitive
    variable. A name that is not a column is an error (SynthEval: KeyError)."""
    names = [analysis_target] if isinstance(analysis_target, str) else list(analysis_target)
    if not names:
        raise CapkitError("analysis_target is an empty list")
    unknown = [n for n in names if n not in columns]
    if unknown:
        raise CapkitError(f"analysis_target names {unknown[0]!r}, not a column of real")
    return names


def sensitive_columns(analysis_target: object, columns: Sequence[str],
                      all_sensitive_fallback: bool) -> list[str]:
    """The columns ``att_discl`` predicts.

    A plain column name (or list of names) as ``analysis_target`` names the target of the
    utility metrics and no sensitive variable: SynthEval then returns NaN for every output of
    ``att_discl``, and so does capkit (an empty list here; the caller warns).
    """
    if analysis_target is None:
        raise CapkitError("att_discl needs analysis_target=AnalysisConfig(real, target_vars=..., "
                          "sensitive_vars=[...]) (sensitive_vars=None: every column)")
    if isinstance(analysis_target, (str, list, tuple)):
        target_columns(analysis_target, columns)
        return []
    if not isinstance(analysis_target, AnalysisConfig):
        raise CapkitError(
            f"att_discl: analysis_target must be a column name or an AnalysisConfig, got "
            f"{type(analysis_target).__name__}")
    if analysis_target.sensitive_vars == [None]:
        if not all_sensitive_fallback:
            raise CapkitError("att_discl: no sensitive variables given and "
                              "all_sensitive_fallback=False")
        return list(columns)
    unknown = [c for c in analysis_target.sensitive_vars if c not in columns]
    if unknown:
        raise CapkitError(f"att_discl: sensitive variable {unknown[0]!r} is not a column of real")
    if not analysis_target.sensitive_vars:
        raise CapkitError("att_discl: sensitive_vars is empty")
    return list(analysis_target.sensitive_vars)


__all__ = ["PRESETS", "UTILITY_ENTRIES", "AnalysisConfig", "sensitive_columns", "target_columns"]
