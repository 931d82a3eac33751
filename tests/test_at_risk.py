"""The people at risk (:mod:`capkit.audit.at_risk`): every flag against a slow record-by-record
reference, a bootstrap's exposed records are copies, independent columns expose few, ``row``
is the position in the original file whatever its index, the JSON list and ``--records``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.attacks import attribute_attack, singling_out
from capkit.audit import audit
from capkit.audit.at_risk import FLAGS, MASK, flag_lists, masked, top
from capkit.cli import main
from capkit.report import render
from capkit.report.custodian import TOP_RECORDS, custodian_report
from capkit.synth.baselines import bootstrap_with_noise, independent_columns

KEYS = ["sex", "region", "job"]
TARGETS = ["smoke", "grade"]
N = 200


def _population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(list("abc"), n)
    job = rng.choice(["clerk", "nurse", "driver", "pilot"], n, p=[0.35, 0.35, 0.27, 0.03])
    grade = np.where(rng.random(n) < 0.6, np.where(sex == "F", "g1", "g2"),
                     rng.choice(["g1", "g2", "g3"], n))
    smoke = rng.choice(["yes", "no"], n, p=[0.3, 0.7])
    age = rng.integers(18, 80, n)
    income = np.round(np.exp(rng.normal(10, 0.5, n)), 2)
    return pd.DataFrame({"sex": sex, "region": region, "job": job, "age": age,
                         "income": income, "grade": grade, "smoke": smoke})


@pytest.fixture(scope="module")
def case() -> dict[str, object]:
    data = _population(2 * N, 7)
    members = data.iloc[:N].reset_index(drop=True)
    members.loc[10:70:10, "job"] = [f"rare {i}" for i in range(7)]  # sample uniques
    holdout = data.iloc[N:].reset_index(drop=True)
    named = {"boot": bootstrap_with_noise(members, seed=1),
             "exact": members.sample(N, replace=True, random_state=2).reset_index(drop=True),
             "ind": independent_columns(members, seed=1)}
    result = audit(members, named, holdout=holdout, keys=KEYS, targets=TARGETS, seed=0)
    return {"members": members, "holdout": holdout, "named": named, "audit": result}


def _mine(case: dict, name: str) -> pd.DataFrame:
    table = case["audit"].records_at_risk
    return table[table["synthesis"] == name].reset_index(drop=True)


def _same(a: object, b: object) -> bool:
    return (pd.isna(a) and pd.isna(b)) or a == b


# --- slow references, one record at a time (plain Python over the rows) ---------------------

def _rows(frame: pd.DataFrame, columns: list[str]) -> list[tuple]:
    return list(frame[columns].itertuples(index=False, name=None))


def _ref_uniques(members: pd.DataFrame, synthetic: pd.DataFrame
                 ) -> tuple[np.ndarray, np.ndarray]:
    m_keys, s_keys = _rows(members, KEYS), _rows(synthetic, KEYS)
    unique, replicated = [], []
    for k in m_keys:
        in_o = sum(1 for x in m_keys if x == k)
        in_s = sum(1 for x in s_keys if x == k)
        unique.append(in_o == 1)
        replicated.append(in_o == 1 and in_s == 1)
    return np.array(unique), np.array(replicated)


def _ref_disco(members: pd.DataFrame, synthetic: pd.DataFrame, target: str) -> np.ndarray:
    m_rows, s_rows = _rows(members, [*KEYS, target]), _rows(synthetic, [*KEYS, target])
    out = []
    for *k, value in m_rows:
        values = {v for *sk, v in s_rows if sk == k}
        out.append(values == {value})
    return np.array(out)


def _ref_dcr(frame: pd.DataFrame, synthetic: pd.DataFrame) -> np.ndarray:
    columns = list(synthetic.columns)
    ranges = [float(synthetic[c].max() - synthetic[c].min())
              if pd.api.types.is_numeric_dtype(synthetic[c]) else None for c in columns]
    s_rows = _rows(synthetic, columns)
    out = []
    for row in _rows(frame, columns):
        best = 1.0
        for other in s_rows:
            total = 0.0
            for x, y, r in zip(row, other, ranges, strict=True):
                total += (float(x != y) if r is None else
                          min(abs(float(x) - float(y)) / r, 1.0) if r > 0 else float(x != y))
            best = min(best, total / len(columns))
        out.append(best)
    return np.array(out)


def _matches(record: dict, conditions: tuple) -> bool:
    for column, op, value in conditions:
        v = record[column]
        if op == "is_null":
            ok = pd.isna(v)
        elif pd.isna(v):
            ok = False
        elif op == "==":
            ok = v == value
        elif op == "<=":
            ok = v <= value
        elif op == ">=":
            ok = v >= value
        elif op == "<":
            ok = v < value
        elif op == ">":
            ok = v > value
        else:
            ok = v != value
        if not ok:
            return False
    return True


def _ref_singled_out(members: pd.DataFrame, queries: pd.DataFrame) -> np.ndarray:
    records = members.to_dict("records")
    out = np.zeros(len(members), dtype=bool)
    for conditions in queries.loc[queries["kind"] == "main", "conditions"]:
        hits = [i for i, r in enumerate(records) if _matches(r, conditions)]
        if len(hits) == 1:
            out[hits[0]] = True
    return out


def _ref_attack(members: pd.DataFrame, holdout: pd.DataFrame, records: pd.DataFrame
                ) -> np.ndarray:
    right_m = records.xs("member", level="group")["correct"].to_dict()
    right_h = records.xs("holdout", level="group")["correct"].to_dict()
    h_keys = _rows(holdout, KEYS)
    out = []
    for i, k in enumerate(_rows(members, KEYS)):
        alikes = [j for j, x in enumerate(h_keys) if x == k]
        out.append(bool(right_m.get(i, False)) and len(alikes) > 0
                   and not any(bool(right_h.get(j, False)) for j in alikes))
    return np.array(out)


# --- the flags ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["boot", "exact", "ind"])
def test_every_flag_matches_the_reference(case: dict, name: str) -> None:
    members, holdout = case["members"], case["holdout"]
    synthetic = case["named"][name]
    mine = _mine(case, name)
    assert len(mine) == N and mine["row"].tolist() == list(range(N))
    unique, replicated = _ref_uniques(members, synthetic)
    np.testing.assert_array_equal(mine["sample unique"], unique)
    np.testing.assert_array_equal(mine["replicated unique"], replicated)
    per_target = {t: _ref_disco(members, synthetic, t) for t in TARGETS}
    np.testing.assert_array_equal(mine["DiSCO"], per_target["smoke"] | per_target["grade"])
    named = [", ".join(t for t in TARGETS if per_target[t][i]) for i in range(N)]
    assert mine["DiSCO targets"].tolist() == named
    d_m, d_h = _ref_dcr(members, synthetic), _ref_dcr(holdout, synthetic)
    cut = np.quantile(d_h, 0.05)
    np.testing.assert_array_equal(mine["exact copy"], d_m == 0)
    np.testing.assert_array_equal(mine["near copy"], (d_m > 0) & (d_m <= cut + 1e-12))
    queries = singling_out(members, synthetic, control=holdout, seed=0).queries
    np.testing.assert_array_equal(mine["singled out"], _ref_singled_out(members, queries))
    attack = np.zeros(N, dtype=bool)
    for t in TARGETS:
        records = attribute_attack(members[KEYS + TARGETS], synthetic[KEYS + TARGETS], KEYS, t,
                                   attacker="knn", holdout=holdout[KEYS + TARGETS]).records
        attack |= _ref_attack(members, holdout, records)
    np.testing.assert_array_equal(mine["attack"], attack)


def test_flag_counts_equal_the_audits_measures(case: dict) -> None:
    """DiSCO and repU records, counted from the table, are the audit's percentages."""
    measures = case["audit"].measures
    for name in case["named"]:
        mine = _mine(case, name)
        row = measures[measures["synthesis"] == name]
        for t in TARGETS:
            disco = float(row.loc[row["target"] == t, "DiSCO"].iloc[0])
            flagged = mine["DiSCO targets"].str.split(", ").map(lambda x, t=t: t in x).sum()
            assert flagged == pytest.approx(disco / 100 * N)
        assert mine["replicated unique"].sum() == pytest.approx(
            float(row["repU"].iloc[0]) / 100 * N)
        assert mine["sample unique"].sum() == pytest.approx(float(row["UiO"].iloc[0]) / 100 * N)


