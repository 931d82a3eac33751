"""Run SDNist 2.4 on one drawn case, as the report oracle runs it (numpy.random.seed(0), PYTHONHASHSEED=0,
MPLBACKEND=Agg, a fresh folder holding the data root built from $CAPKIT_DATA-style files):
python run_sdnist.py <deid.csv> <MA|TX|NATIONAL> <outdir>  (SDNIST_DATA: the folder of the excerpts)"""
import json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path
deid, target, out = Path(sys.argv[1]).resolve(), sys.argv[2], Path(sys.argv[3]).resolve()
data = Path(os.environ.get('SDNIST_DATA', 'data/sdnist'))
state = {'MA': ('massachusetts', 'ma2019'), 'TX': ('texas', 'tx2019'), 'NATIONAL': ('national', 'national2019')}
work = Path(tempfile.mkdtemp(prefix='sdnist_'))
root = work / 'diverse_communities_data_excerpts'
for st, name in state.values():
    (root / st).mkdir(parents=True)
    for ext in ('csv', 'json'):
        shutil.copy(data / f'{name}.{ext}', root / st / f'{name}.{ext}')
for f in ('config.json', 'mappings.json', 'data_dictionary.json'):
    shutil.copy(data / f, root / f)
shutil.copy(deid, work / 'deid.csv')
env = dict(os.environ, BROWSER='true', MPLBACKEND='Agg', PYTHONHASHSEED='0')
code = ("import sys, runpy, numpy; numpy.random.seed(0); sys.argv = ['sdnist.report', 'deid.csv', '%s'];"
        "runpy.run_module('sdnist.report', run_name='__main__', alter_sys=True)" % target)
t0 = time.time()
r = subprocess.run([os.environ.get('SDNIST_PYTHON', sys.executable), '-c', code], cwd=work, env=env, capture_output=True, text=True)
el = time.time() - t0
out.mkdir(parents=True, exist_ok=True)
(out / 'stdout.txt').write_text(r.stdout + '\n---\n' + r.stderr)
reports = list((work / 'reports').glob('*'))
print('rc', r.returncode, 'elapsed', el, reports)
if reports:
    if (out / 'report').exists():
        shutil.rmtree(out / 'report')
    shutil.copytree(reports[0], out / 'report')
json.dump({'elapsed_s': el, 'rc': r.returncode}, open(out / 'run.json', 'w'))
