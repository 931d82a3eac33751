"""Per-record membership-inference scores on one release: every attack, every scored record.

:func:`scores` is the entry point: members (the records the synthesis was made from), non-members
(records not used for it: the holdout), the synthetic data and, for the attacks that need
population data, a reference set (given, or split off the non-members with a seeded
permutation; never the records being scored). Each attack gives every member and every scored
non-member a score, higher meaning "more likely a member"
(:mod:`capkit.membership_inference.attacks`, :mod:`capkit.membership_inference.classifier`).

Cost, n scored records, m synthetic and r reference records (each attack's in detail:
:mod:`capkit.membership_inference.attacks`): the distance attacks (DCR, DCR-Diff, GAN-Leaks,
MC, DPI) are exact nearest-record searches, ball counts and k-nearest searches, about
``(n + m + r) log(m + r)`` plus the records within reach of each query (every pair in the
worst case: records whose sums, levels or k-d tree cells all fall within reach of one another,
as when most records are copies of a few); the classifier a gradient-boosting fit on ``m + r``
records and one prediction per scored record. DOMIAS's densities sum a kernel term over every
synthetic and reference record for each scored record, ``n x (m + r)``, and no exact method
does less (:mod:`capkit.membership_inference.kde`): past
:data:`capkit.data.record_sample.PAIR_BUDGET` record pairs they score a seeded sample of the
scored records, said in the output (``score_sample``;
:mod:`capkit.membership_inference.score_sample`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from capkit.distance.gower import encode, gower_columns
from capkit.errors import CapkitError
from capkit.membership_inference import attacks as _attacks
from capkit.membership_inference import score_sample as _sample
from capkit.membership_inference._inputs import Prepared, prepare
from capkit.membership_inference.classifier import classifier_scores

#: Every attack, in the column order of :func:`scores`.
ATTACKS = ("dcr", "dcr_diff", "gan_leaks", "gan_leaks_cal", "mc", "dpi", "domias",
           "domias_density", "classifier")
#: Attacks that need a reference set.
NEED_REFERENCE = frozenset({"dcr_diff", "gan_leaks_cal", "dpi", "domias", "classifier"})
COMPAT = (None, "domias")
DISTANCES = ("gower", "squared_euclidean")


def _gower(prep: Prepared) -> _attacks.Encoded:
    frames = {"members": prep.members, "nonmembers": prep.nonmembers,
              "synthetic": prep.synthetic}
    if len(prep.reference):
        frames["reference"] = prep.reference
    stacked = pd.concat(list(frames.values()), ignore_index=True)
    ranges = {}
    for column in prep.numeric:
        values = stacked[column]
        span = float(values.max()) - float(values.min()) if values.notna().any() else 0.0
        if not np.isfinite(span) or span <= 0:
            ranges[column] = 1.0  # constant column: every pair is 0 apart on it
    spec = gower_columns(frames, ranges=ranges, range_from=list(frames), missing="level")
    cat, _, num, _, w_cat = encode(spec, stacked, stacked.iloc[:1])
    n_x = len(prep.members) + len(prep.nonmembers)
    n_g = len(prep.synthetic)
    return _attacks.Encoded("gower", cat[:n_x], cat[n_x:n_x + n_g], cat[n_x + n_g:],
                            num[:n_x], num[n_x:n_x + n_g], num[n_x + n_g:], w_cat,
                            spec.total_weight)


def _raw(prep: Prepared) -> _attacks.Encoded:
    def arr(frame):
        return np.ascontiguousarray(frame[list(prep.numeric)].to_numpy(dtype=np.float64))
    x = np.concatenate([arr(prep.members), arr(prep.nonmembers)])
    g, r = arr(prep.synthetic), arr(prep.reference)
    empty = np.zeros((0, 0), dtype=np.int64)
    return _attacks.Encoded("squared", empty, empty, empty, x, g, r, np.zeros(0), 1.0)


def _density_columns(prep: Prepared, compat: bool) -> tuple[list[str], list[str]]:
    """Columns DOMIAS's densities use, and notes on those left out."""
    if compat:
        return list(prep.numeric), []
    notes, used = [], []
    frames = [prep.members, prep.nonmembers, prep.synthetic, prep.reference]
    for column in prep.numeric:
        if any(f[column].isna().any() for f in frames):
            notes.append(f"{column!r} (missing values)")
        elif (prep.synthetic[column].nunique() < 2
              or (len(prep.reference) and prep.reference[column].nunique() < 2)):
            notes.append(f"{column!r} (constant in the synthetic or reference data)")
        else:
            used.append(column)
    if prep.categorical:
        notes.append(f"categorical {list(prep.categorical)} (DOMIAS's Gaussian density is for "
                     "numeric columns)")
    return used, notes


