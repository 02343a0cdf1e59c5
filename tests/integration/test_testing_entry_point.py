"""`adapter.testing.MQKStack`, the entry point for users' own integration tests, on the
running stack (MQK_KAFKA_BOOTSTRAP / MQK_REDIS_URL set, as the session's servers are)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

import adapter.pymqi as pymqi
from adapter import config
from adapter.testing import MQKStack, purge_queue_manager
from adapter.testing.servers import unique_qmgr_name

pytestmark = pytest.mark.integration
C = pymqi.CMQC


def _topics_of(bootstrap: str, qmgr: str) -> list[str]:
    topics = AdminClient(config.kafka_client(bootstrap)).list_topics(timeout=10).topics
    return [t for t in topics if t.startswith(f"mqk.{qmgr}.")]


def test_stack_hands_out_a_queue_manager_that_puts_and_gets(mqk_servers) -> None:
    with MQKStack() as stack:
        assert stack.source == "environment"
        assert stack.kafka_bootstrap == os.environ[config.KAFKA_BOOTSTRAP_ENV]
        assert stack.redis_url == os.environ[config.REDIS_URL_ENV]
        qm = stack.queue_manager()
        name = qm.get_name()
        qm.define_queue("ORDERS")
        q = pymqi.Queue(qm, "ORDERS", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        q.put(b"order 1", pymqi.MD(Priority=5))
        md = pymqi.MD()
        assert q.get(None, md) == b"order 1"
        assert md.Priority == 5
        q.close()
        assert _topics_of(stack.kafka_bootstrap, name)
    # Leaving the block disconnected what it handed out and deleted the queue manager it
    # named; the servers, which it did not start, still answer.
    assert not qm.is_connected
    with pytest.raises(pymqi.PYIFError):
        qm.disconnect()
    deadline = time.monotonic() + 15
    while _topics_of(mqk_servers.kafka_bootstrap, name) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _topics_of(mqk_servers.kafka_bootstrap, name)


def test_arguments_win_and_a_disconnect_by_the_test_is_fine(mqk_servers) -> None:
    name = unique_qmgr_name()
    stack = MQKStack(kafka_bootstrap=mqk_servers.kafka_bootstrap, redis_url=mqk_servers.redis_url)
    with pytest.raises(RuntimeError, match="not started"):
        _ = stack.kafka_bootstrap
    with stack:
        assert stack.endpoints == mqk_servers and stack.source == "environment"
        assert stack.env == {
            config.KAFKA_BOOTSTRAP_ENV: mqk_servers.kafka_bootstrap,
            config.REDIS_URL_ENV: mqk_servers.redis_url,
        }
        named = stack.queue_manager(name)
        assert named.get_name() == name
        named.disconnect()  # stop() must not fail on it
    with pytest.raises(RuntimeError, match="not started"):
        _ = stack.redis_url
    purge_queue_manager(mqk_servers, name)


_NATIVE_RUN = textwrap.dedent(
    """
    import json
    import adapter.pymqi as pymqi
    from adapter.testing import MQKStack

    with MQKStack() as stack:
        qm = stack.queue_manager()
        qm.define_queue("Q")
        q = pymqi.Queue(qm, "Q", pymqi.CMQC.MQOO_INPUT_SHARED | pymqi.CMQC.MQOO_OUTPUT)
        q.put(b"through the native stack")
        got = q.get()
        q.close()
        print(json.dumps({"source": stack.source, "got": got.decode(), **stack.env}))
    """
)


def test_without_servers_or_docker_it_starts_the_native_stack_and_stops_it(tmp_path: Path):
    """No variables, no Docker engine here: MQKStack starts Kafka and Redis with the native
    launcher (its own home and ports, so the session's stack is untouched) and stops both."""
    ports = []
    for _ in range(3):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
    home = tmp_path / "home"
    home.mkdir()
    (home / "jars").symlink_to(config.mqk_home() / "jars")  # reuse the jar cache
    env.update(
        MQK_HOME=str(home),
        MQK_KAFKA_PORT=str(ports[0]),
        MQK_CONTROLLER_PORT=str(ports[1]),
        MQK_REDIS_PORT=str(ports[2]),
    )
    run = subprocess.run(
        [sys.executable, "-c", _NATIVE_RUN], env=env, capture_output=True, text=True, timeout=240
    )
    try:
        assert run.returncode == 0, run.stderr
        out = json.loads(run.stdout.strip().splitlines()[-1])
        assert out["source"] == "native" and out["got"] == "through the native stack"
        assert out[config.KAFKA_BOOTSTRAP_ENV] == f"127.0.0.1:{ports[0]}"
        # the launcher's Redis is reached over its unix socket, unless MQK_HOME is too
        # deep for a socket path (config.redis_socket); its TCP port listens either way
        sock = home / "run" / "redis.sock"
        assert out[config.REDIS_URL_ENV] == (
            f"unix://{sock}?db=0" if len(str(sock)) <= 100 else f"redis://127.0.0.1:{ports[2]}/0"
        )
        status = subprocess.run(
            [sys.executable, "-m", "adapter.cli", "stack", "status"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert status.returncode == 3 and status.stdout.count("stopped") == 2, status.stdout
    finally:
        subprocess.run(
            [sys.executable, "-m", "adapter.cli", "stack", "down", "--wipe"],
            env=env,
            capture_output=True,
            timeout=120,
        )
