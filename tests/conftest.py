"""The suite's fixtures: mqk's opt-in pytest plugin, under the short names the tests use.

`adapter.testing` gives `mqk_servers`, `mqk_kafka_bootstrap`, `mqk_redis_url`,
`mqk_qmgr_name`, `mqk_qmgr` and `mqk_spark`; the aliases below keep the tests' own names.
"""

from __future__ import annotations

import pytest

pytest_plugins = ["adapter.testing"]


@pytest.fixture(scope="session")
def kafka_bootstrap(mqk_kafka_bootstrap: str) -> str:
    return mqk_kafka_bootstrap


@pytest.fixture(scope="session")
def redis_url(mqk_redis_url: str) -> str:
    return mqk_redis_url


@pytest.fixture
def qmgr_name(mqk_qmgr_name: str) -> str:
    return mqk_qmgr_name


@pytest.fixture
def qmgr(mqk_qmgr):
    return mqk_qmgr


@pytest.fixture(scope="session")
def spark(mqk_spark):
    return mqk_spark
