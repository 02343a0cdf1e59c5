"""A real Apache Kafka broker from Maven Central jars: KRaft, combined broker+controller
nodes on loopback; one node (the default stack), or one of a replicated cluster
(ops/cluster.py: a controller quorum of N, replication factor N, min.insync.replicas N-1)."""

from __future__ import annotations

import base64
import os
import shutil
import time
import uuid
from pathlib import Path

from ops import procs
from ops.jars import kafka_jars_dir

MARKER = "kafka.Kafka"


class KafkaStartError(RuntimeError):
    pass


def server_properties(
    data_dir: Path,
    port: int,
    controller_port: int,
    node_id: int = 1,
    voters: str | None = None,
    replicas: int = 1,
) -> str:
    """One node's configuration. Alone (`replicas` 1): internal topics at replication 1
    and one partition, so a single node starts in seconds and transactions work (the
    default RF 3 leaves the transaction coordinator unusable). In a cluster of
    `replicas` nodes (`voters`: the quorum, `id@host:port,...`): every topic, queue
    topics and internal ones alike, at replication `replicas` with min.insync.replicas
    `replicas - 1`, so one node may fail without a write being refused or lost."""
    isr = max(1, replicas - 1)
    return f"""\
process.roles=broker,controller
node.id={node_id}
controller.quorum.voters={voters or f"1@127.0.0.1:{controller_port}"}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs={data_dir}
num.partitions=1
default.replication.factor={replicas}
min.insync.replicas={isr}
auto.create.topics.enable=false
offsets.topic.replication.factor={replicas}
offsets.topic.num.partitions=1
transaction.state.log.replication.factor={replicas}
transaction.state.log.min.isr={isr}
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor={replicas}
share.coordinator.state.topic.min.isr={isr}
share.coordinator.state.topic.num.partitions=1
group.initial.rebalance.delay.ms=0
group.share.enable=true
log.retention.hours=-1
"""


# WARN and above: at INFO a long-lived local broker's log reached 1.2 GB in one day of
# test runs (every topic created and deleted logs several lines); start-up failures and
# the errors wait_ready's tail shows are WARN or ERROR.
LOG4J2 = """\
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.out.ref = OUT
logger.state.name = state.change.logger
logger.state.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.cleaner.name = kafka.log.LogCleaner
logger.cleaner.level = WARN
"""


def _java() -> str:
    java = shutil.which("java")
    if not java:
        raise KafkaStartError("java is not on PATH: Kafka 4.x needs Java 17+")
    return java


def _classpath() -> str:
    return str(kafka_jars_dir() / "*")


def new_cluster_id() -> str:
    """Base64url of a random UUID, as Kafka's Uuid.randomUuid: never starting with '-',
    which the storage tool's argument parser would take for an option."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


def format_storage(
    config: Path,
    data_dir: Path,
    log: Path,
    cluster_id: str | None = None,
    extra_args: tuple[str, ...] = (),
) -> None:
    """Format the node's storage once (`cluster_id`: the one every node of a cluster
    shares; a new one for a single node; `extra_args`: e.g. the secure stack's
    `--add-scram` users, which KRaft takes only at format time)."""
    if (data_dir / "meta.properties").exists():
        return
    cluster_id = cluster_id or new_cluster_id()
    import subprocess

    proc = subprocess.run(
        [
            _java(),
            "-cp",
            _classpath(),
            "kafka.tools.StorageTool",
            "format",
            "-t",
            cluster_id,
            "-c",
            str(config),
            *extra_args,
        ],
        capture_output=True,
        text=True,
    )
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as out:
        out.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise KafkaStartError(f"formatting KRaft storage failed:\n{proc.stdout}{proc.stderr}")


# Every MQ queue is eleven topics: a long-lived test or demo broker holds thousands of
# partitions, which outgrew 512 MiB (OutOfMemoryError after a few full test runs).
HEAP_MB = int(os.environ.get("MQK_KAFKA_HEAP_MB", "1024"))


def start(
    run_dir: Path,
    port: int,
    controller_port: int,
    heap_mb: int = HEAP_MB,
    *,
    node_id: int = 1,
    voters: str | None = None,
    replicas: int = 1,
    cluster_id: str | None = None,
    properties: str | None = None,
    format_args: tuple[str, ...] = (),
) -> int:
    """Start one node (detached) and return its pid. `properties`: the node's whole
    server.properties instead of `server_properties(...)` (ops/secure.py's listeners)."""
    for p in (port, controller_port):
        if procs.port_in_use(p):
            raise KafkaStartError(
                f"port {p} on 127.0.0.1 is already in use by another process; stop it or set "
                "MQK_KAFKA_PORT / MQK_CONTROLLER_PORT to free ports"
            )
    data_dir = run_dir / "kafka-data"
    config = run_dir / "server.properties"
    log = run_dir / "kafka.log"
    run_dir.mkdir(parents=True, exist_ok=True)
    config.write_text(
        properties or server_properties(data_dir, port, controller_port, node_id, voters, replicas)
    )
    (run_dir / "log4j2.properties").write_text(LOG4J2)
    format_storage(config, data_dir, log, cluster_id, format_args)
    cmd = [
        _java(),
        f"-Xms{heap_mb // 2}m",
        f"-Xmx{heap_mb}m",
        "-XX:+UseG1GC",
        "-Djava.awt.headless=true",
        f"-Dkafka.logs.dir={run_dir}",
        f"-Dlog4j2.configurationFile={run_dir / 'log4j2.properties'}",
        "-cp",
        _classpath(),
        MARKER,
        str(config),
    ]
    return procs.start_detached(cmd, log)


def wait_ready(
    bootstrap: str, pid: int, log: Path, timeout: float = 90.0, client: dict | None = None
) -> None:
    """Block until the broker answers a metadata request; fail fast if it died.
    `client`: settings to reach it with (the secure stack's admin credentials)."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(
        {"bootstrap.servers": bootstrap, "log_level": 0, "logger": _quiet, **(client or {})}
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not procs.running(pid):
            raise KafkaStartError(
                f"Kafka exited during start-up. Log tail ({log}):\n{procs.tail(log)}"
            )
        try:
            md = admin.list_topics(timeout=2)
            if md.brokers:
                return
        except Exception:  # noqa: BLE001 - not up yet; the deadline bounds the loop
            pass
        time.sleep(0.5)
    raise KafkaStartError(
        f"Kafka did not answer metadata requests within {timeout:.0f}s. Log tail ({log}):\n"
        f"{procs.tail(log)}"
    )


class _Quiet:
    def log(self, *args, **kwargs) -> None:  # librdkafka connection-refused chatter at start-up
        pass


_quiet = _Quiet()
