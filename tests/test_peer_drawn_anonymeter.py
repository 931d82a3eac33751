"""capkit.control.anonymeter_results against anonymeter 1.1.0's EvaluationResults on drawn
counts (``reference/anonymeter/drawn/``, made by ``scripts/peer_cases``): random numbers of
attacks (one, or a main / baseline / control tuple), successes from none to all, fractional
control counts, no control, confidence levels from 0.5 to 0.999. Every rate, error, risk,
interval end and warning must be anonymeter's; where anonymeter raises, capkit refuses.

Attacks (``attacks_<seed>``, small drawn frames with ties, missing values, strings): the
linkability links for n_neighbors 1 and 3 and the inference guesses and successes for a
categorical and a numeric secret, record by record. Where no tie decides, capkit's answer is
anonymeter's; where one does (anonymeter takes numba's sort order among exact ties), its
answer must lie within capkit's tie range. The inference baseline (label-aligned, every
record of equal-sized frames) is anonymeter's count exactly; linkability's baseline draws
from an unseeded generator in anonymeter and is not compared. Singling out: every query
anonymeter's evaluator drew (univariate and multivariate, main and baseline) is counted by
``match_counts`` on the deduplicated frames as anonymeter counts it, and the successes are
the evaluator's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import peer_drawn
import pytest

from capkit.attacks.inference_attack import inference_attack
from capkit.attacks.linkability import linkability
from capkit.attacks.queries import match_counts
from capkit.control import anonymeter_results
from capkit.errors import CapkitError

CASES = [p for p in peer_drawn.cases("anonymeter") if p.name.startswith("anonymeter_")]
ATTACKS = [p for p in peer_drawn.cases("anonymeter") if p.name.startswith("attacks_")]
#: Wilson centres and half widths, their residual and its propagated error: a dozen
#: operations on counts below 3,000, each rounding by eps/2; a different order moves them by
#: a few eps relative, and a difference of two rates near each other by a few eps absolute.
REL, ABS = 1e-12, 1e-15


def _close(a: float, b: object) -> bool:
    b = peer_drawn.number(b)
    if math.isnan(b):
        return math.isnan(a)
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def test_cases_are_stored() -> None:
    assert len(CASES) >= 4, "run scripts/peer_cases/peer_cases.py anonymeter"


@pytest.mark.parametrize("path", CASES, ids=[p.name.split(".")[0] for p in CASES])
def test_capkit_equals_anonymeter_on_drawn_counts(path) -> None:
    case = peer_drawn.load(path)
    for call in case["calls"]:
        kwargs = dict(call["kwargs"])
        if isinstance(kwargs["n_attacks"], list):
            kwargs["n_attacks"] = tuple(kwargs["n_attacks"])
        if call["error"] is not None:
            with pytest.raises(CapkitError):
                anonymeter_results(**kwargs)
            continue
        got = anonymeter_results(**kwargs)
        for name in ("attack_rate", "baseline_rate"):
            assert all(map(_close, getattr(got, name), call[name])), (kwargs, name)
        if call["control_rate"] is None:
            assert got.control_rate is None
        else:
            assert all(map(_close, got.control_rate, call["control_rate"])), kwargs
        for name in ("risk", "risk_baseline"):
            value, (low, high) = getattr(got, name)
            want_value, (want_low, want_high) = call[name]
            assert _close(value, want_value) and _close(low, want_low) and _close(
                high, want_high), (kwargs, name)
        assert list(got.warnings) == call["warnings"], kwargs


def _frames(case):
    return [pd.DataFrame(case["frames"][n]).fillna(np.nan).infer_objects()
            for n in ("ori", "syn", "control")]


def test_attack_cases_are_stored() -> None:
    assert len(ATTACKS) >= 3, "run scripts/peer_cases/peer_cases.py anonymeter"


@pytest.mark.parametrize("path", ATTACKS, ids=[p.name.split(".")[0] for p in ATTACKS])
def test_linkability_links_are_anonymeters(path) -> None:
    case = peer_drawn.load(path)
    ori, syn, ctl = _frames(case)
    aux = tuple(list(c) for c in case["aux_linkability"])
    for k, want in case["linkability"].items():
        got = linkability(ori, syn, aux, n_neighbors=int(k), control=ctl)
        for side, records, span in (("ori", got.records, got.links_range),
                                    ("control", got.control_records, got.control_links_range)):
            theirs = np.array(want[side]["linked"], dtype=bool)
            assert (records["link_possible"].to_numpy() | ~theirs).all(), (k, side)
            assert (~records["link_certain"].to_numpy() | theirs).all(), (k, side)
            for tag, nn in (("a", "nn_a"), ("b", "nn_b")):
                mine = np.sort(records[[f"nn_{tag}{j}" for j in range(1, int(k) + 1)]]
                               .to_numpy(), axis=1)
                theirs_nn = np.sort(np.array(want[side][nn]), axis=1)
                ok = ~records[f"tie_{tag}"].to_numpy()
                assert ok.sum() > len(records) / 10, (k, side, tag)  # not vacuous
                assert (mine[ok] == theirs_nn[ok]).all(), (k, side, tag)
            total = want["n_success"] if side == "ori" else want["n_control"]
            assert theirs.sum() == total and span[0] <= total <= span[1], (k, side)


@pytest.mark.parametrize("path", ATTACKS, ids=[p.name.split(".")[0] for p in ATTACKS])
def test_inference_guesses_are_anonymeters(path) -> None:
    case = peer_drawn.load(path)
    ori, syn, ctl = _frames(case)
    for secret, want in case["inference"].items():
        got = inference_attack(ori, syn, case["aux_inference"], secret,
                               regression=want["regression"], control=ctl,
                               anonymeter_compat=True)
        for side, records, span in (("ori", got.records, got.success_range),
                                    ("control", got.control_records,
                                     got.control_success_range)):
            success = np.array(want[side]["success"], dtype=bool)
            untied = ~records["tie_decides"].to_numpy()
            assert untied.sum() > len(records) / 2, (secret, side)
            guess = pd.Series(want[side]["guess"], dtype=object).to_numpy()
            mine = records["guess"].to_numpy()
            same = [(a == b) or (pd.isnull(a) and pd.isnull(b))
                    for a, b in zip(mine[untied], guess[untied], strict=True)]
            assert all(same), (secret, side)
            assert (records["success"].to_numpy()[untied] == success[untied]).all()
            assert not (success & ~records["success_possible"].to_numpy()).any()
            assert not (~success & records["success_certain"].to_numpy()).any()
            total = want["n_success"] if side == "ori" else want["n_control"]
            assert success.sum() == total and span[0] <= total <= span[1], (secret, side)
        assert got.n_baseline == want["n_baseline"], secret


@pytest.mark.parametrize("mode", ["univariate", "multivariate"])
@pytest.mark.parametrize("path", ATTACKS, ids=[p.name.split(".")[0] for p in ATTACKS])
def test_singling_out_counts_are_anonymeters(path, mode) -> None:
    """Every query anonymeter drew (main and baseline, 50 each asked) is counted by capkit on
    the deduplicated frames exactly as anonymeter's polars counts them (integer counts: no
    tolerance), and the successes (count 1 on ori / control) are the evaluator's totals."""
    case = peer_drawn.load(path)
    stored = case["singling_out"][mode]
    rows = stored["queries"]
    assert rows, "no singling-out queries stored"
    queries = [[tuple(c) for c in r["conditions"]] for r in rows]
    ori, syn, ctl = (f.drop_duplicates() for f in _frames(case))
    for name, frame in (("ori", ori), ("control", ctl), ("syn", syn)):
        got = match_counts(queries, frame).tolist()
        want = [r[f"count_{name}"] for r in rows]
        bad = [(r["polars_repr"], g, w) for r, g, w in zip(rows, got, want, strict=True)
               if g != w]
        assert not bad, f"{name}: {len(bad)} of {len(rows)} counts differ, e.g. {bad[:3]}"
    kind = np.array([r["kind"] for r in rows])
    got_ori = match_counts(queries, ori)
    got_ctl = match_counts(queries, ctl)
    assert int(((got_ori == 1) & (kind == "main")).sum()) == stored["n_success"]
    assert int(((got_ori == 1) & (kind == "baseline")).sum()) == stored["n_baseline"]
    assert int(((got_ctl == 1) & (kind == "main")).sum()) == stored["n_control_uncorrected"]
