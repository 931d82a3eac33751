"""Same membership-inference scores as another checkout when one data set's releases are scored
in turn (as notebook 13 does): :func:`capkit.membership_inference.scores` of every attack on
Adult members, holdout and reference against several releases one after another in one process
(so that the reference densities kept from an earlier call are reused by a later one),
capkit's conventions and ``compat="domias"``, the releases and the frames cut to the numeric
columns, computed by this checkout and by the one named on the command line, each in its own
process, and compared bit for bit (every score, the notes and settings).

    CAPKIT_DATA=/folder/with/the/data python benchmarks/same_mi_releases.py /path/to/other/checkout
"""

from __future__ import annotations

import warnings

import pandas as pd
from _common import answers_here_and_there


def answers() -> list:
    from capkit import datasets
    from capkit import membership_inference as mi
    from capkit.data.split import holdout_split
    from capkit.synth import syn
    from capkit.synth.baselines import bootstrap_with_noise, independent_columns, leaky_release

    adult = datasets.load_adult(progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    members, rest = holdout_split(adult, holdout=2 / 3, rows=2400, seed=5)
    holdout, reference = holdout_split(rest, holdout=0.5, seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cart = syn(members, seed=1, progress=False).syn[0]
    independent = independent_columns(members, seed=1)
    releases = {"cart": cart, "bootstrap": bootstrap_with_noise(members, noise=0.01, seed=1),
                "independent": independent,
                "leaky": leaky_release(independent, members, 0.05, seed=2), "cart again": cart}
    numeric = list(members.select_dtypes("number").columns)
    found = []
    for name, synthetic in releases.items():
        frame = mi.scores(members, holdout, synthetic, reference, seed=0, overlap="allow")
        found.append((name, frame, repr(frame.attrs)))
    for name in ("bootstrap", "cart", "bootstrap"):
        cut = [f[numeric] for f in (members, holdout, releases[name], reference)]
        for compat in (None, "domias"):
            frame = mi.scores(*cut, seed=0, overlap="allow", compat=compat)
            found.append((f"{name} numeric {compat}", frame, repr(frame.attrs)))
    return found


def main() -> None:
    a, b, other = answers_here_and_there(__file__, answers)
    assert len(a) == len(b), (len(a), len(b))
    for x, y in zip(a, b, strict=True):
        assert x[0] == y[0]
        pd.testing.assert_frame_equal(x[1], y[1], check_exact=True)
        for column in x[1].columns:  # to the bit, NaN included
            assert x[1][column].to_numpy().tobytes() == y[1][column].to_numpy().tobytes(), x[0]
        assert x[2] == y[2], x[0]
    print(f"{len(a)} scored releases: every score equal to {other}'s, bit for bit")


if __name__ == "__main__":
    main()
