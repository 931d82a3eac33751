"""Which records an anonymeter-style attack takes: ``n_attacks`` checked, rows drawn.

anonymeter's evaluators (Giomi et al. 2022, "A Unified Framework for Quantifying Privacy Risk in
Synthetic Data", PoPETs 2023) attack ``n_attacks`` records drawn without replacement; capkit
attacks every record when ``n_attacks`` is None (or not smaller than the data).
"""

from __future__ import annotations

import numbers

import numpy as np

from capkit.errors import CapkitError


def check_n_attacks(n_attacks: object) -> None:
    """``n_attacks`` must be None or a positive integer (a bool is refused)."""
    if n_attacks is not None and (isinstance(n_attacks, bool) or not isinstance(
            n_attacks, numbers.Integral) or n_attacks < 1):
        raise CapkitError(f"n_attacks must be None or a positive integer, got {n_attacks!r}")


def sample_rows(n: int, n_attacks: int | None, rng: np.random.Generator) -> np.ndarray:
    """Sorted positions of ``n_attacks`` of ``n`` records drawn without replacement, or all."""
    if n_attacks is None or n_attacks >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=int(n_attacks), replace=False))


__all__ = ["check_n_attacks", "sample_rows"]
