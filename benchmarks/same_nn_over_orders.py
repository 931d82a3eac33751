"""Notebook 10's nearest-neighbour rate over row orders, two ways, on the quick run's data:
every order by a full :func:`capkit.attacks.baseline_table` (the notebook's code before), and
order 0 taken from the main table (with its holdout) plus the shuffled orders by one call
with ``dummy=False`` and ``row_orders`` (the notebook's code now). The means must agree to the
bit; the CPU seconds of each (alternating, best of ``--repeat``) are printed beside the load
average.

Run: ``CAPKIT_DATA=... python benchmarks/same_nn_over_orders.py [--full] [--repeat N]``
(``--full``: the full run's pools, key length and all records; needs the main tables, slow).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from capkit import attacks, datasets
from capkit.data.split import holdout_split
from capkit.synth import syn


def without_special(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(income=frame["income"].where(frame["income"] != -8))


def attacker_means(table: pd.DataFrame, target: str, trained_on: str) -> pd.Series:
    rows = table[(table["target"] == target) & (table["trained_on"] == trained_on)
                 & (table["scored_on"] == "members") & (table["attacker"] != "cap")]
    return rows.groupby("attacker")["rate"].mean()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    seeds = [1, 2, 3] if args.full else [1]
    key_length = 3 if args.full else 2
    adult_pool = (["age", "workclass", "education", "occupation", "relationship", "race", "sex",
                   "native.country"] if args.full else ["age", "education", "occupation"])
    sd_pool = ["sex", "age", "region", "placesize", "edu"] if args.full else ["sex", "age",
                                                                              "region"]
    columns = ["age", "workclass", "education", "education.num", "marital.status", "occupation",
               "relationship", "race", "sex", "native.country", "income"]
    adult_all = datasets.load_adult(progress=False)
    adult = adult_all[adult_all["income"].notna()][columns].reset_index(drop=True)
    a_members, a_holdout = holdout_split(adult, rows=None if args.full else 2000, seed=2020)
    a_syn = [syn(a_members, seed=s, progress=False).syn[0] for s in seeds]
    sd2011 = datasets.load_sd2011(progress=False)[
        ["sex", "age", "region", "placesize", "edu", "marital", "income", "ls"]]
    s_members, s_holdout = holdout_split(sd2011, rows=None if args.full else 1500, seed=2011)
    s_syn = [syn(s_members, seed=s, cont_na={"income": [-8]}, progress=False).syn[0]
             for s in seeds]
    inputs = {"Adult": (a_members, a_syn, adult_pool, a_holdout, ["income", "marital.status"]),
              "SD2011": (without_special(s_members), [without_special(s) for s in s_syn], sd_pool,
                         without_special(s_holdout), ["marital", "income"])}
    options = {"key_length": key_length, "seed": 0, "progress": False, "check_overlap": False}

    def before(name: str, target: str) -> pd.DataFrame:
        members, syntheses, pool = inputs[name][:3]
        runs = []
        for order in range(8):
            def shuffle(f: pd.DataFrame, order: int = order) -> pd.DataFrame:
                return f if order == 0 else f.sample(frac=1.0, random_state=order)
            run = attacks.baseline_table(shuffle(members), [shuffle(s) for s in syntheses], pool,
                                         target, attackers=["nn"], **options)
            runs.append({t: float(attacker_means(run, target, t)["nn"])
                         for t in ("synthetic", "original")})
        return pd.DataFrame(runs)

    def now(name: str, table: pd.DataFrame, target: str) -> pd.DataFrame:
        members, syntheses, pool = inputs[name][:3]
        shuffled = attacks.baseline_table(members, syntheses, pool, target, attackers=["nn"],
                                          dummy=False, row_orders=range(1, 8), **options)
        runs = [table, *(shuffled[shuffled["row_order"] == order] for order in range(1, 8))]
        return pd.DataFrame([{t: float(attacker_means(run, target, t)["nn"])
                              for t in ("synthetic", "original")} for run in runs])

    tables = {name: attacks.baseline_table(members, syntheses, pool, targets, holdout=holdout,
                                           **options)
              for name, (members, syntheses, pool, holdout, targets) in inputs.items()}
    best = {"before": float("inf"), "now": float("inf")}
    for _ in range(args.repeat):
        cpu = {"before": 0.0, "now": 0.0}
        for name, table in tables.items():
            for target in inputs[name][4]:
                start = time.process_time()
                old = before(name, target)
                cpu["before"] += time.process_time() - start
                start = time.process_time()
                new = now(name, table, target)
                cpu["now"] += time.process_time() - start
                same = (old.to_numpy().view(np.int64) == new.to_numpy().view(np.int64)).all()
                assert same and list(old.columns) == list(new.columns), (name, target)
        best = {k: min(best[k], v) for k, v in cpu.items()}
        print(f"cpu s before {cpu['before']:.2f}, now {cpu['now']:.2f}; "
              f"load {os.getloadavg()[0]:.2f}")
    print(f"all 4 (data set, target) means identical to the bit; best of {args.repeat}: "
          f"before {best['before']:.2f} s, now {best['now']:.2f} s, "
          f"ratio {best['now'] / best['before']:.3f}")


if __name__ == "__main__":
    main()
