"""Nearest-record privacy measures: median-DCR ratio, NNDR, adversarial accuracy, epsilon-
identifiability and the hitting rate, on tables encoded together.

Definitions (SynthEval 1.7.3, Lautrup et al., "SynthEval: a framework for detailed utility and
privacy evaluation of tabular synthetic data", Data Mining and Knowledge Discovery 2025; the
papers each metric cites there):

* **Median DCR ratio**: median distance of a synthetic record to its closest real record,
  divided by the median distance of a real record to its closest other real record.
* **NNDR** (nearest-neighbour distance ratio): d1 / d2, the nearest over the second-nearest
  distance, averaged; SynthEval takes it for every *real* record against the synthetic data
  (``per="real"``), the usual definition for every synthetic record against the real data
  (``per="synthetic"``).
* **NNAA** (Yale et al., "Generation and evaluation of privacy preserving synthetic health
  data", Neurocomputing 2020, eq. 1): AA = 1/2 [ mean_i 1(d_RS(i) > d_RR(i))
  + mean_j 1(d_SR(j) > d_SS(j)) ]; the privacy loss is AA(holdout) - AA(real).
* **Epsilon-identifiability** (Yoon, Drumright & van der Schaar, "Anonymization through data
  synthesis using generative adversarial networks (ADS-GAN)", IEEE JBHI 2020, Definition 1):
  share of real records whose nearest synthetic record is closer than their nearest other real
  record, under a distance weighted by the inverse entropy of each column.
* **Hitting rate** (Sajjadi et al., as in SynthEval): share of real records with a synthetic
  record equal on every categorical column and within ``thres_percent`` x the real range on
  every numeric column.

Every function takes :class:`~capkit.distance.neighbours.Encoded` tables from
:func:`~capkit.distance.neighbours.joint_encode` and returns plain floats; where SynthEval's
choice is a bug, capkit's default is the corrected one and an argument reproduces SynthEval
(``docs/syntheval-differences.md``).
"""

from __future__ import annotations

import math

import numpy as np

from capkit.counts.encode import combine_codes
from capkit.distance.neighbours import Encoded, Weights, k_nearest, legacy_state
from capkit.errors import CapkitError

#: Record pairs compared at once by the hitting rate.
HIT_PAIR_BATCH = 2**21


def median_dcr_ratio(real: Encoded, synthetic: Encoded, *, zero_internal: str = "inf",
                     self_rule: str = "identity") -> float:
    """median_j DCR(s_j, R) / median_i DCR(r_i, R without r_i).

    ``zero_internal``: the value when the real median is 0 and the synthetic one is not:
    ``"inf"`` (capkit: the synthetic records are infinitely farther than the real ones are
    from each other) or ``"syntheval"`` (0, SynthEval 1.7.3's value, its least private score).
    Both medians 0 give 1.
    """
    if zero_internal not in ("inf", "syntheval"):
        raise CapkitError(f"zero_internal must be 'inf' or 'syntheval', got {zero_internal!r}")
    return median_ratio(k_nearest(synthetic, real, 1, self_rule=self_rule)[:, 0],
                        k_nearest(real, real, 1, self_rule=self_rule, same=True)[:, 0],
                        zero_internal)


def median_ratio(mutual: np.ndarray, internal: np.ndarray, zero_internal: str) -> float:
    """The median of the synthetic records' nearest distances to the real ones over the median of
    the real records' nearest distances among themselves, with :func:`median_dcr_ratio`'s rule
    when the latter is 0 (one rule for every distance)."""
    mut, inner = float(np.median(mutual)), float(np.median(internal))
    if inner != 0:
        return mut / inner
    if mut == 0:
        return 1.0
    return 0.0 if zero_internal == "syntheval" else math.inf


def _ratio(a: Encoded, b: Encoded, self_rule: str) -> np.ndarray:
    d = k_nearest(a, b, 2, self_rule=self_rule)
    return np.where(d[:, 0] == 0, 0.0, d[:, 0] / (d[:, 1] + 1e-16))


