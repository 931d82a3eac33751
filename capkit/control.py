"""The membership control: did an attack succeed on the members more than on a holdout?

One job: turn success counts of an attack into rates, intervals and a risk, for every
attack-style measure in capkit (attribute inference, singling out, linkability). An attack is
run on the **members** (the records used to make the synthetic data) and on a **control**
(holdout records that were not used). If it succeeds as often on the control, what it learns
is inference about the population, not disclosure about the members.

capkit's comparison (:func:`compare_to_control`) uses the plain shares k / n:

* each rate r = k / n with its Wilson score interval (Wilson 1927);
* the risk, (r_members - r_control) / (1 - r_control), the "residual success" of Giomi et al.
  (2022), with the Wilson half widths of both rates propagated to first order into its
  interval, value and interval clipped to [0, 1];
* the advantage r_members - r_control (Stadler, Oprisanu & Troncoso 2022), unclipped, so its
  sign says which group the attack did better on.

anonymeter (Giomi et al. 2022) centres every rate on the Wilson centre (k + z^2/2) / (n + z^2)
instead of k / n; :func:`anonymeter_results` reproduces its ``EvaluationResults`` number for
number (rates with errors, risk and baseline risk with intervals).

References
----------
M. Giomi, F. Boenisch, C. Wehmeyer, B. Tasnádi, "A Unified Framework for Quantifying Privacy
Risk in Synthetic Data", Proceedings on Privacy Enhancing Technologies (PoPETs) 2023(2),
arXiv:2211.10459 (anonymeter).
T. Stadler, B. Oprisanu, C. Troncoso, "Synthetic Data - Anonymisation Groundhog Day",
USENIX Security 2022 (privacy gain / advantage of an attack over a baseline).
E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
JASA 22 (1927) 209-212.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

from scipy.special import ndtri

from capkit.errors import CapkitError

__all__ = [
    "Z95",
    "AnonymeterResults",
    "AttackRisks",
    "ControlComparison",
    "Rate",
    "anonymeter_results",
    "attack_risks",
    "compare_to_control",
    "newcombe",
    "two_sided_z",
    "wilson",
]

#: anonymeter's warning text when the baseline attack is as good as the main attack.
BASELINE_WARNING = (
    "Attack is as good or worse as baseline model. Estimated rates: attack = {attack}, "
    "baseline = {baseline}. Analysis results cannot be trusted."
)


def two_sided_z(confidence: float) -> float:
    """Two-sided standard normal quantile of ``confidence``, which must lie in [0, 1).

    0 is allowed as in anonymeter (z = 0: zero-width intervals); 1 would give an infinite z
    (anonymeter returns NaN) and is refused, as is anything outside [0, 1].
    """
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not (
        0.0 <= float(confidence) < 1.0
    ):
        raise CapkitError(f"confidence must be a number in [0, 1) (0.95 for 95%), got "
                          f"{confidence!r}")
    return float(ndtri(0.5 * (1.0 + float(confidence))))  # scipy.stats.norm.ppf, bit for bit


_z = two_sided_z  # the old private name, for code that imported it

#: The standard normal quantile of every two-sided 95% interval, ``two_sided_z(0.95)``: scipy's
#: ``ndtri(0.975)`` = 1.959963984540054, one ulp below the correctly rounded quantile
#: (1.95996398454005423552...; ``statistics.NormalDist().inv_cdf(0.975)`` is three ulps below
#: it). The same number as the intervals of :func:`compare_to_control` at 95%.
Z95 = two_sided_z(0.95)


def _check_counts(k: float, n: float, k_name: str, n_name: str) -> tuple[float, float]:
    """``(k, n)`` as numbers with 0 <= k <= n and n > 0, or a CapkitError naming the argument."""
    for value, name in ((k, k_name), (n, n_name)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
            raise CapkitError(f"{name} must be a number, got {value!r}")
    if n <= 0:
        raise CapkitError(f"{n_name} must be positive (no attacks, no rate), got {n!r}")
    if k < 0:
        raise CapkitError(f"{k_name} must be >= 0, got {k!r}")
    if k > n:
        raise CapkitError(f"{k_name} ({k!r}) is larger than {n_name} ({n!r})")
    return k, n


def wilson(k: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score centre and half width of a success rate, as anonymeter computes them.

    With z the two-sided normal quantile of ``confidence``::

        centre = (k + z^2 / 2) / (n + z^2)
        half   = z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4)

    (Wilson 1927; anonymeter's ``success_rate``, Giomi et al. 2022). The interval
    ``centre -/+ half`` is the Wilson score interval.

    Parameters
    ----------
    k
        Number of successes (a float is accepted, e.g. a size-corrected count).
    n
        Number of attacks, > 0.
    confidence
        Confidence level in [0, 1) (0 gives z = 0 and a zero half width, as in anonymeter).

    Returns
    -------
    (centre, half_width)

    Raises
    ------
    CapkitError
        ``n <= 0``, ``k < 0``, ``k > n`` or a confidence outside [0, 1).
    """
    k, n = _check_counts(k, n, "k", "n")
    z = two_sided_z(confidence)
    z_squared = z * z
    variance = k * (n - k) / n
    denominator = n + z_squared
    centre = (k + 0.5 * z_squared) / denominator
    half = (z / denominator) * math.sqrt(variance + 0.25 * z_squared)
    return centre, half


