"""capkit.attacks.linkability: anonymeter 1.1's distances to the bit and its links within the
tie range on the oracle data, a record-by-record reference, the baseline and bad input."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from anonymeter_data import adult_split, have_adult, read_reference, results
from anonymeter_data import synthetic as oracle_synthetic

from capkit.attacks import linkability
from capkit.attacks.linkability import _distinct_draws
from capkit.control import compare_to_control
from capkit.errors import CapkitError

AUX = tuple(results()["config"]["linkability_aux_cols"])
NN = read_reference("linkability_nn.csv.gz")
LINKS = read_reference("linkability_links.csv.gz")
needs_adult = pytest.mark.skipif(not have_adult(), reason="Adult data not available "
                                 "(set CAPKIT_DATA to a folder with AdultUCI.rda)")


@pytest.fixture(scope="module")
def oracle_runs():
    """capkit's linkability with k = 1 and k = 5 on the oracle's members, holdout and syn."""
    members, holdout = adult_split()
    syn = oracle_synthetic()
    return {k: linkability(members, syn, AUX, n_neighbors=k, control=holdout) for k in (1, 5)}


def _sides(result):
    return (("ori", result.records), ("control", result.control_records))


@needs_adult
def test_distances_equal_anonymeter_to_the_bit(oracle_runs):
    """d1..d5 of every member and holdout record, both halves (anonymeter's arithmetic)."""
    for name, records in _sides(oracle_runs[5]):
        for tag, half in (("a", 0), ("b", 1)):
            want = NN[(NN["set"] == name) & (NN["half"] == half)].sort_values("row")
            got = records[[f"d_{tag}{j}" for j in range(1, 6)]].to_numpy()
            assert np.array_equal(got, want[[f"d{j}" for j in range(1, 6)]].to_numpy())


@needs_adult
def test_ties_and_neighbour_sets(oracle_runs):
    """Ties at the minimum as counted by the oracle; where no tie decides the 5 nearest set,
    it is anonymeter's set."""
    for name, records in _sides(oracle_runs[1]):
        for tag, half in (("a", 0), ("b", 1)):
            want = NN[(NN["set"] == name) & (NN["half"] == half)].sort_values("row")
            assert (records[f"n_at_kth_{tag}"].to_numpy()
                    == want["n_tied_at_min"].to_numpy()).all()
    checks = results()["calls"]["linkability_nn_ori_half0"]["checks"]
    assert int((oracle_runs[1].records["n_at_kth_a"] > 1).sum()) == checks[
        "records_with_tie_at_min"] == 1067
    for name, records in _sides(oracle_runs[5]):
        for tag, half in (("a", 0), ("b", 1)):
            want = NN[(NN["set"] == name) & (NN["half"] == half)].sort_values("row")
            mine = np.sort(records[[f"nn_{tag}{j}" for j in range(1, 6)]].to_numpy(), axis=1)
            theirs = np.sort(want[[f"nn{j}" for j in range(1, 6)]].to_numpy(), axis=1)
            untied = ~records[f"tie_{tag}"].to_numpy()
            assert untied.sum() > 0 and (mine[untied] == theirs[untied]).all()


@needs_adult
@pytest.mark.parametrize("k, want_ori, want_control", [(1, 17, 5), (5, 193, 50)])
def test_anonymeter_links_within_the_tie_range(oracle_runs, k, want_ori, want_control):
    """anonymeter's links (numba's tie order) are one of the tie orders capkit brackets: every
    record it links is link_possible, every record it does not link is not link_certain."""
    result = oracle_runs[k]
    for name, records, want in (("ori", result.records, want_ori),
                                ("control", result.control_records, want_control)):
        theirs = LINKS[LINKS["set"] == name].sort_values("row")[f"link_k{k}"].to_numpy() == 1
        assert theirs.sum() == want
        assert (records["link_possible"].to_numpy() | ~theirs).all()
        assert (~records["link_certain"].to_numpy() | theirs).all()
    low, high = result.links_range
    assert low <= want_ori <= high and low <= result.n_success <= high
    low, high = result.control_links_range
    assert low <= want_control <= high
    assert result.n_tied == int((result.records["link_possible"]
                                 != result.records["link_certain"]).sum())


@needs_adult
def test_control_comparison_uses_the_plain_rates(oracle_runs):
    result = oracle_runs[5]
    want = compare_to_control(result.n_success, 2000, result.n_control, 1000)
    assert result.control == want and result.risk == want.risk
    assert result.anonymeter.n_attacks == (2000, 2000, 1000)


# -- a record-by-record reference on small mixed data


def _data(seed: int):
    rng = np.random.default_rng(seed)

    def frame(n):
        return pd.DataFrame({
            "x": rng.integers(0, 6, n),
            "c": pd.Categorical(rng.choice(np.array(["p", "q", None], dtype=object), n)),
            "y": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 4, n) * 0.5),
            "t": rng.choice(np.array(["u", "v", None], dtype=object), n),
            "b": rng.random(n) < 0.5,
        })

    return frame(25), frame(30), frame(12)


