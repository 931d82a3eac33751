"""Test helpers for the DOMIAS conformance tests: the shipped domias 0.0.5 outputs, and the
oracle's inputs rebuilt from Adult (no Adult record is committed; ``reference/domias/README.md``).

Recipe (``results.json`` -> ``inputs`` and ``cases.<id>.recipe``): the six numeric Adult
columns as float64; ``real = X[numpy.random.default_rng(20261126).permutation(48842)[:4000]]``
(members, non-members, reference by position: 1,000 / 1,000 / 2,000); the synthetic sets drawn
from the members with ``numpy.random.default_rng(seed)`` as the recipe's text says; the "z"
cases standardised with the stored mean and population sd of the 4,000 real rows.

What is rebuilt to the bit and what is not. The real rows (integers, a permutation), the
bootstrap-with-noise set and the leaky set's copies are elementwise IEEE operations on the same
numbers: the same bits on every machine. numpy's ``Generator.multivariate_normal`` (the
"gaussian" set and the leaky set's other 80 %) returns ``z @ F + mean`` with ``z`` its standard
normals (bit-identical everywhere) and ``F = (u * sqrt(s)).T`` from LAPACK's SVD of the members'
covariance. That factor is not reproducible across CPUs: the covariance is graded (eigenvalues
from about 7 to 1e10), the SVD is only normwise backward stable (error up to eps * ||C|| ~ 2e-6,
Golub & Van Loan, "Matrix Computations", 4th ed., 2013, section 8.6), and numpy 2.4.6 on two
CPUs (OpenBLAS's Haswell kernels and the oracle's) drew numbers up to 3.5e-11 of a column's sd
apart, which moved DOMIAS's scores by up to 4e-11 relative. So
the draws are rebuilt with the oracle's own factor, :data:`ORACLE_FACTOR`, recovered from its
1,600 drawn rows of ``syn_leaky_raw`` by least squares with iterative refinement (99 % of those
rows then come back bit for bit); :func:`draw_bound` bounds what is left, from the arithmetic.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from reference_data import SHARED_DATA, have_adult, reference_results  # noqa: F401

SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle" / "domias"
EPS = np.finfo(np.float64).eps

#: The factor F of the oracle's ``multivariate_normal`` draws (rows: the standard normals'
#: coordinates; columns: age, fnlwgt, education.num, capital.gain, capital.loss,
#: hours.per.week), recovered from the oracle's ``syn_leaky_raw.csv.gz`` (see the docstring;
#: the same members, so the same factor, for the gaussian and both leaky sets).
ORACLE_FACTOR = np.array([
    [-1.6646056161638567, 101672.34868042634, -0.3033142794512928, -77.6159946218044,
     -0.9699284336519898, -0.13070122945034907],
    [-1.5993283255967836, -7.099026387916182, -0.3243721672624558, -9299.403860580614,
     11.003645274784335, -0.9050089144188003],
    [-0.317991186405925, -0.0036907132493181555, -0.20853178944123782, -0.4173052808219054,
     -352.7828140449665, -0.6676073289077],
    [12.308540827233225, 0.0002084085118556568, 0.3856282352260335, -0.0027692201074256016,
     -0.023206393169775897, 6.281459323697474],
    [-5.278157262579339, -7.256189119380991e-05, 0.27389225992560906, -0.00012432125168927995,
     -0.014944511090863206, 10.325697117568645],
    [0.03638127329246503, -6.911940143857127e-06, -2.5779444831400187, 7.677420147509966e-05,
     0.0013263520937776782, 0.08697959496594854],
])
#: The leaky recipe's seed and sizes, whose 1,600 normal draws :data:`ORACLE_FACTOR` was fitted on.
FIT_SEED, FIT_COPIES, FIT_ROWS = 103, 400, 1600


def gamma(n: int) -> float:
    """Higham's gamma_n = n eps / (1 - n eps), the relative error bound of an n-term sum or dot
    product in floating point ("Accuracy and Stability of Numerical Algorithms", 2nd ed., 2002,
    section 3.1; eps here is the machine epsilon, twice the unit roundoff: a safety factor 2)."""
    return n * EPS / (1 - n * EPS)


def results() -> dict:
    """The trimmed oracle results (``reference/domias/results.json.gz``)."""
    return reference_results("domias")


@lru_cache(maxsize=1)
def _real_raw() -> np.ndarray:
    from capkit import datasets

    inputs = results()["inputs"]["adult"]
    adult = datasets.load_adult(SHARED_DATA / "AdultUCI.rda"
                                if (SHARED_DATA / "AdultUCI.rda").is_file() else None,
                                progress=False)
    x = adult[inputs["columns"]].to_numpy(dtype=np.float64)
    assert len(x) == inputs["n_pool"], len(x)
    perm = np.random.default_rng(inputs["split_seed"]).permutation(inputs["n_pool"])
    return np.ascontiguousarray(x[perm[:4000]])


@lru_cache(maxsize=1)
def _factor_error() -> np.ndarray:
    """Bound on |ORACLE_FACTOR - the oracle's F| per column (1 x d).

    The fit solved Z F ~ X - mean with X the oracle's draws, X - mean = Z F_o + r and
    |r| <= gamma_6 |Z| |F| + eps |X| + eps |X - mean| (the oracle's product and sum, the fit's
    subtraction), so F - F_o = Z^+ r up to the refined solve's own error (cond(Z) eps |F|):
    |F - F_o|_kj <= ||Z^+||_2 ||r_j||_2 + 2 cond(Z) eps max_k |F_kj|.
    """
    rng = np.random.default_rng(FIT_SEED)
    rng.choice(1000, size=FIT_COPIES, replace=False)
    z = rng.standard_normal((FIT_ROWS, ORACLE_FACTOR.shape[0]))
    mean = _real_raw()[:1000].mean(axis=0)
    zf = np.abs(z) @ np.abs(ORACLE_FACTOR)
    r = gamma(ORACLE_FACTOR.shape[0]) * zf + EPS * (zf + np.abs(mean)) + EPS * zf
    sv = np.linalg.svd(z, compute_uv=False)
    return (np.linalg.norm(r, axis=0) / sv[-1]
            + 2 * (sv[0] / sv[-1]) * EPS * np.abs(ORACLE_FACTOR).max(axis=0))[None, :]


def draw_bound(z: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Bound on |rebuilt draw - oracle's draw| per entry, for draws x = z @ F + mean.

    |z| |F - F_o| (the factor's fit) plus, for each side's fl(fl(z @ F) + mean), the dot
    product's gamma_6 |z| |F| and the sum's eps |x| (Higham 2002, section 3.5).
    """
    zf = np.abs(z) @ np.abs(ORACLE_FACTOR)
    return (np.abs(z).sum(axis=1, keepdims=True) * _factor_error()
            + 2 * (gamma(z.shape[1]) * zf + EPS * (np.abs(x) + zf)))


