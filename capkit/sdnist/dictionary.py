"""The data dictionary of NIST's Diverse Communities Data Excerpts, as SDNist 2.4 validates with it.

NIST's excerpts of the 2019 American Community Survey (Massachusetts, Texas and a national
sample; NIST CRC, "Diverse Communities Data Excerpts", 2023) carry 24 features described in
``data_dictionary.json`` of the SDNist repository (usnistgov/SDNist, tag v2.4.0, folder
``nist diverse communities data excerpts``). SDNist's report (``sdnist/report/dataset/validate.py``)
uses it to check a deidentified file, feature by feature:

* a *coded* feature (:data:`CODES`) must hold numbers whose integer part is one of its codes;
* a *ranged* feature (:data:`RANGED`) must hold numbers (the minimum and maximum are not checked);
* ``INDP`` must hold numbers (its codes are not checked);
* ``PUMA`` must hold one of the dictionary's PUMA codes (text such as ``25-00503``);
* ``N`` ("not applicable") is allowed only in the features of :data:`HAS_N`.

The tables below are that file's content (a test compares them with it when the data folder is
at hand). :func:`density_bins` gives the log-scale bins SDNist puts the PUMA density into
(``sdnist/report/dataset/binning.py: bin_density``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["CODES", "DENSITY_MAX", "FEATURES", "HAS_N", "PUMAS", "RANGED", "density_bins"]

#: The 24 features, in the data dictionary's order.
FEATURES = ("PUMA", "AGEP", "SEX", "MSP", "HISP", "RAC1P", "NOC", "NPF", "HOUSING_TYPE",
            "OWN_RENT", "DENSITY", "INDP", "INDP_CAT", "EDU", "PINCP", "PINCP_DECILE", "POVPIP",
            "DVET", "DREM", "DPHY", "DEYE", "DEAR", "WGTP", "PWGTP")

#: The PUMA codes of the dictionary (Massachusetts, Texas and the national excerpt's 20).
PUMAS = ("25-00503", "25-00703", "25-01000", "25-01300", "25-02800", "48-02510", "48-02102",
         "48-02101", "48-02515", "48-02507", "48-02516", "01-01301", "06-07502", "06-08507",
         "08-00803", "13-04600", "17-03529", "17-03531", "19-01700", "24-01004", "26-02702",
         "28-01100", "29-01901", "30-00600", "32-00405", "36-03710", "36-04010", "38-00100",
         "40-00200", "51-01301", "51-51255")

#: Coded features and their integer codes (``N`` apart: see :data:`HAS_N`).
CODES: dict[str, frozenset[int]] = {
    "SEX": frozenset({1, 2}),
    "MSP": frozenset(range(1, 7)),
    "HISP": frozenset(range(0, 5)),
    "RAC1P": frozenset(range(1, 10)),
    "HOUSING_TYPE": frozenset({1, 2, 3}),
    "OWN_RENT": frozenset({0, 1, 2}),
    "INDP_CAT": frozenset(range(0, 19)),
    "EDU": frozenset(range(1, 13)),
    "PINCP_DECILE": frozenset(range(0, 10)),
    "DVET": frozenset(range(1, 7)),
    "DREM": frozenset({1, 2}),
    "DPHY": frozenset({1, 2}),
    "DEYE": frozenset({1, 2}),
    "DEAR": frozenset({1, 2}),
}

#: Features the dictionary gives a minimum and maximum (numbers, not codes), with them.
RANGED: dict[str, tuple[float, float]] = {
    "AGEP": (0, 99), "NOC": (1, 19), "NPF": (2, 20), "DENSITY": (16.3, 52864.7),
    "PINCP": (-9000, 1341000), "POVPIP": (0, 500), "WGTP": (1, 9999), "PWGTP": (1, 9999),
}

#: Features that may hold ``N`` (not applicable).
HAS_N = frozenset({"MSP", "NOC", "NPF", "INDP", "INDP_CAT", "EDU", "PINCP", "PINCP_DECILE",
                   "POVPIP", "DVET", "DREM", "DPHY"})

#: The dictionary's largest density (people per square mile of a PUMA).
DENSITY_MAX = 52864.7


def density_bins() -> np.ndarray:
    """SDNist's 15 density bin edges: 0, 150, then the last 13 of 21 log-spaced edges from 10
    to the dictionary's maximum plus 500 (a value ``x`` is in bin ``i`` when
    ``edges[i] < x <= edges[i + 1]``; SDNist first sets values below 0 to 0 and values above
    the last edge to that edge minus 100)."""
    n_max = DENSITY_MAX + 500
    edges = np.logspace(start=math.log(10, 10), stop=math.log(n_max, 10), num=21)
    return np.array([0.0, 150.0] + list(edges[8:]))
