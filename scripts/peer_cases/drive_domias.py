"""Run domias 0.0.5's scores on drawn cases (in domias' own venv; see peer_cases.py).

For each seed: draw members, non-members, reference and synthetic records (draw.py, numeric
columns only, as domias needs: an integer with three values, a count, a number rounded to
halves and a continuous one; ties everywhere; population twins between members and
non-members; verbatim and noisy copies of members in the synthetic data), then compute with
domias' own functions, X_test = members then non-members: GAN-Leaks, its calibrated form, MC
(``domias.baselines``), the KDE ablations eq1 and eq2 (``kde_baseline``) and DOMIAS-KDE's ratio
p_G / (p_R + 1e-10) with scipy's gaussian_kde as ``evaluate_performance`` builds it, and each
score's accuracy and AUC (``compute_metrics_baseline``). Arrays are passed C-ordered.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import draw  # noqa: E402

COLUMNS = ["k", "count", "half", "cont"]


def settings(seed: int) -> dict:
    rng = np.random.default_rng(30_000 + seed)
    return {"n_members": int(rng.integers(60, 150)), "n_nonmembers": int(rng.integers(40, 100)),
            "n_reference": int(rng.integers(60, 150)),
            "syn_ratio": float(rng.choice([0.7, 1.0, 1.5])), "twins": int(rng.integers(1, 6)),
            "copies": float(rng.choice([0.0, 0.2, 0.4]))}


def main() -> None:
    args = draw.arguments()
    from domias import baselines as bl
    from scipy import stats

    for seed in args.seeds:
        s = settings(seed)
        tables = draw.draw_case(seed, n_real=s["n_members"],
                                n_holdout=s["n_nonmembers"] + s["n_reference"],
                                syn_ratio=s["syn_ratio"], twins=0, copies=s["copies"])
        rng = np.random.default_rng(40_000 + seed)
        members = tables["real"][COLUMNS].astype(float)
        holdout = tables["holdout"][COLUMNS].astype(float)
        nonmembers = holdout.iloc[:s["n_nonmembers"]].reset_index(drop=True)
        reference = holdout.iloc[s["n_nonmembers"]:].reset_index(drop=True)
        slots = rng.choice(len(nonmembers), s["twins"], replace=False)
        rows = rng.choice(len(members), s["twins"], replace=False)
        nonmembers.iloc[slots] = members.iloc[rows].to_numpy()  # population twins
        synthetic = tables["synthetic"][COLUMNS].astype(float)
        x_test = np.ascontiguousarray(np.concatenate([members.to_numpy(),
                                                      nonmembers.to_numpy()]))
        y_test = np.r_[np.ones(len(members)), np.zeros(len(nonmembers))]
        x_g = np.ascontiguousarray(synthetic.to_numpy())
        x_r = np.ascontiguousarray(reference.to_numpy())
        score = {"gan_leaks": bl.GAN_leaks(x_test, x_g),
                 "gan_leaks_cal": bl.GAN_leaks_cal(x_test, x_g, x_r),
                 "MC": bl.MC(x_test, x_g)}
        score["ablated_eq1"], score["ablated_eq2"] = bl.kde_baseline(x_test, x_g, x_r)
        p_g = stats.gaussian_kde(x_g.transpose(1, 0))(x_test.transpose(1, 0))
        p_r = stats.gaussian_kde(x_r.transpose(1, 0))(x_test.transpose(1, 0))
        score["domias_kde"] = p_g / (p_r + 1e-10)
        metrics = {}
        for name, values in score.items():
            acc, auc = bl.compute_metrics_baseline(values, y_test)
            metrics[name] = {"accuracy": float(acc), "aucroc": float(auc)}
        case = {"peer": "domias", "seed": seed, "settings": s, "twin_rows": rows.tolist(),
                "twin_slots": slots.tolist(),
                "tables": {"members": draw.to_json(members),
                           "nonmembers": draw.to_json(nonmembers),
                           "reference": draw.to_json(reference),
                           "synthetic": draw.to_json(synthetic)},
                "scores": {k: np.asarray(v, dtype=float).tolist() for k, v in score.items()},
                "metrics": metrics}
        path = args.out / f"domias_{seed}.json.gz"
        draw.write_case(path, case)
        print(path, flush=True)


if __name__ == "__main__":
    main()
