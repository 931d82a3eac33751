"""Run anonymeter 1.1.0's risk statistics on drawn counts (in anonymeter's own venv).

anonymeter's attacks end in ``EvaluationResults(n_attacks, n_success, n_baseline, n_control,
confidence_level)``: Wilson rates, the residual risk against the control and its interval.
For each seed this draws 60 random count sets (one number of attacks or a (main, baseline,
control) tuple; successes anywhere from 0 to all, a fractional control count as singling out's
size correction gives, no control; confidence levels between 0.5 and 0.999) and stores every
rate, risk, interval and warning anonymeter gives (or its error).

Attacks (``attacks_<seed>.json.gz``): a small drawn frame per seed (300 members, 300
synthetic, 300 control records; small integer ranges and repeated floats for ties, missing
values, strings with missing values). Stored: anonymeter's nearest neighbours of each half
(``_find_nn``, the search its linkability attack runs) for n_neighbors 1 and 3, each member's
links (``LinkabilityIndexes.find_links``) and the evaluator's totals on every record; the
inference attack's per-record guesses and successes (``KNNInferencePredictor`` and
``evaluate_inference_guesses``) for a categorical and a numeric secret, and the evaluator's
totals under ``np.random.seed`` (its baseline draws through numpy's global stream via pandas'
``sample``; on equal-sized frames with every record attacked the label-aligned baseline is
the same for any seed). Linkability's baseline draws from an unseeded ``default_rng()`` and
is not stored. Singling out: every query ``SinglingOutEvaluator(n_attacks=50, n_cols=3,
seed=<seed>)`` draws in both modes (main and baseline), as conditions, with anonymeter's own
counts on the deduplicated ori, control and syn frames, and the evaluator's totals.
"""

from __future__ import annotations

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


