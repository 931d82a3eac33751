"""SynthEval 1.7.3's privacy metrics: capkit.syntheval on Adult-sized data, and SynthEval itself
in the same run on smaller data (same numbers, time ratio).

Data: the 30,718 complete Adult records of the SynthEval oracle's 10 columns (age, workclass,
education, marital.status, occupation, race, sex, capital.gain, hours.per.week, income;
:func:`capkit.datasets.load_adult`, ``CAPKIT_DATA``), ``default_rng(1).permutation``: real =
the first ``--n`` records (25,000), holdout = the next ``--holdout`` (5,000); synthetic =
``--n-syn`` (30,000) real records drawn with replacement, numeric columns plus Gaussian noise of
1 % of their sd (the oracle's "bootnoise" recipe, ``default_rng(2)``). Every metric is timed
alone (``evaluate(syn, <metric>={...}, seed=0)``), ``att_discl`` on income and age.

Peer: with ``--peer-python /work/peers/syntheval/venv/bin/python`` (a separate venv with
``syntheval==1.7.3`` and ``lightgbm``) the same metrics run in SynthEval on the first
``--peer-n`` real records (3,000), ``--peer-n // 5`` holdout records and ``--peer-n``
synthetic records, after ``numpy.random.seed(0)``; capkit runs the same tables (``mia`` with
``classifier='lightgbm'`` when LightGBM is installed beside capkit, else its default
classifier), the outputs are compared key by key and the time ratio is printed. SynthEval
is not run at 30k: its Gower distance holds n x n float64 matrices (7 GB each at 30,000) and
``hit_rate`` loops over the real records in Python.

``--first-call`` (with ``--peer-python``): instead, the fresh-process table of
``bench_first_call.py`` (each metric's first and second call in a fresh process, imports
included, against SynthEval's, alternating, best of N, at 3,000 and 10,000 records).

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_syntheval.py [--peer-python ...]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from capkit.data.datasets import load_adult
from capkit.syntheval import AnalysisConfig, SynthEval

COLUMNS = ["age", "workclass", "education", "marital.status", "occupation", "race", "sex",
           "capital.gain", "hours.per.week", "income"]
CAT_COLS = ["workclass", "education", "marital.status", "occupation", "race", "sex", "income"]
NUMERIC = ["age", "capital.gain", "hours.per.week"]
METRICS = {"dcr": {}, "nndr": {}, "nnaa": {"n_resample": 30}, "hit_rate": {},
           "eps_risk": {}, "mia": {"num_eval_iter": 5}, "att_discl": {}}
SENSITIVE = ["income", "age"]

PEER_SCRIPT = """
import json, sys, time
import numpy as np, pandas as pd
from syntheval import SynthEval
from syntheval.utils.configuration import AnalysisConfig
folder, metrics, cat_cols, sensitive = sys.argv[1], json.loads(sys.argv[2]), json.loads(
    sys.argv[3]), json.loads(sys.argv[4])
read = lambda n: pd.read_csv(f"{folder}/{n}.csv", keep_default_na=False, na_values=[""])
real, holdout, syn = read("real"), read("holdout"), read("syn")
out = {}
for metric, options in metrics.items():
    se = SynthEval(real, holdout_dataframe=holdout, cat_cols=cat_cols, verbose=False,
                   enable_plots=False, console="off")
    target = AnalysisConfig(dataset=real, target_vars="income", sensitive_vars=sensitive)
    np.random.seed(0)
    start = time.perf_counter()
    se.evaluate(syn, analysis_target=target, **{metric: options})
    out[metric] = {"seconds": time.perf_counter() - start,
                   "result": se._raw_results.get(metric)}
