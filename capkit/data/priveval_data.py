"""PrivEval's real data and releases: UCI Online Shoppers and its TabSyn and PrivBayes releases.

PrivEval (Hereditary project, github.com/hereditary-eu/PrivEval, Apache-2.0) publishes, at commit
:data:`PRIVEVAL_COMMIT`, the data it evaluates in its folder ``Data/``:

* ``real.csv``: the 11,097-record training split of UCI "Online Shoppers Purchasing Intention"
  (Sakar et al. 2019, CC BY 4.0), sensitive attribute ``Revenue``;
* ``tabsyn.csv``: a TabSyn release of it;
* ``privbayes(e=EPS).csv``: PrivBayes releases for EPS in :data:`PRIVBAYES_EPSILONS`.

Where :func:`load_priveval` looks, in order (as the SD2011 and Adult loaders of
:mod:`capkit.data.datasets`): an explicit ``path`` (a folder holding the file), the folder
``$CAPKIT_DATA/priveval``, the user cache folder ``cache_dir()/priveval``, then a download from
the commit's raw files (:data:`PRIVEVAL_URL`). Every file is checked against its SHA-256
(:data:`PRIVEVAL_SHA256`) before it is parsed; a download is written to a temporary name,
verified, then renamed into the cache.
"""

from __future__ import annotations

import io
import os
import urllib.parse
from pathlib import Path

import pandas as pd

from capkit.data.datasets import _download, _sha256, cache_dir, store_whole
from capkit.errors import CapkitError

__all__ = ["PRIVBAYES_EPSILONS", "PRIVEVAL_COMMIT", "PRIVEVAL_RELEASES", "PRIVEVAL_SHA256",
           "PRIVEVAL_URL", "fetch_priveval", "load_priveval", "priveval_file"]

#: The PrivEval commit whose data and published results capkit compares with.
PRIVEVAL_COMMIT = "2aecac8039dd2f7e728a378e0b3ee85424007861"
#: Raw download address of one file of PrivEval's ``Data/`` folder (``{commit}``, ``{file}``).
PRIVEVAL_URL = "https://raw.githubusercontent.com/hereditary-eu/PrivEval/{commit}/Data/{file}"
#: The epsilons of PrivEval's PrivBayes releases.
PRIVBAYES_EPSILONS = ("0.02", "0.05", "0.1", "0.2", "0.5", "1.0", "2.5", "5.0")
#: Release names as PrivEval names its result files: ``tabsyn`` and ``privbayes(e=EPS)``.
PRIVEVAL_RELEASES = ("tabsyn",) + tuple(f"privbayes(e={e})" for e in PRIVBAYES_EPSILONS)
#: SHA-256 of each file at :data:`PRIVEVAL_COMMIT`.
PRIVEVAL_SHA256 = {
    "privbayes(e=0.02).csv": "1e99d8b5757be74b115ec850ead492e4193048ec0f96c2301e7b81e28b51c440",
    "privbayes(e=0.05).csv": "8b27268321000dcaf545d14e58ffff910715bfd4487512e5a31ad60fe2659b2b",
    "privbayes(e=0.1).csv": "b196b312d6cb47bad86dab24472453d2d2480dbee768ed7c65c5d4cd65ef865e",
    "privbayes(e=0.2).csv": "f2381191ab6d6a71f7c144b2be25fec9b1f08bee5c58b81bcb35f617af162a72",
    "privbayes(e=0.5).csv": "4fce8fa69c581a37310184285c864adc8159b33276c5fbb454e5b07b6dc9cc31",
    "privbayes(e=1.0).csv": "4c78678a174c3a82ce2553c51febe574ed730cccb60629691d5017394a0b946d",
    "privbayes(e=2.5).csv": "dfd75904b74196f01956e84b25870c2803498c8b8d535b58bb24bea2772e8fca",
    "privbayes(e=5.0).csv": "30b84ea51f74bbe34e7e81fd075d417d4681f1188f47c124caca0106555d0ea0",
    "real.csv": "74bd3d4bc699f90627530284ce064ae3b6b45546c5f164ffae3e9adbacc8ce66",
    "tabsyn.csv": "b6683a423cfea0e42cd9a89400c7f2854e76bc87183634550679e8199944f657",
}