def frame(rng: np.random.Generator, n: int):
    import pandas as pd

    def cat(levels: int) -> np.ndarray:
        out = rng.choice([f"c{j}" for j in range(levels)], n).astype(object)
        out[rng.random(n) < 0.05] = None
        return out

    age = rng.integers(18, 30, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({"age": age, "hours": rng.choice([10.0, 20.5, 40.0, 45.25], n),
                         "income": np.round(rng.gamma(2.0, 3.0, n), 1) + 1.0,
                         "city": cat(4), "job": cat(3), "sex": rng.choice(["F", "M"], n)})


AUX = (["age", "city", "sex"], ["hours", "job", "income"])
INF_AUX = ["age", "hours", "city", "sex"]


def attacks(seed: int) -> dict:
    from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator
    from anonymeter.evaluators.inference_evaluator import evaluate_inference_guesses
    from anonymeter.evaluators.linkability_evaluator import LinkabilityIndexes, _find_nn
    from anonymeter.neighbors.mixed_types_kneighbors import KNNInferencePredictor

    rng = np.random.default_rng(70_000 + seed)
    ori, syn, ctl = frame(rng, 300), frame(rng, 300), frame(rng, 300)
    link = {}
    for k in (1, 3):
        sides = {}
        for name, target in (("ori", ori), ("control", ctl)):
            idx = [_find_nn(syn=syn[cols], ori=target[cols], n_jobs=1, n_neighbors=k)
                   for cols in AUX]
            links = LinkabilityIndexes(idx_0=idx[0], idx_1=idx[1]).find_links(k)
            sides[name] = {"nn_a": idx[0].tolist(), "nn_b": idx[1].tolist(),
                           "linked": [int(len(links.get(i, ())) > 0)
                                      for i in range(len(target))]}
        ev = LinkabilityEvaluator(ori, syn, AUX, n_attacks=None, n_neighbors=k, control=ctl)
        np.random.seed(seed)  # noqa: NPY002 - anonymeter samples from the global stream
        res = ev.evaluate(n_jobs=1).results()
        sides["n_success"], sides["n_control"] = int(res.n_success), float(res.n_control)
        link[str(k)] = sides
    inference = {}
    for secret, regression in (("job", False), ("income", True)):
        sides = {}
        for name, target in (("ori", ori), ("control", ctl)):
            guesses = KNNInferencePredictor(data=syn, columns=INF_AUX, target_col=secret,
                                            n_jobs=1).predict(target).reindex_like(target)
            ok = evaluate_inference_guesses(guesses=guesses, secrets=target[secret],
                                            regression=regression)
            sides[name] = {"guess": [None if pd_isnull(g) else g for g in guesses.tolist()],
                           "success": [int(v) for v in ok]}
        ev = InferenceEvaluator(ori, syn, INF_AUX, secret, regression=regression,
                                n_attacks=len(ori), control=ctl)
        np.random.seed(seed)  # noqa: NPY002 - anonymeter samples from the global stream
        res = ev.evaluate(n_jobs=1).results()
        sides.update(n_success=int(res.n_success), n_baseline=int(res.n_baseline),
                     n_control=int(res.n_control), random_seed=seed)
        inference[secret] = {"regression": regression, **sides}
    return {"frames": {name: df.astype(object).where(df.notna(), None).to_dict("list")
                       for name, df in (("ori", ori), ("syn", syn), ("control", ctl))},
            "aux_linkability": [list(c) for c in AUX], "aux_inference": INF_AUX,
            "linkability": link, "inference": inference,
            "singling_out": singling_out(seed, ori, syn, ctl)}


OPS = {"Eq": "==", "NotEq": "!=", "GtEq": ">=", "LtEq": "<=", "Gt": ">", "Lt": "<"}


def _literal(node):
    while isinstance(node, dict):
        (key, node), = node.items()
        if key == "Null":
            return None
    return node


def conditions(node) -> list:
    """anonymeter's polars query (its JSON serialisation) as [column, op, value] conditions."""
    if "BinaryExpr" in node:
        b = node["BinaryExpr"]
        if b["op"] == "And":
            return conditions(b["left"]) + conditions(b["right"])
        return [[b["left"]["Column"], OPS[b["op"]], _literal(b["right"]["Literal"])]]
    f = node["Function"]
    kind = f["function"]["Boolean"]
    if kind == "IsNull":
        return [[f["input"][0]["Column"], "is_null"]]
    inner = f["input"][0]["Function"]  # Not(IsNull(col))
    assert kind == "Not" and inner["function"]["Boolean"] == "IsNull", node
    return [[inner["input"][0]["Column"], "is_not_null"]]


def singling_out(seed: int, ori, syn, ctl) -> dict:
    """anonymeter's singling-out queries and its own match counts (deduplicated frames)."""
    import json

    from anonymeter.evaluators import SinglingOutEvaluator
    from anonymeter.evaluators import singling_out_evaluator as so

    out = {}
    for mode in ("univariate", "multivariate"):
        # every query the evaluator draws (``queries()`` keeps only the successful ones),
        # caught as ``evaluate`` makes them; univariate mode's order depends on polars'
        # unordered ``group_by``, so it is not replayable from the seed
        drawn: dict = {}

        def catch(name, func, drawn=drawn):
            def wrapper(*args, **kwargs):
                drawn[name] = func(*args, **kwargs)
                return drawn[name]
            return wrapper

        saved = so._generate_singling_out_queries, so._random_queries
        so._generate_singling_out_queries = catch("main", saved[0])
        so._random_queries = catch("baseline", saved[1])
        try:
            ev = SinglingOutEvaluator(ori, syn, n_attacks=50, n_cols=3, control=ctl, seed=seed)
            ev.evaluate(mode=mode)
        finally:
            so._generate_singling_out_queries, so._random_queries = saved
        main, base = drawn["main"], drawn["baseline"]
        _evaluate_queries = so._evaluate_queries
        rows = []
        for kind, queries in (("main", main), ("baseline", base)):
            counts = {name: _evaluate_queries(frame, queries)
                      for name, frame in (("ori", ev._ori), ("control", ev._control),
                                          ("syn", ev._syn))}
            for i, q in enumerate(queries):
                rows.append({"kind": kind, "polars_repr": str(q),
                             "conditions": conditions(json.loads(q.meta.serialize(
                                 format="json"))),
                             **{f"count_{k}": int(v[i]) for k, v in counts.items()}})
        res = ev.results()
        n_control_raw = sum(r["count_control"] == 1 for r in rows if r["kind"] == "main")
        out[mode] = {"queries": rows, "n_success": int(res.n_success),
                     "n_control_uncorrected": int(n_control_raw),
                     "n_baseline": int(res.n_baseline), "n_control": float(res.n_control),
                     "n_attacks": 50, "n_cols": 3, "seed": seed}
    return out


def pd_isnull(value) -> bool:
    import pandas as pd
    return bool(pd.isnull(value))


def main() -> None:
    args = draw.arguments()
    import anonymeter
    from anonymeter.stats.confidence import EvaluationResults

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
        draw.write_case(path, case)
        print(path, flush=True)
        if seed > 4:  # the attacks on the first four seeds keep the stored cases small
            continue
        case = {"peer": "anonymeter", "seed": seed, **attacks(seed)}
        path = args.out / f"attacks_{seed}.json.gz"
        draw.write_case(path, case)
        print(path, flush=True)


if __name__ == "__main__":
    main()
