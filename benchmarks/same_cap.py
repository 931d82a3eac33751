"""The same answers as another checkout: every output of the CAP family on drawn cases.

Runs itself in two child processes, one importing this checkout's ``capkit`` and one another
checkout's (``--baseline DIR``, e.g. a ``git archive`` of main holding ``capkit/``), each
computing on the same seeded frames: ``crosstab``'s tables (dense and sparse), labels (with
their types, level dtypes and codes) and record cells (members, synthetic, holdout); average CAP
version 1 and 2 with and without a holdout (``repr`` of the floats: bit equality);
``correct_predictions``, ``baseline_cap``, ``individual_cap``; ``record_cap`` (with a holdout
and with ``dropna``); SDMetrics' CategoricalCAP, CategoricalZeroCAP and
CategoricalGeneralizedCAP; synthpop's ``disclosure`` (identity, attribute and DCAP/baseCAPd
tables). Frames: plain integers of several types (int64, int8 with negative values, uint16),
keys whose raw grid needs a key grid and a target grid (with unused target values, every key
and target used, a target of few values over a wide span), missing values and text, and
categoricals; synthetic keys absent from the original, tiny frames whose levels barely overlap
(the refusals' messages are compared too), ``dropna``, ``sparse_output``,
``allow_disjoint_levels``. ``--big`` adds the two 1M x 1M frames of ``bench_growth.py --family
cap`` (uniform and skewed keys, with a holdout). Exits 1 if any output differs.

Run: ``.venv/bin/python benchmarks/same_cap.py --baseline DIR [--big]``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _common import answers_here_and_there
from scipy import sparse

HERE = Path(__file__).resolve().parent


def _dense(table: object) -> object:
    if table is None:
        return None
    return (table.toarray(), "sparse") if sparse.issparse(table) else (table, str(table.dtype))


def _table(t: object) -> dict:
    keys = t.keys
    return dict(o=_dense(t.original), s=_dense(t.synthetic), h=_dense(t.holdout),
                rc=t.record_cell, src=t.synthetic_record_cell, hrc=t.holdout_record_cell,
                targets=(repr(t.targets.tolist()), str(t.targets.dtype), str(t.targets.names),
                         str(type(t.targets))),
                keys=(repr(keys.tolist()), str([lv.dtype for lv in keys.levels]),
                      str(keys.names), str([np.asarray(c).tolist() for c in keys.codes]),
                      str([c.dtype for c in keys.codes])))


def _frames(seed: int, n: int, m: int, kind: str) -> tuple[pd.DataFrame, ...]:
    rng = np.random.default_rng(seed)

    def one(k: int) -> pd.DataFrame:
        draws = {
            "int64": lambda: {"a": rng.integers(0, 6, k), "b": rng.integers(-3, 4, k),
                              "c": rng.integers(0, 3, k), "t": rng.integers(0, 4, k)},
            "int8": lambda: {"a": rng.integers(-5, 5, k).astype("int8"),
                             "b": rng.integers(0, 3, k).astype("int8"),
                             "c": rng.integers(0, 2, k).astype("int8"),
                             "t": rng.integers(-2, 2, k).astype("int8")},
            "uint16": lambda: {"a": rng.integers(2, 9, k).astype("uint16"),
                               "b": rng.integers(0, 3, k).astype("uint16"),
                               "c": rng.integers(0, 2, k).astype("uint16"),
                               "t": rng.integers(3, 6, k).astype("uint16")},
            "wide": lambda: {"a": rng.integers(-50, 250, k), "b": rng.integers(0, 200, k),
                             "c": rng.integers(0, 2, k), "t": rng.integers(5, 15, k)},
            "widet": lambda: {"a": rng.integers(-50, 250, k), "b": rng.integers(0, 200, k),
                              "c": rng.integers(0, 2, k), "t": rng.choice([5, 7, 14], k)},
            "full2": lambda: {"a": rng.integers(0, 300, k), "b": rng.integers(0, 3, k),
                              "c": rng.integers(0, 2, k), "t": rng.integers(0, 200, k)},
            "spant": lambda: {"a": rng.integers(0, 300, k), "b": rng.integers(0, 200, k),
                              "c": rng.integers(0, 2, k), "t": rng.choice([0, 7, 59_999], k)},
            "nan": lambda: {"a": np.where(rng.random(k) < 0.1, np.nan,
                                          rng.integers(0, 5, k).astype(float)),
                            "b": rng.choice(["p", "q"], k), "c": rng.integers(0, 3, k),
                            "t": rng.choice(["x", "y", None], k)},
            "cat": lambda: {"a": pd.Categorical(rng.choice(["u", "v", "w"], k)),
                            "b": rng.integers(0, 3, k), "c": rng.choice([True, False], k),
                            "t": rng.choice(["x", "y"], k)},
        }
        return pd.DataFrame(draws[kind]())

    o, s, h = one(n), one(m), one(max(n // 2, 3))
    if kind in ("int64", "wide"):
        s.loc[s.index[: m // 5], "a"] += 7  # keys the original does not have
    return o, s, h


def _outputs(big: bool) -> dict:
    from capkit import cap
    from capkit.counts.tables import crosstab
    from capkit.disclosure import disclosure
    from capkit.sdmetrics.cap_family import (
        CategoricalCAP,
        CategoricalGeneralizedCAP,
        CategoricalZeroCAP,
    )

    out: dict = {}

    def guarded(name: tuple, fn, *args, **kwargs) -> None:
        try:
            out[name] = fn(*args, **kwargs)
        except Exception as error:  # the same refusal on both sides is the same answer
            out[name] = repr(error)

    def measures(t: object) -> dict:
        res = _table(t)
        for v in (1, 2):
            res[f"v{v}"] = repr(cap.average_cap(t.original, t.synthetic, v))
            if t.holdout is not None:
                res[f"h{v}"] = repr(cap.average_cap(t.original, t.synthetic, v,
                                                    holdout=t.holdout))
        res["cp"] = repr(cap.correct_predictions(t.original, t.synthetic))
        res["base"] = repr(cap.baseline_cap(t.original))
        res["ind"] = _dense(cap.individual_cap(t.original, t.synthetic))
        return res

    extras = ({}, {"dropna": True}, {"sparse_output": True}, {"sparse_output": False},
              {"allow_disjoint_levels": True})
    kinds = ("int64", "int8", "uint16", "wide", "widet", "full2", "spant", "nan", "cat")
    for kind in kinds:
        for seed, n, m in ((1, 40, 30), (2, 400, 500), (3, 3000, 2000), (4, 7, 5)):
            o, s, h = _frames(seed, n, m, kind)
            case = (kind, seed)
            for keys, target in ((["a", "b", "c"], "t"), (["a"], "t"), (["b", "c"], ["t", "a"]),
                                 (["a", "b"], "t"), (["a", "c"], "t")):
                what = (case, tuple(keys), str(target))
                for k, extra in enumerate(extras + ({"holdout": h},
                                                    {"holdout": h, "sparse_output": True,
                                                     "allow_disjoint_levels": True})):
                    guarded(what + (k,), lambda *a, **e: measures(crosstab(*a, **e)),
                            o, s, keys, target, **extra)
                guarded(what + ("record_cap",), lambda *a, **e: cap.record_cap(*a, **e).to_numpy(),
                        o, s, keys, target, holdout=h, allow_disjoint_levels=True)
                guarded(what + ("record_cap_na",),
                        lambda *a, **e: cap.record_cap(*a, **e).to_numpy(),
                        o, s, keys, target, dropna=True)
                for metric in (CategoricalCAP, CategoricalZeroCAP, CategoricalGeneralizedCAP):
                    guarded(what + (metric.__name__,), lambda m, *a, **e: repr(m.compute(*a, **e)),
                            metric, o, s, key_fields=keys, sensitive_fields=target,
                            allow_disjoint_levels=True)
            guarded((case, "disclosure"), lambda *a: tuple(
                repr(getattr(r, part, None)) for r in [disclosure(*a)]
                for part in ("ident", "attrib", "allcaps")), s, o, ["a", "b", "c"], "t")
    if big:
        sys.path.insert(0, str(HERE))
        import bench_growth
        from bench_cap import KEYS, TARGET, make_frame

        rng = np.random.default_rng(20201)
        n = 1_000_000
        cases = {"uniform": (make_frame(n, rng), make_frame(n, rng), make_frame(n // 2, rng),
                             list(KEYS), TARGET[0])}
        members, synthetic, holdout = bench_growth.frames("million", n)
        cases["million"] = (members, synthetic, holdout, ["age", "sex", "region", "education"],
                            "income")
        for name, (members, synthetic, holdout, keys, target) in cases.items():
            out[("big", name)] = measures(crosstab(members, synthetic, keys, target,
                                                   holdout=holdout))
    return out


def _equal(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k])
                                                                    for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    return a == b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout (holding capkit/)")
    parser.add_argument("--big", action="store_true", help="add the 1M x 1M frames")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    def outputs() -> dict:
        warnings.simplefilter("ignore")
        return _outputs(args.big)

    this, before, _ = answers_here_and_there(__file__, outputs, args.baseline,
                                             ["--big"] if args.big else [])
    differ = [name for name in this if name not in before or not _equal(this[name],
                                                                         before[name])]
    refused = sum(isinstance(v, str) and "Error(" in v for v in this.values())
    print(f"{len(this)} outputs compared with {args.baseline}: {len(differ)} differ "
          f"({refused} are refusals, compared by message)")
    for name in differ[:20]:
        print("  differs:", name)
    sys.exit(1 if differ or this.keys() != before.keys() else 0)


if __name__ == "__main__":
    main()
