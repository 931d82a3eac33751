"""First call in a fresh process: capkit against SynthEval 1.7.3 and domias 0.0.5, each measure
timed as its user meets it, in a fresh Python process, on the peer's own benchmark.

Every measurement is one child process (``python bench_first_call.py --child ...``, in capkit's
venv or the peer's) that reads the tables from CSV files, imports the library, calls the measure
twice and prints its own CPU clock (``time.process_time``: every thread, and the interpreter's
start-up before any Python line) after each step. From it:

* ``process``: CPU from the process start to the end of the first call, i.e. the whole
  ``python -c "import pandas; read the CSVs; import <library>; <call>"``;
* ``lib+1st``: the same minus the common part (interpreter, pandas, reading the CSVs): the
  library's import and its first call;
* ``1st``: the first call alone, after the import; ``2nd``: the second call in that process.

Capkit and the peer alternate in every round, best of ``--repeat`` rounds per field; the ratio
is peer / capkit (> 1: capkit faster). Two sizes per family: ``--small`` records (3,000) and a
larger size the peer still finishes in memory (``--full``).

Families:

* ``syntheval``: ``SynthEval(real, holdout_dataframe=...).evaluate(syn, <metric>={...})`` alone
  per metric, on bench_syntheval.py's Adult tables (real n, holdout n / 5, a noisy bootstrap of
  n synthetic records). ``mia`` and ``att_discl`` fit the same library models on both sides
  (LightGBM, scikit-learn's random forests): their calls are the same work, not a goal.
  SynthEval's full size is 10,000 (its Gower matrices are n x n float64: 30,000 needs 7 GB each).
* ``domias``: the scores of GAN-Leaks, MC and DOMIAS's KDE ratio of n members and n non-members
  against n synthetic (and n reference) records on Adult's numeric columns (age, fnlwgt,
  capital.gain, capital.loss, hours.per.week; members, non-members and reference a seeded
  permutation, synthetic a noisy bootstrap of the members): ``capkit.membership_inference.
  scores(..., attacks=(<attack>,), compat="domias")`` against ``domias.baselines.GAN_leaks``,
  ``MC`` and ``gaussian_kde(X_G)(X) / (gaussian_kde(X_R)(X) + 1e-10)`` (what domias'
  ``evaluate_performance`` computes). The full size is 8,000 (domias' MC holds a 16,000 x 8,000
  float64 matrix, 1 GB); DOMIAS's KDE alone runs on all of Adult, a third in each role
  (``--measures domias --small 16280 --full 0``, results/first_call_domias_full.txt). DOMIAS's
  density is scipy's sum of every pair's kernel term to the last bit, the same work as
  scipy's C loop (:mod:`capkit.membership_inference.kde`): its row says so.

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_first_call.py --family syntheval
--peer-python /work/peers/syntheval/bin/python --out benchmarks/results/first_call_syntheval.txt``
(``--family domias --peer-python /work/peers/domias/bin/python``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CAT_COLS = ["workclass", "education", "marital.status", "occupation", "race", "sex", "income"]
SENSITIVE = ["income", "age"]
SYNTHEVAL_METRICS = {"dcr": {}, "nndr": {}, "nnaa": {"n_resample": 30}, "hit_rate": {},
                     "eps_risk": {}, "mia": {"num_eval_iter": 5}, "att_discl": {}}
SAME_WORK = {"mia": "LightGBM on both sides", "att_discl": "scikit-learn's forests on both sides"}
#: Why a measure cannot reach the goal although the call differs (counted in the goal lines).
NOTES = {"domias": "scipy's kernel sum: every pair's libm exp, in scipy's order (kde's docstring)"}
DOMIAS_ATTACKS = ("gan_leaks", "mc", "domias")
MI_NUMERIC = ["age", "fnlwgt", "capital.gain", "capital.loss", "hours.per.week"]


# --- the child: one fresh process, one measure, two calls ----------------------------------

def _child(args: argparse.Namespace) -> None:
    clock = {"start": time.process_time()}  # the interpreter's start-up
    import pandas as pd

    clock["pandas"] = time.process_time()

    def read(name: str) -> pd.DataFrame:
        return pd.read_csv(Path(args.folder) / f"{name}.csv", keep_default_na=False,
                           na_values=[""], float_precision="round_trip")

    if args.family == "syntheval":
        real, holdout, syn = read("real"), read("holdout"), read("syn")
        clock["data"] = time.process_time()
        call = _syntheval_call(args.side, args.measure, real, holdout, syn)
    else:
        frames = [read(n) for n in ("members", "nonmembers", "reference", "synthetic")]
        clock["data"] = time.process_time()
        call = _domias_call(args.side, args.measure, *frames)
    clock["import"] = time.process_time()
    call()
    clock["first"] = time.process_time()
    call()
    clock["second"] = time.process_time()
    print(json.dumps(clock))


def _syntheval_call(side: str, metric: str, real, holdout, syn):
    options = dict(SYNTHEVAL_METRICS[metric])
    if side == "capkit":
        from capkit.syntheval import AnalysisConfig, SynthEval

        if metric == "mia":
            options["classifier"] = "lightgbm"

        def call() -> None:
            se = SynthEval(real, holdout_dataframe=holdout, cat_cols=CAT_COLS)
            target = AnalysisConfig(dataset=real, target_vars="income", sensitive_vars=SENSITIVE)
            se.evaluate(syn, analysis_target=target, seed=0, **{metric: options})
        return call
    import numpy as np
    from syntheval import SynthEval
    from syntheval.utils.configuration import AnalysisConfig

    def call() -> None:
        se = SynthEval(real, holdout_dataframe=holdout, cat_cols=CAT_COLS, verbose=False,
                       enable_plots=False, console="off")
        target = AnalysisConfig(dataset=real, target_vars="income", sensitive_vars=SENSITIVE)
        np.random.seed(0)  # noqa: NPY002  (SynthEval draws from the global state)
        se.evaluate(syn, analysis_target=target, **{metric: options})
    return call


def _domias_call(side: str, attack: str, members, nonmembers, reference, synthetic):
    if side == "capkit":
        from capkit.membership_inference import scores

        def call() -> None:
            scores(members, nonmembers, synthetic, reference, attacks=(attack,),
                   compat="domias", overlap="allow")
        return call
    import numpy as np
    from domias import baselines
    from scipy import stats

    def call() -> None:
        x_test = np.ascontiguousarray(np.concatenate([members.to_numpy(),
                                                      nonmembers.to_numpy()]))
        x_g = np.ascontiguousarray(synthetic.to_numpy())
        if attack == "gan_leaks":
            baselines.GAN_leaks(x_test, x_g)
        elif attack == "mc":
            baselines.MC(x_test, x_g)
        else:
            x_r = np.ascontiguousarray(reference.to_numpy())
            p_g = stats.gaussian_kde(x_g.transpose(1, 0))(x_test.transpose(1, 0))
            p_r = stats.gaussian_kde(x_r.transpose(1, 0))(x_test.transpose(1, 0))
            _ = p_g / (p_r + 1e-10)
    return call


# --- the parent: data, alternation, table ---------------------------------------------------

def _write_syntheval(folder: Path, n: int) -> None:
    sys.path.insert(0, str(HERE))
    from bench_syntheval import tables

    for name, frame in zip(("real", "holdout", "syn"), tables(n, n // 5, n), strict=True):
        frame.to_csv(folder / f"{name}.csv", index=False, float_format="%.17g")


def _write_domias(folder: Path, n: int) -> None:
    import numpy as np

    from capkit.data.datasets import load_adult

    adult = load_adult(progress=False)[MI_NUMERIC].dropna().reset_index(drop=True).astype(float)
    order = np.random.default_rng(20261125).permutation(len(adult))
    parts = [adult.iloc[order[i * n:(i + 1) * n]].reset_index(drop=True) for i in range(3)]
    rng = np.random.default_rng(2)
    synthetic = parts[0].iloc[rng.integers(0, n, n)].reset_index(drop=True)
    for column in MI_NUMERIC:
        synthetic[column] = synthetic[column] + rng.normal(
            0, 0.01 * parts[0][column].std(ddof=1), n)
    for name, frame in zip(("members", "nonmembers", "reference", "synthetic"),
                           [*parts, synthetic], strict=True):
        frame.to_csv(folder / f"{name}.csv", index=False, float_format="%.17g")


def _run_child(python: str, family: str, side: str, measure: str, folder: Path) -> dict:
    env_path = str(ROOT) if side == "capkit" else ""
    import os

    env = dict(os.environ, PYTHONPATH=env_path)
    done = subprocess.run([python, str(Path(__file__).resolve()), "--child", "--family", family,
                           "--side", side, "--measure", measure, "--folder", str(folder)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{side} {measure}: {done.stderr[-2000:]}")
    clock = json.loads(done.stdout.strip().splitlines()[-1])
    return {"start": clock["start"], "pandas": clock["pandas"] - clock["start"],
            "csv": clock["data"] - clock["pandas"],
            "process": clock["first"], "lib+1st": clock["first"] - clock["data"],
            "import": clock["import"] - clock["data"], "1st": clock["first"] - clock["import"],
            "2nd": clock["second"] - clock["first"]}


FIELDS = ("process", "lib+1st", "1st", "2nd")


def measure_size(family: str, n: int, measures: list[str], peer_python: str, repeat: int,
                 folder: Path) -> list[dict]:
    """Best of ``repeat`` alternating rounds of every measure at size n."""
    rows = []
    for measure in measures:
        best = {"capkit": {}, "peer": {}}
        for _ in range(repeat):
            for side, python in (("capkit", sys.executable), ("peer", peer_python)):
                got = _run_child(python, family, side, measure, folder)
                for field, value in got.items():
                    best[side][field] = min(best[side].get(field, float("inf")), value)
        rows.append({"measure": measure, "rows": n, **best})
        print(_line(rows[-1]), flush=True)
    return rows


def common_line(rows: list[dict], n: int) -> str:
    """The common part of the processes at size n (least over every run of the size): the
    interpreter's start-up, importing pandas, reading the CSV files, in each venv."""
    here = [r for r in rows if r["rows"] == n]
    cells = []
    for side in ("capkit", "peer"):
        parts = {f: min(r[side][f] for r in here) for f in ("start", "pandas", "csv")}
        cells.append(f"{side}: start {parts['start']:.3f} + pandas {parts['pandas']:.3f} + "
                     f"CSVs {parts['csv']:.3f} = {sum(parts.values()):.3f}")
    return f"common part at {n:,} rows (CPU-s): " + "; ".join(cells)


