"""Spread over seeds of the synthetic side of Table 1 (Adult) of the synthpop paper.

Run (from the project root, ``CAPKIT_DATA`` pointing at the folder with ``AdultUCI.rda``)::

    .venv/bin/python benchmarks/adult_band.py --source capkit   # -> results/adult_band.csv
    .venv/bin/python benchmarks/adult_band.py --source r        # -> results/adult_band_r.csv

The paper (Raab, Nowok & Dibben, Table 1) gives no seed for its Adult synthesis, so its
synthetic-side numbers can only be compared with a band. For seeds 1..N this script takes one
synthesis of Adult's 14 paper variables with ``visit.sequence = c(1:12, 14, 13)``:

* ``--source r``: synthpop 1.9-2's own synthesis, read from ``reference/synthpop/adult_band``
  (:func:`capkit.papers.raab_nowok_dibben.adult_band.load_adult_band`);
* ``--source capkit``: capkit's, made here by
  :func:`~capkit.papers.raab_nowok_dibben.adult_band.synthesise_adult` (seed s);

measures Table 1 on it in both modes (``compat``: ``synthpop_compat=True``, synthpop's
``multi.disclosure`` rules, as the paper's numbers were made; ``default``: capkit's corrected
rules) with :func:`~capkit.papers.raab_nowok_dibben.adult_band.band_rows`, and writes one row per
(source, mode, seed, target, exclusion, side) to a CSV that ``notebooks/06_adult.ipynb`` reads
(side ``orig`` = Dorig, ``syn`` = DiSCO; ``flags`` = 1 if check_1way flagged the target + 2 if
check_2way did, ``npairs`` = pairs check_2way flagged, both without exclusions; ``absent`` = how
many of a numeric target's original values the synthesis lacks, which decides whether quirk Q4
mis-pairs it). A sidecar
``<out>.json`` records the command, the capkit commit, the seeds and the times. It prints the time
of each step and, at the end, each mode's band (min-max over seeds) next to the paper's value.
The notebook recomputes one seed and checks that it obtains the stored rows, so a stale file is
detected.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from capkit.data import datasets
from capkit.papers.raab_nowok_dibben.adult_band import (
    MODES,
    band_rows,
    load_adult_band,
    paper_in_band,
    synthesise_adult,
)
from capkit.papers.raab_nowok_dibben.adult_table1 import EXCLUSIONS

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_OUT = {"capkit": RESULTS / "adult_band.csv", "r": RESULTS / "adult_band_r.csv"}


def _commit() -> str:
    """The capkit commit the band was made with (``unknown`` outside a git checkout)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, check=True, capture_output=True, text=True).stdout
        return head + ("+dirty" if dirty.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=["capkit", "r"], default="capkit",
                        help="whose syntheses: capkit's own (made here) or synthpop's (read)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 1..N (default 10)")
    parser.add_argument("--reference", default=str(ROOT / "reference" / "synthpop" / "adult_band"),
                        help="synthpop's syntheses (--source r)")
    parser.add_argument("--out", default=None, help="CSV to write (default: results/"
                        "adult_band.csv for capkit, results/adult_band_r.csv for r)")
    args = parser.parse_args()
    out = Path(args.out) if args.out else DEFAULT_OUT[args.source]
    adult = datasets.load_adult(progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    seeds = list(range(1, args.seeds + 1))
    peer = {}
    if args.source == "r":
        meta = datasets.read_reference_json(args.reference)
        peer = {int(s): v["elapsed_s"] for s, v in meta["syntheses"].items()}
    parts, times = [], []
    start_all = time.perf_counter()
    for seed in seeds:
        start = time.perf_counter()
        if args.source == "r":
            synthetic = load_adult_band(args.reference, [seed])[seed]
        else:
            synthetic = synthesise_adult(adult, seed)
        made = time.perf_counter() - start
        start = time.perf_counter()
        parts.append(band_rows(synthetic, adult, source=args.source, seed=seed))
        measured = time.perf_counter() - start
        times.append({"seed": seed, "synthesis_s": round(made, 2),
                      "table1_both_modes_s": round(measured, 2)})
        what = (f"read synthpop's synthesis in {made:.1f} s (R made it in {peer[seed]:.1f} s)"
                if args.source == "r" else f"syn() on Adult {adult.shape} in {made:.1f} s")
        print(f"seed {seed}: {what}; Table 1 in {len(MODES)} modes in {measured:.1f} s",
              flush=True)
    total = time.perf_counter() - start_all
    band = pd.concat(parts, ignore_index=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    band.to_csv(out, index=False, float_format="%.17g")
    command = (".venv/bin/python benchmarks/adult_band.py "
               f"--source {args.source} --seeds {args.seeds}"
               + (f" --out {args.out}" if args.out else ""))
    sidecar = {
        "command": command,
        "capkit_commit": _commit(),
        "source": args.source,
        "seeds": seeds,
        "modes": {m: {"synthpop_compat": c} for m, c in MODES.items()},
        "total_s": round(total, 1),
        "times": times,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "platform": sys.platform},
    }
    if peer:
        sidecar["r_synthesis_s"] = {str(s): peer[s] for s in seeds}
    Path(f"{out}.json").write_text(json.dumps(sidecar, indent=1) + "\n")
    print(f"wrote {out} and {out}.json")
    mean_syn = sum(t["synthesis_s"] for t in times) / len(times)
    mean_tab = sum(t["table1_both_modes_s"] for t in times) / len(times)
    print(f"{len(seeds)} seeds in {total:.0f} s: synthesis {mean_syn:.1f} s a seed, Table 1 in "
          f"both modes {mean_tab:.1f} s a seed"
          + (f" (R's own syntheses took {sum(peer[s] for s in seeds) / len(seeds):.0f} s a seed)"
             if peer else ""))
    for mode in MODES:
        spread = paper_in_band(band, mode)
        print(f"\nmode {mode!r}: DiSCO over seeds {seeds[0]}..{seeds[-1]} against the paper")
        with pd.option_context("display.width", 140, "display.max_rows", 100):
            print(spread.unstack("exclusion").swaplevel(axis=1)[list(EXCLUSIONS)]
                  .round(2).to_string())
        print(f"paper's value inside the band: {int(spread['inside'].sum())} of {len(spread)}")


if __name__ == "__main__":
    main()
