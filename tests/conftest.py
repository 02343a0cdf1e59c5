"""The suite's fixtures: mqk's opt-in pytest plugin, under the short names the tests use.

`adapter.testing` gives `mqk_servers`, `mqk_kafka_bootstrap`, `mqk_redis_url`,
`mqk_qmgr_name`, `mqk_qmgr` and `mqk_spark`; the aliases below keep the tests' own names.
"""

from __future__ import annotations

import os

import pytest

from adapter import config

pytest_plugins = ["adapter.testing"]

# The suite's queue managers let every user set and pass context (MQ's +setall for the
# test user); the tests of the authority rule itself narrow it with monkeypatch.
os.environ.setdefault(config.CONTEXT_AUTHORITY_ENV, "*")


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
