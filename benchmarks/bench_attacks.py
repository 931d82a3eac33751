"""Attribute attacks on Adult (capkit.attacks) against peers, timed in the same run.

Data: the Adult records with a known income (the 32,561 rows of the UCI training file, as in the
authors' public demonstration), 10 columns (8 quasi-identifiers, marital.status, income), split
in two seeded halves: members (synthesised once by capkit's CART, seeded; timed apart) and a
holdout.

Timed:

1. **"nn" on every member** (exact Gower 1-NN on the keys age, workclass, education,
   occupation, race, sex; lowest row index on ties), per attacked record, against scikit-learn's
   brute-force 1-NN (``NearestNeighbors(algorithm="brute", metric="manhattan")``) on the
   Gower-equivalent encoding (one-hot / 2, numeric / range: its L1 distance is p x Gower), also
   on every member. Check: the two nearest distances agree to 1e-12 on every record.
   anonymeter's InferenceEvaluator (the same 1-NN attack; it needs numpy < 1.27 and is not
   installed here) is quoted from times recorded when capkit's anonymeter reference was made
   (anonymeter 1.1, this machine's 2 vCPU): 20,000 records attacked with 4 categorical keys
   19.9 s, with 12 mixed keys 48.2 s; not the same run.
2. **"knn"** (5-NN on one-hot keys, fitted on the synthetic records) against SDMetrics 0.32's
   CategoricalKNN, which is the same classifier run one real row at a time, on the first
   ``--sdmetrics-rows`` members (keys workclass, education, occupation; target income): time
   per attacked record, and the score of both (must be equal).
3. **The whole baseline table**: 8 quasi-identifiers, key length 3 (56 key sets per target),
   targets income and marital.status, every default attacker trained on the synthetic and on
   the original data plus the dummy, scored on members and holdout (``baseline_table``, with its
   progress bar), and the time per attacker, to say what dominates.

Usage::

    python benchmarks/bench_attacks.py                      # everything
    python benchmarks/bench_attacks.py --sdmetrics-rows 500 --skip-table
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd
from _common import timed

from capkit import attacks
from capkit.attacks import baseline
from capkit.attacks.attackers import REGISTRY, with_options
from capkit.data.datasets import load_adult
from capkit.synth import syn

QUASI = ["age", "workclass", "education", "occupation", "relationship", "race", "sex",
         "native.country"]
TARGETS = ["income", "marital.status"]
NN_KEYS = ["age", "workclass", "education", "occupation", "race", "sex"]


def adult_split(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, float]:
    adult = load_adult(progress=False)
    adult = adult[adult["income"].notna()][QUASI + TARGETS].reset_index(drop=True)
    order = np.random.default_rng(seed).permutation(len(adult))
    half = len(adult) // 2
    members = adult.iloc[order[:half]].reset_index(drop=True)
    holdout = adult.iloc[order[half:]].reset_index(drop=True)
    start = time.perf_counter()
    synthetic = syn(members, seed=seed, progress=False).syn[0]
    return members, holdout, synthetic, time.perf_counter() - start


def gower_encoding(frame: pd.DataFrame, reference: pd.DataFrame) -> np.ndarray:
    """One-hot / 2 for categorical keys (missing = a level), value / range for numeric ones:
    the L1 distance of two rows is p x their Gower distance (ranges of ``reference``)."""
    blocks = []
    for key in NN_KEYS:
        if pd.api.types.is_numeric_dtype(reference[key]):
            span = float(reference[key].max() - reference[key].min()) or 1.0
            blocks.append(frame[key].to_numpy(float)[:, None] / span)
        else:
            levels = pd.Index(reference[key].astype(object).fillna("<NA>").unique())
            codes = levels.get_indexer(frame[key].astype(object).fillna("<NA>"))
            block = np.zeros((len(frame), len(levels)))
            block[np.flatnonzero(codes >= 0), codes[codes >= 0]] = 0.5
            blocks.append(block)
    return np.hstack(blocks)


def bench_nn(members: pd.DataFrame, synthetic: pd.DataFrame) -> None:
    from sklearn.neighbors import NearestNeighbors

    n = len(members)
    t_ours, result = timed(lambda: attacks.attribute_attack(
        members, synthetic, NN_KEYS, "income", attacker="nn"), repeat=3)
    x_syn, x_mem = gower_encoding(synthetic, synthetic), gower_encoding(members, synthetic)

    def peer() -> tuple[np.ndarray, np.ndarray]:
        model = NearestNeighbors(n_neighbors=1, algorithm="brute", metric="manhattan")
        return model.fit(x_syn).kneighbors(x_mem)

    t_peer, (dist, index) = timed(peer, repeat=3)
    # capkit's nearest record: recompute its Gower distance to compare with the peer's
    ours = result.records["predicted"]
    from capkit import distance

    dcr = distance.dcr(members[NN_KEYS], synthetic[NN_KEYS])
    gap = np.abs(dcr.distance * len(NN_KEYS) - dist[:, 0]).max()
    same = float((synthetic["income"].to_numpy()[index[:, 0]] == ours.to_numpy()).mean())
    print(f"1. 'nn' attack on every member ({n:,} records, {len(synthetic):,} synthetic, "
          f"keys {', '.join(NN_KEYS)})")
    print(f"   capkit attribute_attack(attacker='nn'): {t_ours:.3f} s "
          f"({1e6 * t_ours / n:.1f} us per attacked record), rate {result.rate:.4f}")
    print(f"   sklearn brute-force 1-NN (manhattan on the Gower encoding): {t_peer:.3f} s "
          f"({1e6 * t_peer / n:.1f} us per record)  ratio {t_peer / t_ours:.1f}x")
    print(f"   nearest distances agree: max |p x Gower - L1| = {gap:.1e}; same guess on "
          f"{same:.2%} of records (the others are ties: sklearn's record is at the same, "
          "minimal distance, but not the lowest row capkit takes)")
    for label, seconds, records in (("4 categorical keys", 19.9, 20_000),
                                    ("12 mixed keys", 48.2, 20_000)):
        print(f"   anonymeter (recorded, not this run; {label}, {records:,} records): "
              f"{1e6 * seconds / records:.0f} us per record = "
              f"{seconds / records / (t_ours / n):.0f}x capkit's per-record time")


def bench_knn(members: pd.DataFrame, synthetic: pd.DataFrame, rows: int) -> None:
    from sdmetrics.single_table import CategoricalKNN

    keys, target = ["workclass", "education", "occupation"], "income"
    real = members[keys + [target]].iloc[:rows].reset_index(drop=True)
    syn_frame = synthetic[keys + [target]].reset_index(drop=True)
    to_text = {c: real[c].astype(object).where(real[c].notna(), "<NA>") for c in real}
    real_text = pd.DataFrame(to_text)
    syn_text = pd.DataFrame({c: syn_frame[c].astype(object).where(syn_frame[c].notna(), "<NA>")
                             for c in syn_frame})
    t_ours, result = timed(lambda: attacks.attribute_attack(
        real_text, syn_text, keys, target, attacker="knn"), repeat=3)
    # SDMetrics' encoding hands scikit-learn a sparse one-hot matrix: the same classifier, but
    # its k-NN breaks ties between equally distant neighbours differently on sparse input
    as_sdmetrics = with_options(REGISTRY["categorical"]["knn"], sparse=True)
    t_sparse, same_input = timed(lambda: attacks.attribute_attack(
        real_text, syn_text, keys, target, attacker=as_sdmetrics), repeat=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        score = CategoricalKNN.compute(real_text, syn_text, key_fields=keys,
                                       sensitive_fields=[target])
        t_peer = time.perf_counter() - start
    print(f"2. 'knn' on {rows:,} members (keys {', '.join(keys)}; target {target}; "
          f"fitted on {len(synthetic):,} synthetic records)")
    print(f"   capkit: {t_ours:.3f} s ({1e6 * t_ours / rows:.1f} us per record); SDMetrics "
          f"CategoricalKNN: {t_peer:.2f} s ({1e6 * t_peer / rows:.0f} us per record)  "
          f"ratio {t_peer / t_ours:.0f}x")
    verdict = "equal" if abs(score - (1 - same_input.rate)) <= 1e-12 else "DIFFERENT"
    print(f"   capkit with sparse=True (SDMetrics' input): {t_sparse:.3f} s; scores: SDMetrics "
          f"1 - accuracy = {score:.6f}, capkit sparse 1 - rate = {1 - same_input.rate:.6f} "
          f"({verdict}); capkit dense (default) {1 - result.rate:.6f} (other neighbour ties)")


def bench_table(members: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame) -> None:
    spent: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    original_run = baseline.run_attack

    def timed_run(grid, attacker, **options):  # the same call, with a stopwatch
        start = time.perf_counter()
        result = original_run(grid, attacker, **options)
        spent[result.attacker] += time.perf_counter() - start
        calls[result.attacker] += 1
        return result

    baseline.run_attack = timed_run
    try:
        start = time.perf_counter()
        table = attacks.baseline_table(members, synthetic, QUASI, TARGETS, key_length=3,
                                       holdout=holdout, seed=0, check_overlap=False)
        total = time.perf_counter() - start
    finally:
        baseline.run_attack = original_run
    attacked = table["n"].sum()
    print(f"3. baseline table: {table['keys'].nunique()} key sets per target x "
          f"{len(TARGETS)} targets, {len(table):,} rows, {attacked:,} record predictions scored")
    print(f"   total {total:.1f} s ({total / 60:.1f} min); time per attacker (both trainings):")
    share = pd.Series(spent).sort_values(ascending=False)
    for name, seconds in share.items():
        print(f"     {name:9s} {seconds:7.1f} s  {seconds / total:6.1%}  ({calls[name]} attacks)")
    print(f"   the rest (grid counting, scoring, control): {total - share.sum():.1f} s")
    summary = attacks.baseline_summary(table)
    rate = summary["rate mean"].unstack(["trained_on", "scored_on"]).round(3)
    print(rate.to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sdmetrics-rows", type=int, default=2000)
    parser.add_argument("--skip-table", action="store_true")
    args = parser.parse_args()
    members, holdout, synthetic, t_syn = adult_split(args.seed)
    print(f"Adult (known income): {len(members):,} members, {len(holdout):,} holdout, "
          f"{len(synthetic):,} synthetic records (CART synthesis {t_syn:.1f} s, not counted)")
    bench_nn(members, synthetic)
    bench_knn(members, synthetic, args.sdmetrics_rows)
    if not args.skip_table:
        bench_table(members, synthetic, holdout)


if __name__ == "__main__":
    main()
