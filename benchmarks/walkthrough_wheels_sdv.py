"""Step 1 of the wheel-table walk-through (run in its own venv with sdv and statsmodels).

Builds two real tables shipped inside the statsmodels wheel -- Fair's affairs survey (``fair``,
6,366 x 9; Fair, "A Theory of Extramarital Affairs", 1978) and the RAND Health Insurance
Experiment (``randhie``, 20,190 x 10, a seeded 8,000-row sample) -- splits each 70/30 into members
and holdout (seeded), and writes SDV GaussianCopula, SDV CTGAN (50 epochs) and a differentially
private independent-marginals synthesis (Laplace noise on each column's histogram, epsilon 1 split
evenly over the columns; numeric columns with more than 20 values binned in 20 equal-width bins
over the public range and drawn uniformly inside the bin) as CSV under OUT/<table>/.

    python -m venv /work/peers/sdv; pip install torch==2.13.0 sdv statsmodels
    python benchmarks/walkthrough_wheels_sdv.py /tmp/walk
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def tables():
    from statsmodels.datasets import fair, randhie
    f = fair.load_pandas().data
    f["affairs"] = f["affairs"].round(3)
    r = randhie.load_pandas().data.sample(8000, random_state=0).reset_index(drop=True)
    r = r.round(4)
    return {"fair": f, "randhie": r}


def dp_marginals(frame, epsilon=1.0, seed=0, bins=20):
    rng = np.random.default_rng(seed)
    eps = epsilon / frame.shape[1]
    out = {}
    for c in frame.columns:
        s = frame[c]
        vals = np.sort(s.unique())
        if len(vals) <= bins:
            counts = s.value_counts().reindex(vals, fill_value=0).to_numpy(float)
            noisy = np.clip(counts + rng.laplace(0, 1 / eps, len(vals)), 0, None)
            p = noisy / noisy.sum() if noisy.sum() > 0 else np.full(len(vals), 1 / len(vals))
            out[c] = rng.choice(vals, size=len(frame), p=p)
        else:
            edges = np.linspace(vals[0], vals[-1], bins + 1)
            counts = np.histogram(s, edges)[0].astype(float)
            noisy = np.clip(counts + rng.laplace(0, 1 / eps, bins), 0, None)
            p = noisy / noisy.sum()
            b = rng.choice(bins, size=len(frame), p=p)
            out[c] = np.round(rng.uniform(edges[b], edges[b + 1]), 4)
    return pd.DataFrame(out)


def _one(sample):
    return sample["t"] if isinstance(sample, dict) else sample


def main(root):
    import torch
    from sdv.metadata import Metadata
    from sdv.single_table import CTGANSynthesizer, GaussianCopulaSynthesizer
    for name, df in tables().items():
        d = Path(root) / name
        d.mkdir(parents=True, exist_ok=True)
        idx = np.random.default_rng(0).permutation(len(df))
        cut = int(round(0.7 * len(df)))
        members, holdout = df.iloc[idx[:cut]], df.iloc[idx[cut:]]
        members.to_csv(d / "members.csv", index=False)
        holdout.to_csv(d / "holdout.csv", index=False)
        meta = Metadata.detect_from_dataframes({"t": members})
        np.random.seed(0)  # noqa: NPY002 (SDV draws from numpy's global state)
        torch.manual_seed(0)
        gc = GaussianCopulaSynthesizer(meta)
        gc.fit({"t": members})
        _one(gc.sample(len(members))).to_csv(d / "gaussiancopula.csv", index=False)
        np.random.seed(0)  # noqa: NPY002 (SDV draws from numpy's global state)
        torch.manual_seed(0)
        ct = CTGANSynthesizer(meta, epochs=50, verbose=False)
        ct.fit({"t": members})
        _one(ct.sample(len(members))).to_csv(d / "ctgan.csv", index=False)
        dp_marginals(members).to_csv(d / "dp_marginals.csv", index=False)
        print(name, members.shape, holdout.shape, flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/walk")