def _slow_distance(x: dict, y: dict, numeric: list[str], other: list[str], span: dict) -> float:
    total = 0.0
    for column in numeric:
        a, b = x[column], y[column]
        if math.isnan(a) and math.isnan(b):
            total += 1
        else:
            total += abs(a / span[column] - b / span[column])
    for column in other:
        a, b = x[column], y[column]
        same = (a is None or a != a) and (b is None or b != b) or a == b
        total += 0 if same else 1
    return total


def _slow_half(targets: pd.DataFrame, syn: pd.DataFrame, columns: list[str], k: int):
    numeric = sorted(c for c in columns if c in ("x", "y"))
    other = sorted(c for c in columns if c not in ("x", "y"))
    span = {}
    for c in numeric:
        both = pd.concat([targets[c], syn[c]]).astype(float)
        r = both.max() - both.min()
        span[c] = 1.0 if r == 0 or math.isnan(r) else r
    out = []
    s_rows = syn.astype(object).to_dict("records")
    for x in targets.astype(object).to_dict("records"):
        d = [_slow_distance(x, y, numeric, other, span) for y in s_rows]
        key = [(math.inf if math.isnan(v) else v) for v in d]
        ranked = sorted(range(len(d)), key=lambda i: (key[i], i))
        kth = key[ranked[k - 1]]
        below = {i for i in range(len(d)) if key[i] < kth}
        at = {i for i in range(len(d)) if key[i] == kth}
        out.append((ranked[:k], [d[i] for i in ranked[:k]], below, at))
    return out


@pytest.mark.parametrize("seed, k", [(0, 1), (1, 2), (2, 3), (3, 1)])
def test_against_record_by_record_reference(seed, k):
    original, synthetic, _ = _data(seed)
    aux = (["x", "c", "b"], ["y", "t", "c"])
    result = linkability(original, synthetic, aux, n_neighbors=k)
    half_a = _slow_half(original, synthetic, aux[0], k)
    half_b = _slow_half(original, synthetic, aux[1], k)
    for i, ((ia, da, sa, ta), (ib, db, sb, tb)) in enumerate(zip(half_a, half_b, strict=True)):
        row = result.records.iloc[i]
        assert [row[f"nn_a{j + 1}"] for j in range(k)] == ia
        assert [row[f"nn_b{j + 1}"] for j in range(k)] == ib
        np.testing.assert_array_equal([row[f"d_a{j + 1}"] for j in range(k)], da)
        np.testing.assert_array_equal([row[f"d_b{j + 1}"] for j in range(k)], db)
        assert row["n_at_kth_a"] == len(ta) and row["n_at_kth_b"] == len(tb)
        outcomes = [bool((sa | set(pa)) & (sb | set(pb)))
                    for pa in combinations(sorted(ta), k - len(sa))
                    for pb in combinations(sorted(tb), k - len(sb))]
        assert row["link_possible"] == (True in outcomes), i
        assert row["link_certain"] == all(outcomes), i
        # every tie order of a half is equally likely: the mean over all pairs of choices
        assert row["p_link"] == pytest.approx(np.mean(outcomes), abs=1e-12), i
    assert result.n_success == pytest.approx(result.records["p_link"].sum(), abs=1e-9)


def test_baseline_is_seeded_and_uniform():
    original, synthetic, _ = _data(4)
    a = linkability(original, synthetic, (["x"], ["y"]), n_neighbors=2, seed=11)
    b = linkability(original, synthetic, (["x"], ["y"]), n_neighbors=2, seed=11)
    assert a.n_baseline == b.n_baseline and a.records.equals(b.records)
    draws = _distinct_draws(7, 20000, 3, np.random.default_rng(0))
    assert draws.min() >= 0 and draws.max() <= 6
    assert (np.sort(draws, axis=1)[:, 1:] != np.sort(draws, axis=1)[:, :-1]).all()
    counts = np.bincount(draws.ravel(), minlength=7) / draws.size
    assert np.allclose(counts, 1 / 7, atol=0.01)
    assert a.risk_reference == "baseline" and a.control.control is None


