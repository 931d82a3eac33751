"""Build ``report.json.gz`` from the SDNist 2.4 report oracle's ``results.json`` (the numbers
capkit's tests compare with) and copy the CART file. Run from the capkit checkout:

    python reference/sdnist/extract_oracle.py <oracle folder>
"""

import gzip
import hashlib
import json
import shutil
import sys
from pathlib import Path

oracle = Path(sys.argv[1])
here = Path(__file__).resolve().parent
results = json.loads((oracle / "results.json").read_text())
meta = json.loads((oracle / "deid_meta.json").read_text())
KEYS = ("k_marginal_score", "sub_sampling_equivalent", "k_marginal_score_in_each_puma",
        "k_marginal_puma_40pct_subsample_baseline", "k_marginal_subsample_scores",
        "unique_exact_matches", "apparent_match", "pmse", "propensity_score_shown",
        "linear_regression")


def matrix(entry: dict) -> dict:
    return {"columns": entry["header"][1:], "index": [r[0] for r in entry["rows"]],
            "values": [r[1:] for r in entry["rows"]]}


cases = {}
for name, case in results["cases"].items():
    files = case["files"]
    deid = oracle / case["deid_file"]
    cases[name] = {
        "target": case["target"],
        "deid": {**case["deid"]["spec"], "file": case["deid_file"],
                 "csv_sha256": hashlib.sha256(gzip.open(deid).read()).hexdigest()},
        "key_numbers": {k: case["key_numbers"][k] for k in KEYS},
        "files": {
            "kendall": matrix(files["correlation_difference/correlation_difference.csv"]),
            "pearson": matrix(files["pearson_correlation/correlation_difference.csv"]),
            "propensity_distribution": [r[1:] for r in
                                        files["propensity/propensity_distribution.csv"]["rows"]],
        },
    }
out = {"tool": results["tool"], "env": results["env"], "report_seed": results["report_seed"],
       "call": results["call"], "cases": cases}
with gzip.GzipFile(here / "report.json.gz", "wb", mtime=0) as f:
    f.write((json.dumps(out, indent=1, sort_keys=True) + "\n").encode())
shutil.copyfile(oracle / "deid_ma_cart.csv.gz", here / "deid_ma_cart.csv.gz")
print(sorted(cases), meta["ma_cart"]["sha256"])
