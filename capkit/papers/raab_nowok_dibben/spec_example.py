"""The small hand-worked example of the synthpop disclosure specification (section 10.1).

Keys ``sex`` (categorical F/M) and ``age`` (numeric, one missing value in the original);
targets ``smoke`` (categorical NO/YES, one missing value on each side) and ``nkids`` (numeric).
16 original and 15 synthetic records, small enough to check every measure by hand.
"""

from __future__ import annotations

import pandas as pd


def spec_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(original, synthetic) of the specification's worked example (fresh copies each call)."""
    na = None
    orig = pd.DataFrame({
        "sex": list("FFFFFFFMMMMMMMMF"),
        "age": [20, 20, 20, 30, 30, 40, na, 20, 20, 30, 30, 40, 40, 40, 50, 50],
        "smoke": ["NO", "NO", "YES", "NO", "NO", "YES", "NO", "YES", "YES", "NO", na, "NO",
                  "NO", "NO", "YES", "NO"],
        "nkids": [0, 1, 0, 2, 2, 1, 0, 3, 3, 1, 0, 2, 2, 1, 0, 1],
    })
    syn = pd.DataFrame({
        "sex": list("FFFFFMMFMMMMFMF"),
        "age": [20, 20, 30, 30, 40, 20, 20, 50, 30, 40, 40, 50, 50, 30, 60],
        "smoke": ["NO", "NO", "NO", "YES", "YES", "YES", "YES", "YES", "NO", "NO", "YES", "YES",
                  "NO", na, "NO"],
        "nkids": [0, 0, 2, 1, 1, 3, 3, 1, 1, 2, 1, 0, 1, 0, 2],
    })
    for frame in (orig, syn):
        frame["sex"] = pd.Categorical(frame["sex"], categories=["F", "M"])
        frame["age"] = frame["age"].astype(float)
        frame["smoke"] = pd.Categorical(frame["smoke"], categories=["NO", "YES"])
    return orig, syn
