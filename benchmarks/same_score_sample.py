"""Below the pair budget, ``capkit.membership_inference.scores`` and ``summary`` give the numbers
of another checkout (the code before the scored-record sample) to the bit, every attack, on
varied cases: ties and copies, capkit's Gower and DOMIAS's conventions, a given reference.

Run: ``python benchmarks/same_score_sample.py DIR`` (``DIR``: e.g. a ``git archive`` of the
code before, holding ``capkit/``). Each checkout computes in its own process and prints a
fingerprint per case; the script prints both and whether they agree.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cases():
    import numpy as np
    import pandas as pd

    for seed in range(6):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(60, 400))

        def frame(size: int, rng=rng) -> pd.DataFrame:
            return pd.DataFrame({"a": rng.normal(size=size).round(int(rng.integers(0, 3))),
                                 "b": rng.normal(size=size) * 5,
                                 "c": rng.integers(0, 7, size).astype(float)})

        members, holdout, synthetic = frame(n), frame(n), frame(int(n * 0.8))
        synthetic.iloc[: n // 4] = members.iloc[: n // 4].to_numpy()  # copies: distance 0, ties
        for compat in (None, "domias"):
            yield f"seed {seed} compat {compat}", members, holdout, synthetic, None, compat
        yield f"seed {seed} reference", members, holdout, synthetic, frame(n // 2), None


def child() -> None:
    import numpy as np

    from capkit.membership_inference import scores, summary

    for name, members, holdout, synthetic, reference, compat in cases():
        per = scores(members, holdout, synthetic, reference, compat=compat, seed=3)
        table = summary(members, holdout, synthetic, reference, compat=compat, seed=3)
        digest = hashlib.sha256()
        for column in per.columns:
            digest.update(np.ascontiguousarray(per[column].to_numpy()).tobytes())
        digest.update(table.to_csv(float_format="%.17g").encode())
        digest.update(repr((per.attrs["notes"], table.attrs["notes"])).encode())
        print(f"{name}: {digest.hexdigest()[:16]}", flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child()
        return
    other = Path(sys.argv[1]).resolve()
    outputs = {}
    for label, code in (("this", HERE.parent), ("other", other)):
        env = dict(os.environ, PYTHONPATH=str(code))
        outputs[label] = subprocess.run([sys.executable, __file__, "--child"], env=env,
                                        check=True, capture_output=True, text=True).stdout
    for a, b in zip(outputs["this"].splitlines(), outputs["other"].splitlines(), strict=True):
        print(f"{a}   other {b.split(': ')[1]}   {'same' if a == b else 'DIFFERENT'}")
    print("all the same" if outputs["this"] == outputs["other"] else "DIFFERENCES")


if __name__ == "__main__":
    main()
