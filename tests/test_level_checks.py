"""The traps of docs/own-data.md in the Python API: a key or target coded differently in the two
frames is an error (every measure counts through the same check), a continuous target matched
by exact value is a warning; both leave the numbers of well-coded inputs untouched."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from capkit.cap import record_cap
from capkit.counts.tables import crosstab
from capkit.disclosure import disclosure, disclosure_summary
from capkit.errors import CapkitError, ContinuousTargetWarning

MARITL = ["1. Never Married", "2. Married", "3. Widowed", "4. Divorced", "5. Separated"]


def _frame(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 30, n),
        "maritl": rng.choice(MARITL, n),
        "race": rng.choice(["White", "Black", "Asian"], n),
        "wage": np.round(rng.lognormal(4.5, 0.4, n), 4),
    })


@pytest.fixture()
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    orig = _frame()
    syn = orig.copy()
    syn["maritl"] = syn["maritl"].str[3:]  # "2. Married" -> "Married": no level in common
    return orig, syn


CALLS = {
    "crosstab": lambda o, s, **kw: crosstab(o, s, ["age", "maritl"], "race", **kw),
    "crosstab duckdb": lambda o, s, **kw: crosstab(o, s, ["age", "maritl"], "race",
                                                   engine="duckdb", **kw),
    "record_cap": lambda o, s, **kw: record_cap(o, s, ["age", "maritl"], "race", **kw),
    "disclosure": lambda o, s, **kw: disclosure(s, o, ["age", "maritl"], "race", **kw),
    "disclosure duckdb": lambda o, s, **kw: disclosure(s, o, ["age", "maritl"], "race",
                                                       engine="duckdb", **kw),
    "disclosure_summary": lambda o, s, **kw: disclosure_summary(s, o, ["age", "maritl"],
                                                                ["race"], **kw),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_disjoint_key_is_an_error_everywhere(frames: tuple[pd.DataFrame, pd.DataFrame],
                                             call: str) -> None:
    orig, syn = frames
    with pytest.raises(CapkitError, match="key column 'maritl'") as info:
        CALLS[call](orig, syn)
    message = str(info.value)
    assert "'1. Never Married'" in message and "'Married'" in message
    assert "allow_disjoint_levels=True" in message
    CALLS[call](orig, syn, allow_disjoint_levels=True)  # whoever means it


def test_disjoint_target_is_an_error(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    orig, _ = frames
    syn = orig.assign(race=orig["race"].str.lower())
    with pytest.raises(CapkitError, match="target column 'race'"):
        crosstab(orig, syn, "age", "race")
    with pytest.raises(CapkitError, match="target column 'race'"):
        disclosure(syn, orig, "age", "race")


def test_overlap_rule_counts_original_records() -> None:
    """Refused below half of the original records (missing values aside), accepted from half."""
    orig = pd.DataFrame({"k": ["a"] * 5 + ["b"] * 5 + [None] * 4, "t": ["x", "y"] * 7})
    half = pd.DataFrame({"k": ["a", "c", "d"], "t": ["x", "y", "x"]})  # a: 5 of 10 records
    crosstab(orig, half, "k", "t")
    less = pd.DataFrame({"k": ["a", "c"] * 3, "t": ["x", "y"] * 3})
    orig_less = orig.copy()
    orig_less.loc[0, "k"] = "b"  # a: 4 of 10
    with pytest.raises(CapkitError, match="4 of the 10 original records"):
        crosstab(orig_less, less, "k", "t")


def test_synthetic_only_levels_do_not_matter(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    orig, _ = frames
    syn = pd.concat([orig, orig.head(30).assign(maritl="6. Other")], ignore_index=True)
    crosstab(orig, syn, ["age", "maritl"], "race")
    disclosure(syn, orig, ["age", "maritl"], "race")


def test_numbers_of_a_numeric_key_checked_by_value() -> None:
    orig = _frame()
    syn = orig.assign(age=orig["age"] + 100)
    with pytest.raises(CapkitError, match="key column 'age'.*ngroups_keys"):
        disclosure(syn, orig, ["age", "maritl"], "race")


def _noisy(orig: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return orig.assign(wage=np.round(orig["wage"] * (1 + rng.normal(0, 0.01, len(orig))), 4))


def test_continuous_target_warns_and_keeps_synthpop_numbers() -> None:
    orig = _frame()
    syn = _noisy(orig)
    with pytest.warns(ContinuousTargetWarning, match="target 'wage'.*ngroups_target"):
        result = disclosure(syn, orig, ["age", "maritl"], "wage")
    assert result.attrib["DiSCO"].iloc[0] == 0  # exact matching, as synthpop
    with pytest.warns(ContinuousTargetWarning, match="target 'wage'"):
        crosstab(orig, syn, ["age", "maritl"], "wage")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        disclosure(syn, orig, ["age", "maritl"], "wage", ngroups_target=5)
        disclosure(syn, orig, ["age", "maritl"], "race")
        crosstab(orig, orig, ["age", "wage"], "race")  # a numeric key is not a target


def test_dates_read_as_text_warn_as_a_continuous_target() -> None:
    """A CSV file's dates arrive as text: as a target they are matched by exact value, so a
    date a day off is a wrong guess; a warning says so. Text codes with as many levels do not
    read as dates and do not warn."""
    orig = _frame()
    days = np.random.default_rng(4).integers(0, 300, len(orig))
    dated = orig.assign(visit=(pd.Timestamp("2021-01-01") + pd.to_timedelta(days, unit="D")
                               ).strftime("%Y-%m-%d"))
    shifted = dated.assign(visit=(pd.to_datetime(dated["visit"]) + pd.Timedelta(days=1)
                                  ).dt.strftime("%Y-%m-%d"))
    assert dated["visit"].nunique() > 60
    with pytest.warns(ContinuousTargetWarning, match="target 'visit' is text whose .* read as "
                      "dates.*a day off"):
        crosstab(dated, shifted, ["age", "maritl"], "visit")
    coded = dated.assign(visit="v" + pd.Series(days).astype(str))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        crosstab(coded, coded, ["age", "maritl"], "visit")


def test_one_pair_grammar() -> None:
    frame = pd.DataFrame([("F", "a")] * 10 + [("M", "a"), ("M", "b"), ("M", "c")] * 4,
                         columns=["sex", "y"])
    assert disclosure(frame, frame, "sex", "y").check2 == "1 pair needs checks"
    compat = disclosure(frame, frame, "sex", "y", synthpop_compat=True)
    assert compat.check2 == "1 pairs need checks"  # synthpop's own words


def test_empty_synthetic_csv_is_called_empty(tmp_path: Path) -> None:
    """A header-only CSV has text columns only: the message says it is empty, not mistyped."""
    orig = _frame()
    empty = tmp_path / "empty.csv"
    orig.iloc[:0].to_csv(empty, index=False)
    with pytest.raises(CapkitError, match="synthetic data is empty"):
        crosstab(orig, str(empty), "age", "race")
