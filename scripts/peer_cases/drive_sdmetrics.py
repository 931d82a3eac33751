"""Run SDMetrics 0.32's categorical attacker metrics on drawn cases (in SDMetrics' own venv).

For each seed: draw real and synthetic tables (draw.py; text and integer categoricals, missing
text values, ties everywhere), then call each metric as a user would, after
``numpy.random.seed(seed)`` (the random forest draws from the global state): CategoricalCAP,
ZeroCAP, GeneralizedCAP, KNN, NB, RF, SVM and the Ensemble (all five attackers, and three), for
two or three key sets. Also records a fingerprint of numpy's ``argpartition`` on tied values:
k-NN's neighbour ties are broken by it, and its answer depends on numpy's CPU dispatch
(x86-simd-sort with AVX-512 or AVX2, or the generic introselect). The orchestrator runs this
under each dispatch it can select (``NPY_DISABLE_CPU_FEATURES``); each run adds its variant.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import draw  # noqa: E402

METRICS = ("CategoricalCAP", "CategoricalZeroCAP", "CategoricalGeneralizedCAP",
           "CategoricalKNN", "CategoricalNB", "CategoricalRF", "CategoricalSVM")
ENSEMBLES = {"all5": ["CAPAttacker", "CategoricalNBAttacker", "CategoricalKNNAttacker",
                      "CategoricalRFAttacker", "CategoricalSVMAttacker"],
             "svm_nb_knn": ["CategoricalSVMAttacker", "CategoricalNBAttacker",
                            "CategoricalKNNAttacker"]}


def argpartition_fingerprint() -> str:
    """Which k-smallest indices numpy's argpartition picks among tied float64 values (as
    k-NN's brute search calls it: kth = 4), hashed; the same definition as the tests'."""
    picks = []
    for n, levels in ((64, 3), (200, 4), (1000, 5)):
        values = (np.arange(n) * 7 % levels).astype(np.float64)
        picks.append(sorted(int(i) for i in np.argpartition(values, 4)[:5]))
    return hashlib.sha256(json.dumps(picks).encode()).hexdigest()[:16]


def settings(seed: int) -> dict:
    rng = np.random.default_rng(20_000 + seed)
    return {"n_real": int(rng.integers(80, 220)), "syn_ratio": float(rng.choice([0.5, 1.0, 1.5])),
            "copies": float(rng.choice([0.0, 0.3])), "missing": float(rng.choice([0.0, 0.08]))}


KEYSETS = [(["c1", "k"], ["c2"]), (["c1", "c2", "k"], ["count"]),
           (["k", "count"], ["c1", "c2"])]


def main() -> None:
    args = draw.arguments()
    import sdmetrics
    import sdmetrics.single_table.privacy as privacy
    from sdmetrics.single_table.privacy import cap, categorical_sklearn

    attacker_classes = {name: getattr(cap, name, None) or getattr(categorical_sklearn, name)
                        for names in ENSEMBLES.values() for name in names}

    fingerprint = argpartition_fingerprint()
    for seed in args.seeds:
        path = args.out / f"sdmetrics_{seed}.json.gz"
        if path.exists():
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                case = json.load(handle)
        else:
            s = settings(seed)
            tables = draw.draw_case(seed, n_real=s["n_real"], n_holdout=10,
                                    syn_ratio=s["syn_ratio"], twins=0, copies=s["copies"],
                                    missing=s["missing"])
            for name in ("real", "synthetic"):  # categoricals only; half is not used
                tables[name] = tables[name][["c1", "c2", "k", "count"]]
            case = {"peer": "sdmetrics", "version": sdmetrics.__version__, "seed": seed,
                    "settings": s,
                    "tables": {k: draw.to_json(tables[k]) for k in ("real", "synthetic")},
                    "calls": [], "variants": {}}
            for keys, sensitive in KEYSETS:
                for metric in METRICS:
                    case["calls"].append({"metric": metric, "keys": keys,
                                          "sensitive": sensitive, "attackers": None})
                for name, attackers in ENSEMBLES.items():
                    case["calls"].append({"metric": "CategoricalEnsemble", "keys": keys,
                                          "sensitive": sensitive, "attackers": attackers,
                                          "ensemble": name})
        real = draw.from_json(case["tables"]["real"])
        syn = draw.from_json(case["tables"]["synthetic"])
        results = []
        for call in case["calls"]:
            metric = getattr(privacy, call["metric"])
            kwargs = {"key_fields": call["keys"], "sensitive_fields": call["sensitive"]}
            if call["attackers"]:
                kwargs["model_kwargs"] = {"attackers": [attacker_classes[a]
                                                        for a in call["attackers"]]}
            np.random.seed(case["seed"])  # noqa: NPY002 - SDMetrics draws from the global state
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    results.append(float(metric.compute(real, syn, **kwargs)))
                except Exception as exc:  # noqa: BLE001 - stored: capkit must fail too
                    results.append(f"error: {type(exc).__name__}: {exc}"[:300])
        case["variants"][fingerprint] = {"numpy": np.__version__, "results": results}
        draw.write_case(path, case)
        print(path, fingerprint, flush=True)


if __name__ == "__main__":
    main()
