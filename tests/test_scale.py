"""Speed without approximation: the compiled nearest-record search gives the same floats and
indices as evaluating every pair, whatever the thread count; past a pair budget the report
scores a seeded sample of records and says so."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from capkit.audit import audit, sampling
from capkit.data import record_sample
from capkit.distance import dcr, gower_matrix
from capkit.distance.nearest import KD_TREE_RECORDS, nearest
from capkit.errors import CapkitError

ROOT = Path(__file__).resolve().parents[1]


def brute_force(cat_s, cat_r, num_s, num_r, w_cat, numeric_cap=None):
    """Every pair, in the order of the definition: the categorical level (w * count with equal
    weights, else the weights summed column by column), then each numeric term added in column
    order (capped; NaN -> 0); the smallest distance and its lowest reference row."""
    n, m = len(num_s), len(num_r)
    if cat_s.shape[1] and np.all(w_cat == w_cat[0]):
        level = w_cat[0] * (cat_s[:, None, :] != cat_r[None, :, :]).sum(axis=2)
    else:
        level = np.zeros((n, m))
        for k in range(cat_s.shape[1]):
            level += w_cat[k] * (cat_s[:, k][:, None] != cat_r[:, k][None, :])
    d = level.astype(np.float64)
    for k in range(num_s.shape[1]):
        t = np.abs(num_s[:, k][:, None] - num_r[:, k][None, :])
        if numeric_cap is not None:
            t = np.minimum(t, numeric_cap[k])
        d = d + np.fmax(t, 0.0)
    arg = d.argmin(axis=1)
    return d[np.arange(n), arg], arg


def coded(rng, n, p, levels=(2, 3, 5, 10)):
    """Integer-coded columns with few levels, scaled by their range (many exact ties)."""
    cards = rng.choice(levels, p)
    return np.column_stack([rng.integers(0, c, n) / (c - 1) for c in cards]).astype(float)


CASES = ["wide integer-coded", "mixed unequal weights", "missing numbers", "capped",
         "categorical only", "one numeric column", "codes past 255", "codes past 65535"]


def case(name, rng):
    n, m = 150, 170
    if name == "wide integer-coded":
        return (np.zeros((n, 0), dtype=np.int64), np.zeros((m, 0), dtype=np.int64),
                coded(rng, n, 40), coded(rng, m, 40), np.zeros(0), None)
    cat_s, cat_r = rng.integers(0, 3, (n, 4)), rng.integers(0, 3, (m, 4))
    num_s, num_r = coded(rng, n, 3), coded(rng, m, 3)
    num_s[:, 0] += rng.normal(0, 0.01, n)  # one continuous column: few exact ties there
    w = np.ones(4)
    cap = None
    if name == "mixed unequal weights":
        w = np.array([0.7, 1.3, 2.0, 0.1])
    elif name == "missing numbers":
        num_s[rng.random(n) < 0.2, 1] = np.nan
        num_r[rng.random(m) < 0.2, 2] = np.nan
    elif name == "capped":
        cap = np.array([0.05, 0.3, 1.0])
    elif name == "categorical only":
        num_s, num_r = num_s[:, :0], num_r[:, :0]
    elif name in ("codes past 255", "codes past 65535"):  # the level count in wider types
        top = 1_000 if name == "codes past 255" else 70_000
        values = np.array([0, 2, 300, top - 1])
        cat_s[:, 0], cat_r[:, 0] = rng.choice(values, n), rng.choice(values, m)
    elif name == "one numeric column":
        cat_s, cat_r, w = cat_s[:, :0], cat_r[:, :0], w[:0]
        num_s, num_r = num_s[:, :1], num_r[:, :1]
    return cat_s, cat_r, num_s, num_r, w, cap


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("pair_batch", [997, 2**21])
def test_nearest_is_bit_identical_to_every_pair(name, pair_batch) -> None:
    rng = np.random.default_rng(CASES.index(name))
    cat_s, cat_r, num_s, num_r, w, cap = case(name, rng)
    best, arg = nearest(cat_s, cat_r, num_s, num_r, w, numeric_cap=cap, pair_batch=pair_batch)
    ref_best, ref_arg = brute_force(cat_s, cat_r, num_s, num_r, w, cap)
    assert best.tobytes() == ref_best.tobytes()
    assert np.array_equal(arg, ref_arg)


def test_k_d_tree_bound_keeps_the_exact_answer() -> None:
    # only numeric columns and >= KD_TREE_RECORDS reference records: a k-d tree bounds the
    # search first; the floats and rows must still be those of every pair
    rng = np.random.default_rng(8)
    num_r = coded(rng, KD_TREE_RECORDS + 904, 4)
    num_s = np.vstack([coded(rng, 200, 4), num_r[rng.integers(0, len(num_r), 100)]])
    num_s[:50, 0] += rng.normal(0, 0.003, 50)
    empty_s, empty_r = (np.zeros((len(x), 0), dtype=np.int64) for x in (num_s, num_r))
    best, arg = nearest(empty_s, empty_r, num_s, num_r, np.zeros(0))
    ref_best, ref_arg = brute_force(empty_s, empty_r, num_s, num_r, np.zeros(0))
    assert best.tobytes() == ref_best.tobytes() and np.array_equal(arg, ref_arg)


def test_exact_copies_and_ties_take_the_lowest_row() -> None:
    rng = np.random.default_rng(5)
    ref = coded(rng, 300, 6, levels=(2, 3))
    query = ref[rng.integers(0, 300, 200)]  # copies; the reference repeats itself a lot
    empty = np.zeros((200, 0), dtype=np.int64)
    best, arg = nearest(empty, np.zeros((300, 0), dtype=np.int64), query, ref, np.zeros(0))
    assert (best == 0).all()
    first_copy = [int(np.flatnonzero((ref == q).all(axis=1))[0]) for q in query]
    assert arg.tolist() == first_copy


def test_progress_moves_in_blocks_and_counts_every_record(capsys) -> None:
    rng = np.random.default_rng(6)
    num_s, num_r = coded(rng, 3000, 5), coded(rng, 300, 5)
    empty = np.zeros((3000, 0), dtype=np.int64)
    ticks: list[int] = []
    nearest(empty, np.zeros((300, 0), dtype=np.int64), num_s, num_r, np.zeros(0),
            pair_batch=3000, progress=ticks.append)
    assert len(ticks) >= 10 and sum(ticks) == 3000
    frame_s = pd.DataFrame(num_s, columns=list("abcde"))
    frame_r = pd.DataFrame(num_r, columns=list("abcde"))
    quiet = dcr(frame_s, frame_r)
    assert capsys.readouterr().err == ""
    loud = dcr(frame_s, frame_r, progress="distance: test")
    assert "distance: test" in capsys.readouterr().err
    assert loud.distance.tobytes() == quiet.distance.tobytes()


def test_singling_out_progress_moves_with_the_records_tried(capsys) -> None:
    """On more than one batch of synthetic records the bar counts records (it used to count
    passes, one on a report: a bar that never moved for minutes at a million records)."""
    from capkit.attacks import singling_out

    rng = np.random.default_rng(8)
    frame = pd.DataFrame({c: rng.integers(0, 30, 9000) for c in "abcd"})
    quiet = singling_out(frame.iloc[:4500], frame.iloc[4500:], seed=1)
    assert capsys.readouterr().err == ""
    loud = singling_out(frame.iloc[:4500], frame.iloc[4500:], seed=1, progress=True)
    err = capsys.readouterr().err
    assert "singling out: records tried" in err and "4500/4500" in err
    assert loud.queries.equals(quiet.queries) and loud.n_success == quiet.n_success


def test_thread_count_does_not_change_distances(tmp_path) -> None:
    script = textwrap.dedent("""
        import sys
        import numpy as np
        from capkit.distance.nearest import KD_TREE_RECORDS, nearest
        rng = np.random.default_rng(11)
        num_s = rng.integers(0, 4, (1500, 12)) / 3.0
        num_r = rng.integers(0, 4, (1200, 12)) / 3.0
        cat_s, cat_r = rng.integers(0, 3, (1500, 2)), rng.integers(0, 3, (1200, 2))
        best, arg = nearest(cat_s, cat_r, num_s, num_r, np.ones(2), pair_batch=20_000)
        sys.stdout.buffer.write(best.tobytes() + arg.tobytes())
    """)
    outputs = []
    for threads in (None, "1"):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        if threads:
            env |= {"OMP_NUM_THREADS": threads, "NUMBA_NUM_THREADS": threads}
        outputs.append(subprocess.run([sys.executable, "-c", script], env=env, check=True,
                                      capture_output=True).stdout)
    assert len(outputs[0]) == 2 * 8 * 1500 and outputs[0] == outputs[1]


# --- the record sample -------------------------------------------------------------------


def test_sample_size_rule() -> None:
    assert sampling.sample_size(1000, 2000, budget=2_000_000) == 1000  # exactly the budget
    assert sampling.sample_size(1001, 2000, budget=2_000_000, minimum=10) == 1000
    assert sampling.sample_size(10**6, 10**6, budget=2 * 10**9) == 2000
    assert sampling.sample_size(10**6, 10**7, budget=2 * 10**9, minimum=1000) == 1000
    assert sampling.sample_size(500, 10**9, budget=10, minimum=1000) == 500
    for bad in (0, -1, 1.5, True):
        with pytest.raises(CapkitError, match="n_records"):
            sampling.sample_size(bad, 10)


def test_record_sample_is_seeded_and_stated() -> None:
    a = sampling.record_sample("members", 10_000, 10_000, seed=3, budget=10**7, minimum=10)
    b = sampling.record_sample("members", 10_000, 10_000, seed=3, budget=10**7, minimum=10)
    c = sampling.record_sample("members", 10_000, 10_000, seed=4, budget=10**7, minimum=10)
    h = sampling.record_sample("holdout", 10_000, 10_000, seed=3, budget=10**7, minimum=10)
    assert a.size == 1000 and np.array_equal(a.rows, b.rows)
    assert not np.array_equal(a.rows, c.rows) and not np.array_equal(a.rows, h.rows)
    assert (np.diff(a.rows) > 0).all() and a.rows[-1] < 10_000
    assert a.describe() == "on a sample of 1,000 of 10,000 members"
    whole = sampling.record_sample("members", 100, 100, seed=3)
    assert not whole.sampled and whole.describe() == "" and whole.size == 100
    frame = pd.DataFrame({"x": range(100)})
    assert whole.take(frame) is frame
    with pytest.raises(CapkitError, match="members sample"):
        a.take(frame)
    with pytest.raises(CapkitError, match="role"):
        sampling.record_sample("synthetic", 10, 10, seed=0)


def population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "sex": rng.choice(["f", "m"], n), "region": rng.choice(list("abcd"), n),
        "age": rng.integers(18, 80, n), "hours": rng.integers(1, 60, n),
        "job": rng.choice(["x", "y", "z"], n),
    })


def test_report_without_sampling_is_unchanged_and_with_it_stated(monkeypatch) -> None:
    members, holdout = population(600, 1), population(300, 2)
    leak = members.sample(600, replace=True, random_state=3).reset_index(drop=True)
    families = ("distance", "linkability")
    exact = audit(members, {"leak": leak}, holdout=holdout, seed=1, families=families)
    unbounded = audit(members, {"leak": leak}, holdout=holdout, seed=1, families=families,
                      pair_budget=None)
    assert exact.to_frame().to_json() == unbounded.to_frame().to_json()
    assert exact.notes == unbounded.notes
    assert not any("seeded sample of records" in n for n in exact.notes)

    # 600 x 600 > 60,000 pairs: 100 members and 100 holdout records are scored
    monkeypatch.setattr(record_sample, "MIN_SAMPLE", 50)  # the rule's home
    small = {"pair_budget": 60_000}
    first = audit(members, {"leak": leak}, holdout=holdout, seed=1, families=families, **small)
    again = audit(members, {"leak": leak}, holdout=holdout, seed=1, families=families, **small)
    other = audit(members, {"leak": leak}, holdout=holdout, seed=2, families=families, **small)
    assert first.to_frame().to_json() == again.to_frame().to_json()
    assert first.to_frame().to_json() != other.to_frame().to_json()
    # counted by hashing whole records, the synthetic side of exact copies needs no sample
    details = [f.detail for f in first.findings
               if f.measure != "synthetic records copying a member"]
    assert all("on a sample of 100 of 600 members and 100 of 300 holdout" in d
               for d in details if "members" in d)
    assert all("counted on every record" in f.detail for f in first.findings
               if f.measure == "synthetic records copying a member")
    assert any("seeded sample of records (100 of 600 members and 100 of 300 holdout"
               in n for n in first.notes)

    # the sampled exact-copy count is the count on those records, by the definition
    rows = sampling.record_sample("members", 600, 600, seed=1, budget=60_000).rows
    full = gower_matrix(members.iloc[rows], leak)
    copies = int((full.min(axis=1) == 0).sum())
    exact_copies = next(f for f in first.findings if f.measure == "exact copies")
    assert exact_copies.detail.startswith(f"{copies:,} of 100 members")

    # without a holdout, every finding on the sampled members says so too
    alone = audit(members, {"leak": leak}, seed=1, families=families, **small)
    assert all(f.detail.endswith("on a sample of 100 of 600 members") for f in alone.findings)


# -- integer columns coded without hashing: the same codes and levels as pandas


def test_integer_columns_coded_as_pandas_factorize():
    """factorize_many's plain-integer path (a table of the values) gives pd.factorize(sort=True)'s
    codes and levels, for every integer width (narrow types whose differences overflow them
    included) and ranges wide enough to need a sort."""
    from capkit.counts.encode import factorize_many
    from capkit.counts.rows import unique_codes

    rng = np.random.default_rng(11)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                  np.uint64):
        info = np.iinfo(dtype)
        for low, high in ((0, 3), (int(info.min), int(info.max)), (-5, 10**9)):
            low, high = max(low, int(info.min)), min(high, int(info.max))
            parts = [pd.Series(rng.integers(low, high, size, endpoint=True, dtype=dtype))
                     for size in (400, 250, 0)]
            codes, levels = factorize_many(parts)
            flat, want = pd.factorize(pd.concat(parts, ignore_index=True), sort=True)
            assert levels.equals(pd.Index(want)) and levels.dtype == pd.Index(want).dtype
            assert np.array_equal(np.concatenate(codes), flat)
            values, inverse = unique_codes(np.concatenate([p.to_numpy() for p in parts]))
            ref_values, ref_inverse = np.unique(np.concatenate([p.to_numpy() for p in parts]),
                                                return_inverse=True)
            assert np.array_equal(values, ref_values) and np.array_equal(inverse, ref_inverse)


def test_combined_codes_lexicographic_over_present_combinations():
    """combine_codes against a reference: np.unique over the rows of per-column codes."""
    from capkit.counts.encode import combine_codes

    rng = np.random.default_rng(12)
    for _ in range(50):
        cards = [int(c) for c in rng.integers(1, 12, int(rng.integers(1, 5)))]
        a = [rng.integers(0, c, int(rng.integers(0, 40))) for c in cards[:1]]
        a += [rng.integers(0, c, len(a[0])) for c in cards[1:]]
        b = [rng.integers(0, c, 30) for c in cards]
        got_a, got_b, components = combine_codes(a, b, cards)
        rows = np.column_stack([np.concatenate([x, y]) for x, y in zip(a, b, strict=True)])
        want, inverse = np.unique(rows, axis=0, return_inverse=True)
        assert np.array_equal(np.concatenate([got_a, got_b]), inverse.ravel())
        assert np.array_equal(np.column_stack(components), want)