def _clip(value: float) -> float:
    return min(max(value, 0.0), 1.0)


@dataclass(frozen=True)
class Rate:
    """A success rate: ``k`` successes out of ``n`` attacks.

    Attributes
    ----------
    k
        Successes (int, or float for an expected/size-corrected count).
    n
        Attacks.
    rate
        The plain share k / n.
    ci
        Wilson score interval (low, high), clipped to [0, 1] (and, against rounding, made to
        contain k / n).
    """

    k: float
    n: float
    rate: float
    ci: tuple[float, float]


def _rate(k: float, n: float, confidence: float, k_name: str, n_name: str) -> tuple[Rate, float]:
    """The Rate of ``k`` / ``n`` and its Wilson half width."""
    k, n = _check_counts(k, n, k_name, n_name)
    centre, half = wilson(k, n, confidence)
    rate = k / n
    # The Wilson interval contains k / n; min/max only undo rounding (k = n gives 1 - 1e-16).
    low, high = min(_clip(centre - half), rate), max(_clip(centre + half), rate)
    return Rate(k=k, n=n, rate=rate, ci=(low, high)), half


@dataclass(frozen=True)
class ControlComparison:
    """The members' success rate against the control's, with the risk and the advantage.

    Attributes
    ----------
    members
        The attack's rate on the members.
    control
        The same attack's rate on the control (holdout) records, or None without a control.
    risk
        (members.rate - control.rate) / (1 - control.rate), clipped to [0, 1]; NaN when the
        control rate is 1 (see ``note``); None without a control.
    risk_ci
        The risk -/+ its propagated error (first order, Wilson half widths of both rates),
        each end clipped to [0, 1]; None without a control.
    advantage
        members.rate - control.rate (unclipped); None without a control.
    advantage_ci
        Newcombe's hybrid score interval of the difference of the two rates (Newcombe 1998,
        method 10: the Wilson intervals of both rates combined); None without a control.
    confidence
        Confidence level of the intervals.
    note
        Why a number is undefined, or None.
    """

    members: Rate
    control: Rate | None
    risk: float | None
    risk_ci: tuple[float, float] | None
    advantage: float | None
    confidence: float
    note: str | None = None
    advantage_ci: tuple[float, float] | None = None


def newcombe(members: Rate, control: Rate) -> tuple[float, float]:
    """Newcombe's hybrid score interval of ``members.rate - control.rate``.

    From the Wilson intervals (l1, u1) and (l2, u2) of the two rates p1 and p2 (Newcombe,
    "Interval estimation for the difference between independent proportions: comparison of
    eleven methods", Statistics in Medicine 17 (1998) 873-890, method 10):
    ``(p1 - p2 - sqrt((p1 - l1)^2 + (u2 - p2)^2), p1 - p2 + sqrt((u1 - p1)^2 + (p2 - l2)^2))``.
    It keeps its coverage near the bounds 0 and 1, where a Wald interval of the difference
    collapses, so a difference such as 99.6% vs 99.2% is not made to look certain.
    """
    p1, p2 = members.rate, control.rate
    (l1, u1), (l2, u2) = members.ci, control.ci
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def _residual(attack: float, attack_error: float, control: float, control_error: float
              ) -> tuple[float, float]:
    """Residual success (a - c) / (1 - c) and its first-order propagated error (anonymeter)."""
    residual = (attack - control) / (1.0 - control)
    d_attack = 1 / abs(1 - control)
    d_control = (attack - 1) / (1 - control) ** 2
    error = math.sqrt((attack_error * d_attack) ** 2 + (control_error * d_control) ** 2)
    return residual, error


