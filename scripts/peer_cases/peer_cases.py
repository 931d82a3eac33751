"""Draw fresh conformance cases from the peers themselves.

    python scripts/peer_cases/peer_cases.py syntheval [--seeds 1 2 3 ...]
    python scripts/peer_cases/peer_cases.py sdmetrics [--seeds ...]
    python scripts/peer_cases/peer_cases.py domias [--seeds ...]
    python scripts/peer_cases/peer_cases.py pycanon [--seeds ...]
    python scripts/peer_cases/peer_cases.py anonymeter [--seeds ...]
    python scripts/peer_cases/peer_cases.py sdmetrics-oracle-knn --oracle DIR

(the last re-runs the k-NN calls of the shipped SDMetrics oracle, ``reference/sdmetrics``, under
every numpy CPU dispatch, into ``reference/sdmetrics/knn_dispatch.json``; DIR holds the oracle's
``members.csv.gz``, ``synthetic.csv.gz`` and ``results.json``).

Each peer is installed, at the version capkit's face reproduces, in its own cached virtual
environment ``$CAPKIT_PEERS_DIR/<peer>`` (default ``build/peers/<peer>``; made once with
``python3 -m venv`` and ``pip install``, reused while its requirements are unchanged). The
peer's driver (``drive_<peer>.py``, numpy and pandas and the peer only) draws random tables
(``draw.py``: ties, population twins, verbatim copies, missing values), runs the peer as a user
would and writes each case, inputs and outputs, gzipped, to ``reference/<peer>/drawn/``; the
conformance tests ``tests/test_peer_drawn_<peer>.py`` compare capkit on every stored case.
Nothing here is imported by capkit or by the tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: What each peer's environment holds (the versions capkit's faces reproduce).
PEERS = {
    "syntheval": ["syntheval==1.7.3", "lightgbm==4.7.0", "scikit-learn==1.9.1"],
    "sdmetrics": ["sdmetrics==0.32.0", "scikit-learn==1.9.1", "numpy==2.4.6"],
    # torch first, at the CPU build this machine keeps on disk (a plain "torch" pulls CUDA)
    "domias": ["torch==2.13.0", "domias==0.0.5", "numpy==2.4.6", "scipy==1.17.1"],
    "pycanon": ["pycanon==1.3.6", "numpy==2.0.2", "pandas==2.3.3", "scipy==1.15.3"],
    "anonymeter": ["anonymeter==1.1.0", "numpy==1.26.4", "scipy==1.17.1"],
}
KEY_PACKAGES = {"syntheval", "sdmetrics", "scikit-learn", "numpy", "pandas", "lightgbm", "scipy",
                "domias", "anonymeter", "pycanon", "torch"}
#: numpy CPU dispatches each run is repeated under (``NPY_DISABLE_CPU_FEATURES``): SDMetrics'
#: k-NN breaks neighbour ties with numpy's argpartition, whose answer on ties depends on it
#: (x86-simd-sort on AVX-512 or AVX2, generic introselect otherwise). On a CPU without a
#: feature the setting changes nothing; the drivers record the dispatch they got.
DISPATCH = {"sdmetrics": ["", "AVX512_ICL X86_V4", "AVX512_ICL X86_V4 X86_V3"]}
DEFAULT_SEEDS = {"syntheval": list(range(1, 11)), "sdmetrics": list(range(1, 9)),
                 "domias": list(range(1, 9)), "pycanon": list(range(1, 9)),
                 "anonymeter": list(range(1, 7))}


def environment(peer: str) -> Path:
    """The peer's venv python, made (or re-made when its requirements changed) on demand."""
    base = Path(os.environ.get("CAPKIT_PEERS_DIR", ROOT / "build" / "peers"))
    venv = base / peer
    python = venv / "bin" / "python"
    marker = venv / "capkit-requirements.txt"
    wanted = "\n".join(PEERS[peer]) + "\n"
    if not python.exists() or not marker.exists() or marker.read_text() != wanted:
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEERS[peer]], check=True)
        marker.write_text(wanted)
    return python


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("peer", choices=[*sorted(PEERS), "sdmetrics-oracle-knn"])
    parser.add_argument("--seeds", type=int, nargs="+", default=None)
    parser.add_argument("--oracle", type=Path, default=None)
    args = parser.parse_args()
    if args.peer == "sdmetrics-oracle-knn":
        if args.oracle is None:
            parser.error("sdmetrics-oracle-knn needs --oracle DIR")
        python = environment("sdmetrics")
        for disabled in DISPATCH["sdmetrics"]:
            env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": disabled}
            subprocess.run([str(python), str(HERE / "drive_sdmetrics_oracle_knn.py"),
                            "--oracle", str(args.oracle.resolve()), "--out",
                            str(ROOT / "reference" / "sdmetrics")], check=True, env=env)
        return
    seeds = args.seeds or DEFAULT_SEEDS[args.peer]
    python = environment(args.peer)
    out = ROOT / "reference" / args.peer / "drawn"
    out.mkdir(parents=True, exist_ok=True)
    for disabled in DISPATCH.get(args.peer, [""]):
        env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": disabled}
        with tempfile.TemporaryDirectory() as scratch:  # peers write files to the working dir
            subprocess.run([str(python), str(HERE / f"drive_{args.peer}.py"), "--out",
                            str(out), "--seeds", *map(str, seeds)], check=True, cwd=scratch,
                           env=env)
    versions = subprocess.run([str(python), "-m", "pip", "freeze"], check=True,
                              capture_output=True, text=True).stdout.split()
    pinned = [v for v in versions if v.split("==")[0].lower().replace("_", "-") in KEY_PACKAGES]
    dispatch = ("" if args.peer not in DISPATCH else ", once under each numpy CPU dispatch "
                "(NPY_DISABLE_CPU_FEATURES = " + " / ".join(repr(d) for d in DISPATCH[args.peer])
                + "), the numbers of each kept under its argpartition fingerprint")
    (out / "README.md").write_text(
        f"# {args.peer}: drawn cases\n\n"
        f"Made by `python scripts/peer_cases/peer_cases.py {args.peer} --seeds "
        f"{' '.join(map(str, seeds))}` ({date.today().isoformat()}; {', '.join(pinned)}, "
        f"Python {'.'.join(map(str, sys.version_info[:2]))}): random tables drawn by "
        "`scripts/peer_cases/draw.py`, the peer run on them by "
        f"`scripts/peer_cases/drive_{args.peer}.py`{dispatch}; each file holds one case's "
        f"inputs, the calls and the peer's outputs. Compared by "
        f"`tests/test_peer_drawn_{args.peer}.py`.\n")


if __name__ == "__main__":
    main()
