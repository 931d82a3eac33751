"""The numeric ``mlp`` attacker on SD2011's income (notebook 10's full run: every record split in
halves, 3 CART syntheses, 3 keys of 5, the special value -8 missing), fitted by capkit's repeat
of scikit-learn's ``MLPRegressor`` (:mod:`capkit.attacks._mlp_regressor`) and by scikit-learn
itself, alternately: the same baseline table (``DataFrame.equals``) and each path's CPU seconds,
best of two, with the load average.

Run: ``CAPKIT_DATA=... python benchmarks/same_mlp_regressor.py``.
"""

from __future__ import annotations

import os
import time

from capkit import attacks, datasets
from capkit.attacks import _mlp_regressor as mr
from capkit.data.split import holdout_split
from capkit.synth import syn

COLUMNS = ["sex", "age", "region", "placesize", "edu", "marital", "income", "ls"]
POOL = ["sex", "age", "region", "placesize", "edu"]


def main() -> None:
    sd2011 = datasets.load_sd2011(progress=False)[COLUMNS]
    members, holdout = holdout_split(sd2011, rows=None, seed=2011)
    syntheses = [syn(members, seed=s, cont_na={"income": [-8]}, progress=False).syn[0]
                 for s in (1, 2, 3)]

    def known(frame):
        return frame.assign(income=frame["income"].where(frame["income"] != -8))

    covered = mr.covered
    times: dict[bool, list[float]] = {False: [], True: []}
    tables = {}
    for _ in range(2):
        for fast in (False, True):
            mr.covered = covered if fast else (lambda model, x: False)
            start = time.process_time()
            tables[fast] = attacks.baseline_table(
                known(members), [known(s) for s in syntheses], POOL, ["income"], key_length=3,
                attackers=["mlp"], holdout=known(holdout), seed=0, progress=False,
                check_overlap=False)
            times[fast].append(time.process_time() - start)
            print(f"{'capkit ' if fast else 'sklearn'} {times[fast][-1]:6.2f} CPU-s  "
                  f"load {os.getloadavg()[0]:.2f}", flush=True)
    mr.covered = covered
    print("same table:", tables[False].equals(tables[True]))
    print(f"best: scikit-learn {min(times[False]):.2f} CPU-s, capkit {min(times[True]):.2f} CPU-s")


if __name__ == "__main__":
    main()
