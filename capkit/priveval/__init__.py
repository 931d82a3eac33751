"""PrivEval-compatible face: PrivEval's 17 privacy metrics (github.com/hereditary-eu/PrivEval)
computed by capkit's measures; the measures live in distance/ and attacks/."""

from capkit.priveval.metrics import METRICS, VARIANTS, metrics

__all__ = ["METRICS", "VARIANTS", "metrics"]
