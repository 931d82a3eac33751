"""synthpop 1.9-2's utility outputs shipped in ``reference/synthpop_utility/`` (README there),
read for the tests through :mod:`capkit.papers.raab_nowok_dibben.utility_vignette`: the
recorded calls, their files as typed frames, and the keyword arguments that replay each call.

The original SD2011 extract is not shipped: ``original.json`` names its columns and it is
rebuilt with :func:`capkit.data.datasets.load_sd2011` (tests skip when SD2011 is not at hand).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pytest
from reference_data import SHARED_DATA

from capkit.data import datasets
from capkit.papers.raab_nowok_dibben import utility_vignette

ROOT = Path(__file__).resolve().parents[1] / "reference" / "synthpop_utility"
CASES = ("sd2011_m1", "sd2011_m5", "vignette")


def have_sd2011() -> bool:
    return (SHARED_DATA / "SD2011.rda").is_file() or (
        datasets.cache_dir() / "SD2011.rda").is_file()


needs_sd2011 = pytest.mark.skipif(not have_sd2011(), reason="SD2011 data not available (set "
                                  "CAPKIT_DATA to a folder with SD2011.rda)")


@functools.cache
def results(case: str) -> dict:
    return utility_vignette.read_results(ROOT / case)


@functools.cache
def _case(case: str) -> tuple[pd.DataFrame, dict[str, list[pd.DataFrame]]]:
    original, syntheses, _ = utility_vignette.load_case(ROOT / case)
    return original, syntheses


def calls(case: str, prefix: str = "") -> list[str]:
    return [c for c in results(case)["calls"] if c.startswith(prefix)]


def replay(case: str, call_id: str) -> tuple[str, list[pd.DataFrame], pd.DataFrame, dict]:
    """(function name, syntheses, original, keyword arguments) of a recorded call."""
    function, obj, kwargs = utility_vignette.call_arguments(results(case), call_id)
    original, syntheses = _case(case)
    return function, syntheses[obj], original, kwargs
