"""Speed of capkit.disclosure against a bare pandas groupby count, measured in the same run.

1. ``disclosure_summary`` on Adult (48,842 rows; keys age, occupation, race, sex; the 10 other
   variables of the paper as targets; one synthesis). Target: under 2 s.
2. ``disclosure`` on a 1,000,000-row original and a 1,000,000-row synthetic data set with 4
   keys, per target. Target: under 5 s per target.

The synthetic data are stand-ins (each column shuffled independently with a fixed seed): only
the timing matters here. The peer is what any implementation must at least do: a pandas
``groupby(keys + [target]).size()`` of the original and of the synthetic data (NA kept).

Run: ``CAPKIT_DATA=/folder/with/the/data .venv/bin/python benchmarks/bench_disclosure.py``
(``--quick`` uses 200,000 rows for part 2).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from _common import best_of

from capkit.data import datasets
from capkit.disclosure import disclosure, disclosure_summary


def shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Each column permuted independently: a synthetic stand-in with the same marginals."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: frame[c].to_numpy()[rng.permutation(len(frame))]
                         for c in frame.columns}).astype(frame.dtypes.to_dict())


def groupby_count(frames: list[pd.DataFrame], columns: list[str]) -> None:
    for frame in frames:
        frame.groupby(columns, observed=True, dropna=False).size()


def bench_adult() -> None:
    adult = datasets.load_adult(progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    keys = ["age", "occupation", "race", "sex"]
    targets = [c for c in adult.columns if c not in keys]
    syn = shuffled(adult, seed=1)
    ours = best_of(lambda: disclosure_summary(syn, adult, keys, targets))
    peer = best_of(lambda: [groupby_count([adult, syn], keys + [t]) for t in targets])
    print(f"Adult {len(adult):,} rows, keys {keys}, {len(targets)} targets, one synthesis")
    print(f"  disclosure_summary      {ours:7.3f} s   (goal < 2 s: "
          f"{'met' if ours < 2 else 'NOT met'})")
    print(f"  pandas groupby counts   {peer:7.3f} s   ratio capkit / pandas = {ours / peer:.2f}")


def big_frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    target = rng.choice(["a", "b", "c", "d", "e"], n, p=[0.4, 0.3, 0.15, 0.1, 0.05]).astype(
        object)
    target[rng.random(n) < 0.02] = None
    return pd.DataFrame({
        "age": rng.integers(16, 100, n).astype(float),
        "region": pd.Categorical(rng.integers(0, 16, n).astype(str)),
        "edu": pd.Categorical(rng.choice(["p", "s", "t", "u", "v", "w"], n)),
        "sex": pd.Categorical(rng.choice(["F", "M"], n)),
        "target": pd.Categorical(target, categories=["a", "b", "c", "d", "e"]),
        "income": np.round(rng.lognormal(7, 1, n), -2),
    })


def bench_million(n: int) -> None:
    orig, syn = big_frame(n, 2), big_frame(n, 3)
    keys = ["age", "region", "edu", "sex"]
    print(f"{n:,}-row original and {n:,}-row synthetic, keys {keys}")
    for target in ("target", "income"):
        ours = best_of(lambda t=target: disclosure(syn, orig, keys, t, compare_synorig=False),
                       repeat=2)
        peer = best_of(lambda t=target: groupby_count([orig, syn], keys + [t]), repeat=2)
        print(f"  target {target:7s} disclosure {ours:7.3f} s (goal < 5 s: "
              f"{'met' if ours < 5 else 'NOT met'})   pandas groupby counts {peer:7.3f} s   "
              f"ratio {ours / peer:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200,000 rows in part 2")
    args = parser.parse_args()
    bench_adult()
    bench_million(200_000 if args.quick else 1_000_000)


if __name__ == "__main__":
    main()
