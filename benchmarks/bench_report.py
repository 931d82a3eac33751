"""Time of the custodian's report on Adult: members, holdout and 3 syntheses (CART, bootstrap +
1% noise, independent columns), per measure family (``capkit.audit.Audit.timings``).

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_report.py [ROWS]`` (default: every Adult
record with an income, 5/7 members, 2/7 holdout). The CART synthesis is made first and not
timed in the report.
"""

from __future__ import annotations

import sys
import time

from capkit import datasets
from capkit.audit import audit
from capkit.data.split import holdout_split
from capkit.synth import syn
from capkit.synth.baselines import bootstrap_with_noise, independent_columns


def main(rows: int | None) -> None:
    adult = datasets.load_adult(progress=False).dropna(subset=["income"]).reset_index(drop=True)
    members, holdout = holdout_split(adult, holdout=2 / 7, rows=rows, seed=1)
    start = time.perf_counter()
    cart = syn(members, seed=1, progress=False).syn[0]
    print(f"CART synthesis of {len(members)} members: {time.perf_counter() - start:.1f} s")
    named = {"CART": cart, "bootstrap": bootstrap_with_noise(members, seed=1),
             "independent": independent_columns(members, seed=1)}
    start = time.perf_counter()
    result = audit(members, named, holdout=holdout, seed=1)
    total = time.perf_counter() - start
    print(f"report: {len(members)} members, {len(holdout)} holdout, 3 syntheses: {total:.1f} s")
    for family, seconds in sorted(result.timings.items(), key=lambda kv: -kv[1]):
        print(f"  {family:20s} {seconds:6.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else None)
