"""pyarrow's allocator under a limit on the address space, set before pyarrow is imported (this
module imports neither pandas nor pyarrow)."""

from __future__ import annotations

import os


def arrow_allocator() -> None:
    """Under a limit on the address space (``ulimit -v``), have pyarrow allocate with the
    system's allocator (``ARROW_DEFAULT_MEMORY_POOL=system``, unless set): its default
    allocator reserves address space ahead, and when that fails under the limit a Parquet read
    waits forever instead of raising MemoryError (a million rows under 2 GB did). It takes
    effect only before pyarrow is imported (pandas imports it): the commands call it first."""
    try:
        import resource
    except ImportError:  # no such limit on this system
        return
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


__all__ = ["arrow_allocator"]