def test_index_categories_and_sampling():
    original, synthetic, control = _data(5)
    aux = (["x", "c"], ["y", "t"])
    plain = linkability(original, synthetic, aux, control=control)
    shifted = linkability(original.set_index(original.index + 100),
                          synthetic.set_index(synthetic.index * 3 + 5), aux, control=control)
    assert plain.records.equals(shifted.records) and plain.n_control == shifted.n_control
    sample = linkability(original, synthetic, aux, n_attacks=10, seed=3)
    assert sample.n_attacks == 10 and sample.records["row"].is_unique


@pytest.mark.parametrize("change, match", [
    (lambda o, s: (o.iloc[:0], s), "original is empty"),
    (lambda o, s: (o, s.iloc[:0]), "synthetic is empty"),
    (lambda o, s: (o.drop(columns="y"), s), "'y' is missing from original"),
    (lambda o, s: (o.assign(x=o["x"].astype(str)), s), "'x'"),
    (lambda o, s: (o.assign(c=o["x"].astype("category")), s.assign(c=s["x"].astype(str))),
     "column 'c' holds str values in synthetic but int"),
])
def test_bad_frames(change, match):
    original, synthetic, _ = _data(6)
    before = original.copy()
    o, s = change(original, synthetic)
    with pytest.raises(CapkitError, match=match):
        linkability(o, s, (["x", "c"], ["y"]))
    pd.testing.assert_frame_equal(original, before)


@pytest.mark.parametrize("kwargs, match", [
    ({"aux_cols": ("x", "y")}, "aux_cols"),
    ({"aux_cols": (["x"],)}, "aux_cols"),
    ({"aux_cols": (["x"], [])}, "aux_cols"),
    ({"aux_cols": (["x", "x"], ["y"])}, "twice"),
    ({"n_neighbors": 31}, "n_neighbors"),
    ({"n_neighbors": 0}, "n_neighbors"),
    ({"n_attacks": 26}, "n_attacks"),
])
def test_bad_arguments(kwargs, match):
    original, synthetic, _ = _data(7)
    arguments = {"aux_cols": (["x"], ["y"])} | kwargs
    with pytest.raises(CapkitError, match=match):
        linkability(original, synthetic, **arguments)


# -- the tie rule: a tie is scored by the expected link over random tie orders


@needs_adult
def test_expected_links_agree_with_anonymeter(oracle_runs):
    """anonymeter's order among ties (numba's quicksort) is one draw of a tie order; its link
    counts lie within 3 standard deviations of capkit's expected links (16.3 vs 17, 2.0 vs 5,
    198.7 vs 193, 44.7 vs 50 on the oracle's members / holdout, k = 1 and 5)."""
    for k in (1, 5):
        for name, records in _sides(oracle_runs[k]):
            p = records["p_link"].to_numpy()
            theirs = LINKS[LINKS["set"] == name].sort_values("row")[f"link_k{k}"].sum()
            assert abs(p.sum() - theirs) <= 3 * math.sqrt((p * (1 - p)).sum()), (k, name)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_halves_tied_everywhere_link_like_random_draws(k):
    """When every synthetic record ties in both halves, nothing links a record's halves but
    chance: each record links with probability 1 - C(n-k, k) / C(n, k) (two random k-sets
    meet). A fixed tie rule (lowest positions in both halves) would link every record."""
    rng = np.random.default_rng(k)
    n_syn = 40
    original = pd.DataFrame({"a": ["x"] * 30, "b": np.full(30, 2.5), "c": rng.integers(0, 3, 30)})
    synthetic = pd.DataFrame({"a": ["x"] * n_syn, "b": np.full(n_syn, 2.5),
                              "c": rng.integers(0, 3, n_syn)})
    result = linkability(original, synthetic, (["a"], ["b"]), n_neighbors=k)
    chance = 1 - math.comb(n_syn - k, k) / math.comb(n_syn, k)
    np.testing.assert_allclose(result.records["p_link"], chance, rtol=1e-12)
    assert result.n_success == pytest.approx(30 * chance, rel=1e-12)
    assert result.links_range == (0, 30) and result.n_tied == 30


