"""Exact distance to closest record (Gower) on Adult: capkit.distance.dcr vs the `gower` package.

Reference: 30,000 Adult records (the paper's 14 columns, seeded sample). Synthetic stand-in:
30,000 records resampled from the reference with 30% of their cells replaced by values drawn
from the same column of the reference (seeded), so every value lies inside the reference's
range and the `gower` package, which takes numeric ranges from its two inputs, uses the same
ranges as capkit (the reference's).

Timed in one run:

* capkit ``dcr`` on all 30,000 synthetic records (best of 3);
* ``gower.gower_topn(row, reference, n=1)``, the package's top-1 search, one call per synthetic
  record (that is its interface). By default it is timed on the first ``--gower-rows`` records
  and its full time is EXTRAPOLATED linearly (every call does the same work: one row against
  the 30,000 reference records); ``--gower-rows 30000`` times all of them.

Checks printed: capkit vs a full distance matrix (``gower_matrix``) on 300 records (exactness),
capkit vs the package's float32 distances, and the package's top-1 record re-evaluated in
float64 vs capkit's DCR (must agree to 1e-9). Goals: < 15 s and >= 10x faster.

``--baseline DIR`` (another checkout of capkit, e.g. a ``git archive`` of main) times instead,
in the same run, the distances of the custodian's report (each member's DCR to a synthesis,
bootstrap + noise and independent columns) on three tables: the Caravan-like wide table of
``bench_report.py`` (4,000 x 86), Adult (the 30,000 records above, by the 14 columns) and the
integer table of ``bench_scale.py`` (``--scale-rows`` records, default 20,000). Each runs in a
child process for this checkout, for the baseline, and for this checkout with
``OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1``; the script prints the times, their ratio, and whether
the distances and indices of the three runs are identical bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from capkit import distance
from capkit.data.datasets import ADULT_PAPER_VARIABLES, load_adult


def make_data(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    adult = load_adult(progress=False)[list(ADULT_PAPER_VARIABLES)]
    rng = np.random.default_rng(seed)
    reference = adult.iloc[rng.choice(len(adult), n, replace=False)].reset_index(drop=True)
    synthetic = reference.iloc[rng.integers(0, n, n)].reset_index(drop=True)
    for column in synthetic.columns:
        replace = rng.random(n) < 0.3
        donors = rng.integers(0, n, int(replace.sum()))
        values = synthetic[column].to_numpy(copy=True)
        values[replace] = reference[column].to_numpy()[donors]
        synthetic[column] = pd.Series(values, dtype=reference[column].dtype)
    return synthetic, reference


def report_tables(case: str, rows: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Members and two syntheses of one table (see the module docstring)."""
    from capkit.synth.baselines import bootstrap_with_noise, independent_columns

    here = str(Path(__file__).parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    if case == "wide":
        from bench_report import caravan_like

        members = caravan_like(5822, 86, seed=0).iloc[:4000].reset_index(drop=True)
    elif case == "adult":
        members = make_data(30_000, seed=7)[1]
    else:
        from bench_scale import _chunk

        members = _chunk(rows, 20240901, 0, 0).to_pandas()
    return members, {"bootstrap": bootstrap_with_noise(members, seed=1),
                     "independent": independent_columns(members, seed=1)}


def report_child(case: str, rows: int) -> None:
    """Time each member's DCR to each synthesis; print seconds, CPU seconds and a digest."""
    members, named = report_tables(case, rows)
    digest = hashlib.sha256()
    start, cpu = time.perf_counter(), time.process_time()
    for synthetic in named.values():
        result = distance.dcr(members, synthetic, missing="level")
        digest.update(result.distance.tobytes() + result.index.tobytes())
    print(time.perf_counter() - start, time.process_time() - cpu, digest.hexdigest())


def report_cases(baseline: Path, rows: int) -> None:
    """This checkout vs the baseline vs this checkout on one thread, in child processes."""
    root = Path(__file__).resolve().parents[1]
    runs = {"this": (root, {}), "baseline": (baseline.resolve(), {}),
            "this, 1 thread": (root, {"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})}
    print("\nreport distances (each member's DCR to 2 syntheses): wall s (CPU s)")
    for case in ("wide", "adult", "scale"):
        out = {}
        for name, (code, extra) in runs.items():
            env = {**os.environ, "PYTHONPATH": str(code), **extra}
            line = subprocess.run([sys.executable, __file__, "--report-child", case,
                                   "--scale-rows", str(rows)], env=env, check=True,
                                  capture_output=True, text=True).stdout.split()
            out[name] = (float(line[0]), float(line[1]), line[2])
        same = len({v[2] for v in out.values()}) == 1
        print(f"  {case:6s} " + "  ".join(f"{k}: {v[0]:.1f} ({v[1]:.1f})" for k, v in
                                          out.items())
              + f"  ratio {out['baseline'][0] / out['this'][0]:.1f}x; identical: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--gower-rows", type=int, default=300,
                        help="synthetic records timed with gower_topn (then extrapolated)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of capkit (its root) for the report distances")
    parser.add_argument("--scale-rows", type=int, default=20_000)
    parser.add_argument("--report-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.report_child:
        report_child(args.report_child, args.scale_rows)
        return
    if args.baseline is not None:
        report_cases(args.baseline, args.scale_rows)
        return
    synthetic, reference = make_data(args.rows, seed=7)
    print(f"Adult: {len(synthetic):,} synthetic x {len(reference):,} reference records, "
          f"{synthetic.shape[1]} columns")

    times = []
    for _ in range(3):
        start = time.perf_counter()
        result = distance.dcr(synthetic, reference)
        times.append(time.perf_counter() - start)
    t_ours = min(times)
    print(f"capkit dcr (exact, all records): {t_ours:.2f} s (best of 3)  "
          f"mean DCR {result.distance.mean():.6f}, exact copies {result.exact_copies}")

    check = synthetic.iloc[:300]
    full = distance.gower_matrix(check, reference, ranges=result.columns.ranges)
    print(f"vs full distance matrix on 300 records: max |difference| = "
          f"{np.abs(full.min(axis=1) - result.distance[:300]).max():.2e}")

    import gower

    def for_gower(frame: pd.DataFrame) -> pd.DataFrame:
        # gower cannot read pandas categoricals, and compares NaN as unequal to itself:
        # give it object columns with missing values spelled as a level (capkit's NA level)
        out = frame.copy()
        for column in out.columns:
            if isinstance(out[column].dtype, pd.CategoricalDtype):
                out[column] = out[column].astype(object).where(out[column].notna(), "<NA>")
        return out

    g_syn, g_ref = for_gower(synthetic), for_gower(reference)
    k = min(args.gower_rows, len(synthetic))
    start = time.perf_counter()
    tops = [gower.gower_topn(g_syn.iloc[[i]], g_ref, n=1) for i in range(k)]
    t_small = time.perf_counter() - start
    values = np.array([t["values"][0] for t in tops], dtype=np.float64)
    index = np.array([t["index"][0] for t in tops])
    recheck = distance.gower_matrix(synthetic.iloc[:k], reference, ranges=result.columns.ranges)
    at_index = recheck[np.arange(k), index]
    if k == len(synthetic):
        t_gower, how = t_small, "timed on all records"
    else:
        t_gower = t_small * len(synthetic) / k
        how = f"EXTRAPOLATED from {t_small:.2f} s for {k:,} records (x{len(synthetic) / k:.0f})"
    print(f"gower.gower_topn top-1 search: {t_gower:.1f} s, {how}")
    print(f"  on those {k:,} records: max |capkit - gower (float32)| = "
          f"{np.abs(values - result.distance[:k]).max():.2e}; gower's top-1 record "
          f"re-evaluated in float64 vs capkit DCR: max |difference| = "
          f"{np.abs(at_index - result.distance[:k]).max():.2e} (goal <= 1e-9)")
    print(f"ratio gower / capkit: {t_gower / t_ours:,.0f}x (goal >= 10x); capkit time goal < 15 s")


if __name__ == "__main__":
    main()