def test_score_is_the_documented_weighted_count(case: dict) -> None:
    weights = {"exact copy": 5, "near copy": 3, "replicated unique": 3, "DiSCO": 2,
               "attack": 2, "singled out": 2, "sample unique": 1}
    for name in case["named"]:
        mine = _mine(case, name)
        extra = sum(np.maximum(mine[c].str.count(", ") + (mine[c] != "") - 1, 0)
                    for c in ("DiSCO targets", "attack targets"))
        expected = sum(w * mine[f].astype(int) for f, w in weights.items()) + 0.25 * extra
        np.testing.assert_allclose(mine["score"], expected)
        ranked = sorted(range(N), key=lambda i: (-mine["score"][i], i))
        assert [int(mine["rank"][i]) for i in ranked] == list(range(1, N + 1))


def test_bootstrap_exposes_copies_independent_columns_few(case: dict) -> None:
    for name in ("boot", "exact"):
        exposed = _mine(case, name)
        exposed = exposed[exposed["score"] > 0]
        copies = (exposed["exact copy"] | exposed["near copy"]).mean()
        # "mostly": the others are DiSCO records of small key cells (a bootstrap keeps them)
        assert len(exposed) > N / 2 and copies > 0.75, (name, len(exposed), copies)
    ind = _mine(case, "ind")
    by_synthesis = ind[[f for f in FLAGS if f != "sample unique"]].any(axis=1)
    # near copies are 5% of any synthesis by the threshold's construction, DiSCO a few small
    # cells with one target value by chance
    assert by_synthesis.mean() < 0.2
    assert by_synthesis.sum() < 0.25 * (_mine(case, "boot")["score"] > 0).sum()
    copies = ind[ind["score"] > 0]
    assert (copies["exact copy"] | copies["near copy"]).mean() < 0.5


