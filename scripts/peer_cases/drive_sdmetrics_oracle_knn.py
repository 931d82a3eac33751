"""SDMetrics' k-NN numbers of the shipped oracle cases (reference/sdmetrics) under this run's
numpy dispatch (runs in SDMetrics' venv; see peer_cases.py ``sdmetrics-oracle-knn``).

The oracle's CategoricalKNN and CategoricalEnsemble cases depend on which tied neighbours
numpy's argpartition keeps (drive_sdmetrics.py); this re-runs their exact ``call`` strings on
the oracle's members and synthetic files and adds the numbers under this machine's fingerprint
to ``<out>/knn_dispatch.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from drive_sdmetrics import argpartition_fingerprint  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    import sdmetrics
    import sdmetrics.single_table.privacy as privacy
    from sdmetrics.single_table.privacy import cap, categorical_sklearn

    namespace = {name: getattr(privacy, name) for name in dir(privacy)}
    namespace.update({name: getattr(module, name) for module in (cap, categorical_sklearn)
                      for name in dir(module) if name.endswith("Attacker")})

    def read(name: str) -> pd.DataFrame:
        return pd.read_csv(args.oracle / name, keep_default_na=False, na_values=[""])

    namespace.update(real=read("members.csv.gz"), syn=read("synthetic.csv.gz"))
    cases = json.loads((args.oracle / "results.json").read_text())["cases"]
    chosen = {k: v for k, v in cases.items()
              if "CategoricalKNN" in v["call"] and not v.get("error")}
    path = args.out / "knn_dispatch.json"
    stored = json.loads(path.read_text()) if path.exists() else {"variants": {}}
    results = {}
    for case_id, case in chosen.items():
        np.random.seed(0)  # noqa: NPY002 - as the oracle
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results[case_id] = repr(float(eval(case["call"], namespace)))  # noqa: S307
    stored["variants"][argpartition_fingerprint()] = {
        "numpy": np.__version__, "sdmetrics": sdmetrics.__version__, "results": results}
    path.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    print(path, argpartition_fingerprint(), results, flush=True)


if __name__ == "__main__":
    main()
