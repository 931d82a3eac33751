"""Run SynthEval 1.7.3 on drawn cases (runs in SynthEval's own venv; see peer_cases.py).

For each seed: draw real / holdout / synthetic tables (draw.py), then call SynthEval as a user
would, after ``numpy.random.seed(seed)``: one call with every privacy metric under each
distance (Gower and Euclid), so the random stream flows through nnaa, mia and att_discl, and
Euclid's eps_risk in a call without holdout (with one SynthEval fails). Stores inputs, calls
and SynthEval's raw and key results in ``<out>/syntheval_<seed>.json.gz``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import draw  # noqa: E402


def settings(seed: int) -> dict:
    rng = np.random.default_rng(10_000 + seed)
    return {"n_real": int(rng.integers(60, 160)), "n_holdout": int(rng.integers(30, 80)),
            "syn_ratio": float(rng.choice([0.4, 1.0, 1.5, 2.5])),
            "twins": int(rng.integers(0, 6)), "copies": float(rng.choice([0.0, 0.2, 0.5])),
            "missing": float(rng.choice([0.0, 0.0, 0.05])),
            "cat_cols": ["c1", "c2", "k"] if rng.random() < 0.7 else None,
            "sensitive": [["c1"], ["c1", "count"], ["half"]][int(rng.integers(0, 3))]}


def run_call(SynthEval, AnalysisConfig, tables, *, seed, holdout, nn_distance, cat_cols,
             missing_directive, metrics, target) -> dict:
    real = tables["real"]
    config = None
    if target is not None:
        config = (target if isinstance(target, str) else
                  AnalysisConfig(dataset=real, target_vars="c1", sensitive_vars=target))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        se = SynthEval(real, holdout_dataframe=tables["holdout"] if holdout else None,
                       cat_cols=cat_cols, nn_distance=nn_distance,
                       missing_directive=missing_directive, verbose=False, console="off",
                       enable_plots=False)
        np.random.seed(seed)  # noqa: NPY002 - SynthEval draws from the global state
        key = se.evaluate(tables["synthetic"], analysis_target=config, **metrics)
    return {"seed": seed, "holdout": holdout, "nn_distance": nn_distance, "cat_cols": cat_cols,
            "missing_directive": missing_directive, "metrics": metrics,
            "target": target, "raw": se._raw_results,
            "key": None if key is None else key.to_dict(orient="records"),
            "printed": printed.getvalue()[-2000:]}


def main() -> None:
    args = draw.arguments()
    import syntheval
    from syntheval import SynthEval
    from syntheval.utils.configuration import AnalysisConfig

    for seed in args.seeds:
        s = settings(seed)
        tables = draw.draw_case(seed, n_real=s["n_real"], n_holdout=s["n_holdout"],
                                syn_ratio=s["syn_ratio"], twins=s["twins"],
                                copies=s["copies"], missing=s["missing"])
        directive = "drop" if s["missing"] else "raise"
        every = {"nndr": {}, "nnaa": {"n_resample": 5}, "dcr": {},
                 "hit_rate": {"thres_percent": 1 / 30}, "eps_risk": {},
                 "mia": {"num_eval_iter": 3}, "att_discl": {}}
        calls = []
        for distance in ("gower", "euclid"):
            metrics = dict(every)
            if distance == "euclid":
                metrics.pop("eps_risk")
            calls.append(run_call(SynthEval, AnalysisConfig, tables, seed=seed, holdout=True,
                                  nn_distance=distance, cat_cols=s["cat_cols"],
                                  missing_directive=directive, metrics=metrics,
                                  target=s["sensitive"]))
        calls.append(run_call(SynthEval, AnalysisConfig, tables, seed=seed + 1, holdout=False,
                              nn_distance="euclid", cat_cols=s["cat_cols"],
                              missing_directive=directive,
                              metrics={"eps_risk": {}, "nnaa": {"n_resample": 4}, "dcr": {}},
                              target=None))
        calls.append(run_call(SynthEval, AnalysisConfig, tables, seed=seed, holdout=False,
                              nn_distance="gower", cat_cols=s["cat_cols"],
                              missing_directive=directive, metrics={"att_discl": {}},
                              target="c1"))
        case = {"peer": "syntheval", "version": syntheval.__version__ if hasattr(
                    syntheval, "__version__") else "1.7.3", "seed": seed, "settings": s,
                "tables": {k: draw.to_json(v) for k, v in tables.items()}, "calls": calls}
        path = args.out / f"syntheval_{seed}.json.gz"
        draw.write_case(path, case)
        print(path, flush=True)


if __name__ == "__main__":
    main()
