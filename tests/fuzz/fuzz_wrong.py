"""Throw the plausible-wrong inputs a careless user passes at every ``capkit`` command that
takes a synthesis, in text and json, and check that none yields a confident verdict without
saying what is wrong, and that no input file changes.

Run it on its own, with a seed and a number of random frames::

    python tests/fuzz/fuzz_wrong.py --seed 7 --frames 3 [--keep FOLDER]

Each frame is a small random population (seeded): ``age`` (18-90, a numeric key with more than
20 values), ``sex``, ``region``, ``flag`` (true/false), ``occupation`` (the target) and
``income``, split into members and holdout. The traps, each built from the frame:

* ``holdout_twins``: a synthesis of half verbatim members and half verbatim holdout records,
  given with that holdout;
* ``key_shift``: an exact copy of the members with ``age + 1``, no holdout;
* ``inf``: a resample of the members with ``inf`` in 20 cells of ``age``;
* ``size``: a resample ten times the members' size;
* ``bool``: a resample with ``flag`` written 1/0 against the members' True/False.

The rule per trap is fixed here, before any run (:data:`EXPECTED`, the texts capkit's own
warnings carry: capkit/data/overlap.py, capkit/data/coding.py, capkit/audit/inputs.py,
capkit/data/align.py): a run passes when it exits 0 and its stdout, stderr (or json) carry the
trap's text, or when it exits 1 with one ``Error:`` line naming the problem (never a
traceback). Every input file has the same SHA-256 after the run as before.

tests/fuzz/test_fuzz_wrong.py runs one fixed seed in the normal suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

#: The text each trap's warning or refusal must carry (case-insensitive regular expressions).
EXPECTED = {
    "holdout_twins": r"control is contaminated",
    "key_shift": r"coded differently",
    "inf": r"infinite",
    "size": r"times the original's records",
    "bool": r"true/false",
}

#: The commands that take each trap (a trap that needs a holdout goes to the commands with
#: ``--holdout``; key coding to the commands that match keys; ``membership`` needs a holdout).
COMMANDS = {
    "holdout_twins": ["report", "disclosure", "cap", "attack", "membership"],
    "key_shift": ["report", "disclosure", "cap", "attack"],
    "inf": ["report", "disclosure", "cap", "attack", "membership", "utility"],
    "size": ["report", "disclosure", "cap", "attack", "membership", "utility"],
    "bool": ["report", "disclosure", "cap", "attack", "membership", "utility"],
}

FORMATS = ("text", "json")
KEYS = "age,sex,region,flag"
TARGET = "occupation"


def population(seed: int, n: int = 400) -> pd.DataFrame:
    """A random small population, ``n`` records (seeded)."""
    rng = np.random.default_rng(seed)
    region = rng.integers(0, 5, n)
    return pd.DataFrame({
        "age": rng.integers(18, 91, n),
        "sex": rng.choice(["F", "M"], n),
        "region": np.array(["north", "south", "east", "west", "centre"])[region],
        "flag": rng.random(n) < 0.4,
        "occupation": np.array([f"job{j}" for j in range(8)])[(region + rng.integers(0, 3, n))
                                                              % 8],
        "income": np.round(rng.lognormal(10, 0.5, n), 2),
    })


def traps(seed: int) -> dict[str, tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]]:
    """Each trap's (members, synthesis, holdout or None), built from one seeded population."""
    rng = np.random.default_rng(seed + 1)
    frame = population(seed)
    members, holdout = frame.iloc[:200].reset_index(drop=True), frame.iloc[200:].reset_index(
        drop=True)
    resample = members.sample(len(members), replace=True, random_state=int(rng.integers(2**31)))
    resample = resample.reset_index(drop=True)
    twins = pd.concat([members.iloc[:100], holdout.iloc[:100]], ignore_index=True)
    shifted = members.assign(age=members["age"] + 1)
    with_inf = resample.astype({"age": float})
    with_inf.loc[rng.choice(len(with_inf), 20, replace=False), "age"] = np.inf
    ten = members.sample(10 * len(members), replace=True,
                         random_state=int(rng.integers(2**31))).reset_index(drop=True)
    coded = resample.assign(flag=resample["flag"].astype(int))
    return {"holdout_twins": (members, twins, holdout), "key_shift": (members, shifted, None),
            "inf": (members, with_inf, None if rng.random() < 0.5 else holdout),
            "size": (members, ten, holdout), "bool": (members, coded, holdout)}


