"""capkit.counts.engines: pandas, DuckDB and Spark give the same counts and the same measures.

Checked against a slow record-by-record count (a Python dict over the records, inside this
file) and against each other; measures (average CAP v1/v2, synthpop's disclosure measures) must
be identical across engines. Spark runs in local mode and is skipped only when no Java runtime
can be found.
"""

from __future__ import annotations

import os
import sys
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from capkit import cap
from capkit.counts import cells as cells_mod
from capkit.counts import engines
from capkit.counts.tables import crosstab
from capkit.disclosure.measures import compute
from capkit.errors import CapkitError

KEYS = ["age", "sex", "region", "flag"]
TARGET = "income"



def make_frame(seed: int, n: int = 1500) -> pd.DataFrame:
    """Seeded records: numeric key with NaN, text key with None, a categorical key with an
    unused declared level, a boolean key, and a text target depending on the keys, with NA."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 9, n).astype(float)
    age[rng.random(n) < 0.04] = np.nan
    sex = rng.choice(np.array(["f", "m", None], dtype=object), n, p=[0.48, 0.48, 0.04])
    region = pd.Categorical(rng.choice(["north", "south", "east"], n),
                            categories=["south", "north", "east", "west"])
    flag = rng.random(n) < 0.3
    score = np.nan_to_num(age) + 2 * (sex == "f") + 3 * flag + rng.integers(0, 4, n)
    income = np.array(["low", "mid", "high", "top"], dtype=object)[np.minimum(score // 4, 3)
                                                                     .astype(int)]
    income[rng.random(n) < 0.03] = None
    return pd.DataFrame({"age": age, "sex": sex, "region": region, "flag": flag,
                         "income": income, "noise": rng.normal(size=n)})


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    return make_frame(11), make_frame(12, 1200)


def _norm(value: object) -> object:
    if pd.isna(value):  # None, NaN, NaT, pd.NA
        return "<NA>"
    if isinstance(value, np.generic):
        value = value.item()
    return value


def reference_counts(frame: pd.DataFrame, keys: list[str], target: str,
                     dropna: bool = False) -> Counter:
    """Slow reference: loop over records, count (key values, target value) tuples."""
    counts: Counter = Counter()
    for record in frame[keys + [target]].itertuples(index=False):
        values = tuple(_norm(v) for v in record)
        if dropna and "<NA>" in values:
            continue
        counts[values] += 1
    return counts


def table_counts(table, which: str) -> Counter:
    """The same tuples read back from a KeyTargetTable through its labels."""
    counts = sparse.coo_array(getattr(table, which))
    keys = table.keys
    out: Counter = Counter()
    for i, j, n in zip(counts.row, counts.col, counts.data, strict=True):
        if n:
            key = tuple(_norm(v) for v in keys[j])
            out[key + (_norm(table.targets[i]),)] += int(n)
    return out


def assert_same_table(a, b) -> None:
    assert a.shape == b.shape
    assert a.targets.equals(b.targets)
    assert a.keys.equals(b.keys)
    assert list(a.keys.names) == list(b.keys.names)
    for which in ("original", "synthetic"):
        x, y = getattr(a, which), getattr(b, which)
        x = x.toarray() if sparse.issparse(x) else x
        y = y.toarray() if sparse.issparse(y) else y
        np.testing.assert_array_equal(x, y)


def measures(table) -> dict[str, float]:
    out = {f"cap_v{v}": cap.average_cap(table.original, table.synthetic, version=v)
           for v in (1, 2)}
    result = compute(cells_mod.cells_of_table(table))
    out.update(result.ident)
    out.update(result.attrib)
    out.update(result.allcaps)
    return out


def assert_same_measures(a: dict[str, float], b: dict[str, float]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert (a[name] == b[name]) or (np.isnan(a[name]) and np.isnan(b[name])), name


# ------------------------------------------------------------------------------ DuckDB


@pytest.mark.parametrize("dropna", [False, True])
def test_duckdb_counts_equal_pandas_and_the_record_loop(frames, dropna):
    original, synthetic = frames
    before = (original.copy(), synthetic.copy())
    pandas_table = crosstab(original, synthetic, KEYS, TARGET, dropna=dropna)
    duck = crosstab(original, synthetic, KEYS, TARGET, dropna=dropna, engine="duckdb")
    assert_same_table(pandas_table, duck)
    assert duck.record_cell is None and duck.synthetic_record_cell is None
    assert table_counts(duck, "original") == reference_counts(original, KEYS, TARGET, dropna)
    assert table_counts(duck, "synthetic") == reference_counts(synthetic, KEYS, TARGET, dropna)
    pd.testing.assert_frame_equal(original, before[0])
    pd.testing.assert_frame_equal(synthetic, before[1])
    # the categorical key keeps its declared order; NA is the last level, as in pandas
    # the long form behind the tables: one entry per non-zero cell, row-major, same in both
    long_p = engines.count_codes(original, synthetic, KEYS, TARGET, "pandas", dropna=dropna)
    long_d = engines.count_codes(original, synthetic, KEYS, TARGET, "duckdb", dropna=dropna)
    for side in ("original", "synthetic"):
        a, b = getattr(long_p, side), getattr(long_d, side)
        for field in ("i", "j", "n"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        assert a.records == b.records == len(original if side == "original" else synthetic)
        assert (b.n > 0).all()
    region = crosstab(original, synthetic, "region", TARGET, engine="duckdb")
    assert region.keys.get_level_values(0).tolist() == ["south", "north", "east"]
    assert pd.isna(duck.targets[-1])
    assert_same_measures(measures(pandas_table), measures(duck))


def test_duckdb_files_globs_relations_and_several_targets(frames, tmp_path):
    import duckdb

    original, synthetic = frames
    plain_o = original.astype({"region": str})
    plain_s = synthetic.astype({"region": str})
    half = len(plain_o) // 2
    plain_o.iloc[:half].to_parquet(tmp_path / "orig_part1.parquet")
    plain_o.iloc[half:].to_parquet(tmp_path / "orig_part2.parquet")
    plain_s.to_parquet(tmp_path / "syn.parquet")
    plain_s.to_csv(tmp_path / "syn.csv", index=False)
    expected = crosstab(plain_o, plain_s, KEYS, TARGET)
    from_files = crosstab(str(tmp_path / "orig_part*.parquet"), tmp_path / "syn.parquet",
                          KEYS, TARGET)  # engine chosen from the paths: DuckDB
    assert_same_table(expected, from_files)
    assert from_files.record_cell is None
    con = duckdb.connect()
    relation = con.read_parquet(str(tmp_path / "syn.parquet"))
    assert_same_table(expected, crosstab(plain_o, relation, KEYS, TARGET))
    # pandas engine on files reads them (only the needed columns) and counts in memory
    via_pandas = crosstab(str(tmp_path / "orig_part*.parquet"), str(tmp_path / "syn.parquet"),
                          KEYS, TARGET, engine="pandas")
    assert_same_table(expected, via_pandas)
    assert via_pandas.record_cell is not None
    # CSV: empty field and "NA" are missing; same counts as the pandas reading of the CSV
    csv_table = crosstab(plain_o, str(tmp_path / "syn.csv"), ["age", "sex"], TARGET)
    assert table_counts(csv_table, "synthetic") == reference_counts(plain_s, ["age", "sex"],
                                                                    TARGET)
    # two target columns act as one combined target
    two = crosstab(plain_o, plain_s, ["age", "sex"], [TARGET, "region"], engine="duckdb")
    assert_same_table(crosstab(plain_o, plain_s, ["age", "sex"], [TARGET, "region"]), two)


def test_sparse_and_dense_outputs_agree(frames):
    original, synthetic = frames
    dense = crosstab(original, synthetic, KEYS, TARGET, engine="duckdb", sparse_output=False)
    sparse_table = crosstab(original, synthetic, KEYS, TARGET, engine="duckdb",
                            sparse_output=True)
    assert isinstance(dense.original, np.ndarray) and sparse_table.is_sparse
    assert_same_table(dense, sparse_table)
    assert_same_table(crosstab(original, synthetic, KEYS, TARGET, sparse_output=True),
                      sparse_table)
    assert_same_measures(measures(dense), measures(sparse_table))


def test_union_cells_sparse_paths_agree_with_dense():
    rng = np.random.default_rng(3)
    o = rng.integers(0, 3, (4, 30)) * (rng.random((4, 30)) < 0.4)
    s = rng.integers(0, 3, (4, 30)) * (rng.random((4, 30)) < 0.4)
    o[0, 0], s[1, 1] = 2**40, 2**30  # too large to pack both counts in one int64
    expected = cells_mod._union_cells(o, s, 30)
    for a, b in ((o, s), (o // 2**20, s)):  # general path, then the packed path
        cells, d, s_ = cells_mod._union_cells(sparse.csr_array(a), sparse.csr_array(b), 30)
        want = cells_mod._union_cells(a, b, 30)
        np.testing.assert_array_equal(cells, want[0])
        np.testing.assert_array_equal(d, want[1])
        np.testing.assert_array_equal(s_, want[2])
    assert expected[1].max() == 2**40


def test_every_record_unique_stays_sparse(monkeypatch):
    """The identity-measure worst case: J = n distinct keys; the table must not be densified."""
    import capkit.counts.table

    monkeypatch.setattr(capkit.counts.table, "DENSE_CELL_LIMIT", 1000)
    n = 5000
    rng = np.random.default_rng(5)
    original = pd.DataFrame({"id": np.arange(n), "t": rng.integers(0, 3, n)})
    synthetic = pd.DataFrame({"id": np.arange(n) + n // 2, "t": rng.integers(0, 3, n)})
    duck = crosstab(original, synthetic, "id", "t", engine="duckdb")
    assert duck.is_sparse and duck.shape == (3, n + n // 2)
    assert_same_table(crosstab(original, synthetic, "id", "t"), duck)


def nullable_frame(seed: int, n: int = 300) -> pd.DataFrame:
    """Datetime, nullable Int64 and nullable boolean keys, each with missing values."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "when": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 5, n), unit="D"),
        "count": pd.array(rng.integers(0, 3, n), dtype="Int64"),
        "ok": pd.array(rng.random(n) < 0.5, dtype="boolean"),
        "t": rng.choice(["a", "b"], n),
    })
    for column in ("when", "count", "ok"):
        frame.loc[rng.random(n) < 0.1, column] = None
    return frame