def compare_to_control(k_members: float, n_members: float, k_control: float | None = None,
                       n_control: float | None = None, *, confidence: float = 0.95,
                       warn: bool = True) -> ControlComparison:
    """Compare an attack's success on the members with its success on a control set.

    The rates are the plain shares k / n, each with its Wilson score interval; the risk is
    anonymeter's residual success (Giomi et al. 2022, PoPETs 2023),
    ``(m - c) / (1 - c)`` with m, c the members' and the control's rates, and its interval is
    ``risk -/+ sqrt((e_m / (1 - c))^2 + (e_c (m - 1) / (1 - c)^2)^2)``, e_m and e_c the Wilson
    half widths; value and interval are clipped to [0, 1]. The advantage m - c (Stadler et al.
    2022) is not clipped. anonymeter itself centres m and c on the Wilson centres; see
    :func:`anonymeter_results` for that variant.

    Parameters
    ----------
    k_members, n_members
        Successes and attacks on the members.
    k_control, n_control
        Successes and attacks on the control; both None for no control.
    confidence
        Confidence level of the intervals, in [0, 1).
    warn
        Emit a RuntimeWarning when the risk is undefined (the ``note`` says it either way).

    Returns
    -------
    ControlComparison
        With a control rate of exactly 1 the risk is undefined: NaN, with ``note`` saying why.

    Raises
    ------
    CapkitError
        A count outside [0, n], n <= 0, only one of ``k_control`` / ``n_control`` given, or a
        confidence outside [0, 1).

    Examples
    --------
    >>> c = compare_to_control(30, 100, 10, 100)
    >>> round(c.risk, 4), round(c.advantage, 2)
    (0.2222, 0.2)
    """
    two_sided_z(confidence)
    members, members_error = _rate(k_members, n_members, confidence, "k_members", "n_members")
    if k_control is None and n_control is None:
        return ControlComparison(members, None, None, None, None, confidence)
    if k_control is None or n_control is None:
        missing = "k_control" if k_control is None else "n_control"
        raise CapkitError(f"{missing} is None while the other control count is given; pass "
                          "both k_control and n_control, or neither")
    control, control_error = _rate(k_control, n_control, confidence, "k_control", "n_control")
    advantage = members.rate - control.rate
    advantage_ci = newcombe(members, control)
    if control.rate == 1.0:
        note = ("the control rate is 1 (the attack succeeded on every control attempt): the "
                "risk (m - c) / (1 - c) is undefined; compare the advantage instead")
        if warn:
            warnings.warn(note, RuntimeWarning, stacklevel=2)
        nan = float("nan")
        return ControlComparison(members, control, nan, (nan, nan), advantage, confidence, note,
                                 advantage_ci)
    residual, error = _residual(members.rate, members_error, control.rate, control_error)
    return ControlComparison(
        members=members, control=control, risk=_clip(residual),
        risk_ci=(_clip(residual - error), _clip(residual + error)), advantage=advantage,
        confidence=confidence, advantage_ci=advantage_ci)


@dataclass(frozen=True)
class AnonymeterResults:
    """anonymeter 1.1's ``EvaluationResults``, number for number (Giomi et al. 2022).

    Attributes
    ----------
    n_attacks
        (main, baseline, control) numbers of attacks, the rates' denominators.
    n_success, n_baseline, n_control
        Successes of the main, baseline and control attacks (n_control None without control).
    attack_rate, baseline_rate
        (Wilson centre, Wilson half width).
    control_rate
        The same for the control, or None.
    risk
        (value, (low, high)): the attack rate without a control, else the residual success;
        value and both ends clipped to [0, 1] separately.
    risk_baseline
        (value, (low, high)) of the baseline rate, clipped. anonymeter never subtracts it.
    residual
        (value, error) of the residual success before clipping, or None without a control.
    confidence_level
        The confidence level.
    warnings
        The warnings anonymeter would emit, in its words (only the baseline one can fire: its
        "control success is 100%" test compares a Wilson centre, never 1, with 1).
    """

    n_attacks: tuple[float, float, float]
    n_success: float
    n_baseline: float
    n_control: float | None
    attack_rate: tuple[float, float]
    baseline_rate: tuple[float, float]
    control_rate: tuple[float, float] | None
    risk: tuple[float, tuple[float, float]]
    risk_baseline: tuple[float, tuple[float, float]]
    residual: tuple[float, float] | None
    confidence_level: float
    warnings: tuple[str, ...]


def _bind(value: float, error: float) -> tuple[float, tuple[float, float]]:
    """anonymeter's ``bind_value``: value and value -/+ error, each clipped to [0, 1]."""
    return _clip(value), (_clip(value - error), _clip(value + error))


