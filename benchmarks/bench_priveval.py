"""PrivEval's 17 privacy metrics on one Online Shoppers release: capkit.priveval, and PrivEval
itself in the same run.

Data: PrivEval's ``real.csv`` (11,097 records) and one release (``--release``, default
``tabsyn``), from :func:`capkit.data.priveval_data.load_priveval` (``CAPKIT_DATA``). capkit runs
``metrics(real, release, variant=...)`` once (the 17 metrics share their nearest-record
searches) and then each metric alone, printing the seconds of each.

Peer: with ``--peer-python /work/peers/priveval/venv/bin/python`` (a separate venv with pandas,
scikit-learn, scipy, lightgbm, saiph, faiss-cpu and joblib) and ``--peer-code`` (a folder
holding PrivEval's ``get_metric_results.py`` and ``Metrics/`` of one commit: 379d742 for the
published numbers, 2aecac8 for today's code; never part of capkit), PrivEval's own
``get_metric_results`` runs on the same frames, built as its ``get_results.py`` builds them, with
its own per-metric timing; the two columns of numbers are printed side by side.

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_priveval.py [--peer-python ...
--peer-code ...]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import pandas as pd

from capkit.data.priveval_data import load_priveval, priveval_file
from capkit.priveval import METRICS, metrics

PEER_SCRIPT = """
import json, sys, time
import numpy as np, pandas as pd
from sklearn.preprocessing import LabelEncoder
sys.path.insert(0, sys.argv[1])
import get_metric_results as gmr
df = pd.read_csv(sys.argv[2], index_col=False)
syn_df = pd.read_csv(sys.argv[3], index_col=False)
all_data = pd.concat([df, syn_df], ignore_index=True)
encoded = {}
for col in all_data.select_dtypes(include=['object', 'bool']).columns:
    if all_data[col].dtype == 'bool':
        encoded[col] = all_data[col].astype(int)
    else:
        encoded[col] = LabelEncoder().fit_transform(all_data[col].astype(str))
for col in all_data.select_dtypes(exclude=['object', 'bool']).columns:
    encoded[col] = all_data[col]
labels = pd.DataFrame(encoded)
real_labels, syn_labels = labels[:len(df)], labels[len(df):]
times = {}
for name in dir(gmr):
    module = getattr(gmr, name)
    if hasattr(module, 'calculate_metric'):
        original = module.calculate_metric
        def wrapped(*a, _f=original, _n=name, **k):
            start = time.perf_counter()
            try:
                return _f(*a, **k)
            finally:
                times[_n] = time.perf_counter() - start
        module.calculate_metric = wrapped
start = time.perf_counter()
result = gmr.get_metric_results(df, syn_df, real_labels, syn_labels,
                                sensitive_attributes=['Revenue'])
total = time.perf_counter() - start
print(json.dumps({"total": total, "times": times,
                  "values": dict(zip(result['Metric'], result['Result']))}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--release", default="tabsyn")
    parser.add_argument("--variant", default="published", choices=["published", "priveval",
                                                                   "capkit"])
    parser.add_argument("--each", action="store_true", help="also time each metric alone")
    parser.add_argument("--peer-python", default=None)
    parser.add_argument("--peer-code", default=None)
    args = parser.parse_args()
    real, release = load_priveval("real"), load_priveval(args.release)
    start = time.perf_counter()
    ours = metrics(real, release, variant=args.variant)
    total = time.perf_counter() - start
    print(f"capkit.priveval, variant={args.variant!r}, real {len(real):,} x release "
          f"{args.release} {len(release):,}: 17 metrics in one call {total:.1f} s")
    if args.each:
        for name in METRICS:
            start = time.perf_counter()
            metrics(real, release, variant=args.variant,
                    skip=[m for m in METRICS if m != name])
            print(f"  {name:40s} alone {time.perf_counter() - start:7.2f} s")
    if not (args.peer_python and args.peer_code):
        print("PrivEval not run (--peer-python and --peer-code)")
        print(ours.round(4).to_string())
        return
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "peer.py"
        script.write_text(PEER_SCRIPT)
        done = subprocess.run(
            [args.peer_python, str(script), str(Path(args.peer_code).resolve()),
             str(priveval_file("real")), str(priveval_file(args.release))],
            capture_output=True, text=True, check=True, cwd=args.peer_code)
    peer = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"PrivEval ({args.peer_code}), same run: {peer['total']:.1f} s "
          f"(x{peer['total'] / total:.1f} capkit's)")
    table = pd.DataFrame({"PrivEval": pd.Series(peer["values"]), "capkit": ours.round(4)})
    print(table.loc[list(METRICS)].to_string())
    print("PrivEval's seconds per metric module:",
          {k: round(v, 1) for k, v in sorted(peer["times"].items())})


if __name__ == "__main__":
    main()