def test_rows_are_positions_in_the_file_not_index_labels(case: dict) -> None:
    members, holdout = case["members"], case["holdout"]
    synthetic = case["named"]["exact"]
    shuffled = members.copy()
    shuffled.index = np.random.default_rng(0).permutation(N) + 1000
    result = audit(shuffled, {"exact": synthetic}, holdout=holdout, keys=KEYS,
                   targets=TARGETS, seed=0)
    mine = result.records_at_risk
    reference = _mine(case, "exact")
    assert mine[list(FLAGS)].to_numpy().any(axis=0).sum() >= 5  # most flags occur here
    for column in ("row", *FLAGS, "DiSCO targets", "attack targets", "score", "rank"):
        assert mine[column].tolist() == reference[column].tolist()
    rows = set(map(tuple, synthetic.itertuples(index=False)))
    for r in mine.loc[mine["exact copy"], "row"]:
        assert tuple(members.iloc[r]) in rows
    for r in mine.loc[~mine["exact copy"], "row"]:
        assert tuple(members.iloc[r]) not in rows
    for k in KEYS:
        assert (mine[k].to_numpy() == members[k].to_numpy()).all()


def test_json_lists_the_top_records(case: dict) -> None:
    result = case["audit"]
    doc = json.loads(render(custodian_report(result, "capkit report", {}, []), "json"))
    listed = doc["records_at_risk"]
    table = result.records_flagged  # the report lists the flags beyond the control
    for name in result.syntheses:
        mine = [e for e in listed if e["synthesis"] == name]
        flagged = int((table.loc[table["synthesis"] == name, "score"] > 0).sum())
        assert len(mine) == min(TOP_RECORDS, flagged)
        assert [e["score"] for e in mine] == sorted((e["score"] for e in mine), reverse=True)
    for entry in listed:
        assert set(entry) >= {"row", "synthesis", "flags", "score"}
        row = table[(table["synthesis"] == entry["synthesis"]) & (table["row"] == entry["row"])]
        assert entry["flags"] == [f for f in FLAGS if bool(row[f].iloc[0])]
        assert entry["score"] == pytest.approx(float(row["score"].iloc[0]))
    assert flag_lists(top(table, 1)) == [e["flags"] for e in listed if e["rank"] == 1]


