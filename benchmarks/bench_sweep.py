"""Benchmark: the k-key sweep (:func:`capkit.disclosure.sweep.sweep`) and ``sdc`` on Adult.

Usage (from the repository root, with ``CAPKIT_DATA`` pointing at the data)::

    .venv/bin/python benchmarks/bench_sweep.py
    .venv/bin/python benchmarks/bench_sweep.py --write benchmarks/results/sweep.csv

Data: Adult (arules' ``AdultUCI``, the paper's 14 columns, 48,842 records) as the original and
synthpop's own CART synthesis of it (``reference/synthpop/adult_band``, seed 1) as the synthetic
data. Pool: 8 quasi-identifiers (age, workclass, education, marital.status, occupation,
relationship, race, sex); targets: the 10 of Raab, Nowok & Dibben's Table 1. Timed, best of 3:

- every 3-key combination (56) x 10 targets (476 pairs: a key is never the target);
- k = 2 and 3 (728 pairs);
- k = 3 with a holdout (a random third of Adult as holdout; same synthetic data, so only the
  timing is meaningful);
- for scale, ``disclosure()`` called once per pair on 10 pairs, extrapolated to the 476 pairs of
  the first line (what a loop over pairs of the full measure would cost);
- ``sdc`` removing the replicated uniques on the paper's four keys.

Target: the first line under 5 s.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import warnings
from pathlib import Path

from _common import timed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

POOL = ["age", "workclass", "education", "marital.status", "occupation", "relationship",
        "race", "sex"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, default=None, help="CSV file for the results")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import numpy as np

    from capkit.data import datasets
    from capkit.disclosure import disclosure
    from capkit.disclosure.sweep import sweep
    from capkit.papers.raab_nowok_dibben.adult_band import load_adult_band
    from capkit.papers.raab_nowok_dibben.adult_table1 import ADULT_KEYS, ADULT_TARGETS
    from capkit.synth.sdc import sdc

    data = os.environ.get("CAPKIT_DATA")
    adult = datasets.load_adult(data, progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    synthetic = load_adult_band(ROOT / "reference" / "synthpop" / "adult_band", [1])[1]
    targets = list(ADULT_TARGETS)
    order = np.random.default_rng(0).permutation(len(adult))
    members = adult.iloc[order[: 2 * len(adult) // 3]].reset_index(drop=True)
    holdout = adult.iloc[order[2 * len(adult) // 3:]].reset_index(drop=True)

    rows = []
    warnings.simplefilter("ignore")  # continuous targets (fnlwgt, capital.gain ...)
    for case, call in [
        ("k=3, 8 keys x 10 targets", lambda: sweep(synthetic, adult, POOL, targets, sizes=3)),
        ("k=2,3, 8 keys x 10 targets", lambda: sweep(synthetic, adult, POOL, targets)),
        ("k=3 with holdout", lambda: sweep(synthetic, members, POOL, targets, sizes=3,
                                           holdout=holdout)),
    ]:
        seconds, result = timed(call, args.repeat)
        rows.append({"case": case, "pairs": len(result.table), "seconds": round(seconds, 2)})
        print(f"{case}: {len(result.table)} pairs in {seconds:.2f} s", flush=True)
    sample = sweep(synthetic, adult, POOL, targets, sizes=3).table.head(10)

    def per_pair() -> None:
        for row in sample.to_dict("records"):
            disclosure(synthetic, adult, row["keys"].split(" + "), row["target"])

    seconds, _ = timed(per_pair, 1)
    rows.append({"case": "disclosure() per pair, extrapolated to 476 pairs", "pairs": 476,
                 "seconds": round(seconds / 10 * 476, 1)})
    print(f"disclosure() per pair: {seconds / 10:.3f} s each, {seconds / 10 * 476:.0f} s for "
          "476 pairs", flush=True)
    seconds, result = timed(lambda: sdc(synthetic, adult, list(ADULT_KEYS),
                                        rm_replicated_uniques=True), args.repeat)
    rows.append({"case": f"sdc rm_replicated_uniques ({len(result.removed)} removed)",
                 "pairs": "", "seconds": round(seconds, 3)})
    print(f"sdc: {len(result.removed)} removed in {seconds:.3f} s", flush=True)
    if args.write:
        with args.write.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["case", "pairs", "seconds"])
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