@dataclass
class Run:
    trap: str
    command: str
    fmt: str
    args: list[str]
    inputs: list[Path]


def runs(seed: int, folder: Path) -> list[Run]:
    """Write each trap's files into ``folder`` and list every (trap, command, format) run."""
    out = []
    for trap, (members, synthetic, holdout) in traps(seed).items():
        paths = {}
        for role, frame in (("members", members), ("synthetic", synthetic),
                            ("holdout", holdout)):
            if frame is not None:
                paths[role] = folder / f"{trap}_{role}.csv"
                frame.to_csv(paths[role], index=False)
        hold = paths.get("holdout")
        for command in COMMANDS[trap]:
            if command == "membership" and hold is None:
                hold = folder / f"{trap}_holdout.csv"
                traps(seed)["size"][2].to_csv(hold, index=False)
                paths["holdout"] = hold
            m, s = str(paths["members"]), str(paths["synthetic"])
            args = {
                "report": [m, s, "--keys", KEYS, "--targets", TARGET],
                "disclosure": [m, s, "--keys", KEYS, "--targets", TARGET],
                "cap": [m, s, "--keys", KEYS, "--targets", TARGET],
                "attack": [m, s, "--keys", KEYS, "--targets", TARGET, "--seed", "0"],
                "membership": [m, s, "--attacks", "dcr,mc", "--exposed-by", "dcr"],
                "utility": [s, "--original", m],
            }[command]
            if hold is not None and command != "utility":
                args += ["--holdout", str(hold)]
            for fmt in FORMATS:
                out.append(Run(trap, command, fmt, [command, *args, "--format", fmt],
                               list(paths.values())))
    return out


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check(run: Run, code: int, stdout: str, stderr: str) -> list[str]:
    """The problems of one run under the trap's fixed rule (empty when it passes)."""
    problems = []
    if "Traceback" in stderr or code not in (0, 1):
        problems.append(f"status {code}, traceback: {stderr.strip().splitlines()[-1:]}")
        return problems
    if code == 1:
        if not re.search(EXPECTED[run.trap], stderr + stdout, re.I):
            problems.append(f"refused without naming the trap: {stderr.strip()[:300]}")
        return problems
    if run.fmt == "json":
        try:
            json.loads(stdout)
        except ValueError as exc:
            problems.append(f"json does not parse: {exc}")
    if not re.search(EXPECTED[run.trap], stdout + stderr, re.I):
        problems.append(f"no {EXPECTED[run.trap]!r} in the output")
    return problems


def run_all(seed: int, folder: Path, only: list[tuple[str, str]] | None = None
            ) -> list[str]:
    """Run every trap at every command and format (or ``only`` those (trap, command) pairs);
    return the failures, one line each."""
    from click.testing import CliRunner

    from capkit.cli.main import main

    failures = []
    for run in runs(seed, folder):
        if only is not None and (run.trap, run.command) not in only:
            continue
        before = {p: digest(p) for p in run.inputs}
        done = CliRunner().invoke(main, run.args)
        stderr = done.stderr + ("Traceback " + repr(done.exception)
                                if done.exception and not isinstance(done.exception, SystemExit)
                                else "")
        problems = check(run, done.exit_code, done.stdout, stderr)
        problems += [f"{p.name} changed" for p, h in before.items() if digest(p) != h]
        failures += [f"seed {seed} {run.trap} x {run.command} ({run.fmt}): {p}"
                     for p in problems]
    return failures


def cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--frames", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args(argv)
    failures = []
    for j in range(args.frames):
        folder = Path(tempfile.mkdtemp(prefix="capkit_fuzz_wrong_"))
        try:
            failures += run_all(args.seed + j, folder)
        finally:
            if args.keep is not None:
                shutil.copytree(folder, args.keep / f"seed{args.seed + j}", dirs_exist_ok=True)
            shutil.rmtree(folder)
    print("\n".join(failures) if failures else "no failure")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(cli())
