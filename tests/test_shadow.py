"""The generator audit by shadow modelling: outlier ranking, features, the audit itself.

Checked against slow record-by-record references written here (nearest other record by the
Gower formula, feature values by loops over records), on generators whose answer is known
(one that copies its training set: every target found; one that ignores it: none found),
with capkit's own CART and baselines on small data, and for determinism across processes.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from capkit.errors import CapkitError
from capkit.membership_inference.outliers import outlier_distances
from capkit.membership_inference.shadow import GeneratorAudit, audit_generator, cart_generator
from capkit.membership_inference.shadow_features import (
    encode,
    feature_spec,
    features,
    query_masks,
)
from capkit.synth.baselines import bootstrap_with_noise, independent_columns


def toy(n: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "income": np.round(rng.lognormal(3, 0.5, n), 1),
        "sex": pd.Categorical(rng.choice(["f", "m"], n)),
        "region": rng.choice(["north", "south", "east", "west", "centre"], n),
    })
    frame.index = [f"r{i}" for i in range(n)]
    return frame


# ---------------------------------------------------------------- outliers


def slow_nearest_other(frame: pd.DataFrame) -> np.ndarray:
    """Gower distance to the closest other record, pair by pair (missing as a level)."""
    cols = list(frame.columns)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not
               isinstance(frame[c].dtype, pd.CategoricalDtype) for c in cols]
    ranges = {}
    for c, num in zip(cols, numeric, strict=True):
        if num:
            r = float(frame[c].max() - frame[c].min())
            ranges[c] = r if r > 0 else 1.0
    rows = [frame.iloc[i] for i in range(len(frame))]
    out = []
    for i, a in enumerate(rows):
        best = math.inf
        for j, b in enumerate(rows):
            if i == j:
                continue
            total = 0.0
            for c, num in zip(cols, numeric, strict=True):
                x, y = a[c], b[c]
                xm, ym = pd.isna(x), pd.isna(y)
                if xm or ym:
                    total += 0.0 if xm and ym else 1.0
                elif num:
                    total += abs(float(x) - float(y)) / ranges[c]
                else:
                    total += 0.0 if x == y else 1.0
            best = min(best, total / len(cols))
        out.append(best)
    return np.array(out)


def test_outlier_distances_against_pairs():
    frame = toy(70, seed=3)
    frame.loc["r5", "income"] = np.nan
    frame.loc["r9", "income"] = np.nan
    frame["const"] = 4
    frame.iloc[10] = frame.iloc[11]  # a duplicate: distance 0 for both
    before = frame.copy()
    got = outlier_distances(frame)
    pd.testing.assert_frame_equal(frame, before)
    np.testing.assert_allclose(got, slow_nearest_other(frame), rtol=0, atol=1e-12)
    assert got[10] == 0.0 and got[11] == 0.0
    # a few rows only: the same numbers
    rows = np.array([0, 10, 33, 69])
    np.testing.assert_array_equal(outlier_distances(frame, rows), got[rows])


def test_outlier_distances_crosses_the_halving(monkeypatch):
    # force the recursive halves (blocks above LEAF) on small data
    import capkit.membership_inference.outliers as outliers

    monkeypatch.setattr(outliers, "LEAF", 8)
    frame = toy(53, seed=4)
    np.testing.assert_allclose(outliers.outlier_distances(frame), slow_nearest_other(frame),
                               rtol=0, atol=1e-12)


# ---------------------------------------------------------------- features


def test_query_counts_against_loops():
    frame = toy(120, seed=5)
    frame.loc["r3", "income"] = np.nan
    spec = feature_spec(frame, ["queries"])
    masks = query_masks(4, 30, np.random.default_rng(1))
    assert masks.shape == (31, 4) and masks[-1].all() and (masks.sum(axis=1) >= 1).all()
    target = frame.iloc[[3]]
    got = features(spec, frame, encode(spec, target)[0], masks)
    cols = list(frame.columns)
    for q, mask in enumerate(masks):
        chosen = [c for c, m in zip(cols, mask, strict=True) if m]
        want = 0
        for i in range(len(frame)):
            row = frame.iloc[i]
            if all((pd.isna(row[c]) and pd.isna(target.iloc[0][c])) or row[c] == target.iloc[0][c]
                   for c in chosen):
                want += 1
        assert got[q] == want


def test_naive_histogram_correlation_against_pandas():
    data = toy(200, seed=6)
    synthetic = toy(80, seed=7)
    synthetic.loc["r2", "age"] = np.nan
    synthetic.loc["r4", "region"] = "elsewhere"  # outside the data's levels
    spec = feature_spec(data, ["naive", "histogram", "correlation"])
    got = features(spec, synthetic, np.zeros(4), np.zeros((1, 4), dtype=np.int64))
    # one-hot by pandas: numeric (missing -> 0) + missing flag, levels + missing flag
    parts = []
    for c in data.columns:
        if c in ("age", "income"):
            parts.append(synthetic[c].fillna(0).astype(float).rename(c))
        else:
            levels = list(spec.levels[c])
            for lev in levels:
                flag = (synthetic[c].astype(object) == lev).astype(float)
                parts.append(flag.rename(f"{c}={lev}"))
        parts.append(synthetic[c].isna().astype(float).rename(f"{c} missing"))
    hot = pd.concat(parts, axis=1).to_numpy()
    width = hot.shape[1]
    naive = got[: 3 * width]
    np.testing.assert_allclose(naive[:width], hot.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(naive[width:2 * width], np.median(hot, axis=0), atol=1e-12)
    np.testing.assert_allclose(naive[2 * width:], hot.var(axis=0), atol=1e-12)
    # histogram of age: deciles of the data as inner edges, a value on an edge goes right
    edges = np.unique(np.quantile(data["age"], np.arange(1, 10) / 10))
    ages = synthetic["age"].dropna().to_numpy()
    counts = [sum(1 for v in ages if (k == 0 or v >= edges[k - 1])
                  and (k == len(edges) or v < edges[k])) for k in range(len(edges) + 1)]
    start = 3 * width
    np.testing.assert_allclose(got[start:start + len(edges) + 1], np.array(counts) / 80)
    assert got[start + len(edges) + 1] == 1 / 80  # one missing age
    # region: the shares of the five levels, then "elsewhere", then missing
    hist_len = sum(len(spec.edges[c]) + 2 if c in spec.edges else len(spec.levels[c]) + 2
                   for c in data.columns)
    hist = got[start:start + hist_len]
    assert hist[-2] == 1 / 80 and hist[-1] == 0.0
    # correlations: numpy's on the one-hot columns, constant pairs -> 0
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.corrcoef(hot, rowvar=False)
    upper = corr[np.triu_indices(width, 1)]
    np.testing.assert_allclose(got[start + hist_len:], np.where(np.isfinite(upper), upper, 0),
                               atol=1e-12)


# ---------------------------------------------------------------- the audit

SMALL = {"n_targets": 2, "n_shadows": 20, "train_size": 60, "folds": 2, "n_estimators": 15,
         "n_queries": 20, "progress": False}


def copy_generator(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Publishes its training set (shuffled): maximal membership disclosure."""
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def test_copying_generator_exposes_every_target():
    data = toy()
    before = data.copy()
    audit = audit_generator(copy_generator, data, **{**SMALL, "n_shadows": 40})
    pd.testing.assert_frame_equal(data, before)
    assert isinstance(audit, GeneratorAudit)
    table = audit.per_target
    assert list(table["kind"]) == ["outlier", "outlier", "random", "random"]
    # the exact-copy query (all attributes) decides: every target found
    assert (table["auc"] == 1.0).all()
    assert (table["advantage"] == 1.0).all() and (table["privacy_gain"] == 0.0).all()
    # 40 runs: the test half holds 10 in and 10 out. At best all are classified right by the
    # threshold chosen on the other half: log(TPR_low / FPR_high), TPR_low = 0.025^(1/10) =
    # 1 - FPR_high (Clopper-Pearson); a test run "in" scored below that threshold lowers it
    low = 0.025 ** 0.1
    assert (table["epsilon_lower"] > 0).all()
    assert (table["epsilon_lower"] <= math.log(low / (1 - low)) + 1e-12).all()
    assert np.isclose(table["epsilon_lower"].to_numpy(), math.log(low / (1 - low)),
                      rtol=1e-12).any()
    # outliers are the two largest nearest-other distances of the data
    distances = outlier_distances(data)
    top = data.index[np.argsort(-distances, kind="stable")[:2]]
    assert list(table.index[:2]) == list(top)
    assert len(audit.runs) == 4 * 40 and audit.runs["member"].sum() == 4 * 20
    assert list(audit.summary().index) == ["outlier", "random"]


