"""Spread over seeds of capkit's synthetic-side Table 1 (Adult) of the synthpop paper.

Run: ``CAPKIT_DATA=../shared/data .venv/bin/python benchmarks/adult_band.py [--seeds 5]
[--out benchmarks/results/adult_band.csv]`` (about a minute per seed on 2 shared cores).

The paper (Raab, Nowok & Dibben, Table 1) gives no seed for its Adult synthesis, and synthpop's
own ``syn()`` on Adult does not finish in R within 10 minutes (oracle README), so the paper's
synthetic-side numbers can only be compared with a band. For seeds 1..N this script synthesises
Adult's 14 paper variables once with :func:`capkit.synth.syn` (default CART), computes Table 1
with :func:`capkit.papers.raab_nowok_dibben.adult_table1.exclusion_table` (the paper's
not.targetslev levels) and writes
one row per (seed, target, exclusion, side) to a CSV (side "orig" = Dorig, "syn" = DiSCO,
"flags" = 1 if check_1way flagged the target + 2 if check_2way did, "npairs" = pairs flagged
by check_2way; the last two without exclusions) that ``notebooks/06_adult.ipynb`` reads.
It prints the time of each synthesis and, at the end, the band (min-max over seeds) next to the
paper's value. The notebook re-synthesises one of these seeds and checks that it obtains the
same row values, so a stale CSV is detected.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from capkit.data import datasets
from capkit.papers.raab_nowok_dibben.adult_table1 import (
    ADULT_NOT_TARGETLEV,
    ADULT_TABLE1,
    exclusion_table,
)
from capkit.synth import syn


def band_rows(adult: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, float]:
    """Table 1 of one capkit synthesis of ``adult`` (long form) and the synthesis time."""
    start = time.perf_counter()
    synthetic = syn(adult, m=1, seed=seed, progress=False).syn[0]
    elapsed = time.perf_counter() - start
    table = exclusion_table(synthetic, adult, not_targetlev=ADULT_NOT_TARGETLEV,
                            compare_synorig=False)
    long = table.values.stack(["exclusion", "side"], future_stack=True).rename("value")
    long = long.reset_index()
    long.insert(0, "seed", seed)
    flags = pd.DataFrame({
        "seed": seed, "target": list(table.values.index), "exclusion": "no_excl",
        "side": "flags",
        "value": [2 * (t in table.flagged_2way) + (t in table.flagged_1way)
                  for t in table.values.index]})
    npairs = pd.DataFrame({
        "seed": seed, "target": list(table.values.index), "exclusion": "no_excl",
        "side": "npairs", "value": table.npairs.reindex(table.values.index).to_numpy()})
    return pd.concat([long, flags, npairs], ignore_index=True), elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" /
                                             "adult_band.csv"))
    args = parser.parse_args()
    adult = datasets.load_adult(progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    parts = []
    for seed in range(1, args.seeds + 1):
        rows, elapsed = band_rows(adult, seed)
        parts.append(rows)
        print(f"seed {seed}: syn on Adult {adult.shape} in {elapsed:.1f} s "
              f"({len(adult) / elapsed:,.0f} rows/s)", flush=True)
    band = pd.concat(parts, ignore_index=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    band.to_csv(out, index=False, float_format="%.17g")
    print(f"wrote {out}")
    values = band[band["side"] == "syn"]
    spread = values.groupby(["target", "exclusion"])["value"].agg(["min", "max"])
    paper = ADULT_TABLE1.xs("syn", axis=1, level="side").stack().rename("paper")
    spread = spread.join(paper.rename_axis(["target", "exclusion"]))
    spread["inside"] = (spread["min"].round(2) <= spread["paper"]) & (
        spread["paper"] <= spread["max"].round(2))
    with pd.option_context("display.width", 140, "display.max_rows", 100):
        print(spread.round(2))
    print(f"paper's synthetic value inside the band: {int(spread['inside'].sum())} of "
          f"{len(spread)}")


if __name__ == "__main__":
    main()
