"""Membership-inference attacks one at a time on harder cases than a bootstrap, against another
checkout of capkit in the same run: CPU seconds and whether the scores are identical.

Cases (all from a bootstrap of Adult with 1% noise, ``bench_growth.frames``; needs
``CAPKIT_DATA``): ``adult`` (as is, Gower), ``indep`` (the synthetic columns shuffled
independently: no near copies), ``num`` (the numeric columns only, Gower: one categorical
combination), ``sq`` (the numeric columns, DOMIAS's squared Euclidean distance), ``indep_sq``.

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_mi_cases.py --n 20000 --case sq num
--baseline DIR`` (``DIR`` holding another ``capkit/``). Each measurement is a fresh child
process; the time is ``time.process_time`` around one ``scores(..., attacks=[attack])`` call
after a warm-up call on 5,000 records (compilation outside the timing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ATTACKS = ("dcr", "dcr_diff", "gan_leaks_cal", "mc", "dpi", "classifier")


def case_frames(case: str, n: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict]:
    sys.path.insert(0, str(HERE))
    from bench_growth import frames

    members, synthetic, holdout = frames("adult", n)
    if case.startswith("indep"):
        rng = np.random.default_rng(5)
        synthetic = pd.DataFrame({c: synthetic[c].to_numpy()[rng.permutation(len(synthetic))]
                                  for c in synthetic.columns})
    if case in ("num", "sq", "indep_sq"):
        numeric = [c for c in members.columns if pd.api.types.is_numeric_dtype(members[c])]
        members, synthetic, holdout = (f[numeric].astype(float).fillna(0)
                                       for f in (members, synthetic, holdout))
    return members, synthetic, holdout, ({"distance": "squared_euclidean"}
                                         if case.endswith("sq") else {})


def child(case: str, n: int, attack: str) -> None:
    from capkit.membership_inference import scores

    members, synthetic, holdout, options = case_frames(case, n)
    scores(members.iloc[:5000], holdout.iloc[:3000], synthetic.iloc[:5000], seed=1,
           attacks=[attack], **options)
    start = time.process_time()
    out = scores(members, holdout, synthetic, seed=1, attacks=[attack], **options)
    cpu = time.process_time() - start
    print(json.dumps({"cpu": cpu, "fingerprint": hashlib.sha256(
        out[attack].to_numpy().tobytes()).hexdigest()[:16]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--case", nargs="+", default=["sq", "num", "indep_sq"])
    parser.add_argument("--attacks", nargs="+", default=list(ATTACKS))
    parser.add_argument("--baseline", type=Path, help="another checkout (holding capkit/)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return
    if args.baseline is None:
        parser.error("--baseline is required")
    print(f"# load average {os.getloadavg()[0]:.1f}; CPU seconds, one call each, n={args.n:,}")
    for case in args.case:
        for attack in args.attacks:
            got = {}
            for name, code in (("this", HERE.parent), ("before", args.baseline)):
                done = subprocess.run([sys.executable, __file__, "--child", case, str(args.n),
                                       attack], check=True, capture_output=True, text=True,
                                      env={**os.environ, "PYTHONPATH": str(code)})
                got[name] = json.loads(done.stdout.strip().splitlines()[-1])
            same = got["this"]["fingerprint"] == got["before"]["fingerprint"]
            print(f"{case} {attack}: this {got['this']['cpu']:.2f}, before "
                  f"{got['before']['cpu']:.2f} CPU-s, "
                  f"{got['before']['cpu'] / max(got['this']['cpu'], 1e-9):.1f}x, scores "
                  f"{'identical' if same else 'DIFFERENT'}", flush=True)


if __name__ == "__main__":
    main()