def test_generator_ignoring_its_input_exposes_nobody():
    data = toy(300, seed=1)
    population = toy(2000, seed=99)

    def unrelated(frame, seed):
        return population.sample(len(frame), random_state=seed).reset_index(drop=True)

    audit = audit_generator(unrelated, data, **{**SMALL, "n_shadows": 40, "folds": 4})
    table = audit.per_target
    assert abs(table["auc"].mean() - 0.5) < 0.15
    assert (table["epsilon_lower"] == 0).all()


def test_capkit_cart_and_baselines_as_generators():
    data = toy(200, seed=2)
    data["income"] = data["income"].round().astype(int)  # whole numbers stay whole (baselines)
    options = {**SMALL, "targets": ["r0", "r1"], "train_size": 80, "n_shadows": 40}
    cart = audit_generator(cart_generator(), data, **{**options, "n_shadows": 8})
    boot = audit_generator(lambda f, s: bootstrap_with_noise(f, seed=s), data, **options)
    indep = audit_generator(lambda f, s: independent_columns(f, seed=s), data, **options)
    for audit in (cart, boot, indep):
        assert list(audit.per_target.index) == ["r0", "r1"]
        assert (audit.per_target["kind"] == "given").all()
        assert audit.per_target["auc"].between(0, 1).all()
    # a bootstrap copies about 63% of the training records (whole numbers barely moved by
    # 1% noise): exposed, more than independent columns, which break every record apart
    # (and still leak a little through rare single values of an 80-record training set)
    assert boot.per_target["auc"].min() > 0.7
    assert boot.per_target["auc"].mean() > indep.per_target["auc"].mean()


