"""anonymeter's inference attack (Giomi et al. 2022) on every record: :func:`inference_attack`.

Giomi, Boenisch, Wehmeyer & Tasnádi, "A Unified Framework for Quantifying Privacy Risk in
Synthetic Data" (PoPETs 2023; anonymeter's ``InferenceEvaluator``): an attacker who knows the
auxiliary columns of a record guesses its secret as the secret of the **nearest synthetic
record** under anonymeter's mixed-type distance. This is capkit's ``"nn"`` attacker with
``distance="anonymeter"`` (:mod:`capkit.attacks.nearest_record`, on the exact search of
:mod:`capkit.distance.mixed_knn`); the guesses are anonymeter's on every record whose nearest
synthetic record is not tied. On a tie capkit takes the lowest synthetic position (anonymeter:
numba's quicksort order); every record reports how many synthetic records tie, whether the tie
decides the guess, and the successes lie in ``success_range`` for any tie order.

Success: a categorical secret must be guessed exactly (a missing value matches a missing
value). A numeric secret (``regression=True``) is hit when |guess - truth| <= tolerance *
|truth|: the truth is what the attacker must hit, so it sets the band. anonymeter divides by the
guess instead (|guess - truth| / (guess + 1e-12) <= tolerance), which makes every negative
guess a success and widens the band for guesses above the truth; ``anonymeter_compat=True``
reproduces that rule, and anonymeter's label-aligned random baseline.

The comparison with the control (records not used for the synthesis) is
:func:`capkit.control.compare_to_control`; anonymeter's own numbers are
:func:`capkit.control.anonymeter_results`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from capkit.attacks._sampling import check_n_attacks, sample_rows
from capkit.attacks.attribute import check_tolerance, within_tolerance
from capkit.attacks.grid import Grid, prepare
from capkit.attacks.nearest_record import nearest_records
from capkit.control import (
    AnonymeterResults,
    ControlComparison,
    attack_risks,
)
from capkit.counts.encode import as_list
from capkit.errors import CapkitError

__all__ = ["InferenceResult", "inference_attack"]


@dataclass(frozen=True)
class InferenceResult:
    """Result of :func:`inference_attack`.

    Attributes
    ----------
    records, control_records
        One row per attacked record (``row``: position in ``original`` / ``control``):
        ``nn`` (position of the guessing synthetic record), ``distance``, ``guess``,
        ``truth``, ``success``, ``n_tied_at_min`` (synthetic records at the minimum distance),
        ``tie_decides`` (the tied records hold more than one secret value),
        ``success_possible`` / ``success_certain`` (a success under some / every tie order).
    aux_cols, secret, regression, tolerance, anonymeter_compat
        What was run.
    n_attacks, n_success, success_range, n_tied, n_tie_decides
        Records attacked, successes (capkit's tie rule), (certain, possible) successes over
        all tie orders, records with a tied nearest neighbour, records whose guess a tie
        decides.
    n_baseline
        Successes of the seeded random guess (the secret of a random synthetic record).
    n_control_attacks, n_control, control_success_range
        The same for the control (None without one).
    risk, risk_ci, risk_reference
        Headline risk: against the control (``"control"``) or, without one, the baseline.
    control, baseline
        :class:`~capkit.control.ControlComparison` with the control and with the baseline.
    anonymeter
        anonymeter's rates and risks on these counts.
    """

    records: pd.DataFrame
    control_records: pd.DataFrame | None
    aux_cols: tuple[str, ...]
    secret: str
    regression: bool
    tolerance: float
    anonymeter_compat: bool
    n_attacks: int
    n_success: int
    success_range: tuple[int, int]
    n_tied: int
    n_tie_decides: int
    n_baseline: int
    n_control_attacks: int | None
    n_control: int | None
    control_success_range: tuple[int, int] | None
    risk: float
    risk_ci: tuple[float, float]
    risk_reference: str
    control: ControlComparison
    baseline: ControlComparison
    anonymeter: AnonymeterResults


def _hits(grid: Grid, guess_rows: np.ndarray, truth_rows: np.ndarray, regression: bool,
          tolerance: float, compat: bool) -> np.ndarray:
    """Success of guessing target row ``guess_rows`` for records of target row ``truth_rows``."""
    if not regression:
        return guess_rows == truth_rows
    guess, truth = grid.values[guess_rows], grid.values[truth_rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        if compat:
            return np.abs(guess - truth) / (guess + 1e-12) <= tolerance
        return within_tolerance(guess, truth, tolerance)


def _attack(grid: Grid, group: str, regression: bool, tolerance: float, compat: bool,
            progress: bool) -> pd.DataFrame:
    keep = grid.known(group)
    cells = grid.cells(group)[keep]
    combos, inverse = np.unique(cells[:, 1], return_inverse=True)
    near = nearest_records(grid, "synthetic", combos, progress=progress)
    truth = cells[:, 0]
    success = _hits(grid, near.target[inverse], truth, regression, tolerance, compat)
    # every (record, target row in its tie pool): any / all of them a success
    pool = near.pool[inverse].tocoo()
    hit = _hits(grid, pool.col.astype(np.int64), truth[pool.row], regression, tolerance, compat)
    n = len(truth)
    possible = np.bincount(pool.row[hit], minlength=n) > 0
    certain = np.bincount(pool.row[~hit], minlength=n) == 0
    distinct = np.diff(near.pool.indptr)[inverse]
    labels = grid.target_labels
    return pd.DataFrame({
        "row": np.flatnonzero(keep), "nn": near.row[inverse],
        "distance": near.distance[inverse], "guess": labels[near.target[inverse]],
        "truth": labels[truth], "success": success, "n_tied_at_min": near.n_tied[inverse],
        "tie_decides": distinct > 1, "success_possible": possible,
        "success_certain": certain,
    })


def _baseline(grid: Grid, original: pd.DataFrame, synthetic: pd.DataFrame, truth: np.ndarray,
              rows: np.ndarray, regression: bool, tolerance: float, compat: bool,
              rng: np.random.Generator) -> int:
    """Successes of random guessing: the secret of a random synthetic record per target.

    capkit: one seeded synthetic record per attacked record, by position. anonymeter (compat):
    a sample of min(len(synthetic), n) synthetic records aligned to the targets **by index
    label**, a target without a sampled label getting no guess (spec §4; deterministic when
    every record of equal-sized frames with a default index is attacked)."""
    syn_rows = grid.cells("synthetic")[:, 0]
    n, n_syn = len(truth), len(syn_rows)
    if not compat:
        guess = syn_rows[rng.choice(n_syn, size=n, replace=n > n_syn)]
        return int(_hits(grid, guess, truth, regression, tolerance, compat).sum())
    sample = rng.choice(n_syn, size=min(n_syn, n), replace=False)
    labels = pd.Index(synthetic.index[sample])
    first = ~labels.duplicated()
    lookup = pd.Series(syn_rows[sample][first], index=labels[first])
    guess = lookup.reindex(original.index[rows])
    made = guess.notna().to_numpy()
    hits = _hits(grid, guess.to_numpy()[made].astype(np.int64), truth[made], regression,
                 tolerance, compat)
    return int(hits.sum())


def _range(records: pd.DataFrame) -> tuple[int, int]:
    return int(records["success_certain"].sum()), int(records["success_possible"].sum())


def inference_attack(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    aux_cols: str | Sequence[str],
    secret: str,
    *,
    regression: bool = False,
    control: pd.DataFrame | None = None,
    n_attacks: int | None = None,
    tolerance: float = 0.05,
    anonymeter_compat: bool = False,
    seed: int = 0,
    confidence: float = 0.95,
    allow_disjoint_levels: bool = False,
    progress: bool = False,
) -> InferenceResult:
    """anonymeter's inference attack (Giomi et al. 2022) on every record, with the control.

    Parameters
    ----------
    original
        The members (records the synthetic data was made from). Not modified.
    synthetic
        The synthetic records (any index: neighbours are reported as positions).
    aux_cols
        The columns the attacker knows.
    secret
        The column the attacker guesses.
    regression
        Treat the secret as a number (success within ``tolerance``); default False (exact
        match), as anonymeter's constructor.
    control
        Holdout records (same population, not used for the synthesis), attacked the same way
        with their own numeric ranges, as in anonymeter.
    n_attacks
        None (default): every record of ``original`` and ``control``. Otherwise a seeded sample
        of that many records of each; a number above a frame's size attacks all of it
        (anonymeter clamps the same way).
    tolerance
        Numeric secret: the relative band of a success (module docstring).
    anonymeter_compat
        anonymeter's success rule for a numeric secret (divided by the guess) and its
        label-aligned random baseline.
    seed
        Seed of ``numpy.random.default_rng`` (the baseline, the optional sample).
    confidence
        Confidence level of the intervals.
    allow_disjoint_levels
        Attack even when a categorical column barely shares levels between the frames.
    progress
        Show progress bars.

    Returns
    -------
    InferenceResult

    Raises
    ------
    CapkitError
        Non-frame or empty input, a missing column, the secret among ``aux_cols``, a column
        numeric in one frame and text in the other, a non-numeric secret with
        ``regression=True``, a bad ``n_attacks`` or ``tolerance``.
    """
    tolerance = check_tolerance(tolerance)
    check_n_attacks(n_attacks)
    keys = as_list(aux_cols, "aux_cols")
    for frame, name in ((original, "original"), (synthetic, "synthetic"), (control, "control")):
        if frame is None and name == "control":
            continue
        if not isinstance(frame, pd.DataFrame):
            raise CapkitError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        if len(frame) == 0:
            raise CapkitError(f"{name} is empty (0 rows)")
    if control is not None:  # the control is prepared as the attacked group: name it here
        absent = [c for c in [*keys, secret] if c not in control.columns]
        if absent:
            raise CapkitError(f"control lacks column(s) {absent} of aux_cols and secret")
    rng = np.random.default_rng(seed)
    kind = "numeric" if regression else "categorical"
    groups = {"original": (original, sample_rows(len(original), n_attacks, rng))}
    if control is not None:
        groups["control"] = (control, sample_rows(len(control), n_attacks, rng))
    found: dict[str, pd.DataFrame] = {}
    n_baseline = 0
    for name, (frame, rows) in groups.items():
        targets = frame.iloc[rows]
        grid = prepare(targets, synthetic, keys, secret, kind=kind,
                       allow_disjoint_levels=allow_disjoint_levels)
        if not grid.known("members").any():
            raise CapkitError(f"no {name} record has a known secret {secret!r} to attack")
        records = _attack(grid, "members", regression, tolerance, anonymeter_compat, progress)
        records["row"] = rows[records["row"].to_numpy()]
        found[name] = records
        if name == "original":
            known = grid.known("members")
            n_baseline = _baseline(grid, frame, synthetic, grid.cells("members")[known, 0],
                                   rows[known], regression, tolerance, anonymeter_compat, rng)
    records, control_records = found["original"], found.get("control")
    n, k = len(records), int(records["success"].sum())
    n_ctl = k_ctl = None
    if control_records is not None:
        n_ctl, k_ctl = len(control_records), int(control_records["success"].sum())
    n_base = min(len(synthetic), n) if anonymeter_compat else n  # anonymeter's clamp
    risks = attack_risks(k, n, n_baseline, k_ctl, n_ctl, n_baseline_attacks=n_base,
                         confidence=confidence)
    return InferenceResult(
        records=records, control_records=control_records, aux_cols=tuple(keys), secret=secret,
        regression=bool(regression), tolerance=tolerance,
        anonymeter_compat=bool(anonymeter_compat), n_attacks=n, n_success=k,
        success_range=_range(records), n_tied=int((records["n_tied_at_min"] > 1).sum()),
        n_tie_decides=int(records["tie_decides"].sum()), n_baseline=n_baseline,
        n_control_attacks=n_ctl, n_control=k_ctl,
        control_success_range=None if control_records is None else _range(control_records),
        risk=risks.risk, risk_ci=risks.risk_ci, risk_reference=risks.reference,
        control=risks.control, baseline=risks.baseline, anonymeter=risks.anonymeter)
