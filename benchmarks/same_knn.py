"""Same answers as another checkout: capkit's exact k-nearest search
(:func:`capkit.distance.grid_knn.exact_neighbours`, every field of its answer; imported through
:mod:`capkit.attacks.knn`, which older checkouts hold it in) and PrivEval's
DetectionMLP (:func:`capkit.attacks.detection.mlp_detection_auc`) on seeded random cases
(continuous features, few levels with many ties, near-copies, repeated training rows), computed
by this checkout and by the one named on the command line, each in its own process, compared
for equality (no tolerance: integer grids and the same floating-point operations).

    python benchmarks/same_knn.py /path/to/other/checkout
"""

from __future__ import annotations

import sys

import numpy as np
from _common import answers_here_and_there

FIELDS = ("index", "distance", "kth", "n_below", "n_at_kth", "n_at_min")


def cases(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for case in range(40):
        n, m, p = int(rng.integers(1, 300)), int(rng.integers(1, 300)), int(rng.integers(1, 12))
        kind = case % 4
        if kind == 0:
            train, query = rng.normal(size=(m, p)), rng.normal(size=(n, p))
        elif kind == 1:
            train = rng.integers(0, 3, (m, p)).astype(float)
            query = rng.integers(0, 3, (n, p)).astype(float)
        elif kind == 2:
            train = rng.normal(size=(m, p)) * 1e3
            query = train[rng.integers(0, m, n)] + (rng.random((n, 1)) < 0.5)
        else:
            train = np.repeat(rng.normal(size=(m // 3 + 1, p)), 3, axis=0)[:m]
            query = rng.normal(size=(n, p))
        out.append((train, query))
    return out


def answers() -> list:
    from capkit.attacks.detection import mlp_detection_auc
    from capkit.attacks.knn import exact_neighbours

    found = []
    for seed in (1, 2):
        for train, query in cases(seed):
            for k in sorted({1, 2, 5, len(train)}):
                if k <= len(train):
                    got = exact_neighbours(train, query, k)
                    found.append([np.asarray(getattr(got, f)).copy() for f in FIELDS])
    rng = np.random.default_rng(3)
    for shift in (0.0, 0.5, 3.0):
        found.append(mlp_detection_auc(rng.normal(size=(120, 4)),
                                       rng.normal(size=(100, 4)) + shift, folds=3))
    return found


def main() -> None:
    a, b, other = answers_here_and_there(__file__, answers)
    same = len(a) == len(b) and all(
        (x == y) if isinstance(x, float) else
        all(np.array_equal(u, v) and u.dtype == v.dtype for u, v in zip(x, y, strict=True))
        for x, y in zip(a, b, strict=True))
    print(f"{len(a)} answers; equal to {other}'s: {same}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
