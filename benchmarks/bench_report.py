"""Time of the custodian's report (:func:`capkit.audit.audit`), family by family, on three
cases, optionally against another checkout of capkit (today's code) in the same run.

Cases (``--case``):

* ``adult``: every Adult record with an income, 5/7 members and 2/7 holdout, three syntheses
  (CART, bootstrap + 1% noise, independent columns); the CART synthesis is made first and not
  timed (needs ``CAPKIT_DATA`` or a download).
* ``wide``: a Caravan-like table (:func:`caravan_like`: ``--rows`` x ``--cols`` integer-coded
  columns with 2 to 10 levels that follow a 41-level customer type, and a Yes/No label), 70%
  members and 30% holdout, two syntheses (bootstrap + noise, independent columns).
* ``million``: the seeded generator of ``bench_scale.py`` (four integer keys and an income
  band), ``--rows`` members, ``--rows`` holdout records and ``--rows`` synthetic records; the
  report samples records past :data:`capkit.audit.sampling.PAIR_BUDGET` (stated in its notes).

Each family runs on its own (``families=(family,)``), so a family that fails (its error is
printed) does not hide the others' times; then the whole report runs once, as a user runs
it (one call: the work the families share is done once), and once more, as the next report of
a session runs (a second process the audit started, :mod:`capkit.audit.parallel`, is then
running). With ``--baseline DIR`` the same case
runs again in a child process with ``DIR`` first on ``sys.path`` (for example a ``git archive``
of main), and the script prints both times per family, their ratio, and whether the findings
are identical.

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_report.py --case wide --baseline DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def caravan_like(rows: int = 5822, cols: int = 86, seed: int = 0) -> pd.DataFrame:
    """A wide integer-coded table shaped like ISLP's Caravan (5,822 x 86): a 41-level customer
    type, ``cols - 2`` columns of 2 to 10 levels that mostly follow it (35% of values skewed
    towards low levels instead), and a Yes/No label (~7% Yes)."""
    rng = np.random.default_rng(seed)
    kind = rng.integers(0, 41, rows)
    out = {"MOSTYPE": kind + 1}
    for k in range(1, cols - 1):
        levels = int(rng.choice([2, 3, 4, 6, 8, 10], p=[.15, .15, .2, .2, .15, .15]))
        usual = rng.integers(0, levels, 41)
        skewed = np.minimum((levels * rng.random(rows) ** 2.5).astype(int), levels - 1)
        out[f"V{k:02d}"] = np.where(rng.random(rows) < 0.35, skewed, usual[kind])
    out["Purchase"] = np.where(rng.random(rows) < 0.06 + 0.04 * (kind % 3 == 0), "Yes", "No")
    return pd.DataFrame(out)


def build(case: str, rows: int | None, cols: int) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """Members, named syntheses and holdout of a case."""
    from capkit.synth.baselines import bootstrap_with_noise, independent_columns

    if case == "adult":
        from capkit import datasets
        from capkit.data.split import holdout_split
        from capkit.synth import syn

        adult = datasets.load_adult(progress=False).dropna(subset=["income"])
        members, holdout = holdout_split(adult.reset_index(drop=True), holdout=2 / 7,
                                         rows=rows, seed=1)
        named = {"CART": syn(members, seed=1, progress=False).syn[0]}
    elif case == "wide":
        table = caravan_like(rows or 5000, cols, seed=0)
        cut = int(0.7 * len(table))
        members = table.iloc[:cut].reset_index(drop=True)
        holdout = table.iloc[cut:].reset_index(drop=True)
        named = {}
    else:
        sys.path.insert(0, str(Path(__file__).parent))
        from bench_scale import _chunk

        # integer columns: no default key, so bench_scale's keys and target are given
        n = rows or 1_000_000
        members = _chunk(n, 20240901, 0, 0).to_pandas()
        holdout = _chunk(n, 20240901, 0, 1).to_pandas()
        return members, {"synthetic": _chunk(n, 20240901, 1, 0).to_pandas()}, holdout
    named |= {"bootstrap": bootstrap_with_noise(members, seed=1),
              "independent": independent_columns(members, seed=1)}
    return members, named, holdout


def child(args: argparse.Namespace) -> None:
    """Run the report family by family; write times, findings and notes as JSON."""
    from capkit.audit import FAMILIES, audit
    from capkit.errors import CapkitError

    members, named, holdout = build(args.case, args.rows, args.cols)
    out = {"capkit": str(Path(sys.modules["capkit"].__file__).parent), "families": {},
           "shape": [len(members), members.shape[1], len(holdout)]}
    given = ({"keys": ["age", "sex", "region", "education"], "targets": ["income"]}
             if args.case == "million" else {})

    def timed(**options) -> dict:
        """One audit, timed, with nothing remembered from an earlier run (the k-NN searches
        of capkit.distance.grid_knn): its findings, notes or error, seconds and CPU seconds."""
        knn = sys.modules.get("capkit.distance.grid_knn")
        if knn is not None and hasattr(knn, "_ANSWERS"):
            knn._ANSWERS.clear()
        start, cpu = time.perf_counter(), time.process_time()
        try:
            result = audit(members, named, holdout=holdout, seed=1, progress=args.progress,
                           **given, **options)
            found = result.to_frame().to_json(orient="records", double_precision=15)
            entry = {"findings": found, "notes": result.notes, "error": None}
        except CapkitError as exc:
            entry = {"findings": str(exc), "notes": [], "error": str(exc)}
        return entry | {"seconds": time.perf_counter() - start,
                        "cpu": time.process_time() - cpu}

    name = Path(out["capkit"]).parent.name
    if args.once:  # the whole report once, as a user runs it: time, findings' hash, memory
        import hashlib
        import resource

        entry = timed()
        scale = 1 if sys.platform == "darwin" else 1024
        digest = hashlib.sha256(entry["findings"].encode()).hexdigest()[:16]
        print(f"[{name}] whole report once: {entry['seconds']:.1f} s, {entry['cpu']:.1f} "
              f"CPU-s (this process), findings sha256 {digest}, notes "
              f"{hashlib.sha256(json.dumps(entry['notes']).encode()).hexdigest()[:16]}, peak "
              f"resident memory of this process "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e9:.2f} GB"
              f"{' (error)' if entry['error'] else ''}", flush=True)
        return
    for family in FAMILIES:
        entry = out["families"][family] = timed(families=(family,))
        print(f"  [{name}] {family}: {entry['seconds']:.1f} s, {entry['cpu']:.1f} CPU-s"
              f"{' (error)' if entry['error'] else ''}", file=sys.stderr, flush=True)
    out["whole"] = timed()  # the report as a user runs it
    print(f"  [{name}] whole report: {out['whole']['seconds']:.1f} s", file=sys.stderr,
          flush=True)
    out["again"] = timed()  # as a session's next report runs: a second process started
    Path(args.out).write_text(json.dumps(out))


def run(case: str, code: Path, args: argparse.Namespace, timeout: float) -> dict | None:
    """One child process with ``code`` first on the path; None if it did not finish."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.json"
        command = [sys.executable, __file__, "--child", "--case", case, "--cols",
                   str(args.cols), "--out", str(out)] + (
            ["--rows", str(args.rows)] if args.rows else []) + (
            ["--progress"] if args.progress else [])
        env = {**os.environ, "PYTHONPATH": str(code)}
        try:
            subprocess.run(command, check=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["adult", "wide", "million"], default="adult")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--cols", type=int, default=100)
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of capkit (its root) to time in the same run")
    parser.add_argument("--baseline-timeout", type=float, default=1800.0)
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--once", action="store_true",
                        help="only the whole report, once, in this process (no families, no "
                             "baseline): time, findings' hash and peak memory; run it under "
                             "/usr/bin/time -v for the second process's share")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child or args.once:
        child(args)
        return
    ours = run(args.case, ROOT, args, float("inf"))
    print(f"\n== report, case {args.case}: {ours['shape'][0]:,} members x "
          f"{ours['shape'][1]} columns, {ours['shape'][2]:,} holdout")
    base = None
    if args.baseline is not None:
        base = run(args.case, args.baseline.resolve(), args, args.baseline_timeout)
        if base is None:
            print(f"baseline ({args.baseline}) did not finish in {args.baseline_timeout:.0f} s")
    print("wall seconds (CPU seconds, all threads) of this checkout and of the baseline")
    print(f"{'family':20s} {'this':>15s} {'baseline':>15s} {'ratio':>6s}  same findings")
    totals = np.zeros(4)
    for family, entry in ours["families"].items():
        b = None if base is None else base["families"][family]
        totals[:2] += entry["seconds"], entry["cpu"]
        line = f"{family:20s} {entry['seconds']:6.1f} ({entry['cpu']:6.1f})"
        if b is not None:
            totals[2:] += b["seconds"], b["cpu"]
            same = (entry["findings"] == b["findings"] and entry["notes"] == b["notes"]
                    and entry["error"] == b["error"])
            line += (f" {b['seconds']:6.1f} ({b['cpu']:6.1f}) "
                     f"{b['seconds'] / entry['seconds']:5.1f}x  {same}")
        print(line + (f"  error: {entry['error'][:90]}" if entry["error"] else ""))
    print(f"{'sum of the above':20s} {totals[0]:6.1f} ({totals[1]:6.1f})" + (
        f" {totals[2]:6.1f} ({totals[3]:6.1f}) {totals[2] / totals[0]:5.1f}x"
        if base is not None else ""))
    whole, other = ours["whole"], None if base is None else base.get("whole")
    print(f"{'whole report':20s} {whole['seconds']:6.1f} ({whole['cpu']:6.1f})" + (
        f" {other['seconds']:6.1f} ({other['cpu']:6.1f}) "
        f"{other['seconds'] / whole['seconds']:5.1f}x  {other['findings'] == whole['findings']}"
        if other else ""))
    whole, other = ours["again"], None if base is None else base.get("again")
    print(f"{'whole report again':20s} {whole['seconds']:6.1f} ({whole['cpu']:6.1f})" + (
        f" {other['seconds']:6.1f} ({other['cpu']:6.1f}) "
        f"{other['seconds'] / whole['seconds']:5.1f}x  {other['findings'] == whole['findings']}"
        if other else "") + "  (the next report of the session: a second process, if the "
          "audit uses one, is running; CPU seconds are this process's)")
    notes = {n for entry in ours["families"].values() for n in entry["notes"] if "sample" in n}
    for note in sorted(notes):
        print("note:", note)


if __name__ == "__main__":
    main()
