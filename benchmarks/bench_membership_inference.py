"""Membership inference on one release of Adult: every attack and its metrics, and DOMIAS's KDE
against scipy's ``gaussian_kde`` (what domias 0.0.5 calls) on the same inputs, in one run.

Data: Adult (the paper's 14 columns), a seeded permutation of its 48,842 records: 16,000
members, 16,000 holdout (scored non-members), 16,000 reference records. One synthesis of the
members with capkit's CART (``capkit.synth.syn``, seed 1; timed apart, not part of the goal).

Timed (best of ``--repeat``):

* ``scores`` with every attack (capkit's Gower distance; DOMIAS on the six numeric columns) and
  ``metrics`` of all of them: the goal is < 5 s together; each attack alone is timed too;
* DOMIAS's densities: capkit's ``kde`` (fit on 16,000 synthetic and 16,000 reference records,
  evaluated at the 32,000 scored records, on the 5 numeric columns) with its default threads and
  with one, against scipy's compiled loop on the same fitted estimate (what capkit ran before
  its own loop) and a fresh ``scipy.stats.gaussian_kde`` on the same C-ordered arrays (what
  domias 0.0.5 calls; domias itself adds only a division to scipy's two calls). The goal
  (>= 100 x faster than domias 0.0.5) is printed with the measured ratio, and whether capkit's
  densities are bit-identical to scipy's loop;
* ``--one-thread``: everything again with DOMIAS's densities on one thread (capkit's code
  before the threaded loop did the same arithmetic on one thread);
* ``--analysis``: why an exact density cannot be 100 times faster on these data: distinct
  rows (summing identical rows once) and the share of kernel terms that are negligible.
  ``--blocked`` also times capkit's independent numpy sum (``kde.blocked_density``; slow).

``--out benchmarks/results/membership_inference.csv`` writes the table.

``--first-call PEER_PYTHON`` (domias' venv python): instead, the fresh-process table of
``bench_first_call.py`` against domias 0.0.5 (GAN-Leaks, MC, DOMIAS's KDE ratio: first and
second call in a fresh process, imports included, alternating, best of N, at 3,000 and 8,000
records).
"""

from __future__ import annotations

import argparse
import os
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
    parser.add_argument("--one-thread", action="store_true",
                        help="time everything again with the densities on one thread")
    parser.add_argument("--analysis", action="store_true",
                        help="distinct rows and negligible kernel terms (why not 100x)")
    parser.add_argument("--blocked", action="store_true",
                        help="time kde.blocked_density too (slow)")
    parser.add_argument("--out", default=None)
    parser.add_argument("--first-call", default=None, metavar="PEER_PYTHON",
                        help="the fresh-process first-call table against domias")
    args = parser.parse_args()
    if args.first_call:
        from bench_first_call import run

        run("domias", args.first_call, out=args.out)
        return
    members, holdout, reference = make_data(args.rows, seed=20261125)
    from capkit.synth import syn

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthetic = syn(members, seed=1, progress=False).syn[0]
    t_syn = time.perf_counter() - start
    print(f"cores usable: {kde.default_threads()} (density threads); load average "
          f"{os.getloadavg()[0]:.1f} at the start")
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
    if args.one_thread:
        default = kde.default_threads
        kde.default_threads = lambda: 1
        try:
            t_one, _ = timed(everything, args.repeat)
        finally:
            kde.default_threads = default
        print(f"all attacks + metrics, densities on one thread: {t_one:.2f} s")
        rows.append({"case": "all attacks + metrics, densities on one thread",
                     "capkit_s": round(t_one, 2), "peer_s": "", "speed-up": "",
                     "target": "< 5 s", "met": t_one < 5})
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

    def ours(threads=None):
        return (kde.density(kde.fit(g), x, threads=threads),
                kde.density(kde.fit(r), x, threads=threads))

    t_ours, (p_g, p_r) = timed(ours, args.repeat)
    t_one, _ = timed(lambda: ours(1), args.repeat)
    from scipy.stats import gaussian_kde

    scipy_g, scipy_r = gaussian_kde(g.T), gaussian_kde(r.T)
    t_loop, (s_g, s_r) = timed(lambda: (scipy_g(x.T), scipy_r(x.T)), 1)
    identical = np.array_equal(p_g, s_g) and np.array_equal(p_r, s_r)
    case = (f"DOMIAS densities ({len(x):,} points, {len(g):,}+{len(r):,} data, "
            f"{x.shape[1]} columns)")
    print(f"capkit KDE (p_G and p_R): {t_ours:.2f} s with {kde.default_threads()} threads, "
          f"{t_one:.2f} s on one; scipy's loop on the same estimate {t_loop:.2f} s; "
          f"bit-identical to it: {identical}")
    rows.append({"case": case + ", capkit, one thread", "capkit_s": round(t_one, 2),
                 "peer_s": round(t_loop, 2), "speed-up": f"{t_loop / t_one:.1f}x",
                 "target": "bit-identical to scipy's loop", "met": identical})
    line = {"case": case + f", capkit, {kde.default_threads()} threads",
            "capkit_s": round(t_ours, 2), "target": ">= 100x"}
    if args.blocked:
        t_blocked, _ = timed(lambda: (kde.blocked_density(kde.fit(g), x),
                                      kde.blocked_density(kde.fit(r), x)), 1)
        print(f"capkit blocked numpy KDE (p_G and p_R): {t_blocked:.2f} s")
        rows.append({"case": "DOMIAS densities, capkit's blocked numpy sum", "capkit_s":
                     round(t_blocked, 2), "peer_s": "", "speed-up": "", "target": "",
                     "met": ""})
    if not args.no_scipy:
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
    if args.analysis:
        analysis(g, x, kde.fit(g))
    if args.out:
        pd.DataFrame(rows).to_csv(args.out, index=False)


def analysis(g: np.ndarray, x: np.ndarray, fitted, sample: int = 500) -> None:
    """What an exact sum could skip: identical rows, and kernel terms below a relative 1e-17."""
    print(f"distinct data rows {len(np.unique(g, axis=0)):,} of {len(g):,}; distinct points "
          f"{len(np.unique(x, axis=0)):,} of {len(x):,}")
    z = kde._whiten(fitted, x[np.linspace(0, len(x) - 1, sample).astype(int)])
    q = ((z[:, None, :] - fitted.whitened[None, :, :]) ** 2).sum(axis=-1)
    low = q.min(axis=1, keepdims=True)
    for t in (80, 1490):
        # a term with q > q_min + t is below exp(-t/2) times the point's largest term
        print(f"  share of (point, data) pairs with q <= q_min + {t}: "
              f"{np.mean(q <= low + t):.3f} ({sample} points)")
    print(f"  Scott's factor {fitted.factor:.3f}: the kernel's width is {fitted.factor:.2f} "
          "standard deviations")


if __name__ == "__main__":
    main()
