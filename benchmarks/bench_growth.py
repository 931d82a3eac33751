"""Growth with size: CPU seconds of a family at 10k, 100k (and 1M) records, against another
checkout of capkit (today's code) in the same run, and the growth exponent.

Families (``--family``):

* ``singling_out``: :func:`capkit.attacks.singling_out` as the custodian's report calls it
  (multivariate, every synthetic record attacked once, members, a holdout of half their size
  as control, seed 1);
* ``mc_domias``: :func:`capkit.membership_inference.attacks.mc` with DOMIAS's squared distance
  (the nearest synthetic record of every scored record, then the ball counts);
* ``mi``: :func:`capkit.membership_inference.scores` with every attack (members, a holdout of
  half their size, a quarter of it split off as the reference, seed 1); ``mi_no_domias`` the
  same without DOMIAS's two density attacks;
* ``cap``: :func:`capkit.counts.tables.crosstab` + average CAP (version 1) of n members and n
  synthetic records on four keys and a target, with the ratio to a bare numpy ``bincount``
  timed in the same child, the two alternating (best of 7 each): for each of the two frames,
  the mixed-radix int64 code of the four keys and the target (per column, the code times the
  column's maximum + 1, plus the column) and one ``numpy.bincount`` of it; no labels, no
  checks, no table alignment, no CAP. ``--case million`` has skewed keys (``bench_scale.py``'s
  generator: int8/int16 columns, 10 x 210,213 cells used), ``--case uniform`` uniform ones
  (``bench_cap.py``'s: int64 columns, 10 x 15,360 cells). The cap lines give times to 4
  decimals, the ratio of each checkout's best time to the best bare count of its children,
  and the load average the children saw.

Data (``--case``): ``million``, the seeded generator of ``bench_scale.py`` (five integer
columns); ``adult``, a bootstrap of Adult with 1% noise (:func:`capkit.synth.baselines.
bootstrap_with_noise`; needs ``CAPKIT_DATA``).

Each measurement is a fresh child process (imports and compilation outside the timing; the
time is ``time.process_time`` around the one call: CPU seconds, which a loaded machine changes
less than wall time). The child also reports its peak resident memory (``getrusage``: the data,
made first, included) and its resident memory with the data made, before the call. Sizes
run from small to large; at each size the two checkouts alternate, best of ``--repeat``; a
checkout that passed ``--timeout`` seconds at one size is not run at larger ones. The script
prints, per size, both times, their ratio, whether the results are identical (a fingerprint
of every number the call returns), and the exponent between consecutive sizes (log ratio of
times / log ratio of sizes).

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_growth.py --family singling_out
--case million --sizes 10000 100000 1000000 --baseline DIR`` (``DIR``: e.g. a ``git archive``
of main holding ``capkit/``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def frames(case: str, n: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(members, synthetic, holdout of n // 2 records) of a case."""
    if case == "million":
        sys.path.insert(0, str(HERE))
        from bench_scale import _chunk

        return (_chunk(n, 20240901, 0, 0).to_pandas(), _chunk(n, 20240901, 1, 0).to_pandas(),
                _chunk(n // 2, 20240901, 0, 1).to_pandas())
    from capkit import datasets
    from capkit.synth.baselines import bootstrap_with_noise

    adult = datasets.load_adult(progress=False).dropna(subset=["income"])
    adult = adult.reset_index(drop=True)
    return (bootstrap_with_noise(adult, seed=1, n=n), bootstrap_with_noise(adult, seed=3, n=n),
            bootstrap_with_noise(adult, seed=2, n=n // 2))


def _fingerprint(*parts: object) -> str:
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, pd.DataFrame):
            part = pd.util.hash_pandas_object(part.astype(str)).to_numpy()
        digest.update(np.asarray(part).tobytes() if isinstance(part, np.ndarray)
                      else repr(part).encode())
    return digest.hexdigest()[:16]


def resident() -> float | None:
    """This process's resident memory now, GB (Linux's /proc; None elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e9


def peak_resident() -> float:
    """This process's peak resident memory so far, GB (getrusage: KB on Linux)."""
    import resource

    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e9


def run_family(family: str, case: str, n: int) -> tuple[float, float, str]:
    """CPU seconds of capkit's first call in this (fresh) process, of a second call, and the
    fingerprint of the results (the same for both calls, or the run fails)."""
    if family == "cap":
        return _cap(case, n)
    call = _call(family, case, n)
    times, prints = [], []
    for _ in range(2):
        start = time.process_time()
        prints.append(call())
        times.append(time.process_time() - start)
    if prints[0] != prints[1]:
        raise SystemExit(f"{family}: a second call gave other results")
    return times[0], times[1], prints[0]


def _call(family: str, case: str, n: int):
    """The family's call on the case's frames, returning the fingerprint of its results."""
    members, synthetic, holdout = frames(case, n)
    MEMORY["data"] = resident()
    keys = ["age", "sex", "region", "education"] if case == "million" else None
    target = "income"
    if keys is None:
        from capkit.audit.defaults import choose

        keys = choose(members).keys
    if family == "singling_out":
        from capkit.attacks.singling_out import singling_out

        def call():
            res = singling_out(members, synthetic, control=holdout, seed=1)
            return _fingerprint(res.queries.drop(columns="conditions"), res.n_success,
                                res.n_baseline, res.n_control, res.risk, res.risk_ci)
        return call
    if family == "linkability":
        from capkit.attacks.linkability import linkability

        rest = [c for c in members.columns if c not in keys]

        def call():
            res = linkability(members, synthetic, (keys, rest), control=holdout, seed=1)
            return _fingerprint(res.records, res.control_records, res.n_success, res.n_control,
                                res.links_range, res.n_tied, res.n_baseline, res.risk,
                                res.risk_ci)
        return call
    if family == "disclosure":
        from capkit.disclosure import disclosure

        def call():
            res = disclosure(synthetic, members, keys, target)
            return _fingerprint(repr(res))
        return call
    if family == "dcr":
        from capkit.distance import dcr

        def call():
            res = dcr(synthetic, members)
            return _fingerprint(res.distance, res.index)
        return call
    if family in ("mi", "mi_no_domias"):
        from capkit.membership_inference import scores
        from capkit.membership_inference.scores import ATTACKS

        attacks = [a for a in ATTACKS if family == "mi" or not a.startswith("domias")]

        def call():
            return _fingerprint(scores(members, holdout, synthetic, seed=1, attacks=attacks))
        return call
    if family == "report":
        from capkit.audit import audit

        def call():
            knn = sys.modules.get("capkit.distance.grid_knn")
            if knn is not None and hasattr(knn, "_ANSWERS"):
                knn._ANSWERS.clear()  # no k-NN search remembered from the first call
            res = audit(members, {"bootstrap": synthetic}, holdout=holdout, seed=1,
                        **({"keys": keys, "targets": [target]} if case == "million" else {}))
            return _fingerprint(res.to_frame().to_json(orient="records", double_precision=15))
        return call
    from capkit.membership_inference import attacks

    numeric = [c for c in members.columns if pd.api.types.is_numeric_dtype(members[c])]
    x = pd.concat([members, holdout])[numeric].to_numpy(dtype=float)
    g = synthetic[numeric].to_numpy(dtype=float)
    empty = np.zeros((0, 0))
    enc = attacks.Encoded("squared", empty, empty, empty, x, g, g[:0], empty, 1.0)

    def call():
        d_g = attacks.distance_to(enc, "g")
        scores_, epsilon = attacks.mc(enc, d_g)
        return _fingerprint(d_g, scores_, epsilon)
    return call


def _cap(case: str, n: int) -> tuple[float, str]:
    from capkit import cap
    from capkit.counts.tables import crosstab

    if case == "uniform":
        sys.path.insert(0, str(HERE))
        from bench_cap import KEYS, TARGET, make_frame

        rng = np.random.default_rng(20201)
        members, synthetic = make_frame(n, rng), make_frame(n, rng)
        keys, target = list(KEYS), TARGET[0]
    else:
        members, synthetic, _ = frames("million", n)
        keys, target = ["age", "sex", "region", "education"], "income"

    def bare() -> None:
        for frame in (members, synthetic):
            code = np.zeros(len(frame), dtype=np.int64)
            for column in keys + [target]:
                values = frame[column].to_numpy()
                code *= int(values.max()) + 1
                code += values
            np.bincount(code)

    def run() -> object:
        return cap.average_cap(*_tables(crosstab(members, synthetic, keys, target)))

    start = time.process_time()
    value = run()
    first = time.process_time() - start
    cpu = bare_cpu = math.inf
    for _ in range(CAP_REPEAT):  # capkit and the bare count alternately, best of each
        start = time.process_time()
        again = run()
        cpu = min(cpu, time.process_time() - start)
        start = time.process_time()
        bare()
        bare_cpu = min(bare_cpu, time.process_time() - start)
        if again != value:
            raise SystemExit("cap: a second call gave another value")
    BARE["cpu"] = bare_cpu
    print(f"  cap {case} n={n:,}: {cpu:.4f} CPU-s, bare bincount {bare_cpu:.4f} CPU-s, ratio "
          f"{cpu / bare_cpu:.2f}x", file=sys.stderr)
    return first, cpu, _fingerprint(value)


#: Alternating runs of the cap family's call and of the bare count in one child.
CAP_REPEAT = 7

#: The cap family's bare bincount time in this child (CPU seconds).
BARE: dict[str, float | None] = {"cpu": None}


def _tables(table: object) -> tuple[object, object]:
    return table.original, table.synthetic


#: Resident memory of the child with its data made, before the call (GB).
MEMORY: dict[str, float | None] = {"data": None}


def child(args: argparse.Namespace) -> None:
    first, cpu, fingerprint = run_family(args.family, args.case, args.child)
    print(json.dumps({"first": first, "cpu": cpu, "fingerprint": fingerprint,
                      "bare": BARE["cpu"], "load": os.getloadavg()[0],
                      "data_gb": MEMORY["data"], "peak_gb": peak_resident()}))


def measure(code: Path, args: argparse.Namespace, n: int) -> dict | None:
    command = [sys.executable, __file__, "--family", args.family, "--case", args.case,
               "--child", str(n)]
    env = {**os.environ, "PYTHONPATH": str(code)}
    try:
        done = subprocess.run(command, check=True, env=env, capture_output=True, text=True,
                              timeout=args.timeout)
        if done.stderr.strip():
            print(f"  [{code}] {done.stderr.strip().splitlines()[-1]}", flush=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def exponent(sizes: list[int], times: list[float | None]) -> list[str]:
    out = ["-"]
    for i in range(1, len(sizes)):
        (n0, t0), (n1, t1) = (sizes[i - 1], times[i - 1]), (sizes[i], times[i])
        ok = t0 and t1 and t0 > 0 and t1 > 0
        out.append(f"{math.log(t1 / t0) / math.log(n1 / n0):.2f}" if ok else "-")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=["singling_out", "mc_domias", "cap", "linkability",
                                             "disclosure", "dcr", "mi", "mi_no_domias",
                                             "report"],
                        default="singling_out")
    parser.add_argument("--case", choices=["million", "adult", "uniform"], default="million")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--baseline", type=Path, help="another checkout (holding capkit/)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--write", action="store_true",
                        help="write the lines to results/growth_FAMILY_CASE.txt")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    codes = {"this": HERE.parent} | ({"before": args.baseline} if args.baseline else {})
    best: dict[str, list[float | None]] = {name: [] for name in codes}
    first: dict[str, list[float | None]] = {name: [] for name in codes}
    prints: dict[str, list[str | None]] = {name: [] for name in codes}
    stopped: set[str] = set()
    lines = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    for n in args.sizes:
        runs: dict[str, list[dict]] = {name: [] for name in codes}
        for _ in range(args.repeat):
            for name, code in codes.items():  # alternating
                if name in stopped:
                    continue
                got = measure(code, args, n)
                if got is None:
                    stopped.add(name)
                    say(f"  {name} at {n:,}: over {args.timeout:.0f} s, not run further")
                else:
                    runs[name].append(got)
        for name in codes:
            best[name].append(min((r["cpu"] for r in runs[name]), default=None))
            first[name].append(min((r.get("first", r["cpu"]) for r in runs[name]),
                                   default=None))
            peaks = [r["peak_gb"] for r in runs[name] if r.get("peak_gb") is not None]
            data = [r["data_gb"] for r in runs[name] if r.get("data_gb") is not None]
            if peaks:
                print(f"  {name} n={n:,}: peak resident memory {max(peaks):.2f} GB (the data "
                      f"made: {max(data) if data else float('nan'):.2f} GB)", flush=True)
            found = {r["fingerprint"] for r in runs[name]}
            prints[name].append(found.pop() if len(found) == 1 else None)
        this, before = best["this"][-1], best.get("before", [None])[-1]
        ratio = f"{before / this:.1f}x" if this and before else "-"
        same = ("identical" if prints["this"][-1] and prints["this"][-1] == prints.get(
            "before", [None])[-1] else "not compared" if before is None else "DIFFERENT")
        d = 4 if args.family == "cap" else 2
        say(f"{args.family} {args.case} n={n:,}: this first call {_r(first['this'][-1], d)}, "
            f"second call {_r(this, d)} CPU-s; before first "
            f"{_r(first.get('before', [None])[-1], d)}, second {_r(before, d)} CPU-s; speed-up "
            f"(second calls) {ratio}, results {same}")
        if args.family == "cap":
            loads = [r["load"] for rs in runs.values() for r in rs if r.get("load") is not None]
            say("  against a bare numpy bincount of the same records' mixed-radix codes (in the "
                "same children, alternating, best of "
                f"{args.repeat} x {CAP_REPEAT}; load average {min(loads, default=0):.1f}-"
                f"{max(loads, default=0):.1f}): " + "; ".join(
                    f"{name} {_r(best[name][-1], 4)} / {_r(b, 4)} CPU-s = "
                    f"{best[name][-1] / b:.2f}x" for name in codes
                    if best[name][-1] and (b := min((r["bare"] for r in runs[name]
                                                     if r.get("bare")), default=None))))
    for name in codes:
        say(f"growth exponents, second calls ({name}): "
            + ", ".join(f"{n:,}: {e}" for n, e in zip(args.sizes, exponent(args.sizes,
                                                                         best[name]),
                                                        strict=True)))
    if args.write:
        out = HERE / "results" / f"growth_{args.family}_{args.case}.txt"
        out.write_text(f"# bench_growth.py --family {args.family} --case {args.case} --sizes "
                       f"{' '.join(map(str, args.sizes))} --repeat {args.repeat} (CPU seconds, "
                       "best of the repeats; 2 shared cores)\n" + "\n".join(lines) + "\n")


def _r(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


if __name__ == "__main__":
    main()
