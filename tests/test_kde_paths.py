"""DOMIAS's density (capkit.membership_inference.kde) against scipy.stats.gaussian_kde, bit for
bit: the fit's ingredients without scipy.stats, and both ways of summing (numpy, the compiled
loop) on varied data: correlated and heavy-tailed columns, ties, repeated points, repeated data
rows, far points whose density underflows, one column, two records."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg
from scipy.stats import gaussian_kde

from capkit.errors import CapkitError
from capkit.membership_inference import kde


def _cases():
    """(name, data, points): n x d data (C order, as capkit passes it) and m x d points."""
    rng = np.random.default_rng(20261129)
    out = []
    for n, d in ((9, 2), (11, 4), (20, 7), (300, 3), (1000, 5)):
        mix = rng.normal(size=(d, d)) + 2 * np.eye(d)
        data = rng.normal(size=(n, d)) @ mix
        points = np.concatenate([rng.normal(size=(40, d)) @ mix, data[:7]])
        out.append((f"normal {n}x{d}", data, points))
    # Adult-like: integer ages, a lognormal weight, zero-inflated gains, rounded hours
    n = 1500
    adult = np.column_stack([rng.integers(17, 90, n), np.exp(rng.normal(12, 0.5, n)),
                             np.where(rng.random(n) < 0.9, 0, rng.integers(100, 99999, n)),
                             np.where(rng.random(n) < 0.95, 0, rng.integers(100, 4000, n)),
                             rng.integers(1, 99, n)]).astype(float)
    points = np.concatenate([adult[rng.integers(0, n, 300)] + rng.normal(0, 1, (300, 5)),
                             adult[:100]])
    out.append(("adult-like", adult, points))
    # ties: rounded columns, copies of rows (more than half distinct: scipy's sum term by term)
    data = np.round(rng.normal(size=(400, 3)) * 3)
    data[200:260] = data[:60]
    points = np.concatenate([data[:50], np.round(rng.normal(size=(50, 3)) * 3), data[:50]])
    out.append(("ties", data, points))
    # far points: the density underflows to 0.0 in scipy; one column; two records
    data = rng.normal(size=(200, 2))
    out.append(("far", data, np.concatenate([rng.normal(size=(10, 2)),
                                             rng.normal(45.0, 1.0, size=(5, 2))])))
    out.append(("one column", rng.exponential(size=(500, 1)), rng.exponential(size=(60, 1))))
    out.append(("two records", np.array([[0.0, 1.0], [1.0, 0.5]]),
                np.array([[0.5, 0.5], [0.0, 1.0], [0.5, 0.5]])))
    # one point against many data rows (numpy would sum a lone contiguous column pairwise)
    out.append(("one point", rng.normal(size=(1000, 3)), rng.normal(size=(1, 3)) * 0.3))
    return out


CASES = _cases()
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fit_is_scipys_fit_bit_for_bit(case):
    """Factor, covariance, Cholesky factor, whitened data and normalising constant are
    scipy's (made by scipy's own numpy and LAPACK calls, without scipy.stats). The factor is
    numpy's power ufunc, as in scipy: the scalar ``**`` differs in the last bit for some
    n and d on machines whose numpy computes powers on vector registers."""
    _, data, _ = case
    fitted = kde.fit(data)
    peer = gaussian_kde(data.T)
    assert fitted.n_eff == peer.neff
    assert fitted.factor == peer.factor
    assert fitted.data_covariance.tobytes() == peer._data_covariance.tobytes()
    assert fitted.cholesky.tobytes() == peer.cho_cov.tobytes()
    whitened = linalg.solve_triangular(peer.cho_cov, peer.dataset, lower=True).T
    assert fitted.whitened.tobytes() == np.ascontiguousarray(whitened).tobytes()
    norm = (2 * np.pi) ** (-data.shape[1] / 2.0)
    for k in range(data.shape[1]):
        norm /= peer.cho_cov[k, k]
    assert fitted.norm == norm


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_both_sums_are_scipys_evaluate_bit_for_bit(case):
    """The numpy path (libm's exp through inv_boxcox, one accumulation per point) and the
    compiled loop give scipy's gaussian_kde(data.T)(points.T) to the last bit, and the
    default (whichever it chooses) too; repeated points are evaluated once."""
    _, data, points = case
    expected = gaussian_kde(data.T)(points.T)
    fitted = kde.fit(data)
    for threads in (1, 3):
        by_numpy = kde.density(fitted, points, method="numpy", threads=threads)
        assert by_numpy.tobytes() == expected.tobytes(), threads
    compiled = kde.density(fitted, points, method="compiled", threads=2)
    assert compiled.tobytes() == expected.tobytes()
    assert kde.density(fitted, points).tobytes() == expected.tobytes()


def test_far_points_underflow_to_zero_in_both_paths():
    name, data, points = next(c for c in CASES if c[0] == "far")
    fitted = kde.fit(data)
    for method in ("numpy", "compiled"):
        got = kde.density(fitted, points, method=method)
        assert (got[-5:] == 0.0).all() and (got[:10] > 0).all(), (name, method)


def test_numpy_blocks_and_merged_copies():
    """Several blocks of points (a small block size), and data with at most half its rows
    distinct (each distinct row one term weighted by its copies): the numpy path makes the
    compiled loop's merged sum bit for bit."""
    rng = np.random.default_rng(3)
    data = rng.integers(0, 4, (2000, 3)).astype(float) + rng.integers(0, 2, (2000, 1))
    assert 2 * len(np.unique(data, axis=0)) <= len(data)
    points = np.concatenate([rng.integers(0, 5, (300, 3)).astype(float),
                             rng.normal(size=(30, 3)) * 3])
    fitted = kde.fit(data)
    compiled = kde.density(fitted, points, method="compiled")
    block = kde.NUMPY_BLOCK
    try:
        kde.NUMPY_BLOCK = 7 * fitted.columns.shape[1]  # 7 points a block
        assert kde.density(fitted, points, method="numpy").tobytes() == compiled.tobytes()
    finally:
        kde.NUMPY_BLOCK = block


def test_density_refuses_an_unknown_method_and_leaves_inputs_alone():
    data = np.random.default_rng(1).normal(size=(50, 2))
    points = data[:5].copy()
    before = (data.copy(), points.copy())
    fitted = kde.fit(data)
    with pytest.raises(CapkitError, match="method"):
        kde.density(fitted, points, method="fast")
    kde.density(fitted, points, method="numpy")
    assert (data == before[0]).all() and (points == before[1]).all()


def test_the_reports_membership_family_evaluates_no_density(monkeypatch):
    """The custodian's report bounds DOMIAS's n x m cost by not running it: its membership
    family scores DCR and MC on the report's record sample (capkit.audit.sampling), and never
    fits a density. Adding DOMIAS to the report must come with a sample of the scored records
    (the density fitted on every synthetic record): this test then fails as a reminder."""
    import pandas as pd

    from capkit.audit import membership_family
    from capkit.audit.membership_family import membership_findings

    def refuse(*args, **kwargs):
        raise AssertionError("the report fitted a density")

    monkeypatch.setattr(kde, "fit", refuse)
    rng = np.random.default_rng(11)

    def frame(n):
        return pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 50, n).astype(float),
                             "c": rng.choice(["x", "y", "z"], n)})

    members, holdout, synthetic = frame(120), frame(120), frame(100)
    found = membership_findings("syn", members, synthetic, holdout, seed=0, confidence=0.95)
    assert [f.measure for f in found] == ["dcr membership inference", "mc membership inference"]
    # the guard bites: a report family that ran DOMIAS would fit a density
    monkeypatch.setattr(membership_family, "ATTACKS", ("dcr", "mc", "domias"))
    with pytest.raises(AssertionError, match="fitted a density"):
        membership_findings("syn", members, synthetic, holdout, seed=0, confidence=0.95)