def _scatter(values: np.ndarray | None, rows: np.ndarray, n: int) -> np.ndarray | None:
    """``values`` at ``rows`` of an array of ``n`` NaNs (None stays None)."""
    if values is None:
        return None
    out = np.full(n, np.nan)
    out[rows] = values
    return out


class Positions(list):
    """Record positions kept in a frame's ``attrs`` (a list: ``attrs`` are compared with
    ``==``). pandas deep-copies the ``attrs`` on every column read; the positions are ints,
    so a shallow copy is a deep one, made at once instead of element by element (which cost
    more than the read)."""

    def __deepcopy__(self, memo: dict) -> Positions:
        return Positions(self)


def scores(
    members: pd.DataFrame,
    nonmembers: pd.DataFrame,
    synthetic: pd.DataFrame,
    reference: pd.DataFrame | None = None,
    *,
    attacks: Sequence[str] = ATTACKS,
    compat: str | None = None,
    distance: str | None = None,
    seed: int = 0,
    k: int = 20,
    reference_fraction: float = 0.5,
    overlap: str = "refuse",
    classifier=None,
    score_sample: int | str | None = None,
) -> pd.DataFrame:
    """Membership score of every member and every scored non-member under each attack.

    Parameters
    ----------
    members
        The records the synthesis was made from.
    nonmembers
        Records not used for the synthesis (the holdout). Scored, except the part split off as
        the reference when ``reference`` is None.
    synthetic
        The released synthetic records.
    reference
        Population records the attacker holds (not scored, not used for the synthesis). None:
        a share ``reference_fraction`` of the non-members, drawn with ``seed``, is used, and
        only the others are scored (the attacks that need no reference are then scored on the
        same records, so that every column compares the same records).
    attacks
        Any of :data:`ATTACKS`: ``dcr``, ``dcr_diff``, ``gan_leaks``, ``gan_leaks_cal``, ``mc``,
        ``dpi``, ``domias``, ``domias_density``, ``classifier``.
    compat
        None (capkit's conventions) or ``"domias"``: DOMIAS 0.0.5's numbers (all columns
        numeric): squared Euclidean distances on the raw columns for every distance attack
        (``dcr`` is minus the squared distance), scipy's Gaussian KDE with Scott's rule on all
        columns and the additive 1e-10 (``domias`` = p_G / (p_R + 1e-10), ``domias_density`` =
        p_G), MC's epsilon the median squared distance. capkit's default: the Gower distance
        (numeric columns scaled by their range over the four frames, a categorical column 1
        when the levels differ, averaged over the columns; missing numbers 0 from another
        missing value and 1 from a number), and ``domias`` = log p_G - log p_R,
        ``domias_density`` = log p_G, computed without underflow on the numeric columns
        (categorical columns, columns with missing values and columns constant in the synthetic
        or reference data are left out, and the output's notes say so).
    distance
        The distance of the distance attacks (DCR, DCR-Diff, GAN-Leaks, MC, DPI): ``"gower"``
        (capkit's default, mixed types) or ``"squared_euclidean"`` (DOMIAS's: the raw numeric
        columns, unscaled, so the widest column dominates; numeric columns only). Default:
        Gower, or squared Euclidean with ``compat="domias"``.
    seed
        Seeds the reference split and the classifier.
    k
        Neighbours of DPI (20, as Synth-MIA's default).
    reference_fraction
        Share of the non-members split off as the reference when none is given.
    overlap
        Non-members identical to a member (or scored non-members identical to a reference
        record). ``"refuse"`` (default): they are population twins, different people with the
        same values, and are scored as they are (as domias 0.0.5 does; a note gives how many
        and how many the data's own duplicates predict); an error only when the non-members
        are the members themselves: more than half of them identical to a member and
        significantly more than the members' own duplicate rate predicts (exact binomial test
        at p < 0.001, :func:`capkit.data.overlap.record_overlap`). ``"allow"``: never an
        error. ``"strict"``: any identical record is an error.
    classifier
        A scikit-learn classifier for the ``classifier`` attack (default: histogram gradient
        boosting; :mod:`capkit.membership_inference.classifier`).
    score_sample
        Which scored records DOMIAS's densities score (the only attacks here costlier than
        n log n: ``n x (m + r)`` kernel terms; :mod:`capkit.membership_inference.score_sample`).
        None (default): every record while ``records x (m + r)`` stays within
        :data:`capkit.data.record_sample.PAIR_BUDGET` (2,000,000,000) per role, otherwise a
        seeded sample of ``max(1,000, budget // (m + r))`` members and as many scored
        non-members; an integer N >= 2: a seeded sample of N of each; ``"all"``: every record.
        The sample is of the scored records only, drawn with ``seed``; each sampled record is
        compared with every synthetic and reference record and gets the score the full run
        gives it. The other attacks always score every record.

    Returns
    -------
    pandas.DataFrame
        One row per scored record, the members first then the scored non-members, each in input
        order: ``member`` (bool) and one float column per attack. ``attrs["notes"]`` lists
        every treatment applied (reference split, columns left out of the density, missing
        values); ``attrs["settings"]`` the distance, MC's epsilon, k, compat, the sizes and
        ``scored_nonmembers``, the positions in ``nonmembers`` of the scored non-members.
        On a sample (``score_sample``), DOMIAS's columns are NaN outside it,
        ``settings["score_sample"]`` gives the attacks, sizes, seed and rule,
        ``settings["score_sample_rows"]`` the sampled rows of this frame, and a note beginning
        "SAMPLE ESTIMATE" says so.

    Raises
    ------
    CapkitError
        No non-members, fewer than 2 members or scored non-members, columns that differ or
        change kind, non-members that are the members (see ``overlap``), an unknown attack; with
        ``compat="domias"``, a non-numeric column or a missing value; a singular covariance for
        DOMIAS; a ``score_sample`` other than None, ``"all"`` or an integer >= 2.

    Notes
    -----
    None of the inputs is modified.
    """
    attacks = tuple(attacks)
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown or not attacks:
        raise CapkitError(f"attacks must be a non-empty subset of {list(ATTACKS)}, got "
                          f"{unknown or attacks}")
    if compat not in COMPAT:
        raise CapkitError(f"compat must be None or 'domias', got {compat!r}")
    k = int(k)
    if k < 1:
        raise CapkitError(f"k must be >= 1, got {k}")
    score_sample = _sample.check(score_sample)
    need_reference = any(a in NEED_REFERENCE for a in attacks)
    prep = prepare(members, nonmembers, synthetic, reference, seed=seed,
                   reference_fraction=reference_fraction, overlap=overlap,
                   need_reference=need_reference)
    notes = list(prep.notes)
    is_compat = compat == "domias"
    if distance is None:
        distance = "squared_euclidean" if is_compat else "gower"
    if distance not in DISTANCES:
        raise CapkitError(f"distance must be one of {list(DISTANCES)}, got {distance!r}")
    if is_compat or distance == "squared_euclidean":
        why = "compat='domias'" if is_compat else "distance='squared_euclidean'"
        if prep.categorical:
            raise CapkitError(f"{why} needs numeric columns only (DOMIAS takes a numeric "
                              f"array); categorical: {list(prep.categorical)}")
        frames = (prep.members, prep.nonmembers, prep.synthetic, prep.reference)
        bad = [c for c in prep.numeric if any(f[c].isna().any() for f in frames)]
        if bad:
            raise CapkitError(f"{why} cannot score missing values (DOMIAS's scores become "
                              f"NaN); columns {bad}")
    enc = _raw(prep) if distance == "squared_euclidean" else _gower(prep)
    settings = {"compat": compat, "distance": distance,
                "k": k, "seed": seed, "n_members": len(prep.members),
                "n_nonmembers": len(prep.nonmembers), "n_synthetic": len(prep.synthetic),
                "n_reference": len(prep.reference)}
    settings["scored_nonmembers"] = Positions(prep.scored_positions.tolist())
    out = {"member": prep.member}
    values: dict[str, np.ndarray] = {}
    d_g = d_r = None
    if {"dcr", "dcr_diff", "gan_leaks", "gan_leaks_cal", "mc"} & set(attacks):
        d_g = _attacks.distance_to(enc, "g")
    if {"dcr_diff", "gan_leaks_cal"} & set(attacks):
        d_r = _attacks.distance_to(enc, "r")
    if "dcr" in attacks:
        values["dcr"] = 0.0 - d_g  # 0.0, not -0.0, for an exact copy
    if "dcr_diff" in attacks:
        values["dcr_diff"] = d_r - d_g
    if "gan_leaks" in attacks:
        values["gan_leaks"] = np.exp(-d_g)
    if "gan_leaks_cal" in attacks:
        values["gan_leaks_cal"] = _attacks.logistic(-(d_g - d_r))
    if "mc" in attacks:
        values["mc"], settings["mc_epsilon"] = _attacks.mc(enc, d_g)
    if "dpi" in attacks:
        values["dpi"] = _attacks.dpi(enc, k)
    if {"domias", "domias_density"} & set(attacks):
        used, left_out = _density_columns(prep, is_compat)
        settings["density_columns"] = used
        if left_out:
            notes.append("left out of DOMIAS's densities: " + ", ".join(left_out))
        if used:
            def arr(frame):
                return np.ascontiguousarray(frame[used].to_numpy(dtype=np.float64))
            x = np.concatenate([arr(prep.members), arr(prep.nonmembers)])
            ref = arr(prep.reference) if "domias" in attacks else None
            compared = len(prep.synthetic) + (0 if ref is None else len(ref))
            drawn = _sample.plan(score_sample, len(prep.members), len(prep.nonmembers),
                                 compared, seed)
            rows = None if drawn is None else drawn.rows
            density, ratio, _ = _attacks.domias(x if rows is None else x[rows],
                                                arr(prep.synthetic), ref, compat=is_compat)
            if drawn is not None:  # the records outside the sample have no density score
                density, ratio = (_scatter(v, rows, len(x)) for v in (density, ratio))
                run = [a for a in _sample.SAMPLED if a in attacks]
                settings["score_sample"] = drawn.settings(run)
                settings["score_sample_rows"] = Positions(rows.tolist())
                notes.insert(0, _sample.note(settings["score_sample"]))
            values["domias_density"], values["domias"] = density, ratio
        else:
            notes.append("no numeric column for DOMIAS's densities: its scores are NaN")
            nan = np.full(len(out["member"]), np.nan)
            values["domias_density"], values["domias"] = nan, nan
    if "classifier" in attacks:
        values["classifier"] = classifier_scores(prep.scored, prep.synthetic, prep.reference,
                                                 prep.numeric, prep.categorical, seed=seed,
                                                 model=classifier)
    for attack in ATTACKS:
        if attack in attacks:
            out[attack] = np.asarray(values[attack], dtype=np.float64)
    frame = pd.DataFrame(out)
    frame.attrs["notes"] = notes
    frame.attrs["settings"] = settings
    return frame


__all__ = ["ATTACKS", "COMPAT", "DISTANCES", "NEED_REFERENCE", "scores"]
