"""Average CAP from frames of 1,000,000 original and 1,000,000 synthetic rows.

4 keys (cardinalities 2, 80, 16, 6) and a 10-level target, integer-coded. Prints the time of
``crosstab`` + ``average_cap`` (both versions) and the ratio to a bare pandas groupby-count of
the same two frames (the least any exact method must do), measured in the same run; best of 3.

Goal (foundation issue): under 2 s, within 3x of the bare count.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from _common import timed

from capkit import cap
from capkit.counts.tables import crosstab

KEYS = {"sex": 2, "age": 80, "region": 16, "size": 6}
TARGET = ("target", 10)


def make_frame(n: int, rng: np.random.Generator) -> pd.DataFrame:
    columns = {k: rng.integers(0, card, n) for k, card in KEYS.items()}
    columns[TARGET[0]] = rng.integers(0, TARGET[1], n)
    return pd.DataFrame(columns)


def main(n: int = 1_000_000) -> None:
    rng = np.random.default_rng(20201)
    original, synthetic = make_frame(n, rng), make_frame(n, rng)
    keys = list(KEYS)

    def capkit_run():
        table = crosstab(original, synthetic, keys, TARGET[0])
        return (cap.average_cap(table.original, table.synthetic, 1),
                cap.average_cap(table.original, table.synthetic, 2))

    def bare_count():
        cols = keys + [TARGET[0]]
        return (original.groupby(cols, sort=False).size(),
                synthetic.groupby(cols, sort=False).size())

    t_capkit, (v1, v2) = timed(capkit_run)
    t_bare, _ = timed(bare_count)
    print(f"rows: {n:,} original + {n:,} synthetic; keys {KEYS}; target levels {TARGET[1]}")
    print(f"average CAP v1 = {v1:.6f}, v2 = {v2:.6f}")
    print(f"capkit crosstab + average_cap (v1 and v2): {t_capkit:.3f} s")
    print(f"bare pandas groupby-count of both frames:  {t_bare:.3f} s")
    print(f"ratio capkit / bare count: {t_capkit / t_bare:.2f}x (goal <= 3x; time goal < 2 s)")


if __name__ == "__main__":
    main()
