"""Membership inference on one release of Adult: every attack and its metrics, and DOMIAS's KDE
against scipy's ``gaussian_kde`` (what domias 0.0.5 calls) on the same inputs, in one run.

Data: Adult (the paper's 14 columns), a seeded permutation of its 48,842 records: 16,000
members, 16,000 holdout (scored non-members), 16,000 reference records. One synthesis of the
members with capkit's CART (``capkit.synth.syn``, seed 1; timed apart, not part of the goal).

Timed (best of ``--repeat``):

* ``scores`` with every attack (capkit's Gower distance; DOMIAS on the six numeric columns) and
  ``metrics`` of all of them: the goal is < 5 s together; each attack alone is timed too;
* DOMIAS's densities: capkit's ``kde`` (fit on 16,000 synthetic and 16,000 reference records,
  evaluated at the 32,000 scored records, on the 5 numeric columns) vs ``scipy.stats.gaussian_kde``
  on the same C-ordered arrays (once: it is slow). capkit's ``kde.density`` evaluates through
  scipy's compiled loop; its independent numpy version ``kde.blocked_density`` is timed too.
  The goal (>= 100 x faster than domias 0.0.5) is printed with the measured ratio; domias
  itself adds only a division to scipy's two calls.

``--out benchmarks/results/membership_inference.csv`` writes the table.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from _common import timed

from capkit.data.datasets import ADULT_PAPER_VARIABLES, load_adult
from capkit.membership_inference import ATTACKS, kde, metrics, scores


def make_data(n: int, seed: int):
    adult = load_adult(progress=False)[list(ADULT_PAPER_VARIABLES)]
    order = np.random.default_rng(seed).permutation(len(adult))
    parts = [adult.iloc[order[i * n:(i + 1) * n]].reset_index(drop=True) for i in range(3)]
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=16_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-scipy", action="store_true", help="skip scipy's KDE timing")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    members, holdout, reference = make_data(args.rows, seed=20261125)
    from capkit.synth import syn

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthetic = syn(members, seed=1, progress=False).syn[0]
    t_syn = time.perf_counter() - start
    print(f"Adult: {len(members):,} members, {len(holdout):,} holdout, {len(reference):,} "
          f"reference, {members.shape[1]} columns; CART synthesis {t_syn:.1f} s")
    options = {"overlap": "allow"}  # Adult holds a few identical records of different people

    def everything():
        out = scores(members, holdout, synthetic, reference, **options)
        return out, metrics(out)

    everything()  # compile the kernels once
    rows = []
    t_all, (per_record, table) = timed(everything, args.repeat)
    print(f"all attacks + metrics: {t_all:.2f} s (best of {args.repeat}); goal < 5 s: "
          f"{'met' if t_all < 5 else 'NOT met'}")
    print(table.round(4).to_string())
    print("notes:", *per_record.attrs["notes"], sep="\n  ")
    rows.append({"case": "all attacks + metrics", "capkit_s": round(t_all, 2), "peer_s": "",
                 "speed-up": "", "target": "< 5 s", "met": t_all < 5})
    for attack in ATTACKS:
        t, _ = timed(lambda a=attack: scores(members, holdout, synthetic, reference,
                                             attacks=(a,), **options), args.repeat)
        print(f"  {attack:15s} {t:6.2f} s")
        rows.append({"case": attack, "capkit_s": round(t, 2), "peer_s": "", "speed-up": "",
                     "target": "", "met": ""})

    columns = per_record.attrs["settings"]["density_columns"]
    x = np.ascontiguousarray(pd.concat([members, holdout])[columns].to_numpy(dtype=float))
    g = np.ascontiguousarray(synthetic[columns].to_numpy(dtype=float))
    r = np.ascontiguousarray(reference[columns].to_numpy(dtype=float))

    def ours():
        return kde.density(kde.fit(g), x), kde.density(kde.fit(r), x)

    t_ours, (p_g, p_r) = timed(ours, args.repeat)
    line = {"case": f"DOMIAS densities ({len(x):,} points, {len(g):,}+{len(r):,} data, "
                    f"{x.shape[1]} columns)", "capkit_s": round(t_ours, 2), "target": ">= 100x"}
    print(f"capkit KDE (p_G and p_R): {t_ours:.2f} s")
    t_blocked, _ = timed(lambda: (kde.blocked_density(kde.fit(g), x),
                                  kde.blocked_density(kde.fit(r), x)), 1)
    print(f"capkit blocked numpy KDE (p_G and p_R): {t_blocked:.2f} s")
    rows.append({"case": "DOMIAS densities, capkit's blocked numpy sum", "capkit_s":
                 round(t_blocked, 2), "peer_s": "", "speed-up": "", "target": "", "met": ""})
    if not args.no_scipy:
        from scipy.stats import gaussian_kde

        start = time.perf_counter()
        s_g = gaussian_kde(np.ascontiguousarray(g.T))(np.ascontiguousarray(x.T))
        s_r = gaussian_kde(np.ascontiguousarray(r.T))(np.ascontiguousarray(x.T))
        t_scipy = time.perf_counter() - start
        rel = max(np.max(np.abs(p_g - s_g) / np.maximum(s_g, 1e-300)),
                  np.max(np.abs(p_r - s_r) / np.maximum(s_r, 1e-300)))
        ratio = t_scipy / t_ours
        print(f"scipy gaussian_kde (domias 0.0.5's density): {t_scipy:.2f} s; capkit "
              f"{ratio:.1f}x faster; goal >= 100x: {'met' if ratio >= 100 else 'NOT met'}; "
              f"max relative difference {rel:.1e}")
        line.update({"peer_s": round(t_scipy, 2), "speed-up": f"{ratio:.1f}x",
                     "met": ratio >= 100})
    rows.append(line)
    if args.out:
        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
