"""capkit.data.priveval_data: search order, download from a local HTTP server, checksum, offline
message; the shipped published results against PrivEval's own folder when it is beside the clone.
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pandas as pd
import pytest
from test_datasets import _Server  # the one local HTTP server of the loader tests

from capkit.data import priveval_data as pv
from capkit.errors import CapkitError

REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "priveval"
SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle" / "priveval"
SMALL = b"a,b,Revenue\n1.0,x,True\n2.5,y,False\n"


@pytest.fixture
def local(tmp_path, monkeypatch):
    monkeypatch.setenv("CAPKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CAPKIT_DATA", raising=False)
    monkeypatch.setitem(pv.PRIVEVAL_SHA256, "privbayes(e=0.1).csv",
                        hashlib.sha256(SMALL).hexdigest())
    return tmp_path


def test_download_quotes_the_name_verifies_caches_then_reads_the_cache(local):
    # the parentheses and '=' of the file name are URL-encoded, the commit is in the path
    path = f"/{pv.PRIVEVAL_COMMIT}/Data/privbayes%28e%3D0.1%29.csv"
    with _Server({path: SMALL}) as server:
        url = server.url + "/{commit}/Data/{file}"
        frame = pv.load_priveval("privbayes(e=0.1)", url=url)
        assert server.requests == [path]
        again = pv.load_priveval("privbayes(e=0.1)", url=url)
        assert server.requests == [path]  # second read from the cache
    assert (local / "cache" / "priveval" / "privbayes(e=0.1).csv").read_bytes() == SMALL
    assert list(frame.columns) == ["a", "b", "Revenue"]
    assert frame["Revenue"].dtype == bool and frame["a"].tolist() == [1.0, 2.5]
    pd.testing.assert_frame_equal(frame, again)


def test_checksum_mismatch_fails_and_leaves_no_cache(local):
    path = f"/{pv.PRIVEVAL_COMMIT}/Data/privbayes%28e%3D0.1%29.csv"
    with _Server({path: SMALL + b"3.0,z,True\n"}) as server:
        with pytest.raises(CapkitError, match="checksum mismatch for privbayes"):
            pv.load_priveval("privbayes(e=0.1)", url=server.url + "/{commit}/Data/{file}")
    assert not list((local / "cache" / "priveval").glob("*.csv"))


def test_offline_error_says_where_to_put_the_file(local):
    with _Server({}) as server:
        with pytest.raises(CapkitError, match=r"Put the file .* \$CAPKIT_DATA/priveval/"):
            pv.load_priveval("privbayes(e=0.1)", url=server.url + "/{commit}/Data/{file}")


def test_search_order_path_then_env_then_cache(local, monkeypatch):
    folder = local / "mine"
    folder.mkdir()
    (folder / "privbayes(e=0.1).csv").write_bytes(SMALL)
    assert pv.priveval_file("privbayes(e=0.1)", folder) == folder / "privbayes(e=0.1).csv"
    env = local / "env"
    (env / "priveval").mkdir(parents=True)
    (env / "priveval" / "privbayes(e=0.1).csv").write_bytes(SMALL)
    monkeypatch.setenv("CAPKIT_DATA", str(env))
    assert pv.priveval_file("privbayes(e=0.1)") == env / "priveval" / "privbayes(e=0.1).csv"
    with pytest.raises(CapkitError, match="is not privbayes"):
        pv.priveval_file("privbayes(e=0.1)", local / "nowhere")


def test_unknown_name():
    with pytest.raises(CapkitError, match="unknown PrivEval file 'privbayes\\(e=3\\)'"):
        pv.load_priveval("privbayes(e=3)")


def test_the_release_names_and_checksums_cover_the_same_files():
    assert {f"{r}.csv" for r in pv.PRIVEVAL_RELEASES} | {"real.csv"} == set(pv.PRIVEVAL_SHA256)


@pytest.mark.parametrize("release", pv.PRIVEVAL_RELEASES)
def test_shipped_published_results_are_priveval_s_files(release):
    shipped = REFERENCE / f"{release}_metric_results.csv.gz"
    frame = pd.read_csv(shipped)
    assert list(frame.columns) == ["Metric", "Result"] and len(frame) == 17
    original = SHARED_ORACLE / "metric_results" / f"{release}_metric_results.csv"
    if not original.is_file():
        pytest.skip("PrivEval's metric_results/ is not beside this clone (../shared/oracle)")
    assert gzip.decompress(shipped.read_bytes()) == original.read_bytes()