def test_duckdb_datetime_and_nullable_columns():
    o, s = nullable_frame(1), nullable_frame(2, 250)
    keys = ["when", "count", "ok"]
    duck = crosstab(o, s, keys, "t", engine="duckdb")
    assert_same_table(crosstab(o, s, keys, "t"), duck)
    assert table_counts(duck, "synthetic") == reference_counts(s, keys, "t")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1),
    st.sampled_from(["int", "text", "float_na", "text_na"]), st.booleans(),
)
def test_duckdb_property_random_frames(n_o, n_s, seed, kind, dropna):
    rng = np.random.default_rng(seed)

    def column(n: int) -> np.ndarray:
        values = rng.integers(0, 4, n)
        if kind == "int":
            return values
        if kind == "float_na":
            out = values.astype(float)
            out[rng.random(n) < 0.3] = np.nan
            return out
        out = np.array(["a", "b", "c", "d"], dtype=object)[values]
        if kind == "text_na":
            out[rng.random(n) < 0.3] = None
        return out

    o = pd.DataFrame({"k1": column(n_o), "k2": column(n_o), "t": column(n_o)})
    s = pd.DataFrame({"k1": column(n_s), "k2": column(n_s), "t": column(n_s)})
    # tiny random frames: their levels may not overlap, which is the point here
    allow = {"dropna": dropna, "allow_disjoint_levels": True}
    duck = crosstab(o, s, ["k1", "k2"], "t", engine="duckdb", **allow)
    assert_same_table(crosstab(o, s, ["k1", "k2"], "t", **allow), duck)
    assert table_counts(duck, "original") == reference_counts(o, ["k1", "k2"], "t", dropna)


