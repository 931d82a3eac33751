"""capkit.sdmetrics against SDMetrics 0.32 on the same frames, timed in the same run.

* CategoricalCAP and CategoricalZeroCAP on 50,000 real x 50,000 synthetic rows;
* CategoricalGeneralizedCAP on 20,000 x 20,000 rows.

Frames: 4 categorical key fields (text; 12, 2, 25 and 8 levels, skewed so that part of the real
keys has no synthetic match) and 2 sensitive fields (5 and 3 levels), seeded. capkit's time is
the best of 5 runs; SDMetrics runs once (it takes minutes). The scores of both are printed and
must agree to 1e-12.

Usage::

    python benchmarks/bench_compat.py                 # full sizes, SDMetrics timed for real
    python benchmarks/bench_compat.py --sdmetrics-rows 5000

With ``--sdmetrics-rows`` SDMetrics is timed on frames of that size only, and its full-size time
is *extrapolated* (linearly in real rows for CAP/ZeroCAP, whose cost is one lookup per real and
per synthetic row; linearly in real rows x synthetic keys for GeneralizedCAP); the output says
so. Goal: ratio >= 1000x in every case.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from capkit import sdmetrics as compat

KEYS = {"age": 12, "sex": 2, "region": 25, "job": 8}
SENSITIVE = {"party": 5, "health": 3}


def make_frame(n: int, rng: np.random.Generator, skew: float) -> pd.DataFrame:
    columns = {}
    for name, levels in {**KEYS, **SENSITIVE}.items():
        p = np.arange(1, levels + 1, dtype=float) ** -skew
        columns[name] = rng.choice([f"{name}{i}" for i in range(levels)], n, p=p / p.sum())
    return pd.DataFrame(columns).astype(object)


def best_of(fn, repeat: int = 5) -> tuple[float, float]:
    times, value = [], float("nan")
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def sdmetrics_run(name: str, real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[float, float]:
    from sdmetrics import single_table

    metric = getattr(single_table, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        value = metric.compute(real_data=real, synthetic_data=synthetic,
                               key_fields=list(KEYS), sensitive_fields=list(SENSITIVE))
    return time.perf_counter() - start, value


def n_keys(frame: pd.DataFrame) -> int:
    return len(frame[list(KEYS)].drop_duplicates())


def case(ours, name: str, n: int, sdm_rows: int | None, seed: int) -> None:
    rng = np.random.default_rng(seed)
    real, synthetic = make_frame(n, rng, 0.6), make_frame(n, rng, 1.2)
    t_ours, v_ours = best_of(
        lambda: ours.compute(real, synthetic, key_fields=list(KEYS),
                             sensitive_fields=list(SENSITIVE)))
    print(f"\n{name}: {n:,} real x {n:,} synthetic rows, "
          f"{n_keys(real):,} / {n_keys(synthetic):,} distinct real / synthetic keys")
    print(f"  capkit    {t_ours:10.4f} s   score {v_ours:.15f}")
    if sdm_rows is None or sdm_rows >= n:
        t_sdm, v_sdm = sdmetrics_run(name, real, synthetic)
        print(f"  SDMetrics {t_sdm:10.2f} s   score {v_sdm:.15f}   (timed at full size)")
        print(f"  |difference| = {abs(v_ours - v_sdm):.2e} (must be <= 1e-12)")
    else:
        small_rng = np.random.default_rng(seed)
        real_s, syn_s = make_frame(sdm_rows, small_rng, 0.6), make_frame(sdm_rows, small_rng, 1.2)
        t_small, v_sdm = sdmetrics_run(name, real_s, syn_s)
        v_check = ours.compute(real_s, syn_s, key_fields=list(KEYS),
                               sensitive_fields=list(SENSITIVE))
        if name == "CategoricalGeneralizedCAP":
            factor = (n / sdm_rows) * (n_keys(synthetic) / n_keys(syn_s))
            how = "real rows x synthetic keys"
        else:
            factor = n / sdm_rows
            how = "rows"
        t_sdm = t_small * factor
        print(f"  SDMetrics {t_sdm:10.2f} s   EXTRAPOLATED from {t_small:.2f} s at {sdm_rows:,} "
              f"rows (x{factor:.1f}, linear in {how})")
        print(f"  at {sdm_rows:,} rows: |capkit - SDMetrics| = {abs(v_check - v_sdm):.2e}")
    print(f"  ratio SDMetrics / capkit: {t_sdm / t_ours:,.0f}x (goal >= 1000x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdmetrics-rows", type=int, default=None,
                        help="time SDMetrics on this many rows and extrapolate")
    parser.add_argument("--only", choices=["cap", "zerocap", "generalized"], default=None)
    args = parser.parse_args()
    cases = [
        ("cap", compat.CategoricalCAP, "CategoricalCAP", 50_000),
        ("zerocap", compat.CategoricalZeroCAP, "CategoricalZeroCAP", 50_000),
        ("generalized", compat.CategoricalGeneralizedCAP, "CategoricalGeneralizedCAP", 20_000),
    ]
    for key, ours, name, n in cases:
        if args.only in (None, key):
            case(ours, name, n, args.sdmetrics_rows, seed=2024)


if __name__ == "__main__":
    main()
