"""What the attacks report does not depend on the BLAS kernel or its threads: the MLP
detector's ROC AUC (capkit.attacks.detection) and the logistic attacker's classes
(capkit.attacks.logistic), each computed in a fresh process under OpenBLAS's default kernel,
one thread, and the Prescott kernel (whose matrix products differ in the last bits: about
3e-16 on the probabilities). The AUC reads only the order of the probabilities, and the
classes a tie rule; neither moves unless two values lie within those last bits of each other.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import warnings
import numpy as np
from capkit.attacks.detection import mlp_detection_auc
from capkit.attacks.logistic import TiedLogisticRegression
warnings.simplefilter("ignore")
rng = np.random.default_rng(3)
real, synthetic = rng.normal(size=(150, 6)), rng.normal(size=(140, 6)) + 0.3
print(repr(mlp_detection_auc(real, synthetic, folds=2)))
x = (rng.random((400, 12)) < 0.4).astype(float)
y = rng.integers(0, 3, 400)
print(TiedLogisticRegression().fit(x, y).predict(x).tolist())
"""


def _run(env: dict[str, str]) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
    full.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", SCRIPT], env=full, capture_output=True,
                          text=True, check=True).stdout


def test_detection_auc_and_logistic_classes_do_not_depend_on_the_blas_kernel() -> None:
    default = _run({})
    assert default.count("\n") == 2
    assert _run({"OPENBLAS_NUM_THREADS": "1"}) == default
    assert _run({"OPENBLAS_CORETYPE": "Prescott"}) == default
