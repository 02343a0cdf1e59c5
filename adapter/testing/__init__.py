"""Opt-in pytest plugin: real Kafka and Redis for the session, a unique queue manager per
test, a shared local Spark session. Enable it with `pytest -p adapter.testing` or
`pytest_plugins = ["adapter.testing"]` in a top-level conftest.py; installing mqk loads
nothing by itself.

Fixtures (all prefixed, so they never collide with a project's own):

    mqk_servers          session  the servers' `adapter.config.Endpoints` (see MQKStack),
                                  also exported as MQK_KAFKA_BOOTSTRAP / MQK_REDIS_URL
    mqk_kafka_bootstrap  session  the Kafka bootstrap address
    mqk_redis_url        session  the Redis URL
    mqk_qmgr_name        test     a queue-manager name no other test uses; its topics and
                                  Redis keys are deleted after the test
    mqk_qmgr             test     an adapter.pymqi.QueueManager of that name, connected,
                                  disconnected after the test
    mqk_spark            session  a local SparkSession with the Kafka connector (needs the
                                  `spark` extra; pyspark is imported by the fixture only)

The servers come from `MQKStack` (adapter/testing/servers.py): the environment variables,
else testcontainers when a Docker engine answers, else the native launcher. Servers it
starts are stopped at the end of the session; a stack already running is left running.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from adapter import config
from adapter.testing.servers import MQKStack, purge_queue_manager, unique_qmgr_name

__all__ = [
    "MQKStack",
    "mqk_kafka_bootstrap",
    "mqk_qmgr",
    "mqk_qmgr_name",
    "mqk_redis_url",
    "mqk_servers",
    "mqk_spark",
    "purge_queue_manager",
]


@pytest.fixture(scope="session")
def mqk_servers() -> Iterator[config.Endpoints]:
    """Kafka + Redis for the session (MQKStack), exported as MQK_KAFKA_BOOTSTRAP and
    MQK_REDIS_URL while it lasts; servers started here are stopped at the end."""
    with MQKStack() as stack:
        # Everything the tests call (library, CLI in subprocesses) sees the same servers.
        old = {k: os.environ.get(k) for k in stack.env}
        os.environ.update(stack.env)
        try:
            yield stack.endpoints
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.fixture(scope="session")
def mqk_kafka_bootstrap(mqk_servers: config.Endpoints) -> str:
    """The session's Kafka bootstrap address."""
    return mqk_servers.kafka_bootstrap


@pytest.fixture(scope="session")
def mqk_redis_url(mqk_servers: config.Endpoints) -> str:
    """The session's Redis URL."""
    return mqk_servers.redis_url


@pytest.fixture
def mqk_qmgr_name(request: pytest.FixtureRequest) -> Iterator[str]:
    """A queue-manager name no other test uses: topics and Redis keys never overlap.
    In a test with servers, its topics and keys are deleted afterwards."""
    name = unique_qmgr_name()
    yield name
    if "mqk_servers" in request.fixturenames:
        with contextlib.suppress(Exception):
            purge_queue_manager(request.getfixturevalue("mqk_servers"), name)


@pytest.fixture
def mqk_qmgr(mqk_servers: config.Endpoints, mqk_qmgr_name: str):
    """A connected queue manager (adapter.pymqi) of the test's own name, disconnected
    after the test (which commits a unit of work left open, as MQDISC does)."""
    import adapter.pymqi as pymqi

    manager = pymqi.connect(
        mqk_qmgr_name,
        kafka_bootstrap=mqk_servers.kafka_bootstrap,
        redis_url=mqk_servers.redis_url,
    )
    yield manager
    with contextlib.suppress(pymqi.PYIFError):  # "not connected": the test did it
        manager.disconnect()


@pytest.fixture(scope="session")
def mqk_spark(mqk_servers: config.Endpoints):
    """A local SparkSession with the Kafka connector jars, stopped after the session.
    pyspark and the job's package are optional: imported here, not with the plugin."""
    try:
        import pyspark  # noqa: F401 - the optional dependency, checked before the job's code

        from streaming.session import build_session  # optional: Spark extra, tests only
    except ModuleNotFoundError as err:
        pytest.fail(
            f"mqk_spark needs the Spark extra ({err.name} is not installed): "
            "pip install 'mqk[spark]'",
            pytrace=False,
        )
    session = build_session("mqk-tests")
    yield session
    session.stop()
