"""Run anonymeter 1.1.0's risk statistics on drawn counts (in anonymeter's own venv).

anonymeter's attacks end in ``EvaluationResults(n_attacks, n_success, n_baseline, n_control,
confidence_level)``: Wilson rates, the residual risk against the control and its interval.
For each seed this draws 60 random count sets (one number of attacks or a (main, baseline,
control) tuple; successes anywhere from 0 to all, a fractional control count as singling out's
size correction gives, no control; confidence levels between 0.5 and 0.999) and stores every
rate, risk, interval and warning anonymeter gives (or its error).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import draw  # noqa: E402


def counts(rng: np.random.Generator) -> dict:
    if rng.random() < 0.3:
        n = tuple(int(x) for x in rng.integers(1, 3000, 3))
    else:
        n = int(rng.integers(1, 3000))
    main, base, ctrl = n if isinstance(n, tuple) else (n, n, n)

    def success(total: int) -> float:
        kind = rng.random()
        if kind < 0.1:
            return 0
        if kind < 0.2:
            return total
        return int(rng.integers(0, total + 1))

    control = None if rng.random() < 0.2 else success(ctrl)
    if control is not None and rng.random() < 0.2:
        control = float(np.round(rng.uniform(0, ctrl), 6))  # a size-corrected count
    return {"n_attacks": list(n) if isinstance(n, tuple) else n, "n_success": success(main),
            "n_baseline": success(base), "n_control": control,
            "confidence_level": float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 0.999]))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--seeds", required=True, type=int, nargs="+")
    args = parser.parse_args()
    import anonymeter
    from anonymeter.stats.confidence import EvaluationResults

    args.out.mkdir(parents=True, exist_ok=True)
    for seed in args.seeds:
        rng = np.random.default_rng(60_000 + seed)
        calls = []
        for _ in range(60):
            kwargs = counts(rng)
            given = {**kwargs, "n_attacks": tuple(kwargs["n_attacks"])
                     if isinstance(kwargs["n_attacks"], list) else kwargs["n_attacks"]}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    got = EvaluationResults(**given)
                    risk, risk_base = got.risk(), got.risk(baseline=True)
                    out = {"attack_rate": list(got.attack_rate),
                           "baseline_rate": list(got.baseline_rate),
                           "control_rate": None if got.control_rate is None
                           else list(got.control_rate),
                           "risk": [risk.value, list(risk.ci)],
                           "risk_baseline": [risk_base.value, list(risk_base.ci)],
                           "error": None}
                except Exception as exc:  # noqa: BLE001 - stored: capkit must refuse too
                    out = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            out["warnings"] = [str(w.message) for w in caught]
            calls.append({"kwargs": kwargs, **out})
        case = {"peer": "anonymeter", "version": anonymeter.__version__ if hasattr(
            anonymeter, "__version__") else "1.1.0", "seed": seed, "calls": calls}
        path = args.out / f"anonymeter_{seed}.json.gz"
        with gzip.GzipFile(path, "wb", mtime=0) as handle:
            handle.write(draw.dumps(case).encode())
        print(path, flush=True)


if __name__ == "__main__":
    main()