def _line(row: dict) -> str:
    c, p = row["capkit"], row["peer"]
    cells = " ".join(f"{c[f]:7.3f} {p[f]:7.3f} {p[f] / c[f]:6.1f}x" for f in FIELDS)
    note = SAME_WORK.get(row["measure"], NOTES.get(row["measure"], ""))
    return f"{row['measure']:10s} {row['rows']:6,d} {cells}  {note}"


def header(peer: str) -> str:
    cells = " ".join(f"{f + ' capkit':>7s} {peer[:7]:>7s} {'ratio':>7s}" for f in FIELDS)
    return f"{'measure':10s} {'rows':>6s} {cells}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--family", choices=["syntheval", "domias"], default="syntheval")
    parser.add_argument("--peer-python", default=None)
    parser.add_argument("--small", type=int, default=3_000)
    parser.add_argument("--full", type=int, default=None,
                        help="the larger size (default 10,000 for syntheval, 8,000 for domias;"
                             " 0: skip)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full-repeat", type=int, default=1)
    parser.add_argument("--measures", nargs="*", default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    if args.peer_python is None:
        parser.error("--peer-python (the peer's venv python) is needed")
    run(args.family, args.peer_python, small=args.small, full=args.full, repeat=args.repeat,
        full_repeat=args.full_repeat, measures=args.measures, out=args.out)


def run(family: str, peer_python: str, *, small: int = 3_000, full: int | None = None,
        repeat: int = 3, full_repeat: int = 1, measures: list[str] | None = None,
        out: str | None = None) -> list[dict]:
    """Print (and write to ``out``) the table of the module docstring; returns its rows."""
    import os
    import tempfile

    measures = measures or (list(SYNTHEVAL_METRICS) if family == "syntheval"
                            else list(DOMIAS_ATTACKS))
    full = full if full is not None else (10_000 if family == "syntheval" else 8_000)
    peer = "SynthEval" if family == "syntheval" else "domias"
    sizes = f"{repeat} alternating rounds at {small:,} rows" + (
        f", {full_repeat} at {full:,}" if full > 0 else "")
    lines = [f"First call in a fresh process, capkit vs {peer} (CPU seconds, best of "
             f"{sizes}; load average {os.getloadavg()[0]:.1f} at the start)",
             "process: interpreter + pandas + CSVs + import + 1st call; lib+1st: import + 1st "
             "call; 1st, 2nd: the calls alone; ratio: peer / capkit", header(peer)]
    print("\n".join(lines), flush=True)
    rows = []
    for n, rounds in ((small, repeat), (full, full_repeat)):
        if n <= 0:
            continue
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            (_write_syntheval if family == "syntheval" else _write_domias)(folder, n)
            rows += measure_size(family, n, measures, peer_python, rounds, folder)
    lines += [_line(r) for r in rows]
    lines += [common_line(rows, n) for n in (small, full) if n > 0]
    goal = [r for r in rows if r["measure"] not in SAME_WORK]
    for field in FIELDS:
        worst = min(goal, key=lambda r: r["peer"][field] / r["capkit"][field])
        ratio = worst["peer"][field] / worst["capkit"][field]
        lines.append(f"goal >= 10x on {field:8s}: {'met' if ratio >= 10 else 'missed'}, "
                     f"the least ratio {ratio:.1f}x ({worst['measure']}, {worst['rows']:,} rows)")
    print("\n".join(lines[-len(FIELDS):]))
    if out:
        Path(out).write_text("\n".join(lines) + "\n")
    return rows


if __name__ == "__main__":
    main()
