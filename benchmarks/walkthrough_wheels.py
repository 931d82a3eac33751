"""Step 2 of the wheel-table walk-through: capkit's own syntheses and the custodian's runs.

Reads OUT/<table>/members.csv and holdout.csv (written by ``walkthrough_wheels_sdv.py`` in its
own venv, with the SDV syntheses and the hand-written Laplace marginals) and mst.csv
(smartnoise-synth's MST at epsilon 1, written by ``walkthrough_wheels_dp.py`` in its own venv),
adds capkit's bootstrap with noise (a leaky release), independent columns and sequential CART
(synthpop's ``syn``; Nowok, Raab and Dibben, "synthpop: Bespoke Creation of Synthetic Data in
R", 2016), then runs ``capkit report`` and ``capkit utility`` on each table (and, on the first,
``capkit membership``) as a custodian would, writing each run's output to
OUT/<table>/<command>.txt.

    python benchmarks/walkthrough_wheels.py /tmp/walk
"""
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from capkit.synth import syn
from capkit.synth.baselines import bootstrap_with_noise, independent_columns

RELEASES = ["bootstrap", "independent", "cart", "gaussiancopula", "ctgan", "dp_marginals", "mst"]


def make(d: Path) -> None:
    members = pd.read_csv(d / "members.csv")
    bootstrap_with_noise(members, seed=1).to_csv(d / "bootstrap.csv", index=False)
    independent_columns(members, seed=1).to_csv(d / "independent.csv", index=False)
    syn(members, seed=1, progress=False).syn[0].to_csv(d / "cart.csv", index=False)


def run(d: Path, name: str, args: list[str]) -> None:
    t = time.time()
    capkit = str(Path(sys.executable).parent / "capkit")
    p = subprocess.run([capkit, *args], cwd=d, capture_output=True, text=True)
    (d / f"{name}.txt").write_text(p.stdout + "\n--- stderr ---\n" + p.stderr
                                   + f"\n--- exit {p.returncode}, {time.time() - t:.0f} s\n")


def main(root: str) -> None:
    for i, table in enumerate(["fair", "randhie"]):
        d = Path(root) / table
        make(d)
        files = [f"{r}.csv" for r in RELEASES]
        run(d, "report", ["report", "members.csv", *files, "--holdout", "holdout.csv"])
        run(d, "utility", ["utility", *files, "--original", "members.csv"])
        if i == 0:
            run(d, "membership", ["membership", "members.csv", "bootstrap.csv",
                                  "--holdout", "holdout.csv"])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/walk")
