"""The tables of Baillargeon & Charest (2020), "A Closer Look at the CAP Risk Measure for
Synthetic Datasets", as data.

Rows are targets T1..T3 (or Sick, Healthy), columns are keys K1..K3 (or Smoking, Non-smoking),
the orientation of the paper's o_ij / s_ij. The OCR of the paper garbles its tables; these are the
clean values (Table 3, O1, is missing from the text: 100 records in every cell).
"""

from __future__ import annotations

import numpy as np

#: Table 1: original smoking data (rows Sick, Healthy; columns Smoking, Non-smoking).
SMOKING_O = np.array([[20, 5], [30, 45]])
#: Table 2: synthetic smoking data, same orientation.
SMOKING_S = np.array([[8, 7], [25, 60]])
SMOKING_TARGETS = ("Sick", "Healthy")
SMOKING_KEYS = ("Smoking", "Non-smoking")

#: Tables 3-6: the four 3x3 original data sets of Section 4 (900 records each).
ORIGINALS: dict[str, np.ndarray] = {
    "O1": np.full((3, 3), 100),
    "O2": np.array([[400, 0, 0], [0, 250, 0], [0, 0, 350]]),
    "O3": np.array([[0, 176, 204], [0, 78, 93], [127, 163, 59]]),
    "O4": np.array([[0, 0, 62], [197, 136, 134], [74, 99, 198]]),
}

#: Tables 7-10: the synthetic data sets b and g (replacing O3), a and e (replacing O4).
SYNTHETICS: dict[str, np.ndarray] = {
    "S_a": np.array([[114, 118, 77], [104, 44, 134], [105, 86, 118]]),
    "S_b": np.array([[24, 36, 15], [226, 113, 213], [216, 54, 3]]),
    "S_e": np.array([[67, 97, 153], [37, 114, 101], [169, 14, 148]]),
    "S_g": np.array([[129, 137, 99], [2, 131, 147], [91, 111, 53]]),
}

TARGETS = ("T1", "T2", "T3")
KEYS = ("K1", "K2", "K3")

for _table in (SMOKING_O, SMOKING_S, *ORIGINALS.values(), *SYNTHETICS.values()):
    _table.setflags(write=False)
