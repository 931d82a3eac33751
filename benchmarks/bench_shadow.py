"""Speed of the generator audit by shadow modelling (capkit.membership_inference.audit_generator).

Run: ``CAPKIT_DATA=/folder/with/the/data .venv/bin/python benchmarks/bench_shadow.py
[--targets 5] [--shadows 100] [--train-size 1000] [--n-jobs 2]``.

The target: 1,000 shadow syntheses of 1,000-record Adult subsets with capkit's CART (default: 5
outlier + 5 random targets x 100 shadow runs), their features and the random-forest
meta-classifier, in under 5 minutes on 2 cores. The outlier ranking of all 48,842 Adult
records (exact nearest other record) is timed apart, since it is done once per data set and
not per synthesis; the audit itself is then timed with those targets given.

Prints the seconds of each part, the syntheses per second, and the per-target table; writes
``benchmarks/results/shadow.json``. With ``--shadows`` below 100 the time of 1,000 syntheses
is also given scaled linearly from the run (said so in the output).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from capkit.data import datasets
from capkit.membership_inference import audit_generator, cart_generator
from capkit.membership_inference.outliers import outlier_distances


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", type=int, default=5, help="k outliers + k random")
    parser.add_argument("--shadows", type=int, default=100, help="shadow runs per target")
    parser.add_argument("--train-size", type=int, default=1000)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()

    adult = datasets.load_adult()
    start = time.perf_counter()
    distance = outlier_distances(adult)
    t_outliers = time.perf_counter() - start
    order = np.lexsort((np.arange(len(adult)), -distance))
    outliers = order[: args.targets]
    rest = np.setdiff1d(np.arange(len(adult)), outliers)
    random = np.sort(np.random.default_rng(0).choice(rest, args.targets, replace=False))
    targets = list(adult.index[np.concatenate([outliers, random])])

    syntheses = 2 * args.targets * args.shadows
    start = time.perf_counter()
    audit = audit_generator(cart_generator(), adult, targets=targets, n_shadows=args.shadows,
                            train_size=args.train_size, n_jobs=args.n_jobs, progress=True)
    t_audit = time.perf_counter() - start
    kinds = ["outlier"] * args.targets + ["random"] * args.targets
    table = audit.per_target.assign(kind=kinds, nn_distance=distance[
        np.concatenate([outliers, random])])
    scaled = t_audit * 1000 / syntheses
    print(f"outlier ranking of {len(adult)} Adult records: {t_outliers:.1f} s (once per data)")
    print(f"audit: {syntheses} CART syntheses of {args.train_size}-record Adult subsets, "
          f"features, meta-classifier, n_jobs={args.n_jobs}: {t_audit:.1f} s "
          f"({syntheses / t_audit:.1f} syntheses/s); per 1,000 syntheses "
          f"{'(scaled linearly) ' if syntheses != 1000 else ''}{scaled:.1f} s "
          f"(target < 300 s)")
    print(f"load average at the end: {os.getloadavg()}")
    print(table.round(3).to_string())
    print(table.groupby("kind").mean(numeric_only=True).round(3).to_string())
    out = Path(__file__).parent / "results" / "shadow.json"
    out.write_text(json.dumps({
        "syntheses": syntheses, "train_size": args.train_size, "n_jobs": args.n_jobs,
        "seconds_outlier_ranking": round(t_outliers, 2), "seconds_audit": round(t_audit, 2),
        "seconds_per_1000_syntheses": round(scaled, 2),
        "load_average": [round(v, 2) for v in os.getloadavg()],
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
