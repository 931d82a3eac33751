"""Scale benchmark: CAP and synthpop's attribute measures on 100 million + 100 million records.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_scale.py                # 100M case, then the 1M case
    .venv/bin/python benchmarks/bench_scale.py --rows 1000000 --skip-big   # only the 1M case
    .venv/bin/python benchmarks/bench_scale.py --skip-big --skip-spark
    .venv/bin/python benchmarks/bench_scale.py --skip-big --unique-rows 10000000  # worst case

Data: a seeded generator writes ``rows`` original and ``rows`` synthetic records as Parquet
(10 files each) under ``--data-dir`` (default: the system temporary folder, never the
repository); files already generated with the same rows and seed are reused. Four integer
keys (age 0-99 binomial, so extreme ages are rare; sex 0-1; region 0-299, skewed; education
0-14: up to 900,000 key combinations, many of them rare) and one target (income band 0-9) that
depends on the keys plus noise; the synthetic records come from the same
model with more noise (a stand-in for a synthesiser).

Big case (``--rows``, default 100,000,000): in a fresh child process (so that its peak memory is
the measure's own), DuckDB counts both Parquet globs (:func:`capkit.counts.tables.crosstab` with
``engine="duckdb"``), then average CAP versions 1 and 2 (Baillargeon & Charest, Definitions 2-3)
and synthpop's identity/attribute measures (Raab, Nowok & Dibben) are computed from the counts.
Printed: wall time, peak resident memory of the child (DuckDB runs inside it), and the measures.
Targets of the issue: under 24 GB and under 3 minutes on 2 cores.

Small case (``--small-rows``, default 1,000,000): pandas (in memory), DuckDB and Spark (local)
count the same data; the script checks the three tables and all measures are identical and
prints the DuckDB / pandas time ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from _common import timed

KEYS = ["age", "sex", "region", "education"]
TARGET = "income"
FILES = 10


def _chunk(rows: int, seed: int, role: int, part: int) -> pa.Table:
    """One seeded chunk: role 0 = original, 1 = synthetic (noisier)."""
    rng = np.random.default_rng([seed, role, part])
    age = rng.binomial(99, 0.4, rows).astype(np.int16)  # extremes are rare
    sex = rng.integers(0, 2, rows, dtype=np.int8)
    region = np.minimum(300 * rng.random(rows) ** 3, 299).astype(np.int16)  # skewed
    education = rng.integers(0, 15, rows, dtype=np.int8)
    noise = rng.integers(0, 3 + 2 * role, rows, dtype=np.int16)
    income = ((age // 10) + 3 * sex + region % 7 + education + noise) % 10
    return pa.table({"age": age, "sex": sex, "region": region, "education": education,
                     "income": income.astype(np.int8)})


def _unique_chunk(rows: int, seed: int, role: int, part: int, start: int) -> pa.Table:
    """Worst case: every record has its own key combination (synthetic shifted by a half)."""
    rng = np.random.default_rng([seed, role, part, 1])
    index = np.arange(start, start + rows, dtype=np.int64) + role * (rows * FILES // 2)
    return pa.table({"age": (index // 1_000_000).astype(np.int32),
                     "sex": ((index // 1000) % 1000).astype(np.int16),
                     "region": (index % 1000).astype(np.int16),
                     "education": np.zeros(rows, dtype=np.int8),
                     "income": rng.integers(0, 10, rows, dtype=np.int8)})


def generate(rows: int, folder: Path, seed: int, unique: bool = False) -> tuple[str, str]:
    """Write (or reuse) the Parquet files; return the original and synthetic globs."""
    marker = folder / "done.json"
    spec = {"rows": rows, "seed": seed, "files": FILES, "version": 2, "unique": unique}
    globs = (str(folder / "original" / "*.parquet"), str(folder / "synthetic" / "*.parquet"))
    if marker.exists() and json.loads(marker.read_text()) == spec:
        return globs
    start = time.perf_counter()
    per_file = -(-rows // FILES)
    for role, name in enumerate(("original", "synthetic")):
        out = folder / name
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.parquet"):
            old.unlink()
        for part in range(FILES):
            n = min(per_file, rows - part * per_file)
            if n <= 0:
                break
            chunk = (_unique_chunk(n, seed, role, part, part * per_file) if unique
                     else _chunk(n, seed, role, part))
            pq.write_table(chunk, out / f"part-{part:03d}.parquet", row_group_size=1 << 20)
    marker.write_text(json.dumps(spec))
    print(f"generated 2 x {rows:,} rows in {folder} ({time.perf_counter() - start:.1f} s)",
          flush=True)
    return globs


def measures(table: object) -> dict[str, float]:
    """Average CAP v1/v2 and synthpop's measures for the target, from one count table."""
    from capkit import cap
    from capkit.counts import engines
    from capkit.disclosure.measures import compute

    out = {f"average_cap_v{v}": cap.average_cap(table.original, table.synthetic, version=v)
           for v in (1, 2)}
    result = compute(engines.disclosure_cells(table))
    out.update(result.ident)
    out.update(result.attrib)
    out.update(result.allcaps)
    return out


