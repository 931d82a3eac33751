"""Controls on the report's tables and pictures: the worst key combinations and the key x
target heatmap are ranked and coloured by the members' advantage over the holdout when there
is one (a release that discloses as much about anyone as about its members is not the worst),
with one colour scale for every synthesis."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from capkit.audit.exposure import worst_combinations  # noqa: E402
from capkit.plots.sweep import key_target_heatmap  # noqa: E402

KEYS = ["sex", "region", "age"]


def _draw(n: int, seed: int, noise: float = 0.3) -> pd.DataFrame:
    """A population in which sex and region make one job likely (probability 1 - noise); with
    ``noise=0`` a smoothing synthesiser's release: every key group holds the likeliest job
    only, so it discloses the job of members and of anyone alike (DiSCO far above Dorig, the
    original's own mixed groups, and no advantage over the holdout)."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    region = rng.choice(list("abcdefgh"), n)
    age = rng.choice(["<30", "30-50", ">50"], n)
    code = ((sex == "m") * 2 + np.searchsorted(list("abcdefgh"), region)) % 5
    job = np.where(rng.random(n) >= noise, code.astype(str), rng.choice(list("01234"), n))
    return pd.DataFrame({"sex": sex, "region": region, "age": age, "job": job})


def test_ranked_and_coloured_by_the_advantage_over_the_holdout() -> None:
    population = _draw(3000, 1)
    members, holdout = population.iloc[:1500], population.iloc[1500:]
    model = _draw(1500, 7, noise=0.0)  # the population's model, no member seen
    named = {"model": model}
    got = worst_combinations(members, named, holdout, KEYS, ["job"], {}, 2)
    alone = worst_combinations(members, named, None, KEYS, ["job"], {}, 2)
    assert got.by == "advantage" and alone.by == "excess"
    # DiSCO - Dorig calls the model's release the worst (sex + region, tens of points) ...
    assert alone.table.iloc[0]["excess"] > 50
    assert np.nanmax(alone.matrices["model"].to_numpy()) > 25
    # ... while it tells as much about the holdout: ranked and coloured by the control, it
    # is small (the rule: under 5 points, sampling noise of 1,500 records)
    assert got.table.iloc[0]["excess"] > 50 and abs(got.table.iloc[0]["advantage"]) < 5
    assert np.nanmax(np.abs(got.matrices["model"].to_numpy())) < 5


def test_one_colour_scale_for_every_synthesis() -> None:
    matrix = pd.DataFrame({"job": [1.0, 2.0]}, index=["sex", "region"])
    fig = key_target_heatmap(matrix, bound=10.0)
    try:
        assert fig.axes[0].images[0].get_clim() == (-10.0, 10.0)
    finally:
        plt.close(fig)


def test_records_at_risk_list_only_flags_beyond_the_control() -> None:
    from capkit.audit import audit
    from capkit.report.custodian import custodian_report
    from capkit.synth.baselines import independent_columns

    rng = np.random.default_rng(4)
    n = 2400
    data = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(list("abcd"), n),
                         "age": rng.choice(["<30", "30-50", ">50"], n),
                         "kids": rng.integers(0, 10, n), "pets": rng.integers(0, 10, n),
                         "job": rng.choice(list("abc"), n)})  # coarse: 15% chance copies
    members, holdout = data.iloc[:1200].reset_index(drop=True), data.iloc[1200:]
    ind = independent_columns(members, seed=1)
    boot = members.sample(frac=1.0, replace=True, random_state=2).reset_index(drop=True)
    result = audit(members, {"ind": ind, "boot": boot}, holdout=holdout, keys=KEYS,
                   targets=["job"], families=("synthpop measures", "distance"),
                   original_exposure=False, sweep_size=None)
    raw = result.records_at_risk
    assert raw[(raw["synthesis"] == "ind")]["exact copy"].any()  # chance copies are there
    copies = next(f for f in result.findings if f.synthesis == "ind"
                  and f.measure == "exact copies")
    assert copies.verdict == "not flagged"  # ... at the holdout's rate
    flagged = result.records_flagged
    ind_rows = flagged[flagged["synthesis"] == "ind"]
    assert not ind_rows["exact copy"].any() and (ind_rows["score"] == 0).all()
    assert (flagged[flagged["synthesis"] == "boot"]["score"] > 0).any()
    report = custodian_report(result, "capkit report", {}, [])
    (section,) = [s for s in report.sections if s.title == "The people at risk"]
    assert "ind: none (no member flagged by a measure beyond its control)" in section.items
    assert [t.title for t in section.tables] == ["Records at risk: boot"]