def test_masking_hides_rare_values_and_targets(case: dict) -> None:
    table = case["audit"].records_at_risk
    shown = masked(table, KEYS)
    first = table[table["synthesis"] == "boot"]
    for k in KEYS:
        counts = first[k].value_counts()
        rare = table[k].map(counts) < 10
        assert (shown.loc[rare, k] == MASK).all()
        assert (shown.loc[~rare, k] == table.loc[~rare, k].astype(str)).all()
    disclosed = table["disclosed targets"] != ""
    assert disclosed.any()
    assert not shown.loc[disclosed, "disclosed values"].str.contains("yes|no|g1|g2|g3").any()
    assert shown.loc[disclosed, "disclosed values"].str.contains(MASK, regex=False).all()
    plain = masked(table, KEYS, show=True)
    assert plain["disclosed values"].equals(table["disclosed values"])
    row = table[disclosed].iloc[0]
    first_target = row["disclosed targets"].split(", ")[0]
    value = case["members"][first_target].iloc[int(row["row"])]
    assert row["disclosed values"].startswith(f"{first_target}={value}")


def test_cli_records_writes_every_member(case: dict, tmp_path: Path) -> None:
    paths = {}
    for name, frame in {"orig": case["members"], "hold": case["holdout"],
                        "boot": case["named"]["boot"], "ind": case["named"]["ind"]}.items():
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    out, report = tmp_path / "records.csv", tmp_path / "report.json"
    result = CliRunner().invoke(main, [
        "report", str(paths["orig"]), str(paths["boot"]), str(paths["ind"]), "--holdout",
        str(paths["hold"]), "--keys", ",".join(KEYS), "--targets", ",".join(TARGETS),
        "--records", str(out), "--format", "json", "-o", str(report), "-q"])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out, keep_default_na=False)
    assert len(written) == 2 * N
    for name in written["synthesis"].unique():
        assert sorted(written.loc[written["synthesis"] == name, "row"]) == list(range(N))
    assert {*FLAGS, "score", "rank", *KEYS} <= set(written.columns)
    doc = json.loads(report.read_text())
    assert doc["records_at_risk"] and doc["records_at_risk"][0]["rank"] == 1
    page = CliRunner().invoke(main, [
        "report", str(paths["orig"]), str(paths["boot"]), "--holdout", str(paths["hold"]),
        "--keys", ",".join(KEYS), "--targets", ",".join(TARGETS), "--show-values", "-q",
        "--family", "distance"])
    assert page.exit_code == 0, page.output
    assert "The people at risk" in page.output and MASK not in page.output.split(
        "The people at risk")[1].split("How the verdicts")[0]
    bad = CliRunner().invoke(main, ["report", str(paths["orig"]), str(paths["boot"]),
                                    "--records", str(tmp_path / "r.txt"), "-q"])
    assert bad.exit_code != 0 and "--records" in bad.output