def peak_rss_gb() -> float:
    """Peak resident memory of this process (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def big_child(original: str, synthetic: str) -> None:
    """Run in a fresh process: count with DuckDB, compute the measures, print JSON."""
    from capkit.counts.tables import crosstab

    # the "unique" worst case shifts the synthetic keys by half the rows: exactly at the
    # overlap limit of capkit.counts.encode.check_levels, so the check is switched off here
    allow = {"allow_disjoint_levels": True}
    start = time.perf_counter()
    table = crosstab(original, synthetic, KEYS, TARGET, engine="duckdb", **allow)
    counted = time.perf_counter() - start
    values = measures(table)
    total = time.perf_counter() - start
    # the same measures through the public one-call API (counts again, adds the checks)
    from capkit.disclosure import disclosure

    start = time.perf_counter()
    result = disclosure(synthetic, original, KEYS, TARGET, engine="duckdb", **allow)
    one_call = time.perf_counter() - start
    public = {**result.ident.iloc[0].to_dict(), **result.attrib.iloc[0].to_dict(),
              **result.allcaps.iloc[0].to_dict()}
    gap = max(abs(float(public[k]) - float(values[k])) for k in public)
    print(json.dumps({"count_s": counted, "total_s": total, "peak_rss_gb": peak_rss_gb(),
                      "one_call_s": one_call, "one_call_max_abs_diff": gap,
                      "shape": list(table.shape), "sparse": table.is_sparse,
                      "n_orig": int(table.original.sum()), "n_syn": int(table.synthetic.sum()),
                      "measures": values}))


def big_case(rows: int, folder: Path, seed: int, unique: bool = False) -> None:
    original, synthetic = generate(rows, folder, seed, unique)
    kind = "every record unique on its keys, " if unique else ""
    print(f"\n== {rows:,} original + {rows:,} synthetic rows, {kind}DuckDB, "
          f"{os.cpu_count()} cores", flush=True)
    child = subprocess.run(
        [sys.executable, __file__, "--child", original, synthetic],
        check=True, capture_output=True, text=True,
    )
    report = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"counted in {report['count_s']:.1f} s; counts + all measures in "
          f"{report['total_s']:.1f} s; peak memory {report['peak_rss_gb']:.2f} GB")
    print(f"table {report['shape'][0]} targets x {report['shape'][1]:,} key combinations "
          f"({'sparse' if report['sparse'] else 'dense'}); records {report['n_orig']:,} / "
          f"{report['n_syn']:,}")
    print(f"disclosure(..., engine='duckdb') in one call: {report['one_call_s']:.1f} s; "
          f"largest difference from the measures above {report['one_call_max_abs_diff']:.1e}")
    for name, value in report["measures"].items():
        print(f"  {name:>16} {value:.10g}")
    ok_time, ok_mem = report["total_s"] < 180, report["peak_rss_gb"] < 24
    print(f"under 3 minutes: {ok_time}; under 24 GB: {ok_mem}")


def _same(a: object, b: object) -> bool:
    from scipy import sparse

    def dense(x: object) -> np.ndarray:
        return x.toarray() if sparse.issparse(x) else np.asarray(x)

    return (a.targets.equals(b.targets) and a.keys.equals(b.keys)
            and np.array_equal(dense(a.original), dense(b.original))
            and np.array_equal(dense(a.synthetic), dense(b.synthetic)))


def small_case(rows: int, folder: Path, seed: int, spark: bool) -> None:
    import pandas as pd

    from capkit.counts.tables import crosstab

    original, synthetic = generate(rows, folder, seed)
    frame_o, frame_s = pd.read_parquet(Path(original).parent), pd.read_parquet(
        Path(synthetic).parent)
    print(f"\n== {rows:,} + {rows:,} rows: pandas vs DuckDB vs Spark (best of 3)", flush=True)
    t_pandas, pandas_table = timed(lambda: crosstab(frame_o, frame_s, KEYS, TARGET))
    t_duck, duck_table = timed(lambda: crosstab(frame_o, frame_s, KEYS, TARGET,
                                                 engine="duckdb"))
    t_files_pandas, _ = timed(lambda: crosstab(original, synthetic, KEYS, TARGET,
                                                engine="pandas"))
    t_files_duck, files_table = timed(lambda: crosstab(original, synthetic, KEYS, TARGET,
                                                        engine="duckdb"))
    reference = measures(pandas_table)
    rows_out = [("pandas (DataFrames)", t_pandas, pandas_table),
                ("duckdb (DataFrames)", t_duck, duck_table),
                ("pandas (Parquet, read + count)", t_files_pandas, None),
                ("duckdb (Parquet)", t_files_duck, files_table)]
    if spark:
        from capkit.counts.engines.spark import session

        session()  # start the JVM outside the timing
        crosstab(frame_o.head(100), frame_s.head(100), KEYS, TARGET, engine="spark")
        t_spark, spark_table = timed(lambda: crosstab(original, synthetic, KEYS, TARGET,
                                                       engine="spark"))
        rows_out.append(("spark local (Parquet)", t_spark, spark_table))
    for name, seconds, table in rows_out:
        same = "" if table is None else (
            f"  table identical: {_same(pandas_table, table)}; measures identical: "
            f"{measures(table) == reference}")
        print(f"  {name:<32} {seconds:7.3f} s{same}")
    print(f"DuckDB / pandas time ratio: {t_duck / t_pandas:.2f} (DataFrames), "
          f"{t_files_duck / t_files_pandas:.2f} (Parquet files)")
    print("measures:", {k: round(v, 6) for k, v in reference.items()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--small-rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20240901)
    parser.add_argument("--data-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "capkit_bench_scale")
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--unique-rows", type=int, default=0,
                        help="also run the worst case (every record unique) with this many rows")
    parser.add_argument("--skip-spark", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("ORIGINAL", "SYNTHETIC"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        big_child(*args.child)
        return
    repo = Path(__file__).resolve().parents[1]
    if args.data_dir.resolve().is_relative_to(repo):
        parser.error("--data-dir must be outside the repository")
    if not args.skip_big:
        big_case(args.rows, args.data_dir / f"rows_{args.rows}", args.seed)
    if args.unique_rows:
        big_case(args.unique_rows, args.data_dir / f"unique_{args.unique_rows}", args.seed,
                 unique=True)
    small_case(args.small_rows, args.data_dir / f"rows_{args.small_rows}", args.seed,
               spark=not args.skip_spark)


if __name__ == "__main__":
    main()
