"""synthpop's sdc() treatments (capkit.synth.sdc) and ``capkit sdc``: a record-by-record
reference of synthpop's rules (R/IO.r of synthpop 1.9-2), repU = 0 after removing the replicated
uniques (measured by capkit.disclosure), coding, refusals and the command."""

from __future__ import annotations

import math
import os
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from capkit.cli.main import main
from capkit.disclosure import disclosure
from capkit.errors import CapkitError
from capkit.synth.sdc import sdc

DATA = Path(os.environ.get("CAPKIT_DATA", Path(__file__).parents[2] / "shared" / "data"))
BAND = Path(__file__).resolve().parents[1] / "reference" / "synthpop" / "adult_band"
needs_adult = pytest.mark.skipif(not (DATA / "AdultUCI.rda").is_file(),
                                 reason="Adult data not available")


def _frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    frame = pd.DataFrame({"a": rng.integers(0, 6, n).astype(float),
                          "b": rng.choice(["x", "y", "z"], n), "c": rng.integers(0, 5, n),
                          "income": rng.integers(-8, 4000, n)})
    frame["a"] = frame["a"].mask(rng.random(n) < 0.05)
    return frame


def _key(row: tuple) -> tuple:
    """A row's key with every missing value as one marker (NaN != NaN in Python)."""
    return tuple("<NA>" if isinstance(v, float) and math.isnan(v) else v for v in row)


def _slow_rules(original: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str]
                ) -> tuple[list[int], list[int]]:
    """synthpop's replicated.uniques, one record at a time: the synthetic rows unique on the
    keys whose key is unique in the original (repU.rm) / occurs in the original (synU.rm)."""
    orig = Counter(_key(r) for r in original[keys].itertuples(index=False))
    syn_keys = [_key(r) for r in synthetic[keys].itertuples(index=False)]
    syn = Counter(syn_keys)
    rep, found = [], []
    for i, key in enumerate(syn_keys):
        if syn[key] == 1 and orig.get(key, 0) == 1:
            rep.append(i)
        if syn[key] == 1 and orig.get(key, 0) >= 1:
            found.append(i)
    return rep, found


def _slow_coding(values: pd.Series, bottom: float | None, top: float | None,
                 exclude: list[float]) -> tuple[list[float], int, int]:
    """synthpop's bottom.top.recoding, one value at a time."""
    out, n_bottom, n_top = [], 0, 0
    for v in values:
        if pd.isna(v) or v in exclude:
            out.append(v)
        elif bottom is not None and v < bottom:
            out.append(bottom)
            n_bottom += 1
        elif top is not None and v > top:
            out.append(top)
            n_top += 1
        else:
            out.append(v)
    return out, n_bottom, n_top


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_removals_match_the_record_by_record_rules(seed: int) -> None:
    rng = np.random.default_rng(seed)
    original, synthetic = _frame(rng, 300), _frame(rng, 300)
    keys = ["a", "b", "c"]
    rep, found = _slow_rules(original, synthetic, keys)
    assert rep and len(found) > len(rep)  # the cases are not empty
    result = sdc(synthetic, original, keys, rm_replicated_uniques=True)
    assert list(result.removed) == rep
    assert result.replicated_uniques == len(rep) and result.uniques_in_original == len(found)
    assert list(result.data.index) == [i for i in range(300) if i not in set(rep)]
    both = sdc(synthetic, original, keys, rm_replicated_uniques=True,
               rm_uniques_in_original=True)
    assert list(both.removed) == found
    assert any("both removals" in m for m in both.messages)


@pytest.mark.parametrize("seed", [3, 4])
def test_repu_is_zero_after_removing_replicated_uniques(seed: int) -> None:
    rng = np.random.default_rng(seed)
    original = _frame(rng, 400)
    synthetic = original.sample(400, replace=True, random_state=seed).reset_index(drop=True)
    keys = ["a", "c", "income"]
    before = disclosure(synthetic, original, keys, "b",
                        allow_disjoint_levels=True).ident["repU"].iloc[0]
    treated = sdc(synthetic, original, keys, rm_replicated_uniques=True).data
    after = disclosure(treated, original, keys, "b",
                       allow_disjoint_levels=True).ident["repU"].iloc[0]
    assert before > 0
    assert after == 0


