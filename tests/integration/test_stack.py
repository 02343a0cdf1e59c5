"""The local stack is real: Kafka transactions, Redis durability, the launcher's CLI."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import redis as redis_lib
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from adapter import config
from ops import procs
from ops import redis as redis_launcher

pytestmark = pytest.mark.integration


def _create_topic(bootstrap: str, name: str) -> None:
    admin = AdminClient(config.kafka_client(bootstrap))
    for fut in admin.create_topics([NewTopic(name, 1, 1)]).values():
        fut.result(30)


def _drain(bootstrap: str, topic: str, expect_at_least: int, timeout: float = 20.0) -> list[bytes]:
    consumer = Consumer(
        config.kafka_client(
            bootstrap,
            **{
                "group.id": f"g-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
                "isolation.level": "read_committed",
                "enable.auto.commit": False,
            },
        )
    )
    consumer.subscribe([topic])
    got: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                if len(got) >= expect_at_least:
                    break
                continue
            if not msg.error():
                got.append(msg.value())
    finally:
        consumer.close()
    return got


def test_read_committed_sees_only_committed_transaction(kafka_bootstrap: str) -> None:
    topic = f"stack-tx-{uuid.uuid4().hex[:8]}"
    _create_topic(kafka_bootstrap, topic)
    producer = Producer(
        config.kafka_client(kafka_bootstrap, **{"transactional.id": f"tx-{uuid.uuid4().hex}"})
    )
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, b"committed")
    producer.commit_transaction(30)
    producer.begin_transaction()
    producer.produce(topic, b"aborted")
    producer.abort_transaction(30)
    # A record after the aborted one proves the consumer read past the aborted batch.
    producer.begin_transaction()
    producer.produce(topic, b"after")
    producer.commit_transaction(30)

    assert _drain(kafka_bootstrap, topic, expect_at_least=2) == [b"committed", b"after"]


def test_redis_keeps_a_key_across_a_restart(tmp_path: Path) -> None:
    """The launcher's redis-server runs with AOF: a restart keeps what was written."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    pid = redis_launcher.start(tmp_path, port)
    try:
        redis_launcher.wait_ready(url, pid, tmp_path / "redis.log")
        client = redis_lib.Redis.from_url(url)
        client.set("mqk:durable", b"kept")
        procs.stop(pid, redis_launcher.MARKER)
        assert not procs.alive(pid, redis_launcher.MARKER)
        pid = redis_launcher.start(tmp_path, port)
        redis_launcher.wait_ready(url, pid, tmp_path / "redis.log")
        assert redis_lib.Redis.from_url(url).get("mqk:durable") == b"kept"
        assert any((tmp_path / "redis-data").rglob("*.aof")), "no append-only file written"
    finally:
        procs.stop(pid, redis_launcher.MARKER)


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _mqk(env: dict[str, str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "adapter.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def isolated_env(tmp_path: Path) -> dict[str, str]:
    """A second stack with its own home and ports, so the session's stack is untouched."""
    kafka_port, controller_port, redis_port = _free_ports(3)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
    env.update(
        {
            "MQK_HOME": str(tmp_path / "home"),
            "MQK_KAFKA_PORT": str(kafka_port),
            "MQK_CONTROLLER_PORT": str(controller_port),
            "MQK_REDIS_PORT": str(redis_port),
        }
    )
    # The jar cache is reused (a symlink), not downloaded again.
    from adapter.config import mqk_home

    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "jars").symlink_to(mqk_home() / "jars")
    return env


def test_stack_cli_up_twice_status_env_down(isolated_env: dict[str, str]) -> None:
    env = isolated_env
    try:
        first = _mqk(env, "stack", "up")
        assert first.returncode == 0, first.stderr
        assert "kafka: started" in first.stdout and "redis: started" in first.stdout
        second = _mqk(env, "stack", "up")
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stdout and "started" not in second.stdout

        status = _mqk(env, "stack", "status")
        assert status.returncode == 0
        assert status.stdout.count("running") == 2

        exports = _mqk(env, "stack", "env")
        assert exports.returncode == 0
        assert f"export MQK_KAFKA_BOOTSTRAP=127.0.0.1:{env['MQK_KAFKA_PORT']}" in exports.stdout
        sock = Path(env["MQK_HOME"]) / "run" / "redis.sock"  # TCP when too long a path
        tcp = f"redis://127.0.0.1:{env['MQK_REDIS_PORT']}/0"
        url = f"unix://{sock}?db=0" if len(str(sock)) <= 100 else tcp
        assert f"export MQK_REDIS_URL={url}" in exports.stdout
        # `eval "$(mqk stack env)"` works in a shell and reaches the broker.
        shell = subprocess.run(
            [
                "bash",
                "-c",
                f'eval "$({sys.executable} -m adapter.cli stack env)"; echo "$MQK_KAFKA_BOOTSTRAP"',
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert shell.stdout.strip() == f"127.0.0.1:{env['MQK_KAFKA_PORT']}"
    finally:
        down = _mqk(env, "stack", "down", "--wipe")
    assert down.returncode == 0, down.stderr
    assert "kafka: stopped" in down.stdout and "redis: stopped" in down.stdout
    after = _mqk(env, "stack", "status")
    assert after.returncode == 3 and after.stdout.count("stopped") == 2
    assert not (Path(env["MQK_HOME"]) / "run" / "kafka-data").exists()


def test_stack_up_with_port_taken_fails_fast_and_clearly(isolated_env: dict[str, str]) -> None:
    env = isolated_env
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", int(env["MQK_KAFKA_PORT"])))
    blocker.listen()
    try:
        started = time.monotonic()
        result = _mqk(env, "stack", "up", timeout=120)
        elapsed = time.monotonic() - started
    finally:
        blocker.close()
        _mqk(env, "stack", "down", "--wipe")
    assert result.returncode == 2
    assert f"port {env['MQK_KAFKA_PORT']}" in result.stderr and "already in use" in result.stderr
    assert "Traceback" not in result.stderr
    assert elapsed < 60
