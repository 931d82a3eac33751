"""capkit.data.datasets: search order, download from a local HTTP server, checksum, parsing.

The download path is exercised end to end against a tarball the test builds (a small .rda written
by pyreadr inside ``synthpop/data/``) served by ``http.server`` on 127.0.0.1 at a random port.
The real files are checked against ``$CAPKIT_DATA`` (../shared/data) when it is set.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import tarfile
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadr
import pytest

from capkit.data import datasets, rdata
from capkit.errors import CapkitError

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
DATA = Path(os.environ.get("CAPKIT_DATA") or SHARED_DATA)
HAVE_DATA = (DATA / "SD2011.rda").is_file() and (DATA / "AdultUCI.rda").is_file()


def _small_rda(tmp_path: Path, object_name: str, frame: pd.DataFrame) -> bytes:
    file = tmp_path / "small.rda"
    pyreadr.write_rdata(str(file), frame, df_name=object_name, compress="gzip")
    return file.read_bytes()


def _tarball(member: str, payload: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo(member)
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
        readme = b"not data"
        info = tarfile.TarInfo(member.split("/")[0] + "/DESCRIPTION")
        info.size = len(readme)
        archive.addfile(info, io.BytesIO(readme))
    return buffer.getvalue()


class _Server:
    """A bounded local HTTP server: serves ``files`` (path -> bytes), counts requests."""

    def __init__(self, files: dict[str, bytes]):
        self.files = files
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server API)
                outer.requests.append(self.path)
                body = outer.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.timeout = 5
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def small(tmp_path, monkeypatch):
    """A small SD2011-like .rda in a tarball, the SOURCES entry pointing at a local server."""
    frame = pd.DataFrame({
        "sex": pd.Categorical(["MALE", "FEMALE", "MALE", "FEMALE"], categories=["MALE", "FEMALE"]),
        "age": [30.0, 41.0, float("nan"), 18.0],
        "income": [-8.0, 1200.0, 800.0, float("nan")],
    })
    rda = _small_rda(tmp_path, "SD2011", frame)
    tarball = _tarball("synthpop/data/SD2011.rda", rda)
    cache = tmp_path / "cache"
    monkeypatch.setenv("CAPKIT_CACHE", str(cache))
    monkeypatch.delenv("CAPKIT_DATA", raising=False)
    return {"frame": frame, "rda": rda, "tarball": tarball, "cache": cache,
            "sha": hashlib.sha256(rda).hexdigest(), "monkeypatch": monkeypatch}


def _point_at(small, server, sha, paths=("/missing.tar.gz", "/synthpop_1.9-2.tar.gz")):
    source = datasets.with_source("sd2011", urls=tuple(server.url + p for p in paths), sha256=sha)
    small["monkeypatch"].setitem(datasets.SOURCES, "sd2011", source)


def test_download_extract_verify_cache_then_cache_hit(small):
    with _Server({"/synthpop_1.9-2.tar.gz": small["tarball"]}) as server:
        _point_at(small, server, small["sha"])
        got = datasets.load_sd2011(progress=False)
        # first URL 404s, second answers
        assert server.requests == ["/missing.tar.gz", "/synthpop_1.9-2.tar.gz"]
        cached = small["cache"] / "SD2011.rda"
        assert cached.read_bytes() == small["rda"]
        assert list(small["cache"].iterdir()) == [cached]
        again = datasets.load_sd2011(progress=False)
        assert len(server.requests) == 2  # served from the cache, no new request
    pd.testing.assert_frame_equal(got, again)
    assert list(got.columns) == ["sex", "age", "income"]
    assert list(got["sex"].cat.categories) == ["MALE", "FEMALE"]
    assert got["sex"].tolist() == ["MALE", "FEMALE", "MALE", "FEMALE"]
    assert got["income"].isna().tolist() == [False, False, False, True]
    assert got["income"].iloc[0] == -8.0
    assert list(got.index) == [0, 1, 2, 3]


def test_checksum_mismatch_fails_loudly_and_leaves_no_cache(small):
    with _Server({"/synthpop_1.9-2.tar.gz": small["tarball"]}) as server:
        _point_at(small, server, "0" * 64)
        with pytest.raises(CapkitError, match="checksum mismatch"):
            datasets.load_sd2011(progress=False)
    cache = small["cache"]
    assert not cache.exists() or list(cache.iterdir()) == []


def test_tarball_without_the_file_and_unreachable_source(small):
    wrong = _tarball("synthpop/data/Other.rda", small["rda"])
    with _Server({"/synthpop_1.9-2.tar.gz": wrong}) as server:
        _point_at(small, server, small["sha"])
        with pytest.raises(CapkitError, match="SD2011.rda"):
            datasets.load_sd2011(progress=False)
        _point_at(small, server, small["sha"], paths=("/nothing-here.tar.gz",))
        with pytest.raises(CapkitError, match="could not download"):
            datasets.load_sd2011(progress=False)
    assert not small["cache"].exists() or list(small["cache"].iterdir()) == []


def test_search_order_path_then_env_then_cache(small, tmp_path):
    monkeypatch = small["monkeypatch"]
    monkeypatch.setitem(datasets.SOURCES, "sd2011",
                        datasets.with_source("sd2011", sha256=small["sha"], urls=()))
    # nothing anywhere, no URL: error
    with pytest.raises(CapkitError, match="could not download"):
        datasets.load_sd2011(progress=False)
    # a corrupt cached file is caught by the checksum
    small["cache"].mkdir()
    (small["cache"] / "SD2011.rda").write_bytes(b"garbage")
    with pytest.raises(CapkitError, match="checksum mismatch"):
        datasets.load_sd2011(progress=False)
    (small["cache"] / "SD2011.rda").write_bytes(small["rda"])
    assert len(datasets.load_sd2011(progress=False)) == 4
    # $CAPKIT_DATA wins over the cache
    env = tmp_path / "env"
    env.mkdir()
    other = small["frame"].iloc[:2]
    other_rda = _small_rda(tmp_path, "SD2011", other)
    (env / "SD2011.rda").write_bytes(other_rda)
    monkeypatch.setenv("CAPKIT_DATA", str(env))
    with pytest.raises(CapkitError, match="checksum mismatch"):
        datasets.load_sd2011(progress=False)
    assert len(datasets.load_sd2011(progress=False, verify=False)) == 2
    # an explicit path wins over both (file or folder)
    explicit = tmp_path / "explicit"
    explicit.mkdir()
    (explicit / "SD2011.rda").write_bytes(small["rda"])
    assert len(datasets.load_sd2011(explicit, progress=False)) == 4
    assert len(datasets.load_sd2011(explicit / "SD2011.rda", progress=False)) == 4
    with pytest.raises(CapkitError, match="path"):
        datasets.load_sd2011(tmp_path / "nope.rda")


def test_cache_dir_platform_default(monkeypatch, tmp_path):
    monkeypatch.delenv("CAPKIT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if os.name == "posix" and os.uname().sysname == "Linux":
        assert datasets.cache_dir() == tmp_path / "capkit"
    monkeypatch.setenv("CAPKIT_CACHE", str(tmp_path / "x"))
    assert datasets.cache_dir() == tmp_path / "x"


def test_unknown_data_set():
    with pytest.raises(CapkitError, match="unknown data set"):
        datasets.fetch("nope")


@pytest.mark.skipif(not HAVE_DATA, reason="real data not available (set CAPKIT_DATA)")
def test_real_sd2011(monkeypatch):
    monkeypatch.setenv("CAPKIT_DATA", str(DATA))
    sd = datasets.load_sd2011(progress=False)
    assert sd.shape == (5000, 35)
    assert list(sd["sex"].cat.categories) == ["MALE", "FEMALE"]
    assert list(sd["marital"].cat.categories) == [
        "SINGLE", "MARRIED", "WIDOWED", "DIVORCED", "LEGALLY SEPARATED", "DE FACTO SEPARATED"]
    assert {c: int(sd[c].isna().sum()) for c in ("depress", "income", "workab")} == {
        "depress": 89, "income": 683, "workab": 438}
    assert int((sd["income"] == -8).sum()) == 603
    assert sd["wkabdur"].dtype == object


@pytest.mark.skipif(not HAVE_DATA, reason="real data not available (set CAPKIT_DATA)")
def test_real_adult(monkeypatch):
    monkeypatch.setenv("CAPKIT_DATA", str(DATA))
    adult = datasets.load_adult(progress=False)
    assert adult.shape == (48842, 15)
    assert "education.num" in adult.columns and "capital-gain" not in adult.columns
    assert set(datasets.ADULT_PAPER_VARIABLES) == set(adult.columns) - {"education.num"}
    assert {c: int(adult[c].isna().sum()) for c in
            ("income", "workclass", "occupation", "native.country")} == {
        "income": 16281, "workclass": 2799, "occupation": 2809, "native.country": 857}
    assert list(adult["income"].cat.categories) == ["small", "large"]
    assert adult["age"].dtype == "int64"


R_NA_BITS = 0x7FF00000000007A2  # R's NA_real_: a signalling NaN with payload 1954


def _nan_bits(frame: pd.DataFrame) -> set[int]:
    bits: set[int] = set()
    for column in frame.columns:
        if pd.api.types.is_float_dtype(frame[column].dtype):
            values = frame[column].to_numpy()
            bits |= {int(b) for b in values[np.isnan(values)].view(np.uint64)}
    return bits


def test_quiet_nans_replaces_r_na_and_leaves_the_input_alone():
    r_na = np.array([R_NA_BITS], dtype=np.uint64).view(np.float64)[0]
    frame = pd.DataFrame({"x": [1.5, r_na, 3.0], "k": ["a", "b", "c"], "n": [1, 2, 3]})
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        frame["x"].to_numpy() + 1.0  # what R's NA does to numpy arithmetic
    out = rdata.quiet_nans(frame)
    assert _nan_bits(frame) == {R_NA_BITS}  # not modified
    assert _nan_bits(out) == {int(np.array([np.nan]).view(np.uint64)[0])}
    assert out["x"].iloc[[0, 2]].tolist() == [1.5, 3.0] and out["n"].tolist() == [1, 2, 3]
    with np.errstate(invalid="raise"):
        out["x"].to_numpy() + 1.0
    assert rdata.quiet_nans(out) is out  # nothing to change: no copy


@pytest.mark.skipif(not HAVE_DATA, reason="real data not available (set CAPKIT_DATA)")
def test_real_sd2011_missing_numbers_are_quiet_nans(monkeypatch):
    """SD2011.rda stores NA as R's signalling NaN; the loader hands out numpy's NaN, so adding
    noise to income (bootstrap_with_noise) raises no 'invalid value' warning."""
    from capkit.synth.baselines import bootstrap_with_noise

    monkeypatch.setenv("CAPKIT_DATA", str(DATA))
    sd = datasets.load_sd2011(progress=False)
    assert _nan_bits(sd) == {int(np.array([np.nan]).view(np.uint64)[0])}
    with np.errstate(invalid="raise"):
        bootstrap_with_noise(sd[["income", "height", "weight"]], seed=1)