def _synthetic_raw(kind: str, seed: int, members: np.ndarray, n: int = 2000
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(synthetic set, bound on its distance to the oracle's, entrywise; 0 = bit for bit)."""
    rng = np.random.default_rng(seed)
    n_mem, d = members.shape

    def normal(size):
        # Generator.multivariate_normal(mean, cov, method="svd"), with the oracle's factor
        z = rng.standard_normal((size, d))
        x = z @ ORACLE_FACTOR + members.mean(axis=0)
        return x, draw_bound(z, x)

    if kind == "bootnoise":
        idx = rng.integers(0, n_mem, size=n)
        noise = rng.normal(0.0, 1.0, size=(n, d))
        out = members[idx] + noise * (0.01 * members.std(axis=0))
        return out, np.zeros_like(out)
    if kind == "gaussian":
        return normal(n)
    if kind == "leaky":
        n_copy = round(0.2 * n)
        copies = members[rng.choice(n_mem, size=n_copy, replace=False)]
        rest, bound = normal(n - n_copy)
        order = rng.permutation(n)
        return (np.concatenate([copies, rest])[order],
                np.concatenate([np.zeros_like(copies), bound])[order])
    raise ValueError(kind)


@lru_cache(maxsize=8)
def _case(case_id: str):
    info = results()
    case = info["cases"][case_id]
    real = _real_raw()
    members = real[:1000]
    synthetic, bound = _synthetic_raw(case["recipe"]["kind"], case["recipe"]["seed"], members)
    if case["scale"] == "z":
        mean = np.array(info["inputs"]["adult"]["real_mean"])
        sd = np.array(info["inputs"]["adult"]["real_sd"])
        real = (real - mean) / sd
        synthetic = (synthetic - mean) / sd
        # fl(fl(x - m) / s) for two x within t: within (t / s)(1 + 2 eps) + 4 eps |z| + 4 eps t / s
        # (two roundings on each side); identical x give identical bits
        bound = np.where(bound > 0, bound / sd * (1 + 6 * EPS) + 4 * EPS * np.abs(synthetic), 0.0)
    arrays = tuple(np.ascontiguousarray(a) for a in
                   (real[:1000], real[1000:2000], synthetic, real[2000:]))
    for a in (*arrays, bound):
        a.setflags(write=False)
    return arrays, bound


def case_inputs(case_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(members, non-members, synthetic, reference) of one oracle case, C-ordered float64."""
    return tuple(a.copy() for a in _case(case_id)[0])


def synthetic_bound(case_id: str) -> np.ndarray:
    """Entrywise bound on |rebuilt synthetic set - the oracle's| (0 where bit for bit)."""
    return _case(case_id)[1]
