"""SDMetrics' ``DisclosureProtection`` and ``DisclosureProtectionEstimate``, from count tables.

SDMetrics 0.32 (``single_table/privacy/disclosure_protection.py``; capkit's reading of it,
bugs included, in docs/sdmetrics-differences.md) scores how much better a CAP attacker does
than random guessing:

1. columns in ``continuous_column_names`` are cut into ``num_discrete_bins`` equal-width bins
   between the *real* minimum and maximum (``pandas.cut``, right-closed, the first edge lowered by
   0.1 % of the range); synthetic values use the same edges with the outer ones at -inf / +inf;
2. a missing value is a category of its own (it matches a missing value);
3. ``baseline_protection = 1 - 1 / prod_t (distinct values of sensitive column t in the real
   data, missing counted)``;
4. ``cap_protection`` is the score of ``CategoricalCAP`` (``computation_method="cap"``),
   ``CategoricalZeroCAP`` (``"zero_cap"``) or ``CategoricalGeneralizedCAP``
   (``"generalized_cap"``) on the processed tables;
5. ``score = min(cap_protection / baseline_protection, 1)``, NaN when the baseline is 0.

capkit counts once: the processed tables become one target x key count grid
(:func:`capkit.counts.tables.crosstab`), the CAP scores are functions of its counts
(:mod:`capkit.cap`), and the Estimate's subsamples are subsets of the records' cells, counted
again without touching the frames. DisclosureProtection is exact at any size (Adult, 45,222 x
48,842 rows: well under a second, SDMetrics 160 s), so the Estimate is only a compatibility
convenience.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from capkit.attacks.gcap import key_parts
from capkit.counts.tables import crosstab
from capkit.errors import CapkitError
from capkit.sdmetrics.cap_family import protection_of_cells
from capkit.sdmetrics.inputs import (
    check_frames,
    check_positive_int,
    check_present,
    field_list,
    random_state,
)

#: SDMetrics' names of the CAP methods (any case) and capkit's.
METHODS = ("cap", "zero_cap", "generalized_cap")


def bin_continuous(real: pd.Series, synthetic: pd.Series, bins: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """SDMetrics' discretisation of one continuous column: bin labels ``"0".."bins-1"``.

    Edges: ``pandas.cut(real, bins)`` (equal width from the real minimum to maximum, the first
    edge lowered by 0.1 % of the range; a constant column gets edges c -/+ 0.1 % of |c|); the
    synthetic values are cut with the same edges, the outer two replaced by -inf and +inf.
    Missing values stay missing (object arrays with NaN).
    """
    labels = [str(i) for i in range(bins)]
    try:
        real_values = pd.to_numeric(real.to_numpy())
        synthetic_values = pd.to_numeric(synthetic.to_numpy())
    except (TypeError, ValueError) as exc:
        raise CapkitError(f"continuous column {real.name!r} must hold numbers") from exc
    if pd.isna(real_values).all():
        raise CapkitError(
            f"continuous column {real.name!r} has no value in the real data; its bins are "
            "computed from the real minimum and maximum")
    binned_real, edges = pd.cut(real_values, bins, labels=labels, retbins=True)
    edges = edges.copy()
    edges[0], edges[-1] = -np.inf, np.inf
    binned_synthetic = pd.cut(synthetic_values, edges, labels=labels)
    return (np.asarray(binned_real, dtype=object), np.asarray(binned_synthetic, dtype=object))


def _processed(real: pd.DataFrame, synthetic: pd.DataFrame, columns: list[str],
               continuous: list[str], bins: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """New frames of ``columns`` with the continuous ones binned (inputs are not modified)."""
    real_p, synthetic_p = real[columns].copy(), synthetic[columns].copy()
    for column in continuous:
        if column in columns:
            real_p[column], synthetic_p[column] = bin_continuous(real[column], synthetic[column],
                                                                 bins)
    return real_p, synthetic_p


def baseline_protection(real: pd.DataFrame, sensitive: Sequence[str]) -> float:
    """``1 - 1 / prod_t n_t``, n_t the distinct values of sensitive column t in the (processed)
    real data, a missing value counted as one value (SDMetrics' ``_compute_baseline``)."""
    product = 1
    for column in sensitive:
        values = real[column]
        product *= int(values.nunique(dropna=True)) + int(values.isna().any())
    return 1.0 - 1.0 / product


def _score(cap_protection: float, baseline: float) -> float:
    # min(x, 1) as SDMetrics: NaN stays NaN; capkit returns 1.0 where SDMetrics returns int 1
    return float("nan") if baseline == 0 else float(min(cap_protection / baseline, 1.0))


class _Grid:
    """The processed tables as one count grid: every record's (target, key) cell."""

    def __init__(self, real: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str],
                 sensitive: list[str], allow_disjoint_levels: bool) -> None:
        table = crosstab(real, synthetic, keys, sensitive,
                         allow_disjoint_levels=allow_disjoint_levels)
        self.cells_r, self.cells_s = table.record_cell, table.synthetic_record_cell
        self.parts = key_parts(table.keys)
        self.n_targets = table.shape[0]

    def protection(self, method: str, rows_r: np.ndarray | None = None,
                   rows_s: np.ndarray | None = None) -> float:
        cells_r = self.cells_r if rows_r is None else self.cells_r[rows_r]
        cells_s = self.cells_s if rows_s is None else self.cells_s[rows_s]
        return protection_of_cells(method, cells_r, cells_s, self.parts, self.n_targets)


