"""Is the k-d tree's growth on DOMIAS's squared distance a matter of cache misses or of work?

On a noisy bootstrap of Adult's raw numeric columns (``bench_growth.py``'s ``adult`` case: 1.5 n
scored records, n synthetic ones), each scored record's two nearest (``cKDTree.query(k=2)``)
and MC's few nearest within the radius (``k=1..8``, ``distance_upper_bound``), timed two ways:
streaming (every query once, in order of their sums, as ``capkit.distance.squared`` visits
them) and hot (blocks of 2,000 consecutive queries, each block searched four times in a row and
the best taken: the nodes and points a block touches are then in the processor's caches).
If cache misses made the cost per query grow with n, the hot time would stay flat while the
streaming one grows; if it is the search's work, both grow alike. Each for the median-split
tree (scipy's default) and the sliding-midpoint tree (``balanced_tree=False``), on the targets
in the given order and permuted into the tree's leaf order (each leaf's points contiguous),
with the queries in order of their sums or in a k-d tree's leaf order of the queries.

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/tree_cache.py --sizes 100000 1000000``
(CPU microseconds per query, best of 2; ``--write`` keeps the lines in
``results/tree_cache_adult.txt``).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from bench_growth import frames
from scipy.spatial import cKDTree

HERE = Path(__file__).resolve().parent


def _best(call, repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


def lines_for(n: int) -> list[str]:
    members, synthetic, holdout = frames("adult", n)
    numeric = [c for c in members.columns if pd.api.types.is_numeric_dtype(members[c])]
    x = pd.concat([members, holdout])[numeric].to_numpy(dtype=float)
    g = synthetic[numeric].to_numpy(dtype=float)
    by_sum = np.ascontiguousarray(x[np.argsort(x.sum(axis=1), kind="stable")])
    by_leaf = np.ascontiguousarray(x[cKDTree(x, balanced_tree=False).indices])
    reach = float(np.median(cKDTree(g).query(by_sum[::10], k=1)[0])) * (1 + 2e-9)
    block = 2000
    starts = np.linspace(0, len(x) - block, 30).astype(int)
    searches = {"k=2": {"k": 2}, "k<=8 in radius": {"k": list(range(1, 9)),
                                                    "distance_upper_bound": reach}}
    out = []
    for balanced in (True, False):
        tree = cKDTree(g, balanced_tree=balanced)
        leaf_tree = cKDTree(np.ascontiguousarray(g[tree.indices]), balanced_tree=balanced)
        for data, t in (("given", tree), ("leaf order", leaf_tree)):
            for order, q in (("sums", by_sum), ("leaf order", by_leaf)):
                for name, kw in searches.items():
                    stream = _best(lambda t=t, q=q, kw=kw: t.query(q, p=2, **kw))
                    hot = 0.0
                    for s in starts:
                        part = q[s:s + block]
                        t.query(part, p=2, **kw)
                        hot += _best(lambda t=t, part=part, kw=kw: t.query(part, p=2, **kw), 3)
                    per_hot = hot / (len(starts) * block) * 1e6
                    out.append(f"n={n:,} {'median' if balanced else 'sliding'} split, targets "
                               f"{data}, queries by {order}, {name}: streaming "
                               f"{stream / len(q) * 1e6:.3f}, hot {per_hot:.3f} us/query")
                    print(out[-1], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    lines = [line for n in args.sizes for line in lines_for(n)]
    lines.append(f"load average {os.getloadavg()[0]:.1f}")
    print(lines[-1])
    if args.write:
        (HERE / "results" / "tree_cache_adult.txt").write_text(
            "# benchmarks/tree_cache.py (CPU microseconds per query; 2 shared cores)\n"
            + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
