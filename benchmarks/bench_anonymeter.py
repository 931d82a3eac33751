"""anonymeter's singling out, linkability and inference on full Adult: capkit vs anonymeter 1.1.

Compared against the recorded times of anonymeter 1.1 on this machine (oracle timings,
``reference/anonymeter/results.json.gz`` -> ``timings``): anonymeter pins numpy < 1.27 and
cannot be installed next to capkit's numpy, so it is not run here. Its times were taken with
other jobs on the second core (upper bounds); its "all records" cases were stopped after 600 s.

Data (the oracle's ``timings.setup``): the 45,222 complete Adult records (13 columns: the
paper's 14 without ``income``), ``numpy.random.default_rng(20261123).permutation``: members =
the first 40,222, holdout = the last 5,000 (the oracle gives the sizes; this split is capkit's
reading of them); synthetic = the complete rows (45,204) of synthpop's
``adult_band/syn_seed1.csv.gz`` (``--syn``; ``reference/synthpop/adult_band`` by default).
Adult comes from :func:`capkit.datasets.load_adult` (``CAPKIT_DATA``).

Cases (anonymeter's call -> capkit's):

* linkability, aux (age, workclass, fnlwgt, education, marital.status, race) /
  (occupation, relationship, sex, capital.gain, capital.loss, hours.per.week, native.country),
  k = 5, with the control: 500 sampled records (anonymeter 31.0 s) and every record
  (anonymeter > 600 s); target < 10 s;
* singling out, multivariate, 500 queries, 3 columns, with the control (anonymeter 107 s;
  target < 10 s), also with ``anonymeter_compat=True`` (anonymeter's own draws), and capkit's
  ``n_attacks=None`` (every synthetic record attacked once; anonymeter cannot do "all");
* inference, aux (age, workclass, education, race, sex, hours.per.week, native.country),
  secret marital.status, with the control: 500 sampled records (anonymeter 4.8 s) and every
  record (anonymeter 439 s); target < 5 s;
* singling out, univariate, 500 queries (anonymeter 1.5 s; target < 1 s) and all queries
  (anonymeter with n_attacks = 40,222: 20.4 s).

Run: ``CAPKIT_DATA=/folder/with/the/data .venv/bin/python benchmarks/bench_anonymeter.py``
(``--out benchmarks/results/anonymeter.csv`` writes the table).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from capkit.attacks import inference_attack, linkability, singling_out
from capkit.data.datasets import ADULT_PAPER_VARIABLES, load_adult

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = [c for c in ADULT_PAPER_VARIABLES if c != "income"]
AUX = (["age", "workclass", "fnlwgt", "education", "marital.status", "race"],
       ["occupation", "relationship", "sex", "capital.gain", "capital.loss", "hours.per.week",
        "native.country"])
INFERENCE = (["age", "workclass", "education", "race", "sex", "hours.per.week",
              "native.country"], "marital.status")


def load(syn_path: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(members, holdout, synthetic), text as text and integers as int64 in all three."""
    adult = load_adult(progress=False)[COLUMNS].dropna().reset_index(drop=True)
    order = np.random.default_rng(20261123).permutation(len(adult))
    members = adult.iloc[order[:40_222]].reset_index(drop=True)
    holdout = adult.iloc[order[40_222:]].reset_index(drop=True)
    synthetic = pd.read_csv(syn_path)[COLUMNS].dropna().reset_index(drop=True)

    def plain(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.astype({c: object if not pd.api.types.is_numeric_dtype(frame[c])
                             else "int64" for c in frame.columns})

    return plain(members), plain(holdout), plain(synthetic)


def recorded() -> dict[tuple[str, str], float | None]:
    """anonymeter's recorded seconds per (evaluator, n_attacks); None when it timed out."""
    with gzip.open(ROOT / "reference" / "anonymeter" / "results.json.gz", "rt") as handle:
        runs = json.load(handle)["timings"]["runs"]
    out = {}
    for run in runs:
        key = (run["evaluator"], "500" if run["n_attacks"] == 500 else "all")
        out[key] = None if run.get("timed_out") else run["elapsed_s"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--syn", type=Path, default=ROOT / "reference" / "synthpop" /
                        "adult_band" / "syn_seed1.csv.gz")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    members, holdout, synthetic = load(args.syn)
    print(f"Adult: {len(members):,} members, {len(holdout):,} holdout, {len(synthetic):,} "
          f"synthetic records, {len(COLUMNS)} columns; load average before the run "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    peer = recorded()
    cases = [
        ("inference", "500", 5.0, lambda: inference_attack(
            members, synthetic, *INFERENCE, control=holdout, n_attacks=500)),
        ("inference", "all", 5.0, lambda: inference_attack(
            members, synthetic, *INFERENCE, control=holdout, progress=True)),
        ("linkability", "500", 10.0, lambda: linkability(
            members, synthetic, AUX, n_neighbors=5, control=holdout, n_attacks=500)),
        ("linkability", "all", 10.0, lambda: linkability(
            members, synthetic, AUX, n_neighbors=5, control=holdout, progress=True)),
        ("singling_out_multivariate", "500", 10.0, lambda: singling_out(
            members, synthetic, n_attacks=500, control=holdout)),
        ("singling_out_multivariate", "500 (anonymeter_compat)", 10.0, lambda: singling_out(
            members, synthetic, n_attacks=500, control=holdout, anonymeter_compat=True)),
        ("singling_out_multivariate", "n_attacks=None (one try per synthetic record)", None,
         lambda: singling_out(members, synthetic, control=holdout)),
        ("singling_out_univariate", "500", 1.0, lambda: singling_out(
            members, synthetic, mode="univariate", n_attacks=500, control=holdout)),
        ("singling_out_univariate", "all", 1.0, lambda: singling_out(
            members, synthetic, mode="univariate", control=holdout)),
    ]
    rows = []
    for evaluator, size, target, run in tqdm(cases, desc="cases"):
        start = time.perf_counter()
        result = run()
        seconds = time.perf_counter() - start
        theirs = peer.get((evaluator, size.split()[0]))
        timed_out = (evaluator, size.split()[0]) in peer and theirs is None
        if target is None:  # capkit's "all" is another attack than anonymeter's: no ratio
            theirs, timed_out = None, False
        rows.append({
            "case": f"{evaluator} {size}", "capkit_s": round(seconds, 2),
            "anonymeter_s": ">600 (timed out)" if timed_out else (
                "not comparable" if target is None else round(theirs, 1)),
            "speed-up": (f">{600 / seconds:.0f}x" if timed_out else
                         f"{theirs / seconds:.0f}x" if theirs else ""),
            "target_s": target, "met": "" if target is None else seconds < target,
            "attacks": getattr(result, "n_attacks", None) if not hasattr(result, "n_queries")
            else result.n_queries, "successes": result.n_success, "control": result.n_control,
            "risk": round(result.risk, 4),
        })
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False))
    print("anonymeter: recorded times of anonymeter 1.1 on this machine (oracle timings), "
          "not run here (it needs numpy < 1.27).")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
