"""Offline without data, as a newcomer who skipped CAPKIT_DATA: the tests that need SD2011 or
Adult skip with a reason instead of erroring at collection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_oracle_tests_skip_without_data_or_network(tmp_path):
    """CAPKIT_DATA unset, an empty HOME (no cache) and every download refused (a proxy on a
    closed port): the synthpop oracle modules are skipped, naming CAPKIT_DATA."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CAPKIT_DATA", "CAPKIT_CACHE", "XDG_CACHE_HOME", "no_proxy", "NO_PROXY")}
    closed = "http://127.0.0.1:9"
    env |= {"HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "http_proxy": closed,
            "https_proxy": closed, "HTTP_PROXY": closed, "HTTPS_PROXY": closed}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-rs", "-p", "no:randomly",
         "-p", "no:cacheprovider", "tests/test_cli_oracle.py", "tests/test_disclosure_oracle.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    out = done.stdout + done.stderr
    assert done.returncode in (0, 5), out  # 5: nothing collected, everything skipped
    assert "ERROR" not in out and "during collection" not in out, out
    assert out.count("SKIPPED") >= 1 and "CAPKIT_DATA" in out, out
    assert not list(tmp_path.rglob("*.rda"))  # nothing was downloaded
