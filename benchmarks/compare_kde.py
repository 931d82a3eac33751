"""DOMIAS's scores of this checkout against another capkit checkout's, byte for byte.

Each side runs in its own process (``PYTHONPATH`` = the checkout) and computes a SHA-256 of
``scores(..., attacks=("domias", "domias_density"))`` per case, in DOMIAS's compatible mode
(scipy's density and ratio) and in capkit's (log densities without underflow), and of
``kde.density`` / ``kde.log_density`` at the same points. Cases: correlated normal columns,
Adult-like integer and heavy-tailed columns, rounded columns with ties and copied rows, coded
columns where at most half the rows are distinct (the merged sum), far records whose density
underflows, one column, and sizes on both sides of the numpy path's limit.

Run: ``.venv/bin/python benchmarks/compare_kde.py --baseline /path/to/other/checkout``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys

from _common import answers_here_and_there


def _cases():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(20261129)

    def frames(data, split):
        cols = [f"c{k}" for k in range(data.shape[1])]
        parts = np.split(data, split)
        return [pd.DataFrame(p, columns=cols) for p in parts]

    out = {}
    mix = rng.normal(size=(4, 4)) + 2 * np.eye(4)
    out["normal"] = frames(rng.normal(size=(1600, 4)) @ mix, [400, 800, 1200])
    n = 4000
    adult = np.column_stack([rng.integers(17, 90, n), np.exp(rng.normal(12, 0.5, n)),
                             np.where(rng.random(n) < 0.9, 0, rng.integers(100, 99999, n)),
                             rng.integers(1, 99, n)]).astype(float)
    out["adult-like"] = frames(adult, [1000, 2000, 3000])
    ties = np.round(rng.normal(size=(1200, 3)) * 3)
    ties[900:1000] = ties[:100]
    out["ties"] = frames(ties, [300, 600, 900])
    coded = (rng.integers(0, 4, (2400, 3)) + rng.integers(0, 2, (2400, 1))).astype(float)
    out["coded"] = frames(coded, [600, 1200, 1800])
    far = rng.normal(size=(800, 2))
    far[200:260] += 60.0
    out["far"] = frames(far, [200, 400, 600])
    out["one column"] = frames(rng.exponential(size=(1200, 1)), [300, 600, 900])
    big = rng.normal(size=(4 * 9000, 3))
    out["past the numpy limit"] = frames(big, [9000, 18000, 27000])
    return out


def _digests() -> dict:
    import numpy as np

    from capkit.membership_inference import kde, scores

    digests = {}
    for name, (members, nonmembers, synthetic, reference) in _cases().items():
        for compat in (None, "domias"):
            got = scores(members, nonmembers, synthetic, reference,
                         attacks=("domias", "domias_density"), compat=compat, overlap="allow")
            values = got[["domias", "domias_density"]].to_numpy(dtype=np.float64)
            digests[f"{name} scores compat={compat}"] = hashlib.sha256(
                np.ascontiguousarray(values).tobytes()).hexdigest()
        fitted = kde.fit(synthetic.to_numpy(dtype=float))
        points = np.concatenate([members.to_numpy(dtype=float), nonmembers.to_numpy(dtype=float)])
        for label, values in (("density", kde.density(fitted, points)),
                              ("log_density", kde.log_density(fitted, points))):
            digests[f"{name} {label}"] = hashlib.sha256(values.tobytes()).hexdigest()
    return digests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", help="the other capkit checkout")
    args = parser.parse_args()
    if not args.baseline and not args.write:
        parser.error("--baseline is needed")
    ours, theirs, _ = answers_here_and_there(__file__, _digests, args.baseline)
    same = 0
    for key in ours:
        equal = ours[key] == theirs.get(key)
        same += equal
        print(f"{'same' if equal else 'DIFFERENT':9s} {key}")
    print(f"{same} of {len(ours)} outputs byte-identical")
    if same != len(ours):
        sys.exit(1)


if __name__ == "__main__":
    main()
