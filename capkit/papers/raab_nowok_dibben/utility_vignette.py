"""The data of synthpop's utility vignette (Raab, Nowok & Dibben, "Assessing, visualizing and
improving the utility of synthetic data", 2021; synthpop's ``vignettes/utility.Rnw``) as the
project's reference keeps them (``reference/synthpop_utility``, README there): the original
SD2011 extract rebuilt through :func:`capkit.data.datasets.load_sd2011`, synthpop 1.9-2's
syntheses with R's schema, and the recorded calls translated into :mod:`capkit.utility`'s
keyword arguments.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from capkit.data import datasets

#: R arguments that only change what synthpop prints or plots.
PRINT_ONLY = frozenset({"print.flag", "print.stats", "plot", "plot.title"})


def read_results(folder: str | os.PathLike) -> dict:
    """``results.json`` of a case (plain or gzipped)."""
    path = datasets.reference_file(folder, "results.json")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def load_case(folder: str | os.PathLike) -> tuple[pd.DataFrame, dict[str, list[pd.DataFrame]],
                                                   dict]:
    """(original, {synthesis object: [frames]}, results) of a case of
    ``reference/synthpop_utility`` (or of the full oracle it was taken from).

    The original is ``orig.csv`` where the folder has it, else rebuilt from ``original.json``
    (SD2011's columns, all rows, through the loader); the syntheses are read with only the
    empty field as missing and given R's schema (factor levels in R's order, numbers as float).
    """
    folder = Path(folder)
    res = read_results(folder)
    meta = res["datasets"]

    def read(spec: dict) -> pd.DataFrame:
        frame = pd.read_csv(datasets.reference_file(folder, spec["file"]),
                            keep_default_na=False, na_values=[""], dtype=str)
        return datasets.typed_frame(frame, spec)

    if (folder / meta["orig"]["file"]).is_file():
        original = read(meta["orig"])
    else:
        recipe = json.loads((folder / "original.json").read_text(encoding="utf-8"))
        original = datasets.typed_frame(datasets.load_sd2011(progress=False)[recipe["columns"]],
                          meta["orig"])
    syntheses = {name: [read(s) for s in (spec if isinstance(spec, list) else [spec])]
                 for name, spec in meta.items() if name != "orig"}
    by_object = {obj: syntheses[data] for obj, data in res["objects"].items()
                 if data in syntheses}
    return original, by_object, res


def call_arguments(results: dict, call_id: str) -> tuple[str, str, dict[str, Any]]:
    """(capkit.utility function name, synthesis object, keyword arguments) of a recorded call:
    synthpop's argument names with ``.`` written ``_``, print-only arguments left out, and the
    synthesis object's ``cont.na`` codes."""
    rec = results["calls"][call_id]
    obj = rec["args"]["<positional 1>"].split(": ")[1].rstrip(">")
    kwargs = {k.replace(".", "_"): v for k, v in rec["args"].items()
              if not k.startswith("<") and k not in PRINT_ONLY}
    cna = results["syn_objects"][obj]["cont.na"]
    codes = {k: [x for x in v if x is not None] for k, v in cna.items()}
    kwargs["cont_na"] = {k: v for k, v in codes.items() if v}
    function = rec["call"].split("(")[0].replace("utility.", "")
    return function, obj, kwargs