def anonymeter_results(n_attacks: int | tuple[int, int, int], n_success: float,
                       n_baseline: float, n_control: float | None = None,
                       confidence_level: float = 0.95) -> AnonymeterResults:
    """anonymeter 1.1's rates and risks (its ``EvaluationResults``; Giomi et al. 2022).

    Every rate is the Wilson centre with its half width (:func:`wilson`). Without a control the
    risk is the attack rate -/+ its error; with one it is the residual success
    (a - c) / (1 - c) of the Wilson centres, with the first-order propagated error; value and
    interval ends are clipped to [0, 1] separately. The baseline risk is the baseline rate
    -/+ its error, clipped; it is reported, never subtracted (as in anonymeter).

    Parameters
    ----------
    n_attacks
        One number of attacks for all three rates, or a (main, baseline, control) tuple.
    n_success, n_baseline, n_control
        Successes of the main, baseline and control attacks (floats accepted: anonymeter's
        singling out passes a size-corrected control count); ``n_control`` None for no control.
    confidence_level
        In [0, 1). anonymeter accepts 0 (z = 0) too, returns NaN at 1 and raises ValueError
        outside [0, 1]; capkit refuses 1 as well.

    Returns
    -------
    AnonymeterResults

    Raises
    ------
    CapkitError
        A number of attacks <= 0 (anonymeter: ZeroDivisionError), successes above the attacks
        (anonymeter: ValueError "math domain error"), or a confidence level outside [0, 1).
    """
    if isinstance(n_attacks, tuple | list):
        if len(n_attacks) != 3:
            raise CapkitError("n_attacks must be a number or a (main, baseline, control) "
                              f"tuple, got {n_attacks!r}")
        n_main, n_base, n_ctrl = n_attacks
    else:
        n_main = n_base = n_ctrl = n_attacks
    two_sided_z(confidence_level)
    _check_counts(n_success, n_main, "n_success", "n_attacks (main)")
    _check_counts(n_baseline, n_base, "n_baseline", "n_attacks (baseline)")
    attack = wilson(n_success, n_main, confidence_level)
    baseline = wilson(n_baseline, n_base, confidence_level)
    control = None
    if n_control is not None:
        _check_counts(n_control, n_ctrl, "n_control", "n_attacks (control)")
        control = wilson(n_control, n_ctrl, confidence_level)
    notes = []
    if baseline[0] >= attack[0]:
        notes.append(BASELINE_WARNING.format(attack=attack[0], baseline=baseline[0]))
    residual = None
    if control is None:
        risk = _bind(*attack)
    else:
        residual = _residual(attack[0], attack[1], control[0], control[1])
        risk = _bind(*residual)
    return AnonymeterResults(
        n_attacks=(n_main, n_base, n_ctrl), n_success=n_success, n_baseline=n_baseline,
        n_control=n_control, attack_rate=attack, baseline_rate=baseline, control_rate=control,
        risk=risk, risk_baseline=_bind(*baseline), residual=residual,
        confidence_level=confidence_level, warnings=tuple(notes))


@dataclass(frozen=True)
class AttackRisks:
    """What an anonymeter-style attack reports: the members against the control, against the
    baseline attack, anonymeter's own statistics, and the headline risk with what it compares
    with (``reference``: ``"control"``, ``"baseline"`` or ``"anonymeter"``)."""

    control: ControlComparison
    baseline: ControlComparison
    anonymeter: AnonymeterResults
    risk: float
    risk_ci: tuple[float, float]
    reference: str


def attack_risks(k_members: float, n: int, n_baseline: float, k_control: float | None = None,
                 n_control: int | None = None, *, k_against_baseline: float | None = None,
                 n_baseline_attacks: int | None = None, anonymeter_headline: bool = False,
                 confidence: float = 0.95) -> AttackRisks:
    """The membership control of an attack with a baseline (singling out, linkability,
    inference): :func:`compare_to_control` against the control and against the baseline's
    successes, and :func:`anonymeter_results`.

    The headline is anonymeter's risk when ``anonymeter_headline``, else the control's when
    there is one, else the baseline's. ``k_against_baseline`` (default ``k_members``) is what
    the baseline is compared with; ``n_baseline_attacks`` (default ``n``) the baseline's
    attacks in anonymeter's statistics.
    """
    comparison = compare_to_control(k_members, n, k_control, n_control, confidence=confidence)
    against = k_members if k_against_baseline is None else k_against_baseline
    against_baseline = compare_to_control(against, n, n_baseline, n, confidence=confidence,
                                          warn=k_control is None)
    anon = anonymeter_results((n, n if n_baseline_attacks is None else n_baseline_attacks,
                               n_control or n), k_members, n_baseline, k_control, confidence)
    if anonymeter_headline:
        risk, risk_ci, reference = anon.risk[0], anon.risk[1], "anonymeter"
    elif k_control is not None:
        risk, risk_ci, reference = comparison.risk, comparison.risk_ci, "control"
    else:
        risk, risk_ci, reference = against_baseline.risk, against_baseline.risk_ci, "baseline"
    return AttackRisks(comparison, against_baseline, anon, risk, risk_ci, reference)
