"""SDMetrics' ``DCRBaselineProtection`` and ``DCROverfittingProtection``.

SDMetrics 0.32 (``single_table/privacy/dcr_baseline_protection.py``,
``dcr_overfitting_protection.py``; docs/sdmetrics-differences.md), on
the distance to closest record of :func:`capkit.sdmetrics.dcr_distance.calculate_dcr`:

* **DCRBaselineProtection**: ``min(median DCR(synthetic -> real) / median DCR(random -> real),
  1)``, the random table drawn column by column from the real data's ranges and values;
* **DCROverfittingProtection**: ``min(2 * share of synthetic records not closer to the training
  data than to the holdout, 1)``.

Both optionally average over subsamples (``num_rows_subsample``, ``num_iterations``). The
random numbers are SDMetrics': the random table from ``numpy.random.default_rng(seed)`` (seed
the class attribute ``DCRBaselineProtection._seed``, default None), its missing-value mask and
every subsample from NumPy's legacy global state. ``seed=s`` sets both (``seed=0`` equals
SDMetrics with ``_seed = 0`` after ``numpy.random.seed(0)``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from capkit.errors import CapkitError
from capkit.sdmetrics.dcr_distance import calculate_dcr
from capkit.sdmetrics.inputs import check_frames, random_state, single_table_metadata


def _subsampling(num_rows_subsample: int | None, num_iterations: int, n_synthetic: int
                 ) -> tuple[int | None, int]:
    """SDMetrics' rules: m an int >= 1 or None, iterations an int >= 1 and 1 without m; m
    larger than the synthetic data switches subsampling off with a warning."""
    if num_rows_subsample is not None and (
            not isinstance(num_rows_subsample, (int, np.integer)) or num_rows_subsample < 1):
        raise CapkitError(f"num_rows_subsample ({num_rows_subsample!r}) must be an integer "
                          "greater than 1.")
    if not isinstance(num_iterations, (int, np.integer)) or num_iterations < 1:
        raise CapkitError(f"num_iterations ({num_iterations!r}) must be an integer greater "
                          "than 1.")
    if num_rows_subsample is None and num_iterations > 1:
        raise CapkitError("num_iterations should not be greater than 1 if there is no "
                          "subsampling.")
    if num_rows_subsample is not None and num_rows_subsample > n_synthetic:
        warnings.warn(f"num_rows_subsample ({num_rows_subsample}) is greater than the length of "
                      f"the synthetic data ({n_synthetic}). Ignoring the num_rows_subsample and "
                      "num_iterations args.", stacklevel=3)
        return None, 1
    return num_rows_subsample, int(num_iterations)


def _check_sample_size(m: int | None, frames: dict[str, pd.DataFrame]) -> None:
    for name, frame in frames.items():
        if m is not None and m > len(frame):
            raise CapkitError(f"num_rows_subsample ({m}) is larger than {name} ({len(frame)} "
                              "rows): rows are drawn without replacement")


def _sample(frame: pd.DataFrame, m: int | None, state: np.random.RandomState) -> pd.DataFrame:
    """``frame.sample(n=m)`` with the given legacy state (the same draw), or the frame."""
    if m is None:
        return frame
    return frame.iloc[state.choice(len(frame), m, replace=False)]


def random_table(real: pd.DataFrame, n: int, rng: np.random.Generator,
                 state: np.random.RandomState) -> pd.DataFrame:
    """SDMetrics' random baseline table: n rows, every column of ``real``, column by column.

    Integer columns: ``rng.integers(min, max + 1)``; float columns: ``rng.uniform(min, max)``;
    datetimes: min + ``rng.uniform(0, seconds of the range)`` seconds; anything else:
    ``rng.choice`` of the distinct non-missing values (order of first appearance), uniform over
    values, not over records. Then each column gets missing values where
    ``state.rand(n) < share missing in real`` (drawn for every column). A column with no value in
    ``real`` is all missing (SDMetrics fails on it).
    """
    columns = {}
    for column in real.columns:
        values = real[column]
        share_missing = float(values.isna().mean())
        present = values.dropna()
        if len(present) == 0:
            drawn = pd.Series(np.full(n, np.nan))
        elif pdt.is_integer_dtype(values.dtype):
            drawn = pd.Series(rng.integers(low=present.min(), high=present.max() + 1, size=n))
        elif pdt.is_float_dtype(values.dtype):
            drawn = pd.Series(rng.uniform(low=present.min(), high=present.max(), size=n))
        elif pdt.is_datetime64_any_dtype(values.dtype):
            low, high = present.min(), present.max()
            seconds = (high - low).total_seconds()
            drawn = pd.Series(low + pd.to_timedelta(rng.uniform(0, seconds, size=n), unit="s"))
        else:
            drawn = pd.Series(rng.choice(np.asarray(present.unique()), size=n))
        mask = state.rand(n) < share_missing
        columns[column] = drawn.where(~mask) if mask.any() else drawn
    return pd.DataFrame(columns)


class DCRBaselineProtection:
    """SDMetrics' ``DCRBaselineProtection``: synthetic DCR relative to random data's DCR.

    ``score = min(median DCR(S -> R) / median DCR(random -> R), 1)``, NaN when the random
    median is 0 (module docstring). Same signature and result as SDMetrics 0.32; the DCR is
    exact without SDMetrics' cross joins (Adult 45,222 x 48,842: seconds, SDMetrics > 600 s).

    SDMetrics behaviours reproduced (``docs/sdmetrics-differences.md``):

    * the random table is uniform over each column's *distinct* values, not their frequencies;
    * its seed is the private class attribute ``_seed`` (default None: unseeded) and its
      missing-value mask and the subsamples use NumPy's *global* legacy state; capkit adds
      ``seed=`` for both;
    * subsampling draws synthetic, random and real rows independently.

    Differences: ``num_rows_subsample`` larger than the real table is a clear
    :class:`~capkit.errors.CapkitError` (SDMetrics checks only the synthetic size and then
    fails inside pandas); empty tables and missing metadata are CapkitErrors too.
    """

    name = "DCRBaselineProtection"
    goal = "maximize"
    min_value = 0.0
    max_value = 1.0
    CHUNK_SIZE = 1000
    _seed: int | None = None

    @classmethod
    def compute_breakdown(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        metadata: dict,
        table_name: str | None = None,
        num_rows_subsample: int | None = None,
        num_iterations: int = 1,
        *,
        seed: int | None = None,
        progress: bool | None = None,
    ) -> dict:
        """Score and the two median DCRs (SDMetrics' breakdown).

        Parameters
        ----------
        real_data, synthetic_data
            The tables (not modified). The random table has ``len(synthetic_data)`` rows and
            every column of ``real_data``.
        metadata, table_name
            SDMetrics' metadata (required): which columns the DCR compares and how.
        num_rows_subsample, num_iterations
            Average over ``num_iterations`` subsamples of this many rows of each table.
        seed
            Seeds the random table (``numpy.random.default_rng(seed)``) and the legacy state of
            the missing-value mask and the subsamples (``RandomState(seed)``). ``None``:
            SDMetrics' sources, ``cls._seed`` and NumPy's global state.
        progress
            Progress bars of the DCR searches (default: for more than 20,000 records).

        Returns
        -------
        dict
            ``{"score", "median_DCR_to_real_data": {"synthetic_data",
            "random_data_baseline"}}``; averages over the iterations when subsampling.
        """
        if metadata is None:
            raise CapkitError("metadata is required (SDMetrics' single-table metadata dict)")
        metadata = single_table_metadata(metadata, table_name)
        check_frames({"real_data": real_data, "synthetic_data": synthetic_data},
                     same_columns=False)
        m, iterations = _subsampling(num_rows_subsample, num_iterations, len(synthetic_data))
        _check_sample_size(m, {"real_data": real_data})
        rng = np.random.default_rng(cls._seed if seed is None else seed)
        state = random_state(seed)
        random_data = random_table(real_data, len(synthetic_data), rng, state)
        sum_synthetic = sum_random = sum_score = 0.0
        for _ in range(iterations):
            synthetic_sample = _sample(synthetic_data, m, state)
            random_sample = _sample(random_data, m, state)
            real_sample = _sample(real_data, m, state)
            synthetic_median = float(np.median(calculate_dcr(synthetic_sample, real_sample,
                                                             metadata, progress=progress)))
            random_median = float(np.median(calculate_dcr(random_sample, real_sample, metadata,
                                                          progress=progress)))
            score = np.nan
            if random_median != 0.0:
                score = min(synthetic_median / random_median, 1.0)
            sum_synthetic += synthetic_median
            sum_random += random_median
            sum_score += score
        if sum_random == 0.0:
            sum_score = np.nan
        return {"score": sum_score / iterations,
                "median_DCR_to_real_data": {"synthetic_data": sum_synthetic / iterations,
                                            "random_data_baseline": sum_random / iterations}}

    @classmethod
    def compute(
        cls,
        real_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        metadata: dict,
        table_name: str | None = None,
        num_rows_subsample: int | None = None,
        num_iterations: int = 1,
        *,
        seed: int | None = None,
        progress: bool | None = None,
    ) -> float:
        """The breakdown's ``score`` (:meth:`compute_breakdown`)."""
        return cls.compute_breakdown(real_data, synthetic_data, metadata, table_name,
                                     num_rows_subsample, num_iterations, seed=seed,
                                     progress=progress)["score"]


#: Two DCRs closer than this are equal: the same distance summed in another order.
TIE_TOLERANCE = 8 * np.finfo(np.float64).eps


def closer_to_training(to_training: np.ndarray, to_holdout: np.ndarray) -> np.ndarray:
    """Synthetic records strictly closer to the training data than to the holdout.

    A tie counts as "closer to the holdout", as in SDMetrics (``dcr_real < dcr_holdout``). A
    tie is decided on the distances, not on their rounding: SDMetrics and capkit add the same
    per-column terms in different orders, so an exact tie can come out as a difference of one
    unit in the last place (5.6e-17) on either side. Differences within
    :data:`TIE_TOLERANCE` (8 ulps of 1; DCRs lie in [0, 1]) are therefore ties.
    """
    return to_training < to_holdout - TIE_TOLERANCE


class DCROverfittingProtection:
    """SDMetrics' ``DCROverfittingProtection``: are synthetic records closer to the training
    data than to a holdout?

    ``closer_to_training`` = share of synthetic records whose DCR to the training data is
    strictly below their DCR to the holdout; ``score = min(2 * (1 - closer_to_training), 1)``.
    Same signature and result as SDMetrics 0.32.

    SDMetrics behaviours reproduced (``docs/sdmetrics-differences.md``):

    * a tie (equal DCR to both) counts as closer to the holdout, so a verbatim copy of records
      that are in both sets looks safe (capkit's own :func:`capkit.distance.holdout_comparison`
      counts a tie as one half); a tie is a difference within :data:`TIE_TOLERANCE`, so that
      SDMetrics' and capkit's different summation orders cannot split it
      (:func:`closer_to_training`);
    * the two DCRs normalise numeric columns by different ranges (the training data's and the
      holdout's); capkit's own comparison uses one range for both.

    Differences: ``num_rows_subsample`` larger than the training data or the holdout is a
    :class:`~capkit.errors.CapkitError` (SDMetrics fails inside pandas).
    """

    name = "DCROverfittingProtection"
    goal = "maximize"
    min_value = 0.0
    max_value = 1.0
    CHUNK_SIZE = 1000

    @classmethod
    def compute_breakdown(
        cls,
        real_training_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        real_validation_data: pd.DataFrame,
        metadata: dict,
        table_name: str | None = None,
        num_rows_subsample: int | None = None,
        num_iterations: int = 1,
        *,
        seed: int | None = None,
        progress: bool | None = None,
    ) -> dict:
        """Score and the shares of synthetic records closer to training / holdout.

        Parameters
        ----------
        real_training_data, synthetic_data, real_validation_data
            Training data (synthesised from), synthetic data, holdout (not used to synthesise).
            None is modified.
        metadata, table_name, num_rows_subsample, num_iterations, progress
            As :meth:`DCRBaselineProtection.compute_breakdown`.
        seed
            Legacy state of the subsamples (``RandomState(seed)``); ``None``: NumPy's global
            state, as SDMetrics.

        Returns
        -------
        dict
            ``{"score", "synthetic_data_percentages": {"closer_to_training",
            "closer_to_holdout"}}``; averages over the iterations when subsampling.
        """
        if metadata is None:
            raise CapkitError("metadata is required (SDMetrics' single-table metadata dict)")
        metadata = single_table_metadata(metadata, table_name)
        frames = {"real_training_data": real_training_data, "synthetic_data": synthetic_data,
                  "real_validation_data": real_validation_data}
        check_frames(frames, same_columns=False)
        m, iterations = _subsampling(num_rows_subsample, num_iterations, len(synthetic_data))
        if len(real_training_data) * 0.5 > len(real_validation_data):
            warnings.warn(f"Your real_validation_data contains {len(real_validation_data)} rows "
                          f"while your real_training_data contains {len(real_training_data)} "
                          "rows. For most accurate results, we recommend that the validation "
                          "data at least half the size of the training data.", stacklevel=2)
        _check_sample_size(m, {"real_training_data": real_training_data,
                               "real_validation_data": real_validation_data})
        state = random_state(seed)
        sum_score = sum_training = sum_holdout = 0.0
        for _ in range(iterations):
            synthetic_sample = _sample(synthetic_data, m, state)
            training_sample = _sample(real_training_data, m, state)
            holdout_sample = _sample(real_validation_data, m, state)
            to_training = calculate_dcr(synthetic_sample, training_sample, metadata,
                                        progress=progress).to_numpy()
            to_holdout = calculate_dcr(synthetic_sample, holdout_sample, metadata,
                                       progress=progress).to_numpy()
            closer = float(closer_to_training(to_training, to_holdout).sum()) / len(to_training)
            sum_score += min((1.0 - closer) * 2, 1.0)
            sum_training += closer
            sum_holdout += 1 - closer
        return {"score": sum_score / iterations,
                "synthetic_data_percentages": {"closer_to_training": sum_training / iterations,
                                               "closer_to_holdout": sum_holdout / iterations}}

    @classmethod
    def compute(
        cls,
        real_training_data: pd.DataFrame,
        synthetic_data: pd.DataFrame,
        real_validation_data: pd.DataFrame,
        metadata: dict,
        table_name: str | None = None,
        num_rows_subsample: int | None = None,
        num_iterations: int = 1,
        *,
        seed: int | None = None,
        progress: bool | None = None,
    ) -> float:
        """The breakdown's ``score`` (:meth:`compute_breakdown`)."""
        return cls.compute_breakdown(real_training_data, synthetic_data, real_validation_data,
                                     metadata, table_name, num_rows_subsample, num_iterations,
                                     seed=seed, progress=progress)["score"]


__all__ = ["TIE_TOLERANCE", "DCRBaselineProtection", "DCROverfittingProtection",
           "closer_to_training", "random_table"]
