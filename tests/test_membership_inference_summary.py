"""membership_inference.summary (what a report shows) and exposed_members."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest
from test_membership_inference import small_case

from capkit.errors import CapkitError
from capkit.membership_inference import metrics, scores
from capkit.membership_inference.summary import auc_interval, exposed_members, summary


def test_auc_interval_hanley_mcneil():
    # at A = 1/2 Hanley & McNeil's variance is the Mann-Whitney null variance
    # (n_m + n_n + 1) / (12 n_m n_n) (Mann & Whitney 1947)
    for n_m, n_n in ((50, 50), (30, 70), (1000, 400)):
        se = math.sqrt((n_m + n_n + 1) / (12 * n_m * n_n))
        assert auc_interval(0.5, n_m, n_n) == pytest.approx(
            (0.5 - 1.959963984540054 * se, 0.5 + 1.959963984540054 * se), rel=1e-12)
    assert auc_interval(1.0, 10, 10) == (1.0, 1.0)
    low, high = auc_interval(0.9, 40, 40, confidence=0.99)
    assert low < 0.9 < high and auc_interval(0.9, 40, 40)[0] > low


def test_summary_columns_and_values():
    m, n, g, r = small_case()
    table, per_record = summary(m, n, g, r, seed=2, return_scores=True)
    pd.testing.assert_frame_equal(table, summary(m, n, g, r, seed=2))
    assert len(pd.concat([table, table])) == 2 * len(table)  # attrs hold no frame
    plain = metrics(per_record, seed=2)
    for column in plain.columns:
        np.testing.assert_array_equal(table[column], plain[column])
    assert (table["auc_low"] <= table["auc"]).all() and (table["auc"] <= table["auc_high"]).all()
    row = table.loc["dcr"]
    k = round(row["tpr_at_fpr_0.1"] * row["n_members"])
    ci = binomtest(k, int(row["n_members"])).proportion_ci(0.95, method="exact")
    assert (row["tpr_at_fpr_0.1_low"], row["tpr_at_fpr_0.1_high"]) == pytest.approx(
        (ci.low, ci.high), rel=1e-9, abs=1e-12)
    assert list(table.columns[:3]) == ["auc", "auc_low", "auc_high"]


def test_summary_without_holdout_says_so():
    m, _, g, r = small_case()
    with pytest.raises(CapkitError, match="records not used for the synthesis"):
        summary(m, None, g, r)


def test_summary_leaves_out_attacks_without_scores():
    m, n, g, r = (f[["colour", "size"]] for f in small_case())
    table = summary(m, n, g, r, overlap="allow")
    assert "domias" not in table.index and "dcr" in table.index
    assert any("domias: no scores" in note for note in table.attrs["notes"])


def test_exposed_members_copies_first():
    m, n, g, r = small_case()
    per_record = scores(m, n, g, r, attacks=("dcr", "mc"))
    top = exposed_members(per_record, m, g, attack="dcr", top=7)
    # the five copied members (positions 0..4) are at distance 0 and match on every column
    assert sorted(top["member"].iloc[:5]) == [0, 1, 2, 3, 4]
    assert (top["distance"].iloc[:5] == 0).all()
    assert (top["n_matching"].iloc[:5] == 4).all()
    assert (top["rank"].iloc[:5] == 1).all()  # tied at the top
    assert top["nearest_synthetic"].iloc[:5].tolist() == top["member"].iloc[:5].tolist()
    # the others: their matching columns are those equal to their nearest synthetic record
    for _, row in top.iloc[5:].iterrows():
        a, b = m.iloc[row["member"]], g.iloc[row["nearest_synthetic"]]
        assert row["matching"] == [c for c in m.columns if a[c] == b[c]]
    with pytest.raises(CapkitError, match="not a column"):
        exposed_members(per_record, m, g, attack="dpi")
    with pytest.raises(CapkitError, match="members has"):
        exposed_members(per_record, m.iloc[:3], g)
    pd.testing.assert_frame_equal(m, small_case()[0])