def test_disclosure_measures_from_engine_counts_match_disclosure(frames):
    """capkit.disclosure.disclosure (its own label processing) on the frames equals the
    measures computed from the engine's counts."""
    from capkit.disclosure import disclosure

    original, synthetic = frames
    keys = ["sex", "region", "flag"]
    o = original.astype({"flag": str, "region": str, "age": str})
    s = synthetic.astype({"flag": str, "region": str, "age": str})
    o["income"] = o["income"].fillna("Missing")
    s["income"] = s["income"].fillna("Missing")
    o["sex"], s["sex"] = o["sex"].fillna("Missing"), s["sex"].fillna("Missing")
    for target in ("income", "age"):
        reference = disclosure(s, o, keys, target)
        got = measures(crosstab(o, s, keys, target, engine="duckdb"))
        for frame in (reference.ident, reference.attrib, reference.allcaps):
            for name, value in frame.iloc[0].items():
                assert got[name] == pytest.approx(value, rel=1e-12, nan_ok=True), name


# ------------------------------------------------------------------------------ bad input


def test_missing_engine_package_names_what_to_install(frames, monkeypatch):
    original, synthetic = frames
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark -> ImportError
    with pytest.raises(CapkitError, match=r"pyspark.*pip install"):
        crosstab(original, synthetic, KEYS, TARGET, engine="spark")
    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(CapkitError, match=r"'duckdb'.*pip install duckdb"):
        crosstab(original, synthetic, KEYS, TARGET, engine="duckdb")


