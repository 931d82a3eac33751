"""Compile the numba kernels several notebooks share once, before the notebooks need them.

numba compiles a kernel on its first call in a process and keeps it in its on-disk cache
(``__pycache__`` beside the kernel's source), where later processes load it. In a fresh clone
the cache is empty, and notebooks that run side by side each compile the same kernel at once:
with two jobs, the attribute baseline and membership inference both compile the CART kernel
in their first seconds, and the custodian's report, the records at risk and their audits'
second processes (:mod:`capkit.processes`) each compile the same mixed-distance kernels. So
``capkit reproduce --jobs N`` first runs one warm-up per *family* of kernels the experiments
to be run declare (``kernels:`` in ``experiments/*.yaml``), the families divided over the jobs
(longest first), and starts each notebook once the families it declares have been compiled
(a worker done with its warm-ups starts a notebook needing only those while the other still
compiles): each kernel is then compiled once in the run and loaded from the cache by every
notebook.

A warm-up calls the same functions the measures call (the same Python wrappers, so the same
argument types and hence the same compiled signature, which numba's cache is keyed by) on a
few seeded records; it computes nothing a notebook reads. When the cache already holds a
kernel the warm-up only loads it (milliseconds). ``tests/test_reproduce_precompile.py`` checks
that, after its warm-up, the measures' own calls compile no further signature.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["FAMILIES", "SECONDS", "warm"]


def _rpart() -> None:
    """CART's kernel (:mod:`capkit.synth.cart`): a classification and a regression tree (one
    compiled signature serves both), the root orders and the routing of records."""
    from capkit.synth import cart

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 4, 60), rng.normal(size=60), rng.integers(0, 3, 60)])
    kinds = np.array([cart.FACTOR, cart.NUMERIC, cart.ORDERED])
    nlev = np.array([4, 0, 3])
    tree = cart.fit(X.astype(float), kinds, nlev, rng.integers(0, 3, 60).astype(float), True,
                    n_classes=3, minbucket=2)
    tree.route(X)
    cart.fit(X.astype(float), kinds, nlev, rng.normal(size=60), False, minbucket=2)
    cart.root_order(X[:, 1], cart.NUMERIC)


def _mixed() -> None:
    """anonymeter's mixed-type k nearest and bands over all candidates
    (:mod:`capkit.distance._mixed_kernel`), on one thread and on numba's threads. (Its kernels
    over windows of candidates are left out: one process of the run uses them, the records at
    risk's second process, so they are compiled once there anyway.)"""
    from capkit.distance import _mixed_kernel as mk

    rng = np.random.default_rng(0)
    for n in (4, mk.THREAD_CELLS // 256 + 1):  # one thread, then numba's threads
        q_num, c_num = rng.random((n, 2)), rng.random((256, 2))
        q_cat, c_cat = rng.integers(0, 3, (n, 2)), rng.integers(0, 3, (256, 2))
        num_t, cat_t = np.ascontiguousarray(c_num.T), np.ascontiguousarray(c_cat.T)
        rows = np.arange(n, dtype=np.int64)
        kth = mk.nearest_rows(q_num, q_cat, num_t, cat_t, rows, 2, True, True, slots=2)[0]
        start = np.zeros(n + 1, dtype=np.int64)  # bands left empty: only the types count
        mk.band_rows(q_num, q_cat, num_t, cat_t, rows, kth, start, True, True)


#: The families a warm-up exists for, by the name experiments declare under ``kernels:``.
FAMILIES: dict[str, Callable[[], None]] = {"rpart": _rpart, "mixed": _mixed}

#: CPU seconds each family's compilation took in a fresh clone (measured with numba's compile
#: events on the project's 2-core machine), to divide the warm-ups over the jobs, longest first.
SECONDS: dict[str, float] = {"rpart": 15.0, "mixed": 11.5}


def warm(name: str) -> None:
    """Compile (or load from numba's cache) the kernels of family ``name``."""
    FAMILIES[name]()
