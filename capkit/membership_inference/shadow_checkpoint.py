"""Resumable shadow runs: the finished runs of a generator audit kept in a folder.

One job: store the generator seed and feature vector of every finished shadow run of
:func:`~capkit.membership_inference.shadow.audit_generator` and give them back to a rerun of
the same audit, which then synthesises only the runs that are missing (after an interruption,
an error in run 700 of 1,000, or a machine that was switched off).

The runs are keyed by a SHA-256 of everything that fixes them: the data (its values, index,
columns and dtypes), the targets, the seed, ``n_shadows``, ``train_size``, the feature sets,
``n_queries`` and the generator's name (its module and qualified name, and the options of
:func:`~capkit.membership_inference.shadow.cart_generator`). Two different lambdas have the
same name: give each generator its own folder. Files are written whole (to a temporary name,
then renamed), so a run interrupted while writing leaves no half file behind.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from capkit.errors import CapkitError


def generator_name(generator: object) -> str:
    """A stable description of a generator: module, qualified name, and options if any."""
    options = getattr(generator, "options", None)
    kind = generator if callable(generator) and hasattr(generator, "__qualname__") \
        else type(generator)
    name = f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"
    return name if options is None else f"{name}({sorted(options.items())!r})"


def data_digest(data: pd.DataFrame) -> str:
    """SHA-256 of the data's values, index, columns and dtypes."""
    digest = hashlib.sha256()
    digest.update(pd.util.hash_pandas_object(data, index=True).to_numpy().tobytes())
    digest.update(repr([(str(c), str(t)) for c, t in data.dtypes.items()]).encode())
    return digest.hexdigest()


class Checkpoint:
    """The finished runs of one audit configuration in ``folder``."""

    def __init__(self, folder: str | os.PathLike, config: dict) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CapkitError(f"checkpoint folder {str(folder)!r} cannot be made: {err}") from err
        text = json.dumps(config, sort_keys=True, default=str)
        self.key = hashlib.sha256(text.encode()).hexdigest()[:20]
        (self.folder / f"{self.key}.json").write_text(text + "\n")

    def load(self) -> dict[tuple[int, int], tuple[int, np.ndarray]]:
        """``{(target, run): (generator seed, features)}`` of every stored run."""
        done: dict[tuple[int, int], tuple[int, np.ndarray]] = {}
        for path in sorted(self.folder.glob(f"{self.key}-*.npz")):
            with np.load(path) as part:
                for t, r, s, v in zip(part["targets"], part["runs"], part["seeds"],
                                      part["vectors"], strict=True):
                    done[(int(t), int(r))] = (int(s), v)
        return done

    def save(self, jobs: list[tuple[int, int]], results: list[tuple[int, np.ndarray]]) -> None:
        """Store finished runs (one file per call, named by its first run)."""
        if not jobs:
            return
        t0, r0 = jobs[0]
        path = self.folder / f"{self.key}-{t0}-{r0}.npz"
        temporary = path.with_suffix(".tmp.npz")
        np.savez(temporary, targets=np.array([t for t, _ in jobs]),
                 runs=np.array([r for _, r in jobs]),
                 seeds=np.array([s for s, _ in results]),
                 vectors=np.vstack([v for _, v in results]))
        os.replace(temporary, path)
