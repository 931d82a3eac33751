"""synthpop 1.9-2's utility outputs shipped in ``reference/synthpop_utility/`` (README there),
read for the tests: the recorded calls, their files as typed frames, and the keyword arguments
of :mod:`capkit.utility` that replay each call.

The original SD2011 extract is not shipped: ``original.json`` names its columns and it is
rebuilt with :func:`capkit.data.datasets.load_sd2011` (tests skip when SD2011 is not at hand).
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import pandas as pd
import pytest
from reference_data import SHARED_DATA

from capkit.data import datasets

ROOT = Path(__file__).resolve().parents[1] / "reference" / "synthpop_utility"
CASES = ("sd2011_m1", "sd2011_m5", "vignette")
#: R arguments that only change what synthpop prints or plots.
PRINT_ONLY = {"print.flag", "print.stats", "plot", "plot.title"}


def have_sd2011() -> bool:
    return (SHARED_DATA / "SD2011.rda").is_file() or (
        datasets.cache_dir() / "SD2011.rda").is_file()


needs_sd2011 = pytest.mark.skipif(not have_sd2011(), reason="SD2011 data not available (set "
                                  "CAPKIT_DATA to a folder with SD2011.rda)")


@functools.cache
def results(case: str) -> dict:
    with gzip.open(ROOT / case / "results.json.gz", "rt", encoding="utf-8") as handle:
        return json.load(handle)


def _typed(frame: pd.DataFrame, spec: dict) -> pd.DataFrame:
    out = {}
    for column in spec["columns"]:
        schema = spec["schema"][column]
        values = frame[column]
        if schema["levels"] is not None:
            out[column] = pd.Categorical(values.astype(object).where(values.notna()),
                                         categories=schema["levels"])
        else:
            out[column] = pd.to_numeric(values).astype(float)
    return pd.DataFrame(out)


def _read(case: str, spec: dict) -> pd.DataFrame:
    path = ROOT / case / (spec["file"] + ".gz")
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=str)
    return _typed(frame, spec)


@functools.cache
def objects(case: str) -> dict[str, list[pd.DataFrame]]:
    """R object name -> frames: the original (one frame) and each synthesis object (m frames)."""
    meta = results(case)["datasets"]
    recipe = json.loads((ROOT / case / "original.json").read_text())
    original = _typed(datasets.load_sd2011(progress=False)[recipe["columns"]], meta["orig"])
    out = {"orig": [original]}
    for name, spec in meta.items():
        if name == "orig":
            continue
        specs = spec if isinstance(spec, list) else [spec]
        out[name] = [_read(case, s) for s in specs]
    return out


def calls(case: str, prefix: str = "") -> list[str]:
    return [c for c in results(case)["calls"] if c.startswith(prefix)]


def replay(case: str, call_id: str) -> tuple[str, list[pd.DataFrame], pd.DataFrame, dict]:
    """(function name, syntheses, original, keyword arguments) of a recorded call."""
    rec = results(case)["calls"][call_id]
    res = results(case)
    by_object = {k: v for k, v in res["objects"].items()}
    args = rec["args"]
    syn_obj = args["<positional 1>"].split(": ")[1].rstrip(">")
    data = objects(case)
    synthetic = data[by_object[syn_obj]] if by_object[syn_obj] in data else data[syn_obj]
    kwargs = {k.replace(".", "_"): v for k, v in args.items()
              if not k.startswith("<") and k not in PRINT_ONLY}
    cna = res["syn_objects"][syn_obj]["cont.na"]
    codes = {k: [x for x in v if x is not None] for k, v in cna.items()}
    kwargs["cont_na"] = {k: v for k, v in codes.items() if v}
    function = rec["call"].split("(")[0].replace("utility.", "")
    return function, synthetic, data["orig"][0], kwargs
