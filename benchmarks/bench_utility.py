"""Speed of capkit.utility on Adult (docs/utility.md).

Data: Adult (48,842 records, the 14 variables synthpop synthesises: ``AdultUCI`` without
``education-num``, names made syntactic) from :func:`capkit.data.datasets.load_adult`
(``CAPKIT_DATA``) and synthpop's own synthesis of it, ``reference/synthpop/adult_band``'s
``syn_seed1`` (``syn(adult, seed = 1, visit.sequence = c(1:12, 14, 13))``).

Cases (best of 3 after a warm-up that compiles the numba tree kernel):

* ``utility.gen`` with CART propensity (rpart, cp = 0.001, minbucket = 5) and no resampling,
  m = 1: target < 5 s;
* the same with synthpop's default 50 permutations (51 trees; no target: R's time for the
  same call is the comparison, about 51 times its single fit);
* ``utility.tables`` one-way (14 tables) and two-way (91 tables) with every statistic:
  target < 2 s for both together.

With ``--sd2011``: every recorded call of ``reference/synthpop_utility/sd2011_m1`` replayed,
next to synthpop 1.9-2's own time for it (``elapsed_s`` in the reference, R 4.2.2 on the
machine that made the oracle: another machine and load, so a rough comparison).

Run: ``CAPKIT_DATA=/folder/with/the/data .venv/bin/python benchmarks/bench_utility.py``
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _common import best_of, timed

from capkit import utility
from capkit.data import datasets
from capkit.papers.raab_nowok_dibben.adult_band import load_adult_band

ROOT = Path(__file__).resolve().parents[1]


def adult_pair():
    """(original, synthetic): Adult's 14 synthesised variables and synthpop's seed-1 synthesis,
    with the synthesis' schema (R's factor levels) given to the original."""
    syn = load_adult_band(ROOT / "reference" / "synthpop" / "adult_band", seeds=[1])[1]
    adult = datasets.load_adult(progress=False)
    adult = adult.drop(columns=[c for c in adult.columns if c.replace("-", ".") not in syn])
    adult.columns = [c.replace("-", ".") for c in adult.columns]
    adult = adult[list(syn.columns)]
    for c in syn.columns:
        if hasattr(syn[c], "cat"):
            adult[c] = adult[c].astype(str).where(adult[c].notna()).astype(syn[c].dtype)
        else:
            adult[c] = adult[c].astype(float)
    return adult, syn


def sd2011_calls() -> None:
    """synthpop's recorded calls on SD2011 (m = 1): capkit's time beside R's."""
    from capkit.papers.raab_nowok_dibben import utility_vignette

    folder = ROOT / "reference" / "synthpop_utility" / "sd2011_m1"
    original, syntheses, recorded = utility_vignette.load_case(folder)
    print(f"{'call':40s} {'R (s)':>8s} {'capkit (s)':>10s}")
    for call_id, rec in recorded["calls"].items():
        if rec["error"] is not None or "ctree" in rec["call"]:
            continue
        function, obj, kwargs = utility_vignette.call_arguments(recorded, call_id)
        run = getattr(utility, function)
        t, _ = timed(lambda: run(syntheses[obj], original, **kwargs), 1)  # noqa: B023
        print(f"{call_id:40s} {rec['elapsed_s']:8.2f} {t:10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--perm", action="store_true", help="also time 50 permutations")
    parser.add_argument("--sd2011", action="store_true",
                        help="only synthpop's recorded SD2011 calls, beside R's times")
    args = parser.parse_args()
    if args.sd2011:
        sd2011_calls()
        return
    orig, syn = adult_pair()
    print(f"Adult: {orig.shape[0]} original x {orig.shape[1]} variables, {len(syn)} synthetic")
    utility.gen(syn.head(2000), orig.head(2000), resamp_method="none")  # compile the kernel
    t, res = timed(lambda: utility.gen(syn, orig, resamp_method="none"), args.repeat)
    print(f"utility.gen cart, no resampling   {t:7.2f} s  (target < 5 s)  "
          f"pMSE {res.pMSE[0]:.6g}  leaves {res.fits[0].n_leaves}")
    t1 = best_of(lambda: utility.tables(syn, orig, tables="oneway", tab_stats="all"),
                 args.repeat)
    t2, two = timed(lambda: utility.tables(syn, orig, tables="twoway", tab_stats="all"),
                    args.repeat)
    print(f"utility.tables one-way (14)        {t1:7.2f} s")
    print(f"utility.tables two-way (91)        {t2:7.2f} s  one + two-way {t1 + t2:.2f} s "
          "(target < 2 s)")
    print("worst two-way tables:", ", ".join(f"{k} {v:.1f}" for k, v in two.worstn.items()))
    if args.perm:
        t, res = timed(lambda: utility.gen(syn, orig, nperms=50, seed=1), 1)
        print(f"utility.gen cart, 50 permutations {t:7.2f} s  S_pMSE {res.S_pMSE[0]:.4g}")


if __name__ == "__main__":
    main()
