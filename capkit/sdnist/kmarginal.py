"""SDNist's k-marginal score, overall and per PUMA, and its sub-sample baselines.

SDNist 2.4 (usnistgov/SDNist, ``sdnist/metrics/kmarginal.py: KMarginal``; NIST CRC, "SDNist v2:
Deidentified Data Report Tool") compares the 2-way marginals of the binned data (every pair of
features but PUMA and INDP): with ``t`` and ``s`` the target's and the deidentified file's cell
shares (counts over ``n_T`` and ``n_S``),

* overall: ``(2 - mean over pairs of sum |t - s|) x 500``, shown truncated to an integer;
* per PUMA ``g`` (cells of (PUMA, f1, f2)): ``d_g = sum over g's cells |t - s|``, capped at the
  target share of ``g``, times ``n_T / N_g``; the score is ``(1 - mean over pairs) x 1000``,
  truncated.

The sums are computed exactly: ``|t - s| = |t_count n_S - s_count n_T| / (n_T n_S)``, so every
pair's and every PUMA's sum is an integer over ``n_T n_S`` and the truncation is decided on
exact integers (SDNist sums floats; the two differ only when a score is within about 1e-12 of an
integer). A compiled kernel (numba) counts each pair's cells of both files and sums them per
PUMA, pair after pair, in one call.

The sub-sample baselines (``report/score/utility/__init__.py: kmarginal_subsamples``) score
random sub-samples of the target as if they were the deidentified file: 1 %, 5 %, 10 %, ...,
90 %, and per PUMA the mean of five 40 % sub-samples. SDNist draws them from numpy's global
``RandomState`` through ``DataFrame.sample`` (``RandomState.permutation(n)[:round(frac n)]``);
:func:`subsample_baselines` makes the same draws from a ``RandomState`` it is given, so SDNist's
numbers come back for the seed SDNist was run with.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numba
import numpy as np

from capkit.counts.rows import unique_codes
from capkit.errors import CapkitError

__all__ = ["FRACTIONS", "KMarginalScore", "kmarginal", "subsample_baselines"]

#: SDNist's sub-sample fractions (``i * 0.01`` for these ``i``, as SDNist writes them).
FRACTIONS = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90)


@dataclass(frozen=True)
class KMarginalScore:
    """A k-marginal comparison.

    Attributes
    ----------
    score
        SDNist's score, ``int`` of ``(2 - mean L1) x 500`` (0 .. 1000).
    exact
        The score before truncation, as an exact fraction.
    puma
        PUMA position (in the target's sorted PUMA list) -> exact per-PUMA score (empty when
        the files have no PUMA).
    pairs
        The number of feature pairs compared.
    """

    score: int
    exact: Fraction
    puma: dict[int, Fraction]
    pairs: int

    def puma_scores(self) -> dict[int, int]:
        """Per-PUMA scores as SDNist shows them (truncated to integers)."""
        return {g: int(v) for g, v in self.puma.items()}


@numba.njit(cache=True, nogil=True)
def _pair_sums(left: np.ndarray, coded: np.ndarray, first: np.ndarray, second: np.ndarray,
               levels: np.ndarray, groups: int, n_target: int) -> np.ndarray:
    # pragma: no cover - compiled
    """For every pair p and PUMA g: the sum over the (g, f1, f2) cells of
    ``|t_count n_S - s_count n_T|``. ``left`` (PUMA x L1 + code of f1) and ``coded`` are
    features x records, so each pair reads two contiguous rows and counts into one small
    block of cells, which is then summed per PUMA."""
    n_deid = coded.shape[1] - n_target
    widest = 0
    for j in range(levels.shape[0]):
        widest = max(widest, levels[j])
    t = np.zeros(groups * widest * widest, dtype=np.int64)
    s = np.zeros(groups * widest * widest, dtype=np.int64)
    out = np.zeros((first.shape[0], groups), dtype=np.int64)
    for p in range(first.shape[0]):
        a, b, width = left[first[p]], coded[second[p]], levels[second[p]]
        inner = levels[first[p]] * width
        t[: groups * inner] = 0
        s[: groups * inner] = 0
        for r in range(n_target):
            t[a[r] * width + b[r]] += 1
        for r in range(n_target, a.shape[0]):
            s[a[r] * width + b[r]] += 1
        for cell in range(groups * inner):
            out[p, cell // inner] += abs(t[cell] * n_deid - s[cell] * n_target)
    return out


def _marginal_columns(features: tuple[str, ...]) -> list[int]:
    cols = [j for j, f in enumerate(features) if f not in ("PUMA", "INDP")]
    if not cols:
        raise CapkitError("the k-marginal score needs a feature other than PUMA and INDP")
    return cols


def kmarginal(d_target: np.ndarray, d_deid: np.ndarray, features: tuple[str, ...]
              ) -> KMarginalScore:
    """SDNist's k-marginal score of ``d_deid`` against ``d_target`` (binned data, records x
    features, features sorted as ``features``), overall and per PUMA when PUMA is a feature.

    Raises
    ------
    CapkitError
        No feature other than PUMA and INDP, or an empty file.
    """
    n_t, n_s = len(d_target), len(d_deid)
    if n_t == 0 or n_s == 0:
        raise CapkitError("the k-marginal score needs records in both files")
    cols = _marginal_columns(features)
    both = np.concatenate([d_target[:, cols].T, d_deid[:, cols].T], axis=1)  # features x records
    coded = np.empty(both.shape, dtype=np.int64)
    levels = np.empty(len(cols), dtype=np.int64)
    for k in range(len(cols)):  # one coding per feature (22 at most)
        values, coded[k] = unique_codes(both[k])
        levels[k] = len(values)
    if len(cols) == 1:
        first, second = np.array([0]), np.array([0])
    else:
        first, second = np.triu_indices(len(cols), k=1)  # SDNist's (f1 < f2) order
    pairs = len(first)
    if "PUMA" in features:
        at = features.index("PUMA")
        puma = np.concatenate([d_target[:, at], d_deid[:, at]])
        groups = int(d_target[:, at].max()) + 2  # the last: PUMAs the target does not have
        group = np.where(puma < 0, groups - 1, puma)
    else:
        groups, group = 1, np.zeros(both.shape[1], dtype=np.int64)
    left = group[None, :] * levels[:, None] + coded  # (PUMA, first feature) of every record
    by = _pair_sums(left, coded, first.astype(np.int64), second.astype(np.int64), levels,
                    groups, n_t)  # pairs x PUMAs, |t - s| x n_T n_S summed: exact integers
    scale = pairs * n_t * n_s
    exact = Fraction(500 * (2 * scale - int(by.sum())), scale)
    per_puma: dict[int, Fraction] = {}
    if "PUMA" in features:
        n_g = np.bincount(group[:n_t], minlength=groups)
        for g in np.flatnonzero(n_g[: groups - 1]):  # the target's PUMAs (20 at most)
            cap = int(n_g[g]) * n_s
            capped = int(np.minimum(by[:, g], cap).sum())
            per_puma[int(g)] = Fraction(1000 * (pairs * cap - capped), pairs * cap)
    return KMarginalScore(int(exact), exact, per_puma, pairs)


def subsample_baselines(d_target: np.ndarray, features: tuple[str, ...],
                        random_state: np.random.RandomState
                        ) -> tuple[dict[int, int], dict[int, Fraction]]:
    """SDNist's sub-sample baselines: the k-marginal score of ``frac`` of the target for each
    of :data:`FRACTIONS` (percent -> int score), and per PUMA the mean exact score of five 40 %
    sub-samples, drawn in SDNist's order from ``random_state`` (which is advanced, as SDNist
    advances numpy's global state)."""
    n = len(d_target)
    scores: dict[int, int] = {}
    for i in FRACTIONS:  # SDNist's 11 draws, in its order
        take = random_state.permutation(n)[: round(i * 0.01 * n)]
        scores[i] = kmarginal(d_target, d_target[take], features).score
    puma: dict[int, Fraction] = {}
    if "PUMA" in features:
        for _ in range(5):
            take = random_state.permutation(n)[: round(4 * 0.1 * n)]
            for g, v in kmarginal(d_target, d_target[take], features).puma.items():
                puma[g] = puma.get(g, Fraction(0)) + v / 5
    return scores, puma
