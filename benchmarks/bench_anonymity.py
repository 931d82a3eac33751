"""Benchmark: the original's own exposure (anonymity levels and individual risk) on 100 million
rows through DuckDB, and pycanon 1.3.6 on a size it can handle.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_anonymity.py                    # 100M rows
    .venv/bin/python benchmarks/bench_anonymity.py --rows 10000000    # a busy machine
    .venv/bin/python benchmarks/bench_anonymity.py --pycanon /work/peers/pycanon/bin/python

Data: DuckDB itself writes the rows (never pandas): ``SELECT ... FROM range(rows)`` with
columns drawn from DuckDB's ``hash`` of the row number -- age 17-89, sex, region 0-49 (the
quasi-identifiers of the levels, 7,300 classes), education 0-15 (a fourth key for the
individual risk: up to 116,800 keys), income 0-9 (numeric sensitive attribute: ordered
t-closeness), occupation (14 text values) and a sampling weight 1-100 -- to Parquet files in the
system temporary folder (reused when they exist with the same rows). Then, each timed once on
the Parquet glob:

- :func:`capkit.anonymity.anonymity_levels` (all nine levels, income and occupation, gen=True):
  one ``GROUP BY`` over quasi-identifiers and sensitive attributes in DuckDB, the levels from the
  grouped rows in numpy;
- :func:`capkit.anonymity.individual_risk` with the weights (one ``GROUP BY`` over the four
  keys with the weights' sum, min, max and missing count).

Target: under a minute for 100M rows. With ``--pycanon PYTHON`` (a separate venv with
pycanon 1.3.6), pycanon's nine calls are timed on ``--pycanon-rows`` rows (default 20,000) of
the same data, written as one CSV file that both read with pandas, and capkit's calls on the
same frame (pandas, ``pycanon=True``); their numbers are compared.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

QI = ["age", "sex", "region"]
SA = ["income", "occupation"]
KEYS = ["age", "sex", "region", "education"]

GENERATOR = """
SELECT
    17 + CAST(hash(i, 1) % 73 AS INTEGER)                   AS age,
    CAST(hash(i, 2) % 2 AS INTEGER)                          AS sex,
    CAST(floor(50 * pow((hash(i, 3) % 1000000) / 1e6, 2)) AS INTEGER) AS region,
    CAST(hash(i, 4) % 16 AS INTEGER)                         AS education,
    CAST((hash(i, 5) % 7 + (hash(i, 1) % 73) // 10) % 10 AS INTEGER) AS income,
    'occ' || CAST(hash(i, 6) % 14 AS VARCHAR)                AS occupation,
    1.0 + CAST(hash(i, 7) % 9900 AS DOUBLE) / 100            AS weight
FROM range({rows}) t(i)
"""


def generate(rows: int, folder: Path) -> str:
    """Write (or reuse) ``rows`` rows as Parquet through DuckDB; return the glob."""
    import duckdb

    marker = folder / "done.json"
    spec = {"rows": rows, "version": 1}
    glob = str(folder / "*.parquet")
    if marker.exists() and json.loads(marker.read_text()) == spec:
        return glob
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.parquet"):
        old.unlink()
    start = time.perf_counter()
    con = duckdb.connect()
    con.execute(f"COPY ({GENERATOR.format(rows=rows)}) TO '{folder}' "
                "(FORMAT PARQUET, PER_THREAD_OUTPUT TRUE, OVERWRITE_OR_IGNORE TRUE)")
    con.close()
    marker.write_text(json.dumps(spec))
    print(f"generated {rows:,} rows in {folder} ({time.perf_counter() - start:.1f} s)",
          flush=True)
    return glob


def run_capkit(glob: str) -> dict:
    from capkit import anonymity

    out = {}
    start = time.perf_counter()
    levels = anonymity.anonymity_levels(glob, QI, SA, engine="duckdb")
    out["levels_s"] = time.perf_counter() - start
    out["levels"] = levels.as_dict()
    start = time.perf_counter()
    risk = anonymity.individual_risk(glob, KEYS, "weight", engine="duckdb")
    out["risk_s"] = time.perf_counter() - start
    out["risk"] = {"records": risk.records, "keys": len(risk.per_key),
                   "sample_uniques": risk.sample_uniques,
                   "expected_reidentifications": risk.expected_reidentifications,
                   "global_risk": risk.global_risk, "max_risk": risk.max_risk}
    return out


PYCANON_SCRIPT = textwrap.dedent("""
    import json, sys, time
    import pandas as pd
    from pycanon import anonymity as a
    data = pd.read_csv(sys.argv[1])
    qi, sa = json.loads(sys.argv[2]), json.loads(sys.argv[3])
    out = {}
    start = time.perf_counter()
    out["k"] = a.k_anonymity(data, qi)
    out["alpha"] = a.alpha_k_anonymity(data, qi, sa)[0]
    out["l"] = a.l_diversity(data, qi, sa)
    out["entropy_l"] = a.entropy_l_diversity(data, qi, sa)
    out["c"] = float(a.recursive_c_l_diversity(data, qi, sa)[0])
    out["beta_basic"] = a.basic_beta_likeness(data, qi, sa)
    out["beta_enhanced"] = a.enhanced_beta_likeness(data, qi, sa)
    out["delta"] = a.delta_disclosure(data, qi, sa)
    out["t"] = a.t_closeness(data, qi, sa)
    out["seconds"] = time.perf_counter() - start
    print(json.dumps({k: float(v) for k, v in out.items()}))
""")


def compare_with_pycanon(python: str, glob: str, rows: int, folder: Path) -> dict:
    import duckdb

    from capkit import anonymity

    small = folder / f"sample_{rows}.csv"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * FROM read_parquet('{glob}') ORDER BY hash(age, sex, region, "
                f"education, income, occupation, weight), age, sex, region, education, income, "
                f"occupation, weight LIMIT {rows}) TO '{small}' (FORMAT CSV, HEADER)")
    con.close()
    done = subprocess.run([python, "-c", PYCANON_SCRIPT, str(small), json.dumps(QI),
                           json.dumps(SA)], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"pycanon failed: {done.stderr[-2000:]}")
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    import pandas as pd

    data = pd.read_csv(small)  # both read the same file the same way
    start = time.perf_counter()
    calls = {
        "k": anonymity.k_anonymity(data, QI, pycanon=True),
        "alpha": anonymity.alpha_k_anonymity(data, QI, SA, pycanon=True)[0],
        "l": anonymity.l_diversity(data, QI, SA, pycanon=True),
        "entropy_l": anonymity.entropy_l_diversity(data, QI, SA, pycanon=True),
        "c": anonymity.recursive_c_l_diversity(data, QI, SA, pycanon=True)[0],
        "beta_basic": anonymity.basic_beta_likeness(data, QI, SA, pycanon=True),
        "beta_enhanced": anonymity.enhanced_beta_likeness(data, QI, SA, pycanon=True),
        "delta": anonymity.delta_disclosure(data, QI, SA, pycanon=True),
        "t": anonymity.t_closeness(data, QI, SA, pycanon=True),
    }
    mine_s = time.perf_counter() - start
    differ = {k: (float(v), theirs[k]) for k, v in calls.items()
              if abs(float(v) - theirs[k]) > 1e-9 * max(1.0, abs(theirs[k]))}
    return {"rows": rows, "pycanon_s": theirs["seconds"], "capkit_s": mine_s,
            "differ": differ}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--data-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "capkit_bench_anonymity")
    parser.add_argument("--pycanon", help="python of a venv with pycanon 1.3.6")
    parser.add_argument("--pycanon-rows", type=int, default=20_000)
    args = parser.parse_args(argv)
    glob = generate(args.rows, args.data_dir / f"rows_{args.rows}")
    result = {"rows": args.rows} | run_capkit(glob)
    print(json.dumps(result, indent=2, default=float), flush=True)
    if args.pycanon:
        print(json.dumps(compare_with_pycanon(args.pycanon, glob, args.pycanon_rows,
                                              args.data_dir), indent=2), flush=True)


if __name__ == "__main__":
    sys.exit(main())
