"""The report's "original's own exposure" and "worst key combinations": checked against a slow
record-by-record reference of the definitions, against the report's own synthpop measures, in
every format, with the options that switch them off, and on bad input."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit import CapkitError
from capkit.audit import audit
from capkit.audit.exposure import (
    SWEEP_PAIRS,
    WORST_SHOWN,
    _grouped,
    original_exposure,
    worst_combinations,
)
from capkit.cli import main
from capkit.disclosure.sweep import sweep
from capkit.synth.baselines import bootstrap_with_noise, independent_columns


def _population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(list("abcdef"), n)
    job = rng.choice(["clerk", "nurse", "driver", "cook", "teacher"], n)
    band = rng.choice(["<30", "30-50", ">50"], n)
    smoke = np.where((sex == "F") & (region == "a"), "no", rng.choice(["yes", "no"], n))
    income = np.round(np.exp(rng.normal(10, 0.5, n)) + 300 * (sex == "M"))
    frame = pd.DataFrame({"sex": sex, "region": region, "job": job, "band": band,
                          "smoke": smoke, "income": income})
    frame.loc[rng.random(n) < 0.03, "job"] = np.nan  # a missing key value is a value
    return frame


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    data = _population(900, 5)
    members = data.iloc[:600].reset_index(drop=True)
    return {"members": members, "holdout": data.iloc[600:].reset_index(drop=True),
            "boot": bootstrap_with_noise(members, seed=1),
            "ind": independent_columns(members, seed=1)}


KEYS = ["sex", "region", "job", "band"]
TARGETS = ["smoke", "income"]


# ---------------------------------------------------------------------------------------------
# a slow reference of the definitions, record by record


def _risk(f: int, big_f: float) -> float:
    """Benedetti & Franconi's individual risk as sdcMicro's indivRisk (method approx)."""
    if big_f == f:
        return 1.0 / f
    p = f / big_f
    if f == 1:
        return p / (1 - p) * math.log(1 / p)
    if f == 2:
        return p / (1 - p) - (p / (1 - p)) ** 2 * math.log(1 / p)
    return p / (f - (1 - p))


def _reference(frame: pd.DataFrame, keys: list[str], targets: list[str],
               weights: list[float] | None) -> dict[str, object]:
    rows = [tuple("NA" if pd.isna(v) else v for v in r)
            for r in frame[keys].itertuples(index=False)]
    f = Counter(rows)
    big_f: dict[tuple, float] = {}
    for j, r in enumerate(rows):
        big_f[r] = big_f.get(r, 0.0) + (1.0 if weights is None else weights[j])
    er = sum(_risk(f[r], big_f[r]) for r in rows)
    diversity = {}
    for t in targets:
        seen: dict[tuple, set] = {}
        for r, v in zip(rows, frame[t], strict=True):
            seen.setdefault(r, set()).add("NA" if pd.isna(v) else v)
        diversity[t] = min(len(s) for s in seen.values())
    return {"k": min(f.values()), "classes": len(f),
            "uniques": sum(1 for r in rows if f[r] == 1), "er": er, "l": diversity}


@pytest.mark.parametrize("weighted", [False, True])
def test_exposure_matches_a_record_by_record_reference(frames, weighted: bool) -> None:
    members = frames["members"]
    weights = None
    if weighted:
        weights = pd.Series(np.random.default_rng(2).uniform(1.5, 40.0, len(members)),
                            name="w")
    got = original_exposure(members, KEYS, TARGETS, weights)
    ref = _reference(members, KEYS, TARGETS, None if weights is None else list(weights))
    assert got.k_anonymity == ref["k"]
    assert got.classes == ref["classes"]
    assert got.sample_uniques == ref["uniques"] > 0
    assert got.expected_reidentifications == pytest.approx(ref["er"], rel=1e-12)
    assert got.l_diversity == ref["l"]
    assert got.weights == ("w" if weighted else None)
    if not weighted:  # 1 / f_k per record: the expectation is the number of classes
        assert got.expected_reidentifications == pytest.approx(ref["classes"], rel=1e-12)


def test_identifying_keys_get_a_note() -> None:
    frame = pd.DataFrame({"a": list("abcdef"), "t": list("xxyyxy")})
    got = original_exposure(frame, ["a"], ["t"])
    assert got.k_anonymity == 1 and got.sample_uniques == 6
    assert any("act as an identifier" in n for n in got.notes)


# ---------------------------------------------------------------------------------------------
# worst combinations


def test_worst_combinations_are_the_sweeps_worst(frames) -> None:
    members, holdout = frames["members"], frames["holdout"]
    named = {"boot": frames["boot"], "ind": frames["ind"]}
    got = worst_combinations(members, named, holdout, KEYS, TARGETS, {"income": 5}, 2)
    assert got.skipped is None
    assert got.pairs == 2 * math.comb(4, 2) * 2
    for name, synthetic in named.items():
        grouped = _grouped([f[KEYS + TARGETS] for f in (members, synthetic, holdout)],
                           {"income": 5})
        full = sweep(grouped[1], grouped[0], KEYS, TARGETS, sizes=2, holdout=grouped[2])
        mine = got.table[got.table["synthesis"] == name].drop(columns="synthesis")
        # with a holdout the control ranks and colours them: the members' advantage
        pd.testing.assert_frame_equal(mine.reset_index(drop=True),
                                      full.worst(WORST_SHOWN, by="advantage"))
        pd.testing.assert_frame_equal(got.matrices[name], full.key_target("advantage"))
    assert got.by == "advantage"
    # worst first within each synthesis
    for _, part in got.table.groupby("synthesis"):
        assert part["advantage"].is_monotonic_decreasing
    # without a holdout, DiSCO - Dorig
    alone = worst_combinations(members, named, None, KEYS, TARGETS, {"income": 5}, 2)
    assert alone.by == "excess"
    for _, part in alone.table.groupby("synthesis"):
        assert part["excess"].is_monotonic_decreasing


def test_every_key_gives_the_reports_own_disco(frames) -> None:
    """The grouping is the report's: a combination of every key reproduces the audit's DiSCO
    and Dorig of every target (income grouped into 5 classes, smoke categorical)."""
    members, holdout, boot = frames["members"], frames["holdout"], frames["boot"]
    result = audit(members, {"boot": boot}, holdout=holdout, keys=KEYS, targets=TARGETS,
                   families=["synthpop measures"])
    assert result.worst_combinations is not None and result.exposure is not None
    grouped = _grouped([f[KEYS + TARGETS] for f in (members, boot, holdout)],
                       {t: 5 for t in ("income",)})
    full = sweep(grouped[1], grouped[0], KEYS, TARGETS, sizes=4, holdout=grouped[2]).table
    measures = result.measures.set_index("target")
    for t in TARGETS:
        row = full[full["target"] == t].iloc[0]
        assert row["DiSCO"] == pytest.approx(measures.loc[t, "DiSCO"], rel=1e-12)
        assert row["Dorig"] == pytest.approx(measures.loc[t, "Dorig"], rel=1e-12)
    # a categorical target: the holdout's DiSCO too
    row = full[full["target"] == "smoke"].iloc[0]
    assert row["holdout DiSCO"] == pytest.approx(measures.loc["smoke", "holdout DiSCO"],
                                                 rel=1e-12)


def test_a_slow_reference_of_disco_on_two_keys(frames) -> None:
    """DiSCO and Dorig of every 2-key combination of smoke, record by record."""
    members, boot = frames["members"], frames["ind"]
    got = worst_combinations(members, {"ind": boot}, None, KEYS, ["smoke"], {}, 2)
    full = sweep(boot, members, KEYS, ["smoke"], sizes=2).table.set_index("keys")

    def key(r, combo):
        return tuple("NA" if pd.isna(r[c]) else r[c] for c in combo)

    for combo in itertools.combinations(KEYS, 2):
        syn_values: dict[tuple, set] = {}
        for _, r in boot.iterrows():
            syn_values.setdefault(key(r, combo), set()).add(r["smoke"])
        org_values: dict[tuple, set] = {}
        for _, r in members.iterrows():
            org_values.setdefault(key(r, combo), set()).add(r["smoke"])
        disco = sum(1 for _, r in members.iterrows()
                    if syn_values.get(key(r, combo)) == {r["smoke"]})
        dorig = sum(1 for _, r in members.iterrows() if len(org_values[key(r, combo)]) == 1)
        row = full.loc[" + ".join(combo)]
        assert row["DiSCO"] == pytest.approx(100 * disco / len(members), abs=1e-12)
        assert row["Dorig"] == pytest.approx(100 * dorig / len(members), abs=1e-12)
    assert set(got.table["keys"]) <= set(full.index)


def test_skipped_with_a_note(frames) -> None:
    members, boot = frames["members"], frames["boot"]
    few = worst_combinations(members, {"b": boot}, None, ["sex", "region"], TARGETS, {}, 2)
    assert few.skipped and "needs at least 3 keys" in few.skipped and few.table.empty
    big = worst_combinations(members, {"b": boot}, None, KEYS, TARGETS, {}, 2, budget=10)
    assert big.skipped and "exceed the report's budget of 10" in big.skipped
    ids = members.assign(person=[f"p{j}" for j in range(len(members))])
    ident = worst_combinations(ids, {"b": boot.assign(person=ids["person"])}, None,
                               [*KEYS, "person"], TARGETS, {}, 2)
    assert ident.skipped and "identifier" in ident.skipped
    with pytest.raises(CapkitError, match="sweep_size"):
        worst_combinations(members, {"b": boot}, None, KEYS, TARGETS, {}, 0)
    assert SWEEP_PAIRS >= 200  # Adult's default report (4 keys, 11 targets, 3 syntheses)


def test_audit_options_and_inputs_unchanged(frames) -> None:
    members = frames["members"].assign(w=np.linspace(2.0, 9.0, len(frames["members"])))
    before = members.copy()
    syn = frames["boot"]
    result = audit(members, {"boot": syn}, keys=KEYS, targets=TARGETS, weights="w",
                   families=["synthpop measures"])
    pd.testing.assert_frame_equal(members, before)
    assert "w" not in result.targets and result.exposure.weights == "w"
    ref = _reference(before, KEYS, TARGETS, list(before["w"]))
    assert result.exposure.expected_reidentifications == pytest.approx(ref["er"], rel=1e-12)
    off = audit(frames["members"], {"boot": syn}, keys=KEYS, targets=TARGETS,
                families=["synthpop measures"], original_exposure=False, sweep_size=None)
    assert off.exposure is None and off.worst_combinations is None
    other = audit(frames["members"], {"boot": syn}, keys=KEYS, targets=TARGETS,
                  families=["distance"])  # they go with the synthpop measures' counts
    assert other.exposure is None and other.worst_combinations is None
    with pytest.raises(CapkitError, match="weights column 'nope'"):
        audit(frames["members"], {"boot": syn}, weights="nope", families=["synthpop measures"])
    bad = frames["members"].assign(w=-1.0)
    with pytest.raises(CapkitError, match="'w'"):
        audit(bad, {"boot": syn}, keys=KEYS, targets=TARGETS, weights="w",
              families=["synthpop measures"])


# ---------------------------------------------------------------------------------------------
# the command


@pytest.fixture(scope="module")
def files(frames, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("exposure")
    out = {}
    members = frames["members"].assign(w=np.linspace(2.0, 9.0, len(frames["members"])))
    for name, frame in (("orig", members), ("holdout", frames["holdout"]),
                        ("boot", frames["boot"])):
        out[name] = tmp / f"{name}.csv"
        frame.to_csv(out[name], index=False)
    return out


def _run(files, *args: str) -> object:
    return CliRunner().invoke(main, [
        "report", str(files["orig"]), str(files["boot"]), "--holdout", str(files["holdout"]),
        "--keys", ",".join(KEYS), "--targets", ",".join(TARGETS), "--weights", "w",
        "--family", "synthpop measures", "-q", *args])


def test_json_has_the_new_keys_and_keeps_the_old(files) -> None:
    run = _run(files, "--format", "json")
    assert run.exit_code == 0, run.output
    doc = json.loads(run.output)
    assert {"title", "command", "versions", "inputs", "sections", "findings",
            "records_at_risk"} <= set(doc)
    own = doc["original_exposure"]
    assert own["keys"] == KEYS and own["weights"] == "w" and own["sample_uniques"] > 0
    worst = doc["worst_key_combinations"]
    assert worst["size"] == 2 and worst["skipped"] is None
    assert len(worst["worst"]) == WORST_SHOWN
    assert {"target", "keys", "DiSCO", "Dorig", "excess", "risk"} <= set(worst["worst"][0])
    titles = [s["title"] for s in doc["sections"]]
    assert "The original's own exposure" in titles and "Worst key combinations" in titles
    assert all(f["subject"] != "w" for f in doc["findings"])  # weights are no target


def test_text_and_markdown_sections_and_switches(files) -> None:
    text = _run(files).output
    assert "The original's own exposure" in text and "k-anonymity" in text
    assert "Worst key combinations" in text and "The worst 2-key combinations" in text
    md = _run(files, "--format", "markdown", "--sweep-size", "3").output
    assert "## Worst key combinations" in md and "The worst 3-key combinations" in md
    off = _run(files, "--no-sweep", "--no-exposure", "--format", "json")
    doc = json.loads(off.output)
    assert "original_exposure" not in doc and "worst_key_combinations" not in doc
    skipped = json.loads(_run(files, "--sweep-size", "4", "--format", "json").output)
    assert "needs at least 5 keys" in skipped["worst_key_combinations"]["skipped"]
    bad = _run(files, "--weights", "nope")
    assert bad.exit_code == 1 and "Error:" in bad.output
