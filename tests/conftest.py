"""Shared fixtures: a local PySpark session for the engine tests."""

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

HAS_PYSPARK = importlib.util.find_spec("pyspark") is not None
HAS_JAVA = bool(os.environ.get("JAVA_HOME")) or shutil.which("java") is not None


@pytest.fixture(scope="session")
def spark():
    """A local Spark session, or a skip saying what is missing (pyspark or Java)."""
    if not HAS_PYSPARK:
        pytest.skip("pyspark is not installed: pip install 'capkit[spark]'")
    if not HAS_JAVA:
        pytest.skip("no Java runtime found (Spark needs one): on Debian "
                    "`apt-get install -y default-jre-headless`, or set JAVA_HOME")
    from capkit.counts.engines.spark import session

    return session()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that uses the Spark session runs on one xdist worker (``--dist loadgroup`` in
    ``make test``): a Spark start-up costs about 40 s of CPU, once instead of once per worker."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
