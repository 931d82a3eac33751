"""A content-addressed cache of notebook runs under ``build/cache/``.

A notebook's full run is a deterministic function of its inputs (every random step takes a
seed; the stored figures and ledger are byte-identical from run to run). Its entry is found by
a key, the SHA-256 of everything the run can read:

* the notebook file itself (code and prose) and the parameters papermill injects;
* the code: every ``.py`` file of the imported ``capkit`` package (path and bytes), the Python
  version and the name and version of every installed distribution (numpy, scikit-learn, ...);
* the data: every file under ``$CAPKIT_DATA`` and the loaders' user cache
  (:func:`capkit.data.datasets.cache_dir`), and every file under the project's ``reference/``.

Any change to one of them gives another key, so an entry is never taken for a run it does not
describe; it is coarse on purpose (a change anywhere in ``capkit`` reruns every notebook),
which can cost a rerun but never hides a change. An entry holds the claims the notebook saved,
the figures it wrote and its executed copy; ``capkit reproduce --no-cache`` neither reads nor
writes entries. ``build/`` is never tracked: deleting ``build/cache`` empties the cache.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["Entry", "code_digest", "data_digest", "run_key"]

#: Bump when the layout of an entry or the recipe of a key changes.
VERSION = "capkit-reproduce-cache 1"


def _hash_files(digest: Any, folder: Path, suffixes: tuple[str, ...] | None = None) -> None:
    """Feed each file under ``folder`` (sorted by relative path) to ``digest``: its path and
    its bytes, so that a renamed, added, removed or edited file changes the digest."""
    if not folder.is_dir():
        digest.update(f"absent {folder.name}\n".encode())
        return
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts or (suffixes and path.suffix not in suffixes):
            continue
        data = path.read_bytes()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)


def code_digest(package: Path | None = None) -> str:
    """SHA-256 of the code a notebook runs: the ``.py`` files of ``package`` (default: the
    imported ``capkit``), the Python version and every installed distribution's version."""
    if package is None:
        import capkit

        package = Path(capkit.__file__).parent
    digest = hashlib.sha256()
    _hash_files(digest, Path(package), (".py",))
    digest.update(sys.version.encode())
    digest.update(_versions().encode())
    return digest.hexdigest()


@functools.cache
def _versions() -> str:
    """Every installed distribution's name and version (read once a process)."""
    return "\n".join(sorted({f"{d.metadata['Name']}=={d.version}"
                             for d in metadata.distributions() if d.metadata["Name"]}))


def data_digest(root: Path) -> str:
    """SHA-256 of the data a notebook can read: ``$CAPKIT_DATA``, the loaders' cache folder
    and ``root/reference``."""
    from capkit.data.datasets import cache_dir

    digest = hashlib.sha256()
    env = os.environ.get("CAPKIT_DATA")
    for label, folder in (("data", Path(env) if env else None), ("cache", cache_dir()),
                          ("reference", Path(root) / "reference")):
        digest.update(f"\n{label}\n".encode())
        if folder is not None:
            _hash_files(digest, folder)
    return digest.hexdigest()


def run_key(notebook: Path, parameters: dict[str, Any], *, code: str, data: str) -> str:
    """The key of one notebook run: SHA-256 of the notebook's bytes, its parameters (as JSON,
    keys sorted), and the code and data digests (:func:`code_digest`, :func:`data_digest`)."""
    digest = hashlib.sha256(VERSION.encode())
    digest.update(Path(notebook).read_bytes())
    digest.update(json.dumps(parameters, sort_keys=True, default=str).encode())
    digest.update(code.encode())
    digest.update(data.encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Entry:
    """One cached run: ``folder`` holds ``claims.json``, ``executed.ipynb``, ``figures/`` and
    ``meta.json`` (the notebook's name and the seconds its run took)."""

    folder: Path

    @classmethod
    def at(cls, root: Path, key: str) -> Entry:
        return cls(Path(root) / "build" / "cache" / key[:2] / key)

    def complete(self) -> bool:
        return (self.folder / "meta.json").is_file()

    def seconds(self) -> float:
        return float(json.loads((self.folder / "meta.json").read_text())["seconds"])

    def store(self, name: str, seconds: float, claims: Path, executed: Path,
              figures: Path) -> None:
        """Keep a finished run (written beside the entry, then renamed: a run stopped midway
        leaves no entry)."""
        staging = self.folder.with_name(self.folder.name + f".{os.getpid()}.tmp")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        shutil.copy2(claims, staging / "claims.json")
        shutil.copy2(executed, staging / "executed.ipynb")
        shutil.copytree(figures, staging / "figures")
        (staging / "meta.json").write_text(json.dumps({"name": name, "seconds": seconds}))
        shutil.rmtree(self.folder, ignore_errors=True)
        staging.rename(self.folder)

    def restore(self, claims: Path, executed: Path, figures: Path) -> None:
        """Put the entry's claims, executed copy and figures where a run writes them."""
        claims.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self.folder / "claims.json", claims)
        shutil.copy2(self.folder / "executed.ipynb", executed)
        copy_figures(self.folder / "figures", figures)


def copy_figures(source: Path, target: Path) -> list[str]:
    """Copy every file of ``source`` into ``target`` (created if needed): the names copied."""
    target.mkdir(parents=True, exist_ok=True)
    names = sorted(p.name for p in source.iterdir() if p.is_file())
    for name in names:
        shutil.copyfile(source / name, target / name)
    return names
