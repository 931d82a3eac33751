"""The inputs of the SDNist k-DiSCO reference (reference/sdnist/), rebuilt: a random case
from a numpy seed (once without and once with ``a`` as a stable identifier), and the first 1,500
records of Adult and of synthpop's CART synthesis of it (reference/synthpop/adult_band, seed 1)
on 8 columns. Every value is text (as SDNist reads its CSV files with ``dtype=str``); a missing
value is the empty text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "sdnist"
ADULT_COLUMNS = ["age", "education", "marital.status", "occupation", "race", "sex",
                 "income", "capital.loss"]
K = {"random": 2, "adult": 2, "random_fixed": 2}
#: SDNist's "stable identifiers" (keys in every combination) of each case.
FIXED = {"random": [], "adult": [], "random_fixed": ["a"]}


def random_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Six text columns of 400 (original) and 350 (synthetic) records, seed 20261125."""
    rng = np.random.default_rng(20261125)

    def frame(n: int) -> pd.DataFrame:
        cols = {c: rng.integers(0, size, n) for c, size in zip("abcdef", (3, 4, 5, 2, 6, 3),
                                                                  strict=True)}
        return pd.DataFrame({c: [f"{c}{v}" for v in x] for c, x in cols.items()})

    return frame(400), frame(350)


def adult_case(data: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first 1,500 records of Adult and of synthpop's synthesis, 8 columns, as text."""
    from capkit.data import datasets
    from capkit.papers.raab_nowok_dibben.adult_band import load_adult_band

    adult = datasets.load_adult(data, progress=False)[ADULT_COLUMNS].iloc[:1500]
    band = load_adult_band(ROOT / "reference" / "synthpop" / "adult_band", [1])[1]
    synthetic = band[ADULT_COLUMNS].iloc[:1500]

    def text(frame: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame({c: frame[c].astype(object).where(frame[c].notna(), "")
                             .map(str).to_numpy() for c in frame.columns})

    return text(adult), text(synthetic)
