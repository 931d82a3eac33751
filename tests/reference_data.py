"""The reference outputs the tests compare against, from the project's own ``reference/`` folder.

``reference/synthpop/<case>`` holds real synthpop 1.9-2 outputs, gzipped, without the original
data (never committed): :func:`synthpop_oracle_root` lays every case out as plain files in a
temporary folder, with ``orig.csv`` rebuilt from the data set through capkit's loader, so that
tests can replay synthpop's calls on the very files R read.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from capkit.data import datasets
from capkit.errors import CapkitError

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
SYNTHPOP = REFERENCE / "synthpop"
#: The full oracle this project's reference was taken from (only beside a development clone).
SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle"
#: Where the data sets are found without a download: $CAPKIT_DATA, else ../shared/data.
SHARED_DATA = Path(os.environ.get("CAPKIT_DATA")
                   or Path(__file__).resolve().parents[2] / "shared" / "data")


def have_adult() -> bool:
    """True when AdultUCI.rda can be loaded without a download."""
    return (SHARED_DATA / "AdultUCI.rda").is_file() or (
        datasets.cache_dir() / "AdultUCI.rda").is_file()


@functools.cache
def reference_results(peer: str) -> dict:
    """``reference/<peer>/results.json.gz``: the recorded calls and outputs of one peer."""
    with gzip.open(REFERENCE / peer / "results.json.gz", "rt", encoding="utf-8") as handle:
        return json.load(handle)
#: Cases holding synthetic data only (no recorded call to replay), read by their own loaders:
#: not laid out by :func:`synthpop_oracle_root`.
SYNTHETIC_ONLY = ("adult_band",)


def r_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` as R's ``write.csv`` did for the oracle: labels quoted, numbers in
    their shortest form, NA as the empty field, no row names."""
    out = pd.DataFrame(index=frame.index)
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values.dtype):
            text = values.map(lambda v: "" if pd.isna(v) else f"{v:.15g}")
        else:
            text = values.astype(object).map(lambda v: "" if pd.isna(v) else
                                             '"' + str(v).replace('"', '""') + '"')
        out[column] = text
    header = ",".join(f'"{c}"' for c in frame.columns)
    lines = [header] + [",".join(row) for row in out.to_numpy(dtype=object).tolist()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def synthpop_oracle_root() -> Path:
    """A temporary folder with every synthpop case as plain files (``results.json``, the
    synthetic CSVs, the hand-made edge-case CSVs and ``orig.csv`` rebuilt from the data).

    When a data set the cases need cannot be loaded (no ``$CAPKIT_DATA``, no cache, no
    network), the calling test module or test is skipped with the reason, as every other data
    test is; the failed attempt is remembered, so the download is tried once per session.
    """
    root, reason = _oracle_root_or_reason()
    if root is None:
        pytest.skip(reason, allow_module_level=True)
    return root


@functools.cache
def _oracle_root_or_reason() -> tuple[Path | None, str]:
    try:
        return _layout_oracle_root(), ""
    except CapkitError as error:
        return None, ("synthpop reference cases need the SD2011 / Adult data, which could not "
                      f"be loaded (set CAPKIT_DATA to a folder with the .rda files): {error}")


def _layout_oracle_root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="capkit-reference-"))
    for case in sorted(p for p in SYNTHPOP.iterdir()
                       if p.is_dir() and p.name not in SYNTHETIC_ONLY):
        target = root / case.name
        target.mkdir()
        for source in case.iterdir():
            if source.name.endswith(".gz"):
                with gzip.open(source, "rb") as f:
                    (target / source.name[:-3]).write_bytes(f.read())
            elif source.suffix == ".csv":
                shutil.copyfile(source, target / source.name)
        if (case / "original.json").is_file():
            try:
                original, _ = datasets.load_oracle_case(case)
            except CapkitError:
                shutil.rmtree(root, ignore_errors=True)
                raise
            r_csv(original, target / "orig.csv")
    return root


def same_values(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two frames hold the same columns and values (labels compared as text)."""
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False
    for column in a.columns:
        x, y = a[column].astype(object), b[column].astype(object)
        both_na = x.isna().to_numpy() & y.isna().to_numpy()
        equal = (x.to_numpy() == y.to_numpy()) | both_na
        if not np.all(equal):
            return False
    return True
