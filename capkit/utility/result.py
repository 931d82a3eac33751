"""The result of a utility measure: a mapping readable as ``r["pMSE"]`` and as ``r.pMSE``.

Keys are synthpop's names with each ``.`` written ``_`` (``S_pMSE``, ``resamp_method``,
``tab_obs``); per-synthesis statistics are numpy arrays with one value per synthesis, NaN where
synthpop gives NA.
"""

from __future__ import annotations

from typing import Any


class UtilityResult(dict):
    """A dict whose keys are also attributes (``r.pMSE is r["pMSE"]``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.items()
                          if not hasattr(v, "shape") or getattr(v, "size", 0) <= 10)
        return f"UtilityResult({shown})"
