"""Default keys as an intruder would choose them: demographic-looking names first, a column
missing for many records passed over (and said), the note says how many records the keys make
unique, and a warning says when they single out almost nobody."""

from __future__ import annotations

import numpy as np
import pandas as pd

from capkit.audit.defaults import choose


def _survey(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    year = rng.choice([2016, 2018, 2020], n).astype(float)
    marital = rng.choice([1.0, 2.0], n)
    marital[rng.random(n) < 0.4] = np.nan  # asked of some only: 40% missing
    return pd.DataFrame({"year": year, "marital": marital,
                         "sex": rng.choice(["f", "m"], n),
                         "region": rng.choice(list("abcdefghi"), n),
                         "age": rng.choice([f"{a}-{a + 4}" for a in range(18, 90, 5)], n),
                         "race": rng.choice(["w", "b", "o"], n),
                         "income": rng.lognormal(10, 0.5, n)})


def test_a_sparse_column_is_passed_over_and_said() -> None:
    choice = choose(_survey(3000, 1))
    # demographic-looking names first (marital, sex, region, age, race), the sparse one passed
    # over
    assert choice.keys == ["sex", "region", "age", "race"]
    (note,) = [n for n in choice.notes if n.startswith("keys (default)")]
    assert "passed over for missing values (more than 20% of records): marital" in note
    assert "% of the original's records unique" in note


def test_keys_that_single_out_almost_nobody_are_warned_about() -> None:
    data = _survey(3000, 1)
    few = choose(data, keys=["year", "sex", "race"])  # 18 combinations: nobody unique
    assert any("single anyone out" in w for w in few.warnings)
    rare = data.assign(race=np.where(np.arange(3000) < 3, "rare", data["race"]))
    rare.loc[:2, "race"] = ["r1", "r2", "r3"]  # 3 of 3,000 records unique: 0.10%
    warned = choose(rare, keys=["year", "sex", "race"]).warnings
    assert any("make 0.10% of the original's records unique" in w for w in warned), warned


def test_demographic_looking_names() -> None:
    from capkit.audit.defaults import looks_demographic

    for name in ("sex", "SEX", "agegr", "age_group", "marital.status", "race", "region",
                 "educ", "occupation", "n_kids"):
        assert looks_demographic(name), name
    for name in ("wage", "usage", "year", "happy", "hrs", "divorce", "x1"):
        assert not looks_demographic(name), name
