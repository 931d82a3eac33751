"""capkit.data.sdnist_data (search order, download from a local HTTP server, checksum, the
resamples) and capkit.sdnist.dictionary against the excerpts' own data dictionary and schemas
when they are at hand."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_datasets import _Server  # the one local HTTP server of the loader tests

from capkit.data import sdnist_data as sd
from capkit.errors import CapkitError
from capkit.sdnist import dictionary as dd

SMALL = b"PUMA,AGEP\n25-00503,18\n25-00703,21\n"


@pytest.fixture
def local(tmp_path, monkeypatch):
    monkeypatch.setenv("CAPKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CAPKIT_DATA", raising=False)
    monkeypatch.setitem(sd.ACS_SHA256, "tx2019.csv", hashlib.sha256(SMALL).hexdigest())
    return tmp_path


def test_download_verifies_caches_then_reads_the_cache(local):
    path = f"/{sd.SDNIST_COMMIT}/BenchmarkData/ACSDataExcerpts/texas/tx2019.csv"
    with _Server({path: SMALL}) as server:
        url = server.url + "/{commit}/BenchmarkData/ACSDataExcerpts/{folder}{file}"
        frame = pd.read_csv(sd.acs_excerpt_file("tx2019", url=url))
        assert server.requests == [path]
        again = sd.acs_excerpt_file("tx2019", url=url)
        assert server.requests == [path]  # second time from the cache
    assert again == local / "cache" / "sdnist" / "tx2019.csv"
    assert frame["AGEP"].tolist() == [18, 21]


def test_checksum_offline_and_names(local, monkeypatch):
    folder = local / "data" / "sdnist"
    folder.mkdir(parents=True)
    (folder / "tx2019.csv").write_bytes(SMALL + b"x")
    monkeypatch.setenv("CAPKIT_DATA", str(local / "data"))
    with pytest.raises(CapkitError, match="checksum mismatch for tx2019.csv"):
        sd.acs_excerpt_file("tx2019")
    with pytest.raises(FileNotFoundError):
        sd.acs_excerpt_file("ma2019", download=False)
    with pytest.raises(CapkitError, match="unknown excerpt"):
        sd.acs_excerpt_file("ca2019")
    with pytest.raises(CapkitError, match="could not download"):
        sd.acs_excerpt_file("ma2019", url="http://127.0.0.1:9/{commit}/{folder}{file}")
    (folder / "tx2019.csv").write_bytes(SMALL)
    assert sd.acs_excerpt_file("tx2019") == folder / "tx2019.csv"
    assert sd.acs_excerpt_file("tx2019", path=folder) == folder / "tx2019.csv"


def test_resamples_leave_the_excerpt_alone():
    excerpt = pd.DataFrame({"a": [str(i) for i in range(50)], "b": ["N"] * 25 + ["1"] * 25})
    before = excerpt.copy()
    indep = sd.resample_excerpt(excerpt, "indep", 1)
    boot = sd.resample_excerpt(excerpt, "bootstrap", 1)
    swap = sd.resample_excerpt(excerpt, "swap", 1, rows=30, swap=0.5, drop=("b",))
    pd.testing.assert_frame_equal(excerpt, before)
    assert indep.shape == (50, 2) and boot.shape == (50, 2) and list(swap.columns) == ["a"]
    assert len(swap) == 30 and set(swap["a"]) <= set(excerpt["a"])
    # a bootstrap keeps whole records
    assert set(map(tuple, boot.to_numpy())) <= set(map(tuple, excerpt.to_numpy()))
    assert sd.resample_excerpt(excerpt, "swap", 7, swap=0.2).equals(
        sd.resample_excerpt(excerpt, "swap", 7, swap=0.2))
    with pytest.raises(CapkitError, match="kind"):
        sd.resample_excerpt(excerpt, "cart", 1)


def _folder() -> Path | None:
    env = os.environ.get("CAPKIT_DATA")
    if env and (Path(env) / "sdnist" / "data_dictionary.json").is_file():
        return Path(env) / "sdnist"
    return None


@pytest.mark.skipif(_folder() is None, reason="the excerpts' JSON files are not at hand")
def test_dictionary_tables_are_the_data_dictionary():
    folder = _folder()
    data = json.loads(sd.acs_excerpt_file("data_dictionary", folder).read_text())
    assert tuple(data) == dd.FEATURES
    assert tuple(data["PUMA"]["values"]) == dd.PUMAS
    for feature, entry in data.items():
        values = entry.get("values", {})
        assert ("N" in values or feature == "INDP") == (feature in dd.HAS_N), feature
        if "min" in values:
            assert dd.RANGED[feature] == (values["min"], values["max"])
        elif feature in dd.CODES:
            assert dd.CODES[feature] == {int(v) for v in values if v != "N"}
        else:
            assert feature in ("PUMA", "INDP")
    assert dd.DENSITY_MAX == data["DENSITY"]["values"]["max"]
    for name in ("ma2019", "tx2019", "national2019"):  # SDNist's schemas: PUMAs sorted
        schema = json.loads((folder / f"{name}.json").read_text())["schema"]
        target = pd.read_csv(folder / f"{name}.csv")
        assert schema["PUMA"]["values"] == sorted(target["PUMA"].unique())
        assert {f for f, s in schema.items() if s.get("has_null")} == set(dd.HAS_N)
        assert np.isin(sorted(schema), dd.FEATURES).all()
