"""SDNist's k-marginal score on the national excerpt: capkit.sdnist, and SDNist 2.4 itself in
the same run.

Data: NIST's national 2019 ACS excerpt (27,253 records, 24 features, 20 PUMAs; from
:func:`capkit.data.sdnist_data.acs_excerpt_file`, ``CAPKIT_DATA``) and a deidentified file
drawn from it (:func:`capkit.data.sdnist_data.resample_excerpt`: a bootstrap with half the
cells swapped, seed 203; the drawn reference case ``national_swap``), written to a temporary CSV.

Both sides time the same thing: the k-marginal score with its per-PUMA scores (231 feature
pairs) on the binned data, once the files are read and binned, best of ``--repeat`` runs; and,
apart, reading and binning (SDNist's ``Dataset``, capkit's ``prepare``). SDNist runs in its own
interpreter (``--peer-python``, a venv with ``pip install sdnist==2.4``) on the same files; the
scores are printed side by side and must be equal. Without ``--peer-python`` only capkit is
timed.

Run: ``CAPKIT_DATA=... .venv/bin/python benchmarks/bench_sdnist.py --peer-python
/work/peers/sdnist/bin/python [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from _common import timed

from capkit.data.sdnist_data import acs_excerpt_file, load_acs_excerpt, resample_excerpt
from capkit.sdnist.data import prepare
from capkit.sdnist.kmarginal import kmarginal

PEER_SCRIPT = """
import json, sys, time
from pathlib import Path
from sdnist.load import TestDatasetName
from sdnist.report.dataset import Dataset  # before the metrics (SDNist's import order)
from sdnist.metrics.kmarginal import KMarginal
from sdnist.utils import SimpleLogger
root, deid, repeat = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
start = time.perf_counter()
ds = Dataset(deid, SimpleLogger(), TestDatasetName.national2019, root, False)
prepare_s = time.perf_counter() - start
best = float('inf')
for _ in range(repeat):
    start = time.perf_counter()
    km = KMarginal(ds.d_target_data, ds.d_synthetic_data, ['PUMA'])
    km.compute_score()
    best = min(best, time.perf_counter() - start)
names = ds.schema['PUMA']['values']
print(json.dumps({'prepare_s': prepare_s, 'kmarginal_s': best, 'score': int(km.score),
                  'puma': {names[g]: int(v) for g, v in km.scores.items()}}))
"""


def _sdnist_root(folder: Path) -> Path:
    """SDNist's data root (``<root>/national/national2019.csv|json`` and the three JSON files
    beside), built from the ``CAPKIT_DATA`` folder holding the excerpts."""
    source = acs_excerpt_file("national2019").parent
    root = folder / "diverse_communities_data_excerpts"
    (root / "national").mkdir(parents=True)
    for name in ("national2019.csv", "national2019.json"):
        shutil.copy(source / name, root / "national" / name)
    for name in ("config.json", "mappings.json", "data_dictionary.json"):
        shutil.copy(source / name, root / name)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", default=None, help="a Python with sdnist 2.4")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        target = acs_excerpt_file("national2019")
        deid = folder / "deid.csv"
        resample_excerpt(load_acs_excerpt("national2019", text=True), "swap", 203,
                         swap=0.5).to_csv(deid, index=False)
        prepare_s, coded = timed(lambda: prepare(target, deid), 1)
        km_s, km = timed(lambda: kmarginal(coded.d_target, coded.d_deid, coded.features),
                         args.repeat)
        ours = {"score": km.score,
                "puma": {coded.pumas[g]: v for g, v in km.puma_scores().items()}}
        print(f"capkit  prepare {prepare_s:7.3f} s   k-marginal {km_s:7.3f} s   "
              f"score {ours['score']}")
        if args.peer_python is None:
            return
        root = _sdnist_root(folder)
        run = subprocess.run([args.peer_python, "-c", PEER_SCRIPT, str(root), str(deid),
                              str(args.repeat)], capture_output=True, text=True, check=False,
                             cwd=folder)
        if run.returncode:
            raise SystemExit(f"SDNist failed:\n{run.stderr[-3000:]}")
        peer = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"SDNist  prepare {peer['prepare_s']:7.3f} s   k-marginal "
              f"{peer['kmarginal_s']:7.3f} s   score {peer['score']}")
        same = peer["score"] == ours["score"] and peer["puma"] == ours["puma"]
        print(f"k-marginal {peer['kmarginal_s'] / km_s:.0f}x faster; prepare + k-marginal "
              f"{(peer['prepare_s'] + peer['kmarginal_s']) / (prepare_s + km_s):.0f}x; "
              f"scores and per-PUMA scores equal: {same}")
        if not same:
            raise SystemExit("the scores differ")


if __name__ == "__main__":
    main()
