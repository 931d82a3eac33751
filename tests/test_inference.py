"""capkit.attacks.inference against a record-by-record k-NN reference and the smoking example."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from capkit import cap
from capkit.attacks import inference
from capkit.counts import tables
from capkit.errors import CapkitError
from capkit.papers.baillargeon_charest import tables as paper


def continuous_frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    x1, x2 = rng.uniform(0, 10, n), rng.uniform(-1, 1, n)
    label = np.where(x1 + 5 * x2 + rng.normal(0, 1.5, n) > 5, "high", "low")
    label[rng.random(n) < 0.1] = "mid"
    return pd.DataFrame({"x1": x1, "x2": x2, "label": label,
                         "y": 3 * x1 - 2 * x2 + rng.normal(0, 1, n) + 1.0})


def reference_knn(train: pd.DataFrame, test: pd.DataFrame, keys, target, regression: bool):
    """k = 3 nearest neighbours by a loop: keys min-max scaled by the training range."""
    lo, hi = train[keys].min(), train[keys].max()
    xt = ((train[keys] - lo) / (hi - lo)).to_numpy()
    xq = ((test[keys] - lo) / (hi - lo)).to_numpy()
    yt = train[target].to_numpy()
    out = []
    for row in xq:
        d = np.sqrt(((xt - row) ** 2).sum(axis=1))
        nearest = np.argsort(d, kind="stable")[:3]
        if regression:
            out.append(yt[nearest].mean())
        else:
            labels, counts = np.unique(yt[nearest], return_counts=True)
            out.append(labels[np.argmax(counts)])  # vote ties: the smallest label
    return np.array(out)


def test_categorical_target_matches_reference_knn() -> None:
    rng = np.random.default_rng(1)
    original, synthetic = continuous_frame(rng, 150), continuous_frame(rng, 120)
    result = inference.attribute_risk(original, synthetic, ["x1", "x2"], "label")
    assert result.kind == "categorical" and result.measure == "accuracy"
    from_syn = reference_knn(synthetic, original, ["x1", "x2"], "label", False)
    from_org = reference_knn(original, original, ["x1", "x2"], "label", False)
    np.testing.assert_array_equal(result.records["predicted (synthetic)"], from_syn)
    np.testing.assert_array_equal(result.records["predicted (original)"], from_org)
    observed = original["label"].to_numpy()
    assert result.risk_synthetic == pytest.approx(np.mean(from_syn == observed))
    assert result.risk_original == pytest.approx(np.mean(from_org == observed))
    worse = sum(s != o_ and g == o_ for s, g, o_ in zip(from_syn, from_org, observed, strict=True))
    assert result.share_less_accurate_synthetic == pytest.approx(worse / len(original))


def test_numeric_target_mse_and_relative_errors() -> None:
    rng = np.random.default_rng(2)
    original, synthetic = continuous_frame(rng, 140), continuous_frame(rng, 100)
    original.loc[3, "y"] = 0.0  # relative error undefined there
    original.loc[7, "y"] = np.nan  # dropped
    result = inference.attribute_risk(original, synthetic, ["x1", "x2"], "y")
    assert result.kind == "numeric" and result.n_dropped == 1
    kept = original.drop(index=7)
    from_syn = reference_knn(synthetic, kept, ["x1", "x2"], "y", True)
    from_org = reference_knn(kept, kept, ["x1", "x2"], "y", True)
    y = kept["y"].to_numpy()
    assert result.risk_synthetic == pytest.approx(np.mean((from_syn - y) ** 2), rel=1e-12)
    assert result.risk_original == pytest.approx(np.mean((from_org - y) ** 2), rel=1e-12)
    errors = []
    for s, o_, v in zip(from_syn, from_org, y, strict=True):
        if v != 0:
            errors.append((abs(s - v) / abs(v), abs(o_ - v) / abs(v)))
    share = np.mean([a > b for a, b in errors])
    assert result.share_less_accurate_synthetic == pytest.approx(share)
    assert np.isnan(result.records.loc[3, "error (synthetic)"])
    assert 7 not in result.records.index


def test_categorical_keys_with_unseen_levels_and_na() -> None:
    rng = np.random.default_rng(3)
    n = 200
    original = pd.DataFrame({"sex": rng.choice(["F", "M", None], n),
                             "region": rng.choice(list("abcde"), n),
                             "target": rng.choice(["u", "v"], n)})
    synthetic = original.sample(80, random_state=1).reset_index(drop=True)
    synthetic["region"] = synthetic["region"].replace("e", "a")  # level 'e' unseen in S
    result = inference.attribute_risk(original, synthetic, ["sex", "region"], "target")
    assert len(result.records) == n
    assert 0 <= result.risk_synthetic <= 1


def test_any_estimator_and_seed_determinism() -> None:
    rng = np.random.default_rng(4)
    original, synthetic = continuous_frame(rng, 120), continuous_frame(rng, 120)
    tree = DecisionTreeClassifier(max_features=1)  # random: needs the seed
    first = inference.attribute_risk(original, synthetic, ["x1", "x2"], "label",
                                     estimator=tree, seed=5)
    again = inference.attribute_risk(original, synthetic, ["x1", "x2"], "label",
                                     estimator=tree, seed=5)
    pd.testing.assert_frame_equal(first.records, again.records)
    assert tree.get_params()["random_state"] is None  # the caller's estimator is not changed
    logistic = inference.attribute_risk(original, synthetic, ["x1", "x2"], "label",
                                        estimator=LogisticRegression())
    assert 0.3 < logistic.risk_synthetic <= 1
    linear = inference.attribute_risk(original, synthetic, ["x1", "x2"], "y",
                                      estimator=LinearRegression())
    assert linear.risk_synthetic < 5  # noise variance 1 plus estimation error


def test_bad_input() -> None:
    rng = np.random.default_rng(5)
    original, synthetic = continuous_frame(rng, 30), continuous_frame(rng, 30)
    with pytest.raises(CapkitError, match="'label'.*key"):
        inference.attribute_risk(original, synthetic, ["x1", "label"], "label")
    with pytest.raises(CapkitError, match="'x3'"):
        inference.attribute_risk(original, synthetic, ["x3"], "label")
    with pytest.raises(CapkitError, match="'x1'.*missing"):
        inference.attribute_risk(original.assign(x1=np.nan), synthetic, ["x1"], "label")
    with pytest.raises(CapkitError, match="LinearRegression"):
        inference.attribute_risk(original, synthetic, ["x1"], "label",
                                 estimator=LinearRegression())
    with pytest.raises(CapkitError, match="kind"):
        inference.attribute_risk(original, synthetic, ["x1"], "label", kind="ordinal")
    with pytest.raises(CapkitError, match="'x2'"):
        inference.attribute_risk(original, synthetic.assign(x2="a"), ["x2"], "label")


def test_record_cap_comparison_smoking_example() -> None:
    # Baillargeon & Charest, Sec. 2.3: a sick smoker has CAP 0.4 under O and 0.2424 under S;
    # a healthy smoker 0.6 and 0.7576.
    targets, keys = paper.SMOKING_TARGETS, paper.SMOKING_KEYS
    original = tables.records_from_counts(paper.SMOKING_O, targets, keys)
    synthetic = tables.records_from_counts(paper.SMOKING_S, targets, keys)
    caps = inference.record_cap_comparison(original, synthetic, "key", "target")
    sick_smoker = (original["key"] == keys[0]) & (original["target"] == targets[0])
    healthy_smoker = (original["key"] == keys[0]) & (original["target"] == targets[1])
    assert caps.loc[sick_smoker, "CAP under O"].unique().tolist() == [0.4]
    assert round(caps.loc[sick_smoker, "CAP under S"].iloc[0], 4) == 0.2424
    assert caps.loc[healthy_smoker, "CAP under O"].unique().tolist() == [0.6]
    assert round(caps.loc[healthy_smoker, "CAP under S"].iloc[0], 4) == 0.7576
    assert caps["CAP under S"].mean() == pytest.approx(
        cap.average_cap(paper.SMOKING_O, paper.SMOKING_S, 1), rel=1e-12)


def test_beyond_cap_figures_are_byte_identical(tmp_path) -> None:
    import matplotlib.pyplot as plt

    from capkit import plots
    from capkit.plots import beyond_cap

    rng = np.random.default_rng(6)
    original, synthetic = continuous_frame(rng, 60), continuous_frame(rng, 60)
    risk = inference.attribute_risk(original, synthetic, ["x1", "x2"], "y")
    caps = pd.DataFrame({"CAP under O": rng.choice([0.2, 0.5, 1.0], 50),
                         "CAP under S": rng.choice([0.0, 0.5, 1.0], 50)})
    makers = {
        "dcr": lambda: beyond_cap.dcr_histograms({"a": np.linspace(0, 0.3, 30),
                                                  "b": np.linspace(0.1, 0.5, 30)}),
        "cap": lambda: beyond_cap.record_cap_scatter(caps),
        "err": lambda: beyond_cap.prediction_error_scatter(risk.records),
        "bars": lambda: beyond_cap.score_comparison(pd.DataFrame({"m": [0.2, 0.4]},
                                                                 index=["x", "y"])),
    }
    for name, make in makers.items():
        written = []
        for run in range(2):
            fig = make()
            written.append([p.read_bytes() for p in plots.save(fig, name, tmp_path / str(run))])
            plt.close(fig)
        assert written[0] == written[1], name