def test_same_result_in_one_or_two_processes():
    data = toy(150, seed=8)
    small = {**SMALL, "n_shadows": 6, "n_targets": 1}
    one = audit_generator(copy_generator, data, **{**small, "n_jobs": 1})
    two = audit_generator(copy_generator, data, **{**small, "n_jobs": 2})
    pd.testing.assert_frame_equal(one.per_target, two.per_target)
    pd.testing.assert_frame_equal(one.runs, two.runs)
    again = audit_generator(copy_generator, data, **small)
    pd.testing.assert_frame_equal(one.runs, again.runs)
    other = audit_generator(copy_generator, data, **{**small, "seed": 1})
    assert not other.runs["seed"].equals(one.runs["seed"])


def test_generator_errors_name_the_run_and_seed():
    data = toy(150, seed=9)

    def broken(frame, seed):
        if seed % 2:
            raise RuntimeError("out of memory")
        return frame

    with pytest.raises(CapkitError, match=r"shadow run \d+ of target .*generator seed \d+.*"
                                          r"RuntimeError: out of memory"):
        audit_generator(broken, data, **SMALL)
    with pytest.raises(CapkitError, match=r"shadow run 0 .*other columns.*missing \['region'\]"):
        audit_generator(lambda f, s: f.drop(columns="region"), data, **SMALL)
    with pytest.raises(CapkitError, match="extra \\['id'\\]"):
        audit_generator(lambda f, s: f.assign(id=1), data, **SMALL)
    with pytest.raises(CapkitError, match="not a pandas DataFrame"):
        audit_generator(lambda f, s: f.to_numpy(), data, **SMALL)
    with pytest.raises(CapkitError, match="no records"):
        audit_generator(lambda f, s: f.iloc[:0], data, **SMALL)


def test_bad_arguments():
    data = toy(100)
    with pytest.raises(CapkitError, match="n_shadows"):
        audit_generator(copy_generator, data, **{**SMALL, "n_shadows": 3})
    with pytest.raises(CapkitError, match="train_size"):
        audit_generator(copy_generator, data, **{**SMALL, "train_size": 99})
    with pytest.raises(CapkitError, match="not in data's index"):
        audit_generator(copy_generator, data, **{**SMALL, "targets": ["nobody"]})
    with pytest.raises(CapkitError, match="features"):
        audit_generator(copy_generator, data, **{**SMALL, "features": ["magic"]})
    with pytest.raises(CapkitError, match="n_jobs"):
        audit_generator(copy_generator, data, **{**SMALL, "n_jobs": 0})
    with pytest.raises(CapkitError, match="callable"):
        audit_generator("cart", data, **SMALL)
    with pytest.raises(CapkitError, match="non-empty"):
        audit_generator(copy_generator, data.iloc[:0], **SMALL)


def test_checkpoint_resumes_only_the_missing_runs(tmp_path):
    data = toy(150, seed=10)
    small = {**SMALL, "n_shadows": 6, "n_targets": 1}
    fresh = audit_generator(copy_generator, data, **small)
    calls, fail_at = [], [9]

    def failing_late(frame, seed):
        calls.append(seed)
        if len(calls) == fail_at[0]:
            raise RuntimeError("interrupted")
        return copy_generator(frame, seed)

    failing_late.__qualname__ = copy_generator.__qualname__  # the same generator, by name
    failing_late.__module__ = copy_generator.__module__
    with pytest.raises(CapkitError, match="interrupted"):
        audit_generator(failing_late, data, **small, checkpoint=tmp_path)
    assert len(calls) == 9  # 8 runs finished and stored, the 9th failed
    calls.clear()
    fail_at[0] = -1
    resumed = audit_generator(failing_late, data, **small, checkpoint=tmp_path)
    assert len(calls) == 12 - 8  # only the missing runs were synthesised
    pd.testing.assert_frame_equal(resumed.per_target, fresh.per_target)
    pd.testing.assert_frame_equal(resumed.runs, fresh.runs)
    calls.clear()
    again = audit_generator(failing_late, data, **small, checkpoint=tmp_path)
    assert calls == []
    pd.testing.assert_frame_equal(again.runs, fresh.runs)
    # another seed is another audit: nothing reused
    audit_generator(failing_late, data, **{**small, "seed": 5}, checkpoint=tmp_path)
    assert len(calls) == 12
