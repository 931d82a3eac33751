"""SynthEval 1.7.3's privacy metrics behind its own API: ``from capkit.syntheval import
SynthEval, AnalysisConfig`` replaces ``from syntheval import SynthEval`` (Lautrup et al.,
"SynthEval", Data Mining and Knowledge Discovery 2025). The measures themselves live in
:mod:`capkit.distance.neighbour_risk`, :mod:`capkit.attacks.forest_disclosure` and
:mod:`capkit.syntheval.mia`; differences from SynthEval are in
``docs/syntheval-differences.md``. Names only."""

from capkit.syntheval.config import AnalysisConfig
from capkit.syntheval.evaluate import COLUMNS, METRICS, SynthEval, categorical_columns
from capkit.syntheval.mia import mia_classifier

__all__ = ["COLUMNS", "METRICS", "AnalysisConfig", "SynthEval", "categorical_columns",
           "mia_classifier"]