def test_a_binary_half_against_a_wide_half():
    """One half a binary label (half the synthetic records tie), the other many columns with a
    unique nearest record: the link probability is 1 / (records tied in the binary half) when
    that nearest record carries the same label, else 0."""
    rng = np.random.default_rng(5)
    n, p = 300, 12
    syn = pd.DataFrame(rng.integers(0, 50, (n, p)), columns=[f"v{j}" for j in range(p)])
    syn["label"] = rng.choice(["no", "yes"], n)
    original = syn.sample(120, random_state=1).reset_index(drop=True)
    result = linkability(original, syn, (["label"], [f"v{j}" for j in range(p)]))
    records = result.records
    assert (records["d_b1"] == 0).all() and (records["n_at_kth_b"] == 1).all()
    same = syn["label"].to_numpy()[records["nn_b1"]] == original["label"].to_numpy()
    tied = (syn["label"].to_numpy()[None, :] == original["label"].to_numpy()[:, None]).sum(1)
    np.testing.assert_allclose(records["p_link"], np.where(same, 1 / tied, 0.0), rtol=1e-12)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_categories_only_search_equals_the_distance_blocks(k):
    """With no numeric column the k nearest of a query with k or more candidates sharing its
    values are those candidates' lowest positions, found without a distance: the same answer
    and the same band as the blocks give (forced here by a numeric column that is 0 everywhere,
    which adds 0 to every distance), and every index equal to a record-by-record search."""
    from capkit.distance.mixed_knn import encode, nearest

    rng = np.random.default_rng(k)
    def draw(n: int) -> pd.DataFrame:
        return pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                             "c": rng.choice(list("0123"), n)})
    queries, candidates = draw(60), draw(200)
    plain = encode(queries, candidates, ["a", "b", "c"])
    zero = encode(queries.assign(z=0.0), candidates.assign(z=0.0), ["a", "b", "c", "z"])
    assert not plain.numeric and zero.numeric == ("z",)
    bands: dict[str, set] = {"plain": set(), "zero": set()}
    found = {}
    for name, data in (("plain", plain), ("zero", zero)):
        def keep(q, c, at, name=name):
            bands[name].update(zip(q.tolist(), c.tolist(), at.tolist(), strict=True))
        found[name] = nearest(data, k, on_band=keep)
    for field in ("index", "distance", "kth", "n_below", "n_at_kth", "n_at_min"):
        assert np.array_equal(getattr(found["plain"], field), getattr(found["zero"], field))
    assert bands["plain"] == bands["zero"]
    values = candidates.to_numpy()
    for i, row in enumerate(queries.to_numpy()):
        d = (values != row).sum(axis=1)
        assert found["plain"].index[i].tolist() == sorted(range(len(d)),
                                                           key=lambda j: (d[j], j))[:k]


@pytest.mark.parametrize("k", [1, 3])
def test_compiled_search_equals_a_block_of_numpy_distances(k, monkeypatch):
    """The compiled search (capkit.distance._mixed_kernel) against numpy on the whole block of
    distances summed column by column: the same distances to the bit, missing numbers included
    (both missing: 1; one missing: NaN, ranked last), the same k-th distance, counts below /
    at it / at the minimum, k nearest (ties by lowest position) and band, whatever the number
    of threads, on the threads or on one, and whether a band comes from the search itself or
    from a second pass (``BAND_SLOTS``). Values on a coarse grid make many ties."""
    import numba

    from capkit.distance import _mixed_kernel, mixed_knn
    from capkit.distance.mixed_knn import encode, nearest

    rng = np.random.default_rng(11 + k)
    def draw(n: int) -> pd.DataFrame:
        frame = pd.DataFrame({"x": rng.integers(0, 4, n) * 250.0, "y": rng.integers(0, 3, n) / 3,
                              "z": rng.integers(0, 5, n).astype(float),
                              "a": rng.choice(list("uvw"), n), "b": rng.choice(list("pq"), n)})
        frame.loc[rng.random(n) < 0.1, "x"] = np.nan
        frame.loc[rng.random(n) < 0.1, "z"] = np.nan
        return frame
    data = encode(draw(70), draw(90), ["x", "y", "z", "a", "b"])
    assert data.numeric == ("x", "y", "z") and not data.nan_free
    block = np.zeros((70, 90))
    for j in range(3):
        a, b = data.query_num[:, j][:, None], data.cand_num[:, j][None, :]
        term = np.abs(a - b)
        term[np.isnan(a) & np.isnan(b)] = 1.0
        block = term if j == 0 else block + term
    for j in range(2):
        block = block + (data.query_cat[:, j][:, None] != data.cand_cat[:, j][None, :])
    ranked = np.where(np.isnan(block), np.inf, block)
    kth = np.sort(ranked, axis=1)[:, k - 1]
    want_band = {(i, c, bool(ranked[i, c] == kth[i])) for i in range(70) for c in range(90)
                 if ranked[i, c] <= kth[i]}
    widths = (ranked <= kth[:, None]).sum(axis=1)  # bands held by the search and too wide
    assert (widths <= k).sum() >= 3 and (widths > k).sum() >= 3
    for threads, cells, slots in ((1, 1, mixed_knn.BAND_SLOTS),
                                  (numba.config.NUMBA_NUM_THREADS, 1, k),
                                  (numba.config.NUMBA_NUM_THREADS, 1 << 30, k),
                                  (1, 1 << 30, 0)):
        numba.set_num_threads(threads)  # cells: the search size from which threads are used
        monkeypatch.setattr(_mixed_kernel, "THREAD_CELLS", cells)
        monkeypatch.setattr(mixed_knn, "BAND_SLOTS", slots)
        _search_matches_block(nearest, data, k, ranked, block, want_band)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def _search_matches_block(nearest, data, k: int, ranked: np.ndarray, block: np.ndarray,
                          want_band: set) -> None:
    """``nearest(data, k)`` against a whole block of distances: the band it lists, the k-th
    distance, the counts below, at the k-th and at the minimum (``ranked``: the block with
    missing distances ranked last), and the k nearest by (distance, position)."""
    band: set = set()
    def keep(q, c, at):
        band.update(zip(q.tolist(), c.tolist(), at.tolist(), strict=True))
    found = nearest(data, k, on_band=keep)
    kth = np.sort(ranked, axis=1)[:, k - 1]
    assert band == want_band
    assert np.array_equal(found.kth, kth)
    assert np.array_equal(found.n_below, (ranked < kth[:, None]).sum(axis=1))
    assert np.array_equal(found.n_at_kth, (ranked == kth[:, None]).sum(axis=1))
    assert np.array_equal(found.n_at_min, (ranked == ranked.min(axis=1)[:, None]).sum(axis=1))
    for i in range(ranked.shape[0]):
        order = sorted(range(ranked.shape[1]), key=lambda c, i=i: (ranked[i, c], c))[:k]
        assert found.index[i].tolist() == order
        assert np.array_equal(found.distance[i], block[i, order], equal_nan=True)