def nndr(real: Encoded, synthetic: Encoded, holdout: Encoded | None = None, *,
         per: str = "synthetic", self_rule: str = "identity") -> dict[str, float]:
    """Mean nearest-neighbour distance ratio d1 / (d2 + 1e-16) and its standard error.

    ``per="synthetic"``: one ratio per synthetic record against the real records (and, for the
    privacy loss, against the holdout); ``per="real"``: SynthEval's direction, one per real
    record against the synthetic records (and per holdout record). Returns ``avg``, ``err``
    (sd / sqrt(n)) and, with a holdout, ``priv_loss`` = holdout mean - real mean and
    ``priv_loss_err`` (both errors combined).
    """
    if per not in ("synthetic", "real"):
        raise CapkitError(f"per must be 'synthetic' or 'real', got {per!r}")
    ratio = _ratio(real, synthetic, self_rule) if per == "real" else _ratio(synthetic, real,
                                                                            self_rule)
    avg, err = float(np.mean(ratio)), float(np.std(ratio, ddof=1) / np.sqrt(len(ratio)))
    out = {"avg": avg, "err": err}
    if holdout is not None:
        other = (_ratio(holdout, synthetic, self_rule) if per == "real"
                 else _ratio(synthetic, holdout, self_rule))
        other_err = np.std(other, ddof=1) / np.sqrt(len(other))
        out["priv_loss"] = float(np.mean(other) - avg)
        out["priv_loss_err"] = float(np.sqrt(other_err**2 + err**2))
    return out


def _self_distance(a: Encoded, self_rule: str, weights: Weights | None = None,
                   total: float | None = None) -> np.ndarray:
    return k_nearest(a, a, 1, self_rule=self_rule, same=True, weights=weights, total=total)[:, 0]


def adversarial_accuracy(a: Encoded, b: Encoded, *, self_rule: str = "identity",
                         a_self: np.ndarray | None = None, b_self: np.ndarray | None = None,
                         weights: Weights | None = None, total: float | None = None) -> float:
    """Yale et al.'s AA(A, B): 1/2 [share of A closer to A than to B + the same for B].

    ``a_self`` / ``b_self``: each table's distances to its own nearest record, when known.
    ``weights``, ``total``: column weights of the distance and its denominator (default 1 and
    their sum; see :func:`~capkit.distance.neighbours.k_nearest`)."""
    a_self = _self_distance(a, self_rule, weights, total) if a_self is None else a_self
    b_self = _self_distance(b, self_rule, weights, total) if b_self is None else b_self
    left = np.mean(k_nearest(a, b, 1, self_rule=self_rule, weights=weights, total=total)[:, 0]
                   > a_self)
    right = np.mean(k_nearest(b, a, 1, self_rule=self_rule, weights=weights, total=total)[:, 0]
                    > b_self)
    return float(0.5 * (left + right))


def _balanced_aa(a: Encoded, b: Encoded, n_resample: int, state: np.random.RandomState,
                 self_rule: str) -> tuple[float, float]:
    """AA(A, B), or its mean over ``n_resample`` size-balanced subsamples when one table is at
    least twice the other (SynthEval's rule); the draws are ``state.permutation(n)[:m]``."""
    ab, ba = len(a) / len(b), len(b) / len(a)
    if ab < 2 and ba < 2:
        return adversarial_accuracy(a, b, self_rule=self_rule), 0.0
    values = []
    # the side that is not subsampled keeps its own nearest distances in every round
    a_self = _self_distance(a, self_rule) if ab < 2 else None
    b_self = _self_distance(b, self_rule) if ba < 2 else None
    for _ in range(n_resample):
        a_draw = a if ab < 2 else a.rows(state.permutation(len(a))[:len(b)])
        b_draw = b if ba < 2 else b.rows(state.permutation(len(b))[:len(a)])
        values.append(adversarial_accuracy(a_draw, b_draw, self_rule=self_rule,
                                           a_self=a_self, b_self=b_self))
    return float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(len(values)))