class DisclosureProtection:
    """SDMetrics' ``DisclosureProtection``: CAP protection relative to random guessing.

    ``score = min(cap_protection / baseline_protection, 1)`` (module docstring), exact, from
    one count grid. Same signature and result as SDMetrics 0.32, with these differences (all in
    ``docs/sdmetrics-differences.md``):

    * a key or sensitive column coded differently in the two tables (values that barely
      overlap) is an error unless ``allow_disjoint_levels=True`` (SDMetrics calls it safe);
    * bad input is a :class:`~capkit.errors.CapkitError` (a ``ValueError``): an empty table
      (SDMetrics: baseline -inf or a traceback), a key column holding numbers in one table and
      text in the other (SDMetrics silently matches nothing, protection 1.0), a sensitive column
      also listed as a key (SDMetrics: 0), a non-DataFrame synthetic table (SDMetrics checks the
      real table twice), a continuous column with no real value;
    * a pandas ``category`` column with missing values works (SDMetrics: TypeError);
    * a capped score is the float 1.0 (SDMetrics returns the int 1);
    * no warning above 10,000 rows (SDMetrics suggests its Estimate there; capkit needs none).
    """

    name = "DisclosureProtection"
    goal = "maximize"
    min_value = 0.0
    max_value = 1.0

    @classmethod
    def _prepare(cls, real_data: pd.DataFrame, synthetic_data: pd.DataFrame,
                 known_column_names: Sequence[str], sensitive_column_names: Sequence[str],
                 computation_method: str, continuous_column_names: Sequence[str] | None,
                 num_discrete_bins: int, allow_disjoint_levels: bool
                 ) -> tuple[_Grid, float, str]:
        keys = field_list(known_column_names, "known_column_names")
        sensitive = field_list(sensitive_column_names, "sensitive_column_names")
        check_frames({"real_data": real_data, "synthetic_data": synthetic_data})
        check_present(keys, real_data, "known columns", "real_data")
        check_present(sensitive, real_data, "sensitive columns", "real_data")
        if not isinstance(computation_method, str) or computation_method.lower() not in METHODS:
            raise CapkitError(f"Unknown computation method {computation_method!r}. Please use "
                              "one of 'cap', 'zero_cap', or 'generalized_cap'.")
        continuous = [] if continuous_column_names is None else field_list(
            continuous_column_names, "continuous_column_names")
        check_present(continuous, real_data, "continuous columns", "real_data")
        bins = check_positive_int(num_discrete_bins, "num_discrete_bins")
        real_p, synthetic_p = _processed(real_data, synthetic_data, keys + sensitive, continuous,
                                         bins)
        grid = _Grid(real_p, synthetic_p, keys, sensitive, allow_disjoint_levels)
        return grid, baseline_protection(real_p, sensitive), computation_method.lower()

    @classmethod
    def compute_breakdown(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        known_column_names: Sequence[str],
        sensitive_column_names: Sequence[str],
        computation_method: str = "cap",
        continuous_column_names: Sequence[str] | None = None,
        num_discrete_bins: int = 10,
        *,
        allow_disjoint_levels: bool = False,
    ) -> dict[str, float]:
        """Score, CAP protection and baseline protection (SDMetrics' breakdown).

        Parameters
        ----------
        real_data, synthetic_data
            Tables with the same columns. Neither is modified.
        known_column_names
            Key columns the attacker knows (one joint key).
        sensitive_column_names
            Columns the attacker guesses (one joint sensitive value).
        computation_method
            ``"cap"``, ``"zero_cap"`` or ``"generalized_cap"`` (any case).
        continuous_column_names
            Key or sensitive columns to bin (module docstring, step 1); other columns are
            compared by exact value, numbers included.
        num_discrete_bins
            Number of equal-width bins.
        allow_disjoint_levels
            A key or sensitive column whose real and synthetic values barely overlap is an
            error by default (the two tables almost surely code it differently and SDMetrics
            would call it safe; :func:`capkit.counts.encode.check_levels`); ``True`` gives
            SDMetrics' number.

        Returns
        -------
        dict
            ``{"score", "cap_protection", "baseline_protection"}``.
        """
        grid, baseline, method = cls._prepare(
            real_data, synthetic_data, known_column_names, sensitive_column_names,
            computation_method, continuous_column_names, num_discrete_bins,
            allow_disjoint_levels)
        cap_protection = grid.protection(method)
        return {"score": _score(cap_protection, baseline), "cap_protection": cap_protection,
                "baseline_protection": baseline}

    @classmethod
    def compute(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        known_column_names: Sequence[str],
        sensitive_column_names: Sequence[str],
        computation_method: str = "cap",
        continuous_column_names: Sequence[str] | None = None,
        num_discrete_bins: int = 10,
        *,
        allow_disjoint_levels: bool = False,
    ) -> float:
        """The breakdown's ``score`` (:meth:`compute_breakdown`)."""
        return cls.compute_breakdown(real_data, synthetic_data, known_column_names,
                                     sensitive_column_names, computation_method,
                                     continuous_column_names, num_discrete_bins,
                                     allow_disjoint_levels=allow_disjoint_levels)["score"]


