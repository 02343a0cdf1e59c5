"""`MQKStack`: Kafka + Redis for integration tests, and a queue manager connected to them.

    from adapter.testing.servers import MQKStack   # also `from adapter.testing import MQKStack`

    with MQKStack() as stack:
        qm = stack.queue_manager()          # adapter.pymqi.QueueManager, unique name
        ...

Where the servers come from, first match wins:
1. the arguments, or `MQK_KAFKA_BOOTSTRAP` and `MQK_REDIS_URL` (both set): existing
   servers, used as they are and never stopped;
2. testcontainers, when a Docker engine answers (the official apache/kafka image and
   redis; needs the `test` extra): containers removed on exit;
3. the native launcher (`ops.stack`: Kafka from Maven jars, Debian's redis-server): a
   server it started is stopped on exit, one that was already running is left running.

Secured servers: the client settings come from MQK_KAFKA_CONFIG / MQK_KAFKA_<KEY> and the
`rediss://` URL as for any application (adapter/config.py), and every client built here
takes them. What a test harness needs beyond the application's rights (FLUSHALL to
simulate losing Redis) goes through the harness's own administrator when one is given
(`admin_redis`, `admin_kafka_settings`): MQK_TEST_ADMIN_KAFKA_CONFIG (a properties file)
and MQK_TEST_ADMIN_REDIS_URL_FILE (a file holding a Redis URL), as `mqk stack env
--secure --harness` exports them; without them, the application's own settings.

The pytest plugin (`adapter.testing`, which needs the `test` extra) and users' own tests
both go through `MQKStack`. The launcher and testcontainers are imported only when used.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import socket
import uuid
from collections.abc import Iterator
from types import TracebackType

import redis
from confluent_kafka.admin import AdminClient

from adapter import config
from adapter.config import kafka_settings
from adapter.shim import naming, redis_conn, redis_store

KAFKA_IMAGE = "apache/kafka:4.3.1"  # same release as the native stack's jars
REDIS_IMAGE = "redis:7"

_NO_LAUNCHER = (
    "mqk: no Kafka/Redis for the tests: set {kafka} and {redis} to existing servers, "
    "run a Docker engine (with the `test` extra: pip install 'mqk[test]'), or use a "
    "checkout of mqk whose native launcher (package `ops`) is importable ({error})"
)


def unique_qmgr_name() -> str:
    """A queue-manager name no other test uses: topics and Redis keys never overlap."""
    return f"QM{uuid.uuid4().hex[:10].upper()}"


class MQKStack:
    """Kafka + Redis for a test run, as a context manager (see the module's docstring).

    After `start()` (or `with`): `kafka_bootstrap`, `redis_url`, `endpoints`, `env` (the
    two variables, for subprocesses) and `source` ("environment", "testcontainers" or
    "native"). `queue_manager()` hands out connected queue managers; `stop()` (or leaving
    the `with`) disconnects them, deletes the topics and Redis keys of those it named
    itself (nobody else knows those names), and stops only the servers it started.
    """

    def __init__(self, kafka_bootstrap: str | None = None, redis_url: str | None = None):
        self._given = (kafka_bootstrap, redis_url)
        self._exit: contextlib.ExitStack | None = None
        self._endpoints: config.Endpoints | None = None
        self._handed_out: list = []
        self._named_here: list[str] = []
        self.source = ""

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> MQKStack:
        if self._exit is not None:
            raise RuntimeError("MQKStack already started")
        exit_stack = contextlib.ExitStack()
        try:
            self._endpoints, self.source = exit_stack.enter_context(_servers(*self._given))
        except BaseException:
            exit_stack.close()
            raise
        self._exit = exit_stack
        return self

    def stop(self) -> None:
        """Disconnect the queue managers handed out, delete those this object named, then
        stop what `start` started."""
        exit_stack, self._exit = self._exit, None
        try:
            managers, self._handed_out = self._handed_out, []
            for qm in managers:
                _disconnect(qm)
            names, self._named_here = self._named_here, []
            for name in names:
                with contextlib.suppress(Exception):  # clean-up: never hide the test's outcome
                    purge_queue_manager(self._endpoints, name)
        finally:
            self._endpoints = None
            if exit_stack is not None:
                exit_stack.close()

    def __enter__(self) -> MQKStack:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what it hands out -----------------------------------------------------------
    @property
    def endpoints(self) -> config.Endpoints:
        if self._endpoints is None:
            raise RuntimeError("MQKStack not started: use `with MQKStack() as stack:`")
        return self._endpoints

    @property
    def kafka_bootstrap(self) -> str:
        return self.endpoints.kafka_bootstrap

    @property
    def redis_url(self) -> str:
        return self.endpoints.redis_url

    @property
    def env(self) -> dict[str, str]:
        """`MQK_KAFKA_BOOTSTRAP` / `MQK_REDIS_URL` for these servers (for subprocesses)."""
        return {
            config.KAFKA_BOOTSTRAP_ENV: self.kafka_bootstrap,
            config.REDIS_URL_ENV: self.redis_url,
        }

    def queue_manager(self, name: str | None = None, **kwargs):
        """MQCONN on these servers: a connected `adapter.pymqi.QueueManager`, disconnected
        by `stop()` unless the test did it already. Without a name it gets a unique one,
        and `stop()` deletes that queue manager's topics and keys."""
        import adapter.pymqi as pymqi

        eps = self.endpoints
        if name is None:
            name = unique_qmgr_name()
            self._named_here.append(name)
        manager = pymqi.connect(
            name, kafka_bootstrap=eps.kafka_bootstrap, redis_url=eps.redis_url, **kwargs
        )
        self._handed_out.append(manager)
        return manager


def _disconnect(manager) -> None:
    """MQDISC unless already disconnected (it commits a unit of work left open)."""
    import adapter.pymqi as pymqi

    with contextlib.suppress(pymqi.PYIFError):  # "not connected": the test did it
        manager.disconnect()


@contextlib.contextmanager
def _servers(
    kafka_bootstrap: str | None = None, redis_url: str | None = None
) -> Iterator[tuple[config.Endpoints, str]]:
    kafka_bootstrap = kafka_bootstrap or os.environ.get(config.KAFKA_BOOTSTRAP_ENV)
    redis_url = redis_url or os.environ.get(config.REDIS_URL_ENV)
    if kafka_bootstrap and redis_url:
        yield config.Endpoints(kafka_bootstrap, redis_url), "environment"
    elif _docker_answers():
        with _containers() as eps:
            yield eps, "testcontainers"
    else:
        with _native() as eps:
            yield eps, "native"


def _docker_answers() -> bool:
    if importlib.util.find_spec("testcontainers") is None:
        return False
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
    try:
        from ops import stack  # optional: the launcher of a checkout (or the wheel's)
    except ModuleNotFoundError as err:
        raise RuntimeError(
            _NO_LAUNCHER.format(
                kafka=config.KAFKA_BOOTSTRAP_ENV, redis=config.REDIS_URL_ENV, error=err
            )
        ) from err

    quiet = lambda *_: None  # noqa: E731
    before = stack.status()
    state = stack.up(log=quiet)
    after = stack.status()
    started = [name for name in after if after[name]["running"] and not before[name]["running"]]
    try:
        yield config.endpoints(state.kafka_bootstrap or None, state.redis_url or None)
    finally:
        if started:
            stack.down(log=quiet, only=started)


def admin_kafka_settings() -> dict[str, str]:
    """The harness administrator's Kafka client settings (MQK_TEST_ADMIN_KAFKA_CONFIG),
    else the application's own (adapter/config.py)."""
    path = os.environ.get(config.TEST_ADMIN_KAFKA_CONFIG_ENV)
    return config.read_properties(path) if path else kafka_settings()


def admin_redis_url() -> str:
    """The harness administrator's URL for the session's Redis (read from the file
    MQK_TEST_ADMIN_REDIS_URL_FILE names), else the application's (MQK_REDIS_URL, else
    the local stack)."""
    path = os.environ.get(config.TEST_ADMIN_REDIS_URL_FILE_ENV)
    if path:
        with open(path) as f:
            return f.read().strip()
    return config.endpoints().redis_url


def admin_redis(qmgr: str) -> redis.Redis:
    """A client of the session's Redis as the harness's administrator (any MQK_REDIS_URL
    form: FLUSHALL on a Redis Cluster reaches every primary). Close it after use."""
    return redis_conn.connect(admin_redis_url(), qmgr)


def purge_queue_manager(eps: config.Endpoints, qmgr: str) -> None:
    """Delete every topic and Redis key of a queue manager (test clean-up: a broker that
    keeps eleven topics per queue for every test would grow without bound). The
    application's own rights suffice: its topics and its `mqk:` keys."""
    admin = AdminClient({**kafka_settings(), "bootstrap.servers": eps.kafka_bootstrap})
    prefix = f"mqk.{naming.escape(qmgr)}."
    topics = [t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix)]
    if topics:
        for fut in admin.delete_topics(topics, operation_timeout=30).values():
            with contextlib.suppress(Exception):
                fut.result(30)
    client = redis_conn.connect(eps.redis_url, qmgr)  # any MQK_REDIS_URL form
    redis_store.purge_queue_manager(client, qmgr)
    client.close()
