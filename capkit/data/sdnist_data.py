"""NIST's Diverse Communities Data Excerpts (2019 ACS): where they are, checked by SHA-256.

NIST CRC's "Diverse Communities Data Excerpts" (2023; public domain in the United States) are
three excerpts of the U.S. Census Bureau's 2019 American Community Survey that SDNist's report
scores deidentified data against: Massachusetts (``ma2019``, 7,634 records), Texas
(``tx2019``, 9,276) and a national sample (``national2019``, 27,253), 24 features each, with
the data dictionary ``data_dictionary.json``. They are the plain files of the SDNist repository
(usnistgov/SDNist) at commit :data:`SDNIST_COMMIT`, folder ``BenchmarkData/ACSDataExcerpts/``
(byte-identical, line endings apart, to those SDNist 2.4 uses).

Where :func:`acs_excerpt_file` looks, in order (as :mod:`capkit.data.datasets` does for SD2011
and Adult): an explicit ``path`` (the file or a folder holding it), ``$CAPKIT_DATA/sdnist``,
``$CAPKIT_DATA``, the user cache ``cache_dir()/sdnist``, then a download from the commit's raw
files. Every file is checked against :data:`ACS_SHA256` before it is used.

:func:`resample_excerpt` rebuilds, from an excerpt, the deidentified files of capkit's SDNist
references (an independent resample of each column, a bootstrap of records, a bootstrap with
swapped cells), so that those files need not be shipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from capkit.data.datasets import _download, _sha256, cache_dir, store_whole
from capkit.errors import CapkitError

__all__ = ["ACS_EXCERPTS", "ACS_SHA256", "SDNIST_COMMIT", "SDNIST_URL", "acs_excerpt_file",
           "load_acs_excerpt", "resample_excerpt"]

#: The SDNist commit whose ``BenchmarkData/ACSDataExcerpts/`` files capkit uses.
SDNIST_COMMIT = "76b74a1ed2725f35980b786b8f00764117cd9bdb"
#: Raw download address of one file (``{commit}``, ``{folder}``, ``{file}``).
SDNIST_URL = ("https://raw.githubusercontent.com/usnistgov/SDNist/{commit}/BenchmarkData/"
              "ACSDataExcerpts/{folder}{file}")
#: Excerpt name -> (folder, SDNist's target name).
ACS_EXCERPTS = {"ma2019": ("massachusetts/", "MA"), "tx2019": ("texas/", "TX"),
                "national2019": ("national/", "NATIONAL"), "data_dictionary": ("", None)}
#: SHA-256 of each file at :data:`SDNIST_COMMIT`.
ACS_SHA256 = {
    "ma2019.csv": "5489f7d45bccad8ae591dfe9011638def521b3f8641edf169bb45fea2c62fb44",
    "tx2019.csv": "0dab7a8b745232c622d7d3bc0b7fdeaf7f8ecdb3a5653a73fd2867f5f116ed96",
    "national2019.csv": "9e039c8e47c9e998d60f66fd50ec620fc2d0703decdc21f3069c9844fbef979b",
    "data_dictionary.json": "16a170c50b89ea15b41826ca439ac971345f1a545e17278e2bdfa891fe7b56e8",
}


def _file_name(name: str) -> str:
    stem = name.removesuffix(".csv").removesuffix(".json")
    if stem not in ACS_EXCERPTS:
        raise CapkitError(f"unknown excerpt {name!r}; expected one of {list(ACS_EXCERPTS)}")
    return stem + (".json" if stem == "data_dictionary" else ".csv")


def _verified(data: bytes, file: str, where: str) -> bytes:
    digest = _sha256(data)
    if digest != ACS_SHA256[file]:
        raise CapkitError(f"checksum mismatch for {file} from {where}: SHA-256 {digest}, "
                          f"expected {ACS_SHA256[file]}")
    return data


def _fetch(file: str, url: str, progress: bool) -> Path:
    folder = ACS_EXCERPTS[file.rsplit(".", 1)[0]][0]
    address = url.format(commit=SDNIST_COMMIT, folder=folder, file=file)
    try:
        data = _download(address, progress)
    except OSError as exc:  # URLError, HTTPError, timeouts
        raise CapkitError(
            f"could not download {file} from {address} ({exc}). Put the file (from "
            f"github.com/usnistgov/SDNist, commit {SDNIST_COMMIT}, folder "
            f"BenchmarkData/ACSDataExcerpts/) in $CAPKIT_DATA/sdnist/ or "
            f"{cache_dir() / 'sdnist'}, or pass path=") from exc
    _verified(data, file, address)
    return store_whole(data, cache_dir() / "sdnist", file)


def acs_excerpt_file(name: str = "ma2019", path: str | os.PathLike | None = None, *,
                     download: bool = True, verify: bool = True, url: str = SDNIST_URL,
                     progress: bool = False) -> Path:
    """The path of an excerpt (``"ma2019"``, ``"tx2019"``, ``"national2019"``) or of
    ``"data_dictionary"``, checked against :data:`ACS_SHA256`.

    Raises
    ------
    CapkitError
        Unknown name, a file with another checksum, or no file and no download (with
        ``download=False``: :class:`FileNotFoundError`, so tests can skip).
    """
    file = _file_name(name)
    candidates: list[Path] = []
    if path is not None:
        given = Path(path)
        candidates.append(given / file if given.is_dir() else given)
        if not candidates[0].is_file():
            raise CapkitError(f"path {str(path)!r} is not {file} or a folder holding it")
    env = os.environ.get("CAPKIT_DATA")
    if env:
        candidates += [Path(env) / "sdnist" / file, Path(env) / file]
    candidates.append(cache_dir() / "sdnist" / file)
    for candidate in candidates:
        if candidate.is_file():
            if verify:
                _verified(candidate.read_bytes(), file, str(candidate))
            return candidate
    if not download:
        raise FileNotFoundError(f"{file} is not in $CAPKIT_DATA/sdnist or the cache")
    return _fetch(file, url, progress)


def load_acs_excerpt(name: str = "ma2019", path: str | os.PathLike | None = None, *,
                     text: bool = False, download: bool = True) -> pd.DataFrame:
    """An excerpt as a DataFrame: read as SDNist reads a deidentified file
    (``pandas.read_csv``, ``N`` as text), or with ``text=True`` every value as its text (as
    the references' resamples are drawn)."""
    file = acs_excerpt_file(name, path, download=download)
    if text:
        return pd.read_csv(file, dtype=str, keep_default_na=False)
    return pd.read_csv(file)


def resample_excerpt(excerpt: pd.DataFrame, kind: str, seed: int, *, rows: int | None = None,
                     swap: float = 0.0, drop: tuple[str, ...] = ()) -> pd.DataFrame:
    """A deidentified file drawn from an excerpt (read with ``text=True``), as capkit's SDNist
    references were drawn.

    ``kind``: ``"indep"`` (each column drawn with replacement on its own,
    ``default_rng(seed).choice(n, n)`` per column in column order), ``"bootstrap"`` (records
    drawn with replacement, ``default_rng(seed).integers(0, n, n)``) or ``"swap"`` (``rows``
    records drawn with replacement, then in each column, in column order, each cell replaced
    with probability ``swap`` by the column's value in a record drawn at random; columns in
    ``drop`` removed). ``excerpt`` is not modified.
    """
    n = len(excerpt)
    rng = np.random.default_rng(seed)
    if kind == "indep":
        return pd.DataFrame({c: excerpt[c].to_numpy()[rng.choice(n, n)] for c in excerpt.columns})
    if kind == "bootstrap":
        return excerpt.iloc[rng.integers(0, n, n)].reset_index(drop=True)
    if kind != "swap":
        raise CapkitError(f"kind must be 'indep', 'bootstrap' or 'swap', got {kind!r}")
    m = n if rows is None else rows
    picked = rng.integers(0, n, m)
    out = {}
    for c in excerpt.columns:  # one vectorised draw per column (24)
        values = excerpt[c].to_numpy()[picked].copy()
        mask = rng.random(m) < swap
        values[mask] = excerpt[c].to_numpy()[rng.integers(0, n, int(mask.sum()))]
        out[c] = values
    return pd.DataFrame(out).drop(columns=list(drop))