def nnaa(real: Encoded, synthetic: Encoded, holdout: Encoded | None = None, *,
         n_resample: int = 30, seed: int | np.random.RandomState | None = 0,
         self_rule: str = "identity") -> dict[str, float]:
    """Nearest-neighbour adversarial accuracy of real vs synthetic, and the holdout's excess.

    Tables are compared as they are when within a 2:1 size ratio; otherwise the larger one is
    subsampled to the smaller's size ``n_resample`` times (without replacement) and the
    accuracies averaged (``err`` = sd / sqrt(n_resample)). ``seed`` is the legacy NumPy
    ``RandomState`` the draws come from (real-vs-synthetic draws first, then holdout-vs-
    synthetic): ``numpy.random.seed(s)`` before SynthEval's call is ``seed=s`` here.
    Returns ``avg``, ``err`` and, with a holdout, ``priv_loss`` = AA(holdout) - AA(real) and
    ``priv_loss_err``.
    """
    return nnaa_with(_balanced_aa, real, synthetic, holdout, n_resample=n_resample, seed=seed,
                     self_rule=self_rule)


def nnaa_with(balanced, real, synthetic, holdout, *, n_resample: int,
              seed: int | np.random.RandomState | None, self_rule: str) -> dict[str, float]:
    """:func:`nnaa` with the balanced accuracy of one distance: ``balanced(a, b, n_resample,
    state, self_rule)`` returns (mean, standard error); the draws come from one ``RandomState``
    (real-vs-synthetic first, then holdout-vs-synthetic), as SynthEval draws them."""
    if int(n_resample) < 2:
        raise CapkitError(f"n_resample must be an integer >= 2, got {n_resample!r}")
    state = legacy_state(seed)
    avg, err = balanced(real, synthetic, int(n_resample), state, self_rule)
    out = {"avg": avg, "err": err}
    if holdout is not None:
        h_avg, h_err = balanced(holdout, synthetic, int(n_resample), state, self_rule)
        out["priv_loss"] = h_avg - avg
        out["priv_loss_err"] = float(np.sqrt(h_err**2 + err**2))
    return out


def entropy(counts: np.ndarray) -> float:
    """Shannon entropy (natural log) of a vector of counts, the float
    ``scipy.stats.entropy(counts)`` returns (scipy 1.17), without importing scipy.stats.

    As scipy: p = counts / sum(counts), then ``sum(entr(p))`` by numpy's sum, entr(x) =
    -x log(x) (0 at 0) with the C library's ``log``, which ``math.log`` calls too. The logarithm
    is taken once per distinct share (at most sqrt(2 sum(counts)) of them: distinct counts
    summing to at most the total).
    """
    counts = np.asarray(counts)
    p = counts / np.sum(counts, axis=0, keepdims=True)
    values, inverse = np.unique(p, return_inverse=True)
    logs = np.array([math.log(v) if v > 0 else 0.0 for v in values.tolist()])
    vec = np.where(p > 0, -p * logs[inverse.reshape(p.shape)], 0.0)
    return float(np.sum(vec, axis=0))


def entropy_weights(real: Encoded, order: np.ndarray, *, raw_numeric: np.ndarray | None = None
                    ) -> tuple[Weights, float]:
    """Yoon et al.'s column weights 1 / (H_k + 1e-16), H_k the Shannon entropy (natural log)
    of column k over the real records, and their total in data column order.

    ``raw_numeric``: the numeric columns' entropies are taken over these values (capkit's
    default: the distinct values of the variable). Without it they are taken, as SynthEval
    does, over the *rounded scaled* values, i.e. over "below or above the middle of the joint
    range" (a column whose real values all lie below the middle gets weight 1e16).
    """
    def weight(values: np.ndarray) -> float:
        _, counts = np.unique(values, return_counts=True)
        return 1 / (entropy(counts) + 1e-16)

    w_cat = np.array([weight(np.round(real.cat[:, k])) for k in range(real.cat.shape[1])])
    source = np.round(real.num) if raw_numeric is None else raw_numeric
    w_num = np.array([weight(source[:, k]) for k in range(real.num.shape[1])])
    weights = Weights(w_cat, w_num)
    return weights, float(np.sum(weights.all_weights(order)))