class DisclosureProtectionEstimate(DisclosureProtection):
    """SDMetrics' ``DisclosureProtectionEstimate``: the CAP protection averaged over subsamples.

    Binning, missing values and the baseline come from the full tables; then, for each of
    ``num_iterations`` iterations, ``min(num_rows_subsample, n)`` real rows and, independently,
    as many synthetic rows are drawn without replacement and the CAP protection computed on
    them; ``cap_protection`` is their mean. Draws come from NumPy's legacy random state, real
    rows then synthetic rows each iteration (``RandomState.choice(n, m, replace=False)``, what
    ``DataFrame.sample`` does): ``numpy.random.seed(s)`` before the call, or ``seed=s``,
    reproduces SDMetrics' numbers.

    A compatibility convenience only: :class:`DisclosureProtection` computes the exact value at
    any size, faster than one SDMetrics iteration (full Adult, 45,222 x 48,842 rows, 4 keys:
    0.05 s; SDMetrics' exact metric 160 s). On the oracle's Adult tables (2,000 x 2,000 rows,
    4 keys, ``cap``) the exact cap_protection is 0.24120, the Estimate's 500 x 5 draw gives
    0.23906 and its 1000 x 10 default 0.24206; independent subsampling of real and synthetic rows
    biases the CAP when keys are sparse (a real key's synthetic class is thinned at random).

    Bugs of SDMetrics 0.32 reproduced (``docs/sdmetrics-differences.md``):

    * ``compute()`` ignores ``num_rows_subsample``, ``num_iterations`` and ``verbose`` (it
      always runs 1000 x 10 with a progress bar); ``compute_breakdown()`` honours them.
    """

    @classmethod
    def compute_breakdown(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        known_column_names: Sequence[str],
        sensitive_column_names: Sequence[str],
        computation_method: str = "cap",
        continuous_column_names: Sequence[str] | None = None,
        num_discrete_bins: int = 10,
        num_rows_subsample: int = 1000,
        num_iterations: int = 10,
        verbose: bool = True,
        *,
        seed: int | np.random.RandomState | None = None,
        allow_disjoint_levels: bool = False,
    ) -> dict[str, float]:
        """Score, mean subsample CAP protection and baseline protection.

        Parameters as :meth:`DisclosureProtection.compute_breakdown`, plus:

        num_rows_subsample
            Rows drawn from each table per iteration.
        num_iterations
            Number of iterations.
        verbose
            Show a progress bar with the running score.
        seed
            ``None`` (SDMetrics): NumPy's global legacy random state; an int or a
            ``numpy.random.RandomState``: that state (``seed=0`` equals SDMetrics after
            ``numpy.random.seed(0)``).
        allow_disjoint_levels
            As :meth:`DisclosureProtection.compute_breakdown`.
        """
        m = check_positive_int(num_rows_subsample, "num_rows_subsample")
        iterations = check_positive_int(num_iterations, "num_iterations")
        grid, baseline, method = cls._prepare(
            real_data, synthetic_data, known_column_names, sensitive_column_names,
            computation_method, continuous_column_names, num_discrete_bins,
            allow_disjoint_levels)
        state = random_state(seed)
        n_r, n_s = len(grid.cells_r), len(grid.cells_s)
        total, average = 0.0, float("nan")
        bar = tqdm(range(iterations), disable=not verbose,
                   desc="Estimating Disclosure Protection (Score=0.000)")
        for i in bar:
            rows_r = state.choice(n_r, min(m, n_r), replace=False)
            rows_s = state.choice(n_s, min(m, n_s), replace=False)
            total += grid.protection(method, rows_r, rows_s)
            average = total / (i + 1.0)
            bar.set_description(
                f"Estimating Disclosure Protection (Score={_score(average, baseline):.3f})")
        return {"score": _score(average, baseline), "cap_protection": average,
                "baseline_protection": baseline}

    @classmethod
    def compute(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        known_column_names: Sequence[str],
        sensitive_column_names: Sequence[str],
        computation_method: str = "cap",
        continuous_column_names: Sequence[str] | None = None,
        num_discrete_bins: int = 10,
        num_rows_subsample: int = 1000,
        num_iterations: int = 10,
        verbose: bool = True,
        *,
        seed: int | np.random.RandomState | None = None,
        allow_disjoint_levels: bool = False,
    ) -> float:
        """The breakdown's ``score``, with SDMetrics' bug: ``num_rows_subsample``,
        ``num_iterations`` and ``verbose`` are ignored (1000 x 10, progress bar shown)."""
        return cls.compute_breakdown(real_data, synthetic_data, known_column_names,
                                     sensitive_column_names, computation_method,
                                     continuous_column_names, num_discrete_bins, seed=seed,
                                     allow_disjoint_levels=allow_disjoint_levels)["score"]


__all__ = ["DisclosureProtection", "DisclosureProtectionEstimate", "baseline_protection",
           "bin_continuous"]
