"""Run pycanon 1.3.6's nine anonymity levels on drawn tables (in pycanon's own venv).

For each seed: draw a table (draw.py: text and integer columns with few levels, a count, a
number rounded to halves; ties and small classes everywhere; missing text values in some
cases) and call k_anonymity, alpha_k_anonymity, l_diversity, entropy_l_diversity,
recursive_c_l_diversity, basic and enhanced beta_likeness, delta_disclosure and t_closeness
for three quasi-identifier sets and several sensitive sets, with gen=True and gen=False.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import draw  # noqa: E402

NINE = ["alpha_k_anonymity", "l_diversity", "entropy_l_diversity", "recursive_c_l_diversity",
        "basic_beta_likeness", "enhanced_beta_likeness", "delta_disclosure", "t_closeness"]
QI = [["c1", "k"], ["c1", "c2", "k"], ["k", "count"]]
SA = [["c2"], ["count"], ["half"], ["c2", "half"]]


def plain(value: object) -> object:
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def main() -> None:
    args = draw.arguments()
    import pycanon
    from pycanon import anonymity

    for seed in args.seeds:
        rng = np.random.default_rng(50_000 + seed)
        n = int(rng.integers(40, 200))
        data = draw.population(rng, n, n_levels=int(rng.integers(2, 5)))
        data = data.drop(columns=["cont"])
        if seed % 3 == 0:  # missing text values in a third of the cases
            data["c2"] = data["c2"].where(rng.random(n) > 0.1, None)
        calls = []
        for qi in QI:
            calls.append({"function": "k_anonymity", "qi": qi, "sa": None, "gen": None})
            for sa in SA:
                if set(sa) & set(qi):
                    continue
                for gen in ((True, False) if len(sa) > 1 else (True,)):
                    for function in NINE:
                        calls.append({"function": function, "qi": qi, "sa": sa, "gen": gen})
        for call in calls:
            fn = getattr(anonymity, call["function"])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    if call["sa"] is None:
                        result = fn(data, call["qi"])
                    else:
                        result = fn(data, call["qi"], call["sa"], gen=call["gen"])
                    call["result"], call["error"] = plain(result), None
                except Exception as exc:  # noqa: BLE001 - stored: capkit must refuse too
                    call["result"], call["error"] = None, f"{type(exc).__name__}: {exc}"[:300]
        case = {"peer": "pycanon", "version": getattr(pycanon, "__version__", "1.3.6"),
                "seed": seed, "table": draw.to_json(data), "calls": calls}
        path = args.out / f"pycanon_{seed}.json.gz"
        draw.write_case(path, case)
        print(path, flush=True)


if __name__ == "__main__":
    main()
