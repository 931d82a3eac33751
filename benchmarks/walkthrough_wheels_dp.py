"""Step 1b of the wheel-table walk-through (run in its own venv with smartnoise-synth).

Reads OUT/<table>/members.csv (written by ``walkthrough_wheels_sdv.py``) and writes a
differentially private synthesis made by smartnoise-synth's MST at epsilon 1 (McKenna, Miklau
and Sheldon, "Winning the NIST Contest: A scalable and general approach to differentially
private synthetic data", Journal of Privacy and Confidentiality, 2021; the synthesiser that won
NIST's 2018 challenge, with private-pgm's ``mbi`` for its graphical model) to
OUT/<table>/mst.csv. A column with at most 20 distinct values is a category (its values as
they are); the others are continuous, binned by smartnoise's preprocessor, which spends 0.1 of
the epsilon on their bounds (so 0.9 for the marginals).

OpenDP draws MST's Gaussian noise from a secure source that cannot be seeded (by design), so
the file differs from run to run; numpy's state is seeded for the rest.

    python -m venv /work/peers/smartnoise; pip install smartnoise-synth statsmodels
    python benchmarks/walkthrough_wheels_dp.py /tmp/walk
"""
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

EPSILON, PREPROCESSOR_EPSILON, CATEGORY_LEVELS = 1.0, 0.1, 20


def mst(members: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    from snsynth import Synthesizer
    np.random.seed(seed)  # noqa: NPY002 (smartnoise draws from numpy's global state)
    categorical = [c for c in members.columns if members[c].nunique() <= CATEGORY_LEVELS]
    continuous = [c for c in members.columns if c not in categorical]
    synth = Synthesizer.create("mst", epsilon=EPSILON, verbose=False)
    out = synth.fit_sample(members, preprocessor_eps=PREPROCESSOR_EPSILON,
                           categorical_columns=categorical, continuous_columns=continuous)
    return out[list(members.columns)]


def main(root: str) -> None:
    for table in ["fair", "randhie"]:
        d = Path(root) / table
        start = time.time()
        mst(pd.read_csv(d / "members.csv")).to_csv(d / "mst.csv", index=False)
        print(table, f"MST at epsilon {EPSILON}: {time.time() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/walk")