def test_bottom_and_top_coding_match_synthpops_rule() -> None:
    rng = np.random.default_rng(7)
    original, synthetic = _frame(rng, 200), _frame(rng, 200)
    synthetic.loc[:9, "income"] = -8
    gaps = (rng.random(200) < 0.05) & (np.arange(200) >= 10)
    synthetic["income"] = synthetic["income"].astype(float).mask(gaps)
    result = sdc(synthetic, original, ["a", "b"], bottom_code={"income": 0},
                 top_code={"income": 2500}, recode_exclude={"income": [-8]})
    expected, n_bottom, n_top = _slow_coding(synthetic["income"], 0, 2500, [-8])
    np.testing.assert_array_equal(result.data["income"].to_numpy(), np.array(expected))
    assert result.bottom_coded == {"income": n_bottom} and result.top_coded == {"income": n_top}
    assert n_top > 0 and (result.data["income"] == -8).sum() == 10
    assert len(result.removed) == 0  # no removal asked
    # an integer column capped at whole numbers stays an integer column
    ints = sdc(original, original, ["b"], top_code={"c": 2}).data
    assert ints["c"].dtype == original["c"].dtype and ints["c"].max() == 2


def test_coding_comes_before_the_removal() -> None:
    # after top coding at 100, the synthetic record (1, 500) becomes (1, 100), which is a
    # unique of the original: synthpop's order makes it a replicated unique
    original = pd.DataFrame({"k": [1, 2, 2], "v": [100, 5, 5]})
    synthetic = pd.DataFrame({"k": [1, 2, 2], "v": [500, 5, 5]})
    result = sdc(synthetic, original, ["k", "v"], rm_replicated_uniques=True,
                 top_code={"v": 100})
    assert list(result.removed) == [0]


def test_inputs_are_not_modified() -> None:
    rng = np.random.default_rng(9)
    original, synthetic = _frame(rng, 100), _frame(rng, 100)
    copies = original.copy(), synthetic.copy()
    sdc(synthetic, original, ["a", "b"], rm_uniques_in_original=True,
        top_code={"income": 10})
    pd.testing.assert_frame_equal(copies[0], original)
    pd.testing.assert_frame_equal(copies[1], synthetic)


def test_bad_input_and_refusals() -> None:
    original = pd.DataFrame({"k": [1, 2, 3], "v": [1.0, 2.0, 3.0], "s": list("abc")})
    with pytest.raises(CapkitError, match="remove every one of the 3"):
        sdc(original, original, ["k"], rm_replicated_uniques=True)
    with pytest.raises(CapkitError, match="remove every one"):
        sdc(original, original, None, rm_uniques_in_original=True)
    with pytest.raises(CapkitError, match="'s' is not numeric"):
        sdc(original, original, ["k"], top_code={"s": 1})
    with pytest.raises(CapkitError, match="above its top code"):
        sdc(original, original, ["k"], bottom_code={"v": 3}, top_code={"v": 1})
    with pytest.raises(CapkitError, match="key column 'z' is missing from synthetic"):
        sdc(original, original, ["z"])
    with pytest.raises(CapkitError, match="not coded"):
        sdc(original, original, ["k"], recode_exclude={"v": [1]})
    with pytest.raises(CapkitError, match="must be a number"):
        sdc(original, original, ["k"], top_code={"v": "high"})
    with pytest.raises(CapkitError, match="empty"):
        sdc(original.iloc[:0], original, ["k"])
    with pytest.raises(CapkitError, match="'k' is numeric in the original data but text"):
        sdc(original.assign(k=original["k"].astype(str)), original, ["k"])