print(json.dumps(out))
"""


def tables(n: int, n_holdout: int, n_syn: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """real, holdout and a noisy bootstrap of real (module docstring)."""
    adult = load_adult(progress=False)[COLUMNS].dropna().reset_index(drop=True)
    for column in CAT_COLS:
        adult[column] = adult[column].astype(str).astype(object)
    perm = np.random.default_rng(1).permutation(len(adult))
    real = adult.iloc[perm[:n]].reset_index(drop=True)
    holdout = adult.iloc[perm[n:n + n_holdout]].reset_index(drop=True)
    rng = np.random.default_rng(2)
    syn = real.iloc[rng.integers(0, n, n_syn)].reset_index(drop=True)
    for column in NUMERIC:
        syn[column] = syn[column] + rng.normal(0, 0.01 * real[column].std(ddof=1), n_syn)
    return real, holdout, syn


def run_capkit(real: pd.DataFrame, holdout: pd.DataFrame, syn: pd.DataFrame,
               classifier: str) -> dict:
    out = {}
    target = AnalysisConfig(dataset=real, target_vars="income", sensitive_vars=SENSITIVE)
    for metric, options in METRICS.items():
        options = dict(options)
        if metric == "mia":
            options["classifier"] = classifier
        se = SynthEval(real, holdout_dataframe=holdout, cat_cols=CAT_COLS)
        start = time.perf_counter()
        se.evaluate(syn, analysis_target=target, seed=0, **{metric: options})
        out[metric] = {"seconds": time.perf_counter() - start,
                       "result": se.raw_results[metric]}
    return out


def run_peer(python: str, real: pd.DataFrame, holdout: pd.DataFrame, syn: pd.DataFrame
             ) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        for name, frame in (("real", real), ("holdout", holdout), ("syn", syn)):
            frame.to_csv(Path(folder) / f"{name}.csv", index=False, float_format="%.17g")
        script = Path(folder) / "peer.py"
        script.write_text(PEER_SCRIPT)
        done = subprocess.run([python, str(script), folder, json.dumps(METRICS),
                               json.dumps(CAT_COLS), json.dumps(SENSITIVE)],
                              capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _same(a: dict | None, b: dict | None) -> str:
    if a is None or b is None:
        return "no result"
    worst = max(abs(float(a[k]) - float(b[k])) for k in b
                if not (np.isnan(float(a[k])) and np.isnan(float(b[k]))))
    return "equal" if worst == 0 else f"max |diff| {worst:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=25_000)
    parser.add_argument("--holdout", type=int, default=5_000)
    parser.add_argument("--n-syn", type=int, default=30_000)
    parser.add_argument("--peer-python", default=None)
    parser.add_argument("--peer-n", type=int, default=3_000)
    parser.add_argument("--first-call", action="store_true",
                        help="the fresh-process first-call table (bench_first_call.py)")
    parser.add_argument("--out", default=None, help="with --first-call: write the table here")
    args = parser.parse_args()
    if args.first_call:
        if args.peer_python is None:
            parser.error("--first-call needs --peer-python")
        from bench_first_call import run

        run("syntheval", args.peer_python, small=args.peer_n, out=args.out)
        return

    real, holdout, syn = tables(args.n, args.holdout, args.n_syn)
    print(f"capkit.syntheval, real {len(real):,} / holdout {len(holdout):,} / synthetic "
          f"{len(syn):,}")
    big = run_capkit(real, holdout, syn, "hist_gradient_boosting")
    for metric, row in big.items():
        print(f"  {metric:10s} {row['seconds']:8.2f} s")
    print(f"  {'total':10s} {sum(r['seconds'] for r in big.values()):8.2f} s")
    if args.peer_python is None:
        print("SynthEval not run (--peer-python); its recorded times on 1,500 x 1,500 are in "
              "reference/syntheval/results.json.gz (timings)")
        return
    small = tables(args.peer_n, args.peer_n // 5, args.peer_n)
    real_s, holdout_s, syn_s = (f.copy() for f in small)
    # the peer reads CSV files: give capkit exactly the values SynthEval reads
    with tempfile.TemporaryDirectory() as folder:
        for name, frame in (("real", real_s), ("holdout", holdout_s), ("syn", syn_s)):
            frame.to_csv(Path(folder) / f"{name}.csv", index=False, float_format="%.17g")
        real_s, holdout_s, syn_s = (
            pd.read_csv(Path(folder) / f"{n}.csv", keep_default_na=False, na_values=[""],
                        float_precision="round_trip") for n in ("real", "holdout", "syn"))
    peer = run_peer(args.peer_python, real_s, holdout_s, syn_s)
    # SynthEval's LightGBM when installed beside capkit (then mia is equal too)
    classifier = ("lightgbm" if importlib.util.find_spec("lightgbm")
                  else "hist_gradient_boosting")
    ours = run_capkit(real_s, holdout_s, syn_s, classifier)
    print(f"same run, real {len(real_s):,} / holdout {len(holdout_s):,} / synthetic "
          f"{len(syn_s):,}: SynthEval 1.7.3 vs capkit")
    total_peer = total_ours = 0.0
    for metric in METRICS:
        p, o = peer[metric]["seconds"], ours[metric]["seconds"]
        total_peer, total_ours = total_peer + p, total_ours + o
        print(f"  {metric:10s} SynthEval {p:8.2f} s  capkit {o:7.2f} s  x{p / o:7.1f}  "
              f"{_same(ours[metric]['result'], peer[metric]['result'])}")
    print(f"  {'total':10s} SynthEval {total_peer:8.2f} s  capkit {total_ours:7.2f} s  "
          f"x{total_peer / total_ours:7.1f}")


if __name__ == "__main__":
    main()