def test_bad_input_names_the_argument(frames, tmp_path):
    import duckdb

    original, synthetic = frames
    with pytest.raises(CapkitError, match="engine must be one of"):
        crosstab(original, synthetic, KEYS, TARGET, engine="polars")
    with pytest.raises(CapkitError, match="key column 'sex' is missing from synthetic data"):
        crosstab(original, synthetic.drop(columns="sex"), KEYS, TARGET, engine="duckdb")
    with pytest.raises(CapkitError, match="target column 'age' is also a key"):
        crosstab(original, synthetic, KEYS, "age", engine="duckdb")
    with pytest.raises(CapkitError, match="key column 'sex' is text in original data but "
                                          "numeric in synthetic"):
        crosstab(original, synthetic.assign(sex=1), ["sex"], TARGET, engine="duckdb")
    with pytest.raises(CapkitError, match="synthetic data is empty"):
        crosstab(original, synthetic.iloc[:0], KEYS, TARGET, engine="duckdb")
    with pytest.raises(CapkitError, match="original data: no file matches"):
        crosstab(str(tmp_path / "nothing*.parquet"), synthetic, KEYS, TARGET)
    with pytest.raises(CapkitError, match="original data: cannot tell the format"):
        (tmp_path / "x.json").write_text("{}")
        crosstab(str(tmp_path / "x.json"), synthetic, KEYS, TARGET)
    with pytest.raises(CapkitError, match="synthetic data must be a pandas DataFrame, a "
                                          "Parquet/CSV path"):
        crosstab(original, {"age": [1]}, KEYS, TARGET)
    relation = duckdb.connect().from_df(synthetic)
    with pytest.raises(CapkitError, match="synthetic data is a DuckDB relation"):
        crosstab(original, relation, KEYS, TARGET, engine="spark")


def test_engine_choice(tmp_path):
    frame = pd.DataFrame({"a": [1]})
    assert engines.choose_engine(frame, frame) == "pandas"
    assert engines.choose_engine("x.parquet", frame) == "duckdb"
    assert engines.choose_engine(["a.csv", "b.csv"], frame) == "duckdb"
    assert engines.choose_engine(frame, frame, "spark") == "spark"
    frame.to_parquet(tmp_path / "a.parquet")
    path = str(tmp_path / "a.parquet")
    size = os.path.getsize(path)
    assert engines.engine_for(path, frame, threshold=size) == "pandas"
    assert engines.engine_for(path, path, threshold=size) == "duckdb"
    assert engines.engine_for(frame, frame, threshold=0) == "pandas"


# ------------------------------------------------------------------------------ Spark


def test_spark_counts_and_measures_equal_pandas_and_duckdb(spark, frames, tmp_path):
    original, synthetic = frames
    expected = crosstab(original, synthetic, KEYS, TARGET)
    from_pandas = crosstab(original, synthetic, KEYS, TARGET, engine="spark")
    assert_same_table(expected, from_pandas)
    assert from_pandas.record_cell is None
    assert table_counts(from_pandas, "synthetic") == reference_counts(synthetic, KEYS, TARGET)
    duck = crosstab(original, synthetic, KEYS, TARGET, engine="duckdb")
    assert_same_measures(measures(expected), measures(from_pandas))
    assert_same_measures(measures(duck), measures(from_pandas))
    # PySpark DataFrames choose the Spark engine; dropna drops the same cells
    plain_o = original.astype({"region": str})
    plain_s = synthetic.astype({"region": str})
    spark_o = spark.createDataFrame(plain_o[KEYS + [TARGET]])
    spark_s = spark.createDataFrame(plain_s[KEYS + [TARGET]])
    got = crosstab(spark_o, spark_s, KEYS, TARGET, dropna=True)
    assert_same_table(crosstab(plain_o, plain_s, KEYS, TARGET, dropna=True), got)
    # Parquet read by Spark
    plain_s.to_parquet(tmp_path / "syn.parquet")
    got = crosstab(plain_o, str(tmp_path / "syn.parquet"), KEYS, TARGET, engine="spark")
    assert_same_table(crosstab(plain_o, plain_s, KEYS, TARGET), got)
    o, s = nullable_frame(1), nullable_frame(2, 250)
    assert_same_table(crosstab(o, s, ["when", "count", "ok"], "t"),
                      crosstab(o, s, ["when", "count", "ok"], "t", engine="spark"))
    with pytest.raises(CapkitError, match="original data is a PySpark DataFrame"):
        crosstab(spark_o, plain_s, KEYS, TARGET, engine="duckdb")
    with pytest.raises(CapkitError, match="key column 'zip' is missing from original data"):
        crosstab(spark_o, plain_s, ["zip"], TARGET)
