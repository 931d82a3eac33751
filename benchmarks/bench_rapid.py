"""RAPID on Adult (capkit.attacks.rapid): where the time goes.

Data: the paper's Adult (Templ, Thees & Müller 2026): the 32,561 records with an income,
fnlwgt and education dropped, income the sensitive attribute, the other 12 columns
quasi-identifiers; one CART synthesis by capkit (timed apart).

Timed, in the same run:

1. the whole :func:`capkit.attacks.rapid.rapid` call with the ``"ranger"`` attacker (500 trees),
   500 bootstrap resamples and 199 permutations;
2. the forest alone: :func:`capkit.attacks.fit.probabilities` on the same grid (fit on the
   synthetic records, class probabilities of every distinct key combination): the floor of
   any implementation that uses this forest;
3. what a Python loop over records costs for the scoring alone: the gains and flags of the
   first ``--loop-rows`` records computed one record at a time from the same probabilities,
   scaled to all records.

The peer, the authors' R code (ranger's forest), is not installed on this machine; the paper
gives no timing to quote.

Usage::

    python benchmarks/bench_rapid.py [--attacker rf] [--loop-rows 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from capkit.attacks.fit import probabilities
from capkit.attacks.grid import prepare
from capkit.attacks.rapid import rapid
from capkit.data import datasets
from capkit.papers.templ_thees_mueller.experiments import adult_frame
from capkit.synth import syn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacker", default="ranger")
    parser.add_argument("--loop-rows", type=int, default=2000)
    args = parser.parse_args()

    adult = adult_frame(datasets.load_adult(progress=False))
    keys = [c for c in adult.columns if c != "income"]
    start = time.perf_counter()
    synthetic = syn(adult, seed=1, progress=False).syn[0]
    print(f"Adult: {len(adult):,} records, {len(keys)} quasi-identifiers; CART synthesis "
          f"{time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    result = rapid(adult, synthetic, keys, "income", attacker=args.attacker, seed=1)
    whole = time.perf_counter() - start
    print(f"rapid({args.attacker!r}, 500 bootstrap, 199 permutations): {whole:.1f} s; "
          f"RAPID {result.rapid:.4f} ({result.at_risk:,} at risk), bootstrap "
          f"[{result.bootstrap_ci[0]:.4f}, {result.bootstrap_ci[1]:.4f}], chosen tau "
          f"{result.threshold_choice.chosen}")

    grid = prepare(adult, synthetic, keys, "income")
    cells = grid.cells("members")
    combos, inverse = np.unique(cells[:, 1], return_inverse=True)
    start = time.perf_counter()
    probs = probabilities(args.attacker, grid, "synthetic", combos, 1)
    forest = time.perf_counter() - start
    print(f"the forest alone (fit + probabilities of {len(combos):,} key combinations): "
          f"{forest:.1f} s = {100 * forest / whole:.0f}% of the whole call")

    per_record = probs[inverse.ravel()]
    codes = cells[:, 0]
    rows = min(args.loop_rows, len(codes))
    start = time.perf_counter()
    flagged = 0
    for i in range(rows):  # the loop RAPID avoids: one record at a time
        b = np.mean(codes == codes[i])
        flagged += (per_record[i, codes[i]] - b) / (1 - b) > 0.3
    loop = (time.perf_counter() - start) * len(codes) / rows
    print(f"scoring by a Python loop over records: {loop:.1f} s for all records (scaled from "
          f"{rows:,}); capkit scores all of them, with bootstrap and permutations, in "
          f"{whole - forest:.1f} s")


if __name__ == "__main__":
    main()