@pytest.mark.parametrize("k, ball", [(1, 256), (3, 256), (1, 0), (3, 0)])
def test_windowed_search_equals_a_block_of_numpy_distances(k, ball, monkeypatch):
    """The windowed search of large groups (a k-d tree bounds each k-th distance, only the
    candidates within the bound on one column are compared: ``mixed_knn._windowed``) against
    numpy on the whole block of distances: the same k-th distance, counts, k nearest (ties by
    lowest position) and band, a band listed by the search or by its second pass. Forced on
    every group (``WINDOW_CANDIDATES`` = 1), with slabs or balls (``BALL_WINDOW`` = 0);
    values on a coarse grid make many ties, exact
    copies (distance 0) included, and a query may have its k-th distance >= 1 in its group."""
    from capkit.distance import mixed_knn
    from capkit.distance.mixed_knn import encode, nearest

    rng = np.random.default_rng(31 + k)
    def draw(n: int) -> pd.DataFrame:
        return pd.DataFrame({"x": rng.integers(0, 6, n) * 250.0, "y": rng.integers(0, 4, n) / 3,
                             "z": rng.normal(size=n).round(1),
                             "a": rng.choice(list("uvw"), n), "b": rng.choice(list("pq"), n)})
    queries, candidates = draw(120), draw(400)
    queries.iloc[:10] = candidates.iloc[5:15].to_numpy()  # exact copies
    queries.loc[10:12, ["x", "z"]] = [1e5, 40.0]  # far from every candidate: k-th >= 1
    data = encode(queries, candidates, ["x", "y", "z", "a", "b"])
    assert data.nan_free
    block = np.zeros((120, 400))
    for j in range(3):
        term = np.abs(data.query_num[:, j][:, None] - data.cand_num[:, j][None, :])
        block = term if j == 0 else block + term
    for j in range(2):
        block = block + (data.query_cat[:, j][:, None] != data.cand_cat[:, j][None, :])
    kth = np.sort(block, axis=1)[:, k - 1]
    want_band = {(i, c, bool(block[i, c] == kth[i])) for i in range(120) for c in range(400)
                 if block[i, c] <= kth[i]}
    assert (block.min(axis=1) == 0).sum() >= 10 and (kth >= 1).sum() >= 3
    widths = (block <= kth[:, None]).sum(axis=1)
    assert (widths <= k).sum() >= 3 and (widths > k).sum() >= 3
    monkeypatch.setattr(mixed_knn, "WINDOW_CANDIDATES", 1)
    monkeypatch.setattr(mixed_knn, "BALL_WINDOW", ball)  # 0: every window a ball
    for slots in (mixed_knn.BAND_SLOTS, k):
        monkeypatch.setattr(mixed_knn, "BAND_SLOTS", slots)
        _search_matches_block(nearest, data, k, block, block, want_band)
