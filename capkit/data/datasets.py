"""The synthpop paper's data sets: SD2011 and Adult, found, fetched, checked and parsed.

Raab, Nowok & Dibben (synthpop's disclosure paper) measure disclosure risk on two real data sets:

* **SD2011** (Social Diagnosis 2011, 5000 x 35), shipped with the R package synthpop as
  ``data/SD2011.rda``; the paper uses its 9 variables ``sex, age, region, placesize, depress,
  income, ls, marital, workab`` (:data:`SD2011_PAPER_VARIABLES`).
* **Adult** (UCI Census Income, train and test joined, 48842 x 15), shipped with the R package
  arules as ``data/AdultUCI.rda``. The paper uses dotted names (``capital.gain``) and drops
  ``education-num``; :func:`load_adult` returns the dotted names and *keeps* ``education.num``
  (select :data:`ADULT_PAPER_VARIABLES` for the paper's 14 columns).

Where a loader looks, in order:

1. an explicit ``path`` (the ``.rda`` file itself, or a folder holding it);
2. the folder ``$CAPKIT_DATA``;
3. the user cache folder (:func:`cache_dir`: ``$CAPKIT_CACHE``, else the platform's cache
   folder, e.g. ``~/.cache/capkit`` on Linux);
4. a download of the public R source package (:data:`SOURCES`), from which the ``.rda`` is
   extracted into the cache.

Every file is checked against its SHA-256 (:data:`SOURCES`) before it is parsed. A download
whose ``.rda`` does not match fails with :class:`~capkit.errors.CapkitError` and leaves nothing
in the cache: the file is written to a temporary name, verified, and only then renamed into
place (atomically). The files are parsed with ``pyreadr``; R factors become pandas
categoricals with R's level order (R's "ordered" flag is not kept by pyreadr).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from capkit.data.rdata import read_r
from capkit.errors import CapkitError

__all__ = [
    "ADULT_PAPER_VARIABLES",
    "SD2011_PAPER_VARIABLES",
    "SOURCES",
    "DataSource",
    "cache_dir",
    "fetch",
    "load_adult",
    "load_sd2011",
    "store_whole",
    "typed_frame",
]

#: The 9 SD2011 variables of synthpop's vignette and the paper, in the paper's order.
SD2011_PAPER_VARIABLES: tuple[str, ...] = (
    "sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab",
)

#: The 14 Adult variables the paper uses (``education.num`` dropped), dotted names.
ADULT_PAPER_VARIABLES: tuple[str, ...] = (
    "age", "workclass", "fnlwgt", "education", "marital.status", "occupation",
    "relationship", "race", "sex", "capital.gain", "capital.loss", "hours.per.week",
    "native.country", "income",
)

#: Seconds before a download gives up waiting for the server.
DOWNLOAD_TIMEOUT = 60.0


@dataclass(frozen=True)
class DataSource:
    """Where one ``.rda`` file comes from and what it must hash to.

    Attributes
    ----------
    filename
        Name of the ``.rda`` file (in ``$CAPKIT_DATA`` / the cache / the tarball's ``data/``).
    object_name
        Name of the R object inside the ``.rda``.
    urls
        Source tarballs to try in order (the first that answers is used).
    member
        Path of the ``.rda`` inside the tarball.
    sha256
        SHA-256 of the ``.rda`` file (hex).
    """

    filename: str
    object_name: str
    urls: tuple[str, ...]
    member: str
    sha256: str


#: The public sources (R package archive) and checksums, per data set. Tests replace entries.
SOURCES: dict[str, DataSource] = {
    "sd2011": DataSource(
        filename="SD2011.rda",
        object_name="SD2011",
        urls=(
            "https://cran.r-project.org/src/contrib/Archive/synthpop/synthpop_1.9-2.tar.gz",
            "https://cran.r-project.org/src/contrib/synthpop_1.9-2.tar.gz",
        ),
        member="synthpop/data/SD2011.rda",
        sha256="608f222d2b2b4babb6f4ea252e86295b50ed026ef0a10209466e1242d2239400",
    ),
    "adult": DataSource(
        filename="AdultUCI.rda",
        object_name="AdultUCI",
        urls=(
            "https://cran.r-project.org/src/contrib/Archive/arules/arules_1.7-11.tar.gz",
            "https://cran.r-project.org/src/contrib/arules_1.7-11.tar.gz",
        ),
        member="arules/data/AdultUCI.rda",
        sha256="c48ddebd1954d0472044970fa7a4544e3db7fe201bab1d6d77b45f3f6c441c51",
    ),
}


def cache_dir() -> Path:
    """The user cache folder for data: ``$CAPKIT_CACHE``, else the platform's cache folder.

    Linux/other: ``$XDG_CACHE_HOME/capkit`` or ``~/.cache/capkit``; macOS:
    ``~/Library/Caches/capkit``; Windows: ``%LOCALAPPDATA%\\capkit\\Cache``.
    """
    override = os.environ.get("CAPKIT_CACHE")
    if override:
        return Path(override)
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        return (Path(base) if base else home / "AppData" / "Local") / "capkit" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "capkit"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else home / ".cache") / "capkit"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check(data: bytes, source: DataSource, where: str) -> None:
    digest = _sha256(data)
    if digest != source.sha256:
        raise CapkitError(
            f"checksum mismatch for {source.filename} from {where}: SHA-256 {digest}, "
            f"expected {source.sha256}"
        )


def store_whole(data: bytes, folder: Path, name: str, *, sha256: str | None = None) -> Path:
    """Write ``data`` to ``folder / name`` whole or not at all: a temporary file in the same
    folder, renamed when complete (an interrupted download leaves no half file); with
    ``sha256``, the bytes on disk are checked before the rename."""
    folder.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        if sha256 is not None and _sha256(Path(tmp).read_bytes()) != sha256:
            raise CapkitError(f"checksum mismatch after writing {tmp}")
        os.replace(tmp, folder / name)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return folder / name


def _download(url: str, progress: bool) -> bytes:
    """The body of ``url`` (with a tqdm progress bar unless ``progress`` is False)."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:  # noqa: S310
        total = response.headers.get("Content-Length")
        buffer = io.BytesIO()
        with tqdm(total=int(total) if total else None, unit="B", unit_scale=True,
                  desc=url.rsplit("/", 1)[-1], disable=not progress) as bar:
            while True:
                chunk = response.read(1 << 16)
                if not chunk:
                    break
                buffer.write(chunk)
                bar.update(len(chunk))
    return buffer.getvalue()


def _extract(tarball: bytes, source: DataSource, url: str) -> bytes:
    try:
        with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:*") as archive:
            member = archive.extractfile(source.member)
            if member is None:
                raise KeyError(source.member)
            return member.read()
    except (tarfile.TarError, KeyError) as exc:
        raise CapkitError(
            f"{url} is not a tarball holding {source.member}: {exc}"
        ) from exc


def fetch(name: str, *, progress: bool = True) -> Path:
    """Download data set ``name`` into the cache folder and return the cached ``.rda`` path.

    The source tarball is downloaded (first URL of :data:`SOURCES` that answers), the ``.rda``
    extracted, its SHA-256 checked, and only a verified file is renamed into the cache.

    Raises
    ------
    CapkitError
        Unknown name, no URL answered, the tarball lacks the file, or the checksum differs.
    """
    source = _source(name)
    errors = []
    for url in source.urls:
        try:
            tarball = _download(url, progress)
        except OSError as exc:  # URLError, HTTPError, timeouts
            errors.append(f"{url}: {exc}")
            continue
        data = _extract(tarball, source, url)
        _check(data, source, url)
        return store_whole(data, cache_dir(), source.filename, sha256=source.sha256)
    raise CapkitError(
        f"could not download {source.filename} (data set {name!r}); tried: " + "; ".join(errors)
        + ". Set CAPKIT_DATA to a folder holding the file, or pass path="
    )


def _source(name: str) -> DataSource:
    if name not in SOURCES:
        raise CapkitError(f"unknown data set {name!r}; expected one of {sorted(SOURCES)}")
    return SOURCES[name]


def _locate(name: str, path: str | os.PathLike | None, progress: bool) -> Path:
    source = _source(name)
    if path is not None:
        candidate = Path(path)
        if candidate.is_dir():
            candidate = candidate / source.filename
        if not candidate.is_file():
            raise CapkitError(f"path {str(path)!r} is not {source.filename} or a folder holding it")
        return candidate
    env = os.environ.get("CAPKIT_DATA")
    if env and (Path(env) / source.filename).is_file():
        return Path(env) / source.filename
    cached = cache_dir() / source.filename
    if cached.is_file():
        return cached
    return fetch(name, progress=progress)


def _read(name: str, path: str | os.PathLike | None, progress: bool, verify: bool
          ) -> pd.DataFrame:
    source = _source(name)
    file = _locate(name, path, progress)
    if verify:
        _check(file.read_bytes(), source, str(file))
    try:
        frames = read_r(file)
    except Exception as exc:  # pyreadr raises its own error types
        raise CapkitError(f"cannot parse {file} as an R data file: {exc}") from exc
    if source.object_name not in frames:
        raise CapkitError(f"{file} holds {list(frames)}, not the object {source.object_name!r}")
    return frames[source.object_name].reset_index(drop=True)


def _tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """R integers (int32 from pyreadr) as int64; everything else as parsed."""
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_integer_dtype(out[column]) and out[column].dtype != "int64":
            out[column] = out[column].astype("int64")
    return out


def load_sd2011(path: str | os.PathLike | None = None, *, verify: bool = True,
                progress: bool = True) -> pd.DataFrame:
    """SD2011 (synthpop's ``SD2011``): 5000 records x 35 variables.

    Factors are pandas categoricals with R's level order; numeric columns are float with NaN;
    ``income`` uses -8 for "not applicable" (synthpop's ``cont.na = list(income = -8)``);
    ``wkabdur`` is text. The paper's 9 variables are :data:`SD2011_PAPER_VARIABLES`.

    Parameters
    ----------
    path
        The ``.rda`` file or a folder holding ``SD2011.rda``; default: ``$CAPKIT_DATA``, the
        cache, then a download of synthpop 1.9-2's source package.
    verify
        Check the file's SHA-256 (default True).
    progress
        Show a download progress bar.
    """
    return _tidy(_read("sd2011", path, progress, verify))


#: The ordered factors of R's ``AdultUCI`` (arules: ``education``, ``income`` small < large).
ADULT_ORDERED = ("education", "income")


def load_adult(path: str | os.PathLike | None = None, *, verify: bool = True,
               progress: bool = True) -> pd.DataFrame:
    """Adult (arules' ``AdultUCI``): 48842 records x 15 variables, with the paper's dotted names.

    Hyphens in R's column names become dots (``capital-gain`` -> ``capital.gain``), as in the
    paper. ``education.num`` is kept here although the paper drops it (it duplicates
    ``education``); :data:`ADULT_PAPER_VARIABLES` lists the paper's 14 columns. ``income`` is
    missing for the 16281 records from the UCI test file; ``workclass`` (2799), ``occupation``
    (2809) and ``native.country`` (857) have missing values too. ``education`` and ``income``
    are *ordered* factors in R's ``AdultUCI`` (:data:`ADULT_ORDERED`); the .rda reader drops
    that flag and capkit restores it, because rpart (and so synthpop's CART) splits an ordered
    factor by its level order, not by subsets of levels.

    Parameters
    ----------
    path, verify, progress
        As in :func:`load_sd2011` (file ``AdultUCI.rda``, source arules 1.7-11).
    """
    frame = _tidy(_read("adult", path, progress, verify))
    frame = frame.rename(columns=lambda c: c.replace("-", "."))
    for column in ADULT_ORDERED:
        frame[column] = frame[column].cat.as_ordered()
    return frame


def with_source(name: str, **changes: object) -> DataSource:
    """A copy of ``SOURCES[name]`` with some fields changed (for tests and mirrors)."""
    return replace(_source(name), **changes)


def reference_file(folder: str | os.PathLike, name: str) -> Path:
    """``folder/name``, or its gzipped copy ``folder/name.gz`` (as the project's ``reference/``
    folder ships them); a :class:`CapkitError` when neither exists."""
    plain = Path(folder) / name
    for candidate in (plain, plain.with_name(plain.name + ".gz")):
        if candidate.is_file():
            return candidate
    raise CapkitError(f"folder {str(folder)!r} has no {name} (nor {name}.gz)")


def read_reference_json(folder: str | os.PathLike, name: str = "results.json") -> dict:
    """A JSON file of a reference case (plain or gzipped)."""
    path = reference_file(folder, name)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


#: The loaders the reference cases name in their ``original.json`` recipe.
_RECIPE_LOADERS = {"sd2011": "load_sd2011", "adult": "load_adult"}


def typed_frame(frame: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """A frame read from a reference case given its schema: the columns of ``spec["columns"]``,
    factors as Categoricals with the levels in R's order (``spec["schema"][c]["levels"]``),
    the other columns as floats."""
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


def load_oracle_case(folder: str | os.PathLike) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """The original and synthetic frames of a synthpop reference case.

    ``folder`` is a case of the project's ``reference/synthpop/`` (outputs of real synthpop
    1.9-2; README there) or of the full oracle it was taken from. Files may be gzipped. The
    synthetic files are read with only the empty field as missing, then given the schema of
    ``results.json`` (factor levels in R's order, numeric columns as float). The original data
    is never shipped: when ``orig.csv`` is absent, ``original.json`` names the data set and
    columns, and the frame is rebuilt through the loader (``$CAPKIT_DATA``, cache or download).

    Returns
    -------
    (original, [synthetic_1, ..., synthetic_m])
    """
    folder = Path(folder)
    meta = read_reference_json(folder)["datasets"]

    def read(spec: dict) -> pd.DataFrame:
        frame = pd.read_csv(reference_file(folder, spec["file"]), keep_default_na=False,
                            na_values=[""], dtype=str)
        return typed_frame(frame, spec)

    orig_spec = meta["orig"]
    if (folder / orig_spec["file"]).is_file():
        original = read(orig_spec)
    else:
        recipe = read_reference_json(folder, "original.json")
        loader = globals()[_RECIPE_LOADERS[recipe["dataset"]]]
        original = typed_frame(loader(progress=False)[recipe["columns"]], orig_spec)
    return original, [read(spec) for spec in meta["syn"]]
