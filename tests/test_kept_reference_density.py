"""Work kept between calls on the same data: DOMIAS's reference density
(:func:`capkit.membership_inference.attacks.domias`). A call on equal inputs takes the kept
answer, which is the answer computed afresh to the bit; other inputs are computed anew; the
kept array cannot be changed by a caller."""

from __future__ import annotations

import numpy as np
import pytest

from capkit.membership_inference import attacks


@pytest.mark.parametrize("compat", [False, True])
def test_the_reference_density_is_kept_and_the_same(compat):
    rng = np.random.default_rng(4)
    x, g, r = rng.normal(size=(200, 3)), rng.normal(size=(150, 3)), rng.normal(size=(180, 3))
    attacks._REFERENCE.clear()
    _, first, _ = attacks.domias(x, g, r, compat=compat)
    assert len(attacks._REFERENCE) == 1
    _, second, _ = attacks.domias(x.copy(), g + 0.25, r.copy(), compat=compat)  # another G
    assert len(attacks._REFERENCE) == 1  # the kept reference density
    with pytest.raises(ValueError):
        attacks._REFERENCE[0][1][1][0] = 1.0  # read-only
    attacks._REFERENCE.clear()
    _, fresh, _ = attacks.domias(x, g + 0.25, r, compat=compat)
    assert second.tobytes() == fresh.tobytes()
    assert not np.array_equal(first, second)
    r[0, 0] += 1.0  # another reference: computed anew
    attacks.domias(x, g, r, compat=compat)
    assert len(attacks._REFERENCE) == 2
