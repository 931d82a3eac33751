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
    from pyspark.sql import SparkSession

    from capkit.counts.engines.spark import session

    # The tests' tables are small: two partitions per shuffle (still a merge), no adaptive
    # re-planning, no whole-stage code generation and a JVM that compiles quickly (C1 only) cut
    # Spark's fixed costs per query; session() then uses this active session.
    (SparkSession.builder.master("local[2]").appName("capkit-tests")
     .config("spark.sql.shuffle.partitions", "2")
     .config("spark.default.parallelism", "2")
     .config("spark.sql.adaptive.enabled", "false")
     .config("spark.sql.codegen.wholeStage", "false")
     .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
     .config("spark.sql.execution.arrow.pyspark.enabled", "true")
     .config("spark.ui.enabled", "false")
     .config("spark.ui.showConsoleProgress", "false")
     .getOrCreate())
    return session()


#: Seeds of a property test that only repeat, on more random data, what its first seeds already
#: check against a record-by-record reference: marked ``slow`` here, so ``make test`` (``-m "not
#: slow"``) runs the first seeds and ``make test-slow`` the rest. No conformance case (a
#: comparison with a peer's output) is listed.
SLOW_SEEDS = {
    "test_ball_counts_pruned_by_sums_count_every_pair": {1, 2},
    "test_cart_matches_slow_reference": {2, 3},
    "test_exclusion_table_matches_record_reference": {2, 3},
    "test_epsilon_against_slow_reference": {2, 3, 4},
    "test_levels_equal_the_slow_reference": {2, 3, 4, 5},
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that uses the Spark session runs on one xdist worker (``--dist loadgroup`` in
    ``make test``): a Spark start-up costs about 40 s of CPU, once instead of once per worker.
    The extra seeds of :data:`SLOW_SEEDS` are marked ``slow``."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
        seeds = SLOW_SEEDS.get(getattr(item, "originalname", ""), ())
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("seed") in seeds:
            item.add_marker(pytest.mark.slow)
