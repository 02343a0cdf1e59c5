"""pytest plugin (entry point `mqk`): real Kafka and Redis for the session, a unique
queue-manager name per test, and a shared local Spark session.

Where the servers come from, first match wins:
1. `MQK_KAFKA_BOOTSTRAP` / `MQK_REDIS_URL` (existing servers);
2. testcontainers, when a Docker engine answers (the official apache/kafka image, redis);
3. the native launcher (`ops.stack`: Kafka from Maven jars, Debian's redis-server).
Servers this plugin starts, it stops at the end of the session; a stack that was already
running (for example started by `.ci/run`) is left running.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import uuid
from collections.abc import Iterator

import pytest

from adapter import config

KAFKA_IMAGE = "apache/kafka:4.3.1"  # same release as the native stack's jars
REDIS_IMAGE = "redis:7"


def _docker_answers() -> bool:
    try:
        import docker

        client = docker.from_env(timeout=3)
        return bool(client.ping())
    except Exception:  # noqa: BLE001 - any failure means "no engine here"
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _containers() -> Iterator[config.Endpoints]:
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs

    # A fixed host port lets the broker advertise the address clients really reach.
    port = _free_port()
    kafka = (
        DockerContainer(KAFKA_IMAGE)
        .with_bind_ports(port, port)
        .with_env("KAFKA_NODE_ID", "1")
        .with_env("KAFKA_PROCESS_ROLES", "broker,controller")
        .with_env("KAFKA_LISTENERS", f"PLAINTEXT://0.0.0.0:{port},CONTROLLER://localhost:9093")
        .with_env("KAFKA_ADVERTISED_LISTENERS", f"PLAINTEXT://localhost:{port}")
        .with_env("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")
        .with_env(
            "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
        )
        .with_env("KAFKA_CONTROLLER_QUORUM_VOTERS", "1@localhost:9093")
        .with_env("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
        .with_env("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "1")
        .with_env("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
        .with_env("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
        .with_env("KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS", "1")
        .with_env("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1")
        .with_env("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1")
        .with_env("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
        .with_env("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
    )
    redis = (
        DockerContainer(REDIS_IMAGE)
        .with_exposed_ports(6379)
        .with_command("redis-server --appendonly yes --appendfsync everysec")
    )
    with kafka, redis:
        wait_for_logs(kafka, re.compile("Kafka Server started"), timeout=120)
        wait_for_logs(redis, re.compile("Ready to accept connections"), timeout=60)
        host = redis.get_container_host_ip()
        yield config.Endpoints(
            kafka_bootstrap=f"localhost:{port}",
            redis_url=f"redis://{host}:{redis.get_exposed_port(6379)}/0",
        )


@contextlib.contextmanager
def _native() -> Iterator[config.Endpoints]:
    from ops import stack

    before = stack.status()
    state = stack.up(log=lambda *_: None)
    started_here = not (before["kafka"]["running"] and before["redis"]["running"])
    try:
        yield config.endpoints(state.kafka_bootstrap or None, state.redis_url or None)
    finally:
        if started_here:
            stack.down(log=lambda *_: None)


@contextlib.contextmanager
def servers() -> Iterator[config.Endpoints]:
    """Kafka + Redis endpoints by the plugin's precedence (usable outside pytest too)."""
    if os.environ.get(config.KAFKA_BOOTSTRAP_ENV) and os.environ.get(config.REDIS_URL_ENV):
        yield config.endpoints()
    elif _docker_answers():
        with _containers() as eps:
            yield eps
    else:
        with _native() as eps:
            yield eps


@pytest.fixture(scope="session")
def mqk_servers() -> Iterator[config.Endpoints]:
    with servers() as eps:
        # Everything the tests call (library, CLI in subprocesses) sees the same servers.
        old = {k: os.environ.get(k) for k in (config.KAFKA_BOOTSTRAP_ENV, config.REDIS_URL_ENV)}
        os.environ[config.KAFKA_BOOTSTRAP_ENV] = eps.kafka_bootstrap
        os.environ[config.REDIS_URL_ENV] = eps.redis_url
        try:
            yield eps
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.fixture(scope="session")
def kafka_bootstrap(mqk_servers: config.Endpoints) -> str:
    return mqk_servers.kafka_bootstrap


@pytest.fixture(scope="session")
def redis_url(mqk_servers: config.Endpoints) -> str:
    return mqk_servers.redis_url


def purge_queue_manager(eps: config.Endpoints, qmgr: str) -> None:
    """Delete every topic and Redis key of a queue manager (test clean-up: a broker that
    keeps eleven topics per queue for every test would grow without bound)."""
    import redis as redis_lib
    from confluent_kafka.admin import AdminClient

    from adapter.shim import naming, redis_store

    admin = AdminClient({"bootstrap.servers": eps.kafka_bootstrap})
    prefix = f"mqk.{naming.escape(qmgr)}."
    topics = [t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix)]
    if topics:
        for fut in admin.delete_topics(topics, operation_timeout=30).values():
            with contextlib.suppress(Exception):
                fut.result(30)
    client = redis_lib.Redis.from_url(eps.redis_url)
    redis_store.purge_queue_manager(client, qmgr)
    client.close()


@pytest.fixture
def qmgr_name(request) -> Iterator[str]:
    """A queue-manager name no other test uses: topics and Redis keys never overlap.
    In a test with servers, its topics and keys are deleted afterwards."""
    name = f"QM{uuid.uuid4().hex[:10].upper()}"
    yield name
    if "mqk_servers" in request.fixturenames:
        with contextlib.suppress(Exception):
            purge_queue_manager(request.getfixturevalue("mqk_servers"), name)


@pytest.fixture
def qmgr(mqk_servers: config.Endpoints, qmgr_name: str):
    """A connected queue manager (adapter.pymqi) of the test's own name, disconnected
    after the test (which commits a unit of work left open, as MQDISC does)."""
    import adapter.pymqi as pymqi

    manager = pymqi.connect(qmgr_name)
    yield manager
    if manager._conn is not None:
        manager.disconnect()


@pytest.fixture(scope="session")
def spark(mqk_servers: config.Endpoints):
    from streaming.session import build_session

    session = build_session("mqk-tests")
    yield session
    session.stop()