def _file_name(name: str) -> str:
    file = name if name.endswith(".csv") else f"{name}.csv"
    if file not in PRIVEVAL_SHA256:
        raise CapkitError(f"unknown PrivEval file {name!r}; expected 'real' or one of "
                          f"{list(PRIVEVAL_RELEASES)}")
    return file


def _verified(data: bytes, file: str, where: str) -> bytes:
    digest = _sha256(data)
    if digest != PRIVEVAL_SHA256[file]:
        raise CapkitError(f"checksum mismatch for {file} from {where}: SHA-256 {digest}, "
                          f"expected {PRIVEVAL_SHA256[file]}")
    return data


def fetch_priveval(name: str, *, url: str = PRIVEVAL_URL, progress: bool = False) -> Path:
    """Download one PrivEval file into ``cache_dir()/priveval`` and return its path.

    Parameters
    ----------
    name
        ``"real"``, ``"tabsyn"`` or ``"privbayes(e=EPS)"`` (with or without ``.csv``).
    url
        Address template with ``{commit}`` and ``{file}`` (the file name URL-encoded).

    Raises
    ------
    CapkitError
        The download failed (the message says where to put the file instead) or the checksum
        differs.
    """
    file = _file_name(name)
    address = url.format(commit=PRIVEVAL_COMMIT, file=urllib.parse.quote(file))
    try:
        data = _download(address, progress)
    except OSError as exc:  # URLError, HTTPError, timeouts
        raise CapkitError(
            f"could not download PrivEval's {file} from {address} ({exc}). Put the file (from "
            f"github.com/hereditary-eu/PrivEval, commit {PRIVEVAL_COMMIT}, folder Data/) in "
            f"$CAPKIT_DATA/priveval/ or {cache_dir() / 'priveval'}, or pass path=") from exc
    _verified(data, file, address)
    return store_whole(data, cache_dir() / "priveval", file)


def priveval_file(name: str, path: str | os.PathLike | None = None, *,
                  url: str = PRIVEVAL_URL, progress: bool = False) -> Path:
    """Where PrivEval's file ``name`` is (path, ``$CAPKIT_DATA/priveval``, cache), downloading
    it when it is nowhere."""
    file = _file_name(name)
    if path is not None:
        candidate = Path(path)
        if candidate.is_dir():
            candidate = candidate / file
        if not candidate.is_file():
            raise CapkitError(f"path {str(path)!r} is not {file} or a folder holding it")
        return candidate
    env = os.environ.get("CAPKIT_DATA")
    if env:
        for folder in (Path(env) / "priveval", Path(env)):
            if (folder / file).is_file():
                return folder / file
    cached = cache_dir() / "priveval" / file
    if cached.is_file():
        return cached
    return fetch_priveval(name, url=url, progress=progress)


def load_priveval(name: str = "real", path: str | os.PathLike | None = None, *,
                  verify: bool = True, url: str = PRIVEVAL_URL,
                  progress: bool = False) -> pd.DataFrame:
    """One of PrivEval's frames: ``"real"`` (11,097 x 18), ``"tabsyn"`` or
    ``"privbayes(e=EPS)"``, read as PrivEval reads it (``pandas.read_csv``: ``Month`` and
    ``VisitorType`` text, ``Weekend`` and ``Revenue`` booleans, the rest numbers).

    Raises
    ------
    CapkitError
        Unknown name, a file that does not hash to :data:`PRIVEVAL_SHA256`, or no file and no
        download (the message says where to put it).
    """
    file = _file_name(name)
    located = priveval_file(name, path, url=url, progress=progress)
    data = located.read_bytes()
    if verify:
        _verified(data, file, str(located))
    return pd.read_csv(io.BytesIO(data), index_col=False)
