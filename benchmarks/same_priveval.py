"""Same PrivEval metrics as another checkout: :func:`capkit.priveval.metrics` on PrivEval's Online
Shoppers data, several releases one after another in one process (so that searches kept from an
earlier call are reused by a later one), under the three variants and with saiph-style
randomised projections, computed by this checkout and by the one named on the command line,
each in its own process, compared bit for bit (every metric's float, NaN where skipped). The
two trained detectors (DetectionMLP, Membership Inference Risk) are skipped: no search of
theirs is involved, and they dominate the time.

    CAPKIT_DATA=/folder/with/the/data python benchmarks/same_priveval.py /path/to/other/checkout
"""

from __future__ import annotations

import numpy as np
from _common import answers_here_and_there

RELEASES = ("tabsyn", "privbayes(e=0.02)", "privbayes(e=1.0)", "privbayes(e=5.0)")
SKIP = ("DetectionMLP", "Membership Inference Risk")


def answers() -> list:
    from capkit.data.priveval_data import load_priveval
    from capkit.priveval import metrics

    real = load_priveval("real")
    found = []
    for name in RELEASES:
        synthetic = load_priveval(name)
        for variant in ("published", "priveval", "capkit"):
            r = metrics(real, synthetic, "Revenue", variant=variant, skip=SKIP, seed=0)
            found.append((name, variant, r.to_numpy().tobytes(), list(r.index)))
        for seed in (0, 3):
            r = metrics(real, synthetic, "Revenue", variant="published", seed=seed,
                        projection="randomized", skip=SKIP)
            found.append((name, f"randomized{seed}", r.to_numpy().tobytes(), list(r.index)))
    # the first release again, last: its searches come from the kept ones
    synthetic = load_priveval(RELEASES[0])
    r = metrics(real, synthetic, "Revenue", variant="published", skip=SKIP, seed=0)
    found.append((RELEASES[0], "again", r.to_numpy().tobytes(), list(r.index)))
    return found


def main() -> None:
    a, b, other = answers_here_and_there(__file__, answers)
    assert len(a) == len(b), (len(a), len(b))
    for x, y in zip(a, b, strict=True):
        assert x[:2] == y[:2] and x[3] == y[3], (x[:2], y[:2])
        assert x[2] == y[2], f"{x[0]} {x[1]}: {np.frombuffer(x[2])} != {np.frombuffer(y[2])}"
    print(f"{len(a)} metric calls on {len(RELEASES)} releases: every value equal to {other}'s, "
          "bit for bit")


if __name__ == "__main__":
    main()
