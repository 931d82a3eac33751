"""The project's own reference outputs (``reference/``) are those of the full oracle they were
taken from: same results, same synthetic files, and the original data rebuilt through the loader
equals the file R read. Runs only beside a development clone (``../shared/oracle``)."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest
from reference_data import SHARED_ORACLE, SYNTHPOP, same_values, synthpop_oracle_root

from capkit.data import datasets

needs_shared = pytest.mark.skipif(not SHARED_ORACLE.is_dir(),
                                  reason="the full oracle (../shared/oracle) is not beside")
CASES = sorted(p.name for p in SYNTHPOP.iterdir() if p.is_dir())


@needs_shared
@pytest.mark.parametrize("case", CASES)
def test_synthpop_reference_equals_the_oracle(case: str) -> None:
    shipped = SYNTHPOP / case
    with gzip.open(shipped / "results.json.gz", "rt", encoding="utf-8") as f:
        assert json.load(f) == json.loads((SHARED_ORACLE / case / "results.json").read_text())
    for source in shipped.iterdir():
        if (SHARED_ORACLE / case / source.name).is_file():  # gzipped in the oracle too
            assert source.read_bytes() == (SHARED_ORACLE / case / source.name).read_bytes()
        elif source.name.endswith(".csv.gz"):
            with gzip.open(source, "rb") as f:
                assert f.read() == (SHARED_ORACLE / case / source.name[:-3]).read_bytes()
        elif source.suffix == ".csv":
            assert source.read_bytes() == (SHARED_ORACLE / case / source.name).read_bytes()


@needs_shared
@pytest.mark.parametrize("case", [c for c in CASES if (SYNTHPOP / c / "original.json").is_file()])
def test_rebuilt_original_equals_the_file_r_read(case: str) -> None:
    rebuilt, syn_shipped = datasets.load_oracle_case(SYNTHPOP / case)
    read, syn_oracle = datasets.load_oracle_case(SHARED_ORACLE / case)
    pd.testing.assert_frame_equal(rebuilt, read)
    for a, b in zip(syn_shipped, syn_oracle, strict=True):
        pd.testing.assert_frame_equal(a, b)
    raw = pd.read_csv(synthpop_oracle_root() / case / "orig.csv", dtype=str,
                      keep_default_na=False)
    want = pd.read_csv(SHARED_ORACLE / case / "orig.csv", dtype=str, keep_default_na=False)
    assert same_values(raw, want)


def test_no_original_data_is_shipped() -> None:
    """Data is never committed: no reference folder holds an ``orig.csv`` of a real data set."""
    for recipe in SYNTHPOP.glob("*/original.json"):
        assert not list(recipe.parent.glob("orig.csv*"))
