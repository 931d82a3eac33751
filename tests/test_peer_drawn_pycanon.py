"""capkit.anonymity (``pycanon=True``) against pycanon 1.3.6 on tables drawn for the purpose.

``scripts/peer_cases`` draws small tables (text and integer columns with two to four levels,
a count, numbers rounded to halves: ties and small equivalence classes everywhere), calls
pycanon's nine levels for three quasi-identifier sets and several sensitive sets, with
``gen=True`` and ``gen=False`` for two sensitive columns, and stores the results under
``reference/pycanon/drawn/``. capkit must give every number; where pycanon raised, capkit
refuses with a CapkitError.
"""

from __future__ import annotations

import math
import warnings

import peer_drawn
import pytest

from capkit import anonymity as an
from capkit.errors import CapkitError

CASES = peer_drawn.cases("pycanon")
#: The float levels are ratios, logarithms of ratios and sums of at most 200 shares (t's
#: earth mover's distance): a different order of operations moves them by at most
#: 200 * 2.2e-16 relative, so 1e-12.
REL = 1e-12


def test_cases_are_stored() -> None:
    assert len(CASES) >= 6, "run scripts/peer_cases/peer_cases.py pycanon"


def _same(got: object, want: object) -> bool:
    if isinstance(want, list):
        return (isinstance(got, tuple | list) and len(got) == len(want)
                and all(_same(a, b) for a, b in zip(got, want, strict=True)))
    if want is None:
        return got is None
    if isinstance(want, int) and not isinstance(want, bool):
        return int(got) == want and float(got) == want
    want = peer_drawn.number(want)
    if math.isnan(want) or math.isinf(want):
        return (math.isnan(float(got)) if math.isnan(want) else float(got) == want)
    return abs(float(got) - want) <= REL * max(1.0, abs(want))


@pytest.mark.parametrize("path", CASES, ids=[p.name.split(".")[0] for p in CASES])
def test_capkit_equals_pycanon_on_drawn_case(path) -> None:
    case = peer_drawn.load(path)
    data = peer_drawn.frame(case["table"])
    before = data.copy()
    for call in case["calls"]:
        fn = getattr(an, call["function"])
        args = (data, call["qi"]) if call["sa"] is None else (data, call["qi"], call["sa"])
        kwargs = {"pycanon": True} if call["sa"] is None else {"gen": call["gen"],
                                                              "pycanon": True}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if call["error"] is not None:
                with pytest.raises(CapkitError):
                    fn(*args, **kwargs)
                continue
            got = fn(*args, **kwargs)
        assert _same(got, call["result"]), (call, got)
    assert data.equals(before)
