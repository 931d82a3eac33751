"""``capkit cap ORIGINAL SYNTHETIC... --keys ... --targets ...``: Baillargeon & Charest's
average CAP (Definitions 2 and 3), the baseline, the intruder's correct predictions, and
optionally the CAP of every original record (``--records FILE``).

The report is in percent, as the ``capkit disclosure`` report (where DCAP = CAP v1); the
records file holds each record's CAP as a probability in [0, 1] (Definition 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from capkit.cli import options as opts
from capkit.errors import CapkitError, DisjointLevelsError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from capkit.cli.files import Inputs

#: Counting engines of ``capkit cap``: those of ``capkit.counts.tables.crosstab(..., engine=...)``.
CAP_ENGINES = ("pandas", "duckdb", "spark")


@dataclass
class CapRun:
    """Results of ``capkit cap``: one row per (target, synthesis) in percent, per-record CAPs,
    and the warnings of the measures (e.g. a continuous target)."""

    table: pd.DataFrame
    inputs: Inputs
    dropna: bool
    records: pd.DataFrame | None = None
    warnings: list[str] = field(default_factory=list)


def _crosstab(inputs: Inputs, j: int, target: str, options: dict[str, object]) -> object:
    """The counts of target x keys for synthesis j (1-based), with the holdout's on the same
    grid when there is one; a disjoint column's error names the synthetic file when there are
    several."""
    from capkit.counts.tables import crosstab

    if inputs.holdout is not None:
        options = {**options, "holdout": inputs.holdout}
    try:
        return crosstab(inputs.original, inputs.synthetics[j - 1], inputs.keys, target,
                        **options)
    except DisjointLevelsError as exc:
        where = "" if len(inputs.synthetics) == 1 else f"synthetic file {j}: "
        if exc.reason is None:
            raise DisjointLevelsError(f"{where}{exc}") from exc
        # the hint names the options of this command (it has no --ngroups-keys)
        raise DisjointLevelsError(
            f"{where}{exc.role} column {exc.column!r}: {exc.reason}. Recode one file to the "
            "other's levels, leave the column out (--keys / --targets), or pass "
            "--allow-disjoint-levels to measure anyway", column=exc.column, role=exc.role,
            reason=exc.reason) from exc


def compute_cap(inputs: Inputs, *, dropna: bool = False, engine: str = "pandas",
                quiet: bool = True, with_records: bool = False,
                allow_disjoint_levels: bool = False) -> CapRun:
    """Average CAP v1/v2 (Definitions 2-3), baseline and correct predictions per target and
    synthesis in percent, from one :func:`capkit.counts.tables.crosstab` per pair; per-record
    CAP (Definition 1, a probability) when ``with_records``: ``cap_<target>_syn<j>``, empty
    where the record's key does not occur in synthetic file j (no guess) or the record was
    left out by ``dropna``. With ``inputs.holdout`` each row adds the holdout's CAP v1, the
    difference and the risk of the membership control (:class:`capkit.cap.CapControl`)."""
    import numpy as np
    import pandas as pd

    from capkit import cap as capm

    if engine not in CAP_ENGINES:
        raise CapkitError(f"engine must be one of {CAP_ENGINES}, got {engine!r}")
    if with_records and engine != "pandas":
        raise CapkitError("--records needs --engine pandas: the other engines count without "
                          "bringing records back to Python")
    if inputs.holdout is not None and engine != "pandas":
        raise CapkitError(f"--holdout needs --engine pandas, got --engine {engine}")
    count_options: dict[str, object] = {"dropna": dropna,
                                        "allow_disjoint_levels": allow_disjoint_levels}
    if engine != "pandas":
        count_options["engine"] = engine
    m = len(inputs.synthetics)
    rows = []
    record_columns: dict[str, np.ndarray] = {}
    with opts.progress(len(inputs.targets) * m, quiet, "target x synthesis") as bar:
        for target in inputs.targets:
            bar.set_description_str(target, refresh=False)
            for j in range(1, m + 1):
                table = _crosstab(inputs, j, target, count_options)
                o, s = table.original, table.synthetic
                n = int(o.sum())
                if n == 0:
                    raise CapkitError(f"target {target!r}: no original record left after "
                                      "--dropna")
                if int(s.sum()) == 0:
                    raise CapkitError(f"target {target!r}: no record of synthetic file {j} "
                                      "left after --dropna")
                m_j = np.asarray(s.sum(axis=0)).ravel()
                covered = int(np.asarray(o.sum(axis=0)).ravel()[m_j > 0].sum())
                v2 = capm.average_cap(o, s, 2) if covered > 0 else float("nan")
                control = None if table.holdout is None else capm.average_cap(
                    o, s, 1, holdout=table.holdout)
                rows.append({
                    "target": target, "synthesis": j, "records": n,
                    "baseline": 100 * (capm.baseline_cap(o) if control is None
                                       else control.baseline_members),
                    "CAP v1": 100 * (capm.average_cap(o, s, 1) if control is None
                                     else control.members),
                    "CAP v2": 100 * v2,
                    "correct predictions": 100 * capm.correct_predictions(o, s) / n,
                    "key not in synthetic": 100 * (1 - covered / n),
                })
                if control is not None:
                    low, high = control.comparison.risk_ci
                    rows[-1].update({
                        "holdout records": control.n_holdout,
                        "holdout CAP v1": 100 * control.holdout,
                        "difference": 100 * control.difference,
                        "risk": 100 * control.comparison.risk,
                        "risk low": 100 * low, "risk high": 100 * high})
                if with_records:
                    individual = capm.individual_cap(o, s)
                    i, jj = table.record_cell[:, 0], table.record_cell[:, 1]
                    values = np.full(len(i), np.nan)
                    kept = i >= 0
                    kept[kept] = m_j[jj[kept]] > 0  # a key absent from S: no guess, NA
                    if hasattr(individual, "tocsr"):
                        values[kept] = np.asarray(individual.tocsr()[i[kept], jj[kept]]).ravel()
                    else:
                        values[kept] = individual[i[kept], jj[kept]]
                    record_columns[f"cap_{target}_syn{j}"] = values
                bar.update(1)
    records = None
    if with_records:
        records = inputs.original[inputs.keys + inputs.targets].copy()
        records.insert(0, "record", np.arange(1, len(records) + 1))
        for name, values in record_columns.items():
            records[name] = values
    return CapRun(pd.DataFrame(rows), inputs, dropna, records)


@click.command()
@opts.common_options
@click.option("--engine", type=click.Choice(CAP_ENGINES), default="pandas", show_default=True,
              help="Counting engine (duckdb/spark: capkit.counts.tables.crosstab's engines; "
                   "--records needs pandas).")
@click.option("--targets", "--target", "targets", required=True, metavar="T1,T2,...",
              help="Target column(s); each is measured on its own.")
@click.option("--dropna", is_flag=True,
              help="Leave out records with a missing key or target (default: missing is a "
                   "level of its own).")
@opts.HOLDOUT
@click.option("--records", type=click.Path(path_type=Path), default=None,
              help="Write the CAP of every original record to this CSV file: one column "
                   "cap_<target>_syn<j> per target and synthesis, a probability in [0, 1], "
                   "empty where the record's key is absent from synthetic file j.")
@opts.ESCAPE_FORMULAS
def cap(files: tuple[Path, ...], keys: str, fmt: str, output: Path | None, na_values: str,
        sep: str | None, allow_disjoint_levels: bool, engine: str, quiet: bool, targets: str,
        dropna: bool, holdout: Path | None, records: Path | None,
        escape_formulas: bool) -> None:
    """Baillargeon & Charest's CAP of SYNTHETIC file(s) made from the ORIGINAL file.

    For each target and synthesis, in percent: the average CAP version 1 (Definition 2: over
    all original records, an unmatched key counting 0) and version 2 (Definition 3: over
    records whose key appears in the synthetic data), the baseline CAP (sum of squared target
    shares), and the share of original records an intruder predicts right with the most
    frequent synthetic target of their key. ``--records FILE`` writes the individual CAP
    (Definition 1, a probability) of every original record. ``--holdout FILE`` adds the CAP of
    records that were not used for the synthesis, and the membership control.
    """

    def body() -> None:
        from capkit.cli.files import load_inputs
        from capkit.report import render
        from capkit.report.cap import cap_report

        original, synthetic = opts.original_and_synthetic(files)
        key_list = opts.split(keys, "--keys")
        target_list = opts.split(targets, "--targets")
        opts.check_outputs([*files, holdout], ("--output", output, None),
                           ("--records", records, (".csv",)))
        if records is not None and engine != "pandas":
            raise CapkitError("--records needs --engine pandas: the other engines count "
                              "without bringing records back to Python")
        opts.check_holdout(holdout, engine)
        inputs = load_inputs(original, synthetic, key_list, target_list, na_values.split(","),
                             sep=sep, target_na_option="--dropna", holdout=holdout)
        opts.notes(inputs, quiet)
        with opts.measure_warnings(quiet) as found:
            result = compute_cap(inputs, dropna=dropna, engine=engine, quiet=quiet,
                                 with_records=records is not None,
                                 allow_disjoint_levels=allow_disjoint_levels)
        result.warnings = found
        report = cap_report(result, opts.command_line(), opts.versions())
        text = render(report, fmt)
        opts.emit(text, output)
        if records is not None:
            opts.write_csv(result.records, records, "--records", escape_formulas)

    opts.run_reporting_errors(body)