def test_command_writes_the_treated_file_and_says_what_it_removed(tmp_path: Path) -> None:
    original = pd.DataFrame({"a": [1, 1, 2, 3], "b": list("xxyz"), "inc": [10, 20, 30, 5000]})
    synthetic = pd.DataFrame({"a": [1, 2, 3, 4, 4], "b": list("xyzww"),
                              "inc": [11, 3000, 40, 7, 8]})
    original.to_csv(tmp_path / "o.csv", index=False)
    synthetic.to_csv(tmp_path / "s.csv", index=False)
    out = tmp_path / "t.csv"
    run = CliRunner().invoke(main, ["sdc", str(tmp_path / "o.csv"), str(tmp_path / "s.csv"),
                                    "-o", str(out), "--keys", "a,b",
                                    "--rm-replicated-uniques", "--top-code", "inc=1000"])
    assert run.exit_code == 0, run.output
    assert "replicated uniques removed: 2" in run.output
    assert "inc: 1 value(s) above 1000 top-coded" in run.output
    assert "records: 5 -> 3 (2 removed)" in run.output
    assert "header excluded): 1, 2\n" in run.output
    treated = pd.read_csv(out)
    assert treated.to_dict("list") == {"a": [1, 4, 4], "b": ["x", "w", "w"],
                                       "inc": [11, 7, 8]}
    refused = CliRunner().invoke(main, ["sdc", str(tmp_path / "o.csv"),
                                        str(tmp_path / "o.csv"), "-o", str(tmp_path / "u.csv"),
                                        "--keys", "a,b,inc", "--rm-uniques-in-original"])
    assert refused.exit_code == 1 and "remove every one" in refused.output
    assert not (tmp_path / "u.csv").exists()
    bad = CliRunner().invoke(main, ["sdc", str(tmp_path / "o.csv"), str(tmp_path / "s.csv"),
                                    "-o", str(tmp_path / "v.txt"), "--keys", "a"])
    assert bad.exit_code == 1 and ".csv or .parquet" in bad.output
    bad = CliRunner().invoke(main, ["sdc", str(tmp_path / "o.csv"), str(tmp_path / "s.csv"),
                                    "-o", str(tmp_path / "v.csv"), "--keys", "a",
                                    "--top-code", "inc=lots"])
    assert bad.exit_code == 1 and "must be a number" in bad.output


@needs_adult
def test_adult_synthpop_cart_synthesis_repu_zero_and_nothing_worse() -> None:
    from capkit.data import datasets
    from capkit.papers.raab_nowok_dibben.adult_band import load_adult_band
    from capkit.papers.raab_nowok_dibben.adult_table1 import ADULT_KEYS, ADULT_TARGETS

    adult = datasets.load_adult(DATA, progress=False)[list(datasets.ADULT_PAPER_VARIABLES)]
    synthetic = load_adult_band(BAND, [1])[1]
    keys = list(ADULT_KEYS)
    rep, found = _slow_rules(adult, synthetic, keys)
    result = sdc(synthetic, adult, keys, rm_replicated_uniques=True)
    assert list(result.removed) == rep and result.uniques_in_original == len(found)
    measures = {"ident": ["UiS", "UiOiS", "repU"], "attrib": ["DiSCO", "DiSDiO", "iS", "DiS"],
                "allcaps": ["DCAP", "TCAP", "CAPs"]}
    worse = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for target in ADULT_TARGETS:
            before = disclosure(synthetic, adult, keys, target)
            after = disclosure(result.data, adult, keys, target)
            assert before.ident["repU"].iloc[0] > 0
            assert after.ident["repU"].iloc[0] == 0
            for table, names in measures.items():
                for name in names:  # TCAP could rise (its denominator shrinks); it does not
                    b = getattr(before, table)[name].iloc[0]
                    a = getattr(after, table)[name].iloc[0]
                    if a > b + 1e-12:
                        worse.append((target, name, b, a))
    assert worse == []
