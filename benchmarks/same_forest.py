"""The random-forest attackers of notebooks 10 and 15, with this code and with another checkout's
(``--baseline DIR``, e.g. the code before the compiled tree grower): the same tables and RAPID
results to the byte (a digest of each pickled result), and the CPU seconds of each side, run
alternately in fresh processes, best of ``--repeat``, beside the load average.

Cases: the baseline table's "rf" (weighted cells) and "ranger" (records) attackers on Adult and
SD2011 (categorical and numeric targets, with a holdout, two syntheses), RAPID's simulations
(kappa 0 and 20, the "ranger" forest) and RAPID on an Adult sample with its bootstrap and
permutation choice.

Run: ``CAPKIT_DATA=... python benchmarks/same_forest.py --baseline /path/to/other/checkout``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path


def child() -> None:
    import pandas as pd

    from capkit import attacks, datasets
    from capkit.attacks import rapid
    from capkit.data.split import holdout_split
    from capkit.papers.templ_thees_mueller import experiments as paper
    from capkit.synth import syn

    adult_all = datasets.load_adult(progress=False)
    columns = ["age", "workclass", "education", "occupation", "relationship", "sex",
               "marital.status", "income"]
    adult = adult_all[adult_all["income"].notna()][columns].reset_index(drop=True)
    members, holdout = holdout_split(adult, rows=3000, seed=7)
    syntheses = [syn(members, seed=s, progress=False).syn[0] for s in (1, 2)]
    sd = datasets.load_sd2011(progress=False)[["sex", "age", "region", "edu", "marital",
                                              "income"]]
    sd = sd.assign(income=sd["income"].where(sd["income"] != -8))
    sd_members, sd_holdout = holdout_split(sd, rows=1600, seed=3)
    sd_syn = [syn(sd_members, seed=4, progress=False).syn[0]]
    frame = paper.adult_frame(adult_all).sample(4000, random_state=5).reset_index(drop=True)
    frame_syn = syn(frame, seed=6, progress=False).syn[0]
    keys = [c for c in frame.columns if c != "income"]
    start = time.process_time()
    results = {
        "adult rf/ranger": attacks.baseline_table(
            members, syntheses, ["age", "workclass", "education", "occupation", "sex"],
            ["income", "marital.status"], key_length=3, attackers=["rf", "ranger"],
            holdout=holdout, seed=3, progress=False, check_overlap=False),
        "sd2011 rf/ranger": attacks.baseline_table(
            sd_members, sd_syn, ["sex", "age", "region", "edu"], ["marital", "income"],
            key_length=2, attackers=["rf", "ranger"], holdout=sd_holdout, seed=1,
            progress=False, check_overlap=False),
        "rapid simulations": paper.simulation_runs([0, 20], 2, {"rf": "ranger"},
                                                   taus=[0.1, 0.3, 0.5, 0.9]),
    }
    result = rapid(frame, frame_syn, keys, "income", seed=2, n_bootstrap=100)
    results["rapid adult"] = (result.records, result.rapid, result.bootstrap_ci,
                              result.threshold_choice.to_frame(), result.scores)
    cpu = time.process_time() - start
    digests = {k: hashlib.sha256(pickle.dumps(v)).hexdigest()
               for k, v in results.items() if not isinstance(v, pd.DataFrame)}
    digests.update({k: hashlib.sha256(pickle.dumps(v.to_dict("list"))).hexdigest()
                    for k, v in results.items() if isinstance(v, pd.DataFrame)})
    print(json.dumps({"cpu": cpu, "digests": digests}))


def run(root: str) -> dict:
    env = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run([sys.executable, __file__, "--child"], env=env, check=True,
                         capture_output=True, text=True, cwd=root)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", required=True, help="the other checkout's folder")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args, _ = parser.parse_known_args()
    here = str(Path(__file__).resolve().parents[1])
    cpu: dict[str, list[float]] = {"this": [], "baseline": []}
    digests = {}
    for _ in range(args.repeat):
        for side, root in (("baseline", args.baseline), ("this", here)):
            got = run(root)
            cpu[side].append(got["cpu"])
            if side in digests and digests[side] != got["digests"]:
                raise SystemExit(f"{side}: two runs differ")
            digests[side] = got["digests"]
    same = digests["this"] == digests["baseline"]
    for name in digests["this"]:
        mark = "same" if digests["this"][name] == digests["baseline"][name] else "DIFFERENT"
        print(f"{name:20s} {mark}")
    print(f"CPU-s (best of {args.repeat}): this {min(cpu['this']):.2f}, baseline "
          f"{min(cpu['baseline']):.2f}, ratio {min(cpu['baseline']) / min(cpu['this']):.2f}; "
          f"load average {os.getloadavg()[0]:.1f}")
    if not same:
        raise SystemExit("results differ")


if __name__ == "__main__":
    if "--child" in sys.argv:
        child()
    else:
        main()
