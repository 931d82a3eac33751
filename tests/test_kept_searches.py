"""Work kept between calls on the same data: PrivEval's nearest-record searches
(:mod:`capkit.priveval._search`) and DOMIAS's reference density
(:func:`capkit.membership_inference.attacks.domias`). A call on equal inputs takes the kept
answer, which is the answer computed afresh to the bit; other inputs are computed anew; the
kept arrays cannot be changed by a caller."""

from __future__ import annotations

import numpy as np
import pytest

from capkit.membership_inference import attacks
from capkit.priveval import _search


def test_a_search_of_equal_arrays_is_the_kept_one_and_the_fresh_one():
    rng = np.random.default_rng(3)
    train = rng.integers(0, 4, size=(300, 3)).astype(float)  # many ties
    query = rng.integers(0, 4, size=(120, 3)).astype(float)
    _search._KEPT.clear()
    fresh = _search.euclid(train, query, 4)
    first = _search.Searches()("a", train, query, 4, "rs")
    assert len(_search._KEPT) == 1
    again = _search.Searches()("b", train.copy(), query.copy(), 2, "rs")  # equal, fewer k
    assert len(_search._KEPT) == 1  # the kept search, not a new one
    for got in (first, again):
        k = got[0].shape[1]
        assert np.array_equal(got[0], fresh[0][:, :k])
        assert got[1].tobytes() == fresh[1][:, :k].tobytes()
    with pytest.raises(ValueError):
        again[1][0, 0] = 1.0  # read-only
    _search.Searches()("a", train, query, 6, "rs")  # a larger k: searched again
    assert len(_search._KEPT) == 2
    query[0, 0] += 0.5  # other values: searched again
    _search.Searches()("a", train, query, 2, "rs")
    assert len(_search._KEPT) == 3


@pytest.mark.parametrize("compat", [False, True])
def test_the_reference_density_is_kept_and_the_same(compat):
    rng = np.random.default_rng(4)
    x, g, r = rng.normal(size=(200, 3)), rng.normal(size=(150, 3)), rng.normal(size=(180, 3))
    attacks._REFERENCE.clear()
    _, first, _ = attacks.domias(x, g, r, compat=compat)
    assert len(attacks._REFERENCE) == 1
    _, second, _ = attacks.domias(x.copy(), g + 0.25, r.copy(), compat=compat)  # another G
    assert len(attacks._REFERENCE) == 1  # the kept reference density
    attacks._REFERENCE.clear()
    _, fresh, _ = attacks.domias(x, g + 0.25, r, compat=compat)
    assert second.tobytes() == fresh.tobytes()
    assert not np.array_equal(first, second)
    r[0, 0] += 1.0  # another reference: computed anew
    attacks.domias(x, g, r, compat=compat)
    assert len(attacks._REFERENCE) == 2