def epsilon_identifiability(real: Encoded, synthetic: Encoded, holdout: Encoded | None = None,
                            *, weights: Weights, total: float, self_rule: str = "identity",
                            holdout_denominator: str = "holdout") -> dict[str, float]:
    """Share of real records closer to a synthetic record than to any other real record.

    eps = #{i : d(r_i, S) < d(r_i, R without r_i)} / n_R under the weighted Gower distance
    (``weights`` from :func:`entropy_weights`). With a holdout, ``priv_loss`` = eps minus the
    same share for the holdout records (against the holdout and the synthetic data), divided by
    n_H (``holdout_denominator="holdout"``) or, as SynthEval 1.7.3 does, by n_R
    (``"real"``).
    """
    if holdout_denominator not in ("holdout", "real"):
        raise CapkitError("holdout_denominator must be 'holdout' or 'real', got "
                          f"{holdout_denominator!r}")

    def closer(a: Encoded) -> int:
        inside = k_nearest(a, a, 1, weights=weights, total=total, self_rule=self_rule,
                           same=True)[:, 0]
        outside = k_nearest(a, synthetic, 1, weights=weights, total=total,
                            self_rule=self_rule)[:, 0]
        return int(np.sum(outside - inside < 0))

    out = {"eps_risk": closer(real) / float(len(real))}
    if holdout is not None:
        n = len(holdout) if holdout_denominator == "holdout" else len(real)
        out["priv_loss"] = float(out["eps_risk"] - closer(holdout) / float(n))
    return out


def hitting_rate(real: Encoded, synthetic: Encoded, thres_percent: float = 1 / 30, *,
                 pair_batch: int = HIT_PAIR_BATCH) -> float:
    """Share of real records "hit" by a synthetic record: equal categorical codes and
    |r_k - s_k| <= thres_percent * (max_k - min_k over the real records) on every numeric
    column (on the encoded values, as SynthEval). Only pairs sharing the categorical
    combination are compared, in batches; no Python loop over records."""
    if not np.isfinite(thres_percent) or not 0 <= thres_percent <= 1:
        raise CapkitError(f"thres_percent must be a share of the range in [0, 1], got "
                          f"{thres_percent!r}")
    thr = thres_percent * (real.num.max(axis=0) - real.num.min(axis=0))
    pc = real.cat.shape[1]
    if pc:
        cards = [int(max(real.cat[:, k].max(), synthetic.cat[:, k].max())) + 1 for k in range(pc)]
        g_r, g_s, _ = combine_codes([real.cat[:, k] for k in range(pc)],
                                    [synthetic.cat[:, k] for k in range(pc)], cards)
    else:
        g_r = np.zeros(len(real), dtype=np.int64)
        g_s = np.zeros(len(synthetic), dtype=np.int64)
    size = int(max(g_r.max(), g_s.max())) + 1
    s_count = np.bincount(g_s, minlength=size)
    s_start = np.concatenate([[0], np.cumsum(s_count)[:-1]])
    s_order = np.argsort(g_s, kind="stable")
    hit = np.zeros(len(real), dtype=bool)
    sizes = s_count[g_r]
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if len(ends) else 0
    for first in range(0, total, pair_batch):
        e = np.arange(first, min(first + pair_batch, total), dtype=np.int64)
        r_idx = np.searchsorted(ends, e, side="right")
        offset = e - (ends[r_idx] - sizes[r_idx])
        s_idx = s_order[s_start[g_r[r_idx]] + offset]
        ok = np.ones(len(e), dtype=bool)
        for k in range(real.num.shape[1]):
            ok &= np.abs(real.num[r_idx, k] - synthetic.num[s_idx, k]) <= thr[k]
        hit[r_idx[ok]] = True
    return float(hit.sum() / len(real))


__all__ = ["HIT_PAIR_BATCH", "adversarial_accuracy", "entropy", "entropy_weights",
           "epsilon_identifiability", "hitting_rate", "median_dcr_ratio", "median_ratio", "nnaa",
           "nnaa_with", "nndr"]
