"""Collect the numbers of one SDNist 2.4 report folder into one JSON file (run with SDNist's
Python: pandas is all it needs).

    python collect.py <report folder> <case name> <out.json>
"""

import ast
import json
import re
import sys
from pathlib import Path

import pandas as pd

folder, case, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
report = json.loads((folder / "report.json").read_text())
ui = (folder / "ui.json").read_text()
synopsys = report["k_marginal"]["k_marginal_synopsys"]
puma = pd.read_csv(folder / "k_marginal_synopsys" / "score_in_each_puma.csv", index_col=0)
codes = [ast.literal_eval(p)[0] for p in puma["PUMA"]]
sub = pd.read_csv(folder / "k_marginal_synopsys" / "subsample_error_comparison.csv", index_col=0)
matched = pd.read_csv(folder / "apparent_match_distribution" / "unique_matched_percents.csv",
                      index_col=0)
quasi = re.search(r"Quasi-Identifiers: -Highlight-(\d+) \(([\d.]+)%\)", ui)
counts = matched["percent_match"].value_counts().sort_index()
prop = pd.read_csv(folder / "propensity" / "propensity_distribution.csv", index_col=0)


def frame(path: Path) -> dict:
    f = pd.read_csv(path, index_col=0)
    return {"columns": list(f.columns), "index": list(f.index), "values": f.to_numpy().tolist()}


key = {
    "k_marginal_score": synopsys["k_marginal_score"],
    "sub_sampling_equivalent": synopsys["sub_sampling_equivalent"],
    "k_marginal_score_in_each_puma": dict(zip(codes, puma["Deidentified Data Score"].tolist())),
    "k_marginal_puma_40pct_subsample_baseline": dict(
        zip(codes, puma["40% Target Subsample Baseline"].tolist())),
    "k_marginal_subsample_scores": dict(zip(sub["Sub-Sample Size"],
                                            sub["Sub-Sample K-Marginal Score"].tolist())),
    "unique_exact_matches": report["unique_exact_matches"],
    "apparent_match": {
        "records_matched_on_quasi_identifiers": [int(quasi.group(1)), float(quasi.group(2))],
        "percent_match_counts": {repr(float(v)): int(c) for v, c in counts.items()},
    },
    "pmse": report["propensity mean square error"]["pmse_score"],
    "linear_regression": {
        g: {"target": v["target_regression_slope_and_intercept"],
            "deidentified": v["deidentified_regression_slope_and_intercept"]}
        for g, v in report["linear_regression"].items()},
    "features": [f["Feature Name"] for f in report["data_description"]["features"]],
}
files = {
    "kendall": frame(folder / "correlation_difference" / "correlation_difference.csv"),
    "pearson": frame(folder / "pearson_correlation" / "correlation_difference.csv"),
    "propensity_distribution": prop.to_numpy().tolist(),
}
out.write_text(json.dumps({"case": case, "key_numbers": key, "files": files}, indent=1) + "\n")
