"""Same shadow-modelling features and audit as another checkout:
:func:`capkit.membership_inference.shadow_features.features` of varied synthetic frames (Adult
draws and their CART syntheses; mixed frames with missing numbers, missing levels, values
outside the data's levels, booleans, a constant column; an all-missing column; one record) and
a small :func:`capkit.membership_inference.audit_generator` of the CART generator on Adult,
computed by this checkout and by the one named on the command line, each in its own process,
compared bit for bit (every feature, every out-of-fold score and per-target number).

    CAPKIT_DATA=/folder/with/the/data python benchmarks/same_shadow_features.py /path/to/other
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from _common import answers_here_and_there


def _mixed(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n).round(1)
    a[rng.random(n) < 0.2] = np.nan
    txt = rng.choice(["x", "y", "z"], n).astype(object)
    txt[rng.random(n) < 0.15] = None
    cat = pd.Categorical(rng.choice(list("pqrs"), n), categories=list("srqp"))
    cat[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({"a": a, "txt": txt, "cat": cat, "flag": rng.random(n) < 0.5,
                         "cnt": rng.poisson(2, n), "const": np.full(n, 3.0),
                         "gone": np.full(n, np.nan)})


def answers() -> list:
    from capkit import datasets
    from capkit import membership_inference as mi
    from capkit.membership_inference import shadow_features as sf
    from capkit.synth import syn

    found = []
    adult = datasets.load_adult(progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    rng = np.random.default_rng(9)
    spec = sf.feature_spec(adult)
    for run in range(6):
        draw = adult.iloc[rng.permutation(len(adult))[:400]].reset_index(drop=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synthetic = syn(draw, seed=run, progress=False).syn[0]
        masks = sf.query_masks(adult.shape[1], 50, rng)
        for frame in (draw, synthetic, synthetic.iloc[:1]):
            target = sf.encode(spec, adult.iloc[[run * 7]])[0]
            found.append(sf.features(spec, frame, target, masks).tobytes())
    for seed in range(4):
        data = _mixed(seed, 300)
        spec = sf.feature_spec(data)
        masks = sf.query_masks(data.shape[1], 30, rng)
        other = _mixed(seed + 10, 120)
        other.loc[:5, "txt"] = "unseen"  # outside the data's levels
        for frame in (data, other, other.iloc[:1]):
            for row in (0, 3):
                target = sf.encode(spec, data.iloc[[row]])[0]
                found.append(sf.features(spec, frame, target, masks).tobytes())
    pool = adult.iloc[:3000].reset_index(drop=True)
    audit = mi.audit_generator(mi.cart_generator(), pool, n_targets=1, n_shadows=12,
                               train_size=150, folds=2, n_estimators=10, seed=0, progress=False)
    for frame in (audit.runs, audit.per_target):
        found += [(c, frame[c].to_numpy().tobytes()) for c in frame.columns if c != "kind"]
    return found


def main() -> None:
    a, b, other = answers_here_and_there(__file__, answers)
    assert len(a) == len(b), (len(a), len(b))
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        assert x == y, f"answer {i} differs"
    print(f"{len(a)} feature vectors and audit results: equal to {other}'s, bit for bit")


if __name__ == "__main__":
    main()