def test_distinct_rows_is_unique_rows_of_the_bits():
    """kde.distinct_rows (one lexsort) gives counts.rows.unique_rows' first positions and
    numbers of the rows' bits viewed as int64: ties, copies, -0.0 against 0.0 (different
    bits), NaN, one row, no row, one column."""
    from capkit.counts.rows import unique_rows

    rng = np.random.default_rng(7)
    signed = rng.integers(-2, 3, (400, 3)).astype(float)
    signed[::7, 1] = -0.0
    signed[::11, 2] = np.nan
    cases = [signed, rng.integers(0, 3, (500, 4)).astype(float), np.zeros((1, 3)),
             np.zeros((0, 2)), rng.normal(size=(300, 1)), np.repeat(rng.normal(size=(5, 2)),
                                                                    40, axis=0)]
    for matrix in cases:
        first, inverse = unique_rows(np.ascontiguousarray(matrix).view(np.int64))
        got_first, got_inverse = kde.distinct_rows(matrix)
        assert np.array_equal(got_first, first) and np.array_equal(got_inverse, inverse)


@pytest.mark.parametrize("n, d", [(20_000, 5), (3_000, 70), (50_000, 12), (300, 130)])
def test_one_blas_thread_gives_the_threaded_floats(n, d):
    """The triangular solves of the data and the points run on one BLAS thread (kde's
    _one_blas_thread), the covariance and its Cholesky factor on the libraries' threads: each
    is, bit for bit, what scipy's calls give with the default threads, on inputs large enough
    for OpenBLAS to split the work (the covariance on one thread differs at 3,000 x 70 and
    50,000 x 12, the factor at 130 columns)."""
    rng = np.random.default_rng(11)
    data = rng.normal(size=(n, d)) @ (rng.normal(size=(d, d)) + 3 * np.eye(d))
    points = rng.normal(size=(n, d)) * 3
    fitted = kde.fit(data)
    reference = gaussian_kde(data.T)  # scipy, default threads
    assert np.array_equal(fitted.cholesky, reference.cho_cov)
    assert np.array_equal(fitted.whitened,
                          linalg.solve_triangular(reference.cho_cov, data.T, lower=True).T)
    assert np.array_equal(kde._scipy_points(fitted, points),
                          linalg.solve_triangular(reference.cho_cov, points.T, lower=True).T)