def test_every_flag_occurs_in_these_cases(case: dict) -> None:
    """The reference comparisons above check each flag on records where it is set."""
    table = case["audit"].records_at_risk
    assert all(table[f].any() for f in FLAGS), table[list(FLAGS)].sum().to_dict()


def test_missing_values_are_a_level_like_synthpops(case: dict) -> None:
    members = case["members"].copy()
    synthetic = case["named"]["exact"].copy()
    members.loc[::7, "region"] = np.nan
    synthetic.loc[::5, "region"] = np.nan
    members.loc[::11, "smoke"] = np.nan
    result = audit(members, {"s": synthetic}, keys=KEYS, targets=TARGETS, seed=0,
                   families=["synthpop measures"])
    mine = result.records_at_risk
    filled_m, filled_s = members.fillna("<NA>"), synthetic.fillna("<NA>")
    unique, replicated = _ref_uniques(filled_m, filled_s)
    np.testing.assert_array_equal(mine["sample unique"], unique)
    np.testing.assert_array_equal(mine["replicated unique"], replicated)
    for t in TARGETS:
        flagged = mine["DiSCO targets"].str.split(", ").map(lambda x, t=t: t in x)
        np.testing.assert_array_equal(flagged, _ref_disco(filled_m, filled_s, t))


def test_without_holdout_near_copies_and_attack_are_not_flagged(case: dict) -> None:
    result = audit(case["members"], {"exact": case["named"]["exact"]}, keys=KEYS,
                   targets=TARGETS, seed=0, families=["distance", "attribute attacks"])
    mine = result.records_at_risk
    assert not mine["near copy"].any() and not mine["attack"].any()
    assert mine["exact copy"].sum() == (_mine(case, "exact")["exact copy"]).sum()
    note = [n for n in result.notes if n.startswith("records at risk")]
    assert note and "near copy" in note[0] and "attack" in note[0]
    text = render(custodian_report(result, "capkit report", {}, []), "html")
    assert "The people at risk" in text and "Records at risk: exact" in text


def test_flagged_target_names_against_a_record_by_record_join():
    """The names of the flagged targets per record, in the targets' order, and how many."""
    from capkit.audit.at_risk import _targets_text

    rng = np.random.default_rng(4)
    for n_targets in (1, 3, 7):
        per_target = {f"t{j}": rng.random(300) < rng.random() for j in range(n_targets)}
        text, count = _targets_text(per_target, 300)
        for i in range(300):
            names = [t for t, flag in per_target.items() if flag[i]]
            assert text[i] == ", ".join(names) and count[i] == len(names)


def test_text_read_as_categories_gives_the_same_audit(case: dict, monkeypatch) -> None:
    """The audit reads text columns as categories (capkit.audit.inputs.as_categories): the same
    findings, notes, warnings and records at risk as the measures reading the text itself (the
    conversion switched off), missing text values included; the caller's frames keep their
    text columns."""
    import capkit.audit.run as run

    members = case["members"].copy()
    members.loc[[3, 5], "grade"] = None  # a missing text value
    holdout, named = case["holdout"], case["named"]
    before = {name: frame.dtypes.copy() for name, frame in
              [("members", members), ("holdout", holdout), *named.items()]}
    converted = audit(members, named, holdout=holdout, keys=KEYS, targets=TARGETS, seed=0)
    for name, frame in [("members", members), ("holdout", holdout), *named.items()]:
        assert frame.dtypes.equals(before[name])
    monkeypatch.setattr(run, "_as_categories", lambda original, named, holdout: (
        original, named, holdout))
    as_text = audit(members, named, holdout=holdout, keys=KEYS, targets=TARGETS, seed=0)
    pd.testing.assert_frame_equal(converted.to_frame(), as_text.to_frame())
    pd.testing.assert_frame_equal(converted.records_at_risk, as_text.records_at_risk)
    assert converted.notes == as_text.notes and converted.warnings == as_text.warnings
    assert converted.measures.equals(as_text.measures)
